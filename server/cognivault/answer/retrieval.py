"""Retrieval for one question: hybrid search in scope -> the evidence pack (blocking; run it in a thread)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import numpy as np

from cognivault.answer.evidence import (
    DEFAULT_MAX_ITEMS,
    DEFAULT_TOKEN_BUDGET,
    Evidence,
    EvidencePack,
    evidence_from_result,
    idf_weights,
    key_phrases,
    key_terms,
    question_language,
)
from cognivault.index.scope import Scope
from cognivault.models.base import ModelUnavailable

log = logging.getLogger(__name__)


def build_pack(engine: Any, question: str, query: str | None = None, scope: Scope | None = None,
               max_items: int = DEFAULT_MAX_ITEMS, token_budget: int = DEFAULT_TOKEN_BUDGET,
               prior_paths: Sequence[str] = (), preset: Sequence[Evidence] = ()) -> tuple[EvidencePack, str | None]:
    """The evidence pack for ``question`` (searched as ``query``, e.g. a resolved follow-up).

    ``preset`` passages (attachments) come first; ``prior_paths`` (notes cited by the previous
    turn of a follow-up) contribute their best passages for the new question. Returns the pack
    and the question's language.
    """
    from cognivault.engine import EngineError

    query = (query or question).strip()
    lang = question_language(engine, query)
    terms = key_terms(engine, query, lang)
    pack = EvidencePack(max_items=max_items, token_budget=token_budget, query=query)
    pack.question_terms = terms
    pack.term_weights = idf_weights(engine, terms)
    pack.question_phrases = [pair for pair in key_phrases(engine, query, lang) if set(pair) <= set(terms)]
    for item in preset:
        pack.add(item)
    lexical = engine.store.lexical
    if lexical is None or len(lexical) == 0:
        pack.notes.append("the index is empty: run `cognivault index` first")
        return pack, lang
    depth = max_items * 2
    results: list[Any] = []
    pack.question_vector = question_vector(engine, query, lang)
    try:
        if prior_paths:
            follow = _follow_up_scope(scope, prior_paths)
            if follow is not None:
                results += engine.search(question, k=2, mode="hybrid", scope=follow).results
        response = engine.search(query, k=depth, mode="hybrid", scope=scope, query_vector=pack.question_vector)
        results += response.results
        pack.notes.extend(response.notes)
    except EngineError as exc:
        pack.notes.append(str(exc))
        return pack, lang
    seen: set[str] = set()
    for result in results:
        if result.chunk_id in seen:
            continue
        seen.add(result.chunk_id)
        if len(pack) >= max_items:
            break
        pack.add(evidence_from_result(engine, result))
    if pack.question_vector is not None:
        _measure_similarity(engine, pack)
    return pack, lang


def question_vector(engine: Any, query: str, lang: str | None) -> np.ndarray | None:
    """The query's embedding, or None without an embedder or when it does not know ``lang``."""
    embedder = engine.embedder
    if embedder is None or engine.dense_weight(lang) <= 0:
        return None
    try:
        return np.asarray(embedder.embed_query(query), dtype=np.float32)
    except ModelUnavailable as exc:
        log.info("no question vector: %s", exc)
        return None


def _measure_similarity(engine: Any, pack: EvidencePack) -> None:
    """Each vault passage's cosine to the question, from the vectors the index already holds."""
    dense = engine.store.dense
    if dense is None:
        return
    for item in pack.items:
        if item.source != "vault" or not item.chunk_id:
            continue
        with engine.store.lock:
            stored = dense.vectors_of([item.chunk_id])
        if len(stored) and stored.shape[1] == len(pack.question_vector):
            item.similarity = float(stored[0] @ pack.question_vector)


def _follow_up_scope(scope: Scope | None, prior_paths: Sequence[str]) -> Scope | None:
    """The request scope narrowed to the previously cited notes (None when that cannot be expressed)."""
    if scope is not None and scope.files:
        return None  # a file scope would widen, not narrow: keep the request scope alone
    base = scope or Scope()
    return Scope(folders=list(base.folders), tags=list(base.tags), files=list(dict.fromkeys(prior_paths)),
                 properties=list(base.properties))
