"""The one reader of a student's note lines (vault/reading.py): bookkeeping told apart from content."""

from __future__ import annotations

from cognivault.vault.reading import (
    asks,
    atom_spans,
    called_in,
    condition_start,
    course_aside_start,
    defines_by_condition,
    definition_in,
    definition_subject,
    ends_open,
    inside_atom,
    is_aspect,
    is_bookkeeping_line,
    is_label,
    is_link_line,
    is_stamp_line,
    is_tag_line,
    note_shape,
    opens_definition,
    part_of,
    question_tail,
    without_bracketed_remarks,
    without_timestamps,
)

HUB = """---
tags: [hub]
---
# Plan WS

last edited: 09.01.2026

## Networks (Mon 10–12)
- 20.10. lecture 2 – [[OSI Model]]
- [[Exam Prep|Exam prep]] → exam: 10.02.2026
- Exam 17.02.2026

## Databases
- [[Joins]], [[Keys]]
- Geo: [[Climate]], [[Monsoon]]

#todo register for exams until 15.01.!!
"""

NOTE = """# Photosynthesis

Stand: 12.01.2025

**Chlorophyll** – the green pigment that absorbs light.
- Light reactions happen in the thylakoids → see [[Chloroplast]]
- related: [[Respiration]]
"""


def test_a_hub_of_links_and_dates_is_read_as_one_with_its_reason() -> None:
    shape = note_shape(HUB)
    assert shape.hub and "links" in shape.reason
    assert not note_shape(NOTE).hub


def test_tag_stamp_and_logistics_lines_are_bookkeeping_and_content_is_not() -> None:
    assert is_tag_line("#uni/ws25 #exam") and is_tag_line("#todo Anmeldung Prüfungen bis 15.01.!!")
    assert not is_tag_line("#1 is the loneliest number")
    assert is_stamp_line("Stand: 12.01.2025") and is_stamp_line("letzte Änderung 03.12.")
    assert is_stamp_line("last edited 2025-10-28 · intervals: [[Intervalle]]")
    assert not is_stamp_line("Standardabweichung: 12.5")
    assert is_bookkeeping_line("- Klausur 17.02.2026") and is_bookkeeping_line("- 18.11. Übung 4 – [[SQL Joins]]")
    assert not is_bookkeeping_line("- Bluthochdruck ab 140/90 mmHg → Medikamente: [[Antihypertensiva]]")
    assert not is_link_line("- [[Backlinks]] – see which notes link to the active note")
    assert not is_link_line("| | [[Renaissance]] | Impressionismus |")


def test_a_numbered_step_through_a_link_is_content_and_a_numbered_hub_entry_is_a_link_line() -> None:
    assert not is_link_line("1. Open **[[Settings]]** → Sync")
    assert not is_bookkeeping_line("2. Öffne [[Einstellungen]] → Dateien und Links")
    assert is_link_line("3. VL: [[SQL Joins]]") and is_link_line("1. [[Intro]] – Folien")
    assert is_link_line("- Anatomie-Wdh.: [[Herz]], [[Blutkreislauf]]")


def test_labels_in_any_language_are_not_terms() -> None:
    assert all(is_label(word) for word in ("Q", "A:", "Context", "Ergebnis", "Bsp.", "**Note**"))
    assert not is_label("Agonist")


def test_formulas_and_code_are_atoms_and_prices_are_not_formulas() -> None:
    text = "Energie $E_k = \\frac{1}{2}mv^2$ und `a $b` kostet $5 und $10, $$W = F s$$"
    spans = [text[start:end] for start, end in atom_spans(text)]
    assert spans == ["$E_k = \\frac{1}{2}mv^2$", "`a $b`", "$$W = F s$$"]
    assert inside_atom(text, text.index("\\frac")) and not inside_atom(text, text.index("kostet"))


def test_the_students_own_question_at_a_line_end_is_found_and_a_real_question_is_kept() -> None:
    line = "Newcomen engine (1712) pumps water out of mines → why?"
    assert line[:question_tail(line)] == "Newcomen engine (1712) pumps water out of mines"
    exam = "Layer 2 or 3? Somewhere in between → is this on the exam?"
    assert exam[:question_tail(exam)] == "Layer 2 or 3? Somewhere in between"
    asked = "Do you know why?"
    assert question_tail(asked) == len(asked)


def test_transcript_timestamps_are_dropped_and_the_words_kept() -> None:
    assert without_timestamps("[02:15] So, ACE inhibitors [1:02:15] block ACE.") == "So, ACE inhibitors block ACE."


def test_one_reader_tells_definition_sentences_in_each_language() -> None:
    found = definition_in("A glacier is a slow river of ice", "en")
    assert found is not None and (found.term, found.verb, found.meaning) == ("A glacier", "is", "a slow river of ice")
    assert definition_in("Glaciers refer to rivers of ice on land", "en").verb == "refer to"
    assert definition_in("A glacier is not a lake of any kind", "en") is None  # says what it is not
    assert definition_in("Unter Erosion versteht man den Abtrag von Gestein", "de").term == "Erosion"
    assert definition_in("Unter Umständen versteht man das anders als hier", "de") is None  # an idiom, no term
    assert definition_in("Ein Gletscher ist ein langsamer Eisstrom", "de").verb == "ist"
    assert definition_in("Ein Gletscher ist nur selten zu sehen im Tal", "de") is None
    called = called_in("A river of ice on land is called a glacier", "en")
    assert called is not None and (called.term, called.verb) == ("a glacier", "is")
    assert called_in("Einen Eisstrom an Land nennt man Gletscher", "de").verb == "nennt"


def test_a_definition_opens_with_an_article_a_noun_or_an_object() -> None:
    assert opens_definition("a slow river of ice", "is", "en")
    assert not opens_definition("tied to the climate", "is", "en")
    assert opens_definition("Gestein, das abgetragen wird", "ist", "de")
    assert opens_definition("den Abtrag von Gestein", "versteht man", "de")
    assert not opens_definition("den Abtrag von Gestein", "ist", "de")
    # a word that only begins like an article ("einige", "eindeutig", "dieser") opens no definition
    assert not opens_definition("einige Gletscher in den Alpen", "sind", "de")
    assert not opens_definition("eindeutig pro Tal", "ist", "de")
    assert opens_definition("dieselbe Art von Eisstrom", "ist", "de")


def test_the_subject_of_a_definition_for_answers_in_any_language() -> None:
    assert definition_subject("Glaciers are rivers of ice") == "Glaciers"
    assert definition_subject("A moraine for a glacier is the rock it pushes") == "moraine"
    assert definition_subject("Die Moräne ist der Schutt eines Gletschers") == "Moräne"
    assert definition_subject("Moräne = Schutt eines Gletschers") == "Moräne"
    assert definition_subject("Moraines refer to the rock a glacier pushes") == "Moraines"
    assert definition_subject("Im Winter wächst der Gletscher") == ""


def test_the_students_note_on_the_course_closing_a_line() -> None:
    line = "optimists vs. pessimists → use both sides in the essay!"
    assert line[:course_aside_start(line)] == "optimists vs. pessimists"
    line = "Aufwand ohne Auszahlung – prüfungsrelevant laut Tutor"
    assert line[:course_aside_start(line)] == "Aufwand ohne Auszahlung"
    kept = ["profits from trade (incl. the colonies – mind this in the essay!), banks",  # inside a remark
            "gilt nur bedingt → z.B. „Wenn du die Klausur bestehen willst, lerne“",  # an example the subject gives
            "the valley walls slow its edges → friction"]
    assert [course_aside_start(line) for line in kept] == [len(line) for line in kept]


def test_a_line_a_course_event_labels_is_logistics_dated_or_not() -> None:
    # the event, or a compound ending in it, labels the line: nothing to learn, whatever follows
    assert is_bookkeeping_line("- Praktikum: Kittel und Schutzbrille mitbringen!!")
    assert is_bookkeeping_line("- Projektabgabe: 15.07. (Gruppe mit Jana)")
    assert is_bookkeeping_line("- **Midterm:** bring a calculator")
    # a label that may name what is to learn stays content
    assert not is_bookkeeping_line("- Deadline: three weeks after the dismissal is received")
    assert not is_bookkeeping_line("- Übung: $3x + 2 = 11$ gives $x = 3$")
    assert not is_bookkeeping_line("- Praktikumsbericht und Protokoll unterscheiden sich im Umfang")


def test_a_label_of_criticism_errors_or_a_check_is_no_term_to_define() -> None:
    # "Kritik: stark vereinfacht …", "Errors: try/catch around await": asked as that aspect of the section
    assert all(is_aspect(label) for label in ("Kritik", "errors", "Limitations", "Gegenbeispiel", "counterexample"))
    # "Check: both eigenvectors are orthogonal": the student checking a worked example, nothing to ask
    assert is_label("Check") and not is_aspect("Check")


def test_a_condition_after_the_verb_makes_the_sentence_define_what_follows_the_verb() -> None:
    # "A vector … is called an eigenvector of A if …": the eigenvector is defined, not the vector
    assert defines_by_condition(r"A vector $\vec{v} \neq \vec{0}$", r"an eigenvector of $A$ if $A\vec{v} = "
                                r"\lambda \vec{v}$", "en")
    assert defines_by_condition("Ein Vektor $v \\neq 0$", "ein Eigenvektor von $f$, wenn $f(v) = \\lambda v$", "de")
    # a subject that is one thing, or no condition: a definition of the subject
    assert not defines_by_condition("Bioavailability", "the fraction of a dose that reaches the blood if given "
                                    "orally", "en")
    assert not defines_by_condition("A plasmid", "a small ring of DNA beside the chromosome", "en")
    # a condition inside the description: part of what the subject is
    assert not defines_by_condition("A buffer", "a solution that keeps its pH nearly constant when a little acid is "
                                    "added", "en")
    assert condition_start("linear, wenn $f(u + v) = f(u) + f(v)$", "de") == 7
    assert condition_start("a set of vectors that spans $V$", "en") is None


def test_a_text_ending_on_a_word_no_sentence_ends_on_was_cut() -> None:
    assert ends_open(r"An eigenvector of $A$ if.", "en") and ends_open("Bis zu dem Zeitpunkt, wenn.", "de")
    assert ends_open("The set of all vectors of the", "en")
    assert not ends_open(r"The roots of $\chi_A$", "en")
    # German ends on a verb's particle, English on no article
    assert not ends_open("Obsidian zeigt die Datei an.", "de") and not ends_open("Gib den Befehl ein.", "de")
    assert ends_open("It is an", "en")


def test_an_option_that_says_part_of_another_is_no_option_beside_it() -> None:
    assert part_of("`.then()`", "`.then/.catch/.finally`") and part_of("Ein Plasmid", "F-Plasmid")
    assert part_of(r"A root of $\chi_A$", r"how often $\lambda$ is a root of $\chi_A$")
    # each names more than the other, or the same words in another order: different answers
    assert not part_of("F-Plasmid", "R-Plasmid") and not part_of("Lag-Phase", "Log-Phase")
    assert not part_of("C–E–G", "C–E♭–G") and not part_of("major 3rd + minor 3rd", "minor 3rd + major 3rd")
    assert not part_of("c – a", "c – h") and not part_of("eigenvector", "eigenvalue")


def test_a_students_bracketed_remark_and_a_heading_that_asks() -> None:
    said = "Metternich chaired the congress. [→ he will ask about Metternich in the exam!]"
    assert without_bracketed_remarks(said) == "Metternich chaired the congress."
    said = "signed in 1815. [I think this is different from the Quadruple Alliance?] It was meant to …"
    assert without_bracketed_remarks(said) == "signed in 1815. It was meant to …"
    kept = "- [x] done, see [[Vienna]] and [the map](map.png); the interval [0, 1] and [Hinweis] stay"
    assert without_bracketed_remarks(kept) == kept
    assert asks("When to use") and asks("Wozu Plasmide?") and asks("Why Britain first?")
    assert not asks("Definitions") and not asks("Whenever it rains")


DASHBOARD = """# Dashboard SoSe 27

#uni/sose27 #dashboard

## Fächer
- [[Genetik/Mendel]]
- [[Genetik/Meiose]]
- [[Statistik/Regression]]
- [[Recht/Kaufvertrag]]

## Klausurtermine
| Fach | Datum | Uhrzeit | Raum |
|---|---|---|---|
| Genetik | 14.07.2027 | 10:00 | HS 1 |
| Statistik | 21.07.2027 | 14:00 | Audimax |

## To-do
- [ ] Übungsblatt 5 abgeben (Fr 18.06.)
- [x] Anmeldung Prüfungsamt
- [ ] Skript Genetik drucken

```dataview
TABLE file.mtime FROM #uni/sose27
```
"""

OVERVIEW = """# Semester overview

Tags: #semester #overview

## Courses
1. [[Micro I]] – Mon 10:00, HS 3
2. [[Linear Algebra]] – Tue 08:30, Room B12

## Exams
- Micro I: 09.02.2027, 10:00, Audimax
- Linear Algebra: 12.02.2027, 14:00, HS 1

## Links
- [Moodle](https://moodle.example.org)
- [[Study plan]]
"""


def test_a_dashboard_of_exam_dates_tasks_and_queries_is_a_hub() -> None:
    # Exam dates in a table or with a time of day, the student's tasks, a Dataview query and a labelled tag line are
    # planning, as links are: such a dashboard gives no card (before, "„Genetik“ – Datum, Uhrzeit, Raum?" cards).
    assert note_shape(DASHBOARD).hub and note_shape(OVERVIEW).hub
    assert is_bookkeeping_line("- [ ] Skript Genetik drucken") and is_bookkeeping_line("Tags: #semester #overview")
    assert is_bookkeeping_line("| Statistik | 21.07.2027 | 14:00 | Audimax |")
    assert is_bookkeeping_line("- Micro I: 09.02.2027, 10:00, Audimax")
    # a history table's dated row says what happened: content
    assert not is_bookkeeping_line("| 15.03.44 v. Chr. | Caesar wird im Senat ermordet |")
    assert not is_bookkeeping_line("| Caesar | 15.03.44 | Rom |")
    # a weekly timetable: a time of day beside a weekday or a room, no date
    assert is_bookkeeping_line("| Genetik I | Mo 10–12 | HS 3 | [[Mendel]] |")
    assert is_bookkeeping_line("| Microeconomics II | Fri 8:30 | Room 2.14 |")
    # a timetable whose rows link each course's note (titles of any length) is a hub's list of links
    timetable = "\n".join([
        "# Semester", "", "| Kurs | Wann | Raum | Notizen |", "|---|---|---|---|",
        "| Immunology (engl.) | Di 8–10 | Bio-Zentrum 0.12 | [[Lecture 04 - Adaptive Immunity (Transcript)]] |",
        "| Marketing I | Do 10–12 | WiWi 2 | [[Exam Prep Q&A - Marketing]] |",
        "| Statistik II | Fr 8–10 | HS 2 | [[Lineare Regression]] |",
        "| Macro II | Fr 12–14 | WiWi 1 | [[Monetary Policy ECB]] |", "",
        "- [ ] Übungsblatt 5 Statistik bis Mo", "#todo #uni/sose26"])
    assert note_shape(timetable).hub, note_shape(timetable)
    # a range in a subject's table is no time of day
    assert not is_bookkeeping_line("| Spannweite | 10–12 | cm |") and not is_bookkeeping_line("| pH | 7–8 | neutral |")
    # a note that runs a query beside its own content stays a note to study
    assert not note_shape("# Mendel\n\nDie **Uniformitätsregel** besagt, dass alle F1-Nachkommen gleich aussehen.\n\n"
                          "Die **Spaltungsregel** beschreibt das 3:1-Verhältnis in der F2.\n\n"
                          "```dataview\nLIST FROM #genetik\n```\n").hub
