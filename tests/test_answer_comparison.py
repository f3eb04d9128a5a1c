"""Answers to a question comparing two things quote what the notes say of each (issue 25).

The two things are read out of the question ("difference between X and Y", "Unterschied zwischen X und Y",
"X vs. Y", "compare X and Y"), each found in the notes by its own name, word for word: "Council of the European
Union" does not name the "European Council". A passage naming both leads; a side no quote names yet gets its
best passage; the asking word ("Unterschied") is no part of what the passages must say.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from cognivault.answer.comparison import compared_sides, names_side, side_terms
from cognivault.answer.evidence import FALLBACK_ANALYZER
from cognivault.answer.extractive import answer_extractively
from cognivault.engine import Engine


@pytest.mark.parametrize(("question", "sides"), [
    ("Compare the European Council and the Council of the EU", ("the European Council", "the Council of the EU")),
    ("Unterschied elastischer und unelastischer Stoß?", ("elastischer", "unelastischer Stoß")),
    ("Kant vs. Utilitarismus – was ist der Unterschied?", ("Kant", "Utilitarismus")),
    ("What's the difference between SN1 and SN2 reactions?", ("SN1", "SN2 reactions")),
    ("Was ist der Unterschied zwischen Wetter und Klima?", ("Wetter", "Klima")),
    ("How does mitosis differ from meiosis?", ("mitosis", "meiosis")),
    ("How can I try out a different set of plugins and settings?", None),
    ("How is Obsidian Sync different from a Dropbox folder?", None),
    ("How do I copy and paste a table?", None),
])
def test_the_two_things_compared_are_read_out_of_the_question(question: str,
                                                              sides: tuple[str, str] | None) -> None:
    assert compared_sides(question) == sides


def test_a_side_is_named_word_for_word_in_its_order() -> None:
    side = side_terms(FALLBACK_ANALYZER, "European Council", "en")
    assert names_side(FALLBACK_ANALYZER, "the European Council sets the direction", side, "en")
    assert not names_side(FALLBACK_ANALYZER, "the Council of the European Union adopts laws", side, "en")


def test_a_side_is_not_named_by_another_word_of_its_stem() -> None:
    class Stemmer:  # reads "directive" and "directly" as one term, as a stemmer does
        @staticmethod
        def terms_of_word(word: str, lang: str | None) -> list[str]:
            return [word.casefold()[:6]] if len(word) > 2 else []

    side = side_terms(Stemmer, "directive", "en")
    assert names_side(Stemmer, "a directive must be transposed", side, "en")
    assert names_side(Stemmer, "both directives", side, "en")
    assert not names_side(Stemmer, "directly applicable in all member states", side, "en")


EU = {
    "EU/Institutions.md": "---\nlang: en\n---\n# EU Institutions\n\nThe European Union (EU) has seven institutions.\n\n"
                          "## The seven institutions\n1. European Parliament\n2. European Council\n"
                          "3. Council (of the EU)\n4. European Commission\n\n"
                          "## European Council\n\n### Composition\n"
                          "- the heads of state or government of the member states + its own President\n"
                          "- the High Representative takes part in its work\n\n"
                          "## Council of the European Union\n"
                          "(the Council of the EU, also called \"Council of Ministers\")\n\n"
                          "### Composition & configurations\n"
                          "- one minister per member state, authorised to commit their government\n"
                          "- legally one single Council, but it meets in 10 configurations depending on the topic\n"
                          "  - General Affairs Council (GAC)\n"
                          "  - Foreign Affairs Council (FAC) – chaired by the High Representative, not the presidency\n"
                          "  - Economic and Financial Affairs (ECOFIN)\n  - Agriculture and Fisheries (AGRIFISH)\n"
                          "- prepared by COREPER and lots of working parties\n\n"
                          "## Confusing names\n"
                          "> [!warning] Two councils\n"
                          "> - **European Council** = heads of state/government, sets the political direction\n"
                          "> - **Council of the European Union** = ministers, co-legislator with the EP\n",
}

COLLISIONS = {
    "Physik/Stöße.md": "---\nlang: de\n---\n# Impuls und Stöße\n\nImpuls: $p = mv$, Einheit kg·m/s\n\n"
                       "## Impulserhaltung\n- im abgeschlossenen System bleibt der Gesamtimpuls konstant\n\n"
                       "## Stoßarten\n| | elastisch | vollkommen unelastisch |\n|---|---|---|\n"
                       "| Impuls erhalten? | ja | ja |\n| kin. Energie erhalten? | ja | nein (→ Wärme) |\n"
                       "| nach dem Stoß | Körper trennen sich | bewegen sich gemeinsam weiter |\n\n"
                       "### vollk. unelastischer Stoß\n$$v' = \\frac{m_1 v_1 + m_2 v_2}{m_1 + m_2}$$\n"
                       "- Bsp: Wagen (2 kg) mit 3 m/s trifft ruhenden Wagen (1 kg), beide koppeln an\n\n"
                       "### elastischer Stoß (zentral)\n"
                       "- gleiche Massen, einer ruht → die Geschwindigkeiten werden getauscht (Newton-Pendel!)\n\n"
                       "> [!warning]\n"
                       "> Impuls ist IMMER erhalten, kinetische Energie nur beim elastischen Stoß!! (verwechselt)\n\n"
                       "- Rückstoß (Rakete): Gesamtimpuls vorher 0\n",
}

WEATHER = {
    "Geo/Wetter und Klima.md": "---\nlang: de\n---\n# Wetter und Klima\n\n## Wetter\n"
                               "- **Wetter** ist der Zustand der Atmosphäre an einem Ort zu einem Zeitpunkt.\n\n"
                               "## Klima\n"
                               "- **Klima** ist der mittlere Zustand der Atmosphäre über mindestens 30 Jahre.\n",
    "Geo/Monsun.md": "---\nlang: de\n---\n# Monsun\n#geo #klima\n\n"
                     "- Ursache: unterschiedliche Erwärmung von Land und Meer, das Klima Südasiens prägt er\n"
                     "- Unterschied zum Passat: jahreszeitlicher Richtungswechsel\n",
}


def test_each_of_two_councils_is_quoted_by_its_own_name(indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    answer = answer_extractively(indexed_notes(EU), "Compare the European Council and the Council of the EU")
    assert answer.answered
    assert "sets the political direction" in answer.text
    assert "co-legislator with the EP" in answer.text


def test_a_table_comparing_both_is_quoted_with_the_sentence_stating_the_difference(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    answer = answer_extractively(indexed_notes(COLLISIONS), "Unterschied elastischer und unelastischer Stoß?")
    assert answer.answered
    assert "bewegen sich gemeinsam weiter" in answer.text
    assert "kinetische Energie nur beim elastischen Stoß" in answer.text


def test_the_asking_word_is_no_part_of_what_is_compared(indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    answer = answer_extractively(indexed_notes(WEATHER), "Was ist der Unterschied zwischen Wetter und Klima?")
    assert answer.answered
    assert "Zustand der Atmosphäre an einem Ort zu einem Zeitpunkt" in answer.text
    assert "mittlere Zustand" in answer.text
    assert "Passat" not in answer.text


BEES = {
    "Imkern/Bienenvolk.md": "---\nlang: de\n---\n# Bienenvolk\n\n## Arbeiterin\n- unfruchtbares Weibchen\n"
                            "- lebt im Sommer ca. 6 Wochen\n- sammelt Nektar und Pollen, baut Waben\n\n"
                            "## Königin\nEinzige fruchtbare Biene im Volk, legt bis zu 2000 Eier am Tag, lebt 3–5 "
                            "Jahre.\n\n## Drohne\n- männliche Biene, aus unbefruchtetem Ei\n- hat keinen Stachel\n"
                            "- einzige Aufgabe: Begattung der Königin\n"
                            "- wird im Spätsommer aus dem Stock vertrieben (Drohnenschlacht)\n",
}

MANOEUVRES = {
    "Sailing/Manoeuvres.md": "---\nlang: en\n---\n# Sailing manoeuvres\n\n## Tacking\n"
                             "- the bow turns through the wind\n- command: \"Ready about?\" – \"Lee-ho!\"\n"
                             "- safe, the boat keeps some speed\n\n## Gybing\n- the stern turns through the wind\n"
                             "- the boom swings across fast, riskier than tacking\n"
                             "- command: \"Ready to gybe?\" – \"Gybe-ho!\"\n\n"
                             "## Heaving to\nBacking the jib to stop the boat, e.g. for a break or reefing.\n",
}

GRAINS = {
    "Backen/Getreide.md": "---\nlang: de\n---\n# Getreidesorten fürs Backen\n\n## Roggen\n"
                          "Roggenmehl bildet kaum ein Klebergerüst, weil seine Pentosane viel Wasser binden und das "
                          "Gluten nicht vernetzt. Roggenteige müssen deshalb mit Sauerteig versäuert werden, sonst "
                          "bleibt die Krume klitschig. Das Brot wird dunkel, kräftig im Geschmack und bleibt lange "
                          "frisch.\n\n"
                          "## Mahlgrade\nTypenzahl = Mineralstoffgehalt in mg pro 100 g Mehl. Je höher die Type, desto "
                          "mehr Schale ist im Mehl. Type 405 ist sehr hell, Type 1050 dunkel, Vollkornmehl hat keine "
                          "Type.\n\n## Dinkel\nDinkel ist mit dem Weizen verwandt und hat viel, aber empfindliches "
                          "Gluten. Dinkelteige überkneten leicht und reißen dann, deshalb kurz und langsam kneten und "
                          "eher weich führen. Das Brot schmeckt nussig und trocknet schneller aus.\n\n"
                          "## Lagerung\nMehl kühl, trocken und dunkel lagern, Vollkornmehl innerhalb weniger Monate "
                          "verbrauchen.\n",
}


@pytest.mark.parametrize(("notes", "question", "said", "unsaid"), [
    # "Begattung der Königin" in the drone's section says nothing of what the queen is; the heading says which is which
    (BEES, "Was ist der Unterschied zwischen Königin und Drohne?",
     ("männliche Biene", "Einzige fruchtbare Biene", "**Drohne**"), ()),
    # the section on gybing names tacking too: the one on tacking still is what the notes say of it
    (MANOEUVRES, "What is the difference between tacking and gybing?",
     ("the stern turns through the wind", "the bow turns through the wind"), ("Backing the jib",)),
    # each in a section of its own, the two things are quoted apart: no collage to refuse
    (GRAINS, "Was ist der Unterschied zwischen Roggen und Dinkel?",
     ("kaum ein Klebergerüst", "empfindliches"), ("Typenzahl",)),
])
def test_each_thing_compared_is_quoted_from_the_section_on_it(
        indexed_notes: Callable[[dict[str, str]], Engine], notes: dict[str, str], question: str,
        said: tuple[str, ...], unsaid: tuple[str, ...]) -> None:
    answer = answer_extractively(indexed_notes(notes), question)
    assert answer.answered
    assert all(text in answer.text for text in said)
    assert not any(text in answer.text for text in unsaid)
