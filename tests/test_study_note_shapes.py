"""Study notes from notes of awkward shapes (issue 17): sections that share a title keep their own key terms on
the mind map; a note whose file name no wikilink can hold (``Notes [draft].md``) is studied, cited and found
again by every reader; a short note of sections, steps and questions still gives a quiz. Notes of our own,
keyword-indexed for real, generated with no model."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cognivault.engine import Engine
from cognivault.study.anki import export_anki
from cognivault.study.cards import parse_cards
from cognivault.study.citations import citation_status, parse_citations
from cognivault.study.mindmap import parse_mindmap
from cognivault.study.quiz import parse_quiz
from cognivault.study.review import ReviewDeck
from cognivault.study.schema import validate_frontmatter
from cognivault.study.validate import question_problems
from cognivault.vault.markdown import parse_note, read_frontmatter
from test_study_extractive import generate, indexed_vault

DRAFT = "Drafts/Notes [draft].md"
NEWLINE = "Drafts/new\nline.md"  # a legal file name on Linux: no wikilink, title or heading holds it on one line

NOTES = {
    "Languages.md": """# Languages

Two languages, each with an example of its own.

## Python

Python is a programming language that reads like plain English.

### Example

A **list comprehension** builds a list in one line, and a **generator expression** yields items lazily.

## Rust

Rust is a systems language that checks memory safety when it compiles.

### Example

The **borrow checker** rejects two writers at once, and a **lifetime** says how long a reference lives.
""",
    "Backups.md": """# Backups

Backups keep a copy of your vault somewhere safe.

## Backup schedule

Every night the app writes a zip archive to the folder you picked in settings.

### Quiet hours

The run starts at two in the morning, when the laptop is idle.

## Restoring

1. Open the Settings.
2. Select Restore.
3. Pick an archive.
4. Confirm the restore.

## Cleaning up

1. Open the Settings.
2. Select Clean up.
3. Confirm the removal.

## Tools

![[Languages#Rust]]

## FAQ

**How long are archives kept?**
Thirty days, after which the oldest archive is removed first.

**Can I store them on a network drive?**
Yes, any folder the operating system can write to works.

**Is the archive encrypted?**
No, so keep it in a place only you can reach. ^private
""",
    DRAFT: """# Notes [draft]

A draft is a first version of a note that is still open to change.

## Ideas

- **Seed** – a first thought worth keeping for later
- **Sprout** – a thought that grew into a paragraph
- **Sapling** – a paragraph that became a note of its own

## Plans

A plan is a list of steps that leads toward a goal.

## Review

A review is a second reading that decides what stays in the note.
""",
    NEWLINE: """# Line breaks

A line break is the end of a line that a reader sees in the text.

## Soft breaks

- **Soft break** – a single newline that the renderer joins into the paragraph
- **Hard break** – two spaces at the end of a line that the renderer keeps

## Paragraphs

A paragraph is a block of lines that a blank line separates from the next one.

## Headings

A heading is a line that starts with a hash and names the section below it.
""",
}


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    with indexed_vault(tmp_path_factory.mktemp("shapes"), NOTES) as engine:
        yield engine


def _find(node: dict[str, Any], label: str) -> list[dict[str, Any]]:
    return ([node] if node["label"] == label else []) + [n for c in node["children"] for n in _find(c, label)]


def test_sections_sharing_a_title_keep_their_own_key_terms(engine: Engine) -> None:
    root = parse_mindmap(generate(engine, "mindmap", "Languages.md")[1])["root"]
    python, rust = _find(root, "Python")[0], _find(root, "Rust")[0]
    examples = [_find(python, "Example"), _find(rust, "Example")]
    assert [len(found) for found in examples] == [1, 1]
    assert [[leaf["label"] for leaf in found[0]["children"]] for found in examples] == [
        ["list comprehension", "generator expression"], ["borrow checker", "lifetime"]]
    lines = NOTES["Languages.md"].splitlines()
    rust_example = engine.chunk(examples[1][0]["chunk_id"])
    assert rust_example is not None and rust_example.line_start > lines.index("## Rust")  # it links to its own


def _nodes(node: dict[str, Any]) -> list[dict[str, Any]]:
    return [node] + [n for child in node["children"] for n in _nodes(child)]


@pytest.mark.parametrize(("path", "title", "written", "sections"), [
    (DRAFT, "Notes [draft]", "[Notes draft](Drafts/Notes%20%5Bdraft%5D.md)", {"Ideas", "Plans", "Review"}),
    (NEWLINE, "new line", "[new line](Drafts/new%0Aline.md)", {"Soft breaks", "Paragraphs", "Headings"}),
])
def test_a_file_name_no_wikilink_can_hold_is_cited_with_a_markdown_link(engine: Engine, path: str, title: str,
                                                                         written: str, sections: set[str]) -> None:
    """Generate every kind from ``Notes [draft].md`` (or ``new⏎line.md``), then read each note back as each reader
    does: the schema, citations (hover, staleness), flashcards (plugin syntax, review, Anki), the quiz, the map,
    the frontmatter's source lookup that keeps generated notes below their sources, and the index's own link
    reading. Titles, headings and labels made from the file name are one line."""
    target = path.removesuffix(".md")
    notes = {kind: generate(engine, kind, path) for kind in ("flashcards", "quiz", "mindmap")}
    engine.index()  # the generated notes too
    for kind, (result, text) in notes.items():
        frontmatter = read_frontmatter(text)
        validate_frontmatter(frontmatter)
        assert frontmatter["source_notes"] == [written]
        assert "\n" not in frontmatter["title"] and frontmatter["title"].endswith(f" - {title}")
        assert f"# {frontmatter['title']}\n" in text and "\n" not in result.path
        citations = parse_citations(text)
        assert citations and {c.target for c in citations} == {target}, kind
        assert all(citation_status(c, engine.chunk(c.chunk_id)) == "ok" for c in citations)
        links = parse_note(text, result.path).links  # what the index and the language server follow
        assert {engine.resolver().resolve(link.target, result.path) for link in links} == {path}, kind
        assert engine.generated_notes().sources[result.path] == {path}
    cards_path = notes["flashcards"][0].path
    flashcards = parse_cards(notes["flashcards"][1], cards_path).flashcards
    assert len(flashcards) == notes["flashcards"][0].produced >= 3
    reviewed = ReviewDeck(engine.vault).cards(paths=[cards_path])
    assert len(reviewed) == len(flashcards)
    for card in reviewed:  # a reviewer reads the card, not the link
        assert "%" not in card.front + card.back and "](" not in card.back, card
        assert [s["target"] for s in card.sources] == [target]
    exported = "".join(f.text for f in export_anki(ReviewDeck(engine.vault), None, [cards_path], None))
    assert "%5B" not in exported and "%0A" not in exported and "](" not in exported
    quiz = parse_quiz(notes["quiz"][1])
    assert len(quiz.questions) >= 1 and all(s["target"] == target for q in quiz.sources for s in q)
    nodes = _nodes(parse_mindmap(notes["mindmap"][1])["root"])
    assert sections <= {n["label"] for n in nodes} and all("\n" not in n["label"] for n in nodes)
    assert {n["target"] for n in nodes} == {target}


def test_a_short_note_is_asked_about_its_steps_and_questions_not_its_layout(engine: Engine) -> None:
    """No question asks which section begins like this (the note's layout); a step is asked after another only
    where every list goes on the same way after it; a question in bold is asked back from its answer, among the
    note's other questions; a block id is no text."""
    quiz = generate(engine, "quiz", "Backups.md", count=20)[1]
    questions = parse_quiz(quiz).questions
    assert "^private" not in quiz  # a block id is hidden, as Obsidian hides it
    asked = {q.question: q.options[q.correct_index] for q in questions}
    assert not [q for q in questions if "begins like this" in q.question]
    assert asked["“Backups”: which step comes right after “Select Restore”?"] == "Pick an archive"
    assert not [q for q in asked if "after “Open the Settings”" in q]  # two lists go on differently after it
    faq = [q for q in questions if "answer like this" in q.question]
    assert faq and all(set(q.options) <= {"How long are archives kept?", "Can I store them on a network drive?",
                                          "Is the archive encrypted?"} for q in faq)
    assert asked["Which question does “Backups” answer like this: “Yes, any folder the operating system can write "
                 "to works”?"] == "Can I store them on a network drive?"
    for question in questions:
        assert not question_problems(question.question, question.options, question.correct_index,
                                     NOTES["Backups.md"]), question


FOLDED = """# Python lists

A **list** is a mutable, ordered sequence of items. Lists are written with square brackets: `[1, 2, 3]`.

## Slicing

`xs[1:3]` returns the items at index 1 and 2. Negative indices count from the end: `xs[-1]` is the last item.

## Complexity

Appending is amortised O(1); inserting at the front with `insert(0, x)` is O(n).

## Methods

- `append(x)` – adds `x` to the end of the list
- `pop()` – removes and returns the last item
- `sort()` – puts the items in order, in place
"""


def _heading_over(note: str, text: str) -> str | None:
    """The heading of the section whose text holds ``text`` (None before any heading below the title)."""
    heading = None
    for line in note.split("\n"):
        if line.startswith("## "):
            heading = line[3:]
        elif text.casefold() in line.casefold():
            return heading
    raise AssertionError(f"{text!r} is not in the note")


def test_a_card_from_a_small_section_cites_that_section(tmp_path: Path) -> None:
    """A passage that took in small sections (here one passage holds Slicing, Complexity and Methods) cites each
    card and question at the section its text stands in, so the link opens there, not at the passage's first
    heading; the note's opening cites the note."""
    with indexed_vault(tmp_path, {"Python lists.md": FOLDED}) as engine:
        assert len({c.heading_path for c in engine.store.catalog.chunks_of("Python lists.md")}) < 4  # folded
        cards, quiz = (generate(engine, kind, "Python lists.md", count=20)[1] for kind in ("flashcards", "quiz"))
    checked = 0
    for line in cards.split("\n"):
        citations = parse_citations(line)
        if not citations or "::" not in line and "==" not in line:
            continue
        quoted = re.sub(r"==|\s*\[\[.*", "", line.partition("::")[2] or line).split("; ")[0].rstrip(".")
        assert citations[0].heading == _heading_over(FOLDED, quoted), line
        checked += 1
    parsed = parse_quiz(quiz)
    for question, cited in zip(parsed.questions, parsed.sources, strict=True):
        sentence = question.explanation.split("; ")[0].rstrip(".").split(": ", 1)[-1]
        assert cited[0]["heading"] == _heading_over(FOLDED, sentence), question
        checked += 1
    assert checked >= 6


SUBJECTS = {
    "History/French Revolution.md": """# French Revolution

The French Revolution was a period of upheaval in France that ended the absolute monarchy.

## Causes

- **Financial crisis**: France was nearly bankrupt after the wars it had fought abroad.
- **Social inequality**: the Third Estate paid most taxes but had little political power.
- **Enlightenment ideas**: thinkers such as Rousseau questioned absolute rule.

## Outcome

Napoleon Bonaparte seized power in a coup in November 1799.
""",
    "Biology/Mitosis.md": """# Mitosis

Mitosis is the division of a cell nucleus into two identical nuclei.

## Phases

- **Prophase**: chromosomes condense and the spindle forms.
- **Metaphase**: chromosomes line up at the middle of the cell.
- **Anaphase**: sister chromatids are pulled to opposite poles.
""",
}


def test_wrong_options_come_from_the_subject_not_the_rest_of_the_vault(tmp_path: Path) -> None:
    """A quiz on a history note offers the note's own list items as each other's wrong options, never a term of
    a biology note in another top folder of the vault (the parent of a small folder is the vault itself), and never
    asks for the note's own name."""
    with indexed_vault(tmp_path, SUBJECTS) as engine:
        quiz = generate(engine, "quiz", "History/French Revolution.md", count=8)[1]
    causes = {"Financial crisis", "Social inequality", "Enlightenment ideas"}
    questions = parse_quiz(quiz).questions
    asked = [q for q in questions if q.options[q.correct_index] in causes]
    assert len(asked) == 3 and all(set(q.options) <= causes and len(q.options) == 3 for q in asked)
    assert not {"Prophase", "Metaphase", "Anaphase", "Mitosis"} & {o for q in questions for o in q.options}
    # the note's own name is the quiz's title: "The French Revolution" is never an answer to find
    assert not [q for q in questions if "french revolution" in q.options[q.correct_index].casefold()]
