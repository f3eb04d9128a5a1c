"""Which block of a note answers, by the shape of the note (issue 25: help answers on unseen questions).

A note's opening, the text under its title before the first heading, is headed by the title as a section is by its
heading: it answers what the note is about where a section only shares the question's words in its heading (but a
question asking how to do a thing is answered by the steps). One row of a table answers without the rows beside it,
which share only the header's words. A procedure too long to be one block is quoted with its steps, not with its first
step alone. Where the first quote states all the question asks about, another note saying the same words adds text,
not an answer.
"""

from __future__ import annotations

from collections.abc import Callable

from cognivault.answer.extractive import answer_extractively
from cognivault.engine import Engine

SUBSTEPS = "".join(f"{number}. {step}\n   1. {detail}\n" for number, (step, detail) in enumerate([
    ("Point the telescope at a bright star near the zenith and centre it in the eyepiece.",
     "Wait until the star image stops moving after each touch of the mount."),
    ("Defocus the star until you see a ring with the shadow of the secondary mirror in it.",
     "A ring that is not round means the tube is still cooling down."),
    ("Turn one of the three collimation screws of the primary mirror by a quarter turn.",
     "Turn it back if the shadow moves away from the centre of the ring."),
    ("Recentre the star, since every turn of a screw moves the image a little.",
     "Use the slow-motion controls of the mount, never the tube itself."),
    ("Repeat the quarter turns with the other two screws until the shadow sits in the middle.",
     "Check the ring at the highest magnification you have."),
    ("Tighten the three locking screws evenly and check the ring once more.",
     "Write the date in the maintenance log next to the door."),
], start=1))

NOTES = {
    "Club/Observatory dome.md": "The observatory dome is for members with a night key only: the club board hands "
    "the night keys out after a safety briefing.\n\n## Open the observatory dome\n\n"
    "To open the observatory dome for members:\n\n1. Switch on the dome power at the door.\n"
    "2. Release the shutter lock.\n3. Turn the dome with the hand wheel until the slit faces south.\n",
    "Club/Membership fees.md": "## Fees\n\nThe club compares its two memberships below:\n\n"
    "| | Basic members | Patron members |\n|---|---|---|\n| Yearly fee | 40 EUR | 120 EUR |\n"
    "| Telescope nights | 4 | unlimited |\n| Guest passes | none | 2 |\n",
    "Club/Open nights.md": "## Open nights\n\nOn open nights the club shows the sky to everyone. Patron members can "
    "bring any number of guests then, and their guest passes are not needed.\n",
    "Club/Collimation.md": "## Collimate the telescope\n\nIf the stars look like little comets, the mirrors are out "
    f"of line and you will want to perform the following steps.\n\n{SUBSTEPS}",
    "Verein/Beiträge.md": "## Beiträge\n\nDer Verein vergleicht seine zwei Mitgliedschaften:\n\n"
    "| | Basis | Förder |\n|---|---|---|\n| Jahresbeitrag | 40 EUR | 120 EUR |\n| Teleskopnächte | 4 | unbegrenzt |\n"
    "| Gästekarten | keine | 2 |\n",
}

SCHRITTE = "".join(f"{number}. {step}\n   1. {detail}\n" for number, (step, detail) in enumerate([
    ("Stecke die Sonde senkrecht zehn Zentimeter tief in den Boden neben der Markierung.",
     "Meide Steine und Wurzeln, sie verfälschen den Wert."),
    ("Warte dreißig Sekunden, bis sich die Anzeige des Messgeräts nicht mehr ändert.",
     "Bei Frost ist keine Messung möglich, brich dann ab."),
    ("Lies den Wert in Volumenprozent ab und trage ihn in das Messprotokoll ein.", "Schreibe die Uhrzeit dazu."),
    ("Wiederhole die Messung an den vier Ecken der Probefläche.", "Nimm für jede Ecke eine neue Zeile."),
    ("Reinige die Sonde mit Wasser und trockne sie mit einem Tuch ab.", "Lege sie zurück in den grünen Koffer."),
], start=1))

NOTIZEN = {
    "Recht/Kaufvertrag.md": "Ein Kaufvertrag kommt durch zwei übereinstimmende Willenserklärungen zustande, "
    "Angebot und Annahme; für Alltagsgeschäfte genügt dabei schon schlüssiges Verhalten.\n\n"
    "## Pflichten aus dem Kaufvertrag\n\nAus dem Kaufvertrag muss der Verkäufer die Sache übergeben und "
    "übereignen, der Käufer muss den Kaufpreis zahlen.\n",
    "Recht/Glossar.md": "## Kaufvertrag\n\nDer Kaufvertrag ist im BGB in § 433 geregelt und der häufigste "
    "Vertrag im Alltag.\n\n## Werkvertrag\n\nBeim Werkvertrag schuldet der Unternehmer einen Erfolg.\n",
    "Ökologie/Bodenfeuchte.md": "## Bodenfeuchte messen\n\nFür die Bodenfeuchte im Schulgarten brauchst du das "
    f"Messgerät aus dem Geräteraum und gehst dann so vor, wie es hier beschrieben ist.\n\n{SCHRITTE}",
}


def test_the_opening_answers_what_the_note_is_about(indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    engine = indexed_notes(NOTES)
    who = answer_extractively(engine, "Who can use the observatory dome?")
    assert who.answered and who.text.startswith("The observatory dome is for members with a night key only")
    # asked how, the steps answer, not the opening
    how = answer_extractively(engine, "How do I open the observatory dome?")
    assert how.answered and "1. Switch on the dome power" in how.text and "night key" not in how.text


def test_die_einleitung_beantwortet_wovon_die_notiz_handelt(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    kauf = answer_extractively(indexed_notes(NOTIZEN), "Was braucht man für einen Kaufvertrag?")
    assert kauf.answered and kauf.text.startswith("Ein Kaufvertrag kommt durch zwei übereinstimmende")


def test_one_row_answers_without_the_rows_beside_it(indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    engine = indexed_notes(NOTES)
    nights = answer_extractively(engine, "How many telescope nights does the Patron membership give?")
    assert nights.answered and "| Telescope nights | 4 | unlimited |" in nights.text
    assert "Yearly fee" not in nights.text and "Guest passes" not in nights.text
    fee = answer_extractively(engine, "Wie hoch ist der Jahresbeitrag der Förder-Mitgliedschaft?")
    assert fee.answered and "| Jahresbeitrag | 40 EUR | 120 EUR |" in fee.text and "Gästekarten" not in fee.text
    # a question comparing what the columns are still gets the rows that compare them
    both = answer_extractively(engine, "What is the difference between the Basic and the Patron membership?")
    assert both.answered and "Yearly fee" in both.text and "Guest passes" in both.text


def test_a_long_procedure_is_quoted_with_its_steps(indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    engine = indexed_notes(NOTES)
    steps = answer_extractively(engine, "How do I collimate the telescope when stars look like comets?")
    assert steps.answered and "following steps" in steps.text
    assert "1. Point the telescope" in steps.text and "6. Tighten the three locking screws" in steps.text


def test_ein_langes_verfahren_wird_mit_seinen_schritten_zitiert(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    messen = answer_extractively(indexed_notes(NOTIZEN), "Wie messe ich die Bodenfeuchte im Schulgarten?")
    assert messen.answered and "1. Stecke die Sonde" in messen.text and "5. Reinige die Sonde" in messen.text


def test_another_note_saying_the_same_words_does_not_pad_a_full_answer(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    engine = indexed_notes(NOTES)
    passes = answer_extractively(engine, "How many guest passes does a Patron member have?")
    assert passes.answered and "| Guest passes | none | 2 |" in passes.text and "open nights" not in passes.text
