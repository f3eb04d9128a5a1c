"""A vault full of hostile and broken files: each fails (or is read) alone, fast, with a reason.

Every fixture is generated here, one for each hostile input issues 7 and 13
list. Each is indexed alone next to two ordinary notes (which must index as if
nothing else were there): it must end in the expected state, for its own reason
(never the time limit, which is set far above what any of them needs, so that a
busy machine cannot make it fire first). Then all of them together. Reading
runs in the isolated worker (time limit, memory cap), so this also proves a bad
file cannot take the indexer down with it. How long each takes is measured by
``bench/bench_hostile_files.py``, not asserted here (issue 13: the old 5 s
limit failed three of these on a busy 2-core machine).
"""

from __future__ import annotations

import importlib.util
import io
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


def _size_bomb(part: str) -> bytes:
    """An Office file whose ``part`` inflates to 300 MiB (stored compressed in ~300 KB)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("[Content_Types].xml", CONTENT_TYPES)
        with archive.open(part, "w", force_zip64=True) as member:
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


def _flate_bomb_pdf(layers: int = 1) -> bytes:
    """A page whose content stream inflates to 200 MiB, through ``layers`` nested FlateDecode filters."""
    compressor = zlib.compressobj(9)
    zeros = b"\x00" * (1 << 20)
    payload = b"".join(compressor.compress(zeros) for _ in range(200)) + compressor.flush()
    for _ in range(layers - 1):
        payload = zlib.compress(payload, 9)
    filters = b"[" + b" ".join([b"/FlateDecode"] * layers) + b"]"
    stream = b"<< /Length %d /Filter %s >>\nstream\n" % (len(payload), filters) + payload + b"\nendstream"
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


# Every hostile input of issue 7: the file, and what the index report must say about it alone.
# "failed" files carry a reason naming the problem; odd but legitimate notes are "indexed".
# The not-audio file fails when speech recognition is set up (the test points it at a stub
# model folder: the file is decoded, and refused, before any model is loaded).
HOSTILE: dict[str, tuple[str, str]] = {
    "Bad/zip-bomb.docx": ("failed", "zip bomb"),
    "Bad/zip-bomb.pptx": ("failed", "zip bomb"),
    "Bad/zip-bomb.xlsx": ("failed", "zip bomb"),
    "Bad/many-entries.xlsx": ("failed", "zip bomb"),
    "Bad/billion-laughs.docx": ("failed", "XML bomb"),
    "Bad/circular-xref.pdf": ("failed", "PDF refused"),
    "Bad/flate-bomb.pdf": ("failed", "Limit reached while decompressing"),
    "Bad/nested-flate-bomb.pdf": ("failed", "Limit reached while decompressing"),
    "Bad/too-big.csv": ("failed", "index.max_file_mb"),
    "Bad/Huge note.md": ("failed", "index.max_file_mb"),
    "Bad/binary-junk.md": ("failed", "binary"),
    "Bad/huge-image.png": ("failed", "decompression bomb"),
    "Bad/not-audio.mp3": ("failed", "not a readable audio file"),
    "Bad/Invalid UTF-8.md": ("indexed", ""),
    "Bad/One long line.md": ("indexed", ""),
    "Bad/Deep lists.md": ("indexed", ""),
    "Bad/Deep nesting.html": ("skipped", "no readable text"),  # 200k nested tags and nothing inside
}
MAX_FILE_MB = 12.0  # above the 10 MB single-line note, below the over-size files
# The extractor's time limit: it bounds a reader that hangs, it is not what a hostile file must meet.
TIME_LIMIT_S = 300.0


def build_hostile_files() -> dict[str, bytes]:
    """Every hostile file by vault path (bench/bench_hostile_files.py times the same files)."""
    over_cap = int(MAX_FILE_MB * 1024 * 1024) + 1024 * 1024
    files = {
        "Bad/zip-bomb.docx": _size_bomb("word/document.xml"),
        "Bad/zip-bomb.pptx": _size_bomb("ppt/slides/slide1.xml"),
        "Bad/zip-bomb.xlsx": _size_bomb("xl/worksheets/sheet1.xml"),
        "Bad/many-entries.xlsx": _zip({"[Content_Types].xml": CONTENT_TYPES,
                                       **{f"xl/part{n}.xml": b"<a/>" for n in range(10_050)}}),
        "Bad/billion-laughs.docx": _zip({"[Content_Types].xml": CONTENT_TYPES,
                                         "word/document.xml": BILLION_LAUGHS}),
        "Bad/circular-xref.pdf": _circular_pdf(),
        "Bad/flate-bomb.pdf": _flate_bomb_pdf(),
        "Bad/nested-flate-bomb.pdf": _flate_bomb_pdf(layers=3),
        "Bad/too-big.csv": b"a,b\n" + b"1,2\n" * (over_cap // 4),
        "Bad/binary-junk.md": bytes(range(256)) * 64,
        "Bad/huge-image.png": _huge_image(),
        "Bad/not-audio.mp3": b"ID3 this is not audio at all " * 200,
        "Bad/Invalid UTF-8.md": b"# Invalid\n\nBroken bytes \xff\xfe\xfa in the middle of a sentence that "
                                b"is otherwise long enough to be worth indexing as a passage.\n",
        "Bad/One long line.md": b"word " * (2 * 1024 * 1024),  # a 10 MB note on a single line
        "Bad/Deep lists.md": ("- " * 10_000 + "the deepest item\n" + "> " * 10_000 + "a deep quote\n").encode(),
        "Bad/Deep nesting.html": b"<html><body>" + b"<span>" * 200_000 + b"</body></html>",
        "Bad/Huge note.md": b"# Huge\n\n" + b"filler text " * (over_cap // 12),
    }
    assert set(files) == set(HOSTILE)
    return files


@pytest.fixture(scope="module")
def hostile_files() -> dict[str, bytes]:
    return build_hostile_files()


def hostile_settings(vault: Path, tmp_path: Path):  # type: ignore[no-untyped-def]
    whisper = tmp_path / "whisper-stub"
    whisper.mkdir(exist_ok=True)
    (whisper / "model.bin").write_bytes(b"")
    (whisper / "config.json").write_text("{}", "utf-8")
    return load_settings(vault, {"index": {"max_file_mb": MAX_FILE_MB, "extract_timeout_s": TIME_LIMIT_S,
                                           "whisper_model_dir": str(whisper)}})


def hostile_vault(root: Path, files: dict[str, bytes]) -> Path:
    vault = root / "vault"
    for relative, text in GOOD_NOTES.items():
        (vault / relative).parent.mkdir(parents=True, exist_ok=True)
        (vault / relative).write_text(text, "utf-8")
    for relative, data in files.items():
        (vault / relative).parent.mkdir(parents=True, exist_ok=True)
        (vault / relative).write_bytes(data)
    return vault


def _check(report_file, relative: str) -> None:  # type: ignore[no-untyped-def]
    state, reason = HOSTILE[relative]
    if relative == "Bad/not-audio.mp3" and importlib.util.find_spec("faster_whisper") is None:
        state, reason = "skipped", "faster-whisper"
    assert report_file.state == state, report_file
    if state in ("failed", "skipped"):
        assert reason.lower() in (report_file.reason or "").lower(), report_file
        assert "time limit" not in report_file.reason, f"{relative} was only stopped by the time limit"
    else:
        assert report_file.chunks > 0, report_file


@pytest.mark.parametrize("relative", sorted(HOSTILE))
def test_each_hostile_file_fails_alone_with_its_reason(relative: str, hostile_files: dict[str, bytes],
                                                       tmp_path: Path) -> None:
    vault = hostile_vault(tmp_path, {relative: hostile_files[relative]})
    with Engine(vault, hostile_settings(vault, tmp_path), embedder=None) as engine:
        report = engine.index()
        by_path = {f.path: f for f in report.files}
        _check(by_path[relative], relative)
        assert all(by_path[good].state == "indexed" for good in GOOD_NOTES)


def test_the_whole_hostile_vault_indexes_around_its_bad_files(hostile_files: dict[str, bytes],
                                                              tmp_path: Path) -> None:
    vault = hostile_vault(tmp_path, hostile_files)
    with Engine(vault, hostile_settings(vault, tmp_path), embedder=None) as engine:
        report = engine.index()
        by_path = {f.path: f for f in report.files}
        for relative in GOOD_NOTES:
            assert by_path[relative].state == "indexed"
        for relative in HOSTILE:
            _check(by_path[relative], relative)
        assert engine.search("mitochondria respiration", mode="lexical").results[0].path == "Good/Mitochondria.md"
        assert engine.search("broken bytes sentence", mode="lexical").results[0].path == "Bad/Invalid UTF-8.md"
        assert engine.search("deepest item", mode="lexical").results[0].path == "Bad/Deep lists.md"
        assert engine.status()["consistency"]["agree"]
