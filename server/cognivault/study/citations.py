"""The one citation syntax of every generated note (specified in ``vault_schema/citation.md``).

    [[Photosynthesis/Calvin cycle#Carbon fixation|Calvin cycle › Carbon fixation]]<!--cv:cite
    id=63e8b4962cfd15c8 h=fe49eb37-->   (one line in a note; wrapped here)

- The wikilink (vault path without ``.md``, ``#`` the deepest heading, ``|`` a
  readable label) is what Obsidian and any wikilink-aware editor follow. A
  file whose name a wikilink cannot hold (``[``, ``]``, ``|``, ``#``, ``^``,
  a control character such as a newline: ``Notes [draft].md``) is cited
  with a Markdown link to the file instead, its path percent-encoded as
  Obsidian writes it:
  ``[Notes draft › Ideas](Notes%20%5Bdraft%5D.md#Ideas)``.
- The HTML comment right after it (no space, or one) is invisible when the
  note is rendered; it names the chunk id (16 hex) of the cited passage and
  the first 8 hex of that passage's content hash when the note was written.
  A language server resolves the id to path, heading and line range (hover,
  go to definition) and compares the hash with the current one to say
  "the source changed since this was generated".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import quote

from cognivault.vault.markdown import split_href

MARKER_RE = re.compile(r"<!--cv:cite id=(?P<id>[0-9a-f]{16}) h=(?P<hash>[0-9a-f]{8})-->")
_WIKILINK = r"\[\[(?P<target>[^\[\]|#\n]+)(?:#(?P<heading>[^\[\]|\n]+))?(?:\|(?P<label>[^\[\]\n]+))?\]\]"
_MARKDOWN_LINK = r"\[(?P<text>[^\[\]\n]+)\]\((?P<href>[^()\s<>]+)\)"
CITATION_RE = re.compile(rf"(?:{_WIKILINK}|{_MARKDOWN_LINK})"
                         r" ?<!--cv:cite id=(?P<id>[0-9a-f]{16}) h=(?P<hash>[0-9a-f]{8})-->")
_CONTROL = "\x00-\x1f\x7f-\x9f"  # no link, title or heading holds these on one line (a newline, a tab)
_LINK_UNSAFE = re.compile(rf"[\[\]|#^{_CONTROL}]+")
_NAME_UNSAFE = re.compile(rf"[\[\]|#^{_CONTROL}]")  # a wikilink cannot name a file holding these
HASH_CHARS = 8


@dataclass(frozen=True, slots=True)
class CitedPassage:
    """What a citation needs to know about a passage (a chunk of the index)."""

    chunk_id: str
    path: str
    title: str
    heading_path: tuple[str, ...]
    content_hash: str
    line_start: int = 0
    line_end: int = 0


@dataclass(frozen=True, slots=True)
class ParsedCitation:
    target: str
    heading: str | None
    label: str | None
    chunk_id: str
    hash_prefix: str
    line: int  # 1-based
    start_col: int  # 0-based, code points
    end_col: int  # exclusive
    written: str = ""  # the link as the note has it

    def to_dict(self) -> dict[str, Any]:
        return {"target": self.target, "heading": self.heading, "label": self.label, "chunk_id": self.chunk_id,
                "hash": self.hash_prefix, "line": self.line, "start_col": self.start_col, "end_col": self.end_col}


def link_target(path: str) -> str:
    """The wikilink target of a vault path: Markdown notes without ``.md``, other files with their extension."""
    posix = PurePosixPath(path)
    return str(posix.with_suffix("")) if posix.suffix.lower() == ".md" else str(posix)


def _safe(text: str) -> str:
    return " ".join(_LINK_UNSAFE.sub(" ", text).split())


def one_line(text: str) -> str:
    """A title or label made from a file name or heading as one line: control characters and runs of whitespace
    as single spaces ("new\nline.md" is a legal file name)."""
    return " ".join(re.sub(f"[{_CONTROL}]", " ", text).split())


def link(path: str, heading: str | None = None, label: str | None = None) -> str:
    """A link to a note (and heading) that survives odd characters in headings and labels: a wikilink, or a
    Markdown link to the file when its name holds a character no wikilink can (``Notes [draft].md``)."""
    target = link_target(path)
    heading, label = _safe(heading or ""), _safe(label or "")
    if _NAME_UNSAFE.search(target):
        href = quote(path, safe="/") + (f"#{quote(heading, safe='')}" if heading else "")
        return f"[{label or _safe(PurePosixPath(target).name) or 'note'}]({href})"
    return f"[[{target}{f'#{heading}' if heading else ''}{f'|{label}' if label else ''}]]"


def _link_parts(match: re.Match[str]) -> tuple[str, str | None, str | None]:
    """(target, heading, label) of a citation's link, either form."""
    if match["href"] is None:
        return match["target"], match["heading"], match["label"]
    path, fragment = split_href(match["href"])
    return link_target(path), fragment or None, match["text"]


def marker(passage: CitedPassage) -> str:
    return f"<!--cv:cite id={passage.chunk_id} h={passage.content_hash[:HASH_CHARS]}-->"


def cite(passage: CitedPassage, label: str | None = None, heading: str | None = None) -> str:
    """The full citation of a passage: wikilink + marker (``heading`` overrides the link's heading)."""
    headings = [h for h in passage.heading_path if h]
    if heading is None:
        heading = headings[-1] if len(headings) > 1 or (headings and headings[0] != passage.title) else None
    if label is None:
        label = " › ".join([passage.title] + ([heading] if heading else []))
    return link(passage.path, heading, label) + marker(passage)


def parse_citations(text: str) -> list[ParsedCitation]:
    """Every citation in a note, with its position (for hover, go-to-definition and diagnostics)."""
    found = []
    for number, line in enumerate(text.split("\n"), start=1):
        for match in CITATION_RE.finditer(line):
            target, heading, label = _link_parts(match)
            written = match.group(0)[:match.group(0).rindex("<!--")].rstrip()
            found.append(ParsedCitation(target, heading, label, match["id"], match["hash"], number, match.start(),
                                        match.end(), written))
    return found


def citation_status(citation: ParsedCitation, chunk: Any) -> str:
    """``ok``, ``changed`` (the passage's content hash moved on) or ``missing`` (no such chunk any more)."""
    if chunk is None:
        return "missing"
    return "ok" if str(chunk.content_hash).startswith(citation.hash_prefix) else "changed"


def strip_citations(text: str) -> str:
    """Text with citation markers removed and cited links reduced to their label (for exports)."""
    def label(match: re.Match[str]) -> str:
        target, heading, shown = _link_parts(match)
        return shown or heading or target

    text = CITATION_RE.sub(lambda m: f"({label(m)})", text)
    return MARKER_RE.sub("", text)


def without_cited_links(text: str, citations: list[ParsedCitation]) -> str:
    """``text`` (markers already gone) without the links of ``citations``: what a reviewer reads."""
    for citation in citations:
        text = text.replace(citation.written, "")
    return "\n".join(line.rstrip() for line in text.split("\n")).strip()
