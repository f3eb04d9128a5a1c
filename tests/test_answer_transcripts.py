"""Answers from lecture transcripts: what the lecturer says about the subject is evidence, what is said about the
course is not (issue 25: seen in the student dev vault's pharmacology transcript and in a fresh economics one).

- a lecturer announcing the next session ("Next week: deflation and the liquidity trap.", "Okay, that's it for
  today, next week: anticoagulants.") names a topic still to come: never quoted, so a question on that topic is
  refused instead of answered from the announcement;
- the student's bracketed remarks on the exam ("[→ definition will be on the exam!!]", "[exam!!]") are left out of
  the quote, while a bracketed remark on the subject ("[→ secondary = e.g. renal artery stenosis]") stays;
- the paragraph after a quoted one is the next thing said, not what the quoted one leads to: it is quoted only where
  it states part of the question ("[00:13:20] Central banks fight inflation …" after the stagflation paragraph is not).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from cognivault.answer.extractive import answer_extractively
from cognivault.engine import Engine
from cognivault.vault.reading import announcement_start, without_course_remarks_in

INFLATION = {
    "Economics/Lecture 3 - Inflation (Transcript).md": (
        "# Lecture 3 – Inflation (Transcript)\n\n"
        "[00:01:40] So inflation is a sustained increase in the general price level, not just one price going up. "
        "We usually measure it with the consumer price index, the CPI. [→ definition will be on the exam!!]\n\n"
        "[00:04:05] Demand-pull inflation is when aggregate demand grows faster than what the economy can "
        "produce. Cost-push inflation is when production costs rise, for example oil prices or wages.\n\n"
        "[00:10:55] A nasty case is stagflation: high inflation together with stagnating output and high "
        "unemployment.\n\n"
        "[00:13:20] Central banks fight inflation mainly by raising the policy rate.\n\n"
        "[00:15:02] Next week: deflation and the liquidity trap. Read chapter 9 before class.\n"),
    "Pharma/Lecture 7 (Transcript).md": (
        "# Lecture 7 – Antihypertensives\n\n"
        "**[02:15]** Hypertension starts at 140 over 90 millimetres of mercury, measured repeatedly. Most patients "
        "have primary hypertension, so no single identifiable cause. [→ secondary = e.g. renal artery stenosis]\n\n"
        "**[05:40]** ACE inhibitors end in -pril. ACE also breaks down bradykinin, so bradykinin accumulates and "
        "gives the typical dry cough. [exam!!] The rare but dangerous one is angioedema.\n\n"
        "**[44:30]** Okay, that's it for today, next week: anticoagulants. [end of recording]\n"),
}


def ask(engine: Engine, question: str) -> tuple[bool, str]:
    answer = answer_extractively(engine, question)
    return answer.answered, answer.text


@pytest.mark.parametrize("question, topic", [
    ("What causes the liquidity trap?", "liquidity trap"),
    ("How do anticoagulants work?", "anticoagulants"),
])
def test_a_topic_only_announced_for_next_week_is_no_answer(
        indexed_notes: Callable[[dict[str, str]], Engine], question: str, topic: str) -> None:
    engine = indexed_notes(INFLATION)
    answered, text = ask(engine, question)
    assert topic not in text.replace(f"“{topic}”", "")
    assert "Next week" not in text and "next week" not in text


def test_remarks_on_the_exam_are_left_out_of_a_quote_and_remarks_on_the_subject_kept(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    engine = indexed_notes(INFLATION)
    answered, text = ask(engine, "How is inflation measured?")
    assert answered and "consumer price index, the CPI." in text
    assert "on the exam" not in text
    answered, text = ask(engine, "Why do ACE inhibitors cause a dry cough?")
    assert answered and "bradykinin accumulates" in text and "[exam!!]" not in text
    answered, text = ask(engine, "What causes primary hypertension?")
    assert answered and "[→ secondary = e.g. renal artery stenosis]" in text


@pytest.mark.parametrize("text, kept", [
    ("[00:15:02] Next week: deflation and the liquidity trap. Read chapter 9.", ""),
    ("**[44:30]** Okay, that's it for today, next week: anticoagulants. [end of recording]", ""),
    ("ACE blocks it. Nächste Woche: Antikoagulanzien.", "ACE blocks it. "),
    ("The next week of treatment is crucial.", "The next week of treatment is crucial."),
    ("Next time you open the app, it syncs.", "Next time you open the app, it syncs."),
])
def test_an_announcement_of_the_next_session_ends_what_is_evidence(text: str, kept: str) -> None:
    assert text[:announcement_start(text)] == kept


@pytest.mark.parametrize("text, kept", [
    ("We measure it with the CPI. [→ definition will be on the exam!!]", "We measure it with the CPI."),
    ("dry cough. [exam!!] The rare one", "dry cough. The rare one"),
    ("Prüfungsstoff [→ kommt in der Klausur]", "Prüfungsstoff"),
    ("no cause. [→ secondary = e.g. renal artery stenosis]", "no cause. [→ secondary = e.g. renal artery stenosis]"),
    ("[02:15] see [[Exam prep]] and $[a, b]$", "[02:15] see [[Exam prep]] and $[a, b]$"),
])
def test_bracketed_remarks_on_the_exam_leave_the_text(text: str, kept: str) -> None:
    assert without_course_remarks_in(text) == kept


def test_the_next_thing_said_is_no_part_of_the_answer_unless_it_states_part_of_the_question(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    engine = indexed_notes(INFLATION)
    answered, text = ask(engine, "What is stagflation?")
    assert answered and "stagnating output" in text
    assert "Central banks" not in text
