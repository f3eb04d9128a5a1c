"""Definitions in the past tense and with other defining verbs (issue 17): a history note's "X was …" ("X war …")
is a card asked in its own tense and a quiz question, and so are "X refers to …", "X means …", "X bezeichnet …",
"Unter X versteht man …" and "Y were called X" ("Y nannte man X"); a pronoun or a clause as the subject is no
definition. Notes of our own, keyword-indexed for real, generated with no model."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from cognivault.engine import Engine
from cognivault.study.quiz import parse_quiz
from cognivault.study.validate import question_problems
from test_study_extractive import assert_cards_valid, cards_of, generate, indexed_vault

REVOLUTION = "History/French Revolution.md"
WEIMAR = "Deutsch/Weimarer Republik.md"

NOTES = {
    REVOLUTION: """---
tags: [history, europe]
---
# French Revolution

The French Revolution (1789–1799) was a period of political and social upheaval in France that ended the absolute monarchy. #history/modern

## Causes

- **Financial crisis**: France was nearly bankrupt after the Seven Years' War and the American Revolution.
- **Social inequality**: the Third Estate paid most taxes but had little political power.

## The Reign of Terror

The **Reign of Terror** was a period of mass executions led by the Committee of Public Safety under Maximilien Robespierre. About 17,000 people were officially executed.

## Words of the time

The term sans-culottes refers to the common people of Paris who wore long trousers instead of breeches.
Laissez-faire means a policy of leaving trade to merchants without rules from the state.
It was a time of fear for nobles and priests alike across the whole country.
The king who fled to Varennes in 1791 was a prisoner of the assembly from then on.
The old calendar was replaced by a calendar of ten-day weeks in 1793.

## Clubs

The members of the most radical club of Paris were called Jacobins.
""",  # noqa: E501 - the note's opening line, as a note has it
    WEIMAR: """---
lang: de
---
# Weimarer Republik

Die Weimarer Republik war der erste demokratische Staat in Deutschland. Sie bestand von 1918 bis 1933.

## Krisen

- **Hyperinflation 1923**: Das Geld verlor fast seinen gesamten Wert.
- **Artikel 48**: Der Reichspräsident konnte per Notverordnung regieren.

## Begriffe

Der Begriff Dolchstoßlegende bezeichnet eine Verschwörungstheorie über das Ende des Ersten Weltkriegs.
Unter Reparationen versteht man die Zahlungen, die Deutschland nach dem Krieg leisten musste.
Sie war die erste Republik mit einem Wahlrecht für Frauen in ganz Deutschland.
Unter der Weimarer Verfassung versteht man die Verfassung des Deutschen Reiches von 1919.

## Parteien

Die Anhänger der Kommunistischen Partei nannte man Kommunisten.
""",
}


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    with indexed_vault(tmp_path_factory.mktemp("definitions"), NOTES) as engine:
        yield engine


@pytest.mark.parametrize(("note", "card"), [
    (REVOLUTION, ("qa", "What was the French Revolution?",
                  "A period of political and social upheaval in France that ended the absolute monarchy.")),
    (REVOLUTION, ("qa", "What was the Reign of Terror?", "A period of mass executions led by the Committee of "
                  "Public Safety under Maximilien Robespierre.")),
    (REVOLUTION, ("qa", "What does the term sans-culottes refer to?",
                  "The common people of Paris who wore long trousers instead of breeches.")),
    (REVOLUTION, ("qa", "Words of the time: what does laissez-faire mean?",
                  "A policy of leaving trade to merchants without rules from the state.")),
    (REVOLUTION, ("qa", "What were the members of the most radical club of Paris called?", "Jacobins.")),
    (WEIMAR, ("qa", "Was war die Weimarer Republik?", "Der erste demokratische Staat in Deutschland.")),
    (WEIMAR, ("qa", "Was bezeichnet der Begriff Dolchstoßlegende?",
              "Eine Verschwörungstheorie über das Ende des Ersten Weltkriegs.")),
    (WEIMAR, ("qa", "Begriffe: Was versteht man unter Reparationen?",
              "Die Zahlungen, die Deutschland nach dem Krieg leisten musste.")),
    (WEIMAR, ("qa", "Wie nannte man die Anhänger der Kommunistischen Partei?", "Kommunisten.")),
])
def test_a_definition_in_the_past_tense_or_with_another_defining_verb_is_a_card(
        engine: Engine, note: str, card: tuple[str, str, str]) -> None:
    """The question keeps the sentence's tense and verb; a dated term ("(1789–1799)") is asked without its date,
    and a tag after the sentence is not part of the answer."""
    cards = cards_of(generate(engine, "flashcards", note, count=30)[1])
    assert card in cards
    assert_cards_valid(cards, NOTES[note])


@pytest.mark.parametrize("note", list(NOTES))
def test_a_pronoun_or_a_clause_is_never_the_term_of_a_definition(engine: Engine, note: str) -> None:
    fronts = [front for _, front, _ in cards_of(generate(engine, "flashcards", note, count=30)[1])]
    definitions = [front for front in fronts if front.split(": ")[-1].startswith(("What was", "What were", "Was war"))
                   and not front.endswith(" called?")]
    assert definitions == (["What was the French Revolution?", "What was the Reign of Terror?"] if note == REVOLUTION
                           else ["Was war die Weimarer Republik?"])
    assert not any("What is the French Revolution" in front or "Was ist die Weimarer" in front for front in fronts)
    assert not any("Weimarer Verfassung" in front or "Varennes" in front or "calendar" in front.split("?")[0]
                   for front in fronts)


def test_a_past_tense_definition_is_a_quiz_question(engine: Engine) -> None:
    """"The Reign of Terror was …" is asked back from its description, among terms shown without "the term"; the
    note's own name ("The French Revolution", "Die Weimarer Republik") is the quiz's title, never an answer."""
    questions = parse_quiz(generate(engine, "quiz", REVOLUTION, count=20)[1]).questions
    asked = {q.question: q for q in questions}
    question = asked["Which term is described here: “A period of mass executions led by the Committee of Public "
                     "Safety under Maximilien Robespierre”?"]
    assert question.options[question.correct_index] == "The Reign of Terror" and len(question.options) >= 3
    assert not question_problems(question.question, question.options, question.correct_index, NOTES[REVOLUTION],
                                 "en")
    assert not [o for q in questions for o in q.options if o.casefold().startswith("the term")]
    german = parse_quiz(generate(engine, "quiz", WEIMAR, count=20)[1]).questions
    for found, name in ((questions, "french revolution"), (german, "weimarer republik")):
        assert found and not [q for q in found if name in q.options[q.correct_index].casefold()]
