"""Files attached to a question become request-local evidence, cited like vault passages.

Text files are split like prose; PDF, Office, HTML and images go through the
engine's extractors in the indexer's worker process
(:class:`cognivault.index.isolation.IsolatedExtractor`: its memory and time
limits, one file at a time; images through OCR), never in the process that
answers: a 760 KB PPTX bomb took that past 6 GB. For a vision-capable model images are also
passed as images. Only the passages that best match the question are kept
(at most ``MAX_ATTACHMENT_PASSAGES``; the first ones when the question names
no term they contain, as in "summarize this"). Nothing is written into the
vault; temp files are removed at once. Blocking: run in a thread.
"""

from __future__ import annotations

import hashlib
import logging
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cognivault.answer.evidence import Evidence, text_terms
from cognivault.answer.request import AskError, Attachment

if TYPE_CHECKING:
    from cognivault.index.isolation import IsolatedExtractor

log = logging.getLogger(__name__)

MAX_ATTACHMENT_PASSAGES = 3
MAX_TEXT_CHARS = 2_000_000


@dataclass(slots=True)
class AttachmentEvidence:
    items: list[Evidence] = field(default_factory=list)
    images: list[bytes] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _chunks_of(attachment: Attachment, settings: Any, reader: IsolatedExtractor
               ) -> list[tuple[str, str, str | None]]:
    """(text, locator, lang) passages of one attachment; AskError when it cannot be read. ``reader``: the
    worker process that reads documents and images (started on the first one)."""
    from cognivault.vault.chunking import split_prose

    chunk_chars = int(getattr(settings, "chunk_chars", 1000) or 1000)
    if attachment.kind == "text":
        text = attachment.data[:MAX_TEXT_CHARS].decode("utf-8", errors="replace")
        parts = split_prose(text, chunk_chars, int(getattr(settings, "chunk_overlap", 100) or 0))
        return [(part, f"part {n}", None) for n, part in enumerate(parts, start=1)]
    from cognivault.vault.types import ExtractionFailed, ExtractionSkipped

    with tempfile.TemporaryDirectory(prefix="cognivault-attachment-") as folder:
        path = Path(folder) / f"attachment{attachment.suffix}"
        path.write_bytes(attachment.data)
        try:
            extraction = reader.extract(path)
        except ExtractionSkipped as exc:
            raise LookupError(str(exc)) from exc
        except ExtractionFailed as exc:
            raise AskError("attachment_unreadable", f"{attachment.name}: {exc}", 422) from exc
    return [(chunk.text, chunk.locator, chunk.lang) for chunk in extraction.chunks]


def extract_for_question(attachments: Sequence[Attachment], settings: Any, analyzer: Any,
                         terms: Sequence[str], weights: dict[str, float], vision: bool,
                         max_passages: int = MAX_ATTACHMENT_PASSAGES) -> AttachmentEvidence:
    """Evidence (unlabelled), images for a vision model, and notes on what could not be read."""
    from cognivault.index.isolation import IsolatedExtractor

    reader = IsolatedExtractor(settings)  # its process starts with the first document or image
    try:
        return _evidence(attachments, settings, reader, analyzer, terms, weights, vision, max_passages)
    finally:
        reader.close()


def _evidence(attachments: Sequence[Attachment], settings: Any, reader: IsolatedExtractor,
              analyzer: Any, terms: Sequence[str], weights: dict[str, float], vision: bool,
              max_passages: int) -> AttachmentEvidence:
    result = AttachmentEvidence()
    ranked: list[tuple[float, int, int, Evidence]] = []
    for index, attachment in enumerate(attachments):
        if attachment.kind == "image" and vision:
            result.images.append(attachment.data)
        try:
            passages = _chunks_of(attachment, settings, reader)
        except LookupError as exc:
            if attachment.kind == "image" and vision:
                continue  # the model sees the image itself
            raise AskError("attachment_unreadable", f"{attachment.name} cannot be read here: {exc}", 422) from exc
        if not passages:
            if not (attachment.kind == "image" and vision):
                result.notes.append(f"{attachment.name}: no text found")
            continue
        digest = hashlib.sha256(attachment.data).hexdigest()[:16]
        for order, (text, locator, lang) in enumerate(passages):
            found = text_terms(analyzer, text, lang)
            score = sum(weights.get(t, 1.0) for t in terms if t in found)
            item = Evidence(label="", chunk_id=f"attachment:{digest}:{order + 1}", path=attachment.name,
                            title=attachment.name, heading_path=[], line_start=0, line_end=0, locator=locator,
                            text=text, snippet=text[:240], score=score, source="attachment", lang=lang,
                            terms=found)
            ranked.append((score, index, order, item))
    # Best matches first; ties (e.g. no shared term at all) keep document order.
    ranked.sort(key=lambda entry: (-entry[0], entry[1], entry[2]))
    per_file: dict[int, int] = {}
    chosen: list[tuple[int, int, Evidence]] = []
    for _score, index, order, item in ranked:
        if len(chosen) >= max_passages:
            break
        if per_file.get(index, 0) >= max(1, max_passages - len(attachments) + 1):
            continue
        per_file[index] = per_file.get(index, 0) + 1
        chosen.append((index, order, item))
    chosen.sort(key=lambda entry: (entry[0], entry[1]))
    result.items = [item for _, _, item in chosen]
    return result
