"""Offline study notes from a note's structure (issue 17): what a student reads in the written notes.

Small English and German notes of our own, indexed for real (keyword index), generated with no model
and read back with the plugin's, the scorer's and the dashboard's readers."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from cognivault.config import load_settings
from cognivault.engine import Engine
from cognivault.study.cards import parse_cards
from cognivault.study.citations import parse_citations, without_cited_links
from cognivault.study.common import GenerationResult
from cognivault.study.generate import run_generation
from cognivault.study.mindmap import parse_mindmap
from cognivault.study.quiz import LETTERS, parse_quiz
from cognivault.study.sources import StudyRequest
from cognivault.study.validate import card_problems, cloze_problems, label_problems, question_problems

REPO = Path(__file__).resolve().parents[1]

NOTES = {
    "Obsidian/Internal links.md": """---
aliases: [Links]
---
# Internal links

Obsidian supports **internal links** between notes. A link is a reference from one note to another note.

## Supported formats

Obsidian supports the following link formats:

- Wikilink: `[[Three laws of motion]]` or `[[Three laws of motion.md]]`
- Markdown: `[Three laws of motion](Three%20laws%20of%20motion.md)`

## Settings

| Setting | Default |
| ------- | ------- |
| Use Wikilinks | On |
| Automatically update internal links | Off |
| New link format | Shortest path |

## Shortcuts

| Action | Shortcut |
| ------ | -------- |
| Open link | `Ctrl+Click` |
| Go back | `Ctrl+Alt+Left` |
| Quick switcher | `Ctrl+O` |
| Command palette | `Ctrl+P` |

## Tags in links

Notes tagged #biology are grouped by the **tag pane** in the sidebar. Type `[[` to start a link.

<h1>This heading is raw HTML</h1>

An <b>inline</b> HTML sentence is not a fact for cards.
""",
    "History/French Revolution.md": """# French Revolution

The French Revolution began in 1789 and ended the absolute monarchy in France.

## Causes

France was deeply in debt after its wars. Bread prices rose sharply in the spring of 1789.
The **Third Estate** paid most of the taxes while the nobles paid almost none.

## Estates-General

King Louis XVI called the **Estates-General** in May 1789. The deputies of the Third Estate
declared themselves the **National Assembly** in June.

## Key events

- 14 July 1789 – The storming of the Bastille in Paris
- August 1789 – The Declaration of the Rights of Man and of the Citizen
- 1793 – The execution of Louis XVI

## The Terror

From 1793 the **Committee of Public Safety** ruled France. Robespierre led the committee until 1794.
Thousands were executed by the **guillotine** during the Terror.

## People

- Robespierre
  - Leader of the Committee of Public Safety until 1794.
- Marie Antoinette
  - Queen of France, executed in October 1793.
""",
    "Markdown/Lists and paragraphs.md": """# Lists and paragraphs

A note that teaches Markdown shows each piece of syntax as code and then as it renders.

## Paragraphs

Paragraph rule 1 says that text separated by a blank line renders as its own block in reading view. Paragraph rule 2 says that text separated by a blank line renders as its own block in reading view. Paragraph rule 3 says that text separated by a blank line renders as its own block in reading view. Paragraph rule 4 says that text separated by a blank line renders as its own block in reading view. Paragraph rule 5 says that text separated by a blank line renders as its own block in reading view. Paragraph rule 6 says that text separated by a blank line renders as its own block in reading view. Paragraph rule 7 says that text separated by a blank line renders as its own block in reading view. Paragraph rule 8 says that text separated by a blank line renders as its own block in reading view. Paragraph rule 9 says that text separated by a blank line renders as its own block in reading view. Paragraph rule 10 says that text separated by a blank line renders as its own block in reading view. Paragraph rule 11 says that text separated by a blank line renders as its own block in reading view. Paragraph rule 12 says that text separated by a blank line renders as its own block in reading view.

A blank line between lines of text creates separate paragraphs, which is the default behaviour in Markdown.

## Nesting lists

To create a nested list, indent one or more list items under another item:

```md
1. First list item
   1. Ordered nested list item
2. Second list item
   - Unordered nested list item
```

1. First list item
   1. Ordered nested list item
2. Second list item
   - Unordered nested list item

Use `Tab` or `Shift+Tab` to indent or unindent the selected list items.

## Horizontal rule

Three or more hyphens `---` on their own line draw a **horizontal rule** across the note. The rule separates
two parts of a note without starting a new section.

## Footnotes

A **footnote** is written as `[^1]` in the text and explained at the bottom of the note. Reading view shows
the footnotes as a numbered list after the last paragraph.

## Quotes

A quote starts each of its lines with a `>` symbol followed by a space. Quotes can hold other Markdown,
such as lists and links, and can be nested by adding more symbols.

## Headings

A heading starts with one to six `#` symbols and a space; the number of symbols sets its level in the
outline of the note.

## Task lists

A **task list** item starts with a hyphen, a space and a pair of brackets `[ ]`; an `x` between the brackets
marks the task as done.
""",  # noqa: E501 - a paragraph longer than a line, as the note has it
    "Biologie/Zellorganellen.md": """---
lang: de
---
# Zellorganellen

Eine Zelle enthält viele Organellen mit eigenen Aufgaben.

## Mitochondrien

Die Mitochondrien sind die Kraftwerke der Zelle. Mitochondrien produzieren **ATP** durch Zellatmung.

## Chloroplasten

Chloroplasten sind Organellen der Pflanzenzellen, in denen die Fotosynthese stattfindet.
Das grüne Pigment heißt **Chlorophyll**.

## Zellkern

Der Zellkern ist der Speicher der Erbinformation. Die **DNA** liegt im Zellkern.

## Tags

`#1984` ist kein gültiger Tag, aber `#y1984` schon. Notizen mit #biologie erscheinen im **Tag-Bereich**.

## Wo liegt die Erbinformation?

Die Erbinformation liegt als DNA im Zellkern der Zelle.

## Begriffe

- Ribosom – Ort der Proteinsynthese in der Zelle
- Vakuole – Speicher für Wasser und Stoffe in Pflanzenzellen
- Zellmembran – Hülle, die die Zelle nach außen abgrenzt
""",
}


@contextmanager
def indexed_vault(root: Path, notes: dict[str, str]) -> Iterator[Engine]:
    """An engine over a vault holding ``notes``, keyword-indexed (generation needs no vectors)."""
    vault = root / "vault"
    for path, text in notes.items():
        (vault / path).parent.mkdir(parents=True, exist_ok=True)
        (vault / path).write_text(text, "utf-8")
    settings = load_settings(vault, {"index": {"index_dir": str(root / "index")}}, environ={})
    engine = Engine(vault, settings, embedder=None)
    try:
        engine.index()
        yield engine
    finally:
        engine.close()


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    with indexed_vault(tmp_path_factory.mktemp("extractive"), NOTES) as engine:
        yield engine


def generate(engine: Engine, kind: str, note: str, count: int | None = None) -> tuple[GenerationResult, str]:
    result = asyncio.run(run_generation(kind, engine, StudyRequest(note=note, count=count), None))
    return result, (engine.vault / result.path).read_text("utf-8")


def cards_of(text: str) -> list[tuple[str, str, str]]:
    """(kind, front, back) of every card as the plugin reads it, citations left out (cloze: the text)."""
    found = []
    for flashcard in parse_cards(text, "check.md").flashcards:
        body = re.sub(r"\s*<!--cv:cite[^>]*-->", "", without_cited_links(flashcard.text,
                                                                         parse_citations(flashcard.text))).strip()
        if flashcard.kind == "cloze":
            found.append(("cloze", body, ""))
        else:
            front, _, back = body.partition("::")
            found.append(("qa", front.strip(), back.strip()))
    return found


def assert_cards_valid(cards: list[tuple[str, str, str]], note_text: str) -> None:
    for kind, front, back in cards:
        problems = cloze_problems(front, note_text) if kind == "cloze" else card_problems(front, back, note_text)
        assert not problems, (problems, front, back)


def test_code_spans_and_links_stay_as_written(engine: Engine) -> None:
    _, text = generate(engine, "flashcards", "Obsidian/Internal links.md", count=30)
    cards = cards_of(text)
    assert_cards_valid(cards, NOTES["Obsidian/Internal links.md"])
    backs = [back for kind, _, back in cards if kind == "qa"]
    assert any("`[[Three laws of motion]]`" in back for back in backs)
    assert not any(back.startswith("`Three laws of motion`") for back in backs)  # the link text stripped in code
    assert len(backs) == len(set(backs)) and len({f for _, f, _ in cards}) == len(cards)


def test_tables_give_cards_with_their_column(engine: Engine) -> None:
    _, text = generate(engine, "flashcards", "Obsidian/Internal links.md", count=30)
    sides = {(front, back) for kind, front, back in cards_of(text) if kind == "qa"}
    assert ("Shortcuts: “Quick switcher” – Shortcut?", "`Ctrl+O`") in sides


def test_raw_html_never_becomes_a_card_an_option_or_a_node(engine: Engine) -> None:
    for kind in ("flashcards", "quiz", "mindmap"):
        _, text = generate(engine, kind, "Obsidian/Internal links.md", count=30)
        body = text.split("\n---\n", 1)[1]
        assert "<h1>" not in body and "<b>" not in body and "h1 This" not in body and "This heading" not in body


def test_tags_stay_inside_their_sentences(engine: Engine) -> None:
    _, text = generate(engine, "flashcards", "Biologie/Zellorganellen.md", count=40)
    cards = cards_of(text)
    assert_cards_valid(cards, NOTES["Biologie/Zellorganellen.md"])
    everything = "\n".join(f"{front} {back}" for _, front, back in cards)
    assert "ein gültiger Tag, aber `#y1984` schon" in everything
    assert "Notizen mit #biologie erscheinen im ==Tag-Bereich==" in everything


def test_a_history_note_without_definitions_still_gives_cards(engine: Engine) -> None:
    result, text = generate(engine, "flashcards", "History/French Revolution.md")
    cards = cards_of(text)
    assert len(cards) >= 5
    assert_cards_valid(cards, NOTES["History/French Revolution.md"])
    assert any("The storming of the Bastille in Paris" in back for _, _, back in cards)
    assert any(kind == "cloze" and "==guillotine==" in front for kind, front, _ in cards)


def test_nested_descriptions_and_question_headings_make_cards(engine: Engine) -> None:
    _, text = generate(engine, "flashcards", "History/French Revolution.md", count=30)
    cards = cards_of(text)
    assert ("qa", "French Revolution › People: which person is this: “Leader of the Committee of Public Safety until "
                  "1794”?", "Robespierre") in cards
    assert ("qa", "Key events: what happened on 14 July 1789?", "The storming of the Bastille in Paris.") in cards
    _, text = generate(engine, "flashcards", "Biologie/Zellorganellen.md", count=30)
    assert ("qa", "Wo liegt die Erbinformation?", "Die Erbinformation liegt als DNA im Zellkern der Zelle.") \
        in cards_of(text)


def test_german_stays_grammatical(engine: Engine) -> None:
    for kind in ("flashcards", "quiz"):
        _, text = generate(engine, kind, "Biologie/Zellorganellen.md", count=30)
        assert "Mitochondrien ist" not in text and "Chloroplasten ist" not in text
    _, text = generate(engine, "flashcards", "Biologie/Zellorganellen.md", count=30)
    assert ("qa", "Was sind die Mitochondrien?", "Die Kraftwerke der Zelle.") in cards_of(text)


@pytest.mark.parametrize("note", list(NOTES))
def test_quiz_options_are_fair(engine: Engine, note: str) -> None:
    result, text = generate(engine, "quiz", note, count=12)
    questions = parse_quiz(text).questions
    assert len(questions) >= 3
    wrong: Counter[str] = Counter()
    for question in questions:
        assert not question_problems(question.question, question.options, question.correct_index, NOTES[note])
        right = question.options[question.correct_index]
        wrong.update(o.casefold() for o in question.options if o != right)
        for option in question.options:
            if right[0].isalpha() and option[0].isalpha():
                assert option[0].isupper() == right[0].isupper(), (question.options, right)
        assert "Available" not in question.question
    assert max(wrong.values()) <= 2, wrong
    letters = Counter(LETTERS[q.correct_index] for q in questions)
    assert max(letters.values()) <= max(2, -(-len(questions) // 3)), letters


def test_quiz_distractors_come_from_other_notes_when_the_note_has_too_few(tmp_path: Path) -> None:
    # wrong options of the key's sort: bodies written as names ("the Royal Council"), never "the guillotine"
    america = """# American Revolution

In 1787 the delegates met in the **Constitutional Convention** in Philadelphia to write a new constitution.
Before that, each colony was run by a governor and the **Royal Council** appointed in London.
"""
    notes = {"History/French Revolution.md": NOTES["History/French Revolution.md"],
             "History/American Revolution.md": america}
    with indexed_vault(tmp_path, notes) as engine:
        _, text = generate(engine, "quiz", "History/French Revolution.md", count=12)
    options = {o for q in parse_quiz(text).questions for o in q.options}
    french = NOTES["History/French Revolution.md"]
    assert any(o not in french for o in options) and "Guillotine" not in options, options


def test_rendered_examples_and_cut_sentences_are_not_study_material(engine: Engine) -> None:
    note = "Markdown/Lists and paragraphs.md"
    paragraphs = [c for c in engine.store.catalog.chunks_of(note) if c.heading_path[-1:] == ("Paragraphs",)]
    assert len(paragraphs) >= 2, "the long section is cut into parts, a later one starting mid-sentence"
    _, cards = generate(engine, "flashcards", note, count=20)
    _, quiz = generate(engine, "quiz", note, count=20)
    for text in (cards, quiz):
        body = text.split("---", 2)[2]
        assert "First list item" not in body and "nested list item" not in body, body  # shows the code above
    questions = parse_quiz(quiz).questions
    assert questions and not [q for q in questions if "begins like this" in q.question]  # asks content, not layout


def test_same_note_gives_the_same_quiz(engine: Engine) -> None:
    first = parse_quiz(generate(engine, "quiz", "Obsidian/Internal links.md")[1]).questions
    second = parse_quiz(generate(engine, "quiz", "Obsidian/Internal links.md")[1]).questions
    assert [(q.question, q.options, q.correct_index) for q in first] == \
        [(q.question, q.options, q.correct_index) for q in second]


def _labels(node: dict[str, Any]) -> list[str]:
    return [node["label"]] + [label for child in node["children"] for label in _labels(child)]


@pytest.mark.parametrize("note", list(NOTES))
def test_mind_map_covers_every_heading(engine: Engine, note: str) -> None:
    _, text = generate(engine, "mindmap", note)
    labels = _labels(parse_mindmap(text)["root"])
    headings = [line.lstrip("#").strip() for line in NOTES[note].splitlines() if line.startswith("## ")]
    assert set(headings) <= set(labels)
    assert not [label for label in labels if label_problems(label)]
    assert len(labels) > len(headings) + 1  # key terms as leaves


def test_mind_map_of_a_selection_covers_that_part_only(engine: Engine) -> None:
    lines = NOTES["History/French Revolution.md"].splitlines()
    start = lines.index("## Causes") + 1
    end = lines.index("## Estates-General")
    result = asyncio.run(run_generation("mindmap", engine, StudyRequest(note="History/French Revolution.md",
                                                                        lines=(start, end)), None))
    labels = _labels(parse_mindmap((engine.vault / result.path).read_text("utf-8"))["root"])
    assert "Causes" in labels and "The Terror" not in labels and "Key events" not in labels


def test_validator_names_each_failure() -> None:
    source = "- Markdown: `[[Three laws of motion]]` and <b>bold</b>"
    assert card_problems("What does “Markdown” mean?", "`Three laws of motion`", source) == ["mangled_code"]
    assert card_problems("What is [[Three laws", "x", source) == ["mangled_link"]
    assert card_problems("What is <h1>This?", "Something", source) == ["raw_html"]
    assert card_problems("Same", "same", source) == ["back_equals_front"]
    assert card_problems("Front?", " ", source) == ["empty_back"]
    assert question_problems("Which one is the Settings pane?", ["Settings", "Search", "Canvas"], 0, source) == \
        ["answer_in_stem"]
    assert question_problems("Which one?", ["Canvas", "canvas", "Search"], 0, source) == ["duplicate_options"]
    assert question_problems("Wo ist das Tastenkürzel?", ["Tastenkombinationen", "Suche", "Canvas"], 0,
                             source) == []


def test_generation_bench_on_a_few_help_vault_notes(help_vault: Path, tmp_path: Path) -> None:
    notes = ["en/Plugins/Canvas.md", "en/Linking notes and files/Internal links.md",
             "de/Benutzeroberfläche/Tastenkürzel.md", "de/Notizen und Dateien verknüpfen/Aliasse.md"]
    assert all((help_vault / note).is_file() for note in notes)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "server"), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, str(REPO / "bench" / "bench_generation.py"), "--work", str(tmp_path),
                           "--notes", *notes], capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["notes"] == len(notes)
    for kind in ("flashcards", "quiz", "mindmap"):
        assert report[kind]["rejects"] == {"rejected": 0}, report["rejected_examples"][kind]
        assert report[kind]["items_written"] > 0
    assert report["mindmap"]["heading_coverage_min"] >= 0.9
    assert report["quiz"]["max_letter_share"] <= 0.4
