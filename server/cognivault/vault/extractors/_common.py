"""Limits and helpers shared by the attachment extractors.

Every attachment comes from a stranger as far as the extractors know, so they
are read under limits chosen here (documented in ``__init__``):

- the file size (``IndexSettings.max_file_mb``) is checked before anything is
  opened;
- Office files (DOCX, PPTX, XLSX) are zip containers: the entry count and the
  declared uncompressed size are checked before a library sees the file, and
  every XML part is refused if it declares a DTD (entity expansion, "billion
  laughs", external entities);
- a cooperative deadline (``IndexSettings.extract_timeout_s``) is checked
  between pages, slides, row batches and transcript segments, and bounds the
  OCR subprocess; a library call that hangs on its own is the ingestion
  pipeline's to kill;
- the text taken from one file is capped (``MAX_TEXT_CHARS``).
"""

from __future__ import annotations

import dataclasses
import re
import time
import zipfile
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import IO

from cognivault.config import IndexSettings
from cognivault.vault.types import ChunkDraft, ExtractionFailed

# Office containers: a real document has a few dozen to a few hundred parts;
# an XLSX with many sheets and pictures a few thousand.
ZIP_MAX_ENTRIES = 10_000
# Sum of the declared uncompressed sizes of all parts. Python's zipfile never
# inflates an entry past its declared size, so this bounds what the parsers read.
ZIP_MAX_UNCOMPRESSED = 256 * 1024 * 1024
# Text kept from one file (about 2,500 pages of prose); the rest is dropped
# and the extraction says so in ``metadata["truncated"]``.
MAX_TEXT_CHARS = 5_000_000
# A single table cell or CSV field longer than this is cut (with an ellipsis).
MAX_CELL_CHARS = 2_000

_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"


class Deadline:
    """A cooperative time limit for one extraction."""

    def __init__(self, seconds: float) -> None:
        self.seconds = float(seconds) if seconds and seconds > 0 else float("inf")
        self._end = time.monotonic() + self.seconds

    def remaining(self) -> float:
        return self._end - time.monotonic()

    def check(self, doing: str = "") -> None:
        if time.monotonic() > self._end:
            where = f" ({doing})" if doing else ""
            raise ExtractionFailed(
                f"extraction took longer than {self.seconds:g} s{where}; "
                "raise index.extract_timeout_s to allow more")


def human_mb(size: int) -> str:
    return f"{size / (1024 * 1024):.1f}"


def check_file_size(path: Path, max_file_mb: float) -> int:
    """The file's size in bytes; ExtractionFailed when it is over the limit or unreadable."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise ExtractionFailed(f"cannot read the file: {exc.strerror or exc}") from exc
    if max_file_mb and max_file_mb > 0 and size > max_file_mb * 1024 * 1024:
        raise ExtractionFailed(f"file is {human_mb(size)} MB, over the {max_file_mb:g} MB limit "
                               "(index.max_file_mb)")
    return size


def read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise ExtractionFailed(f"cannot read the file: {exc.strerror or exc}") from exc


def looks_binary(data: bytes) -> bool:
    """True for content that is not text in any 8-bit or UTF-8 encoding (NUL bytes near the start)."""
    head = data[:8192]
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):  # UTF-16 text has NULs; it is still text
        return False
    return b"\x00" in head


def decode_text(data: bytes) -> tuple[str, str]:
    """Decode bytes as UTF-8 (with or without BOM), UTF-16 with BOM, then cp1252, then latin-1."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16"), "utf-16"
        except UnicodeDecodeError:
            pass
    for encoding in ("utf-8-sig", "cp1252"):
        try:
            return data.decode(encoding), "utf-8" if encoding == "utf-8-sig" else encoding
        except UnicodeDecodeError:
            continue
    return data.decode("latin-1"), "latin-1"


def _xml_prologue_problem(stream: IO[bytes]) -> str | None:
    """Parse an XML part only up to its root element; report a DTD or entity declaration."""
    from xml.etree.ElementTree import ParseError

    from defusedxml import DefusedXmlException
    from defusedxml.ElementTree import iterparse

    try:
        for _event, _elem in iterparse(stream, events=("start",), forbid_dtd=True,
                                       forbid_entities=True, forbid_external=True):
            return None  # the root element started: no DTD can follow
    except DefusedXmlException as exc:
        return f"declares a DTD or entities ({type(exc).__name__}); possible XML bomb"
    except ParseError as exc:
        return f"is not well-formed XML ({exc})"
    return None


def guard_office_zip(path: Path, kind: str) -> None:
    """Check an Office (OOXML) container before a library opens it.

    Refuses: a legacy or encrypted binary Office file (OLE), a file that is not
    a zip, more than ``ZIP_MAX_ENTRIES`` parts, more than ``ZIP_MAX_UNCOMPRESSED``
    bytes declared uncompressed, an XML part with a DTD or entity declarations.
    """
    try:
        with path.open("rb") as handle:
            magic = handle.read(8)
    except OSError as exc:
        raise ExtractionFailed(f"cannot read the file: {exc.strerror or exc}") from exc
    if magic == _OLE_MAGIC:
        raise ExtractionFailed(f"not a {kind} file: a password-protected or legacy binary Office "
                               "document (OLE container); save it as a regular .docx/.pptx/.xlsx")
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise ExtractionFailed(f"not a valid {kind} file: not a readable zip container ({exc})") from exc
    with archive:
        infos = archive.infolist()
        if len(infos) > ZIP_MAX_ENTRIES:
            raise ExtractionFailed(f"{kind} container has {len(infos)} parts, over the limit of "
                                   f"{ZIP_MAX_ENTRIES} (possible zip bomb)")
        total = sum(max(info.file_size, 0) for info in infos)
        if total > ZIP_MAX_UNCOMPRESSED:
            raise ExtractionFailed(f"{kind} container unpacks to {human_mb(total)} MB, over the limit "
                                   f"of {human_mb(ZIP_MAX_UNCOMPRESSED)} MB (possible zip bomb)")
        names = {info.filename for info in infos}
        if "[Content_Types].xml" not in names:
            raise ExtractionFailed(f"not a valid {kind} file: the zip has no [Content_Types].xml")
        content_type = _content_types(archive, kind)
        for info in infos:
            if info.is_dir() or info.file_size == 0:
                continue
            if content_type(info.filename) == "image/svg+xml":
                continue  # embedded pictures: never parsed by the libraries, and SVGs often carry a DOCTYPE
            try:
                with archive.open(info) as member:
                    head = member.read(512)
                    if not _looks_like_xml(head):
                        continue
                with archive.open(info) as member:
                    problem = _xml_prologue_problem(member)
            except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError,
                    RuntimeError) as exc:  # RuntimeError: an encrypted entry
                raise ExtractionFailed(f"not a valid {kind} file: part {info.filename!r} "
                                       f"cannot be read ({exc})") from exc
            if problem:
                raise ExtractionFailed(f"refused {kind} file: XML part {info.filename!r} {problem}")


def _content_types(archive: zipfile.ZipFile, kind: str) -> Callable[[str], str]:
    """Part name -> content type, from the (defused) ``[Content_Types].xml``."""
    from xml.etree.ElementTree import ParseError

    from defusedxml import DefusedXmlException
    from defusedxml.ElementTree import fromstring

    try:
        root = fromstring(archive.read("[Content_Types].xml"), forbid_dtd=True)
    except DefusedXmlException as exc:
        raise ExtractionFailed(f"refused {kind} file: [Content_Types].xml declares a DTD or entities "
                               f"({type(exc).__name__}); possible XML bomb") from exc
    except (ParseError, zipfile.BadZipFile, OSError, ValueError, EOFError, RuntimeError) as exc:
        raise ExtractionFailed(f"not a valid {kind} file: [Content_Types].xml cannot be read ({exc})") from exc
    defaults: dict[str, str] = {}
    overrides: dict[str, str] = {}
    for element in root:
        tag = element.tag.rsplit("}", 1)[-1]
        if tag == "Default":
            defaults[element.get("Extension", "").lower()] = element.get("ContentType", "")
        elif tag == "Override":
            overrides[element.get("PartName", "").lstrip("/").lower()] = element.get("ContentType", "")

    def lookup(name: str) -> str:
        lowered = name.lower()
        if lowered in overrides:
            return overrides[lowered]
        return defaults.get(lowered.rsplit(".", 1)[-1] if "." in lowered else "", "")

    return lookup


def _looks_like_xml(head: bytes) -> bool:
    stripped = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    return stripped.startswith(b"<") or head.startswith((b"\xff\xfe", b"\xfe\xff"))


_SPACES = re.compile(r"[ \t\u00a0]+")
_BLANKS = re.compile(r"\n{3,}")
_PIPE = re.compile(r"(\\*)\|")
_DELIMITER_ROW = re.compile(r"\|(?:\s*:?-{3,}:?\s*\|)+")


def clean_text(text: str) -> str:
    """Normalise whitespace: no trailing spaces, runs of spaces collapsed, at most one blank line."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    lines = [_SPACES.sub(" ", line).strip() for line in text.split("\n")]
    return _BLANKS.sub("\n\n", "\n".join(lines)).strip()


def clip_cell(value: str) -> str:
    value = " ".join(value.split())
    if len(value) > MAX_CELL_CHARS:
        return value[: MAX_CELL_CHARS - 1] + "…"
    return value


def markdown_table(rows: Iterable[Sequence[str]]) -> str:
    """Rows of cells as a GFM table, the first row with text its header (``""`` when no row has text).

    ``| a | b |`` rows with a ``|---|---|`` delimiter row after the header, so any Markdown
    reader (an editor's preview, the answerer's quotes) shows a table; each cell on one line
    (:func:`clip_cell`) with ``|`` escaped as ``\\|``; short rows are padded to the widest.
    """
    kept = [[_PIPE.sub(lambda match: match.group(1) * 2 + "\\|", clip_cell(cell)) for cell in row]
            for row in rows]
    kept = [row for row in kept if any(row)]
    if not kept:
        return ""
    width = max(len(row) for row in kept)
    lines = ["| " + " | ".join(row + [""] * (width - len(row))) + " |" for row in kept]
    lines.insert(1, "|" + "---|" * width)
    return "\n".join(lines)


class MarkdownList:
    """Writes list paragraphs (a bullet or number and a nesting level, as Word and PowerPoint
    keep them) as Markdown list items: ``- text`` or ``1. text``, nested by three spaces.

    An item is never indented deeper than one level under the item before it (more would read
    as code), and :meth:`end` closes the list when a paragraph that is no item comes.
    """

    def __init__(self) -> None:
        self._levels: list[int] = []  # the source levels of the open items, outermost first
        self._numbers: dict[int, int] = {}  # depth -> the number of the last numbered item there

    def item(self, text: str, level: int = 0, number_from: int | None = None) -> str:
        """The Markdown line of one item (``number_from``: a numbered list starting there)."""
        while self._levels and self._levels[-1] >= level:
            self._levels.pop()
        depth = len(self._levels)
        self._levels.append(level)
        previous = self._numbers.get(depth)
        self._numbers = {d: number for d, number in self._numbers.items() if d < depth}
        marker = "-"
        if number_from is not None:
            self._numbers[depth] = number_from if previous is None else previous + 1
            marker = f"{self._numbers[depth]}."
        return "   " * depth + f"{marker} {text}"

    @property
    def open(self) -> bool:
        return bool(self._levels)

    def end(self) -> None:
        self._levels.clear()
        self._numbers.clear()


def split(text: str, chunk_chars: int, overlap: int) -> list[str]:
    """Text cut into passages of about ``chunk_chars``: prose by the shared chunker
    (``vault.chunking.split_prose``, imported lazily), a GFM table never inside a row.

    Passages fill up with whole rows; each passage that holds rows of a table starts them with the
    table's header and delimiter rows, so every part reads (and renders) as a table with its column
    names. Prose and table parts share a passage when they fit in one.
    """
    from cognivault.vault.chunking import split_prose

    segments = _table_segments(text)
    if not any(is_table for is_table, _ in segments):
        return [part for part in split_prose(text, chunk_chars, overlap) if part.strip()]
    if len(text.strip()) <= chunk_chars:
        return [text.strip()]
    passages: list[str] = []
    current = ""
    for is_table, body in segments:
        if not is_table:
            for number, part in enumerate(split_prose(body, chunk_chars, overlap)):
                # the parts of one text overlap: only the first may join what came before
                if current and (number or len(current) + 2 + len(part) > chunk_chars):
                    passages.append(current)
                    current = ""
                current = f"{current}\n\n{part}" if current else part
            continue
        lines = body.split("\n")
        head = "\n".join(lines[:2])
        started = False  # whether ``current`` ends with rows of this table
        for line in ["\n" + row for row in lines[2:]] or [""]:  # "": a table that is only a header
            if started:
                if len(current) + len(line) <= chunk_chars:
                    current += line
                    continue
                passages.append(current)
                current = ""
            opening = head + line
            if current and len(current) + 2 + len(opening) > chunk_chars:
                passages.append(current)
                current = ""
            current = f"{current}\n\n{opening}" if current else opening
            started = True
    if current:
        passages.append(current)
    return passages


def holds_table(text: str) -> bool:
    """Whether a passage holds (part of) a GFM table: kept, as table rows are, from 20 characters."""
    return any(is_table for is_table, _ in _table_segments(text))


def _table_segments(text: str) -> list[tuple[bool, str]]:
    """The text as (is a table, text) runs of lines: a table is a ``|`` row, a delimiter row and
    the ``|`` rows after them."""
    lines = text.split("\n")
    segments: list[tuple[bool, str]] = []
    prose: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index].strip()
        if line.startswith("|") and index + 1 < len(lines) and _DELIMITER_ROW.fullmatch(lines[index + 1].strip()):
            end = index + 2
            while end < len(lines) and lines[end].strip().startswith("|"):
                end += 1
            if "\n".join(prose).strip():
                segments.append((False, "\n".join(prose)))
            prose = []
            segments.append((True, "\n".join(row.strip() for row in lines[index:end])))
            index = end
            continue
        prose.append(lines[index])
        index += 1
    if "\n".join(prose).strip() or not segments:
        segments.append((False, "\n".join(prose)))
    return segments


def section_anchor(heading_path: tuple[str, ...], occurrence: int, part: int) -> str:
    """The Markdown chunker's anchor (``vault.chunking.make_anchor``) for a section part.

    ``occurrence`` counts earlier sections with the same heading path and
    ``part`` the parts of one section, both from 0, as for notes.
    """
    from cognivault.vault.chunking import make_anchor

    return make_anchor(heading_path, occurrence, part)


def section_chunks(sections: Iterable[tuple[tuple[str, ...], str]], settings: IndexSettings) -> list[ChunkDraft]:
    """The passages of a document read as (heading path, Markdown text) sections, in order, with
    the Markdown chunker's anchors (empty sections count as occurrences of their heading path)."""
    chunks: list[ChunkDraft] = []
    occurrences: dict[tuple[str, ...], int] = {}
    for heading_path, body in sections:
        occurrence = occurrences.get(heading_path, 0)
        occurrences[heading_path] = occurrence + 1
        for part, piece in enumerate(split(body.strip(), settings.chunk_chars, settings.chunk_overlap)):
            chunks.append(ChunkDraft(text=piece, heading_path=heading_path, line_start=0, line_end=0,
                                     anchor=section_anchor(heading_path, occurrence, part),
                                     structured=holds_table(piece)))
    return chunks


class TextBudget:
    """Counts the characters kept from one file and cuts at ``MAX_TEXT_CHARS``."""

    def __init__(self, limit: int | None = None) -> None:
        self.limit = MAX_TEXT_CHARS if limit is None else limit
        self.used = 0
        self.truncated = False

    def take(self, chunks: Iterable[ChunkDraft]) -> list[ChunkDraft]:
        kept: list[ChunkDraft] = []
        for chunk in chunks:
            if self.used >= self.limit:
                self.truncated = True
                break
            room = self.limit - self.used
            if len(chunk.text) > room:
                self.truncated = True
                kept.append(dataclasses.replace(chunk, text=chunk.text[:room]))
                self.used = self.limit
                break
            self.used += len(chunk.text)
            kept.append(chunk)
        return kept
