"""The bundled example vault: small, complete, linked, and its attachments reproducible and readable."""

from __future__ import annotations

import importlib.util
import re
import shutil
import sys
from pathlib import Path

import pytest

from cognivault.config import IndexSettings
from cognivault.vault.extractors import audio, extract_attachment, format_of

REPO = Path(__file__).resolve().parents[1]
VAULT = REPO / "examples" / "vault"
SCRIPT = REPO / "scripts" / "make_example_vault.py"
MAX_VAULT_BYTES = 2 * 1024 * 1024

WIKILINK = re.compile(r"(!?)\[\[([^\]|#]*)(?:#([^\]|]*))?(?:\|([^\]]*))?\]\]")
FRONTMATTER = re.compile(r"\A---\n(.*?)\n---\n", re.DOTALL)


def load_script():  # noqa: ANN201
    spec = importlib.util.spec_from_file_location("make_example_vault", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("make_example_vault", module)
    spec.loader.exec_module(module)
    return module


def notes() -> dict[str, str]:
    return {p.relative_to(VAULT).as_posix(): p.read_text("utf-8") for p in sorted(VAULT.rglob("*.md"))}


def attachments() -> list[Path]:
    return sorted(p for p in VAULT.rglob("*") if p.is_file() and format_of(p))


def strip_code(text: str) -> str:
    return re.sub(r"```.*?```", "", text, flags=re.DOTALL)


def frontmatter(text: str) -> dict[str, str]:
    match = FRONTMATTER.match(text)
    fields = {}
    for line in (match.group(1).splitlines() if match else []):
        key, _, value = line.partition(":")
        fields[key.strip()] = value.strip()
    return fields


def headings(text: str) -> set[str]:
    return {m.group(1).strip() for m in re.finditer(r"^#{1,6}\s+(.+)$", strip_code(text), re.MULTILINE)}


def test_vault_is_small() -> None:
    total = sum(p.stat().st_size for p in VAULT.rglob("*") if p.is_file())
    assert total < MAX_VAULT_BYTES, f"example vault is {total:,} bytes"


def test_every_attachment_kind_is_present() -> None:
    kinds = {format_of(p) for p in attachments()}
    assert kinds == {"pdf", "docx", "pptx", "xlsx", "csv", "html", "image", "audio"}


def test_notes_cover_the_markdown_features() -> None:
    texts = notes()
    assert 8 <= len(texts) <= 14
    everything = "\n".join(texts.values())
    german = {path: text for path, text in texts.items() if frontmatter(text).get("lang") == "de"}
    assert len(german) >= 2
    german_text = "\n".join(german.values())
    for word in ("Lichtsammelkomplexe", "Kohlenstoffdioxidaufnahme", "Spaltöffnungen"):
        assert word in german_text
    assert re.search(r"\[\[[^\]]+#\^[\w-]+\]\]", everything), "a block link [[Note#^id]]"
    assert re.search(r"\[\[[^\]^]+#[^\]^|]+\]\]", everything), "a heading link [[Note#Heading]]"
    assert re.search(r"\[\[[^\]]+\|[^\]]+\]\]", everything), "an aliased link [[Note|text]]"
    assert "![[" in everything
    assert re.search(r"^> \[!\w+\]", everything, re.MULTILINE), "a callout"
    assert re.search(r"%%.+%%", everything), "a comment"
    assert "```python" in everything
    assert re.search(r"(?<!\w)#biology/cells\b", everything), "a nested body tag"
    assert all(frontmatter(text).get("tags") for text in texts.values())
    assert any(frontmatter(text).get("aliases") for text in texts.values())
    assert re.search(r"^### ", everything, re.MULTILINE), "three heading levels"


def test_links_and_embeds_resolve() -> None:
    texts = notes()
    by_name = {Path(path).stem.lower(): path for path in texts}
    for path, text in texts.items():
        for alias in re.findall(r"aliases: \[(.*)\]", text):
            for name in alias.split(","):
                by_name.setdefault(name.strip().lower(), path)
    files = {p.name.lower() for p in attachments()}
    linked_files = set()
    for source, text in texts.items():
        for _embed, written, anchor, _alias in WIKILINK.findall(strip_code(text)):
            target = written.strip()
            if not target:
                continue
            if target.lower() in files:
                linked_files.add(target.lower())
                continue
            assert target.lower() in by_name, f"{source}: [[{target}]] does not resolve"
            if anchor:
                note = texts[by_name[target.lower()]]
                if anchor.startswith("^"):
                    assert re.search(rf"\^{re.escape(anchor[1:])}\s*$", note, re.MULTILINE), \
                        f"{source}: block {anchor} missing in {target}"
                else:
                    assert anchor in headings(note), f"{source}: heading {anchor!r} missing in {target}"
    assert linked_files == files, f"attachments nobody links to: {sorted(files - linked_files)}"


def same_content(made: Path, committed: Path) -> bool:
    """Byte-identical, or (when a library version changed its output) the same content."""
    if made.read_bytes() == committed.read_bytes():
        return True
    kind = format_of(made)
    if kind == "pdf":
        from pypdf import PdfReader

        def pages(path: Path) -> list[str]:
            return [page.extract_text() for page in PdfReader(path).pages]

        return pages(made) == pages(committed)
    if kind == "image":
        from PIL import Image

        with Image.open(made) as a, Image.open(committed) as b:
            return a.size == b.size and a.tobytes() == b.tobytes()
    if kind in ("docx", "pptx", "xlsx"):
        settings = IndexSettings()
        return ([c.text for c in extract_attachment(made, settings).chunks]
                == [c.text for c in extract_attachment(committed, settings).chunks])
    return False


def test_regenerating_gives_the_same_attachments(tmp_path: Path) -> None:
    script = load_script()
    written = script.write_attachments(tmp_path, log=lambda _line: None)
    committed = {p.name: p for p in (VAULT / script.ATTACHMENTS).iterdir() if p.is_file()}
    expected = set(committed)
    if script.audio_tools():  # no espeak-ng or PyAV here: the committed clip cannot be remade
        expected = {name for name in expected if format_of(name) != "audio"}
    assert set(written) == expected
    font_differs = script.font_path() is None
    for name, path in written.items():
        kind = format_of(name)
        if kind == "audio":
            # espeak-ng and libopus builds differ between systems: same clip, maybe other bytes.
            size, committed_size = path.stat().st_size, committed[name].stat().st_size
            assert abs(size - committed_size) < committed_size * 0.3
            continue
        if font_differs and kind == "image":
            continue  # rendered text depends on the font; DejaVu Sans was not found
        assert same_content(path, committed[name]), f"{name} differs when regenerated"


@pytest.fixture(scope="module")
def whisper_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if importlib.util.find_spec("faster_whisper") is None:
        pytest.skip("faster-whisper not installed (pip install '.[audio]')")
    try:
        # One folder per session (shared by the test files), so the model loads once.
        return audio.assemble_whisper_model(tmp_path_factory.getbasetemp() / "whisper-base")
    except audio.WhisperPackagesMissing as exc:
        pytest.skip(f"whisper model packages not installed: {exc}")


@pytest.mark.parametrize("name", [p.name for p in attachments()])
def test_every_attachment_extracts(name: str, request: pytest.FixtureRequest) -> None:
    path = next(p for p in attachments() if p.name == name)
    kind = format_of(path)
    settings = IndexSettings(extract_timeout_s=120)
    if kind == "image" and shutil.which("tesseract") is None:
        pytest.skip("tesseract not installed (apt-get install tesseract-ocr)")
    if kind == "audio":
        settings.whisper_model_dir = str(request.getfixturevalue("whisper_dir"))
    result = extract_attachment(path, settings)
    assert result.chunks, f"{name}: no chunks"
    text = "\n".join(c.text for c in result.chunks).lower()
    expected = {
        "pdf": "light energy into chemical energy",
        "docx": "guard cells",
        "pptx": "photosystem ii",
        "xlsx": "[sheet: light intensity]",
        "csv": "bubbles_per_minute",
        "html": "spongy mesophyll",
        "image": "chlorophyll absorbs red and blue light",
        "audio": "oxygen",
    }[kind]
    assert expected in " ".join(text.split())
    if kind == "pdf" and shutil.which("tesseract"):  # page 3 is a scan without a text layer
        assert result.metadata["ocr_pages"] == [3]
        page3 = [c for c in result.chunks if c.locator == "page 3"]
        assert page3 and "limiting factors" in page3[0].text.lower()
        assert page3[0].heading_path == ("Worksheet: limiting factors", "Page 3")
