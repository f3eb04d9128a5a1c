"""Meaning search over the FAISS index: a query is scanned by the thread that asks, alone."""

from __future__ import annotations

import threading
from typing import Any

import faiss
import numpy as np

from cognivault.index.dense import DenseIndex


def test_a_search_runs_on_the_asking_thread_alone() -> None:
    """FAISS's OpenMP team spins at its barriers and waits for its slowest thread: on a busy
    machine that made one query several times slower (bench/bench_lsp.py). The thread count is
    each thread's own, so a request thread that starts with a team of four searches with one."""
    index = DenseIndex("test-model", 4)
    vectors = np.eye(4, dtype=np.float32)
    chunk_ids = [f"{2 * number:016x}" for number in range(4)]
    index.add(zip(chunk_ids, vectors, strict=True))
    seen: dict[str, Any] = {}

    def request() -> None:
        faiss.omp_set_num_threads(4)  # what a thread starts with on a four-core machine
        seen["hits"] = index.search(vectors[2], 2)
        seen["threads"] = faiss.omp_get_max_threads()

    worker = threading.Thread(target=request)
    worker.start()
    worker.join()
    assert [hit.chunk_id for hit in seen["hits"]][0] == chunk_ids[2]
    assert seen["threads"] == 1
