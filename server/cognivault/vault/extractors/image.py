"""Images: text read by tesseract OCR (PNG, JPEG, WebP, GIF, BMP, TIFF; first frame only)."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import TYPE_CHECKING

from cognivault.config import IndexSettings
from cognivault.vault.types import ChunkDraft, Extraction, ExtractionFailed

from . import ocr
from ._common import Deadline, clean_text, split

if TYPE_CHECKING:
    from PIL.Image import Image as PILImage

# Pillow's own bomb limit (Image.MAX_IMAGE_PIXELS, ~89 Mpx) is kept and its
# warning band (1x to 2x the limit) is treated as an error too. This is the
# fallback limit when an application has switched Pillow's check off.
FALLBACK_MAX_PIXELS = 89_478_485
# Small images are scaled up before OCR: tesseract wants glyphs ~20-30 px high.
MIN_OCR_SIDE = 1000


def load_image(path: Path) -> PILImage:
    """Open an image under Pillow's decompression-bomb guard, as RGB or L, first frame only."""
    from PIL import Image, UnidentifiedImageError

    limit = Image.MAX_IMAGE_PIXELS or FALLBACK_MAX_PIXELS
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image: PILImage = Image.open(path)
            width, height = image.size
            if width * height > limit:
                raise ExtractionFailed(f"image is {width}x{height} pixels, over the "
                                       f"{limit:,} pixel limit (possible decompression bomb)")
            image.seek(0)
            image.load()
    except ExtractionFailed:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise ExtractionFailed(f"image refused as a possible decompression bomb: {exc}") from exc
    except UnidentifiedImageError as exc:
        raise ExtractionFailed("not a readable image: the format is not recognised or the file is corrupt") from exc
    except (OSError, ValueError, SyntaxError, EOFError, MemoryError) as exc:
        raise ExtractionFailed(f"not a readable image: {exc}") from exc
    if image.mode not in ("RGB", "L"):
        if image.mode in ("RGBA", "LA", "P", "PA") or "transparency" in image.info:
            # Transparent areas become white, not black, so dark text stays readable.
            rgba = image.convert("RGBA")
            background = Image.new("RGB", rgba.size, "white")
            background.paste(rgba, mask=rgba.getchannel("A"))
            image = background
        else:
            image = image.convert("RGB")
    return image


def extract(path: Path, settings: IndexSettings, deadline: Deadline) -> Extraction:
    image = load_image(path)  # a corrupt or hostile image fails even where OCR is missing
    languages = ocr.choose_languages(settings.ocr_languages)  # skipped without tesseract
    width, height = image.size
    if max(width, height) < MIN_OCR_SIDE and max(width, height) > 0:
        from PIL import Image

        factor = min(4, max(1, MIN_OCR_SIDE // max(width, height)))
        if factor > 1:
            image = image.resize((width * factor, height * factor), Image.Resampling.LANCZOS)
    text = clean_text(ocr.ocr_image(image, languages, deadline, "OCR of the image"))
    chunks = []
    if sum(ch.isalnum() for ch in text) >= 3:
        for part, piece in enumerate(split(text, settings.chunk_chars, settings.chunk_overlap)):
            chunks.append(ChunkDraft(text=piece, heading_path=(), line_start=0, line_end=0,
                                     anchor=f"image/{part}", locator="image"))
    return Extraction(chunks=chunks, metadata={"format": "image", "ocr": True, "ocr_languages": languages,
                                               "width": width, "height": height})
