"""A student's note on the course and on a subject's aspects (issue 25): a line on the student's own coursework
("Hausarbeit: … mit Dr. K. absprechen", "kostet Punkte!", "Essay: … discuss the outline with Dr. Patel") gives no
card, a label naming an aspect of its section ("Geschwindigkeit:", "Belege:", "Größe:", "Speed:") is asked as that
aspect, a name with its year ("Alfred Wegener 1915:") for what happened then, and a section's only display formula
as its formula."""

from __future__ import annotations

from pathlib import Path

import pytest

from cognivault.study.list_wording import item_question
from cognivault.vault.reading import is_aspect, is_bookkeeping_line
from test_study_extractive import cards_of, generate, indexed_vault

ROME = """# Römische Republik

## Punische Kriege
Die **Punischen Kriege** (264–146 v. Chr.) waren drei Kriege zwischen Rom und Karthago um das Mittelmeer.
- Ursache: Konkurrenz um Sizilien
- Geschwindigkeit: Hannibal überquerte die Alpen in ca. 15 Tagen
- Belege: Polybios, Historien Buch 3
- Hausarbeit: Thema evtl. Hannibal, mit Dr. K. absprechen
- Jahreszahlen falsch = kostet Punkte in der Klausur!
"""

SUCCESSION = """# Ecological succession

## Secondary succession
**Secondary succession** is the recovery of a community after a disturbance that leaves the soil intact.
- Speed: much faster than primary succession, decades rather than centuries
- Evidence: Yellowstone after the fires of 1988
- Essay: compare Clements and Gleason, discuss the outline with Dr. Patel
"""


def test_coursework_gives_no_card_and_an_aspect_label_is_asked_as_the_aspect(tmp_path: Path) -> None:
    notes = {"History/Rome.md": ROME, "Ecology/Succession.md": SUCCESSION}
    with indexed_vault(tmp_path, notes) as engine:
        rome = cards_of(generate(engine, "flashcards", "History/Rome.md")[1])
        succession = cards_of(generate(engine, "flashcards", "Ecology/Succession.md")[1])
        fronts = [front for _, front, _ in rome + succession]
        texts = " ".join(f"{front} {back}" for _, front, back in rome + succession)
        assert "Hausarbeit" not in texts and "Punkte" not in texts and "Essay" not in texts and "Dr." not in texts
        assert {"Punische Kriege: Geschwindigkeit?", "Punische Kriege: Belege?",
                "Secondary succession: Speed?"} <= set(fronts), fronts
        assert not [front for front in fronts if "bedeutet" in front or "what is “" in front], fronts


@pytest.mark.parametrize("line", [
    "Hausarbeit?: Thema evtl. Stoa, mit Dr. K. absprechen, Abgabe bis 31.08.",
    "- Referat: Gracchen",
    "Zitieren ohne Seitenzahl kostet Punkte! (sagt Prof. M.)",
    "Mit Dr. Weber absprechen, ob Überspannung klausurrelevant ist.",
    "- Homework: derive the growth-rate form",
    "Essay on succession due 3 Nov – discuss the outline with Dr. Patel first.",
    "late submission costs marks!",
])
def test_a_line_on_the_students_coursework_is_logistics(line: str) -> None:
    assert is_bookkeeping_line(line)


@pytest.mark.parametrize("line", [
    "Kartell: Unternehmen, die Preise absprechen",  # no lecturer: the subject's own agreement
    "Holmes discussed the case with Dr. Watson at length.",
    "- Essayistik: eine Prosaform zwischen Wissenschaft und Kunst",
    "Assignment: `x = 5` binds the name x to the value 5",
])
def test_the_subjects_own_agreements_and_terms_stay_content(line: str) -> None:
    assert not is_bookkeeping_line(line)


def test_an_aspect_label_is_read_with_its_sharp_s() -> None:
    # "größe" is compared as "grösse", like every label a note writes
    assert is_aspect("Größe") and is_aspect("größte Fraktion") and is_aspect("Geschwindigkeit")
    assert not is_aspect("Spannung")


@pytest.mark.parametrize(("term", "description", "german", "front"), [
    ("Alfred Wegener 1915", "Hypothese der Kontinentalverschiebung", True,
     "Geschichte: Was geschah 1915 (Alfred Wegener)?"),
    ("Irving Fisher 1911", "formulated the equation of exchange", False,
     "Geschichte: what happened in 1911 (Irving Fisher)?"),
    ("ISO 9001", "a standard for quality management", False, "Geschichte: ISO 9001?"),
])
def test_a_name_with_its_year_is_asked_for_what_happened_then(term: str, description: str, german: bool,
                                                               front: str) -> None:
    # "Alfred Wegener 1915?" asked nothing; a number in a name ("ISO 9001") is no year
    assert item_question(term, description, "Geschichte", "Note", german).front == front


ECONOMICS = """# Inflation

## Quantity theory
The quantity theory links money and prices.

$$M \\cdot V = P \\cdot Y$$

- Meaning: if V and Y are stable, more money means higher prices

## Derivation
Start from the identity.

$$M V = P Y$$

$$\\frac{\\Delta M}{M} + \\frac{\\Delta V}{V} = \\frac{\\Delta P}{P} + \\frac{\\Delta Y}{Y}$$
"""


def test_a_sections_only_display_formula_after_its_opening_is_asked_as_its_formula(tmp_path: Path) -> None:
    with indexed_vault(tmp_path, {"Economics/Inflation.md": ECONOMICS}) as engine:
        cards = cards_of(generate(engine, "flashcards", "Economics/Inflation.md")[1])
    sides = {(front, back) for _, front, back in cards}
    assert ("Inflation › Quantity theory: formula?", "$$M \\cdot V = P \\cdot Y$$") in sides, sides
    assert not [front for front, _ in sides if "Derivation" in front and "formula" in front]  # a derivation's steps
