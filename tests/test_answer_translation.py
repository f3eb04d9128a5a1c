"""A question's word the vault never uses, read as its translation in a passage of the vault's other language by the
multilingual encoder (issue 25): "How many eggs does the queen lay per day?" on a German note ("Die Königin legt
bis zu 2000 Eier pro Tag") is answered where the encoder finds "eggs" and "queen" in the note's "Eier" and "Königin";
a word it finds no translation of ("winter") keeps the question refused, and a near word below the agreement
threshold is no translation."""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence
from types import SimpleNamespace

import numpy as np

from cognivault.answer import translation
from cognivault.answer.extractive import answer_extractively
from cognivault.answer.retrieval import build_pack
from cognivault.engine import Engine

NOTES = {
    "Bio/Bienen.md": "# Honigbienen\n\n## Die Königin\n\nDie Königin legt im Sommer bis zu 2000 Eier pro Tag. Sie wird "
                     "mit Gelée royale gefüttert.\n",
    "Astro/Planets.md": "# Planets\n\nJupiter is the largest planet; its Great Red Spot is a storm larger than Earth. "
                        "A day on Jupiter lasts ten hours.\n",
}
DIMENSION = 64
# words that mean one thing, by the axis they share; every other word gets an axis of its own
MEANING = {"eggs": 0, "eier": 0, "queen": 1, "königin": 1, "bees": 2, "lay": 3, "legt": 3, "per": 4, "pro": 4}


class _Encoder:
    """Unit vectors by ``MEANING`` (a word's own axis otherwise), for an encoder that needs no model."""

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        rows = []
        for text in texts:
            vector = np.zeros(DIMENSION, dtype=np.float32)
            vector[MEANING.get(text, 8 + zlib.crc32(text.encode()) % (DIMENSION - 8))] = 1.0
            rows.append(vector)
        return np.vstack(rows)


def _with_side(engine: Engine, encoder: object) -> Engine:
    chunks = [chunk.id for chunk in engine.store.reader().chunks_of("Bio/Bienen.md")]
    engine.multilingual = SimpleNamespace(encoder=encoder, search=lambda query, k: chunks[:k])  # type: ignore[assignment]
    return engine


def test_a_word_the_encoder_translates_is_answered(indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    engine = indexed_notes(NOTES)
    question = "How many eggs does the queen lay per day?"
    assert not answer_extractively(engine, question).answered  # keywords alone: no word of the note
    _with_side(engine, _Encoder())
    answer = answer_extractively(engine, question)
    assert answer.answered and "2000 Eier" in answer.text
    pack, _ = build_pack(engine, question)
    assert "eier" in pack.concepts["egg"].terms and "queen" not in pack.unknown


def test_a_word_with_no_translation_keeps_the_question_refused(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    engine = _with_side(indexed_notes(NOTES), _Encoder())
    assert not answer_extractively(engine, "How does the queen survive the winter?").answered


def test_a_near_word_below_the_agreement_is_no_translation(indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    class Near(_Encoder):
        """"bees" and the note's "Honigbienen" at cosine .6: related, no translation."""

        def encode(self, texts: Sequence[str]) -> np.ndarray:
            rows = super().encode(texts)
            for at, text in enumerate(texts):
                if text == "honigbienen":
                    rows[at] = np.zeros(DIMENSION, dtype=np.float32)
                    rows[at][MEANING["bees"]], rows[at][DIMENSION - 1] = 0.6, 0.8
            return rows

    engine = _with_side(indexed_notes(NOTES), Near())
    pack, _ = build_pack(engine, "Where do bees live?")
    assert pack.concepts["bee"].terms <= {"bee", "bees"} and "bees" in pack.unknown and translation.AGREEMENT > 0.6



def test_a_passage_the_keywords_found_is_read_with_the_translations(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    # "2000" finds the German note by keywords before its words are read as the question's translations: the
    # passage then has the translated concepts too, and is quoted rather than the English note on days
    engine = indexed_notes(NOTES)
    engine.multilingual = SimpleNamespace(encoder=_Encoder(), search=lambda query, k: [])  # type: ignore[assignment]
    answer = answer_extractively(engine, "Does the queen lay 2000 eggs per day?")
    assert answer.answered and "2000 Eier" in answer.text and "Jupiter" not in answer.text
