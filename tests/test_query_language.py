"""The language a query is read as: chosen among the vault's languages by word evidence, and what
search does with a query of no clear language (meaning search answers when no passage has its words)."""

from __future__ import annotations

from pathlib import Path

import pytest

from answer_support import WordHashEmbedder
from cognivault.config import Settings
from cognivault.engine import Engine
from cognivault.index.hybrid import FusionWeights
from cognivault.index.query_language import candidate_languages, query_language

GERMAN = {
    "Biologie/Mitochondrien.md": "---\nlang: de\n---\n# Mitochondrien\n\nMitochondrien sind die Kraftwerke der "
    "Zelle. Sie produzieren ATP durch die Zellatmung, und die innere Membran ist stark gefaltet.\n",
    "Biologie/Osmose.md": "---\nlang: de\n---\n# Osmose\n\nWasser wandert durch eine halbdurchlässige Membran "
    "zur Seite mit der höheren Konzentration gelöster Teilchen, bis sich die Konzentrationen angleichen.\n",
    "Biologie/Zellkern.md": "---\nlang: de\n---\n# Zellkern\n\nDer Zellkern enthält die Erbinformation der "
    "Zelle. Was im Zellkern passiert, steuert die Proteinsynthese der ganzen Zelle.\n",
    "Biologie/Enzyme.md": "---\nlang: de\n---\n# Enzyme\n\nEnzyme beschleunigen Reaktionen, indem sie die "
    "Aktivierungsenergie senken. Sie werden bei der Reaktion nicht verbraucht.\n",
}
ENGLISH = {
    "Biology/Cells.md": "---\nlang: en\n---\n# Cells\n\nCells are the smallest units of life. What the cell "
    "produces depends on its organelles, and the membrane controls what enters.\n",
    "Biology/Photosynthesis.md": "---\nlang: en\n---\n# Photosynthesis\n\nPlants produce glucose from light, "
    "water and carbon dioxide in the chloroplasts, where the light reactions take place.\n",
}
# One short note misdetected as Dutch: it must not make Dutch a language of queries.
STRAY = {"Notiz.md": "---\nlang: nl\n---\n# Notiz\n\nwas\n"}


def _engine(tmp_path: Path, notes: dict[str, str], embedder: object = None,
            weights: FusionWeights | None = None) -> Engine:
    vault = tmp_path / "vault"
    for relative, text in notes.items():
        path = vault / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")
    settings = Settings()
    settings.index.index_dir = str(tmp_path / "index")
    settings.embedding.multilingual = False  # as conftest's environment has it: tests/test_multilingual_side.py
    engine = Engine(vault, settings, embedder=embedder, weights=weights)  # type: ignore[arg-type]
    engine.index()
    return engine


@pytest.fixture
def mixed(tmp_path: Path) -> Engine:
    with _engine(tmp_path, {**GERMAN, **ENGLISH, **STRAY}) as engine:
        yield engine


@pytest.mark.parametrize("query, lang", [
    ("Was produzieren Mitochondrien?", "de"),
    ("Mitochondrien", "de"),
    ("Wie funktioniert Osmose", "de"),
    ("What do cells produce?", "en"),
    ("photosynthesis", "en"),
    ("How do plants make glucose", "en"),
])
def test_short_queries_get_the_language_whose_words_they_use(mixed: Engine, query: str, lang: str) -> None:
    found = mixed.query_language(query)
    assert found.lang == lang and found.evidence == "words", found
    # In so small a vault the stray Dutch note is a candidate; its words still lose.
    assert set(found.candidates) == {"de", "en", "nl"}


def test_word_evidence_is_remembered_until_the_index_is_compacted(mixed: Engine) -> None:
    lexical = mixed.store.lexical
    assert lexical is not None
    languages = ("de", "en", "nl")
    first = lexical.word_language_frequencies("zelle", languages)
    assert first["de"] == lexical.language_frequencies(lexical.analyzer.terms_of_word("zelle", "de")[0])["de"] > 0
    assert first["en"] == 0
    assert lexical.word_language_frequencies("was", languages)["de"] is None  # a German stopword
    assert lexical.word_language_frequencies("zelle", languages) is first  # not worked out again
    lexical.compact()
    again = lexical.word_language_frequencies("zelle", languages)
    assert again is not first and again == first


def test_a_word_no_passage_holds_has_no_clear_language(mixed: Engine) -> None:
    found = mixed.query_language("osmosis")
    assert found.lang is None and found.evidence == "none"


def test_a_vault_of_one_language_reads_every_query_in_it(tmp_path: Path) -> None:
    with _engine(tmp_path, GERMAN) as engine:
        assert engine.query_language("What is osmosis?").lang == "de"


def test_without_an_index_the_given_languages_are_the_candidates() -> None:
    assert query_language("x", None, ["de"]).lang == "de"
    assert query_language("x", None, []).lang is None
    assert candidate_languages({"en": 50, "de": 40, "nl": 1}) == ("en", "de")


def test_hybrid_search_with_no_keyword_hit_returns_the_dense_side(tmp_path: Path) -> None:
    # German is the main language and the embedder knows English only: a query of no clear
    # language gets German's dense weight, 0. With no passage holding its words, hybrid search
    # must still answer with what meaning search finds, as dense search does.
    with _engine(tmp_path, {**GERMAN, **ENGLISH}, embedder=WordHashEmbedder()) as engine:
        assert engine.main_language() == "de"
        assert engine.dense_weight(None) == 0.0
        # ("osmosis" would find "Osmose" by keywords now, as a typing slip)
        dense = engine.search("chromosome", mode="dense", k=3)
        hybrid = engine.search("chromosome", mode="hybrid", k=3)
        assert engine.search("chromosome", mode="lexical", k=3).results == []
        assert dense.results and [r.chunk_id for r in hybrid.results] == [r.chunk_id for r in dense.results]
        assert hybrid.language is None
        # With keyword hits the language's weights apply as before.
        german = engine.search("Was produzieren Mitochondrien?", mode="hybrid", k=3)
        assert german.language == "de" and german.results[0].path == "Biologie/Mitochondrien.md"
        assert all(r.dense_rank is None for r in german.results)


def test_a_query_of_no_clear_language_gets_no_meaning_weight_the_model_lacks_a_language_for(tmp_path: Path) -> None:
    # English is the main language and the model knows English only: a query that may be German as well must
    # not be ranked by a side that cannot read German (it was weighted as the main language, English).
    more_english = {f"Biology/Extra {n}.md": f"---\nlang: en\n---\n# Extra {n}\n\nThe cell membrane controls "
                    f"what enters the cell, note {n}.\n" for n in range(4)}
    with _engine(tmp_path / "mixed", {**GERMAN, **ENGLISH, **more_english}, embedder=WordHashEmbedder()) as engine:
        assert engine.main_language() == "en"
        assert engine.dense_weight(None) == engine.weights.dense_unclear_language == 0.0
        assert engine.dense_weight("en") == engine.weights.dense_known_language
    # In a vault of English alone, the model reads every language the query may be in.
    with _engine(tmp_path / "english", {**ENGLISH, **more_english}, embedder=WordHashEmbedder()) as engine:
        assert engine.dense_weight(None) == engine.weights.dense_known_language
