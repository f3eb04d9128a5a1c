"""Definitions a student labels ("**Def.** …", "Def. Heimtücke: …"), laws and theorems named by their heading ("## Satz
des Fermat", "## 1. Hauptsatz", "## Gauss-Markov theorem") and a lecturer's spoken definitions ("The Lineweaver-Burk
plot, that's …", "K_M is basically …") each give the card a student would write; a lecture's announced topic ("Today
enzyme kinetics, this is …") and an example of nothing named ("the classic example") give none (issue 25)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cognivault.study.extract import _finish
from cognivault.study.sources import GenerationError
from cognivault.vault.reading import labelled_definition, law_question, said_plainly
from test_study_extractive import cards_of, generate, indexed_vault

OPTIK = """# Geometrische Optik

## Reflexionsgesetz
- Einfallswinkel = Reflexionswinkel ($\\alpha = \\alpha'$)
- einfallender Strahl, Lot und reflektierter Strahl liegen in einer Ebene

## Totalreflexion
Def.: Totalreflexion tritt auf, wenn Licht vom optisch dichteren ins dünnere Medium übergeht.
- Anwendung: Glasfaserkabel, Umlenkprismen

## Satz des Fermat
Licht nimmt zwischen zwei Punkten immer den Weg, für den es die kürzeste Zeit braucht.
→ daraus folgt das Brechungsgesetz
"""

GRAPHEN = """# Kürzeste Wege

## Grundbegriffe
**Def.** Die Distanz ist das minimale Gewicht eines Pfades von s nach v.

**Def. (Relaxation):** Eine Kante wird relaxiert, indem man prüft, ob der Weg über sie kürzer ist.

Def. Habgier = ein ungezügeltes, rücksichtsloses Streben nach Gewinn um jeden Preis.
"""

REGRESSION = """# Linear Regression

## Gauss-Markov theorem
Under the classical assumptions, the OLS estimator is the best linear unbiased estimator (BLUE).
"""

ENZYMES = """# Lecture 05 – Enzyme kinetics (Transcript)

**[00:00]** Right, let's start. Today enzyme kinetics, this is the part that everybody finds hard, but it's really just
one equation.

**[06:10]** And what is K_M? K_M is basically the substrate concentration at which the reaction runs at half the maximum
velocity.

**[18:20]** The Lineweaver-Burk plot, that's the double reciprocal plot, 1 over v against 1 over S.

**[33:40]** Haemoglobin is the classic example, although it's not an enzyme, strictly.
"""


@pytest.mark.parametrize(("line", "read"), [
    ("**Def.** Die Distanz ist das minimale Gewicht.", ("", "Die Distanz ist das minimale Gewicht.")),
    ("**Def. (Relaxation):** Eine Kante wird relaxiert.", ("Relaxation", "Eine Kante wird relaxiert.")),
    ("Def. Heimtücke: Heimtückisch handelt, wer …", ("Heimtücke", "Heimtückisch handelt, wer …")),
    ("Def. Habgier = ein ungezügeltes Streben", ("Habgier", "ein ungezügeltes Streben")),
    ("- Def.: Notwehr ist die Verteidigung", None),  # a list item's content comes without its marker
    ("Def.: Notwehr ist die Verteidigung", ("", "Notwehr ist die Verteidigung")),
    ("Definition. The OLS estimator minimises the sum", ("", "The OLS estimator minimises the sum")),
    ("Definition of done: all tests pass", None),
    ("Definitionen: siehe Skript", None),
    ("Default: light theme", None),
])
def test_a_definitions_label_names_its_term_or_leaves_the_sentence_to_name_it(
        line: str, read: tuple[str, str] | None) -> None:
    assert labelled_definition(line) == read


@pytest.mark.parametrize(("heading", "lang", "question"), [
    ("Satz des Fermat", "de", "Was besagt der Satz des Fermat?"),
    ("1. Hauptsatz", "de", "Was besagt der 1. Hauptsatz?"),
    ("Snelliussches Brechungsgesetz", "de", "Was besagt das Snelliussche Brechungsgesetz?"),
    ("Satz (Optimalitätsprinzip)", "de", "Was besagt das Optimalitätsprinzip?"),
    ("Newton's second law", "en", "What does Newton's second law state?"),
    ("1st law – inertia", "en", "What does the 1st law state?"),
    ("Law of total probability", "en", "What does the law of total probability state?"),
    ("Gauss-Markov theorem", "en", "What does the Gauss-Markov theorem state?"),
    ("Zinssatz", "de", ""),  # a compound of "Satz" naming no law
    ("Satz", "de", ""),
    ("Newton's Laws", "en", ""),  # several laws: no one statement
    ("Design principles", "en", ""),
    ("Law and order", "en", ""),
])
def test_a_heading_naming_a_law_asks_what_it_states(heading: str, lang: str, question: str) -> None:
    assert law_question(heading, lang) == question


def test_a_resumed_term_said_with_a_contraction_is_read_as_its_definition() -> None:
    assert said_plainly("The Lineweaver-Burk plot, that's the double reciprocal plot.", "en") \
        == "The Lineweaver-Burk plot is the double reciprocal plot."


def test_labelled_definitions_and_laws_give_the_cards_a_student_writes(tmp_path: Path) -> None:
    notes = {"Optik.md": OPTIK, "Graphen.md": GRAPHEN, "Regression.md": REGRESSION}
    with indexed_vault(tmp_path, notes) as engine:
        cards = {note: cards_of(generate(engine, "flashcards", note)[1]) for note in notes}
    optik = cards["Optik.md"]
    assert ("qa", "Was besagt das Reflexionsgesetz?", "Einfallswinkel = Reflexionswinkel ($\\alpha = \\alpha'$)") \
        in optik
    assert ("qa", "Was besagt der Satz des Fermat?",
            "Licht nimmt zwischen zwei Punkten immer den Weg, für den es die kürzeste Zeit braucht.") in optik
    assert not any("Einfallswinkel“" in front for _, front, _ in optik)  # no "Was bedeutet „Einfallswinkel“?"
    assert not any("Def." in front + back for _, front, back in optik)
    graphen = {front: back for _, front, back in cards["Graphen.md"]}
    assert graphen["Was ist die Distanz?"] == "Das minimale Gewicht eines Pfades von s nach v."
    assert any("Relaxation" in front and back.startswith("Eine Kante wird relaxiert")
               for front, back in graphen.items())
    assert graphen["Grundbegriffe: Was bedeutet „Habgier“?"].startswith("Ein ungezügeltes, rücksichtsloses Streben")
    assert ("qa", "What does the Gauss-Markov theorem state?",
            "Under the classical assumptions, the OLS estimator is the best linear unbiased estimator (BLUE).") \
        in cards["Regression.md"]


def test_a_lecture_defines_aloud_but_announces_no_term_and_no_example(tmp_path: Path) -> None:
    with indexed_vault(tmp_path, {"Lecture.md": ENZYMES}) as engine:
        cards = {front: back for _, front, back in cards_of(generate(engine, "flashcards", "Lecture.md")[1])}
    assert cards["What is K_M?"] == \
        "The substrate concentration at which the reaction runs at half the maximum velocity."
    assert cards["What is the Lineweaver-Burk plot?"] == "The double reciprocal plot, 1 over v against 1 over S."
    assert not any("today" in front.casefold() or "haemoglobin" in front.casefold() for front in cards)


def test_a_back_opening_with_a_symbols_equation_keeps_the_symbols_case() -> None:
    assert _finish("k = 1 / (1 − MPC)") == "k = 1 / (1 − MPC)"
    assert _finish("stages changes") == "Stages changes."


MORD = """# Mord

## Mordmerkmale
- Gruppe (Motiv): Mordlust, Habgier, sonst niedrige Beweggründe
- Gruppe (Tatausführung): heimtückisch, grausam, mit gemeingefährlichen Mitteln
- Gruppe (Zweck): um eine andere Straftat zu ermöglichen oder zu verdecken
- Habgier: ein ungezügeltes, rücksichtsloses Streben nach Gewinn um jeden Preis
- Heimtücke: bewusstes Ausnutzen der Arg- und Wehrlosigkeit des Opfers zur Tötung
"""


def test_parts_of_a_list_told_apart_by_remarks_are_no_terms(tmp_path: Path) -> None:
    with indexed_vault(tmp_path, {"Mord.md": MORD}) as engine:
        cards = cards_of(generate(engine, "flashcards", "Mord.md")[1])
        try:
            quiz = generate(engine, "quiz", "Mord.md")[1]
        except GenerationError:
            quiz = ""  # two terms left: too few for a question with wrong options
    assert not any("„Gruppe" in front for _, front, _ in cards)  # never "Was bedeutet „Gruppe (Motiv)“?"
    assert any(front.endswith("Gruppe (Motiv)?") for _, front, _ in cards)  # asked as the list's part
    assert "Gruppe (" not in quiz  # nor an option beside "Habgier"
