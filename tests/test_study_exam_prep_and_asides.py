"""Student-note defects and recall gaps seen on held-out notes (issue 25): numbered exam-prep questions are each a
card, not steps; the student's remark on what a note is needed for, a formula heading naming no formula and a
"… nennt man X" after a sentence of its own ask nothing; a transcript written a line per timestamp is read line by
line, a term's abbreviation said between commas does not hide its definition, and "das ist wichtig für die
Klausur:" stresses a point."""

from __future__ import annotations

from pathlib import Path

import pytest

from cognivault.engine import Engine
from cognivault.study.quiz import QuizQuestion, parse_quiz
from cognivault.study.sources import GenerationError
from cognivault.vault.reading import dashed_qa_pair, names_no_formula, qa_pair, said_plainly, states_its_purpose
from test_study_extractive import cards_of, generate, indexed_vault

NUMBERED_QA_EN = """# Network security – revision

1. Q: What is a firewall?
   A: A system that filters network traffic according to rules.
2. Q: What is a DMZ?
   A: A separate network zone for public servers between the internet and the internal network.
3. Q: What is the difference between IDS and IPS?
   A: An IDS only detects and reports attacks; an IPS also blocks them.
"""

NUMBERED_QA_DE = """# Kohlenhydrate – Prüfungsfragen

1. Was ist Glykogen? – Die Speicherform der Glucose in Tieren.
2. Was ist Stärke? – Die Speicherform der Glucose in Pflanzen.
3. Was ist Cellulose? – Ein Strukturpolysaccharid der Zellwand von Pflanzen.
"""

PURPOSE_EN = """# RSA

RSA is an asymmetric cryptosystem published by Rivest, Shamir and Adleman in 1977.

Needed for the ==crypto lab== project!

## Security
The **security** of RSA rests on the difficulty of factoring the product of two large primes.
"""

PURPOSE_DE = """# Enzymkinetik

Die **Michaelis-Konstante** ist die Substratkonzentration, bei der die halbe Maximalgeschwindigkeit erreicht wird.

Wichtig für das ==Praktikum== nächste Woche!!

Ein **Inhibitor** ist ein Stoff, der die Aktivität eines Enzyms herabsetzt.
"""

TRANSCRIPT_DE = """# VL 04 – Niere (Mitschrift)

[00:00] So, guten Morgen zusammen, heute geht's um die Niere.
[05:40] Im Glomerulus wird das Blut filtriert, das Filtrat nennt man Primärharn.
[08:10] Die glomeruläre Filtrationsrate, kurz GFR, ist das Volumen an Primärharn, das beide Nieren pro Minute bilden.
[11:30] Und das ist wichtig für die Klausur: Etwa 99 Prozent des Primärharns werden im Tubulussystem rückresorbiert.
[19:10] Gut, nächste Woche machen wir dann Säure-Basen-Haushalt.
"""

FORMULAS = """# Gase

## Formeln
Die ideale Gasgleichung verknüpft Druck, Volumen und Temperatur:

$$pV = nRT$$

## Kinetische Gastheorie
Die mittlere kinetische Energie eines Teilchens hängt nur von der Temperatur ab.

$$\\bar{E}_{kin} = \\frac{3}{2} k_B T$$
"""


def _quiz(engine: Engine, path: str) -> list[QuizQuestion]:
    try:
        return list(parse_quiz(generate(engine, "quiz", path)[1]).questions)
    except GenerationError:
        return []


@pytest.mark.parametrize(("path", "note", "questions"), [
    ("Security.md", NUMBERED_QA_EN, ["What is a firewall?", "What is a DMZ?",
                                     "What is the difference between IDS and IPS?"]),
    ("Kohlenhydrate.md", NUMBERED_QA_DE, ["Was ist Glykogen?", "Was ist Stärke?", "Was ist Cellulose?"])])
def test_numbered_exam_questions_are_each_a_card_not_steps(tmp_path: Path, path: str, note: str,
                                                          questions: list[str]) -> None:
    with indexed_vault(tmp_path, {path: note}) as engine:
        cards = cards_of(generate(engine, "flashcards", path)[1])
        quiz = _quiz(engine, path)
    assert [front for _, front, _ in cards] == questions, cards
    assert quiz and not [q.question for q in quiz if "step" in q.question or "Schritt" in q.question], quiz
    assert all(q.options[q.correct_index] == "Was ist Glykogen?" for q in quiz if "Tieren" in q.question), quiz


@pytest.mark.parametrize(("item", "pair"), [
    ("Was ist Photorespiration? – Die Reaktion von RuBisCO mit O₂.", ("Was ist Photorespiration?",
                                                                     "Die Reaktion von RuBisCO mit O₂.")),
    ("Why is the sky blue? — Rayleigh scattering", ("Why is the sky blue?", "Rayleigh scattering"))])
def test_a_question_and_its_answer_after_a_dash_are_a_pair(item: str, pair: tuple[str, str]) -> None:
    assert dashed_qa_pair(item) == pair


@pytest.mark.parametrize(("text", "pair"), [
    ("**F: Was ist eine Primatstadt?**\nA: Eine Stadt, die viel größer ist als die zweitgrößte.",
     ("Was ist eine Primatstadt?", "Eine Stadt, die viel größer ist als die zweitgrößte.")),
    ("**Q:** What does a **buffer** do?\n**A:** Selects everything within a distance.",
     ("What does a **buffer** do?", "Selects everything within a distance.")),
    ("Q: What is **humus**?\nA: The organic part of soil.", ("What is **humus**?", "The organic part of soil."))])
def test_a_question_line_in_bold_is_the_question_without_the_closing_bold(text: str, pair: tuple[str, str]) -> None:
    # "**F: Was ist …?**" ended in "**", so the question did not end with "?" and the pair gave no card
    assert qa_pair(text) == pair


@pytest.mark.parametrize("item", ["Is lactose relevant here? Yes – lecture 9.", "Warum? – weil es so ist",
                                  "Glucose is sweet? – true", "Wann ist die Klausur? – Ja, im Februar"])
def test_an_aside_or_a_statement_with_a_question_mark_is_no_pair(item: str) -> None:
    assert dashed_qa_pair(item) is None


@pytest.mark.parametrize("line", ["Needed for the ==fetch== project!", "Wichtig für das Praktikum nächste Woche!!",
                                  "**Relevant für die Klausur!**", "important for the lab report!"])
def test_a_remark_on_what_the_note_is_for_states_its_purpose(line: str) -> None:
    assert states_its_purpose(line)


@pytest.mark.parametrize("line", ["Wichtig für die Stabilität ist die Doppelbindung.",
                                  "Important for the exam: the Chandrasekhar limit is 1.4 solar masses!",
                                  "Needed for protein synthesis: ribosomes, mRNA and tRNA."])
def test_a_fact_opening_alike_states_no_purpose(line: str) -> None:
    assert not states_its_purpose(line)


@pytest.mark.parametrize(("path", "note", "remark"), [("RSA.md", PURPOSE_EN, "crypto lab"),
                                                      ("Enzymkinetik.md", PURPOSE_DE, "Praktikum")])
def test_no_card_or_question_from_what_the_note_is_needed_for(tmp_path: Path, path: str, note: str,
                                                              remark: str) -> None:
    with indexed_vault(tmp_path, {path: note}) as engine:
        cards = cards_of(generate(engine, "flashcards", path)[1])
        quiz = _quiz(engine, path)
    said = [side for card in cards for side in card] + [q.question for q in quiz] \
        + [option for q in quiz for option in q.options]
    assert len(cards) >= 2 and not [text for text in said if remark in text], said


def test_a_transcript_a_line_per_timestamp_is_read_line_by_line(tmp_path: Path) -> None:
    path = "VL 04 - Niere (Mitschrift).md"
    with indexed_vault(tmp_path, {path: TRANSCRIPT_DE}) as engine:
        cards = cards_of(generate(engine, "flashcards", path)[1])
    fronts = {front: back for _, front, back in cards}
    assert fronts.get("Was ist die glomeruläre Filtrationsrate?") == \
        "Das Volumen an Primärharn, das beide Nieren pro Minute bilden.", cards
    assert any(back.startswith("Etwa 99 Prozent des Primärharns") for back in fronts.values()), cards
    # the naming is a cloze on the name, never a question "Wie nennt man Im Glomerulus …?"
    assert not [front for kind, front, _ in cards if kind == "qa" and "Glomerulus wird" in front], cards
    assert ("cloze", "Im Glomerulus wird das Blut filtriert, das Filtrat nennt man ==Primärharn==.", "") in cards, cards


@pytest.mark.parametrize(("said", "lang", "written"), [
    ("[08:10] Die glomeruläre Filtrationsrate, kurz GFR, ist das Volumen an Primärharn.", "de",
     "Die glomeruläre Filtrationsrate ist das Volumen an Primärharn."),
    ("The glomerular filtration rate, or GFR for short, is the volume of filtrate.", "en",
     "The glomerular filtration rate is the volume of filtrate."),
    ("Das ist, kurz gesagt, ein Enzym.", "de", "Das ist, kurz gesagt, ein Enzym.")])
def test_an_abbreviation_said_between_commas_is_left_out(said: str, lang: str, written: str) -> None:
    assert said_plainly(said, lang) == written


def test_a_formula_heading_naming_none_asks_no_formula(tmp_path: Path) -> None:
    assert names_no_formula("Formeln") and names_no_formula("Key equations:")
    assert not names_no_formula("Michaelis-Menten-Gleichung") and not names_no_formula("Henderson–Hasselbalch equation")
    with indexed_vault(tmp_path, {"Gase.md": FORMULAS}) as engine:
        cards = cards_of(generate(engine, "flashcards", "Gase.md")[1])
    fronts = [front for _, front, _ in cards]
    assert "Gase › Kinetische Gastheorie: Formel?" in fronts, cards
    assert not [front for front in fronts if "Formeln:" in front], cards


SCHEDULING = """# OS exam prep

Q: What is the convoy effect?
A: Short processes wait behind one long process, so the average waiting time grows.

Q: What is a time quantum?
A: The fixed time slice a process may run under Round Robin before it is preempted.

Q: What is starvation?
A: A process waits indefinitely because other processes are always preferred.

Q: What is a context switch?
A: Saving the state of the running process and loading the state of the next one.
"""


def test_a_notes_own_questions_are_the_wrong_options_for_its_answers(tmp_path: Path) -> None:
    with indexed_vault(tmp_path, {"Security.md": NUMBERED_QA_EN, "Scheduling.md": SCHEDULING}) as engine:
        quizzes = {path: _quiz(engine, path) for path in ("Security.md", "Scheduling.md")}
    for path, other in (("Security.md", SCHEDULING), ("Scheduling.md", NUMBERED_QA_EN)):
        options = [option for q in quizzes[path] for option in q.options]
        assert len(quizzes[path]) >= 3 and not [option for option in options if option in other], quizzes[path]


@pytest.mark.parametrize(("note", "entries"), [
    ("# Verdauung\n\n## Glossar\n**Chymus** – Speisebrei; im Magen vorverdaut, dann an den Dünndarm abgegeben.\n"
     "**Pepsin** – Enzym des Magens, das Proteine spaltet.\n",
     {"Chymus": "Speisebrei; im Magen vorverdaut, dann an den Dünndarm abgegeben.",
      "Pepsin": "Enzym des Magens, das Proteine spaltet."}),
    ("# Digestion\n\n## Glossary\n**Bile**: a fluid made by the liver that emulsifies fats.\n"
     "**Lipase**: an enzyme that splits fats into fatty acids and glycerol.\n",
     {"Bile": "A fluid made by the liver that emulsifies fats.",
      "Lipase": "An enzyme that splits fats into fatty acids and glycerol."})])
def test_glossary_entries_on_consecutive_lines_are_each_a_card(tmp_path: Path, note: str,
                                                               entries: dict[str, str]) -> None:
    with indexed_vault(tmp_path, {"Glossar.md": note}) as engine:
        cards = cards_of(generate(engine, "flashcards", "Glossar.md")[1])
    backs = {term: next((back for _, front, back in cards if f"„{term}“" in front or f"“{term}”" in front), None)
             for term in entries}
    assert backs == entries, cards


@pytest.mark.parametrize(("path", "note", "term"), [
    ("RSA.md", "# RSA\n\n## Keys\nThe **public key** is the pair $(n, e)$; the exponent $e$ is usually 65537.\n",
     "public key"),
    ("Enzyme.md", "# Enzyme\n\n## Kinetik\nDie **Michaelis-Konstante** $K_M$ ist die Substratkonzentration, bei der "
     "die halbe Maximalgeschwindigkeit erreicht wird; ein kleines $K_M$ bedeutet eine hohe Affinität.\n",
     "Michaelis-Konstante")])
def test_a_gap_on_the_term_a_definition_card_asks_is_not_asked_again(tmp_path: Path, path: str, note: str,
                                                                     term: str) -> None:
    with indexed_vault(tmp_path, {path: note}) as engine:
        cards = cards_of(generate(engine, "flashcards", path)[1])
    assert [front for kind, front, _ in cards if kind == "qa" and term in front], cards
    assert not [front for kind, front, _ in cards if kind == "cloze" and f"=={term}==" in front], cards


def test_a_formula_heading_over_the_notes_only_formula_asks_it_by_the_note(tmp_path: Path) -> None:
    note = ("# Dichte\n\nDie **Dichte** gibt an, wie viel Masse ein Körper je Volumen hat.\n\n"
            "## Formel\n$$\\rho = \\frac{m}{V}$$\n")
    with indexed_vault(tmp_path, {"Dichte.md": note}) as engine:
        cards = cards_of(generate(engine, "flashcards", "Dichte.md")[1])
    assert ("qa", "Dichte › Formel: Formel?", "$$\\rho = \\frac{m}{V}$$") in cards, cards


def test_labels_on_consecutive_lines_are_no_glossary(tmp_path: Path) -> None:
    note = ("# Sync\n\n## Git\n\nGit is a version control system that tracks changes to your files.\n\n"
            "## Working Copy\n\n**Recommended systems**: `iOS`\n**Requires**: [[#Git]]\n\n"
            "**Working Copy** is a Git client for iOS that lets you clone, commit and push changes.\n")
    with indexed_vault(tmp_path, {"Sync.md": note}) as engine:
        cards = cards_of(generate(engine, "flashcards", "Sync.md")[1])
    assert cards and not [front for _, front, _ in cards if "==`iOS`==" in front], cards


def test_the_students_tasks_todos_and_exam_questions_are_on_no_card(tmp_path: Path) -> None:
    note = ("# Bodenkunde\n\n"
            "**F: Was ist Humus?**\n"
            "A: Der dunkle, organische Teil des Bodens. ?? Abbau noch unklar – TODO Folie 12\n\n"
            "## Tonminerale\n\n"
            "- Tonteilchen: kleiner als 0,002 mm – kommt das dran?\n"
            "- [ ] Körnungsdreieck aus VL 4 abzeichnen\n"
            "- [x] Schluff und Sand nachlesen\n")
    with indexed_vault(tmp_path, {"Boden.md": note}) as engine:
        cards = cards_of(generate(engine, "flashcards", "Boden.md")[1])
    assert ("qa", "Was ist Humus?", "Der dunkle, organische Teil des Bodens.") in cards, cards
    said = " ".join(front + back for _, front, back in cards)
    assert "0,002 mm" in said and "dran" not in said and "TODO" not in said and "??" not in said, cards
    assert "Körnungsdreieck" not in said and "nachlesen" not in said, cards
