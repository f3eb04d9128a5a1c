"""Cards and questions a student can use, read off the note's structure with no model (issue 17): a list item is
asked as its list means it (a cause, a phase, a character, a date, a command), a section opening with a list asks
for its items, and a German definition opens with any article ("Das Mitochondrium ist …"). Notes of our own,
keyword-indexed for real, generated with no model."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from cognivault.engine import Engine
from cognivault.study.extract import all_facts
from cognivault.study.list_wording import when
from cognivault.study.mindmap import parse_mindmap
from cognivault.study.quiz import _like, parse_quiz
from cognivault.study.sources import _make_sources
from cognivault.study.validate import question_problems
from test_study_extractive import assert_cards_valid, cards_of, generate, indexed_vault

CELL = "Biologie/Zelle.md"
ACIDS = "Chemistry/Acids.md"
INDUSTRY = "History/Industrial Revolution.md"
GIT = "Tools/Git.md"
KRISEN = "Geschichte/Gründerkrach.md"

NOVEL = "Literature/The Great Gatsby.md"

NOTES = {
    NOVEL: """# The Great Gatsby

*The Great Gatsby* is a 1925 novel by F. Scott Fitzgerald, narrated by **Nick Carraway**.

## Characters

- **Jay Gatsby** – a mysterious millionaire who throws lavish parties.
- **Daisy Buchanan** – Nick's cousin and the woman Gatsby still loves.

## Quotes

"So we beat on, boats against the current, borne back ceaselessly into the past." The last line of the novel
says that nobody escapes the past.
""",
    ACIDS: """# Acids

An acid is a substance that donates a proton to another substance. Acids taste sour in water.

## Properties of acids

- Taste sour
- Turn blue litmus paper red
- React with metals to produce hydrogen gas

## Methods of measuring acidity

1. Litmus paper shows whether a solution is acidic.
2. A pH meter measures the pH to two decimal places.
3. Titration finds the concentration of an acid.

## pH scale

The pH scale runs from 0 to 14 and shows how acidic or basic a solution is in water.

## Indicators

Litmus turns red in an acid and blue in a base. An indicator is a dye that shows this change by its colour.
A buffer is a solution that keeps its pH nearly constant when a little acid is added.
""",
    INDUSTRY: """# Industrial Revolution

The Industrial Revolution was the move from farming and hand work to machines and factories in Britain.

## Causes

- **Population growth**: more people needed more goods and cheap food.
- **Coal deposits**: Britain had plenty of fuel close to its towns.
- **Colonial trade**: the colonies sold raw cotton and bought finished cloth.

## Timeline

- 1769: James Watt patents his improved steam engine.
- 1785: Edmund Cartwright builds the power loom.
- 1825: The first public railway opens between Stockton and Darlington.
""",
    GIT: """# Git

Git is a distributed version control system that keeps the history of a project.

## Commands

- `git init` – creates a new repository in the current folder.
- `git add` – stages a file for the next commit.
- `git push` – uploads local commits to a remote.

## First commit

A first commit of a new project:

```bash
git init
git add .
git commit -m "first"
```

## Remotes

Short names such as `origin` and `upstream` stand for the addresses of other copies of a repository.
The `HEAD` pointer marks the commit that your working folder shows right now.
Hosting services like **GitHub** keep a copy of the repository online for a whole team.
""",
    KRISEN: """---
lang: de
---
# Gründerkrach

Der Gründerkrach war ein Börsenkrach im Jahr 1873, der eine lange Wirtschaftskrise auslöste.

## Ursachen

- **Spekulation**: Viele Anleger kauften Aktien neuer Firmen auf Kredit.
- **Überproduktion**: Die Fabriken stellten mehr Waren her, als verkauft werden konnten.
- **Reparationen**: Die französischen Zahlungen brachten zu viel Geld in Umlauf.

## Probleme lösen

- **Staatskredit**: Die Regierung lieh den Banken frisches Geld.
- **Fusion**: Zwei schwache Firmen schlossen sich zu einer zusammen.

## Faktoren

Die Dauer der Krise hing von mehreren Umständen ab:

- Zahl der Bankpleiten
- Höhe der Schulden
- Politik der Regierung

## Folgen

- Viele Banken gingen bankrott
- Die Löhne sanken
- Der Staat führte Schutzzölle ein
""",
    CELL: """---
lang: de
---
# Zelle

Die Zelle ist die kleinste Einheit des Lebens. Jede Pflanze besteht aus vielen Zellen.

## Organellen

Das Mitochondrium ist das Kraftwerk der Zelle. Das ist für jede Zelle wichtig. Der Zellkern ist der Speicher
der Erbinformation. Die Zellmembran bezeichnet die Hülle, die die Zelle nach außen abgrenzt.
Das **Ribosom** stellt die Proteine der Zelle her.
""",
}


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    with indexed_vault(tmp_path_factory.mktemp("list-cards"), NOTES) as engine:
        yield engine


def test_a_german_definition_may_open_with_any_article(engine: Engine) -> None:
    """"Das Mitochondrium ist …" is a definition as "Der Zellkern ist …" is ("das" is an article before a noun);
    "Das ist …" is a pronoun, no definition, and a sentence opening with "Das Ribosom" is no pointer back."""
    _, text = generate(engine, "flashcards", CELL, count=20)
    cards = cards_of(text)
    assert_cards_valid(cards, NOTES[CELL])
    fronts = {front: back for _, front, back in cards}
    assert fronts.get("Was ist das Mitochondrium?") == "Das Kraftwerk der Zelle."
    assert fronts.get("Organellen: Was ist der Zellkern?") == "Der Speicher der Erbinformation."
    assert "Organellen: Was bezeichnet die Zellmembran?" in fronts
    assert not [front for front in fronts if front.endswith("Was ist das?") or "„Das“" in front]
    assert any(kind == "cloze" and "==Ribosom==" in front for kind, front, _ in cards), cards


def test_an_english_definition_may_open_with_an(engine: Engine) -> None:
    """"An acid is …" is a definition ("an" is a German preposition, in English the article)."""
    cards = cards_of(generate(engine, "flashcards", ACIDS, count=20)[1])
    assert ("qa", "What is an acid?", "A substance that donates a proton to another substance.") in cards


def test_a_list_item_is_asked_as_its_list_means_it(engine: Engine) -> None:
    """An item of a list of causes is not asked "what is 'Population growth'?"; a year in a timeline asks what
    happened then; a command described by what it does asks what it does; German asks with the kind's singular in
    its gender ("Welche Ursache ist gemeint"). A list of causes opening its section is asked whole ("name the 3
    causes") and not again item by item backwards ("which cause is this: …"): the whole card's back holds every
    item's fact, the three cards more would only repeat them."""
    industry = cards_of(generate(engine, "flashcards", INDUSTRY, count=20)[1])
    assert_cards_valid(industry, NOTES[INDUSTRY])
    assert ("qa", "Industrial Revolution: name the 3 causes.", "Population growth: more people needed more goods and "
                  "cheap food; Coal deposits: Britain had plenty of fuel close to its towns; Colonial trade: the "
                  "colonies sold raw cotton and bought finished cloth.") in industry
    assert not [front for _, front, _ in industry if "which cause is this" in front]
    assert ("qa", "Timeline: what happened in 1769?", "James Watt patents his improved steam engine.") in industry
    assert not [front for _, front, _ in industry if "what is “" in front]
    git = cards_of(generate(engine, "flashcards", GIT, count=20)[1])
    assert ("qa", "Commands: what does `git init` do?", "Creates a new repository in the current folder.") in git
    krisen = cards_of(generate(engine, "flashcards", KRISEN, count=20)[1])
    assert_cards_valid(krisen, NOTES[KRISEN])
    assert not [front for _, front, _ in krisen if "Welche Ursache ist gemeint" in front]  # asked whole
    quiz = parse_quiz(generate(engine, "quiz", KRISEN, count=10)[1]).questions  # a quiz still asks backwards
    assert {q.question: q.options[q.correct_index] for q in quiz}.get(
        "Ursachen: Welche Ursache ist gemeint: „Viele Anleger kauften Aktien neuer Firmen auf Kredit“?") \
        == "Spekulation"
    # "Probleme lösen" says what to do, it is no list of problems: its items are terms
    assert ("qa", "Probleme lösen: Was bedeutet „Staatskredit“?", "Die Regierung lieh den Banken frisches Geld.") \
        in krisen


def test_a_quiz_asks_for_a_list_item_by_its_kind(engine: Engine) -> None:
    questions = parse_quiz(generate(engine, "quiz", INDUSTRY, count=10)[1]).questions
    stems = {q.question: q.options[q.correct_index] for q in questions}
    assert stems.get("Causes: which cause is this: “More people needed more goods and cheap food”?") \
        == "Population growth", stems
    assert stems.get("Timeline: when did this happen: “James Watt patents his improved steam engine”?") == "1769"
    for question in questions:
        assert not question_problems(question.question, question.options, question.correct_index,
                                     NOTES[INDUSTRY], "en"), question


def test_a_section_opening_with_a_list_asks_for_its_items(engine: Engine) -> None:
    """"Properties of acids" opening with three items asks for the three properties; a numbered list of methods
    is asked without "in order" (numbers are not a sequence), German as "Nenne die 3 Folgen"."""
    acids = cards_of(generate(engine, "flashcards", ACIDS, count=20)[1])
    assert ("qa", "Acids: name the 3 properties of acids.",
            "Taste sour; Turn blue litmus paper red; React with metals to produce hydrogen gas.") in acids
    assert any(front == "Acids: name the 3 methods of measuring acidity." for _, front, _ in acids), acids
    assert not [front for _, front, _ in acids if "comes right after" in front]  # no method comes after another
    krisen = cards_of(generate(engine, "flashcards", KRISEN, count=20)[1])
    assert ("qa", "Gründerkrach: Nenne die 3 Folgen.",
            "Viele Banken gingen bankrott; Die Löhne sanken; Der Staat führte Schutzzölle ein.") in krisen


def test_a_definition_pointing_at_other_sentences_is_no_card(engine: Engine) -> None:
    """"An indicator is a dye that shows this change" says what the indicator is only with the sentence before it;
    "A buffer is a solution that keeps its pH …" stands alone."""
    cards = cards_of(generate(engine, "flashcards", ACIDS, count=20)[1])
    assert not [back for _, _, back in cards if "this change" in back and "Litmus" not in back], cards
    assert ("qa", "Indicators: what is a buffer?",
            "A solution that keeps its pH nearly constant when a little acid is added.") in cards


def test_a_sentence_introducing_a_list_is_asked_with_the_list(engine: Engine) -> None:
    """"Die Dauer der Krise hing von mehreren Umständen ab:" says nothing without the list below it: its card
    shows the list too."""
    cards = cards_of(generate(engine, "flashcards", KRISEN, count=20)[1])
    assert ("qa", "Gründerkrach: Nenne die 3 Faktoren.", "Die Dauer der Krise hing von mehreren Umständen ab: Zahl "
                  "der Bankpleiten; Höhe der Schulden; Politik der Regierung.") in cards, cards
    assert not [back for _, _, back in cards if back.endswith("Umständen ab.")]


def test_an_example_among_several_is_no_cloze(engine: Engine) -> None:
    """"Short names such as `origin` and `upstream` …" names examples: a cloze on one has many right answers (any
    remote's name); "The `HEAD` pointer marks …" has one."""
    cards = cards_of(generate(engine, "flashcards", GIT, count=20)[1])
    clozes = [text for kind, text, _ in cards if kind == "cloze"]
    assert any("==`HEAD`==" in text for text in clozes), cards
    assert not [text for text in clozes if "such as ==" in text or "like ==" in text], clozes


def test_a_quotation_keeps_its_own_full_stop(engine: Engine) -> None:
    """A sentence quoted with its full stop inside the quotation marks ends there: no '."."' on a card."""
    sources = _make_sources(engine, engine.store.catalog.chunks_of(NOVEL), budget=False)
    quoted = [fact.definition for fact in all_facts(sources, "en") if "So we beat on" in fact.definition]
    assert quoted and all(text.endswith('the past."') for text in quoted), quoted


def _labels(node: dict[str, Any]) -> dict[str, list[str]]:
    """Each node's label with its children's labels."""
    found = {node["label"]: [child["label"] for child in node.get("children", [])]}
    for child in node.get("children", []):
        found.update(_labels(child))
    return found


def test_a_mind_map_shows_a_plain_list_and_what_happened_when(engine: Engine) -> None:
    """A section holding only a plain list ("Properties of acids") has its items on the map, no bare heading; a
    date in a timeline is on it with what happened then ("1769" alone says nothing)."""
    acids = _labels(parse_mindmap(generate(engine, "mindmap", ACIDS)[1])["root"])
    assert acids["Properties of acids"] == ["Taste sour", "Turn blue litmus paper red",
                                            "React with metals to produce hydrogen gas"]
    industry = _labels(parse_mindmap(generate(engine, "mindmap", INDUSTRY)[1])["root"])
    assert industry["Timeline"][0] == "1769: James Watt patents his improved steam engine"
    assert all(len(label) <= 60 for labels in industry.values() for label in labels)


def test_a_sentence_introducing_a_code_block_is_no_card(engine: Engine) -> None:
    """"A first commit of a new project:" says nothing without the code block below it (a card cannot show it)."""
    cards = cards_of(generate(engine, "flashcards", GIT, count=20)[1])
    assert not [card for card in cards if "A first commit of a new project" in card[1] + card[2]], cards


def test_a_word_with_its_own_case_is_never_recased(engine: Engine) -> None:
    """"pH scale" is offered as "pH scale" among capitalised options, never as "PH scale"."""
    assert _like("pH scale", "Indicators", german=False) == "pH scale"
    assert _like("acids", "Indicators", german=False) == "Acids"


@pytest.mark.parametrize(("term", "german", "asked"), [
    ("8. Mai 1945", True, "am 8. Mai 1945"), ("Mai 1945", True, "im Mai 1945"), ("1769", True, "1769"),
    ("14 July 1789", False, "on 14 July 1789"), ("May 1968", False, "in May 1968"), ("Marie Curie", False, None)])
def test_a_timeline_entry_is_asked_as_a_time_in_each_language(term: str, german: bool, asked: str | None) -> None:
    # every month of both languages: "Mai" is German alone ("März", "Juni", "Oktober" too)
    assert when(term, german) == asked
