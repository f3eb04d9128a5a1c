"""Fusing keyword and meaning rankings: weighted Reciprocal Rank Fusion."""

from __future__ import annotations

import pytest

from cognivault.index.hybrid import reciprocal_rank_fusion


def test_weighted_rrf_by_hand() -> None:
    fused = reciprocal_rank_fusion(["a", "b"], ["b", "c"], 1.0, 0.5, k=10)
    scores = {hit.chunk_id: hit.score for hit in fused}
    assert scores["a"] == pytest.approx(1 / 11)
    assert scores["b"] == pytest.approx(1 / 12 + 0.5 / 11)
    assert scores["c"] == pytest.approx(0.5 / 12)
    assert [hit.chunk_id for hit in fused] == ["b", "a", "c"]
