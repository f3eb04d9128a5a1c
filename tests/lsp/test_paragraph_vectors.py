"""Paragraph vectors embedded ahead of ``[[``: a speculative job hands its vector to the caller's
follow-up (link completion ranks the vault with it), unless a newer edit of the document came first;
a request that comes while that ranking is under way waits for it instead of searching again."""

from __future__ import annotations

import threading
from types import SimpleNamespace

import numpy as np
import pytest

from cognivault.lsp import completion
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


def test_a_ranking_under_way_is_waited_for_not_searched_again(monkeypatch: pytest.MonkeyPatch) -> None:
    searching, finish = threading.Event(), threading.Event()
    searches: list[str] = []

    def slow_search(ctx: object, query: str, vector: np.ndarray) -> completion.Ranking:
        searches.append(query)
        searching.set()
        finish.wait(WAIT_S)
        return {"Cells.md": (0, 1.0)}

    monkeypatch.setattr(completion, "_hybrid_ranking", slow_search)
    ctx = SimpleNamespace(vault="/vault", view=SimpleNamespace(snapshot=SimpleNamespace(generation=-7)))
    rankings: list[completion.Ranking] = []

    def rank() -> None:
        rankings.append(completion._ranking(ctx, "ribosomes make proteins", np.ones(2), "paragraph"))  # type: ignore[arg-type]

    ahead = threading.Thread(target=rank)  # ranked ahead of the [[ on the paragraph thread ...
    ahead.start()
    assert searching.wait(WAIT_S)
    request = threading.Thread(target=rank)  # ... when the request comes
    request.start()
    finish.set()
    ahead.join(WAIT_S)
    request.join(WAIT_S)
    assert searches == ["ribosomes make proteins"] and rankings == [{"Cells.md": (0, 1.0)}] * 2
