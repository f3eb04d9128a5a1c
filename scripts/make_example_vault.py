#!/usr/bin/env python3
"""Write the attachments of the bundled example vault (examples/vault/attachments/).

The Markdown notes of the example vault are written by hand and committed as
they are; this script makes the files that link to them: a PDF (with an outline
and one scanned, image-only page), a DOCX, a PPTX, an XLSX, a CSV, an HTML page,
a PNG with text for OCR and a short spoken clip (Ogg/Opus).

Output is reproducible: fixed document dates, fixed zip timestamps, no random
ids. The PDF is written with pymupdf (the ``test`` extra; CogniVault itself
reads PDFs with pypdf and PDFium). The clip needs ``espeak-ng`` (Debian) and
PyAV (a faster-whisper dependency); without them the committed clip is kept as it is.

    python scripts/make_example_vault.py            # into examples/vault/
    python scripts/make_example_vault.py --out DIR  # into DIR/attachments/
"""

from __future__ import annotations

import argparse
import csv
import io
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_VAULT = REPO / "examples" / "vault"
ATTACHMENTS = "attachments"
FIXED_DATE = datetime(2024, 3, 1, 9, 0, 0)
ZIP_DATE = (2024, 3, 1, 9, 0, 0)
FONT_CANDIDATES = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/Library/Fonts/DejaVuSans.ttf",
)

# --- content -----------------------------------------------------------------------------------

PDF_PAGES: list[tuple[str, str]] = [
    ("Photosynthesis at a glance",
     "Photosynthesis is the process by which plants, algae and cyanobacteria turn light energy into "
     "chemical energy. It takes place in the chloroplasts of leaf mesophyll cells. The overall "
     "equation is 6 CO2 + 6 H2O -> C6H12O6 + 6 O2: carbon dioxide and water are converted into "
     "glucose and oxygen, driven by light absorbed by chlorophyll.\n\n"
     "The process has two linked stages. The light-dependent reactions in the thylakoid membranes "
     "capture light energy and store it in ATP and NADPH, releasing oxygen from split water "
     "molecules. The light-independent reactions (the Calvin cycle) in the stroma use that ATP and "
     "NADPH to fix carbon dioxide into sugar.\n\n"
     "Almost all food chains on Earth depend on this process, and the oxygen in the atmosphere "
     "comes from it."),
    ("The two stages in detail",
     "Light-dependent reactions: Photosystem II absorbs light and passes excited electrons to an "
     "electron transport chain. The electrons lost by photosystem II are replaced by splitting water "
     "(photolysis), which releases oxygen and protons into the thylakoid lumen. As electrons flow "
     "through the cytochrome b6f complex, more protons are pumped into the lumen. The proton "
     "gradient drives ATP synthase (chemiosmosis). Photosystem I re-energises the electrons, and "
     "ferredoxin-NADP+ reductase uses them to reduce NADP+ to NADPH.\n\n"
     "Calvin cycle: the enzyme RuBisCO fixes CO2 onto ribulose-1,5-bisphosphate (RuBP). The "
     "unstable six-carbon product splits into two molecules of 3-phosphoglycerate, which ATP and "
     "NADPH reduce to glyceraldehyde-3-phosphate (G3P). Most G3P regenerates RuBP; for every three "
     "CO2 fixed, one G3P leaves the cycle to build glucose, sucrose and starch. Fixing three CO2 "
     "costs nine ATP and six NADPH."),
]
# Page 3 of the PDF is a "scanned" worksheet: an image with no text layer (read by OCR).
SCANNED_PAGE_LINES = [
    "Worksheet: limiting factors",
    "",
    "The rate of photosynthesis is limited by",
    "the factor in shortest supply:",
    "1. light intensity",
    "2. carbon dioxide concentration",
    "3. temperature (enzymes such as RuBisCO)",
    "",
    "Raising a factor that is not limiting",
    "does not increase the rate.",
]

DOCX_TITLE = "Leaf anatomy and gas exchange"
DOCX_BODY: list[tuple[str, str]] = [
    ("Title", DOCX_TITLE),
    ("Normal", "Handout for the photosynthesis unit. A leaf is an organ built to capture light and "
               "to exchange gases with the air while losing as little water as possible."),
    ("Heading 1", "Tissues of the leaf"),
    ("Heading 2", "Epidermis and cuticle"),
    ("Normal", "The upper and lower epidermis are single layers of transparent cells covered by a "
               "waxy cuticle that reduces water loss. Light passes through them to the mesophyll."),
    ("Heading 2", "Palisade mesophyll"),
    ("Normal", "Tall, tightly packed palisade cells lie just below the upper epidermis. They contain "
               "the most chloroplasts and carry out most of the photosynthesis in the leaf."),
    ("Heading 2", "Spongy mesophyll"),
    ("Normal", "Loosely arranged spongy mesophyll cells leave large air spaces between them. Carbon "
               "dioxide diffuses through these air spaces to the photosynthesising cells, and oxygen "
               "diffuses out."),
    ("Heading 1", "Stomata and guard cells"),
    ("Normal", "Stomata are pores, mostly in the lower epidermis. Each pore is bordered by two guard "
               "cells. When guard cells take up potassium ions, water follows by osmosis, the cells "
               "become turgid and bow apart, and the pore opens. In drought the hormone abscisic acid "
               "makes the guard cells lose water and the stomata close."),
    ("List Bullet", "Open stomata: CO2 in, O2 and water vapour out."),
    ("List Bullet", "Closed stomata: water is saved, but photosynthesis slows down."),
    ("Heading 1", "Summary table"),
]
DOCX_TABLE = [
    ("Tissue", "Main function", "Adaptation"),
    ("Cuticle", "Reduce water loss", "Waxy, waterproof layer"),
    ("Palisade mesophyll", "Photosynthesis", "Many chloroplasts, near the light"),
    ("Spongy mesophyll", "Gas exchange", "Air spaces, large moist surface"),
    ("Guard cells", "Control stomata", "Change shape with turgor"),
    ("Xylem", "Bring water", "Part of the vein network"),
]

PPTX_SLIDES: list[tuple[str, list[str], str]] = [
    ("Light-dependent reactions",
     ["Where: thylakoid membranes of the chloroplast",
      "Input: light, water, ADP, NADP+",
      "Output: ATP, NADPH, oxygen"],
     "Start by recalling the overall equation; the oxygen comes from water, not from CO2."),
    ("Photosystems and light-harvesting complexes",
     ["Antenna pigments (chlorophyll a, b, carotenoids) funnel energy to the reaction centre",
      "Photosystem II (P680) splits water: 2 H2O -> 4 H+ + 4 e- + O2",
      "Photosystem I (P700) re-energises electrons for NADPH"],
     "Light-harvesting complexes pass excitation energy by resonance transfer."),
    ("Making ATP by chemiosmosis",
     ["Protons accumulate in the thylakoid lumen",
      "They flow back through ATP synthase into the stroma",
      "Photophosphorylation: ADP + Pi -> ATP"],
     "Compare with oxidative phosphorylation in mitochondria: same principle, different membrane."),
    ("Cyclic and non-cyclic electron flow",
     ["Non-cyclic: water -> PSII -> PSI -> NADPH (makes ATP and NADPH)",
      "Cyclic: electrons from PSI return to the cytochrome b6f complex (ATP only)"],
     "The Calvin cycle needs 3 ATP per 2 NADPH; cyclic flow makes up the extra ATP."),
]

XLSX_LIGHT_HEADER = ("Lamp distance (cm)", "Relative light intensity", "Bubbles per minute", "Temperature (°C)")
XLSX_CO2_HEADER = ("NaHCO3 (%)", "Bubbles per minute", "Notes")
XLSX_CO2_ROWS = [
    (0.0, 4, "tap water only"),
    (0.1, 11, ""),
    (0.2, 19, ""),
    (0.4, 27, ""),
    (0.6, 31, "rate levels off"),
    (0.8, 32, "CO2 no longer limiting"),
    (1.0, 32, ""),
]

CSV_HEADER = ("trial", "lamp_distance_cm", "light_intensity_rel", "bubbles_per_minute", "water_temp_c")

HTML_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>How leaves take in carbon dioxide</title>
<style>body { font-family: sans-serif; max-width: 40em; }</style>
<script>console.log("analytics disabled in the saved copy");</script>
</head>
<body>
<nav><a href="#">Home</a> | <a href="#">Biology</a> | <a href="#">Plants</a></nav>
<article>
<h1>How leaves take in carbon dioxide</h1>
<p>Leaves need a steady supply of carbon dioxide for the Calvin cycle, yet the same openings that
let CO2 in also let water vapour out. Plants solve this trade-off with stomata, tiny pores whose
size is adjusted by a pair of guard cells.</p>
<h2>The path of a CO2 molecule</h2>
<p>Carbon dioxide diffuses from the air through an open stoma into the air spaces of the spongy
mesophyll. There it dissolves in the thin film of water that covers the mesophyll cell walls,
diffuses through the cell membrane and cytoplasm, and enters the chloroplast stroma, where RuBisCO
fixes it. The gradient is kept up because photosynthesis constantly uses CO2 inside the leaf.</p>
<h2>Opening and closing</h2>
<p>In light, guard cells pump in potassium ions. Their water potential falls, water enters by
osmosis and the swollen guard cells curve apart, because cellulose microfibrils in their walls
let them lengthen but not widen. When water is short, roots and leaves produce abscisic acid
(ABA), potassium leaves the guard cells and the stomata close.</p>
<h2>Adaptations in dry climates</h2>
<table>
<tr><th>Plant type</th><th>Strategy</th><th>Example</th></tr>
<tr><td>C4 plants</td><td>Fix CO2 first into a four-carbon acid, concentrating it around RuBisCO</td><td>Maize</td></tr>
<tr><td>CAM plants</td><td>Open stomata at night and store CO2 as malic acid</td><td>Pineapple, cacti</td></tr>
<tr><td>Xerophytes</td><td>Sunken stomata, hairs and thick cuticles reduce water loss</td><td>Marram grass</td></tr>
</table>
</article>
<footer>Saved for offline study. Text written for the CogniVault example vault.</footer>
</body>
</html>
"""

IMAGE_LINES = [
    "Photosynthesis",
    "6 CO2 + 6 H2O -> C6H12O6 + 6 O2",
    "Chlorophyll absorbs red and blue light",
    "and reflects green light.",
]

AUDIO_TEXT = ("Photosynthesis stores the energy of sunlight in sugar. "
              "Plants take in carbon dioxide and water, and release oxygen.")


# --- helpers -----------------------------------------------------------------------------------


def font_path() -> str | None:
    for candidate in FONT_CANDIDATES:
        if Path(candidate).is_file():
            return candidate
    return None


def _font(size: int):  # noqa: ANN202
    from PIL import ImageFont

    path = font_path()
    if path:
        return ImageFont.truetype(path, size)
    return ImageFont.load_default(size=size)  # Pillow >= 10.1 ships a scalable default font


def _render_lines(lines: list[str], size: tuple[int, int], font_size: int, margin: int) -> bytes:
    from PIL import Image, ImageDraw

    image = Image.new("L", size, 255)
    draw = ImageDraw.Draw(image)
    font = _font(font_size)
    y = margin
    for line in lines:
        if line:
            draw.text((margin, y), line, fill=0, font=font)
        y += int(font_size * 1.5)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


_CORE_DATES = re.compile(rb"(<dcterms:(created|modified)[^>]*>)[^<]*(</dcterms:\2>)")


def normalize_zip(data: bytes) -> bytes:
    """Re-pack an Office file with fixed timestamps and fixed document dates."""
    stamp = FIXED_DATE.strftime("%Y-%m-%dT%H:%M:%SZ").encode()
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, \
            zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            content = source.read(info)
            if info.filename == "docProps/core.xml":
                content = _CORE_DATES.sub(rb"\g<1>" + stamp + rb"\g<3>", content)
            fixed = zipfile.ZipInfo(info.filename, date_time=ZIP_DATE)
            fixed.compress_type = zipfile.ZIP_DEFLATED
            fixed.create_system = 3
            fixed.external_attr = 0o644 << 16
            target.writestr(fixed, content, compresslevel=9)
    return out.getvalue()


# --- one builder per attachment ----------------------------------------------------------------


def make_pdf() -> bytes:
    import pymupdf

    document = pymupdf.open()
    for title, body in PDF_PAGES:
        page = document.new_page(width=595, height=842)  # A4 in points
        page.insert_text((56, 80), title, fontsize=18, fontname="hebo")
        page.insert_textbox(pymupdf.Rect(56, 100, 539, 800), body, fontsize=11, fontname="helv",
                            lineheight=1.4)
    scan = _render_lines(SCANNED_PAGE_LINES, (1240, 1754), 44, 110)  # A4 at 150 dpi
    page = document.new_page(width=595, height=842)
    page.insert_image(page.rect, stream=scan)
    document.set_toc([
        [1, "Photosynthesis at a glance", 1],
        [1, "The two stages in detail", 2],
        [2, "Light-dependent reactions", 2],
        [2, "Calvin cycle", 2],
        [1, "Worksheet: limiting factors", 3],
    ])
    stamp = FIXED_DATE.strftime("D:%Y%m%d%H%M%S+00'00'")
    document.set_metadata({"title": "Photosynthesis summary", "author": "CogniVault example vault",
                           "subject": "Photosynthesis", "creator": "make_example_vault.py",
                           "producer": "PyMuPDF", "creationDate": stamp, "modDate": stamp})
    data = document.tobytes(garbage=4, deflate=True, no_new_id=True)
    document.close()
    return data


def make_docx() -> bytes:
    import docx

    document = docx.Document()
    for style, text in DOCX_BODY:
        document.add_paragraph(text, style=style)
    table = document.add_table(rows=0, cols=len(DOCX_TABLE[0]))
    table.style = "Table Grid"
    for row in DOCX_TABLE:
        cells = table.add_row().cells
        for cell, value in zip(cells, row, strict=True):
            cell.text = value
    properties = document.core_properties
    properties.title = DOCX_TITLE
    properties.author = "CogniVault example vault"
    properties.last_modified_by = "make_example_vault.py"
    properties.revision = 1
    properties.created = FIXED_DATE
    properties.modified = FIXED_DATE
    properties.last_printed = FIXED_DATE
    out = io.BytesIO()
    document.save(out)
    return normalize_zip(out.getvalue())


def make_pptx() -> bytes:
    from pptx import Presentation

    presentation = Presentation()
    layout = presentation.slide_layouts[1]  # Title and Content
    for title, bullets, notes in PPTX_SLIDES:
        slide = presentation.slides.add_slide(layout)
        slide.shapes.title.text = title
        body = slide.placeholders[1].text_frame
        body.text = bullets[0]
        for bullet in bullets[1:]:
            body.add_paragraph().text = bullet
        slide.notes_slide.notes_text_frame.text = notes
    properties = presentation.core_properties
    properties.title = "Light-dependent reactions"
    properties.author = "CogniVault example vault"
    properties.last_modified_by = "make_example_vault.py"
    properties.revision = 1
    properties.created = FIXED_DATE
    properties.modified = FIXED_DATE
    out = io.BytesIO()
    presentation.save(out)
    return normalize_zip(out.getvalue())


def light_rows() -> list[tuple[float, float, int, int]]:
    """25 measurements: relative intensity follows the inverse square law (1 at 10 cm)."""
    rows = []
    for index in range(25):
        distance = 10 + index * 2.5
        intensity = round(100 / distance**2, 3)
        bubbles = round(48 * intensity / (intensity + 0.35))  # saturates at high light
        rows.append((distance, intensity, bubbles, 22))
    return rows


def make_xlsx() -> bytes:
    from openpyxl import Workbook

    workbook = Workbook()
    sheet = workbook.active
    sheet.title = "Light intensity"
    sheet.append(XLSX_LIGHT_HEADER)
    for row in light_rows():
        sheet.append(row)
    co2 = workbook.create_sheet("CO2")
    co2.append(XLSX_CO2_HEADER)
    for row in XLSX_CO2_ROWS:
        co2.append(row)
    workbook.properties.creator = "CogniVault example vault"
    workbook.properties.title = "Elodea photosynthesis rates"
    workbook.properties.created = FIXED_DATE
    out = io.BytesIO()
    workbook.save(out)
    return normalize_zip(out.getvalue())


def make_csv() -> bytes:
    out = io.StringIO(newline="")
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_HEADER)
    trial = 0
    for distance, intensity, bubbles, temperature in light_rows()[:10]:
        for repeat in range(3):
            trial += 1
            writer.writerow((trial, distance, intensity, bubbles + (repeat - 1), temperature))
    return out.getvalue().encode("utf-8")


def make_html() -> bytes:
    return HTML_PAGE.encode("utf-8")


def make_png() -> bytes:
    return _render_lines(IMAGE_LINES, (1100, 340), 48, 40)


def audio_tools() -> str | None:
    """None when the clip can be made here, else why not."""
    if shutil.which("espeak-ng") is None:
        return "espeak-ng not installed (apt-get install espeak-ng)"
    try:
        import av  # noqa: F401
    except ImportError:
        return "PyAV not installed (pip install av, or pip install '.[audio]')"
    return None


def make_ogg() -> bytes | None:
    """A few seconds of speech as Ogg/Opus, mono, 32 kbit/s; None when the tools are missing."""
    if audio_tools():
        return None
    import av

    with tempfile.TemporaryDirectory() as folder:
        wav = Path(folder) / "clip.wav"
        subprocess.run(["espeak-ng", "-v", "en-gb", "-s", "140", "-w", str(wav), AUDIO_TEXT],
                       check=True, capture_output=True, timeout=60)
        out = io.BytesIO()
        with av.open(str(wav)) as source, \
                av.open(out, "w", format="ogg", options={"fflags": "+bitexact"}) as target:
            stream = target.add_stream("libopus", rate=48000)
            stream.layout = "mono"
            stream.bit_rate = 32000
            resampler = av.AudioResampler(format=stream.format.name, layout="mono", rate=48000)
            for frame in source.decode(audio=0):
                for converted in resampler.resample(frame):
                    converted.pts = None
                    for packet in stream.encode(converted):
                        target.mux(packet)
            for converted in resampler.resample(None):
                converted.pts = None
                for packet in stream.encode(converted):
                    target.mux(packet)
            for packet in stream.encode(None):
                target.mux(packet)
        return out.getvalue()


BUILDERS: dict[str, Callable[[], bytes | None]] = {
    "photosynthesis-summary.pdf": make_pdf,
    "leaf-anatomy.docx": make_docx,
    "light-reactions.pptx": make_pptx,
    "elodea-rates.xlsx": make_xlsx,
    "elodea-trials.csv": make_csv,
    "how-leaves-take-in-co2.html": make_html,
    "photosynthesis-equation.png": make_png,
    "photosynthesis-summary.ogg": make_ogg,
}


def write_attachments(vault: Path, log: Callable[[str], None] = print) -> dict[str, Path]:
    """Write every attachment into ``vault/attachments``; returns name -> path of what exists."""
    folder = vault / ATTACHMENTS
    folder.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    for name, build in BUILDERS.items():
        target = folder / name
        data = build()
        if data is None:
            reason = audio_tools() or "tools missing"
            if target.is_file():
                log(f"kept    {target.relative_to(vault)} ({reason})")
                written[name] = target
            else:
                log(f"MISSING {target.relative_to(vault)} ({reason})")
            continue
        if target.is_file() and target.read_bytes() == data:
            log(f"same    {target.relative_to(vault)} ({len(data):,} bytes)")
        else:
            target.write_bytes(data)
            log(f"wrote   {target.relative_to(vault)} ({len(data):,} bytes)")
        written[name] = target
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_VAULT,
                        help="vault folder to write attachments/ into (default: examples/vault)")
    args = parser.parse_args(argv)
    if font_path() is None:
        print("note: DejaVu Sans not found; using Pillow's default font (images will differ)",
              file=sys.stderr)
    written = write_attachments(args.out)
    return 0 if len(written) == len(BUILDERS) else 1


if __name__ == "__main__":
    raise SystemExit(main())
