"""Flashcards exported for Anki: text files its importer reads with every setting preset.

Anki's text import puts every row of a file into one note type, so the export
is two files: the question cards as ``Basic`` notes (``Front``, ``Back``,
``Tags``; a bidirectional card gives one note per direction, as the plugin
shows them), and the cloze cards as ``Cloze`` notes (``Text``, ``Back
Extra``, ``Tags``) whose deletions are Anki's ``{{c1::term}}``. Each file
starts with the header lines Anki (2.1.55+) reads: ``#separator:tab``,
``#html:true``, ``#notetype:``, ``#deck:``, ``#tags:``, ``#columns:`` and
``#tags column:``. Fields are tab-separated and quoted where they hold a tab or
a quote (doubled inside), or start with ``#``: Anki's reader takes an unquoted
``#`` at a row's start for a comment and drops the row without a word in its
import log. Citations and schedule comments stay behind in the vault.

The fields are HTML, written by the export so that every character reads as in
the vault: ``&``, ``<`` and ``>`` escaped, a line break as ``<br>``, and in a
cloze deletion's answer and hint ``:`` and ``}`` as character references, which
Anki's cloze syntax does not read (``==f(){}==`` would otherwise end its
deletion at the first ``}}``).

Cloze numbering follows the plugin's siblings: one card (``cN``) per deletion;
deletions numbered ``==x==[^1]`` share a card; deletions asked on several
cards of a ``[^ash]`` cloze get every such number (``{{c1,2::x}}``), and a
deletion no card asks stays plain text. A hint becomes ``{{c1::x::hint}}``.
"""

from __future__ import annotations

import html
import io
from dataclasses import dataclass
from pathlib import Path

from cognivault.study.cards import (
    DEFAULT_OPTIONS,
    Flashcard,
    ParserOptions,
    cloze_numbers,
    deletions_of,
    strip_comments,
)
from cognivault.study.citations import parse_citations, without_cited_links
from cognivault.study.review import DueCard, ReviewDeck

BASIC_COLUMNS = ("Front", "Back", "Tags")
CLOZE_COLUMNS = ("Text", "Back Extra", "Tags")


@dataclass(frozen=True, slots=True)
class AnkiFile:
    notetype: str  # Basic | Cloze
    text: str
    notes: int


def _plain(text: str) -> str:
    """Card text as the reviewer reads it: no comments (citation markers included), no cited links."""
    return without_cited_links(strip_comments(text), parse_citations(text))


def _html(text: str) -> str:
    """Text as an Anki field that reads the same: ``&``, ``<`` and ``>`` escaped, line breaks as ``<br>``."""
    return html.escape(text, quote=False).replace("\r\n", "\n").replace("\r", "\n").replace("\n", "<br>")


def _inside_cloze(text: str) -> str:
    """A deletion's answer or hint as HTML that Anki's cloze syntax (``::``, ``}}``) cannot cut short."""
    return _html(text).replace(":", "&#58;").replace("}", "&#125;")


def anki_cloze_text(text: str, options: ParserOptions = DEFAULT_OPTIONS) -> str:
    """A cloze flashcard's text as the HTML of an Anki Cloze note (see the module docstring)."""
    text = strip_comments(text)
    deletions = deletions_of(text, options)
    numbers = cloze_numbers(deletions)
    parts: list[str] = []
    cursor = 0
    for deletion, asked in zip(deletions, numbers, strict=True):
        parts.append(_html(text[cursor:deletion.start]))
        if asked:
            hint = f"::{_inside_cloze(deletion.hint)}" if deletion.hint else ""
            parts.append("{{c" + ",".join(str(n) for n in asked) + f"::{_inside_cloze(deletion.answer)}{hint}}}}}")
        else:
            parts.append(_html(deletion.answer))
        cursor = deletion.end
    parts.append(_html(text[cursor:]))
    return "".join(parts)


def deck_header(decks: set[str], deck_name: str | None) -> str:
    if deck_name:
        return deck_name
    if len(decks) == 1:
        return "CogniVault::" + next(iter(decks)).replace("/", "::")
    return "CogniVault"


def _tags(decks: list[str]) -> str:
    return " ".join("deck::" + d.replace("/", "::").replace(" ", "_") for d in decks)


def _field(text: str) -> str:
    """A field as Anki reads it back whole (see the module docstring for when it is quoted)."""
    if text.startswith("#") or any(c in text for c in '\t"'):
        return '"' + text.replace('"', '""') + '"'
    return text


def _file(notetype: str, columns: tuple[str, ...], rows: list[list[str]], deck: str) -> AnkiFile:
    out = io.StringIO()
    out.write(f"#separator:tab\n#html:true\n#notetype:{notetype}\n#deck:{deck}\n#tags:cognivault\n")
    out.write("#columns:" + "\t".join(columns) + f"\n#tags column:{len(columns)}\n")
    out.writelines("\t".join(_field(field) for field in row) + "\n" for row in rows)
    return AnkiFile(notetype, out.getvalue(), len(rows))


def basic_file(cards: list[DueCard], deck_name: str | None) -> AnkiFile:
    """The question cards (clozes excluded) as Basic notes."""
    chosen = [c for c in cards if c.kind != "cloze"]
    deck = deck_header({d for card in chosen for d in card.decks}, deck_name)
    return _file("Basic", BASIC_COLUMNS, [[_html(c.front), _html(c.back), _tags(c.decks)] for c in chosen], deck)


def cloze_file(flashcards: list[Flashcard], deck_name: str | None,
               options: ParserOptions = DEFAULT_OPTIONS) -> AnkiFile:
    """The cloze flashcards as Cloze notes, one note per cloze text (its siblings are the note's cards)."""
    chosen = [f for f in flashcards if f.kind == "cloze"]
    deck = deck_header({d for f in chosen for d in f.decks}, deck_name)
    rows = [[anki_cloze_text(_plain(f.text), options), "", _tags(f.decks)] for f in chosen]
    return _file("Cloze", CLOZE_COLUMNS, rows, deck)


def cloze_path(out: Path) -> Path:
    """Where the Cloze notes go next to ``out`` (``cards.txt`` → ``cards.cloze.txt``)."""
    return out.with_name(f"{out.stem}.cloze{out.suffix or '.txt'}")


def export_anki(deck: ReviewDeck, only_deck: str | None, paths: list[str] | None,
                deck_name: str | None) -> list[AnkiFile]:
    """The non-empty Anki files for the vault's (or a deck's, or a note's) flashcards: Basic, then Cloze."""
    files = [basic_file(deck.cards(deck=only_deck, paths=paths), deck_name),
             cloze_file([f for _, f in deck.flashcards(deck=only_deck, paths=paths)], deck_name, deck.options)]
    return [f for f in files if f.notes]
