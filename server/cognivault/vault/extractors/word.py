"""DOCX: paragraphs grouped under their headings, as Markdown: list paragraphs as ``- `` items
(nested by their list level), tables as GFM tables."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from cognivault.config import IndexSettings
from cognivault.vault.types import Extraction, ExtractionFailed

from ._common import Deadline, MarkdownList, clean_text, guard_office_zip, markdown_table, section_chunks

_HEADING_STYLE = re.compile(r"^(?:heading|überschrift|titre|titolo|título)\s*(\d)$", re.IGNORECASE)
_HEADING_ID = re.compile(r"^(?:heading|berschrift)(\d)$", re.IGNORECASE)


def _heading_level(paragraph: Any) -> int | None:  # a python-docx Paragraph
    """0 for the Title style, 1-9 for Heading 1-9 (own or inherited style), else None."""
    try:
        style = paragraph.style
    except Exception:  # noqa: BLE001 - a paragraph pointing at a missing style
        return None
    depth = 0
    while style is not None and depth < 5:
        name = (style.name or "").strip()
        if name.lower() == "title":
            return 0
        match = _HEADING_STYLE.match(name) or _HEADING_ID.match(style.style_id or "")
        if match:
            return int(match.group(1))
        try:
            style = style.base_style
        except Exception:  # noqa: BLE001
            return None
        depth += 1
    return None


def _list_level(paragraph: Any) -> int | None:  # a python-docx Paragraph
    """The list level (0 outermost) of a numbered, bulleted or "List ..." style paragraph, else None."""
    try:
        name = (paragraph.style.name or "").lower()
    except Exception:  # noqa: BLE001
        name = ""
    ppr = paragraph._p.pPr  # noqa: SLF001 - numbering has no public accessor
    numbering = ppr.numPr if ppr is not None else None
    if numbering is not None:
        if numbering.numId is not None and numbering.numId.val == 0:
            return None  # numbering 0: the paragraph's list formatting removed
        return int(numbering.ilvl.val) if numbering.ilvl is not None and numbering.ilvl.val is not None else 0
    if name.startswith("list"):
        level = name.rsplit(" ", 1)[-1]
        return int(level) - 1 if level.isdigit() and int(level) > 0 else 0
    return None


def _table_rows(table: Any) -> list[list[str]]:  # a python-docx Table
    rows = []
    for row in table.rows:
        cells, seen = [], set()
        for cell in row.cells:
            key = id(cell._tc)  # noqa: SLF001 - merged cells repeat the same element
            if key in seen:
                continue
            seen.add(key)
            cells.append(cell.text)
        rows.append(cells)
    return rows


def extract(path: Path, settings: IndexSettings, deadline: Deadline) -> Extraction:
    guard_office_zip(path, "DOCX")
    try:
        import docx
        from docx.table import Table
    except ImportError as exc:  # pragma: no cover - core dependency
        raise ExtractionFailed(f"python-docx is not installed ({exc})") from exc
    try:
        document = docx.Document(str(path))
    except Exception as exc:  # noqa: BLE001 - python-docx raises KeyError, ValueError, lxml errors...
        raise ExtractionFailed(f"not a readable DOCX file ({type(exc).__name__}: {exc})") from exc

    sections: list[tuple[tuple[str, ...], list[str]]] = [((), [])]
    stack: list[tuple[int, str]] = []
    items = MarkdownList()
    try:
        for count, block in enumerate(document.iter_inner_content()):
            if count % 200 == 0:
                deadline.check("reading paragraphs")
            if isinstance(block, Table):
                items.end()
                table = markdown_table(_table_rows(block))
                if table:
                    sections[-1][1].append(table)
                continue
            text = clean_text(block.text)
            if not text:
                continue
            level = _heading_level(block)
            if level is not None:
                items.end()
                title = " ".join(text.split())
                while stack and stack[-1][0] >= level:
                    stack.pop()
                stack.append((level, title))
                sections.append((tuple(t for _, t in stack), []))
                continue
            list_level = _list_level(block)
            if list_level is None:
                items.end()
                sections[-1][1].append(text)
            elif items.open and sections[-1][1]:  # the items of one list stay one block
                sections[-1][1][-1] += "\n" + items.item(text, list_level)
            else:
                sections[-1][1].append(items.item(text, list_level))
        title = (document.core_properties.title or "").strip()
    except ExtractionFailed:
        raise
    except Exception as exc:  # noqa: BLE001
        raise ExtractionFailed(f"DOCX content cannot be read ({type(exc).__name__}: {exc})") from exc

    chunks = section_chunks(((heading_path, "\n\n".join(blocks)) for heading_path, blocks in sections),
                            settings)
    metadata = {"format": "docx", "sections": sum(1 for _, b in sections if b)}
    if title:
        metadata["title"] = title
    return Extraction(chunks=chunks, metadata=metadata)
