"""Flashcards and quiz questions from lecture transcripts: what the lecturer names, counts off, stresses or answers
a student, written down without timestamps, fillers and hesitations (issue 25)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cognivault.study.sources import GenerationError
from cognivault.study.spoken import lecture_subject
from cognivault.vault.reading import key_point, naming_in, said_plainly, spoken_list
from test_study_extractive import cards_of, generate, indexed_vault

CELL_CYCLE = """---
tags: [bio, transcript]
---
# Lecture 04 – Cell cycle and mitosis (transcript)

**[00:00]** Alright, can everyone hear me at the back? Good. So, today we look at how a cell divides.

**[04:10]** Interphase has three phases: first G1, where the cell grows, then S phase, where the DNA is replicated, \
and finally G2, where the cell prepares for division. Okay? [→ G0 = resting state, not in the slides]

**[08:45]** Now, a checkpoint is a control point where the cell checks whether it may go on. The most important one \
is at the end of G1, we call this the restriction point.

**[11:00]** Next, proto-oncogenes, ending in -onc. They control growth. Typical effects: faster growth, \
more division, longer survival.

**[12:20]** [student question: can it repair itself?] Good question. Yes, the cell repairs most damage in G1.

**[15:00]** Mitosis, okay, there are four phases: prophase, metaphase and anaphase.

**[21:40]** And the key point for the exam is this: mitosis produces two identical daughter cells, meiosis \
produces four haploid cells.

**[24:05]** My dog had puppies last week, um, five of them, right?
"""

ELASTICITY = """# VL 05 – Preiselastizität der Nachfrage (Mitschrift)

Also, guten Morgen, äh, wir machen heute weiter mit der Nachfrage, ne?

Die Preiselastizität der Nachfrage ist, äh, das Verhältnis aus der prozentualen Mengenänderung und der \
prozentualen Preisänderung.

Jetzt unterscheiden wir drei Fälle: erstens elastische Nachfrage, zweitens unelastische Nachfrage, und drittens \
die einheitselastische Nachfrage.

Wenn die Menge überhaupt nicht auf den Preis reagiert, das nennt man vollkommen unelastisch.

Merken Sie sich: bei unelastischer Nachfrage steigt der Umsatz, wenn der Preis steigt.
"""


def test_a_transcripts_namings_lists_questions_and_key_points_are_cards(tmp_path: Path) -> None:
    with indexed_vault(tmp_path, {"Bio/Cell cycle.md": CELL_CYCLE}) as engine:
        cards = cards_of(generate(engine, "flashcards", "Bio/Cell cycle.md")[1])
    assert ("qa", "Cell cycle and mitosis: interphase has three phases – which?",
            "First G1, where the cell grows, then S phase, where the DNA is replicated, and finally G2, where the "
            "cell prepares for division.") in cards, cards
    # "we call this X": a cloze on the name in the sentence that says what it names
    assert ("cloze", "The most important one is at the end of G1, we call this the ==restriction point==.", "") \
        in cards, cards
    # "Typical effects: …" of what the paragraph opened with
    assert ("qa", "Cell cycle and mitosis › Proto-oncogenes: typical effects?",
            "Faster growth, more division, longer survival.") in cards, cards
    # a student's question pointing back ("it") framed by the topic it was asked on, the praise left out
    assert ("qa", "Proto-oncogenes: can it repair itself?", "Yes, the cell repairs most damage in G1.") in cards, cards
    assert ("qa", "Cell cycle and mitosis: the key point?",
            "Mitosis produces two identical daughter cells, meiosis produces four haploid cells.") in cards, cards
    said = " ".join(front + back for _, front, back in cards)
    assert "[0" not in said and "Okay" not in said and "Good question" not in said and "G0" not in said, cards
    # "four phases:" with three said is no card; an anecdote or a greeting gives none
    assert "four phases" not in said and "puppies" not in said and "hear me" not in said, cards


def test_a_german_lecture_without_timestamps_is_read_as_said(tmp_path: Path) -> None:
    with indexed_vault(tmp_path, {"VWL/VL 05 Preiselastizität (Mitschrift).md": ELASTICITY}) as engine:
        cards = cards_of(generate(engine, "flashcards", "VWL/VL 05 Preiselastizität (Mitschrift).md")[1])
    assert ("qa", "Was ist die Preiselastizität der Nachfrage?",
            "Das Verhältnis aus der prozentualen Mengenänderung und der prozentualen Preisänderung.") in cards, cards
    assert ("cloze", "Wenn die Menge überhaupt nicht auf den Preis reagiert, das nennt man ==vollkommen unelastisch==.",
            "") in cards, cards
    # the opener stays where leaving it out would open the sentence with its verb
    assert ("qa", "Preiselastizität der Nachfrage: Jetzt unterscheiden wir drei Fälle – welche?",
            "Erstens elastische Nachfrage, zweitens unelastische Nachfrage, und drittens die einheitselastische "
            "Nachfrage.") in cards, cards
    assert ("qa", "Preiselastizität der Nachfrage: Merksatz?",
            "Bei unelastischer Nachfrage steigt der Umsatz, wenn der Preis steigt.") in cards, cards
    said = " ".join(front + back for _, front, back in cards)
    assert "äh" not in said.split() and "ne?" not in said and "guten Morgen" not in said, cards


def test_a_transcript_with_nothing_clearly_said_gives_no_card_and_says_why(tmp_path: Path) -> None:
    note = ("# Lecture 1 (transcript)\n\n"
            "**[00:00]** Okay, hi everyone, um, today is the introduction, right?\n\n"
            "**[02:00]** So the exam is in February, and you need the slides, okay?\n\n"
            "**[05:00]** I was in Lisbon last summer, lovely city, and the food was great.\n")
    with indexed_vault(tmp_path, {"Intro/Lecture 1.md": note}) as engine, pytest.raises(GenerationError) as raised:
        generate(engine, "flashcards", "Intro/Lecture 1.md")
    assert "read as a lecture transcript" in str(raised.value), raised.value


@pytest.mark.parametrize("aside", ["**Student:** Is humus the same as compost?",
                                   "*(captions garbled — something about silt? ask Mia)*"])
def test_a_transcript_paragraph_of_only_a_students_question_or_a_remark_is_passed_over(tmp_path: Path,
                                                                                        aside: str) -> None:
    # such a paragraph left no sentence to read, and the whole note's cards and quiz failed with a ValueError
    note = ("# Lecture 3 – Soil (transcript)\n\n"
            "[00:00] **Prof. Ames:** OK let us start. Soil forms from weathered rock over thousands of years.\n\n"
            "[02:10] **Ames:** Humus is the dark organic part of the soil, it holds water and nutrients.\n\n"
            f"[04:00] {aside}\n\n"
            "[05:00] **Ames:** Clay particles are smaller than 0.002 mm, we call them the ==clay fraction==.\n")
    with indexed_vault(tmp_path, {"Soil/Lecture 3.md": note}) as engine:
        cards = cards_of(generate(engine, "flashcards", "Soil/Lecture 3.md")[1])
    said = " ".join(front + back for _, front, back in cards)
    assert "clay fraction" in said and "compost" not in said and "Mia" not in said, cards


def test_a_quiz_on_a_transcript_asks_what_the_lecturer_said(tmp_path: Path) -> None:
    with indexed_vault(tmp_path, {"Bio/Cell cycle.md": CELL_CYCLE}) as engine:
        result, quiz = generate(engine, "quiz", "Bio/Cell cycle.md")
    assert "Interphase has three phases" not in quiz or "First G1" in quiz, quiz
    assert "First G1, where the cell grows" in quiz and "[0" not in quiz and "Okay" not in quiz, quiz
    assert any("read as a lecture transcript" in warning for warning in result.warnings), result.warnings


@pytest.mark.parametrize(("said", "lang", "written"), [
    ("**[01:30]** Consideration is, basically, something of value given for a promise, right?", "en",
     "Consideration is something of value given for a promise."),
    ("Cancer, so, cancer is basically uncontrolled cell division.", "en",
     "Cancer is basically uncontrolled cell division."),
    ("Die Einkommenselastizität, das ist im Grunde die Reaktion der Nachfrage, ne?", "de",
     "Die Einkommenselastizität ist im Grunde die Reaktion der Nachfrage."),
    ("Die Lithosphäre ist, äh, die starre äußere Schale der Erde.", "de",
     "Die Lithosphäre ist die starre äußere Schale der Erde."),
    ("p53 is a tumour suppressor, um, it is often called the guardian of the genome.", "en",
     "p53 is a tumour suppressor, it is often called the guardian of the genome."),
    # a verb ending its clause keeps the comma after it: only a removed hedge takes the comma with it
    ("**[12:20]** Wenn der Wasserstoff aufgebraucht ist, bläht sich der Stern auf.", "de",
     "Wenn der Wasserstoff aufgebraucht ist, bläht sich der Stern auf."),
    ("If the contract is void, nobody is bound by it.", "en", "If the contract is void, nobody is bound by it."),
])
def test_spoken_sentences_are_written_down_plainly(said: str, lang: str, written: str) -> None:
    assert said_plainly(said, lang) == written


def test_namings_lists_and_key_points_are_read_in_each_language() -> None:
    sentence = "An advertisement is not an offer. We call this an invitation to treat."
    naming = naming_in(sentence, "en")
    assert naming is not None and sentence[naming.start:naming.end] == "invitation to treat"
    assert naming_in("Dann heißt das Subduktion.", "de") is not None
    assert naming_in("Das heißt, die Platte taucht ab.", "de") is None  # "das heißt": "that is", no naming
    assert spoken_list("Es gibt drei Arten: divergente, konvergente und Transformstörungen.", "de") is not None
    assert spoken_list("There are four phases: prophase and metaphase.", "en") is None  # four said, two heard
    assert key_point("Now — and this is a classic exam question — ACE also breaks down bradykinin.", "en") \
        == "ACE also breaks down bradykinin."
    assert key_point("Okay, and remember this for the exam: past consideration is no consideration.", "en") \
        == "Past consideration is no consideration."
    assert key_point("ACE also breaks down bradykinin.", "en") is None
    assert lecture_subject("Lecture 07 – Antihypertensives (Transcript)") == "Antihypertensives"
    assert lecture_subject("VL 05 Preiselastizität der Nachfrage") == "Preiselastizität der Nachfrage"


def test_a_stressed_definition_is_one_card_not_two(tmp_path: Path) -> None:
    note = ("# Pharmacokinetics (transcript)\n\n"
            "Right — and this is important — a prodrug is basically a drug that only becomes active after it is "
            "metabolised. Clopidogrel, for instance.\n\n"
            "Half-life, okay. So remember this: after five half-lives almost all of a drug is gone.\n")
    with indexed_vault(tmp_path, {"Pharma/Kinetics.md": note}) as engine:
        cards = cards_of(generate(engine, "flashcards", "Pharma/Kinetics.md")[1])
    assert ("qa", "What is a prodrug?", "A drug that only becomes active after it is metabolised.") in cards, cards
    assert not [card for card in cards if "key point" in card[1] and "prodrug" in card[2]], cards
    assert ("qa", "Pharmacokinetics › Half-life: the key point?",
            "After five half-lives almost all of a drug is gone.") in cards, cards


def test_a_role_of_nothing_named_is_no_term_and_es_gibt_points_nowhere(tmp_path: Path) -> None:
    alkenes = ("# OC Vorlesung 3 – Alkene (Transkript)\n\n"
               "**[00:03:20]** Alkene sind Kohlenwasserstoffe mit mindestens einer C=C-Doppelbindung.\n\n"
               "**[00:08:45]** Typische Reaktion ist die elektrophile Addition.\n\n"
               "**[00:15:00]** Es gibt drei wichtige Additionen: die Hydrierung, die Halogenierung und die "
               "Hydratisierung.\n")
    memory = ("# Memory – lecture 6 (transcript)\n\n"
              "So the classic model is the multi-store model by Atkinson and Shiffrin.\n\n"
              "Student asks: does chunking also work for long-term memory? Hm, good question. Chunking mainly helps "
              "short-term memory.\n")
    with indexed_vault(tmp_path, {"Chem/Alkene.md": alkenes, "Psych/Memory.md": memory}) as engine:
        cards = cards_of(generate(engine, "flashcards", "Chem/Alkene.md")[1]) \
            + cards_of(generate(engine, "flashcards", "Psych/Memory.md")[1])
    assert ("qa", "Alkene: Es gibt drei wichtige Additionen – welche?",
            "Die Hydrierung, die Halogenierung und die Hydratisierung.") in cards, cards
    assert ("qa", "Does chunking also work for long-term memory?", "Chunking mainly helps short-term memory.") \
        in cards, cards
    fronts = " ".join(front for _, front, _ in cards)
    assert "Typische Reaktion" not in fronts and "classic model" not in fronts, cards  # a role of what?


def test_a_german_students_question_is_answered_without_the_lecturers_praise(tmp_path: Path) -> None:
    # "[Studentin fragt: …]" marks a student's question as "[student question: …]" does, and "Gute Frage –" opening
    # the answer is no part of what the card teaches.
    note = ("# VL 04 – Sternentwicklung (Mitschrift)\n\n"
            "**[09:55]** [Studentin fragt: Wie lange bleibt die Sonne auf der Hauptreihe?] Gute Frage – ungefähr "
            "zehn Milliarden Jahre, und sie ist jetzt etwa bei der Hälfte.\n\n"
            "**[11:10]** [Student fragt: Was ist ein Roter Riese?] Sehr gute Frage! Ein Stern, der sich nach dem "
            "Wasserstoffbrennen im Kern aufbläht.\n")
    with indexed_vault(tmp_path, {"Astro/VL 04.md": note}) as engine:
        cards = cards_of(generate(engine, "flashcards", "Astro/VL 04.md")[1])
    fronts = {front: back for _, front, back in cards}
    assert fronts.get("Wie lange bleibt die Sonne auf der Hauptreihe?", "").startswith(
        "Ungefähr zehn Milliarden Jahre"), cards
    assert fronts.get("Was ist ein Roter Riese?", "").startswith("Ein Stern, der sich"), cards


def test_a_term_the_lecturer_glosses_as_they_say_it_is_a_gap(tmp_path: Path) -> None:
    # "the **asthenosphere** – a weak, partly molten layer": the term in bold, its gloss after a dash, said; "That's
    # **subduction** – and it builds …" goes on about it instead, and the speaker's label is no term
    note = """# Lecture 3 – Plate tectonics (transcript)

[02:10] **Prof. Lind:** The lithosphere is broken into about fifteen major plates. Below them lies the
**asthenosphere** – a weak, partly molten layer of the upper mantle.

[05:30] **Prof. Lind:** At **divergent boundaries** – plates move apart and new crust forms, like the Mid-Atlantic
Ridge.

[09:45] **Prof. Lind:** When oceanic crust meets continental crust, the denser oceanic plate sinks under the other.
That's **subduction** – and it builds volcanic arcs like the Andes.
"""
    with indexed_vault(tmp_path, {"Geo/Lecture 3 - Plate Tectonics (Transcript).md": note}) as engine:
        cards = cards_of(generate(engine, "flashcards", "Geo/Lecture 3 - Plate Tectonics (Transcript).md")[1])
    clozes = [text for kind, text, _ in cards if kind == "cloze"]
    assert any("==asthenosphere== – a weak, partly molten layer" in text for text in clozes), cards
    assert any("==divergent boundaries== – plates move apart" in text for text in clozes), cards
    assert not [text for text in clozes if "==subduction==" in text or "==Prof. Lind" in text], cards
