"""PPTX: one chunk per slide (body text, tables, speaker notes; the title is its heading), as Markdown.

Bulleted and numbered paragraphs become ``- `` / ``1. `` list items, nested by their level; a
paragraph's bullet is its own or, as PowerPoint shows it, the one its shape, layout and master
set for its level (body placeholders have bullets, text boxes do not). Tables become GFM tables.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cognivault.config import IndexSettings
from cognivault.vault.types import ChunkDraft, Extraction, ExtractionFailed

from ._common import Deadline, MarkdownList, clean_text, guard_office_zip, markdown_table, split

MAX_SLIDES = 2_000
# A slide is one passage unless its text (with notes) is longer than this many chunk lengths.
SPLIT_FACTOR = 3


_A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
_P = "{http://schemas.openxmlformats.org/presentationml/2006/main}"
# bullet element -> None for no bullet, else the number the list starts from (0: a bullet, not a number)
_BULLET_TAGS = {f"{_A}buNone": None, f"{_A}buChar": 0, f"{_A}buBlip": 0, f"{_A}buAutoNum": 1}


def _master_style(shape: Any, master: Any) -> Any:  # lxml elements
    """The master's text style a placeholder inherits last (title, body or other), None for other shapes."""
    from pptx.enum.shapes import PP_PLACEHOLDER

    if not shape.is_placeholder:
        return None
    kind = shape.placeholder_format.type
    name = ("titleStyle" if kind in (PP_PLACEHOLDER.TITLE, PP_PLACEHOLDER.CENTER_TITLE) else
            "bodyStyle" if kind in (PP_PLACEHOLDER.BODY, PP_PLACEHOLDER.OBJECT, PP_PLACEHOLDER.SUBTITLE,
                                    PP_PLACEHOLDER.VERTICAL_BODY, PP_PLACEHOLDER.VERTICAL_OBJECT) else
            "otherStyle")
    return master.find(f"{_P}txStyles/{_P}{name}")


def _own_list_style(shape: Any) -> Any:
    return shape.text_frame._txBody.find(f"{_A}lstStyle")  # noqa: SLF001 - no public accessor


def _list_styles(shape: Any, master: Any) -> list[Any]:
    """Where a paragraph's bullet comes from when it sets none, nearest first: the shape's list
    style, then its layout's and master's placeholder, then the master's text style."""
    styles = [_own_list_style(shape)]
    inherited = shape
    for _ in range(2 if shape.is_placeholder else 0):  # slide -> layout -> master placeholder
        inherited = getattr(inherited, "_base_placeholder", None)  # noqa: SLF001 - python-pptx's own lookup
        if inherited is None:
            break
        if inherited.has_text_frame:
            styles.append(_own_list_style(inherited))
    styles.append(_master_style(shape, master))
    return [style for style in styles if style is not None]


def _bullet(paragraph: Any, styles: list[Any]) -> int | None:
    """None for a plain paragraph, 0 for a bulleted one, else the number its numbered list starts at."""
    level_tag = f"{_A}lvl{min(paragraph.level, 8) + 1}pPr"
    for properties in (paragraph._p.pPr, *(style.find(level_tag) for style in styles)):  # noqa: SLF001
        if properties is None:
            continue
        for child in properties:
            if child.tag in _BULLET_TAGS:
                start = _BULLET_TAGS[child.tag]
                start_at = child.get("startAt", "")
                return int(start_at) if start and start_at.isdigit() else start
    return None


def _text_frame_markdown(shape: Any, master: Any) -> str:
    """A shape's paragraphs as Markdown: bulleted ones as list items, the others as paragraphs."""
    styles = _list_styles(shape, master)
    items = MarkdownList()
    blocks: list[str] = []
    for paragraph in shape.text_frame.paragraphs:
        text = " ".join(paragraph.text.split())  # a line break inside a paragraph reads as a space
        if not text:
            continue
        bullet = _bullet(paragraph, styles)
        if bullet is None:
            items.end()
            blocks.append(text)
        elif items.open:
            blocks[-1] += "\n" + items.item(text, paragraph.level, bullet or None)
        else:
            blocks.append(items.item(text, paragraph.level, bullet or None))
    return "\n\n".join(blocks)


def _shape_texts(shapes: Any, skip_id: int | None, master: Any, depth: int = 0) -> list[str]:  # python-pptx shapes
    from pptx.shapes.group import GroupShape

    out: list[str] = []
    if depth > 10:
        return out
    for shape in shapes:
        if skip_id is not None and shape.shape_id == skip_id:
            continue
        if isinstance(shape, GroupShape):
            out.extend(_shape_texts(shape.shapes, skip_id, master, depth + 1))
            continue
        if getattr(shape, "has_table", False) and shape.has_table:
            table = markdown_table([cell.text for cell in row.cells] for row in shape.table.rows)
            if table:
                out.append(table)
            continue
        if getattr(shape, "has_text_frame", False) and shape.has_text_frame:
            text = _text_frame_markdown(shape, master)
            if text:
                out.append(text)
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
            body = _shape_texts(slide.shapes, title_shape.shape_id if title_shape is not None else None,
                                slide.slide_layout.slide_master._element)  # noqa: SLF001 - its text styles
            notes = ""
            if slide.has_notes_slide and slide.notes_slide.notes_text_frame is not None:
                notes = clean_text(slide.notes_slide.notes_text_frame.text)
        except Exception as exc:  # noqa: BLE001
            raise ExtractionFailed(f"slide {number} cannot be read ({type(exc).__name__}: {exc})") from exc
        pieces = list(body)  # Markdown already: one line per paragraph, item or row
        if notes:
            pieces.append(f"Speaker notes: {notes}")
        if title and not pieces:  # else the title travels in the heading path, as a note's heading does
            pieces = [title]
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
