"""Fusing keyword and meaning rankings: weighted Reciprocal Rank Fusion, and the note evidence of
keyword-only rankings."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from answer_support import WordHashEmbedder, make_vault
from cognivault.engine import Engine
from cognivault.index.hybrid import FusedHit, FusionWeights, by_note_evidence, fuse_rankings, reciprocal_rank_fusion
from cognivault.index.multilingual import DIMENSION, MultilingualEncoder

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

def test_a_note_both_sides_rank_high_by_different_passages_leads_a_note_ranking() -> None:
    # N is second on both sides, by its passage n1 for the keywords and n2 for meaning; X and Y are
    # each one side's first (and absent on the other).
    lexical, dense = ["x1", "n1"], ["y1", "n2"]
    note = {"x1": "X.md", "y1": "Y.md", "n1": "N.md", "n2": "N.md"}.get
    weights = FusionWeights()
    by_note = fuse_rankings(lexical, dense, weights, 1.0, note)
    assert [note(hit.chunk_id) for hit in by_note][:1] == ["N.md"]
    assert by_note[0].score == pytest.approx(2 / 62) and by_note[0].chunk_id == "n1"  # its best fused passage
    # Ranking passages, n1 and n2 each hold one side's second place: below x1 and y1.
    by_passage = fuse_rankings(lexical, dense, weights, 1.0)
    assert [hit.chunk_id for hit in by_passage][:2] == ["x1", "y1"]
    # A passage of no known note is a note of its own.
    alone = fuse_rankings(["x1", "z1"], ["z2", "x1"], weights, 1.0, {"x1": "X.md"}.get)
    assert [hit.chunk_id for hit in alone] == ["x1", "z2", "z1"]


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


class GlossingEmbedder(WordHashEmbedder):
    """The hashed bag of words, reading a few German words as the English ones they mean: a small model that
    knows what a German note is about where keywords cannot (English words and German ones share no term)."""

    model_id = "test:word-hash-glossing"
    GLOSSES = {"buchungssatz": "posting", "buchungssätze": "posting", "konto": "ledger", "konten": "ledger"}

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        glossed = [" ".join(self.GLOSSES.get(word.strip(".,:;").casefold(), word) for word in text.split())
                   for text in texts]
        return super().embed_documents(glossed)


BOOKKEEPING_NOTES = {
    "Buchhaltung.md": "---\nlang: de\n---\n# Buchungssätze\n\nJeder Buchungssatz nennt zuerst das Konto im Soll, "
    "dann das Konto im Haben. Ein Buchungssatz bucht immer auf mindestens zwei Konten, und die Summen im Soll "
    "und im Haben sind gleich.\n",
    "Statistics.md": "# Statistics\n\nThe mean is the sum of the values divided by how many there are. The mean "
    "of a sample estimates the mean of the population it was drawn from.\n",
    "Networks.md": "# Networks\n\nA router forwards packets between networks by their addresses, and a switch "
    "forwards frames within one network by hardware addresses.\n",
}


def test_unknown_share_counts_the_query_words_no_passage_holds(tmp_path: Path) -> None:
    vault, settings = make_vault(tmp_path, BOOKKEEPING_NOTES)
    with Engine(vault, settings, embedder=None) as engine:
        lexical = engine.store.lexical
        assert lexical is not None
        # "what", "does", "a" are stopwords; "posting" and "ledger" are in no passage; "mean" is.
        reading = lexical.read_query("What does a ledger posting mean?", "en")
        assert reading.unknown_share == pytest.approx(2 / 3)
        assert lexical.read_query("the mean of a sample", "en").unknown_share == 0.0
        # A slip of a word the vault has is that word, not an unknown one.
        assert lexical.read_query("hardware adresses", "en").unknown_share == 0.0


def test_keywords_lose_their_say_to_meaning_when_the_query_names_its_subject_in_words_the_vault_lacks(
        tmp_path: Path) -> None:
    vault, settings = make_vault(tmp_path, BOOKKEEPING_NOTES)
    with Engine(vault, settings, embedder=GlossingEmbedder()) as engine:
        engine.index()
        query = "What does a ledger posting mean?"
        keywords = [r.path for r in engine.search(query, k=3, mode="lexical", per_note=True).results]
        meaning = [r.path for r in engine.search(query, k=3, mode="dense", per_note=True).results]
        hybrid = [r.path for r in engine.search(query, k=3, mode="hybrid", per_note=True).results]
        engine.weights = replace(engine.weights, unknown_word_penalty=0.0)
        before = [r.path for r in engine.search(query, k=3, mode="hybrid", per_note=True).results]
        # Keywords match only the question's frame ("mean"): the statistics note; meaning reads the German note.
        assert keywords[0] == "Statistics.md" and meaning[0] == "Buchhaltung.md"
        assert before[0] == "Statistics.md"
        assert hybrid[0] == "Buchhaltung.md"
        # A query whose words the vault holds keeps the plain fusion.
        assert [r.path for r in engine.search("the mean of a sample", k=3, per_note=True).results][0] \
            == "Statistics.md"


def test_unknown_words_leave_a_keyword_only_ranking_as_it_is() -> None:
    weights = FusionWeights()
    assert weights.lexical_weight(0.0) == weights.lexical
    assert weights.lexical_weight(0.25) == pytest.approx((1 - 0.25 * weights.unknown_word_penalty) * weights.lexical)
    assert weights.lexical_weight(0.75) == 0.0
    # No meaning side (a language the model lacks): the keywords' ranking whatever their unknown share.
    ranked = fuse_rankings(["a1", "b1"], [], weights, 0.0, unknown_share=1.0)
    assert [hit.chunk_id for hit in ranked] == ["a1", "b1"] and ranked[0].score > 0


class ConceptEncoder(MultilingualEncoder):
    """A stand-in for the multilingual side: a text's vector is the subjects its words name, in either language."""

    CONCEPTS = ({"anstellgut", "sourdough", "starter"}, {"volcanoes", "vulkan", "lava"}, {"küche", "lebensmittel"})

    def __init__(self) -> None:
        super().__init__()
        self.queries: list[str] = []

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        vectors = np.full((len(texts), DIMENSION), 0.01, dtype=np.float32)
        for row, text in enumerate(texts):
            found = {word.strip(".,?#:") for word in text.casefold().split()}
            for axis, concept in enumerate(self.CONCEPTS):
                vectors[row, axis] += len(found & concept)
        if len(texts) == 1:
            self.queries.append(texts[0])
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_a_query_whose_words_the_vault_mostly_lacks_is_ranked_by_the_multilingual_side_too(tmp_path: Path) -> None:
    notes = {
        "Sourdough.md": "# Sourdough\n\nFeed the starter with flour and water, one to one, every day: it doubles "
                        "within six hours and keeps a week in the fridge.\n",
        "Volcanoes.md": "# Volcanoes\n\nShield volcanoes pour out runny basalt lava on gentle slopes.\n",
        "Küche.md": "# Küche\n\nDer Kühlschrank hält Lebensmittel kalt, und die Küche bleibt ordentlich, wenn "
                    "jedes Ding seinen Platz hat.\n",
    }
    vault, settings = make_vault(tmp_path, notes)
    encoder = ConceptEncoder()
    with Engine(vault, settings, embedder=WordHashEmbedder(), multilingual=encoder) as engine:
        engine.word_bridge = None  # the multilingual side alone (the bridge reads words: tests/test_word_bridge.py)
        engine.index()
        encoder.queries.clear()
        # German, about the English note: of oft, füttert, Anstellgut, hält, Kühlschrank only the last two are
        # in the vault (in the German note on kitchens), so keywords alone put that note first.
        asked = "Wie oft füttert man Anstellgut, und hält es im Kühlschrank?"
        keywords = engine.search(asked, k=3, mode="lexical", per_note=True)
        assert [r.path for r in keywords.results] == ["Küche.md"]
        across = engine.search(asked, k=3, per_note=True)
        assert across.language == "de" and across.results[0].path == "Sourdough.md"
        assert encoder.queries == [asked]
        # Most words known: the side is not asked (nor for a passage ranking).
        engine.search("Wie bleibt die Küche ordentlich?", k=3, per_note=True)
        engine.search(asked, k=3)
        assert encoder.queries == [asked]


def test_the_across_side_is_a_third_side_of_the_note_fusion() -> None:
    note = {"k1": "K.md", "d1": "D.md", "m1": "M.md", "m2": "M.md"}.get
    # Keywords without say (weight 0 at this unknown share), meaning on D, the multilingual side on M.
    fused = fuse_rankings(["k1"], ["d1", "m1"], FusionWeights(), 1.0, note, unknown_share=0.5,
                          across=["m2", "k1"], across_weight=1.0)
    assert [note(hit.chunk_id) for hit in fused] == ["M.md", "M.md", "D.md", "K.md"]
    assert fused[0].score == pytest.approx(1 / 62 + 1 / 61)


class MisreadingEmbedder(WordHashEmbedder):
    """An English-only model that reads a German word it does not know as an English one of another subject, as a
    subword model does."""

    model_id = "test:word-hash-misreading"
    MISREAD = {"korallenbleiche": "hormone"}

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return super().embed_documents([" ".join(self.MISREAD.get(word.strip(".,?").casefold(), word)
                                                 for word in text.split()) for text in texts])


class CoralEncoder(ConceptEncoder):
    CONCEPTS = ({"korallenbleiche", "corals", "bleaching"}, {"schilddrüse", "thyroid"})


def test_a_query_no_passage_holds_a_word_of_is_not_ranked_by_a_model_that_cannot_read_its_language(
        tmp_path: Path) -> None:
    notes = {
        "Coral Reefs.md": "# Coral Reefs\n\nWhen the water is too warm, corals expel their algae and turn white: "
                          "coral bleaching.\n",
        "Schilddrüse.md": "---\nlang: de\n---\n# Schilddrüse\n\nDie Schilddrüse bildet das Hormone Thyroxin, und "
                          "dafür braucht sie Jod aus der Nahrung.\n",
        "Gezeiten.md": "---\nlang: de\n---\n# Gezeiten\n\nDie Gezeiten entstehen durch die Anziehungskraft des "
                       "Mondes auf das Wasser der Meere.\n",
    }
    vault, settings = make_vault(tmp_path, notes)
    with Engine(vault, settings, embedder=MisreadingEmbedder(), multilingual=CoralEncoder()) as engine:
        engine.word_bridge = None  # the multilingual side alone (the bridge reads words: tests/test_word_bridge.py)
        engine.index()
        asked = "Was ist eine Korallenbleiche?"
        assert engine.search(asked, k=3, mode="lexical", per_note=True).results == []
        assert engine.search(asked, k=3, mode="dense", per_note=True).results[0].path == "Schilddrüse.md"
        # German, no word in any passage: the multilingual side decides, the English-only model has no say.
        hybrid = engine.search(asked, k=3, per_note=True)
        assert hybrid.language == "de" and [r.path for r in hybrid.results][:1] == ["Coral Reefs.md"]
        assert all(r.dense_rank is None for r in hybrid.results)
        # Without the side the English-only model is all there is.
        engine.multilingual = None
        assert engine.search(asked, k=3, per_note=True).results[0].path == "Schilddrüse.md"
