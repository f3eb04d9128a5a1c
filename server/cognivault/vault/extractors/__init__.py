"""Attachment extractors: one module per format, dispatched on the file suffix.

Public API
- ``FORMATS``: suffix (lower case, with the dot) -> format name; the one list of the
  attachments CogniVault reads (``ATTACHMENT_EXTENSIONS`` is its keys, ``suffixes_of``
  a part of it for the ask attachments and the answer filter).
- ``EXTRACTOR_VERSIONS``: format name -> the version of the text its extractor writes; the
  index reads every file of a format again when its version changed.
- ``extract_attachment(path, settings) -> Extraction``: chunks of one attachment.
  Raises ``ExtractionSkipped`` when an optional part is missing (tesseract,
  faster-whisper, a whisper model) and ``ExtractionFailed`` with a readable
  reason for corrupt, hostile, oversized or too slow files; no library
  exception escapes.
- ``availability(settings) -> dict[str, str | None]``: per format, None when it
  can be read here, else why not (for ``cognivault doctor``).

Limits (see ``_common``): file size ``index.max_file_mb``; Office containers at
most 10,000 zip entries and 256 MiB declared uncompressed, XML parts with a DTD
refused; cooperative deadline ``index.extract_timeout_s`` (also bounds OCR);
at most 5,000,000 characters of text per file (``metadata["truncated"]``);
PDFs at most 5,000 pages, workbooks 200 sheets x 200 columns, presentations
2,000 slides, images Pillow's ~89 Mpx bomb limit, recordings 2 hours.
"""

from __future__ import annotations

import importlib
import importlib.util
from pathlib import Path

from cognivault.config import IndexSettings
from cognivault.vault.types import Extraction, ExtractionFailed, ExtractionSkipped

from ._common import Deadline, TextBudget, check_file_size

__all__ = [
    "ATTACHMENT_EXTENSIONS",
    "EXTRACTOR_VERSIONS",
    "FORMATS",
    "availability",
    "extract_attachment",
    "format_of",
    "suffixes_of",
]

# suffix -> format name
FORMATS: dict[str, str] = {
    ".pdf": "pdf",
    ".docx": "docx",
    ".pptx": "pptx",
    ".xlsx": "xlsx",
    ".xlsm": "xlsx",
    ".csv": "csv",
    ".tsv": "csv",
    ".html": "html",
    ".htm": "html",
    ".xhtml": "html",
    ".png": "image",
    ".jpg": "image",
    ".jpeg": "image",
    ".webp": "image",
    ".gif": "image",
    ".bmp": "image",
    ".tif": "image",
    ".tiff": "image",
    ".mp3": "audio",
    ".wav": "audio",
    ".ogg": "audio",
    ".oga": "audio",
    ".opus": "audio",
    ".m4a": "audio",
    ".flac": "audio",
    ".webm": "audio",
}

ATTACHMENT_EXTENSIONS: frozenset[str] = frozenset(FORMATS)
DOCUMENT_FORMATS = ("pdf", "docx", "pptx", "xlsx", "csv", "html")  # text documents (not images, not audio)

# Raised for a format whenever a change gives its files other text: the next index pass reads every
# file of that format again, though its bytes did not change (``index.pipeline``), and embeds only
# the passages whose text changed. 1 is every format's version before versions were recorded.
# docx, pptx, html 2: tables as GFM tables, bulleted paragraphs as list items (Markdown renders them).
EXTRACTOR_VERSIONS: dict[str, int] = {
    "pdf": 1, "docx": 2, "pptx": 2, "xlsx": 1, "csv": 1, "html": 2, "image": 1, "audio": 1,
}


def suffixes_of(*formats: str) -> frozenset[str]:
    """The suffixes of files in these formats (``suffixes_of("image")``: ``.png``, ``.jpg``...)."""
    unknown = set(formats) - set(FORMATS.values())
    if unknown:
        raise ValueError(f"unknown attachment format(s): {', '.join(sorted(unknown))}")
    return frozenset(suffix for suffix, name in FORMATS.items() if name in formats)


# format -> (module, function), imported on first use so that startup stays light.
_EXTRACTORS: dict[str, tuple[str, str]] = {
    "pdf": ("pdf", "extract"),
    "docx": ("word", "extract"),
    "pptx": ("powerpoint", "extract"),
    "xlsx": ("tables", "extract_xlsx"),
    "csv": ("tables", "extract_csv"),
    "html": ("web", "extract"),
    "image": ("image", "extract"),
    "audio": ("audio", "extract"),
}

_LIBRARIES = {
    "pdf": ("pypdf", "pypdf"),
    "docx": ("docx", "python-docx"),
    "pptx": ("pptx", "python-pptx"),
    "xlsx": ("openpyxl", "openpyxl"),
    "html": ("trafilatura", "trafilatura"),
    "image": ("PIL", "Pillow"),
}


def format_of(path: Path | str) -> str | None:
    """The format name (``"pdf"``, ``"image"``...) for a file name, None when it is not an attachment."""
    return FORMATS.get(Path(path).suffix.lower())


def extract_attachment(path: Path, settings: IndexSettings) -> Extraction:
    """Read one attachment into chunks (see the module doc for the errors raised)."""
    path = Path(path)
    kind = format_of(path)
    if kind is None:
        raise ExtractionSkipped(f"no extractor for {path.suffix or 'files without a suffix'}")
    module_name, function_name = _EXTRACTORS[kind]
    check_file_size(path, settings.max_file_mb)
    deadline = Deadline(settings.extract_timeout_s)
    try:
        module = importlib.import_module(f"{__name__}.{module_name}")
        extraction: Extraction = getattr(module, function_name)(path, settings, deadline)
    except (ExtractionSkipped, ExtractionFailed):
        raise
    except ImportError as exc:
        raise ExtractionSkipped(f"{kind} support is not installed ({exc})") from exc
    except MemoryError as exc:
        raise ExtractionFailed(f"ran out of memory reading this {kind} file") from exc
    except RecursionError as exc:
        raise ExtractionFailed(f"{kind} file is nested too deeply to read") from exc
    except Exception as exc:  # noqa: BLE001 - the last line of defence: never a raw library error
        raise ExtractionFailed(f"{kind} file cannot be read ({type(exc).__name__}: {exc})") from exc
    budget = TextBudget()
    extraction.chunks = budget.take(extraction.chunks)
    if budget.truncated:
        extraction.metadata["truncated"] = True
    return extraction


def availability(settings: IndexSettings) -> dict[str, str | None]:
    """Per format: None when files of that kind can be read here, else the reason they cannot."""
    from . import audio, ocr, pdf

    result: dict[str, str | None] = {}
    for kind in (*DOCUMENT_FORMATS, "image", "audio"):
        module_and_package = _LIBRARIES.get(kind)
        if module_and_package and importlib.util.find_spec(module_and_package[0]) is None:
            result[kind] = f"{module_and_package[1]} not installed"
            continue
        result[kind] = None
    ocr_problem = ocr.tesseract_problem()
    if result["image"] is None:
        result["image"] = ocr_problem
    if importlib.util.find_spec("pypdfium2") is None:
        result["pdf_ocr"] = pdf.PDFIUM_MISSING
    else:
        result["pdf_ocr"] = ocr_problem
    result["audio"] = audio.model_problem(settings)
    return result
