"""DOCX: paragraphs grouped under their headings, tables as ``a | b | c`` rows."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from cognivault.config import IndexSettings
from cognivault.vault.types import ChunkDraft, Extraction, ExtractionFailed

from ._common import Deadline, clean_text, clip_cell, guard_office_zip, section_anchor, split

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


def _is_list(paragraph: Any) -> bool:
    try:
        name = (paragraph.style.name or "").lower()
    except Exception:  # noqa: BLE001
        name = ""
    if name.startswith("list"):
        return True
    ppr = paragraph._p.pPr  # noqa: SLF001 - numbering has no public accessor
    return ppr is not None and ppr.numPr is not None


def _table_rows(table: Any) -> list[str]:  # a python-docx Table
    rows = []
    for row in table.rows:
        cells, seen = [], set()
        for cell in row.cells:
            key = id(cell._tc)  # noqa: SLF001 - merged cells repeat the same element
            if key in seen:
                continue
            seen.add(key)
            cells.append(clip_cell(cell.text))
        if any(cells):
            rows.append(" | ".join(cells))
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
    try:
        for count, block in enumerate(document.iter_inner_content()):
            if count % 200 == 0:
                deadline.check("reading paragraphs")
            if isinstance(block, Table):
                rows = _table_rows(block)
                if rows:
                    sections[-1][1].append("\n".join(rows))
                continue
            text = clean_text(block.text)
            if not text:
                continue
            level = _heading_level(block)
            if level is not None:
                title = " ".join(text.split())
                while stack and stack[-1][0] >= level:
                    stack.pop()
                stack.append((level, title))
                sections.append((tuple(t for _, t in stack), []))
                continue
            sections[-1][1].append(f"- {text}" if _is_list(block) else text)
        title = (document.core_properties.title or "").strip()
    except ExtractionFailed:
        raise
    except Exception as exc:  # noqa: BLE001
        raise ExtractionFailed(f"DOCX content cannot be read ({type(exc).__name__}: {exc})") from exc

    chunks: list[ChunkDraft] = []
    occurrences: dict[tuple[str, ...], int] = {}
    for heading_path, blocks in sections:
        occurrence = occurrences.get(heading_path, 0)
        occurrences[heading_path] = occurrence + 1
        body = "\n\n".join(blocks).strip()
        if not body:
            continue
        for part, piece in enumerate(split(body, settings.chunk_chars, settings.chunk_overlap)):
            chunks.append(ChunkDraft(text=piece, heading_path=heading_path, line_start=0, line_end=0,
                                     anchor=section_anchor(heading_path, occurrence, part)))
    metadata = {"format": "docx", "sections": sum(1 for _, b in sections if b)}
    if title:
        metadata["title"] = title
    return Extraction(chunks=chunks, metadata=metadata)
