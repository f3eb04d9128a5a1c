"""The one writer into user notes: an edit saved at any moment of a CogniVault write survives (issue 13).

The failures this reproduces: an edit saved while the new content was being
fsynced or chmod-ed (the old check came before both), and an edit written
into the old file between the check and the rename. Then every writer into an
existing note takes this path (grading, a lesson filling a placeholder, an
outline's relink, a quiz's instructions), and a stress run: rounds of a grade,
a generated lesson and a user typing into the same notes at once, 0 bytes lost.
The suite runs a bounded number of rounds; ``bench/bench_note_writes.py`` runs 1,000.
"""

from __future__ import annotations

import os
import sys
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from cognivault import atomic
from cognivault.study.common import write_new_note
from cognivault.study.review import ReviewDeck
from cognivault.vault.notewriter import NoteConflict, settle, update_note

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from bench_note_writes import run_rounds  # noqa: E402

NOW = datetime(2025, 3, 10, 9, 0, tzinfo=UTC)
SUITE_ROUNDS = int(os.environ.get("COGNIVAULT_STRESS_ROUNDS", "60"))


def _deck(tmp_path: Path) -> tuple[Path, Path]:
    vault = tmp_path / "vault"
    (vault / "Study").mkdir(parents=True)
    note = vault / "Study" / "Deck.md"
    note.write_text("#flashcards\n\nFront::Back\n\nSecond::Card\n", "utf-8")
    return vault, note


def _first_card(tmp_path: Path) -> tuple[Path, ReviewDeck, str]:
    """The deck note, its review deck, and the id of its first card."""
    vault, note = _deck(tmp_path)
    deck = ReviewDeck(vault)
    return note, deck, deck.due(today=date(2025, 3, 10))[0].id


def test_an_edit_saved_while_the_new_file_is_fsynced_is_kept(tmp_path: Path, monkeypatch) -> None:
    note, deck, card_id = _first_card(tmp_path)
    real_fsync = os.fsync
    typed = []

    def fsync_while_the_user_saves(fd: int) -> None:
        real_fsync(fd)
        if not typed:  # the user's editor saves the note during CogniVault's fsync
            typed.append(True)
            with note.open("a", encoding="utf-8") as handle:
                handle.write("\nTyped during the fsync.\n")

    monkeypatch.setattr(os, "fsync", fsync_while_the_user_saves)
    outcome = deck.grade(card_id, 3, now=NOW)
    text = note.read_text("utf-8")
    assert "Typed during the fsync." in text
    assert f"<!--SR:!{outcome.due},{outcome.interval},{outcome.ease}-->" in text
    assert outcome.attempts == 2


def test_an_edit_written_into_the_old_file_after_the_check_is_put_back(tmp_path: Path, monkeypatch) -> None:
    note, deck, card_id = _first_card(tmp_path)
    real_replace = os.replace
    late = []

    def replace_after_a_late_write(source, target) -> None:  # type: ignore[no-untyped-def]
        if Path(target) == note and not late:
            late.append(True)
            # An editor that opened the note before the rename writes into the old file.
            with open(note, "a", encoding="utf-8") as handle:
                real_replace(source, target)
                handle.write("\nWritten into the old file.\n")
            return
        real_replace(source, target)

    monkeypatch.setattr(os, "replace", replace_after_a_late_write)
    outcome = deck.grade(card_id, 3, now=NOW)
    text = note.read_text("utf-8")
    assert "Written into the old file." in text
    assert f"<!--SR:!{outcome.due},{outcome.interval},{outcome.ease}-->" in text
    assert not list(note.parent.glob(".*.tmp"))


def test_an_editor_writing_into_the_old_file_after_the_grade_loses_nothing(tmp_path: Path) -> None:
    """An editor that opened the note before the rename and writes after it: its bytes land in the
    replaced file, which is looked at again a moment later (here: at once, with settle())."""
    note, deck, card_id = _first_card(tmp_path)
    with open(note, "a", encoding="utf-8") as editor:  # opened before the grade's rename...
        outcome = deck.grade(card_id, 3, now=NOW)
        editor.write("Saved by an editor that had the old file open.\n")  # ...written after it
    settle()
    text = note.read_text("utf-8")
    assert text.endswith("Saved by an editor that had the old file open.\n")
    assert f"<!--SR:!{outcome.due},{outcome.interval},{outcome.ease}-->" in text


def test_a_rewrite_of_the_old_file_is_kept_beside_the_note(tmp_path: Path) -> None:
    vault, note = _deck(tmp_path)
    with open(note, "r+", encoding="utf-8") as editor:
        update_note(vault, note, lambda text: text + "mine\n")
        editor.write("REWRITTEN")  # not an append: cannot be merged into the new note
    settle()
    assert note.read_text("utf-8").endswith("mine\n")
    [copy] = note.parent.glob("Deck (conflict *).md")
    assert copy.read_text("utf-8").startswith("REWRITTEN")


def test_a_note_that_keeps_changing_is_left_alone_with_a_conflict(tmp_path: Path) -> None:
    vault, note = _deck(tmp_path)

    def user_keeps_typing(attempt: int) -> None:
        with note.open("a", encoding="utf-8") as handle:
            handle.write(f"edit {attempt}\n")

    with pytest.raises(NoteConflict) as error:
        update_note(vault, note, lambda text: text + "mine\n", before_replace=user_keeps_typing)
    assert error.value.code == "note_conflict" and "\n" not in str(error.value)
    assert "mine" not in note.read_text("utf-8") and "edit 8" in note.read_text("utf-8")


def test_bytes_that_are_not_utf8_pass_through_a_grade(tmp_path: Path) -> None:
    vault, note = _deck(tmp_path)
    note.write_bytes(note.read_bytes() + b"\nLatin-1 left over: caf\xe9\n")
    deck = ReviewDeck(vault)
    deck.grade(deck.due(today=date(2025, 3, 10))[0].id, 3, now=NOW)
    assert note.read_bytes().endswith(b"\nLatin-1 left over: caf\xe9\n")


def test_a_placeholder_the_user_starts_typing_in_is_not_overwritten(tmp_path: Path, monkeypatch) -> None:
    vault = tmp_path / "vault"
    (vault / "Study").mkdir(parents=True)
    placeholder = vault / "Study" / "Lesson.md"
    placeholder.write_text("", "utf-8")
    real_fsync = os.fsync

    def fsync_while_the_user_types(fd: int) -> None:
        real_fsync(fd)
        if placeholder.stat().st_size == 0:
            placeholder.write_text("My own lesson notes.\n", "utf-8")

    monkeypatch.setattr(os, "fsync", fsync_while_the_user_types)
    written = write_new_note(vault, vault / "Study", "Lesson", "# Generated lesson\n", fill_placeholder=True)
    assert placeholder.read_text("utf-8") == "My own lesson notes.\n"
    assert written == "Study/Lesson 2.md"
    assert (vault / written).read_text("utf-8") == "# Generated lesson\n"


def test_every_writer_into_an_existing_note_goes_through_update_note() -> None:
    """No module replaces a file in the vault on its own: atomic writes of whole files are only
    for CogniVault's own data (index, progress, sessions) or new notes (atomic_create)."""
    package = Path(atomic.__file__).resolve().parent
    allowed = {"atomic.py", "vault/notewriter.py"}
    # Files that are not user notes: CogniVault's own data, model files, temp files, an Anki export
    # the user names (--out), URL import state (its notes go through atomic_create), the Obsidian plugin.
    not_notes = {"index/lexical.py", "index/dense.py", "answer/sessions.py", "answer/cache.py",
                 "companion/runner.py", "study/progress.py", "study/badges.py", "study/commands.py",
                 "urlimport.py", "models/embedded.py", "vault/extractors/audio.py", "index/store.py",
                 "answer/attachments.py", "answer/voice.py", "obsidian.py"}
    offenders = []
    for path in package.rglob("*.py"):
        relative = path.relative_to(package).as_posix()
        text = path.read_text("utf-8")
        if relative in allowed or relative in not_notes:
            continue
        if any(call in text for call in ("atomic_writer(", "atomic_write_text(", "atomic_write_bytes(",
                                          "os.replace(", ".replace(tmp", "write_text(", "write_bytes(")):
            offenders.append(relative)
    assert offenders == []


def test_rounds_of_grades_lessons_and_typing_at_once_lose_nothing(tmp_path: Path) -> None:
    """The stress run, bounded for the suite (the 1,000-round run is bench/bench_note_writes.py)."""
    result = run_rounds(tmp_path, SUITE_ROUNDS)
    assert result["rounds"] == SUITE_ROUNDS
    assert result["user_lines_lost"] == 0 and result["user_bytes_lost"] == 0
    assert result["lessons_lost"] == 0
    assert result["error_count"] == 0, result["errors"]
    assert result["grades_saved"] == SUITE_ROUNDS and result["grades_refused"] == 0
    assert result["cards_with_a_schedule"] == min(SUITE_ROUNDS, 12)
