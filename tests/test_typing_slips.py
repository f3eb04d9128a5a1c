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
