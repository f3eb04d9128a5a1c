"""A question's word read as the vault's other language stems it (issue 26): an English question's "divergent" is
the German note's "divergenten" (English stems it "diverg", German "divergent"), so the keyword search finds the
German note and the answer quotes it; a short word is not read so (an English question's "lagen" is no German
"Lagen": short words of two languages are too often other words)."""

from __future__ import annotations

from collections.abc import Callable

from cognivault.answer.extractive import answer_extractively
from cognivault.engine import Engine

NOTES = {
    "Geologie/Plattentektonik.md": "---\nlang: de\n---\n# Plattentektonik\n\n## Plattengrenzen\n\n"
                                   "An einer divergenten Plattengrenze entfernen sich zwei Platten voneinander, "
                                   "Magma steigt auf und bildet neue Kruste.\n",
    "Geologie/Gesteine.md": "---\nlang: de\n---\n# Gesteine\n\nBasalt ist ein dunkles, feinkörniges Gestein "
                            "aus erstarrter Lava.\n",
    "Astronomy/Stars.md": "---\nlang: en\n---\n# Stars\n\nA red giant is a late phase of a star whose core has "
                          "run out of hydrogen; its outer layers expand.\n",
    "Astronomy/Planets.md": "---\nlang: en\n---\n# Planets\n\nThe plates of a planet's crust move slowly over "
                            "its mantle.\n",
}


def test_an_english_word_the_german_note_stems_otherwise_finds_it(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    engine = indexed_notes(NOTES)
    lexical = engine.store.lexical
    assert "divergent" in lexical.read_query("What happens at divergent boundaries?", "en").terms
    answer = answer_extractively(engine, "What happens at divergent plates?")
    assert answer.answered and "entfernen sich zwei Platten" in answer.text


def test_a_short_word_is_not_read_as_another_language(indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    engine = indexed_notes({**NOTES, "Geologie/Vulkane.md": "---\nlang: de\n---\n# Vulkane\n\n"
                                                           "Ein Schichtvulkan besteht aus Lagen von Asche und Lava.\n"})
    lexical = engine.store.lexical
    assert lexical.document_frequency("lag") and "lag" not in lexical.read_query("What are lagen?", "en").terms


def test_an_english_word_that_is_a_german_stopword_is_asked_in_an_english_question(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    # "war" and "die" are German stopwords; in an English question the vault's English notes use them, they are
    # what is asked: before, "When did the war end?" asked only "end" and quoted the planets' note or nothing.
    from cognivault.answer.evidence import question_concepts

    engine = indexed_notes({**NOTES, "History/Thirty Years War.md": "---\nlang: en\n---\n# Thirty Years' War\n\n"
                                                                    "The war ended in 1648 with the Peace of "
                                                                    "Westphalia.\n\nKepler died in 1630 in Regensburg."
                                                                    "\n"})
    assert [concept.word for concept in question_concepts(engine, "When did the war end?", "en")] == ["war", "end"]
    assert "die" in [concept.word for concept in question_concepts(engine, "When did Kepler die?", "en")]
    answer = answer_extractively(engine, "When did the war end?")
    assert answer.answered and "1648" in answer.text
    # a short question's language is a guess: "die" stays a stopword there, as in any German question
    assert [concept.word for concept in question_concepts(engine, "Die Platten?", "de")] == ["platten"]
