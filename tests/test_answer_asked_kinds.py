"""Which passage of a note answers: the list a question asking for *kinds* asks for, no modal verb's match, no other
note's passage sharing only the words the lead already states (issue 25).

"What kinds of items can I add bookmarks to?" is answered by the list "You can add bookmarks to the following:"
announces, not by the section "Add a bookmark" that shares the question's words ("kinds" is in no word of the
list); "would", "could", "might" are no topic of a question ("Why *would* I use …?" matched "this would be
equivalent …"); where the lead's own words state all the question asks, another note saying the same words says them
of something else and is not quoted after it. A longer paragraph ending in ":" leads in to its list too: the list is
quoted under it, never the paragraph without its items.
"""

from __future__ import annotations

from collections.abc import Callable

from cognivault.answer.evidence import question_concepts
from cognivault.answer.extractive import answer_extractively
from cognivault.engine import Engine

HIVE = """# Hive inspection

A hive inspection checks the health of a bee colony. Plan one every week in spring.

You can inspect the following:

- Brood frames
- Honey supers
- Queen cells
- Varroa boards

## Add a frame

When you inspect a hive and add a frame, check the frame for wax moth first.

Adding a frame gives the colony room for honey.
"""
STOCK = """# Stockkontrolle

Eine Stockkontrolle prüft die Gesundheit eines Bienenvolks. Plane im Frühling jede Woche eine ein.

Du kannst folgende Teile kontrollieren:

- Brutwaben
- Honigräume
- Weiselzellen
- Varroa-Windeln

## Eine Wabe hinzufügen

Wenn du einen Stock kontrollierst und eine Wabe hinzufügst, prüfe die Wabe zuerst auf Wachsmotten.

Eine Wabe hinzuzufügen gibt dem Volk Platz für Honig.
"""
GLAZES = """# Glazes

Glazes melt onto the pot in the second firing and seal the clay.

Potters mix the following:

- Celadon glazes
- Tenmoku glazes
- Ash glazes

## Mix a glaze

To mix a glaze:

1. Weigh the dry powders.
2. Stir them into water.
3. Sieve it twice so no lumps reach the pot.
"""
WINTERING = "# Wintering\n\nIf you close the hive for winter, the queen stops laying and the brood dies out; the " \
            "cluster keeps warm around her until February.\n"
SMOKER = "# Smoker\n\nA smoker calms the bees before you open the hive. Light it with dry pine needles.\n\n" \
         "In winter, close the smoker lid tight: wax moth brood in the old fuel dies off, and the hive tool stays " \
         "clean.\n"
KILN = """# Kiln firing

## Bisque firing

Every pot is fired twice: the bisque firing hardens the raw clay so it can be glazed without falling apart, and it
burns out what the clay carries from the ground. Because organic matter turns to gas on the way up, the bisque runs
slowly through the following stages:

- Drying up to 120 °C
- Burning out organics up to 600 °C
- Quartz inversion at 573 °C
- Sintering up to 950 °C

## Glaze firing

The glaze firing runs hotter and faster.
"""
BRENNEN = """# Ofenbrand

## Schrühbrand

Jedes Gefäß wird zweimal gebrannt: Der Schrühbrand härtet den rohen Ton, damit er glasiert werden kann, ohne zu
zerfallen, und er brennt aus, was der Ton aus dem Boden mitbringt. Weil organische Stoffe beim Aufheizen zu Gas
werden, durchläuft der Schrühbrand langsam die folgenden Phasen:

- Trocknen bis 120 °C
- Ausbrennen der organischen Stoffe bis 600 °C
- Quarzsprung bei 573 °C
- Sintern bis 950 °C

## Glasurbrand

Der Glasurbrand läuft heißer und schneller.
"""
NOTES = {"en/Kiln firing.md": KILN, "de/Ofenbrand.md": BRENNEN, "en/Hive inspection.md": HIVE,
         "de/Stockkontrolle.md": STOCK, "en/Glazes.md": GLAZES, "en/Wintering.md": WINTERING, "en/Smoker.md": SMOKER}


def test_a_question_asking_for_kinds_is_answered_by_the_announced_list(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    engine = indexed_notes(NOTES)
    hive = answer_extractively(engine, "What kinds of things can I inspect in a hive?")
    assert hive.answered and "You can inspect the following:\n\n- Brood frames" in hive.text
    assert "Varroa boards" in hive.text and "wax moth" not in hive.text
    stock = answer_extractively(engine, "Welche Arten von Teilen kann ich bei der Stockkontrolle kontrollieren?")
    assert stock.answered and stock.confidence != "low"
    assert "Du kannst folgende Teile kontrollieren:\n\n- Brutwaben" in stock.text and "Wachsmotten" not in stock.text
    glazes = answer_extractively(engine, "Which types of glazes do potters mix?")
    assert glazes.answered and "- Celadon glazes" in glazes.text and "Ash glazes" in glazes.text
    assert "Sieve it twice" not in glazes.text  # numbered items are steps, no kinds


def test_a_modal_verb_is_no_topic_of_the_question(indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    engine = indexed_notes(NOTES)
    for question in ("Why would I inspect a hive?", "Could I mix a glaze twice?", "Might the brood die out?",
                     "Must I close the smoker lid?"):
        words = {concept.word.casefold() for concept in question_concepts(engine, question, "en")}
        assert words and not words & {"would", "could", "might", "must"}, question


def test_no_other_note_sharing_only_what_the_lead_states_follows_it(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    engine = indexed_notes(NOTES)
    brood = answer_extractively(engine, "What happens to the brood if I close the hive in winter?")
    assert brood.answered and "the queen stops laying and the brood dies out" in brood.text
    assert "smoker lid" not in brood.text
    # a note adding a part of the question the lead does not state is still quoted
    both = answer_extractively(engine, "When does the queen stop laying, and what do I light the smoker with?")
    assert "the queen stops laying" in both.text and "dry pine needles" in both.text


def test_a_long_paragraph_leading_in_to_a_list_is_quoted_with_its_items(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    engine = indexed_notes(NOTES)
    stages = answer_extractively(engine, "Which stages does the bisque firing run through?")
    assert "runs\nslowly through the following stages:\n\n- Drying up to 120 °C" in stages.text
    assert "Sintering up to 950 °C" in stages.text
    phasen = answer_extractively(engine, "Welche Phasen durchläuft der Schrühbrand?")
    assert "die folgenden Phasen:\n\n- Trocknen bis 120 °C" in phasen.text and "Sintern bis 950 °C" in phasen.text


TEMPERING = """# Wärmebehandlung

## Härten

1. Austenitisieren: auf etwa 850 °C erwärmen
2. Halten, bis das Gefüge durchgewärmt ist
3. Abschrecken in Wasser oder Öl
4. Anlassen auf 200 bis 600 °C

## Glühen

Glühen baut Spannungen im Gefüge ab.
"""
MORTAR = """# Mixing mortar

Mortar binds the bricks of a wall.

1. Pour three parts of sand into the tub
2. Add one part of cement and mix it dry
3. Add water slowly until the mix holds its shape
"""


def test_a_question_asking_for_the_steps_is_not_refused_for_a_word_the_list_does_not_say(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    # "Schritte"/"steps" frame what is asked, a list in order: a vault listing the steps without the word was
    # refused ("Zu “Schritte” steht nichts im Vault")
    engine = indexed_notes({"Werkstoffe/Wärmebehandlung.md": TEMPERING, "Garden/Mortar.md": MORTAR})
    german = answer_extractively(engine, "Welche Schritte umfasst das Härten?")
    assert german.answered and "Abschrecken" in german.text, german.text
    english = answer_extractively(engine, "What are the steps of mixing mortar?")
    assert english.answered and "Add one part of cement" in english.text, english.text
