"""A list item's label over a whole statement, and a lecturer naming a term after what it names, on cards (issue 25):
"Maldives: most islands sit less than 1 m above sea level" and "Salzsprengung: Salzkristalle wachsen in Rissen …"
are asked as "Maldives?", "Salzsprengung?", not as what the label means; "… and that kind of circulation we call
thermohaline circulation", "diesen Vorgang bezeichnen wir als Okklusion" give a cloze on the term named, without the
speaker's label ("Dr. Brandt:"), and "Ekman transport is one consequence of it" gives no card.
Notes of our own, keyword-indexed for real, generated with no model."""

from __future__ import annotations

from pathlib import Path

from cognivault.study.extract import facts_of
from cognivault.study.sources import Source
from cognivault.vault.reading import naming_in, said_plainly, subject_then_verb
from test_study_extractive import cards_of, generate, indexed_vault

REEFS = """# Coral Reefs

## Key places
- Maldives: most islands sit less than 1 m above sea level
- Belize: the barrier reef protects mangroves and seagrass beds behind it
- Red Sea: corals there tolerate water up to 32 °C

## Threats
- Ocean acidification: lower pH makes it harder for corals to build skeletons
- Bleaching: the loss of the symbiotic algae from the coral tissue

## Terms
- Atoll: a ring-shaped reef around a central lagoon
- Polyp: the small soft-bodied animal that builds the reef
"""

WUESTEN = """# Wüsten

## Verwitterung
- Temperaturverwitterung: große Unterschiede zwischen Tag und Nacht sprengen das Gestein
- Salzsprengung: Salzkristalle wachsen in Rissen und weiten sie auf

## Begriffe
- Wendekreiswüste: Wüste im Bereich der absteigenden Luft der Hadley-Zelle
- Küstenwüste: Wüste an einer Küste mit kaltem Meeresstrom
"""

CURRENTS = """# Lecture 04 – Ocean Currents (Transcript)

[00:00] Prof. Lindqvist: Okay, welcome back everyone. Today we talk about how the ocean moves heat around.

[01:12] Prof. Lindqvist: The deep circulation is driven by differences in temperature and salinity, and that kind \
of circulation we call thermohaline circulation.

[03:40] Prof. Lindqvist: Because of the Earth's rotation the net transport is at ninety degrees to the wind, and \
this is what's known as Ekman transport.

[06:05] Student: Is that the same as the Coriolis effect?

[06:10] Prof. Lindqvist: Not quite. The Coriolis effect is the apparent deflection of moving objects on a rotating \
planet. Ekman transport is one consequence of it.
"""

FRONTEN = """# Vorlesung 05 – Wetterfronten (Transkript)

[05:30] Dr. Brandt: Kaltfronten sind schneller als Warmfronten. Irgendwann holt die Kaltfront die Warmfront ein, \
und diesen Vorgang bezeichnen wir als Okklusion.

[07:55] Studentin: Kann man eine Okklusion auf der Wetterkarte erkennen?

[09:40] Dr. Brandt: Der Bereich warmer Luft zwischen den beiden Fronten, das ist der sogenannte Warmsektor.
"""


def _cards(tmp_path: Path, path: str, text: str) -> list[tuple[str, str, str]]:
    with indexed_vault(tmp_path, {path: text}) as engine:
        return cards_of(generate(engine, "flashcards", path, count=20)[1])


def test_a_subject_and_its_finite_verb_state_something_a_noun_phrase_defines() -> None:
    for stated in ("die ältesten Inseln liegen im Nordwesten", "Enzyme sättigen bei hohem [S]",
                   "große Unterschiede zwischen Tag und Nacht sprengen das Gestein",
                   "Schmelzwasser am Grund lässt das Eis gleiten", "Nährstoffe sind verbraucht"):
        assert subject_then_verb(stated, "de"), stated
    for defined in ("Bereich des Gletschers, in dem mehr Schnee fällt", "Vom Gletscher abgelagertes Gesteinsmaterial",
                    "kleinste bedeutungstragende Einheit der Sprache", "Grenze zwischen Nähr- und Zehrgebiet",
                    "Inhalt an die heutige Notiz anhängen oder voranstellen", "Ansichten erstellen, bearbeiten",
                    "zeigt Eigenschaften oben in der Notiz an",
                    "vom Wind abgelagerten Sand", "der Teil nicht sichtbar", "Lehre vom Satzbau"):
        assert not subject_then_verb(defined, "de"), defined
    for stated in ("the oldest islands lie furthest from the hotspot", "most islands sit less than 1 m above sea level",
                   "lower pH makes it harder for corals", "the barrier reef protects mangroves",
                   "reefs need 10–15 years without heat stress", "some individuals cross the Pacific nonstop",
                   "most cases end with a negotiated settlement", "on the Big Island the volcanoes are still active",
                   "in the older islands, the lava is weathered",
                   "for over a decade the EU and the US were in conflict over import rules"):
        assert subject_then_verb(stated, "en"), stated
    for defined in ("the part of the cell that is filled with fluid", "a ring-shaped reef around a central lagoon",
                    "symbiotic algae living in coral tissue", "the apparent deflection of moving objects",
                    "species endemic to one island", "patterns found in nature", "the gas giants Jupiter and Saturn",
                    "two or more atoms bonded together", "a reef separated from the coast by a deep lagoon",
                    "numbers divisible only by 1 and themselves", "debt securities issued by governments",
                    "selling goods abroad below their home price",
                    "at the mouth of a river where sediment is deposited", "adds an `id` property to each note",
                    "studies how speakers use language"):
        assert not subject_then_verb(defined, "en"), defined


def test_a_label_over_a_statement_is_asked_plainly_a_term_over_its_definition_by_its_meaning(tmp_path: Path) -> None:
    fronts = [front for _, front, _ in _cards(tmp_path / "en", "Ozean/Coral Reefs.md", REEFS)]
    for label in ("Maldives", "Belize", "Red Sea", "Ocean acidification"):
        assert not [front for front in fronts if f"what is “{label}”" in front], fronts
        assert any(front.endswith(f"{label}?") for front in fronts), (label, fronts)
    assert "Terms: what is “Atoll”?" in fronts and "Threats: what is “Bleaching”?" in fronts, fronts
    fronts = [front for _, front, _ in _cards(tmp_path / "de", "Geo/Wüsten.md", WUESTEN)]
    assert not [front for front in fronts if "„Salzsprengung“" in front or "„Temperaturverwitterung“" in front]
    assert any(front.endswith("Salzsprengung?") for front in fronts), fronts
    assert "Begriffe: Was bedeutet „Küstenwüste“?" in fronts, fronts


def test_a_label_over_a_statement_is_still_a_label_a_quiz_may_ask_for() -> None:
    source = Source("c", "Ozean/Coral Reefs.md", "Coral Reefs", ("Coral Reefs",), "h", text=REEFS, lang="en")
    items = {fact.term: fact for fact in facts_of(source) if fact.kind == "item"}
    assert items["Maldives"].stated and not items["Maldives"].structural  # (a structural label is no quiz option)
    assert not items["Atoll"].stated and not items["Bleaching"].stated


def test_a_naming_after_what_it_names_is_read_with_its_pointing_words() -> None:
    found = naming_in("The big current systems in each basin, those we call gyres", "en")
    assert found is not None and found.said_before
    sentence = "Along some coasts cold water comes up, and that kind of process is called upwelling"
    found = naming_in(sentence, "en")
    assert found is not None and sentence[found.start:found.end] == "upwelling"
    sentence = "Die Kaltfront holt die Warmfront ein, und diesen Vorgang bezeichnen wir als Okklusion"
    found = naming_in(sentence, "de")
    assert found is not None and sentence[found.start:found.end] == "Okklusion"
    assert naming_in("That theory is called into question by many", "en") is None
    assert said_plainly("[00:45] Dr. Brandt: Das nennt man eine Warmfront.", "de") == "Das nennt man eine Warmfront."
    assert said_plainly("Prof. Lindqvist: So the surface currents are driven by wind.", "en").startswith("The surface")
    assert said_plainly("Thiazides: dry cough, low potassium.", "en").startswith("Thiazides:")  # no speaker


def test_a_transcript_names_its_terms_in_clozes_without_speakers_or_back_pointers(tmp_path: Path) -> None:
    cards = _cards(tmp_path / "en", "Ozean/Lecture 04 - Ocean Currents (Transcript).md", CURRENTS)
    texts = [front for kind, front, _ in cards if kind == "cloze"]
    assert any("==thermohaline circulation==" in text for text in texts), cards
    assert any("==Ekman transport==" in text for text in texts), cards
    assert not [card for card in cards if "Lindqvist" in card[1] or "consequence of it" in card[2]], cards
    cards = _cards(tmp_path / "de", "Meteo/Vorlesung 05 - Wetterfronten (Transkript).md", FRONTEN)
    texts = [front for kind, front, _ in cards if kind == "cloze"]
    assert any("==Okklusion==" in text for text in texts) and any("==Warmsektor==" in text for text in texts), cards
    assert not [card for card in cards if "Brandt" in card[1]], cards
