"""Fusing keyword and meaning rankings: weighted Reciprocal Rank Fusion, and the note evidence of
keyword-only rankings."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from answer_support import make_vault
from cognivault.engine import Engine
from cognivault.index.hybrid import FusedHit, FusionWeights, by_note_evidence, fuse_rankings, reciprocal_rank_fusion

MERGE_NOTES = {
    "Glossary.md": "# Glossary\n\nMerge conflict: a merge conflict is what you get when two copies of a note "
    "changed in the same place; see the sync notes for more.\n",
    "Sync troubleshooting.md": "# Sync troubleshooting\n\n## Conflicts\n\nWhen two devices edit one note before "
    "syncing, Obsidian tries to merge the changes and keeps both versions of a conflicting line.\n\n"
    "## Offline devices\n\nA device that stays offline keeps its edits and sends them when it connects again; "
    "a conflict is then resolved the same way, with a merge of both versions.\n",
}


def test_weighted_rrf_by_hand() -> None:
    fused = reciprocal_rank_fusion(["a", "b"], ["b", "c"], 1.0, 0.5, k=10)
    scores = {hit.chunk_id: hit.score for hit in fused}
    assert scores["a"] == pytest.approx(1 / 11)
    assert scores["b"] == pytest.approx(1 / 12 + 0.5 / 11)
    assert scores["c"] == pytest.approx(0.5 / 12)
    assert [hit.chunk_id for hit in fused] == ["b", "a", "c"]


def test_note_evidence_lifts_a_note_that_answers_in_two_passages() -> None:
    fused = [FusedHit("a1", 1 / 61, 1, None), FusedHit("b1", 1 / 62, 2, None),
             FusedHit("b2", 1 / 63, 3, None), FusedHit("c1", 1 / 64, 4, None), FusedHit("b3", 1 / 65, 5, None)]
    note = {"a1": "A.md", "b1": "B.md", "b2": "B.md", "b3": "B.md", "c1": "C.md"}.get
    # B's best passage: 1/62 + 0.1/63 > A's 1/61; only B's second passage counts, and B's other
    # passages keep their own scores (b3 stays below c1).
    lifted = by_note_evidence(fused, note, 0.1)
    assert [hit.chunk_id for hit in lifted] == ["b1", "a1", "b2", "c1", "b3"]
    assert lifted[0].score == pytest.approx(1 / 62 + 0.1 / 63) and lifted[1] == fused[0]
    # A small share does not outweigh a clearly better passage: 1/62 + 0.01/63 < 1/61.
    assert [hit.chunk_id for hit in by_note_evidence(fused, note, 0.01)] == ["a1", "b1", "b2", "c1", "b3"]
    assert by_note_evidence(fused, note, 0.0) == fused



def test_note_evidence_only_where_keywords_rank_notes_alone() -> None:
    note = {"a1": "A.md", "b1": "B.md", "b2": "B.md"}.get
    weights = FusionWeights(note_evidence=0.5)
    plain = [hit.chunk_id for hit in reciprocal_rank_fusion(["a1", "b1", "b2"], [], 1.0, 1.0)]
    assert plain == ["a1", "b1", "b2"]
    assert [hit.chunk_id for hit in fuse_rankings(["a1", "b1", "b2"], [], weights, 1.0, note)] == ["b1", "a1", "b2"]
    # Passages ranked (no note_of), or meaning search in the fusion: plain weighted RRF.
    assert [hit.chunk_id for hit in fuse_rankings(["a1", "b1", "b2"], [], weights, 1.0)] == plain
    assert [hit.chunk_id for hit in fuse_rankings(["a1", "b1", "b2"], ["a1"], weights, 1.0, note)] == plain

def test_keyword_only_note_ranking_puts_a_note_that_answers_in_two_sections_first(tmp_path: Path) -> None:
    vault, settings = make_vault(tmp_path, MERGE_NOTES)
    with Engine(vault, settings, embedder=None, weights=FusionWeights(note_evidence=0.1)) as engine:
        lexical = engine.search("merge conflict", k=3, mode="lexical")
        passages = engine.search("merge conflict", k=3, mode="hybrid")
        ranked_notes = engine.search("merge conflict", k=3, mode="hybrid", per_note=True)
        engine.weights = replace(engine.weights, note_evidence=0.0)
        without = engine.search("merge conflict", k=3, mode="hybrid", per_note=True)
    # BM25 alone puts the glossary's one passage first, and so does every passage ranking: a
    # passage's note says nothing about the passage.
    assert [(r.path, r.heading_path[-1]) for r in lexical.results] == [
        ("Glossary.md", "Glossary"), ("Sync troubleshooting.md", "Conflicts"),
        ("Sync troubleshooting.md", "Offline devices")]
    assert [r.chunk_id for r in passages.results] == [r.chunk_id for r in lexical.results]
    # Ranking notes, the one with two passages on the question leads, opened at its best passage.
    assert [(r.path, r.heading_path[-1]) for r in ranked_notes.results] == [
        ("Sync troubleshooting.md", "Conflicts"), ("Glossary.md", "Glossary")]
    assert [r.path for r in without.results] == ["Glossary.md", "Sync troubleshooting.md"]


def test_keyword_only_hybrid_ranks_notes_as_keywords_alone_by_default(tmp_path: Path) -> None:
    # Where meaning search gets no weight (a language the model lacks, or no model), hybrid must rank as keywords
    # alone do: note evidence put German held-out questions below keywords alone (0.73-0.74 against 0.78).
    vault, settings = make_vault(tmp_path, MERGE_NOTES)
    with Engine(vault, settings, embedder=None) as engine:
        for query in ("merge conflict", "conflict versions", "offline device"):
            hybrid = engine.search(query, k=5, mode="hybrid", per_note=True).results
            lexical = engine.search(query, k=5, mode="lexical", per_note=True).results
            assert [r.chunk_id for r in hybrid] == [r.chunk_id for r in lexical]
