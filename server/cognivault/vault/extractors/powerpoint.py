"""PPTX: one chunk per slide (title, body text, tables, speaker notes)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cognivault.config import IndexSettings
from cognivault.vault.types import ChunkDraft, Extraction, ExtractionFailed

from ._common import Deadline, clean_text, clip_cell, guard_office_zip, split

MAX_SLIDES = 2_000
# A slide is one passage unless its text (with notes) is longer than this many chunk lengths.
SPLIT_FACTOR = 3


def _shape_texts(shapes: Any, skip_id: int | None, depth: int = 0) -> list[str]:  # python-pptx shapes
    from pptx.shapes.group import GroupShape

    out: list[str] = []
    if depth > 10:
        return out
    for shape in shapes:
        if skip_id is not None and shape.shape_id == skip_id:
            continue
        if isinstance(shape, GroupShape):
            out.extend(_shape_texts(shape.shapes, skip_id, depth + 1))
            continue
        if getattr(shape, "has_table", False) and shape.has_table:
            rows = [" | ".join(clip_cell(cell.text) for cell in row.cells) for row in shape.table.rows]
            rows = [row for row in rows if row.strip(" |")]
            if rows:
                out.append("\n".join(rows))
            continue
        if getattr(shape, "has_text_frame", False) and shape.has_text_frame:
            lines = []
            for paragraph in shape.text_frame.paragraphs:
                text = " ".join("".join(run.text for run in paragraph.runs).split())
                if not text:
                    continue
                lines.append(("  " * paragraph.level) + "- " + text if paragraph.level else text)
            if lines:
                out.append("\n".join(lines))
    return out


def extract(path: Path, settings: IndexSettings, deadline: Deadline) -> Extraction:
    guard_office_zip(path, "PPTX")
    try:
        from pptx import Presentation
    except ImportError as exc:  # pragma: no cover - core dependency
        raise ExtractionFailed(f"python-pptx is not installed ({exc})") from exc
    try:
        presentation = Presentation(str(path))
        slides = list(presentation.slides)
    except Exception as exc:  # noqa: BLE001 - python-pptx raises KeyError, ValueError, lxml errors...
        raise ExtractionFailed(f"not a readable PPTX file ({type(exc).__name__}: {exc})") from exc
    if len(slides) > MAX_SLIDES:
        raise ExtractionFailed(f"presentation has {len(slides)} slides, over the limit of {MAX_SLIDES}")

    chunks: list[ChunkDraft] = []
    for number, slide in enumerate(slides, 1):
        deadline.check(f"slide {number} of {len(slides)}")
        try:
            title_shape = slide.shapes.title
            title = " ".join((title_shape.text_frame.text if title_shape is not None
                              and title_shape.has_text_frame else "").split())
            body = _shape_texts(slide.shapes, title_shape.shape_id if title_shape is not None else None)
            notes = ""
            if slide.has_notes_slide and slide.notes_slide.notes_text_frame is not None:
                notes = clean_text(slide.notes_slide.notes_text_frame.text)
        except Exception as exc:  # noqa: BLE001
            raise ExtractionFailed(f"slide {number} cannot be read ({type(exc).__name__}: {exc})") from exc
        pieces = [title] if title else []
        pieces += [clean_text(text) for text in body if clean_text(text)]
        if notes:
            pieces.append(f"Speaker notes: {notes}")
        text = "\n\n".join(pieces).strip()
        if not text:
            continue
        heading_path = (title or f"Slide {number}",)
        parts = ([text] if len(text) <= SPLIT_FACTOR * settings.chunk_chars
                 else split(text, settings.chunk_chars, settings.chunk_overlap))
        for part, piece in enumerate(parts):
            chunks.append(ChunkDraft(text=piece, heading_path=heading_path, line_start=0, line_end=0,
                                     anchor=f"slide{number}/{part}", locator=f"slide {number}",
                                     structured=True))
    return Extraction(chunks=chunks, metadata={"format": "pptx", "slides": len(slides)})
