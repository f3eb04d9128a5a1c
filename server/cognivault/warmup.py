"""Warm-up: load, before the first question, what the first question would otherwise wait for.

``cognivault serve`` and ``cognivault lsp`` call these off their event loops as soon as they
have an engine, so the first answer does not pay for loading the embedding model, the language
detector, the stemmers, the keyword and vector indexes and the answer pipeline's modules (the
first question after ``serve`` took 414 ms to its first envelope, later ones 20 ms).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

WARM_QUESTION = "warm up the answer pipeline"


def _timed(name: str, step: Callable[[], Any], timings: dict[str, float]) -> None:
    started = time.perf_counter()
    try:
        step()
    except Exception as exc:  # noqa: BLE001 - only a head start: the first real request reports real errors
        log.info("warm-up step %s failed: %s", name, exc)
    timings[name] = round((time.perf_counter() - started) * 1000, 1)


def warm_embedder(engine: Any) -> dict[str, float]:
    """Load the embedding model (the offline one builds its ONNX file the first time); ms taken."""
    timings: dict[str, float] = {}
    if engine.embedder is not None:
        _timed("embedder", lambda: engine.embedder.embed_query(WARM_QUESTION), timings)
    side = engine.multilingual
    if side is not None:  # German searches ask it (index/multilingual.py)
        _timed("multilingual", lambda: side.encoder.encode([WARM_QUESTION]), timings)
    return timings


def warm_index_pass(engine: Any) -> dict[str, float]:
    """What an index pass does once per process before its first file: find which attachment
    readers can run (tesseract's languages are a subprocess, pytesseract imports pandas where it is
    installed). ``serve`` starts its pass as it prints its link, so a first question would share the
    CPU with this."""
    from cognivault.vault.extractors import availability

    timings: dict[str, float] = {}
    _timed("attachment_readers", lambda: availability(engine.settings.index), timings)
    return timings


def warm_answering(engine: Any) -> dict[str, float]:
    """Everything a first answer loads: the embedder, the language model, the indexes, the pipeline.

    Runs one retrieval (the work before an answer's first envelope) and one choice of quotes (the
    work before its first text) and returns how long each step took in ms. A failing step is logged
    and skipped.
    """
    from cognivault.index.analysis import warm_language_model

    def retrieve() -> None:
        from cognivault.answer import pipeline  # noqa: F401 - imported for the first ask
        from cognivault.answer.evidence import analyzer_of
        from cognivault.answer.extractive import passage_answer
        from cognivault.answer.retrieval import build_pack

        pack, _ = build_pack(engine, WARM_QUESTION)
        passage_answer(pack, analyzer_of(engine), WARM_QUESTION, engine.embedder)

    timings = warm_embedder(engine)
    _timed("language_model", warm_language_model, timings)
    _timed("retrieval", retrieve, timings)
    log.info("warmed up: %s", timings)
    return timings
