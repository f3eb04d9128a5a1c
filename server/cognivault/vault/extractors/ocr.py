"""Tesseract OCR through pytesseract, shared by the image and PDF extractors."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from cognivault.vault.types import ExtractionFailed, ExtractionSkipped

if TYPE_CHECKING:
    from PIL.Image import Image

    from ._common import Deadline

TESSERACT_MISSING = "tesseract not installed (apt-get install tesseract-ocr tesseract-ocr-deu)"
PYTESSERACT_MISSING = "pytesseract not installed (pip install pytesseract)"

_lock = threading.Lock()
_languages_cache: dict[str, list[str]] = {}


def _pytesseract() -> Any:  # the pytesseract module (untyped)
    try:
        import pytesseract
    except ImportError as exc:
        raise ExtractionSkipped(PYTESSERACT_MISSING) from exc
    return pytesseract


def installed_languages() -> list[str]:
    """Languages tesseract has data for (``osd`` excluded); ExtractionSkipped without tesseract."""
    pytesseract = _pytesseract()
    command = str(pytesseract.pytesseract.tesseract_cmd)
    with _lock:
        if command in _languages_cache:
            return _languages_cache[command]
    try:
        languages = [lang for lang in pytesseract.get_languages(config="") if lang != "osd"]
    except pytesseract.TesseractNotFoundError as exc:
        raise ExtractionSkipped(TESSERACT_MISSING) from exc
    except (OSError, pytesseract.TesseractError, RuntimeError) as exc:
        raise ExtractionSkipped(f"tesseract does not run: {exc}") from exc
    with _lock:
        _languages_cache[command] = languages
    return languages


def known_languages() -> dict[str, list[str]]:
    """What :func:`installed_languages` found in this process, by tesseract command (for a worker)."""
    with _lock:
        return dict(_languages_cache)


def remember_languages(found: dict[str, list[str]]) -> None:
    """Take over another process's findings: asking tesseract costs a subprocess each time."""
    with _lock:
        _languages_cache.update(found)


def tesseract_problem() -> str | None:
    """None when OCR can run, else why not."""
    try:
        if not installed_languages():
            return "tesseract has no language data installed (apt-get install tesseract-ocr-eng)"
    except ExtractionSkipped as exc:
        return str(exc)
    return None


def choose_languages(requested: str) -> str:
    """The ``+``-joined subset of ``requested`` (``"deu+eng"``) that is installed.

    Falls back to English, then to any installed language, when none of the
    requested ones is there.
    """
    installed = installed_languages()
    if not installed:
        raise ExtractionSkipped("tesseract has no language data installed (apt-get install tesseract-ocr-eng)")
    wanted = [lang.strip() for lang in requested.replace(",", "+").split("+") if lang.strip()]
    chosen = [lang for lang in wanted if lang in installed]
    if not chosen:
        chosen = ["eng"] if "eng" in installed else [sorted(installed)[0]]
    return "+".join(dict.fromkeys(chosen))


def ocr_image(image: Image, languages: str, deadline: Deadline, doing: str = "OCR") -> str:
    """Text tesseract reads in ``image``; the subprocess is bounded by the deadline."""
    pytesseract = _pytesseract()
    deadline.check(doing)
    timeout = deadline.remaining()
    try:
        text: str = pytesseract.image_to_string(
            image, lang=languages, config="--psm 3",
            timeout=0 if timeout == float("inf") else max(1.0, timeout))
        return text
    except pytesseract.TesseractNotFoundError as exc:
        raise ExtractionSkipped(TESSERACT_MISSING) from exc
    except RuntimeError as exc:  # pytesseract's "Tesseract process timeout"
        if "timeout" in str(exc).lower():
            raise ExtractionFailed(f"OCR took longer than {deadline.seconds:g} s ({doing}); "
                                   "raise index.extract_timeout_s to allow more") from exc
        raise ExtractionFailed(f"OCR failed ({doing}): {exc}") from exc
    except (pytesseract.TesseractError, OSError) as exc:
        raise ExtractionFailed(f"OCR failed ({doing}): {exc}") from exc
