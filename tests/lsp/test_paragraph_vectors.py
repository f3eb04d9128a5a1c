"""Paragraph vectors embedded ahead of ``[[``: a speculative job hands its vector to the caller's
follow-up (link completion ranks the vault with it), unless a newer edit of the document came first."""

from __future__ import annotations

import threading

import numpy as np

from cognivault.lsp.paragraph_vectors import ParagraphVectors

WAIT_S = 60.0  # bounds a hang only


class _Embedder:
    model_id = "fake"

    def __init__(self) -> None:
        self.embedded: list[str] = []

    def embed_query(self, text: str) -> list[float]:
        self.embedded.append(text)
        return [float(len(text)), 1.0]


def test_the_follow_up_gets_the_vector_of_the_newest_edit_only() -> None:
    release = threading.Event()
    vectors = ParagraphVectors(before_speculating=lambda: release.wait(WAIT_S))
    embedder = _Embedder()
    followed: list[tuple[str, np.ndarray]] = []
    done = threading.Event()

    def follow_up(text: str, vector: np.ndarray) -> None:
        followed.append((text, vector))
        done.set()

    try:
        vectors.speculate("a.md", lambda: (embedder, "an older paragraph"), then=follow_up)
        vectors.speculate("a.md", lambda: (embedder, "the paragraph as typed now"), then=follow_up)
        release.set()
        assert done.wait(WAIT_S)
        vectors.embedding(embedder, "flush").result(WAIT_S)  # the worker finished what came before
        assert embedder.embedded == ["the paragraph as typed now", "flush"]
        assert [text for text, _vector in followed] == ["the paragraph as typed now"]
        cached, ready = vectors.ready(embedder, "the paragraph as typed now", 0)
        assert ready and cached is followed[0][1] and cached.tolist() == [26.0, 1.0]
    finally:
        vectors.close()
