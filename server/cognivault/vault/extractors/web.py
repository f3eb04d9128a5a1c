"""HTML pages: main text by trafilatura (no network), the page's plain text when that finds nothing.

Both paths produce Markdown: ``#`` headings (they become heading paths), list items, GFM tables.
"""

from __future__ import annotations

import codecs
import html
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from cognivault.config import IndexSettings
from cognivault.vault.types import Extraction, ExtractionFailed

from ._common import Deadline, clean_text, decode_text, looks_binary, markdown_table, read_bytes, section_chunks

_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.IGNORECASE)
_TITLE = re.compile(r"<title[^>]*>(.*?)</title\s*>", re.IGNORECASE | re.DOTALL)
_MD_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_EMPHASIS = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")


def _decode(data: bytes) -> tuple[str, str]:
    match = _META_CHARSET.search(data[:4096])
    if match and not data.startswith((b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")):
        name = match.group(1).decode("ascii", "replace")
        try:
            codecs.lookup(name)
            return data.decode(name), name.lower()
        except (LookupError, UnicodeDecodeError):
            pass
    return decode_text(data)


_SKIP = {"script", "style", "noscript", "template", "svg", "head", "iframe", "object", "canvas"}
_BLOCK = {"p", "div", "section", "article", "main", "aside", "header", "footer", "nav", "ul", "ol",
          "br", "hr", "blockquote", "pre", "figure", "figcaption", "dl", "dt", "dd", "form",
          "address", "details", "summary", "table", "tbody", "thead", "tfoot", "body", "html"}


class _TextParser(HTMLParser):
    """The visible text of a page as Markdown (``#`` headings, list items, GFM tables)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.skip_depth = 0
        self.heading: int | None = None
        self.tables: list[list[list[str]]] = []  # per open table: its rows so far (a nested table's
        self.cell: list[str] | None = None        # cells read into the enclosing cell)
        self.lists: list[str] = []  # per open list: its tag, "ul" or "ol"
        self.pre_depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIP:
            self.skip_depth += 1
            return
        if self.skip_depth:
            return
        if re.fullmatch(r"h[1-6]", tag):
            self.out.append("\n\n" + "#" * int(tag[1]) + " ")
            self.heading = int(tag[1])
        elif tag == "table":
            self.tables.append([])
        elif tag == "pre":
            self.pre_depth += 1
            self.out.append("\n\n")
        elif tag == "tr" and self.tables:
            self.tables[-1].append([])
        elif tag in ("td", "th") and self.tables and self.tables[-1] and self.cell is None:
            self.cell = []
        elif tag in ("ul", "ol") and not self.tables:
            self.lists.append(tag)
            self.out.append("\n")
        elif tag == "li" and not self.tables:  # nested lists read as one (lines lose their indent)
            self.out.append("\n1. " if self.lists and self.lists[-1] == "ol" else "\n- ")
        elif tag in _BLOCK and not self.tables:
            self.out.append("\n\n" if tag in ("p", "div", "section", "article") else "\n")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if not self.skip_depth and tag in ("br", "hr"):
            self.out.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP:
            self.skip_depth = max(0, self.skip_depth - 1)
            return
        if self.skip_depth:
            return
        if re.fullmatch(r"h[1-6]", tag):
            self.out.append("\n\n")
            self.heading = None
        elif tag in ("td", "th") and self.cell is not None and len(self.tables) == 1:
            self.tables[-1][-1].append("".join(self.cell))
            self.cell = None
        elif tag == "table" and self.tables:
            rows = self.tables.pop()
            if self.tables:
                return  # a nested table's text stays in the enclosing cell
            self.out.append("\n\n" + markdown_table(rows) + "\n\n")
        elif tag == "pre":
            self.pre_depth = max(0, self.pre_depth - 1)
            self.out.append("\n\n")
        elif tag in ("ul", "ol") and self.lists and not self.tables:
            self.lists.pop()
            self.out.append("\n")
        elif tag in _BLOCK and not self.tables:
            self.out.append("\n")

    def handle_data(self, data: str) -> None:
        if self.skip_depth:
            return
        if self.cell is not None:
            self.cell.append(data + " ")
        elif self.tables:
            return  # whitespace between rows and cells
        elif self.heading is not None:
            self.out.append(" ".join(data.split()) + " ")
        elif self.pre_depth:
            self.out.append(data)
        else:
            self.out.append(re.sub(r"\s+", " ", data))


def page_text(markup: str) -> str:
    parser = _TextParser()
    parser.feed(markup)
    parser.close()
    return clean_text("".join(parser.out))


def _sections(markdown: str) -> list[tuple[tuple[str, ...], str]]:
    sections: list[tuple[tuple[str, ...], list[str]]] = [((), [])]
    stack: list[tuple[int, str]] = []
    for line in markdown.split("\n"):
        match = _MD_HEADING.match(line)
        if match:
            level, title = len(match.group(1)), _EMPHASIS.sub(r"\2", match.group(2)).strip()
            if title:
                while stack and stack[-1][0] >= level:
                    stack.pop()
                stack.append((level, title))
                sections.append((tuple(t for _, t in stack), []))
                continue
        sections[-1][1].append(line)
    return [(path, clean_text(_EMPHASIS.sub(r"\2", "\n".join(lines)))) for path, lines in sections]


def extract(path: Path, settings: IndexSettings, deadline: Deadline) -> Extraction:
    data = read_bytes(path)
    if looks_binary(data):
        raise ExtractionFailed("not an HTML text file (binary content)")
    markup, encoding = _decode(data)
    metadata: dict[str, Any] = {"format": "html", "encoding": encoding}
    title_match = _TITLE.search(markup[:200_000])
    if title_match:
        title = " ".join(html.unescape(re.sub(r"<[^>]+>", "", title_match.group(1))).split())
        if title:
            metadata["title"] = title

    text = None
    try:
        import trafilatura

        text = trafilatura.extract(markup, output_format="markdown", include_tables=True,
                                   include_comments=False, include_links=False, include_images=False,
                                   include_formatting=True, favor_recall=True, deduplicate=False,
                                   with_metadata=False)
        metadata["extractor"] = "trafilatura"
    except ImportError:
        metadata["trafilatura_error"] = "not installed"
    except Exception as exc:  # noqa: BLE001 - a page trafilatura cannot handle still has text
        metadata["trafilatura_error"] = f"{type(exc).__name__}: {exc}"
    deadline.check("reading the page")
    if not text or not text.strip():
        try:
            text = page_text(markup)
        except Exception as exc:  # noqa: BLE001
            raise ExtractionFailed(f"not a readable HTML page ({type(exc).__name__}: {exc})") from exc
        metadata["extractor"] = "plain text"

    chunks = section_chunks(_sections(text), settings)
    return Extraction(chunks=chunks, metadata=metadata)
