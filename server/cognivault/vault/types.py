"""The shapes a vault file takes once read: parsed notes, their links and headings, and chunks.

Conventions shared by every module:
- line numbers are 1-based, as an editor shows them; ranges are inclusive;
- columns are 0-based offsets in Unicode code points (the LSP layer converts to
  the negotiated position encoding);
- paths are vault-relative POSIX strings (``"Plugins/Search.md"``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cognivault.errors import CogniVaultError


@dataclass(frozen=True, slots=True)
class Link:
    """A wikilink ``[[target#heading|alias]]`` or embed ``![[...]]`` found in a note body."""

    target: str  # note or file name as written, without '#...' and '|...' ("" for a same-note link)
    heading: str | None  # "Section" for [[Note#Section]] (nested "A#B" kept as written)
    block: str | None  # "abc123" for [[Note#^abc123]]
    alias: str | None
    embed: bool
    line: int  # 1-based
    start_col: int  # code points, covers the whole link including brackets (and '!' for embeds)
    end_col: int  # exclusive


@dataclass(frozen=True, slots=True)
class Heading:
    level: int
    text: str
    line: int  # 1-based
    path: tuple[str, ...]  # headings from the top level down to and including this one
    end_line: int = 0  # last line of the heading (setext underline); 0 means ``line``


@dataclass(frozen=True, slots=True)
class BlockId:
    """A block identifier ``^id`` at the end of a paragraph or list item."""

    id: str
    line: int  # 1-based line carrying the ``^id`` marker
    start_col: int


@dataclass(frozen=True, slots=True)
class TagRef:
    """One occurrence of a tag; ``line`` is 0 for tags set in the frontmatter."""

    tag: str  # without '#', as written ("study/biology")
    line: int
    start_col: int
    end_col: int


@dataclass(frozen=True, slots=True)
class Callout:
    kind: str  # "tip", "warning", ... lower-cased
    title: str
    line: int
    foldable: str  # "", "+" or "-"


@dataclass(slots=True)
class ParsedNote:
    """Everything the index and the language server need to know about one Markdown note."""

    title: str
    frontmatter: dict[str, Any]
    aliases: list[str]
    tags: list[str]  # unique, without '#', frontmatter and body together, in first-seen order
    tag_refs: list[TagRef]
    links: list[Link]
    headings: list[Heading]
    blocks: list[BlockId]
    callouts: list[Callout]
    lang: str | None  # frontmatter ``lang``/``language`` when set
    body_start_line: int  # first line after the frontmatter (1 when there is none)
    line_count: int = 0
    # ``%% comment %%`` spans as (line, start_col, end_line, end_col), end exclusive;
    # their text is never indexed (chunking cuts them out).
    comments: list[tuple[int, int, int, int]] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class ChunkDraft:
    """A passage cut from a file, before it gets its id and is stored.

    ``text`` is what a user reads as the passage (no breadcrumb); the indexer
    prepends the breadcrumb (``Note > Section > Subsection``) for retrieval.
    ``anchor`` identifies the passage within its file independently of its
    content (heading path, occurrence of that heading path, part number), so
    editing one section never changes the ids of the others.
    """

    text: str
    heading_path: tuple[str, ...]
    line_start: int  # 1-based inclusive; for formats without lines, 0
    line_end: int
    anchor: str
    locator: str = ""  # "page 3", "slide 2", "Sheet1 rows 2-21", "00:01:05-00:01:30"
    structured: bool = False  # table rows, slides: kept from 20 characters instead of 100
    lang: str | None = None


@dataclass(slots=True)
class Extraction:
    """What reading one file produced."""

    chunks: list[ChunkDraft]
    note: ParsedNote | None = None  # only for Markdown notes
    metadata: dict[str, Any] = field(default_factory=dict)  # e.g. page count, OCR used


class ExtractionSkipped(CogniVaultError):
    """The file's format needs an optional part that is missing (``tesseract not installed``)."""

    code = "extraction_skipped"
    status = 422
    exit_code = 1


class ExtractionFailed(CogniVaultError):
    """The file is corrupt, hostile or unreadable; the message says why."""

    code = "extraction_failed"
    status = 422
    exit_code = 1
