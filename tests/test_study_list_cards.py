"""Cards and questions a student can use, read off the note's structure with no model (issue 17): a list item is
asked as its list means it (a cause, a phase, a character, a date, a command), a section opening with a list asks
for its items, and a German definition opens with any article ("Das Mitochondrium ist …"). Notes of our own,
keyword-indexed for real, generated with no model."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from cognivault.engine import Engine
from test_study_extractive import assert_cards_valid, cards_of, generate, indexed_vault

CELL = "Biologie/Zelle.md"

NOTES = {
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
