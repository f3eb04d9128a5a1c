"""Meaning-based search: a FAISS inner-product index over normalized chunk vectors.

``IndexIDMap2(IndexFlatIP)``: exact cosine search with ids derived from chunk
ids, so deleting a file's chunks removes exactly their vectors. The file is
saved atomically with a stamp naming the embedding model; vectors of two
models never share an index. Equal scores rank by chunk id, never by where a
vector happens to be stored, so every build of the same files ranks alike. The catalog's embedding cache is the truth:
``reconcile`` adds what the catalog has and the index lacks, and drops what
the catalog no longer has.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import faiss
import numpy as np

from cognivault.atomic import atomic_write_bytes, atomic_write_text
from cognivault.index.catalog import Catalog
from cognivault.index.lexical import CorruptIndex

log = logging.getLogger(__name__)


def faiss_id(chunk_id: str) -> int:
    """A non-negative int64 from a 16-hex-digit chunk id."""
    return int(chunk_id, 16) >> 1


@dataclass(slots=True)
class DenseHit:
    chunk_id: str
    score: float


@dataclass(frozen=True, slots=True)
class SavedDense:
    """A serialized vector index and its stamp (model, dimension, count, catalog generation)."""

    data: bytes
    stamp: dict[str, object]
    changes: int  # the index's change count when it was serialized

    def write(self, path: Path) -> None:
        atomic_write_bytes(path, self.data)
        atomic_write_text(path.with_suffix(".json"), json.dumps(self.stamp))


class DenseIndex:
    def __init__(self, model_id: str, dimension: int, index: faiss.IndexIDMap2 | None = None) -> None:
        self.model_id = model_id
        self.dimension = dimension
        self.index = index or faiss.IndexIDMap2(faiss.IndexFlatIP(dimension))
        self.chunk_of: dict[int, str] = {}
        self.changes = 0  # vectors added or removed so far (each call counts once)
        self._saved_changes = 0 if index is not None else -1  # what the file on disk holds (-1: no file)

    @property
    def unsaved(self) -> bool:
        """Whether the index holds changes its file does not (or it has no file yet)."""
        return self.changes != self._saved_changes

    def mark_unsaved(self) -> None:
        """The file may be behind (another process wrote the index and may not have saved it)."""
        self._saved_changes = -1

    def __len__(self) -> int:
        return int(self.index.ntotal)

    def contains(self, chunk_id: str) -> bool:
        return faiss_id(chunk_id) in self.chunk_of

    def ids(self) -> np.ndarray:
        return faiss.vector_to_array(self.index.id_map)

    # -- changes ----------------------------------------------------------
    def add(self, items: Iterable[tuple[str, np.ndarray | bytes]]) -> int:
        chunk_ids: list[str] = []
        vectors: list[np.ndarray] = []
        for chunk_id, vector in items:
            chunk_ids.append(chunk_id)
            array = np.frombuffer(vector, dtype=np.float32) if isinstance(vector, bytes) else vector
            vectors.append(np.asarray(array, dtype=np.float32).reshape(-1))
        if not chunk_ids:
            return 0
        numeric = np.array([faiss_id(c) for c in chunk_ids], dtype=np.int64)
        self.index.add_with_ids(np.vstack(vectors), numeric)
        self.chunk_of.update(zip(numeric.tolist(), chunk_ids, strict=True))
        self.changes += 1
        return len(chunk_ids)

    def remove(self, chunk_ids: Iterable[str]) -> int:
        numeric = np.array([faiss_id(c) for c in chunk_ids], dtype=np.int64)
        if numeric.size == 0:
            return 0
        removed = int(self.index.remove_ids(faiss.IDSelectorBatch(numeric)))
        for value in numeric.tolist():
            self.chunk_of.pop(value, None)
        if removed:
            self.changes += 1
        return removed

    def reconcile(self, catalog: Catalog) -> tuple[int, int]:
        """Make the index hold exactly the catalog's embedded chunks; returns (added, removed)."""
        wanted = {faiss_id(chunk_id): chunk_id for chunk_id, _, _ in catalog.chunk_ids_and_hashes()}
        present = set(self.ids().tolist())
        stale = [value for value in present if value not in wanted]
        if stale:
            self.index.remove_ids(faiss.IDSelectorBatch(np.array(stale, dtype=np.int64)))
            self.changes += 1
        self.chunk_of = {value: wanted[value] for value in present if value in wanted}
        missing = [chunk_id for value, chunk_id in wanted.items() if value not in present]
        added = self.add(catalog.embedded_chunks(self.model_id, missing)) if missing else 0
        return added, len(stale)

    # -- persistence ------------------------------------------------------
    def snapshot(self, generation: int) -> SavedDense:
        """The index as bytes plus its stamp, ready to write while searches go on (:meth:`write`)."""
        return SavedDense(faiss.serialize_index(self.index).tobytes(), {
            "model_id": self.model_id, "dimension": self.dimension, "count": len(self),
            "generation": generation}, self.changes)

    def write(self, saved: SavedDense, path: Path) -> None:
        """Write a :meth:`snapshot`; changes made since it was taken stay unsaved."""
        saved.write(path)
        self._saved_changes = saved.changes

    def save(self, path: Path, generation: int) -> None:
        self.write(self.snapshot(generation), path)

    @classmethod
    def load(cls, path: Path, model_id: str, dimension: int) -> DenseIndex | None:
        """The saved index for ``model_id``; None when absent or for another model.

        Raises CorruptIndex when it is there but unreadable.
        """
        try:
            stamp = json.loads(path.with_suffix(".json").read_text("utf-8"))
            if stamp.get("model_id") != model_id or stamp.get("dimension") != dimension:
                return None
            index = faiss.deserialize_index(np.fromfile(path, dtype=np.uint8))
            if not isinstance(index, faiss.IndexIDMap2) or index.d != dimension:
                raise ValueError("not an id-mapped index of the right dimension")
            if index.ntotal != stamp.get("count"):
                raise ValueError("vector count does not match the stamp")
        except FileNotFoundError:
            return None
        except Exception as exc:  # noqa: BLE001 - whatever the damage, the catalog can rebuild it
            raise CorruptIndex(f"dense index at {path} is unreadable ({exc})") from exc
        return cls(model_id, dimension, index)

    # -- searching --------------------------------------------------------
    def search(self, query_vector: np.ndarray, k: int, allowed: set[str] | None = None) -> list[DenseHit]:
        if len(self) == 0 or k <= 0:
            return []
        # One query: scanned by the calling thread alone. FAISS's OpenMP team (one thread per core)
        # spins at its barriers and waits for its slowest member: on 2 busy cores a search of 52k
        # vectors took ~150 ms and ~35 ms of processor time with it, ~20 ms and ~6 ms without.
        # The setting is the calling thread's own (OpenMP keeps it per thread), so it is made here.
        faiss.omp_set_num_threads(1)
        query = np.asarray(query_vector, dtype=np.float32).reshape(1, -1)
        params = None
        if allowed is not None:
            if not allowed:
                return []
            selector = faiss.IDSelectorBatch(np.array([faiss_id(c) for c in allowed], dtype=np.int64))
            params = faiss.SearchParameters(sel=selector)  # type: ignore[call-arg]  # SWIG: keywords set fields
        # Equal scores come back in storage order, which differs between a clean, an incremental and a
        # resumed build: ask for one more than wanted, and more while the last one ties with the k-th,
        # so every tie at the cut is seen and broken by chunk id (a hash of path and anchor).
        want = min(k, len(self))
        fetch = min(want + 1, len(self))
        while True:
            scores, ids = self.index.search(query, fetch, params=params)
            if fetch >= len(self) or ids[0][-1] < 0 or scores[0][-1] < scores[0][want - 1]:
                break
            fetch = min(fetch * 2, len(self))
        hits = []
        for score, value in zip(scores[0].tolist(), ids[0].tolist(), strict=True):
            chunk_id = self.chunk_of.get(value)
            if value >= 0 and chunk_id is not None:
                hits.append(DenseHit(chunk_id, float(score)))
        hits.sort(key=lambda hit: (-hit.score, hit.chunk_id))
        return hits[:want]

    def vectors_of(self, chunk_ids: Iterable[str]) -> np.ndarray:
        """Stored vectors of the given chunks (those present), one row each."""
        rows = [self.index.reconstruct(faiss_id(c)) for c in chunk_ids if faiss_id(c) in self.chunk_of]
        return np.vstack(rows) if rows else np.zeros((0, self.dimension), dtype=np.float32)
