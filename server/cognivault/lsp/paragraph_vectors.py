"""Embeddings of the paragraph being written, ready before the user types ``[[``.

Link completion ranks notes by the meaning of the paragraph around the cursor.
Embedding that paragraph takes tens of milliseconds, too long for every
keystroke, so the vectors are kept here: a small LRU keyed by (model id,
paragraph text), filled on one background thread either speculatively (after
a pause in typing) or on demand (by a completion request, which waits for it
only briefly). A speculative job superseded by a newer edit of the same
document is dropped before it starts; one that ran hands its vector to the
caller's follow-up on the same thread (link completion ranks the vault for the
paragraph ahead of the ``[[``). The thread stops with the server
(:func:`close_vectors_of`).
"""

from __future__ import annotations

import logging
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

CACHE_SIZE = 64


class ParagraphVectors:
    """Query vectors of paragraphs, embedded one at a time off the request path."""

    def __init__(self, size: int = CACHE_SIZE, before_speculating: Callable[[], object] | None = None) -> None:
        self._before_speculating = before_speculating or (lambda: None)  # e.g. wait while requests run
        self._cache: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
        self._pending: dict[tuple[str, str], Future[np.ndarray | None]] = {}
        self._latest: dict[str, int] = {}  # document -> number of its newest speculative job
        self._size = size
        self._lock = threading.Lock()
        self._closed = False
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cognivault-paragraph")

    def embedding(self, embedder: Any, text: str) -> Future[np.ndarray | None]:
        """The vector of ``text`` as a future: done at once when cached, shared while it is embedded."""
        key = (embedder.model_id, text)
        with self._lock:
            done = self._cache.get(key)
            if done is None and not self._closed:
                pending = self._pending.get(key)
                if pending is None:
                    pending = self._pending[key] = Future()
                    self._worker.submit(self._embed, embedder, key, pending)
                return pending
        future: Future[np.ndarray | None] = Future()
        future.set_result(done)
        return future

    def ready(self, embedder: Any, text: str, budget_s: float) -> tuple[np.ndarray | None, bool]:
        """(vector, ready): the vector when cached or, while it is being embedded, when that ends within
        ``budget_s``. Not ready: the caller answers with a stand-in, then asks for :meth:`embedding`
        (after its answer, so the model does not compete with it for the processor)."""
        key = (embedder.model_id, text)
        with self._lock:
            vector = self._cache.get(key)
            if vector is not None:
                self._cache.move_to_end(key)
                return vector, True
            pending = self._pending.get(key)
        if pending is None:
            return None, False
        try:
            return pending.result(timeout=budget_s), True
        except FutureTimeout:
            return None, False

    def speculate(self, document: str, job: Callable[[], tuple[Any, str] | None],
                  then: Callable[[str, np.ndarray], object] | None = None) -> None:
        """Run ``job`` (giving the embedder and paragraph at the document's last edit) on the background
        thread and embed what it gives, unless a newer edit of ``document`` came first; then, on the same
        thread, ``then(paragraph, vector)`` (unless a newer edit came meanwhile)."""
        with self._lock:
            if self._closed:
                return
            number = self._latest[document] = self._latest.get(document, 0) + 1
            self._worker.submit(self._speculative, document, number, job, then)

    def close(self) -> None:
        """Stop the background thread: queued jobs are dropped, one running ends on its own, and
        callers waiting for a vector get None at once (the ranking falls back to keywords)."""
        with self._lock:
            self._closed = True
            pending, self._pending = self._pending, {}
            self._latest.clear()
            self._worker.shutdown(wait=False, cancel_futures=True)
        for future in pending.values():
            future.set_result(None)

    def _speculative(self, document: str, number: int, job: Callable[[], tuple[Any, str] | None],
                     then: Callable[[str, np.ndarray], object] | None) -> None:
        self._before_speculating()
        with self._lock:
            if self._latest.get(document) != number:
                return  # superseded by a newer edit
        try:
            found = job()
        except Exception:  # noqa: BLE001 - only a head start for the next completion
            log.exception("preparing the paragraph's vector failed")
            return
        if found is None:
            return
        embedder, text = found
        key = (embedder.model_id, text)
        with self._lock:
            if self._closed:
                return
            vector = self._cache.get(key)
            future = None
            if vector is None and key not in self._pending:
                future = self._pending[key] = Future()
        if future is not None:
            self._embed(embedder, key, future)
            vector = future.result()
        with self._lock:
            if self._latest.get(document) != number or vector is None or then is None:
                return  # a newer edit: its own job follows
        self._before_speculating()
        try:
            then(text, vector)
        except Exception:  # noqa: BLE001 - only a head start for the next completion
            log.exception("ranking for the paragraph failed")

    def _embed(self, embedder: Any, key: tuple[str, str], future: Future[np.ndarray | None]) -> None:
        vector: np.ndarray | None = None
        try:
            vector = np.asarray(embedder.embed_query(key[1]), dtype=np.float32)
        except Exception as exc:  # noqa: BLE001 - the ranking falls back to keywords
            log.info("embedding the paragraph failed: %s", exc)
        with self._lock:
            if self._pending.get(key) is not future:
                return  # closed meanwhile: close() answered the waiters
            del self._pending[key]
            if vector is not None:
                self._cache[key] = vector
                while len(self._cache) > self._size:
                    self._cache.popitem(last=False)
        future.set_result(vector)


_by_server: weakref.WeakKeyDictionary[Any, ParagraphVectors] = weakref.WeakKeyDictionary()
_by_server_lock = threading.Lock()


def vectors_of(server: Any) -> ParagraphVectors:
    """The server's paragraph vectors (one cache and one background thread per server)."""
    with _by_server_lock:
        vectors = _by_server.get(server)
        if vectors is None:
            vectors = _by_server[server] = ParagraphVectors(
                before_speculating=getattr(getattr(server, "live", None), "yield_to_requests", None))
        return vectors


def close_vectors_of(server: Any) -> None:
    """Stop the server's paragraph thread, if it ever started one (the server is shutting down).
    The closed cache stays the server's: a late request gets no vector rather than a new thread."""
    with _by_server_lock:
        vectors = _by_server.get(server)
    if vectors is not None:
        vectors.close()
