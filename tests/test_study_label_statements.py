"""A list item's label with a statement about it, and a lecture's sentence that only looks like "X is …", are not
asked as what the label or X is (issue 25): "Belize: the reef is protected …" under "Regions", "Gobi: die Winter
sind dort extrem kalt" under "Beispiele", "What's left is the core", "The Sun is about 4.6 billion years old",
"Iron is the end, because …".
Notes of our own, keyword-indexed for real, generated with no model."""

from __future__ import annotations

from pathlib import Path

from cognivault.study.list_wording import item_question
from cognivault.vault.reading import gives_a_reason, gives_an_estimate, is_free_relative, opens_with_clause
from test_study_extractive import cards_of, generate, indexed_vault

RIVERS = """# Rivers

## Great rivers
- Amazon: the river carries a fifth of all fresh water reaching the oceans
- Nile: the floods were predictable for thousands of years
- Mekong: the delta feeds millions of people
- Danube: it flows through ten countries

## Seasons
The water level changes over the year.

- Spring flood: the water rises every April after the snow melts

## Terms
- Delta: a landform of sediment where a river meets the sea
- Meander: a loop in the channel of a river
"""

WAELDER = """# Wälder

## Beispiele
- Taiga: die Winter sind dort lang und kalt
- Amazonas: manche Bäume werden über 50 Meter hoch
- Białowieża: der Wald steht seit Jahrhunderten unter Schutz

## Begriffe
- Kronendach: die oberste Schicht der Baumkronen eines Waldes
- Totholz: abgestorbenes Holz, das im Wald liegen bleibt
"""

TRANSCRIPT = """# Deserts lecture transcript

So, deserts. A desert is a region that receives less than 250 millimetres of rain a year. What's left after the \
water evaporates is a salt flat, a crust of minerals. The Sahara is about nine million square kilometres in size \
and it keeps growing. Water is the problem, because it evaporates before it soaks in. An oasis is a place where \
groundwater reaches the surface.
"""


def _fronts(tmp_path: Path, path: str, text: str) -> list[str]:
    with indexed_vault(tmp_path, {path: text}) as engine:
        return [front for _, front, _ in cards_of(generate(engine, "flashcards", path, count=20)[1])]


def test_a_label_with_a_sentence_about_it_is_not_asked_as_a_meaning(tmp_path: Path) -> None:
    fronts = _fronts(tmp_path / "en", "Geo/Rivers.md", RIVERS)
    assert not [front for front in fronts if "what is “Nile”" in front or "what is “Amazon”" in front], fronts
    assert any(front.endswith("Nile?") for front in fronts), fronts
    assert not [front for front in fronts if "what is “Spring flood”" in front], fronts  # a list of one item too
    assert "Terms: what is “Delta”?" in fronts, fronts  # "a landform of sediment …" still defines
    fronts = _fronts(tmp_path / "de", "Geo/Wälder.md", WAELDER)
    assert not [front for front in fronts if "Was bedeutet „Taiga“" in front or "„Amazonas“" in front], fronts
    assert "Begriffe: Was bedeutet „Kronendach“?" in fronts, fronts  # "die oberste Schicht …" defines


def test_a_subject_and_its_verb_open_a_clause_a_defining_phrase_does_not() -> None:
    assert opens_with_clause("die Winter sind dort lang und kalt", "de")
    assert opens_with_clause("die Gletscherfront bricht regelmäßig ab", "de")
    assert opens_with_clause("manche Bäume werden über 50 Meter hoch", "de")
    assert opens_with_clause("the reef is protected as a World Heritage site", "en")
    assert not opens_with_clause("die Lücke zwischen zwei Myelinsegmenten", "de")
    assert not opens_with_clause("die oberste Schicht der Baumkronen", "de")
    assert not opens_with_clause("der Teil nicht sichtbar", "de")
    assert not opens_with_clause("the part of the cell that is filled with fluid", "en")
    assert not opens_with_clause("a loop in the channel of a river", "en")


def test_a_heading_naming_examples_asks_no_meaning_and_a_term_inside_a_word_is_not_named_again() -> None:
    assert item_question("Gobi", "die Winter sind dort extrem kalt", "Beispiele", "Wüsten", True).front \
        == "Beispiele: Gobi?"
    # "light" inside "sunlight" does not name the factor again: it is asked back from its description
    assert item_question("Light", "the algae need sunlight", "Factors", "Coral", False).front \
        == "Coral › Factors: which factor is this: “the algae need sunlight”?"


def test_a_lecture_sentence_on_what_is_left_or_how_old_is_no_definition(tmp_path: Path) -> None:
    fronts = _fronts(tmp_path, "Geo/Deserts lecture transcript.md", TRANSCRIPT)
    assert "What is a desert?" in fronts and "What is an oasis?" in fronts, fronts
    assert not [front for front in fronts if "what's left" in front.casefold() or "Sahara" in front
                or "water" in front], fronts
    assert is_free_relative("Was übrig bleibt", "de") and not is_free_relative("Der Rest", "de")
    assert gives_an_estimate("ungefähr 500.000 Jahre alt", "de") and not gives_an_estimate("ein Vulkan", "de")
    assert gives_a_reason("das Ende, weil die Fusion Energie kostet", "de")
    assert not gives_a_reason("ein Metall, das rostet", "de")
