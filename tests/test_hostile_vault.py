"""A vault full of hostile and broken files: each fails (or is read) alone, fast, with a reason.

Every fixture is generated here. The vault also holds two ordinary notes; they
must index as if nothing else were there. Reading runs in the isolated worker
(time limit, memory cap), so this also proves a bad file cannot take the
indexer down with it.
"""

from __future__ import annotations

import io
import time
import zipfile
import zlib
from pathlib import Path

import pytest

from cognivault.config import load_settings
from cognivault.engine import Engine

GOOD_NOTES = {
    "Good/Mitochondria.md": "# Mitochondria\n\nMitochondria are the organelles where cellular respiration "
                            "releases energy from glucose, producing ATP for the rest of the cell to use.\n",
    "Good/Ribosomes.md": "# Ribosomes\n\nRibosomes read messenger RNA and join amino acids into proteins; they "
                         "sit free in the cytoplasm or on the rough endoplasmic reticulum of the cell.\n",
}

BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol9 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
]>
<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r>
<w:t>&lol9;</w:t></w:r></w:p></w:body></w:document>"""

CONTENT_TYPES = (b'<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/'
                 b'package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/></Types>')


def _zip(entries: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def _size_bomb() -> bytes:
    """A DOCX whose document.xml inflates to 300 MiB (stored compressed in ~300 KB)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("[Content_Types].xml", CONTENT_TYPES)
        with archive.open("word/document.xml", "w", force_zip64=True) as member:
            block = b"\x20" * (1 << 20)
            for _ in range(300):
                member.write(block)
    return buffer.getvalue()


def _pdf(objects: list[bytes], trailer_extra: bytes = b"", self_prev: bool = False) -> bytes:
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref_at = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    prev = b" /Prev %d" % xref_at if self_prev else b""
    out += b"trailer\n<< /Size %d /Root 1 0 R%s%s >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1, prev, trailer_extra, xref_at)
    return bytes(out)


def _flate_bomb_pdf() -> bytes:
    compressor = zlib.compressobj(9)
    zeros = b"\x00" * (1 << 20)
    payload = b"".join(compressor.compress(zeros) for _ in range(200)) + compressor.flush()  # 200 MiB inflated
    stream = b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(payload) + payload + b"\nendstream"
    return _pdf([b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                 b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>", stream])


def _circular_pdf() -> bytes:
    return _pdf([b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 /Parent 2 0 R >>",
                 b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>"], self_prev=True)


def _huge_image() -> bytes:
    """A PNG declaring 20,000 x 20,000 pixels (tiny on disk: the header is all a bomb needs)."""
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("1", (20_000, 20_000)).save(buffer, "PNG", optimize=True)
    return buffer.getvalue()


@pytest.fixture(scope="module")
def hostile_files() -> dict[str, bytes]:
    return {
        "Bad/zip-bomb.docx": _size_bomb(),
        "Bad/many-entries.xlsx": _zip({"[Content_Types].xml": CONTENT_TYPES,
                                       **{f"xl/part{n}.xml": b"<a/>" for n in range(10_050)}}),
        "Bad/billion-laughs.docx": _zip({"[Content_Types].xml": CONTENT_TYPES,
                                         "word/document.xml": BILLION_LAUGHS}),
        "Bad/circular-xref.pdf": _circular_pdf(),
        "Bad/flate-bomb.pdf": _flate_bomb_pdf(),
        "Bad/too-big.csv": b"a,b\n" + b"1,2\n" * (600_000),  # 2.4 MB against a 2 MB cap below
        "Bad/binary-junk.md": bytes(range(256)) * 64,
        "Bad/huge-image.png": _huge_image(),
        "Bad/not-audio.mp3": b"ID3 this is not audio at all " * 200,
        "Bad/Invalid UTF-8.md": b"# Invalid\n\nBroken bytes \xff\xfe\xfa in the middle of a sentence that "
                                b"is otherwise long enough to be worth indexing as a passage.\n",
        "Bad/One long line.md": b"word " * (380 * 1024),  # a 1.9 MB note on a single line (cap: 2 MB)
        "Bad/Deep lists.md": ("- " * 10_000 + "the deepest item\n" + "> " * 10_000 + "a deep quote\n").encode(),
        "Bad/Huge note.md": b"# Huge\n\n" + b"filler text " * 300_000,  # 3.6 MB against a 2 MB cap below
    }


@pytest.fixture
def hostile_vault(tmp_path: Path, hostile_files: dict[str, bytes]) -> Path:
    vault = tmp_path / "vault"
    for relative, text in GOOD_NOTES.items():
        (vault / relative).parent.mkdir(parents=True, exist_ok=True)
        (vault / relative).write_text(text, "utf-8")
    for relative, data in hostile_files.items():
        (vault / relative).parent.mkdir(parents=True, exist_ok=True)
        (vault / relative).write_bytes(data)
    return vault


def test_each_hostile_file_fails_alone_with_a_reason(hostile_vault: Path) -> None:
    settings = load_settings(hostile_vault, {"index": {"max_file_mb": 2.0, "extract_timeout_s": 20.0}})
    started = time.monotonic()
    with Engine(hostile_vault, settings, embedder=None) as engine:
        report = engine.index()
        by_path = {f.path: f for f in report.files}
        for relative in GOOD_NOTES:
            assert by_path[relative].state == "indexed"
        expected_failures = ["Bad/zip-bomb.docx", "Bad/many-entries.xlsx", "Bad/billion-laughs.docx",
                             "Bad/too-big.csv", "Bad/binary-junk.md", "Bad/huge-image.png", "Bad/Huge note.md"]
        for relative in expected_failures:
            assert by_path[relative].state == "failed", by_path[relative]
            assert by_path[relative].reason and len(by_path[relative].reason) > 10
        # A circular xref, a deflate bomb: refused, or read within pypdf's limits (no text), never a hang.
        for relative in ("Bad/circular-xref.pdf", "Bad/flate-bomb.pdf"):
            assert by_path[relative].state in ("failed", "indexed"), by_path[relative]
            assert by_path[relative].chunks == 0
        # Not audio: failed when a whisper model is configured, skipped with the reason otherwise.
        assert by_path["Bad/not-audio.mp3"].state in ("failed", "skipped")
        assert by_path["Bad/not-audio.mp3"].reason
        # Odd but legitimate notes are read.
        for relative in ("Bad/Invalid UTF-8.md", "Bad/One long line.md", "Bad/Deep lists.md"):
            assert by_path[relative].state == "indexed", by_path[relative]
        assert engine.search("mitochondria respiration", mode="lexical").results[0].path == "Good/Mitochondria.md"
        assert engine.search("broken bytes sentence", mode="lexical").results[0].path == "Bad/Invalid UTF-8.md"
        assert engine.status()["consistency"]["agree"]
    # Each file is bounded by the 20 s extraction limit; in practice the whole vault takes seconds.
    assert time.monotonic() - started < 60
