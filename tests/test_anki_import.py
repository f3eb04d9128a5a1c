"""Anki's own importer judges `cognivault export anki`: every exported card arrives in Anki as meant.

The export is imported into a fresh collection with the real Anki code (the
``anki`` package, its Rust backend's CSV import) taking the files' header lines
as they are, the way Anki's import dialog presets them. Fields are compared as a
reviewer sees them: Anki stores them as HTML, so the comparison unescapes them.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from anki.collection import Collection
from anki.import_export_pb2 import ImportCsvRequest
from anki.notes import Note

from cognivault.cli import main
from cognivault.study.review import ReviewDeck

# Every shape the export writes: basic, bidirectional (one note per direction), multi-line (with a
# quote and a tab), multi-line bidirectional, clozes with a hint and a numbered group; text with
# inline code holding [[links]], bold, a ==highlight==, a #tag, HTML-looking text, German, fields
# that start with "#" (Anki reads an unquoted "#" at a row's start as a comment line), and cloze
# answers and hints holding "}}" and ":" (Anki's cloze syntax).
DECK = """---
tags: [flashcards/sprachen]
---
# Karten

What does `[[Note]]` do in a **card**?::It links to ==Note==, tagged #wiki
Größe:::Über 5 µm — „Zitat“
<b>not bold</b> & a < b?::Literal <i>HTML</i> &amp; stays
#1 rule::Never give up
<!--SR:!2024-03-01,4,250-->

Question on
two lines with "quotes"
?
A tab\there

Rückseite
??
#2 Vorderseite

The ==Calvin cycle== runs in the ==stroma==^[a place], see `[[Cells]]`.

Jinja ends an expression with ==}}== and a statement with ==%}==^[not: }}], as in ==f(){}==.

#flashcards/sprachen/deutsch
#3 ==Straße== heißt ==street==[^1] oder ==road==[^1].
"""

BASIC = [  # (Front, Back) as meant
    ("What does `[[Note]]` do in a **card**?", "It links to ==Note==, tagged #wiki"),
    ("Größe", "Über 5 µm — „Zitat“"),
    ("Über 5 µm — „Zitat“", "Größe"),
    ("<b>not bold</b> & a < b?", "Literal <i>HTML</i> &amp; stays"),
    ("#1 rule", "Never give up"),
    ('Question on\ntwo lines with "quotes"', "A tab\there"),
    ("Rückseite", "#2 Vorderseite"),
    ("#2 Vorderseite", "Rückseite"),
]
CLOZE = [  # (text read on the answer side, per card: (gaps its question shows, answers it reveals), tags)
    ("The Calvin cycle runs in the stroma, see `[[Cells]]`.",
     [(["[...]"], ["Calvin cycle"]), (["[a place]"], ["stroma"])], ["cognivault", "deck::sprachen"]),
    ("Jinja ends an expression with }} and a statement with %}, as in f(){}.",
     [(["[...]"], ["}}"]), (["[not: }}]"], ["%}"]), (["[...]"], ["f(){}"])], ["cognivault", "deck::sprachen"]),
    ("#3 Straße heißt street oder road.",
     [(["[...]", "[...]"], ["street", "road"]), (["[...]"], ["Straße"])], ["cognivault", "deck::sprachen::deutsch"]),
]


def as_read(field: str) -> str:
    """A field as the reviewer reads it: Anki keeps fields as HTML."""
    return html.unescape(field.replace("<br>", "\n"))


def rendered_text(side: str) -> str:
    """A card side Anki rendered, as the reviewer reads it (its style sheet and tags left out)."""
    return as_read(re.sub(r"<(?!br>)[^>]+>", "", side.split("</style>")[-1])).strip()


def active_gaps(side: str) -> list[str]:
    """What a rendered cloze card shows in place of (question) or as (answer) the deletions it asks."""
    return [as_read(gap) for gap in re.findall(r'<span class="cloze"[^>]*>(.*?)</span>', side)]


def cloze_as_reviewed(note: Note) -> tuple[str, list[tuple[list[str], list[str]]], list[str]]:
    """A Cloze note as reviewed in Anki: its text read in full, then what each card (c1, c2, ...) hides and reveals."""
    cards = sorted(note.cards(), key=lambda card: card.ord)
    return (rendered_text(cards[0].answer()),
            [(active_gaps(card.question()), active_gaps(card.answer())) for card in cards], note.tags)


def test_anki_imports_every_exported_card_as_meant(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Karten.md").write_text(DECK, "utf-8")
    out = tmp_path / "cards.txt"
    assert main(["export", "anki", "--vault", str(vault), "--out", str(out), "--json"]) == 0
    files = json.loads(capsys.readouterr().out)["files"]
    assert [(f["notetype"], f["notes"]) for f in files] == [("Basic", len(BASIC)), ("Cloze", len(CLOZE))]

    col = Collection(str(tmp_path / "collection.anki2"))
    try:
        for exported in files:
            path = str(Path(exported["path"]).resolve())
            log = col.import_csv(ImportCsvRequest(path=path, metadata=col.get_csv_metadata(path, None))).log
            assert log.found_notes == exported["notes"] == len(log.new)
            assert not (log.updated or log.duplicate or log.conflicting or log.first_field_match
                        or log.missing_notetype or log.missing_deck or log.empty_first_field)

        notes = [col.get_note(nid) for nid in col.find_notes("")]
        by_type = {name: [n for n in notes if n.note_type()["name"] == name] for name in ("Basic", "Cloze")}
        assert len(notes) == sum(len(found) for found in by_type.values())
        assert sorted((as_read(n["Front"]), as_read(n["Back"])) for n in by_type["Basic"]) == sorted(BASIC)
        assert all(n.tags == ["cognivault", "deck::sprachen"] for n in by_type["Basic"])
        assert {col.decks.name(c.did) for n in by_type["Basic"] for c in n.cards()} == {"CogniVault::sprachen"}
        assert sorted(cloze_as_reviewed(n) for n in by_type["Cloze"]) == sorted(CLOZE)
        assert all(n["Back Extra"] == "" for n in by_type["Cloze"])
        # Anki makes as many cards as the plugin reviews: one per direction, one per cloze sibling.
        assert col.card_count() == len(ReviewDeck(vault).cards()) == len(BASIC) + sum(len(c[1]) for c in CLOZE)
    finally:
        col.close()
