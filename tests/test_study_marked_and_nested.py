"""Cards from what a student marks and nests: a highlighted line stating a fact, a definition list, a list item under
a label that names its subject, a course appointment beside a link in a hub; gaps offered only what could fill them
(issue 25)."""

from __future__ import annotations

from pathlib import Path

from cognivault.study.quiz import parse_quiz
from cognivault.vault.reading import definition_list, is_bookkeeping_line, note_shape
from test_study_extractive import cards_of, generate, indexed_vault

GLACIERS = """# Glaciers

## Mass balance
- Ablation:
  - ==calving loses mass at the front== → that's why tidewater glaciers retreat fast
- Interference of ice flows:
  - ==Stauchung: zwei Ströme drücken gegeneinander== (mix I up every time!!)
  - ==Zerrung: ein Strom zieht den anderen auseinander==
- ==Summe Zuwachs = Summe Abschmelzen== (equilibrium)
- ==late snow = seasonal surplus (not counted)==
"""

ROCKS = """# Rocks

## Cycle
- cooling rock (below ~700 °C):
  - crystals: quartz, feldspar and mica grow slowly in the melt
- `granite` / `basalt`:
  - a membership test `x in rock` → answered in constant time
"""

PLAN = """---
tags: [plan]
---
# Semesterplan Geo

last edited: 02.05.2026

## Geomorphologie (Di 10–12)
- [[Glaciers]]
- Klausur 14.07.2026, 90 min, MC

## Petrologie
- [[Rocks]] – Praktikum Dünnschliffe (Polarisation) 11.06.
- Fallbesprechung 19.06.
- [[Minerals]]
- [[Volcanoes]]
- [[Soils]]
- Übungsblatt 3 bis 20.05. abgeben
"""


def test_a_highlighted_fact_is_a_card(tmp_path: Path) -> None:
    with indexed_vault(tmp_path, {"Geo/Glaciers.md": GLACIERS}) as engine:
        cards = cards_of(generate(engine, "flashcards", "Geo/Glaciers.md")[1])
    found = {front: back for kind, front, back in cards if kind == "qa"}
    clozes = [front for kind, front, _ in cards if kind == "cloze"]
    # a marked term and what it means: asked by the term, the student's remark after the mark left out
    assert found.get("Mass balance › Interference of ice flows: Stauchung?") == \
        "Zwei Ströme drücken gegeneinander.", found
    assert "Mass balance › Interference of ice flows: Zerrung?" in found, found
    assert found.get("Mass balance: what is “late snow”?") == "Seasonal surplus (not counted)", found
    # a marked statement opening its item: a cloze on it, under the label it hangs from
    assert "Mass balance › Ablation: ==Calving loses mass at the front== → that's why tidewater glaciers " \
           "retreat fast." in clozes, clozes
    # two sides of one kind set equal: neither side is what the other means
    assert not [front for front in found if "Summe" in front], found


def test_a_nested_item_names_the_label_it_hangs_from(tmp_path: Path) -> None:
    with indexed_vault(tmp_path, {"Geo/Rocks.md": ROCKS}) as engine:
        cards = cards_of(generate(engine, "flashcards", "Geo/Rocks.md")[1])
    fronts = [front for _, front, _ in cards]
    # the label's remark in parentheses makes it too long to frame a question: it is left out
    assert any(front.startswith("Cycle › cooling rock: ") for front in fronts), fronts
    # a cloze under a label of code names the label too
    assert any(front.startswith("Cycle › `granite` / `basalt`: ") and "==`x in rock`==" in front
               for front in fronts), fronts


def test_a_course_appointment_is_bookkeeping_whatever_it_is_on() -> None:
    assert is_bookkeeping_line("- [[Rocks]] – Praktikum Dünnschliffe (Polarisation) 11.06.")
    assert is_bookkeeping_line("- Übungsblatt 3 bis 20.05. abgeben")
    assert is_bookkeeping_line("- Lab: titration 03.12.")
    # a lecture's content after its date stays content
    assert not is_bookkeeping_line("Petrologie VL 2 (20.10.). Granite cools slowly deep in the crust, so its "
                                   "crystals grow large.")
    shape = note_shape(PLAN)
    assert shape.hub, shape


GLOSSARY = """# Optics

## Glossary
Focal length
: distance from the lens to the point where parallel rays meet

Refractive index
: ratio of the speed of light in vacuum to its speed in the medium
: higher in glass than in water
"""


def test_a_definition_list_is_read_as_terms_and_definitions(tmp_path: Path) -> None:
    assert definition_list("Focal length\n: distance to the focus\n: in metres") == \
        [("Focal length", "distance to the focus"), ("Focal length", "in metres")]
    assert definition_list("Focal length\nis the distance to the focus") == []  # prose over two lines
    assert definition_list(": a definition without its term") == []
    with indexed_vault(tmp_path, {"Physics/Optics.md": GLOSSARY}) as engine:
        cards = cards_of(generate(engine, "flashcards", "Physics/Optics.md")[1])
    backs = {back.rstrip(".") for _, _, back in cards}
    assert "Distance from the lens to the point where parallel rays meet" in backs, cards
    assert "Ratio of the speed of light in vacuum to its speed in the medium" in backs, cards
    assert not [card for card in cards if " : " in card[1] + card[2]], cards  # the list's marker never shows


PIGMENTS = """# Blattfarbstoffe

## Pigmente
- Carotinoide absorbieren v.a. **blaugrünes** Licht und schützen so das Chlorophyll vor zu viel Licht.

## Energie
- Die Lichtreaktion liefert das **ATP** für den Calvin-Zyklus im Stroma der Chloroplasten.
- Das Reduktionsmittel **NADPH** entsteht am Photosystem I in der Thylakoidmembran.
- Der Elektronenträger **FAD** wird im Citratzyklus der Zellatmung reduziert.

## Begriffe
- Chlorophyll: grüner Farbstoff der Thylakoide, absorbiert rotes und blaues Licht
- Stroma: Grundsubstanz des Chloroplasten, Ort des Calvin-Zyklus
- Thylakoid: Membransystem im Chloroplasten, Ort der Lichtreaktion
"""


def test_a_german_gap_that_is_no_noun_is_offered_no_abbreviation(tmp_path: Path) -> None:
    with indexed_vault(tmp_path, {"Bio/Blattfarbstoffe.md": PIGMENTS}) as engine:
        _, quiz = generate(engine, "quiz", "Bio/Blattfarbstoffe.md")
    for question in parse_quiz(quiz).questions:
        if question.options[question.correct_index] == "blaugrünes":  # "absorbieren v.a. … Licht": an adjective
            assert not {"ATP", "NADPH", "FAD"} & set(question.options), question


REFUNDS = """# Account

## Credits
- Gift credit **is not** refundable once it has been sent to another person.

## Buying
- You can **buy credit** in the account settings under the billing page.

## Gifts
- You can **send a gift** to another user from the same billing page.

## Licences
- You can **activate a license** from the community page after paying for it.
"""


def test_a_gap_takes_clauses_or_terms_never_both(tmp_path: Path) -> None:
    with indexed_vault(tmp_path, {"Help/Account.md": REFUNDS}) as engine:
        _, quiz = generate(engine, "quiz", "Help/Account.md")
    questions = parse_quiz(quiz).questions
    assert questions, quiz
    for question in questions:  # "Gift credit … refundable" takes no "buy credit", "send a gift"
        assert question.options[question.correct_index] != "is not", question
        assert "is not" not in question.options, question
