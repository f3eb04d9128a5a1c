"""PDF: text per page with pypdf (PDFium when pypdf cannot read the file), OCR for scanned pages.

PDFium (pypdfium2, the PDF engine of Chromium) reads what pypdf cannot and renders
scanned pages for tesseract. It is not thread-safe, so every call into it holds
one lock per process.
"""

from __future__ import annotations

import importlib.util
import logging
import math
import re
import threading
from pathlib import Path
from typing import Any

from cognivault.config import IndexSettings
from cognivault.vault.types import ChunkDraft, Extraction, ExtractionFailed, ExtractionSkipped

from . import ocr
from ._common import Deadline, clean_text, split

log = logging.getLogger(__name__)

# A page with fewer visible characters than this is taken for a scan and OCRed.
OCR_MIN_CHARS = 20
OCR_DPI = 200
# A page rendered for OCR never exceeds this many pixels (huge page boxes get a lower dpi).
OCR_MAX_PIXELS = 40_000_000
MAX_PAGES = 5_000
MAX_OUTLINE_ENTRIES = 2_000
PDFIUM_MISSING = "pypdfium2 not installed (needed to render scanned pages)"

_PDFIUM_LOCK = threading.Lock()

_HYPHEN_BREAK = re.compile(r"([^\W\d_])-\n([^\W\d_])")


class _Fallback(Exception):
    """pypdf could not read the document; try PDFium."""


def _visible_chars(text: str) -> int:
    return sum(1 for ch in text if not ch.isspace())


def _tidy(text: str) -> str:
    text = clean_text(text)
    # "Licht-\nsammelkomplex" → "Lichtsammelkomplex" (only when a lower-case letter follows).
    return _HYPHEN_BREAK.sub(
        lambda m: m[1] + m[2] if m[2].islower() else m[0], text)


# --- reading the pages -------------------------------------------------------------------------


def _pypdf_pages(path: Path, deadline: Deadline) -> tuple[list[str], list[tuple[int, str, int]]]:
    try:
        from pypdf import PdfReader
        from pypdf.errors import LimitReachedError, PyPdfError
    except ImportError as exc:  # pragma: no cover - pypdf is a core dependency
        raise _Fallback(f"pypdf not installed ({exc})") from exc
    try:
        reader = PdfReader(str(path), strict=False)
        if reader.is_encrypted:
            try:
                ok = reader.decrypt("")
            except Exception as exc:  # noqa: BLE001 - e.g. DependencyError for AES without cryptography
                raise _Fallback(f"pypdf cannot decrypt: {exc}") from exc
            if not ok:
                raise ExtractionFailed("PDF is password-protected")
        count = len(reader.pages)
        if count > MAX_PAGES:
            raise ExtractionFailed(f"PDF has {count} pages, over the limit of {MAX_PAGES}")
        texts = []
        for index in range(count):
            deadline.check(f"text of page {index + 1} of {count}")
            page = reader.pages[index]
            text = page.extract_text() or ""
            if _visible_chars(text) < OCR_MIN_CHARS:
                # extract_text swallows pypdf's decompression limit and returns "": read the content
                # stream again so a bomb is refused here, before PDFium inflates it without a limit for OCR.
                contents = page.get_contents()
                if contents is not None:
                    contents.get_data()
            texts.append(text)
        outline = _pypdf_outline(reader)
    except (ExtractionFailed, ExtractionSkipped, _Fallback):
        raise
    except LimitReachedError as exc:
        # A decompression bomb: PDFium has no such limit, so do not hand it over.
        raise ExtractionFailed(f"PDF refused: a stream exceeds pypdf's safety limits ({exc})") from exc
    except (PyPdfError, Exception) as exc:  # noqa: BLE001 - pypdf raises many kinds on bad input
        raise _Fallback(f"{type(exc).__name__}: {exc}") from exc
    return texts, outline


def _pypdf_outline(reader: Any) -> list[tuple[int, str, int]]:
    entries: list[tuple[int, str, int]] = []

    def walk(items: Any, level: int) -> None:
        for item in items:
            if len(entries) >= MAX_OUTLINE_ENTRIES or level > 8:
                return
            if isinstance(item, list):
                walk(item, level + 1)
                continue
            try:
                page = reader.get_destination_page_number(item)
                title = str(item.title or "").strip()
            except Exception:  # noqa: BLE001 - broken outline entries are skipped
                continue
            if title and page is not None and page >= 0:
                entries.append((level, title, page))

    try:
        walk(reader.outline, 1)
    except Exception:  # noqa: BLE001 - an unreadable outline is no reason to lose the text
        return []
    return entries


def _open_pdfium(path: Path, why: str = "") -> Any:
    try:
        import pypdfium2
    except ImportError as exc:
        raise ExtractionFailed(f"not a readable PDF ({why or 'pypdfium2 is not installed'})") from exc

    with _PDFIUM_LOCK:
        try:
            return pypdfium2.PdfDocument(str(path), password="")
        except pypdfium2.PdfiumError as exc:
            if exc.err_code == pypdfium2.raw.FPDF_ERR_PASSWORD:
                raise ExtractionFailed("PDF is password-protected") from exc
            raise ExtractionFailed(f"not a readable PDF ({exc})") from exc
        except Exception as exc:  # noqa: BLE001 - ctypes and OS errors on hostile files
            raise ExtractionFailed(f"not a readable PDF ({exc})") from exc


def _pdfium_page_text(document: Any, index: int) -> str:
    page = document[index]
    try:
        text_page = page.get_textpage()
        try:
            return text_page.get_text_bounded() or ""
        finally:
            text_page.close()
    finally:
        page.close()


def _pdfium_pages(document: Any, deadline: Deadline) -> tuple[list[str], list[tuple[int, str, int]]]:
    count = len(document)
    if count > MAX_PAGES:
        raise ExtractionFailed(f"PDF has {count} pages, over the limit of {MAX_PAGES}")
    texts = []
    for index in range(count):
        deadline.check(f"text of page {index + 1} of {count}")
        try:
            with _PDFIUM_LOCK:
                texts.append(_pdfium_page_text(document, index))
        except Exception as exc:  # noqa: BLE001
            raise ExtractionFailed(f"PDF page {index + 1} cannot be read ({exc})") from exc
    outline: list[tuple[int, str, int]] = []
    try:
        with _PDFIUM_LOCK:
            for bookmark in document.get_toc(max_depth=8):
                if len(outline) >= MAX_OUTLINE_ENTRIES:
                    break
                destination = bookmark.get_dest()
                page = destination.get_index() if destination is not None else None
                title = (bookmark.get_title() or "").strip()
                if title and page is not None and page >= 0:
                    outline.append((bookmark.level + 1, title, page))
    except Exception:  # noqa: BLE001 - an unreadable outline is no reason to lose the text
        outline = []
    return texts, outline


def _render_for_ocr(document: Any, index: int) -> Any:
    with _PDFIUM_LOCK:
        page = document[index]
        try:
            width, height = page.get_size()
            area_in2 = max(width, 1) / 72 * max(height, 1) / 72
            dpi = max(36, min(OCR_DPI, int(math.sqrt(OCR_MAX_PIXELS / area_in2))))
            bitmap = page.render(scale=dpi / 72, grayscale=True)
            try:
                return bitmap.to_pil().convert("L")
            finally:
                bitmap.close()
        finally:
            page.close()


def _heading_paths(outline: list[tuple[int, str, int]], pages: int) -> list[tuple[str, ...]]:
    """For each page, the outline path in force where the page begins.

    When entries start on a page, the first of them names it; entries later on
    the same page name the pages that follow (until the next entry).
    """
    by_page: dict[int, list[tuple[int, str]]] = {}
    for level, title, page in outline:
        by_page.setdefault(page, []).append((level, title))
    stack: list[tuple[int, str]] = []
    paths = []
    for index in range(pages):
        path = None
        for level, title in by_page.get(index, []):
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, title))
            if path is None:
                path = tuple(t for _, t in stack)
        paths.append(path if path is not None else tuple(t for _, t in stack))
    return paths


# --- the extractor -----------------------------------------------------------------------------


def extract(path: Path, settings: IndexSettings, deadline: Deadline) -> Extraction:
    metadata: dict[str, Any] = {"format": "pdf"}
    document = None
    try:
        try:
            texts, outline = _pypdf_pages(path, deadline)
            metadata["extractor"] = "pypdf"
        except _Fallback as exc:
            log.info("pypdf could not read %s (%s); trying PDFium", path, exc)
            metadata["pypdf_error"] = str(exc)
            document = _open_pdfium(path, str(exc))
            texts, outline = _pdfium_pages(document, deadline)
            metadata["extractor"] = "pdfium"
        metadata["pages"] = len(texts)

        needs_ocr = [i for i, text in enumerate(texts) if _visible_chars(text) < OCR_MIN_CHARS]
        ocr_pages: list[int] = []
        if needs_ocr:
            problem = ocr.tesseract_problem()
            if problem is None and importlib.util.find_spec("pypdfium2") is None:
                problem = PDFIUM_MISSING
            if problem:
                metadata["ocr_skipped"] = problem
            else:
                languages = ocr.choose_languages(settings.ocr_languages)
                metadata["ocr_languages"] = languages
                if document is None:
                    document = _open_pdfium(path)
                for index in needs_ocr:
                    doing = f"OCR of page {index + 1} of {len(texts)}"
                    deadline.check(doing)
                    try:
                        image = _render_for_ocr(document, index)
                    except Exception as exc:  # noqa: BLE001
                        raise ExtractionFailed(f"PDF page {index + 1} cannot be rendered for OCR ({exc})") from exc
                    text = ocr.ocr_image(image, languages, deadline, doing)
                    if _visible_chars(text) > _visible_chars(texts[index]):
                        texts[index] = text
                        ocr_pages.append(index + 1)
        metadata["ocr_pages"] = ocr_pages
    finally:
        if document is not None:
            with _PDFIUM_LOCK:
                document.close()

    headings = _heading_paths(outline, len(texts))
    chunks: list[ChunkDraft] = []
    for index, raw in enumerate(texts):
        text = _tidy(raw)
        if not text:
            continue
        number = index + 1
        heading_path = (*headings[index], f"Page {number}")
        for part, piece in enumerate(split(text, settings.chunk_chars, settings.chunk_overlap)):
            chunks.append(ChunkDraft(text=piece, heading_path=heading_path, line_start=0, line_end=0,
                                     anchor=f"page{number}/{part}", locator=f"page {number}"))
    if not chunks and needs_ocr and "ocr_skipped" in metadata:
        raise ExtractionSkipped(f"scanned PDF without a text layer: {metadata['ocr_skipped']}")
    return Extraction(chunks=chunks, metadata=metadata)
