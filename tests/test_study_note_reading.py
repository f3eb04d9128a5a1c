"""Study notes read as a student reads them (issue 17): a quiz quotes the note's whole sentences and never the
answer's words in another form; a definition read mid-paragraph is asked within its section; a deck does not ask
the same fact twice. Notes of our own, keyword-indexed for real, generated with no model."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from cognivault.engine import Engine
from cognivault.study.extract import all_facts
from cognivault.study.sources import _make_sources
from cognivault.study.validate import question_problems
from test_study_extractive import cards_of, generate, indexed_vault

CYCLE = "Biology/Sugar cycle.md"
ORGANELLES = "Biologie/Chloroplasten.md"

NOTES = {
    CYCLE: """# Sugar cycle

The sugar cycle takes place in the stroma and turns carbon dioxide into sugar.

## Fixation

An enzyme attaches each molecule of carbon dioxide to a five-part sugar that waits in the stroma.

## Reduction

ATP phosphorylates the acid, and NADPH reduces the product to a sugar phosphate
that the plant can store.

## Regeneration of RuBP

Five of every six sugar molecules are rearranged, using more ATP, to rebuild three molecules of
RuBP so the cycle can continue. The sixth one leaves the cycle to become glucose.

## Output

The sixth sugar molecule leaves and becomes glucose, sucrose or starch in the leaf.
""",
    ORGANELLES: """---
lang: de
---
# Chloroplasten

Chloroplasten sind die Organellen der Fotosynthese. Eine Palisadenzelle enthält oft mehr als
fünfzig davon.

## Aufbau

- **Hülle**: zwei Membranen, die äußere und die innere Hüllmembran.
- **Thylakoide**: flache Membransäckchen, die gestapelt die Grana bilden.
- **Stroma**: die Grundsubstanz mit den Enzymen des Calvin-Zyklus und Stärkekörnern.

## Endosymbiontentheorie

Chloroplasten stammen von Cyanobakterien ab, die vor langer Zeit von einer Zelle aufgenommen wurden.
Belege sind die Doppelmembran, die eigene ringförmige DNA und die Vermehrung durch Teilung.
""",
}


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    with indexed_vault(tmp_path_factory.mktemp("reading"), NOTES) as engine:
        yield engine


def _sentences(note: str) -> set[str]:
    return {" ".join(s.split()) for s in re.split(r"(?<=\.)\s+", re.sub(r"(?m)^#.*$", "", NOTES[note]))}


def test_a_section_opening_is_read_as_whole_sentences(engine: Engine) -> None:
    """A paragraph whose first line breaks before a capital ("…three molecules of⏎RuBP so …") is one sentence,
    not a description line and the rest (what the section's facts and citations stand on); no quiz question asks
    which section begins like this (the note's layout)."""
    sources = _make_sources(engine, engine.store.catalog.chunks_of(CYCLE), budget=False)
    openings = {fact.term: fact.definition for fact in all_facts(sources, "en") if fact.kind == "heading"}
    assert openings["Regeneration of RuBP"] == ("Five of every six sugar molecules are rearranged, using more ATP, "
                                                "to rebuild three molecules of RuBP so the cycle can continue.")


def test_the_answer_in_stem_check_compares_stems() -> None:
    """"reduces" and "Reduction" share their Snowball stem: the stem names the answer, though no word is equal."""
    stem = "Which section begins like this: “NADPH reduces the product to a sugar phosphate”?"
    options = ["Reduction", "Fixation", "Output"]
    assert question_problems(stem, options, 0, NOTES[CYCLE], "en") == ["answer_in_stem"]
    assert question_problems(stem.replace("reduces", "…"), options, 0, NOTES[CYCLE], "en") == []


def test_a_deck_asks_each_fact_once_and_in_its_section(engine: Engine) -> None:
    """"Belege sind …" defines only within its section, in the middle of its paragraph: its card says where. A
    section card that repeats the section's item cards, or the note's opening after its definition card, is
    left out."""
    cards = cards_of(generate(engine, "flashcards", ORGANELLES)[1])
    fronts = [front for _, front, _ in cards]
    assert "Endosymbiontentheorie: Was sind Belege?" in fronts and "Was sind Belege?" not in fronts
    assert "Was sind Chloroplasten?" in fronts and "Worum geht es in „Chloroplasten“?" not in fronts
    assert "Aufbau: Was bedeutet „Hülle“?" in fronts and "Was sagt „Chloroplasten“ unter „Aufbau“?" not in fronts
    assert not [front for front in fronts if "Was sagt" in front]  # no card on the note's layout
