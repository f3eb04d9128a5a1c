"""The course's planning inside a note: sections under "Klausuren"/"Deadlines"/"To do" and todo callouts are the
student's bookkeeping, whatever their lines look like; a dashboard made of them and a course timetable is a hub."""

from __future__ import annotations

from pathlib import Path

import pytest

from cognivault.study.sources import GenerationError
from cognivault.vault.reading import names_planning, note_shape, opens_planning_callout, sectioned_text
from test_study_extractive import cards_of, generate, indexed_vault

DASHBOARD = """# Semesterübersicht WiSe 26/27 📚

## Kurse / Courses
| Kurs | Zeit | Raum | Notizen |
|---|---|---|---|
| Organische Chemie | Di 8–10 | HS C1 | [[Reaktionsmechanismen]] |
| Mikroökonomie | Mi 12–14 | Audimax | [[Marktformen]] |
| Kunstgeschichte | Do 14–16 | R 204 | [[Gotische Kathedralen]] |
| Datenbanken | Fr 10–12 | Pool 3 | [[SQL Joins]] |

## Klausuren
- OC: 12.02.2027, 120 min
- Mikro: 15.02.2027, 90 min
- Datenbanken: 18.02., Pool 3

> [!todo] Diese Woche
> - OC Übungsblatt 5 abgeben (Fr)
> - SQL: Aufgabe 2 nochmal machen

## Ideen
- Lerngruppe für Mikro mit Jana fragen
"""

TERM = """# Term overview — Spring 2027

| Course | When | Where | Notes |
|---|---|---|---|
| Medieval Art | Tue 10-12 | Room B12 | [[Romanesque vs Gothic]] |
| Bayesian Stats | Wed 2-4 pm | Lab 1 | [[Conjugate Priors]] |
| Labour Law | Thu 9-11 | Law 0.3 | [[Dismissal Protection]] |
| Enzymes | Fri 8-10 | Bio 2 | [[Michaelis-Menten]] |

## Deadlines
- Stats problem set 3 due 14 March
- Art essay draft: 2 April (2,000 words)

## To do (this week)
- email Prof. Weber about the essay topic
- finish flashcards for enzymes

## Random thoughts
- ask in the tutorial whether the moot court counts towards the grade
"""

KANT = """# Kant – Kategorischer Imperativ

## Organisatorisches
- Sitzung 4, Do 14–16, R 204
- Text: GMS, 2. Abschnitt bis nächste Woche lesen

## Grundbegriffe
- **Kategorischer Imperativ**: ein unbedingtes Gebot der Vernunft, das für jedes vernünftige Wesen gilt.
- **Maxime**: der subjektive Grundsatz des Wollens, nach dem eine Person handelt.

> [!todo] Für die Hausarbeit
> - Mill-Vergleich: Kapitel 2 lesen
"""

REVOLUTION = """# French Revolution

## Timeline
- 5 May 1789: Estates-General meet at Versailles
- 14 July 1789: storming of the Bastille
- 21 January 1793: Louis XVI executed

## Dates
- 1792: the monarchy is abolished
"""


def test_a_heading_over_planning_names_it_and_a_subject_heading_does_not() -> None:
    for heading in ("Klausuren 📅", "Deadlines & Abgaben", "To do (this week)", "Exams", "Termine und Fristen",
                    "Organisatorisches"):
        assert names_planning(heading), heading
    for heading in ("Timeline", "Key dates", "Dates", "Prüfungsschema", "Lecture 3", "Exam", "Tasks of the kernel",
                    "Was kommt in der Klausur?"):
        assert not names_planning(heading), heading
    assert opens_planning_callout("> [!todo] Diese Woche") and opens_planning_callout("> [!info] Termine")
    assert opens_planning_callout("> [!todo]") and opens_planning_callout("> [!tip] This week")
    assert not opens_planning_callout("> [!note] Kant vs. Mill") and not opens_planning_callout("- [!todo] x")
    # the help vault's foldable todo callouts hold a procedure's steps: content
    assert not opens_planning_callout("> [!todo]- Bookmark a file")
    assert not names_planning("Woche 3") and not names_planning("Week 3: Kant's ethics")


def test_a_dashboard_of_a_timetable_exam_dates_and_todos_is_a_hub_beside_a_line_of_ideas() -> None:
    # before, the exam lines and the todo callout counted as content: 7 of 17 lines bookkeeping, no hub
    assert note_shape(DASHBOARD).hub and note_shape(TERM).hub
    # a history note's dated lines under "Timeline" or "Dates" stay subject matter
    assert not note_shape(REVOLUTION).hub


def test_passages_are_read_under_their_section_heading() -> None:
    text = sectioned_text([(("Plan", "Kurse"), "# Plan\n\n## Kurse\n| a | b |"),
                           (("Plan", "Klausuren"), "- OC: 12.02.2027"), (("Plan", "Klausuren"), "- Mikro: 15.02.")])
    assert text.split("\n") == ["# Plan", "", "## Kurse", "| a | b |", "## Klausuren", "- OC: 12.02.2027",
                                "- Mikro: 15.02."]


def test_planning_sections_and_todo_callouts_give_no_card_and_a_dashboard_nothing(tmp_path: Path) -> None:
    notes = {"Kant.md": KANT, "Dashboard.md": DASHBOARD, "Term.md": TERM, "French Revolution.md": REVOLUTION}
    with indexed_vault(tmp_path, notes) as engine:
        _, text = generate(engine, "flashcards", "Kant.md")
        fronts = [front for _, front, _ in cards_of(text)]
        assert any("Kategorischer Imperativ" in front for front in fronts)
        assert any("Maxime" in front for front in fronts)
        # before: "Organisatorisches: Was bedeutet „Text“?::GMS, 2. Abschnitt bis nächste Woche lesen",
        # "Was bedeutet „Mill-Vergleich“?::Kapitel 2 lesen"
        assert not any("Text" in front or "Mill" in front or "Sitzung" in front for front in fronts), fronts
        for note in ("Dashboard.md", "Term.md"):
            for kind in ("flashcards", "quiz"):
                with pytest.raises(GenerationError, match="list of links, dates and tags"):
                    generate(engine, kind, note)
        _, text = generate(engine, "flashcards", "French Revolution.md")
        assert "Bastille" in text
