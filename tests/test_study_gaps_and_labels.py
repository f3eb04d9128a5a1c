"""Clozes and quiz gaps a student can fill only one way, code spans kept as written, and list labels that name an
aspect of their section asked as that aspect (issue 25)."""

from __future__ import annotations

from pathlib import Path

from cognivault.study.extract import fair_gap, unbold
from cognivault.study.list_wording import item_question
from cognivault.study.quiz import parse_quiz
from test_study_extractive import cards_of, generate, indexed_vault


def test_bold_marks_go_but_code_keeps_its_stars() -> None:
    assert unbold("**Wrapper**: `*args, **kwargs` → any signature") == "Wrapper: `*args, **kwargs` → any signature"
    assert unbold("$a^{**}$ and **b**") == "$a^{**}$ and b"


def test_a_gap_the_rest_of_its_sentence_gives_away_or_cannot_tell_is_unfair() -> None:
    sugar = "`@my_decorator` above `def f` is just syntactic sugar for `f = my_decorator(f)`."
    assert not fair_gap(sugar, "`@my_decorator`")  # the name stands again in the visible code
    assert not fair_gap("`@staticmethod`, `@classmethod` (gets cls as first argument)", "`@staticmethod`")
    assert not fair_gap("Zeigt **Mitose** und **Meiose** im Vergleich", "**Meiose**")
    assert not fair_gap("= `f = a(b(f))` → the decorator closest to def is applied first", "`f = a(b(f))`")
    assert fair_gap("`*args, **kwargs` → wrapper works for any signature.", "`*args, **kwargs`")
    assert fair_gap("Without `functools.wraps` the function loses its `__name__`", "`functools.wraps`")
    assert fair_gap("**RuBisCO** – häufigstes Enzym der Erde, fixiert CO₂ an RuBP", "**RuBisCO**")


def test_labels_naming_an_aspect_ask_for_it_not_what_they_mean() -> None:
    assert item_question("pros", "easy to find, just compare rows", "Dominant strategy", "Game theory",
                         german=False).front == "Dominant strategy: pros?"
    assert item_question("lesson", "individual rationality ≠ collective rationality", "Prisoner's dilemma",
                         "Game theory", german=False).front == "Prisoner's dilemma: lesson?"
    found = item_question("Auslöser", "Prager Fenstersturz 1618 – Stände werfen Statthalter aus dem Fenster",
                          "Ursachen", "Dreißigjähriger Krieg", german=True)
    assert found.front == "Ursachen: Auslöser?" and not found.asks_term


def test_a_description_naming_its_label_by_initials_or_without_a_noun_is_no_meaning() -> None:
    assert item_question("confidence interval", "95 % CI not containing μ0 ↔ reject H0", "Other tests", "Tests",
                         german=False).front == "Other tests: confidence interval?"
    assert item_question("Filterkaffee", "Eher hell geröstet", "Nach dem Rösten", "Kaffee",
                         german=True).front == "Nach dem Rösten: Filterkaffee?"
    assert item_question("Hydration", "Wasser in % vom Mehlgewicht", "Begriffe", "Brot",
                         german=True).front == "Begriffe: Was bedeutet „Hydration“?"


IMMUNE = """# Immune system

## Innate
- fast: minutes–hours, non-specific, no memory
- barriers: skin, mucus, stomach acid, lysozyme in tears
- cells: neutrophils (most abundant leukocytes), macrophages, NK cells, dendritic cells
- complement system: opsonisation + MAC punches holes in bacteria
- inflammation: rubor, calor, dolor, tumor (+ functio laesa)

## Adaptive
- clonal selection: only the lymphocyte whose receptor fits gets activated and proliferates
"""

DURKHEIM = """# Durkheim

## Der Selbstmord (1897)
- egoistisch: zu schwache Integration, z.B. Protestanten
- Merton (1938) greift Anomie auf: Diskrepanz zwischen kulturellen Zielen und legitimen Mitteln
"""

LECTURE = """---
lang: en
---
# Lecture 05 – Stars (Transcript)

**[00:00]** Okay, today stars.

**[01:30]** So a star is born in a molecular cloud, a cold, dense cloud of gas and dust. And so the main sequence is \
basically the phase where a star fuses hydrogen into helium in its core.

**[04:00]** So operant conditioning is basically learning from the consequences of your own behaviour — the \
behaviour comes first.
"""


def test_quality_and_statement_labels_and_born_stars_give_no_card(tmp_path: Path) -> None:
    notes = {"Bio/Immune.md": IMMUNE, "Soz/Durkheim.md": DURKHEIM, "Astro/Lecture.md": LECTURE}
    with indexed_vault(tmp_path, notes) as engine:
        immune = cards_of(generate(engine, "flashcards", "Bio/Immune.md")[1])
        _, quiz = generate(engine, "quiz", "Bio/Immune.md")
        durkheim = cards_of(generate(engine, "flashcards", "Soz/Durkheim.md")[1])
        lecture = cards_of(generate(engine, "flashcards", "Astro/Lecture.md")[1])
    assert not [front for _, front, _ in immune if "fast" in front]
    assert not [option for question in parse_quiz(quiz).questions for option in question.options
                if option in ("fast", "cells")]
    assert not [front for _, front, _ in durkheim if "Merton" in front]
    fronts = {front: back for _, front, back in lecture}
    assert "What is a star?" not in fronts
    assert fronts["What is the main sequence?"] == "The phase where a star fuses hydrogen into helium in its core."
    assert fronts["What is operant conditioning?"] == "Learning from the consequences of your own behaviour."
