"""A misspelt word finds what the vault says ("photosyntesis", "chlorophyl", "Chloroplastn"), in search and in
answers, while a question on something else is not read as a near word of the vault ("sourdough bread" is no
"break"). A word the vault writes another accepted way ("Photosynthese", "Delphine") is read as the vault's, in a
full question too, and so is a learned word written as the vault's other language writes it ("mitosis" for a German
note's "Mitose"). Real SQLite and BM25, keyword retrieval only."""

from __future__ import annotations

from typing import Any

import pytest

from answer_support import collect, final, make_vault
from cognivault.answer.pipeline import stream_answer
from cognivault.answer.request import AskRequest
from cognivault.answer.sessions import SessionStore
from cognivault.engine import Engine
from cognivault.models.extractive_chat import ExtractiveChat

NOTES = {
    "Photosynthesis.md": """# Photosynthesis

Photosynthesis is how plants turn light energy into chemical energy stored in glucose.

## Pigments

Chlorophyll absorbs blue and red light and reflects green light, which is why leaves look green.
""",
    "Deutsch/Chloroplasten.md": """---
lang: de
---
# Chloroplasten

Chloroplasten sind die Organellen der Fotosynthese. Eine Palisadenzelle enthält oft mehr als fünfzig davon.
""",
    "Deutsch/Meer.md": """---
lang: de
---
# Meeressäuger

Delfine atmen durch das Blasloch. Die Schifffahrt in der Straße von Gibraltar stört sie.
""",
    "Deutsch/Zellteilung.md": """---
lang: de
---
# Zellteilung

Bei der Mitose entstehen zwei erbgleiche Tochterzellen; die Zytokinese teilt danach das Zytoplasma.
""",
    "Membranes.md": """# Membranes

Osmosis moves water across a membrane towards the side with more dissolved molecules.
""",
    "Graphs.md": """# Graphs

A topological sort orders the vertices of a directed acyclic graph so that every edge points forward.
""",
    "Deutsch/Weimar.md": """---
lang: de
---
# Weimarer Republik

Ab 1930 regierten Präsidialkabinette unter Brüning, Papen und Schleicher mit Notverordnungen. Die Finanzen
des Reiches waren zerrüttet.
""",
    "Lab.md": """# Lab

Take a short break between two trials so the pondweed can settle in the light of the lamp.
""",
}


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Any:
    vault, settings = make_vault(tmp_path_factory.mktemp("slips"), NOTES)
    with Engine(vault, settings, embedder=None, writable=False) as opened:
        yield opened


@pytest.mark.parametrize(("query", "note"), [("photosyntesis", "Photosynthesis.md"),
                                             ("what is photosyntesis", "Photosynthesis.md"),
                                             ("chlorophyl", "Photosynthesis.md"),
                                             ("Chloroplastn", "Deutsch/Chloroplasten.md")])
def test_a_misspelt_word_finds_the_note_by_keywords(engine: Any, query: str, note: str) -> None:
    results = engine.search(query, k=3, mode="lexical").results
    assert results and results[0].path == note


@pytest.mark.parametrize(("query", "note"), [
    ("Wo findet die Photosynthese statt, steht es im Quizlet?", "Deutsch/Chloroplasten.md"),  # ph for f
    ("Delphine in Brehms Tierleben", "Deutsch/Meer.md"),  # ph for f, beside words the vault lacks
    ("Schiffahrt am Bosporus", "Deutsch/Meer.md"),  # old spelling: two letters for three
    ("Wie viele Chloroplastn hat eine Seerose?", "Deutsch/Chloroplasten.md"),  # a long word's slip among unknowns
    # a slip in the letters the stemmer reads as the ending, so that it cuts the word elsewhere ("topolog" vs
    # "topologicl", "prasidialkabinett" vs "prasidialkabin")
    ("what does a topologicl sort need", "Graphs.md"),
    ("Wer führte die Präsidialkabinete an?", "Deutsch/Weimar.md"),
])
def test_a_spelling_variant_or_a_slip_in_a_full_question_finds_the_note(engine: Any, query: str, note: str) -> None:
    results = engine.search(query, k=3, mode="lexical").results
    assert results and results[0].path == note


@pytest.mark.parametrize(("query", "note"), [
    ("What happens during mitosis and cytokinesis?", "Deutsch/Zellteilung.md"),  # -osis/-ose, c/z, y/i
    ("Was passiert bei der Osmose?", "Membranes.md"),  # and back: a German question, an English note
])
def test_a_learned_word_in_the_other_language_finds_the_note(engine: Any, query: str, note: str) -> None:
    results = engine.search(query, k=3, mode="lexical").results
    assert results and results[0].path == note


def test_a_query_on_something_else_is_not_read_as_a_near_word(engine: Any) -> None:
    # "sourdough" and "bread" are both words no note has: the query is on something the vault lacks, and
    # "bread" is not a slip of "break"; nor is a short word read as another ("light" is in the vault).
    assert not engine.search("sourdough bread", k=3, mode="lexical").results
    assert engine.store.lexical.nearest_term("brea") is None  # shorter than a slip is told apart at
    assert engine.store.lexical.nearest_term("breadd") is None  # no index word is one slip away
    # a compound of a vault word and a short one is no slip in its ending: no word one slip from "Finanzamt" is
    # stemmed "finanz"
    assert engine.store.lexical.nearest_term("finanzamt", written="finanzamt") is None


async def ask(engine: Any, question: str) -> dict[str, Any]:
    envelopes = await collect(stream_answer(engine, AskRequest(question, use_cache=False), ExtractiveChat(),
                                            SessionStore(None), cache=None))
    return final(envelopes)["data"]


@pytest.mark.parametrize(("question", "said"), [("What is chlorophyl?", "Chlorophyll absorbs blue and red light"),
                                                ("What is photosyntesis?", "Photosynthesis is how plants turn"),
                                                ("Was sind Chloroplastn?", "Chloroplasten sind die Organellen")])
async def test_a_misspelt_question_is_answered(engine: Any, question: str, said: str) -> None:
    data = await ask(engine, question)
    assert data["answered"] and said in data["answer"]


@pytest.mark.parametrize(("question", "said"), [
    ("What does a topologicl sort do?", "A topological sort orders the vertices"),  # a slip in the ending
    ("Wer führte die Präsidialkabinete an?", "Präsidialkabinette unter Brüning"),  # beside a word the vault lacks
])
async def test_a_slip_the_stemmer_cuts_elsewhere_or_beside_unknown_words_is_answered(engine: Any, question: str,
                                                                                   said: str) -> None:
    data = await ask(engine, question)
    assert data["answered"] and said in data["answer"]


async def test_a_learned_word_in_the_other_language_is_answered(engine: Any) -> None:
    data = await ask(engine, "What happens in mitosis?")
    assert data["answered"] and "Bei der Mitose entstehen zwei erbgleiche Tochterzellen" in data["answer"]


async def test_a_question_on_something_the_vault_lacks_is_still_refused(engine: Any) -> None:
    data = await ask(engine, "What is a good recipe for sourdough bread?")
    assert not data["answered"]


def test_meaning_abstains_when_no_quote_is_near_the_question() -> None:
    # A misspelt question's vector can be far from every passage: the words, read with the slip, decide.
    import numpy as np

    from cognivault.answer.extractive import Unit, _by_meaning

    class Orthogonal:
        def embed_documents(self, texts: list[str]) -> list[np.ndarray]:
            return [np.eye(4, dtype=np.float32)[1 + at % 3] for at in range(len(texts))]

    units = [Unit("S1", 0, 0, "paragraph", "Photosynthesis is how plants turn light into sugar.", score=0.9),
             Unit("S1", 0, 1000, "paragraph", "Chlorophyll absorbs red light.", score=0.8)]
    assert _by_meaning(units, np.eye(4, dtype=np.float32)[0], Orthogonal()) == units


def test_a_word_a_later_edit_adds_is_read_in_its_other_spelling(tmp_path: Any) -> None:
    vault, settings = make_vault(tmp_path, {"Meer.md": NOTES["Deutsch/Meer.md"]})
    with Engine(vault, settings, embedder=None) as opened:
        def variant(word: str) -> str | None:
            lexical = opened.store.lexical
            return lexical.spelling_variant(lexical.query_terms(word, "de")[0])

        def term(word: str) -> str:
            return opened.store.lexical.query_terms(word, "de")[0]

        assert variant("Delphine") == term("Delfine")
        assert variant("Fotografie") is None
        (vault / "Licht.md").write_text("---\nlang: de\n---\n# Licht\n\nDie Photographie hält Licht fest.\n",
                                        "utf-8")
        opened.index()
        assert variant("Fotografie") == term("Photographie")
        assert variant("Delphine") == term("Delfine")


COMPOUND_NOTES = {
    "Normalisierung.md": "---\nlang: de\n---\n# Normalisierung\n\nDie Datenbanknormalisierung entfernt Redundanz aus "
                         "Tabellen. Ein Primärschlüssel identifiziert jede Zeile.\n",
    "Netze.md": "---\nlang: de\n---\n# Netze\n\nDer Web-Server liefert Seiten aus. Ein Arbeits-Vertrag regelt den "
                "Urlaub der Admins.\n",
    "Sonstiges.md": "---\nlang: de\n---\n# Sonstiges\n\nEine Tabelle hat Zeilen und Spalten. Ein Server ist ein "
                    "Rechner. Das Web ist groß. Der Primat der Politik gilt.\n",
}


@pytest.mark.parametrize(("query", "note"), [("Primär-Schlüssel", "Normalisierung.md"),
                                             ("Was ist ein Primär Schlüssel?", "Normalisierung.md"),
                                             ("Datenbank-Normalisierung", "Normalisierung.md"),
                                             ("Webserver", "Netze.md"),
                                             ("Was steht im Arbeitsvertrag?", "Netze.md")])
def test_a_compound_written_apart_or_together_finds_the_note(tmp_path: Any, query: str, note: str) -> None:
    vault, settings = make_vault(tmp_path, COMPOUND_NOTES)
    with Engine(vault, settings, embedder=None, writable=False) as opened:
        assert opened.search(query, k=3, mode="lexical").results[0].path == note


def test_a_word_read_as_two_parts_is_still_one_the_vault_lacks(tmp_path: Any) -> None:
    """"Arbeitsvertrag" finds the note on the Arbeits-Vertrag, but a passage holding both parts is no proof the vault
    writes them as one word: the word still counts as unknown, so a question on something else is refused as before."""
    vault, settings = make_vault(tmp_path, COMPOUND_NOTES)
    with Engine(vault, settings, embedder=None, writable=False) as opened:
        reading = opened.store.lexical.read_query("Arbeitsvertrag", "de")
        assert {"arbeit", "vertrag"} <= set(reading.terms)
        assert reading.unknown_share == 1.0
        assert opened.store.lexical.read_query("Datenbank Normalisierung", "de").unknown_share == 0.0


def test_a_compound_the_index_splits_already_is_not_counted_twice(tmp_path: Any) -> None:
    notes = {"Hilfe.md": "---\nlang: de\n---\n# Hilfe\n\nDie Hilfedokumentation erklärt alles. Die Hilfe hilft, "
                         "die Dokumentation dokumentiert. Hilfe und Dokumentation gehören zusammen.\n"}
    vault, settings = make_vault(tmp_path, notes)
    with Engine(vault, settings, embedder=None, writable=False) as opened:
        lexical = opened.store.lexical
        assert lexical.read_compounds(["hilfe", "dokumentation"], "de") == []
        assert lexical.read_compounds(["primär", "schlüssel"], "de") == []  # no such word at all
