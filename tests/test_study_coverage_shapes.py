"""Flashcards on shapes a student's note gives a card by its structure (issue 25): a glossary written in prose
("Term (gloss): sentence." paragraphs), a term in bold or highlighted said equal to its meaning, a heading over
"= its meaning", a counted list of rules with a highlighted detail nested under one, and a table row keyed by one
letter under its column's header."""

from __future__ import annotations

from pathlib import Path

from cognivault.vault.reading import names_terms
from test_study_extractive import cards_of, generate, indexed_vault

RHETORIC = """# Rhetoric

## Figures of speech

Anaphora (repetition at the start): The repetition of a word at the beginning of successive clauses.

Litotes: An understatement that affirms something by denying its opposite.

**Chiasmus** (reversed order): Two phrases whose key words appear in reversed order.

## Workshop on speeches

Example: The coach read out a speech by a former mayor of the town.

Result: Half the group found the anaphora in under a minute.

Step 2: Rewrite the opening without any figure of speech.
"""

HYDROLOGIE = """# Hydrologie

## Grundbegriffe

Abfluss: Wassermenge, die in einer bestimmten Zeit durch einen Flussquerschnitt fließt.

Einzugsgebiet: Gesamte Fläche, aus der einem Gewässer das Wasser zufließt.

## Geländetag

Treffpunkt: Brücke am Pegelhaus um acht Uhr morgens.

Beobachtung: Das Wasser stieg nach dem Gewitter sehr schnell an.
"""

TEXTILES = """# Textilkunde

## Bindungen

==Leinwandbindung== = einfachste Bindung, Kett- und Schussfaden kreuzen sich abwechselnd.
**Köperbindung** = Bindung mit schräg verlaufendem Grat, zum Beispiel bei Jeansstoff.

## Fasern

- ==Viskose== = aus Zellulose hergestellte Chemiefaser mit seidigem Glanz
- ==nicht heiß bügeln== – steht so auf dem Etikett der Jacke

## Walken
= Verdichten von Wollgewebe durch Feuchtigkeit, Wärme und Druck

## Materialliste
= Wolle, Leinen, Baumwolle

## Verbrauch
**Gesamt** = 120 m + 80 m
"""

SAFETY = """# Laborsicherheit

## Die 3 Grundregeln im Labor

1. Immer eine Schutzbrille tragen.
2. Nichts mit dem Mund pipettieren.
    - stattdessen einen ==Peleusball== benutzen
3. Abfälle getrennt entsorgen.

## Ablauf einer Titration

1. Bürette mit Maßlösung füllen.
2. Indikator zur Probe geben.
    1. bei ==Phenolphthalein== auf den Farbumschlag nach Rosa achten
3. Maßlösung langsam zutropfen lassen.
"""

TABLES = """# Nutrition basics

## Deficiencies

| Vitamin | Deficiency disease |
|---|---|
| C | Scurvy |
| D | Rickets |

## Lab sheet

| Nr | Sample |
|---|---|
| 1 | tap water from the kitchen |
| 2 | river water from the bridge |
"""


def _cards(tmp_path: Path, path: str, text: str) -> list[tuple[str, str, str]]:
    with indexed_vault(tmp_path, {path: text}) as engine:
        return cards_of(generate(engine, "flashcards", path)[1])


def test_a_glossary_in_prose_gives_a_card_per_term_and_a_report_labelled_alike_none(tmp_path: Path) -> None:
    cards = _cards(tmp_path / "a", "Rhetoric.md", RHETORIC)
    # a heading naming the kind of its terms asks for the term
    assert ("qa", "Rhetoric › Figures of speech: which figure is this: “An understatement that affirms something by "
            "denying its opposite”?", "Litotes") in cards, cards
    assert {"Anaphora", "Chiasmus"} <= {back for _, _, back in cards}, cards  # a term in bold too
    fronts = [front for _, front, _ in cards]
    assert not [front for front in fronts if "Example" in front or "Result" in front or "Step" in front], fronts
    # no gloss, but a heading naming the subject's terms; an outing's labels under another heading are no terms
    cards = _cards(tmp_path / "b", "Hydrologie.md", HYDROLOGIE)
    assert ("qa", "Grundbegriffe: Was bedeutet „Abfluss“?",
            "Wassermenge, die in einer bestimmten Zeit durch einen Flussquerschnitt fließt.") in cards, cards
    assert not [front for _, front, _ in cards if "Treffpunkt" in front or "Beobachtung" in front], cards
    assert names_terms("Zentrale Begriffe") and names_terms("Key terms") and not names_terms("Geländetag")


def test_a_marked_term_said_equal_to_its_meaning_is_a_card_a_sum_or_a_list_none(tmp_path: Path) -> None:
    cards = _cards(tmp_path, "Textilkunde.md", TEXTILES)
    # two lines with no blank line between: each its own card, not one merged cloze
    assert ("qa", "Bindungen: Was bedeutet „Leinwandbindung“?",
            "Einfachste Bindung, Kett- und Schussfaden kreuzen sich abwechselnd.") in cards, cards
    assert ("qa", "Bindungen: Was bedeutet „Köperbindung“?",
            "Bindung mit schräg verlaufendem Grat, zum Beispiel bei Jeansstoff.") in cards, cards
    assert ("qa", "Fasern: Was bedeutet „Viskose“?", "Aus Zellulose hergestellte Chemiefaser mit seidigem Glanz.") \
        in cards, cards
    assert not [front for _, front, _ in cards if "bügeln" in front], cards  # after a dash: the student's remark
    # the heading is the term: asked in its note, not "Walken: … „Walken“"
    assert ("qa", "Textilkunde: Was bedeutet „Walken“?",
            "Verdichten von Wollgewebe durch Feuchtigkeit, Wärme und Druck.") in cards, cards
    fronts = [front for _, front, _ in cards]
    assert not [front for front in fronts if "Materialliste" in front or "Gesamt" in front], fronts


def test_a_counted_rule_list_keeps_a_highlighted_detail_nested_under_a_rule(tmp_path: Path) -> None:
    cards = _cards(tmp_path, "Laborsicherheit.md", SAFETY)
    assert ("qa", "Laborsicherheit: Nenne die 3 Grundregeln im Labor.",
            "Immer eine Schutzbrille tragen; Nichts mit dem Mund pipettieren (stattdessen einen Peleusball "
            "benutzen); Abfälle getrennt entsorgen.") in cards, cards
    # a numbered sub-step is a step of its own: no part of the step above it
    assert not [back for _, _, back in cards if "Indikator zur Probe geben (" in back], cards


def test_a_row_keyed_by_one_letter_is_asked_with_its_column_header(tmp_path: Path) -> None:
    cards = _cards(tmp_path, "Nutrition.md", TABLES)
    assert ("qa", "Deficiencies: “Vitamin C” – Deficiency disease?", "Scurvy") in cards, cards
    # a header that is no name ("Nr") leaves the key as it is
    assert not [front for _, front, _ in cards if "Nr 1" in front], cards
