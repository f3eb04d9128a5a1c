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
from cognivault.vault.guard import VaultPathError
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


def _after_the_last_check(monkeypatch, note: Path, editor) -> list[bool]:  # type: ignore[no-untyped-def]
    """Run ``editor()`` once, at the race point of a write into ``note``: right after the writer read the
    note for its last comparison and checked that the name still holds the file it read (its
    ``os.stat``), before the file is replaced. Returns a list that holds True once it ran."""
    real_read_fd, real_stat = atomic.read_fd, os.stat
    ran: list[bool] = []
    armed: list[bool] = []

    def read_fd(fd: int) -> bytes:
        data = real_read_fd(fd)
        if not ran and os.path.samestat(os.fstat(fd), real_stat(note)):
            armed.append(True)  # the comparison's read of the note: its name check comes next
        return data

    def stat(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        result = real_stat(path, *args, **kwargs)
        if armed and not ran and Path(path) == note:
            ran.append(True)
            editor()
        return result

    monkeypatch.setattr(atomic, "read_fd", read_fd)
    monkeypatch.setattr(os, "stat", stat)
    return ran


def test_an_edit_written_into_the_old_file_after_the_check_is_put_back(tmp_path: Path, monkeypatch) -> None:
    note, deck, card_id = _first_card(tmp_path)

    def append_through_the_open_file() -> None:
        with open(note, "a", encoding="utf-8") as handle:
            handle.write("\nWritten into the old file.\n")

    ran = _after_the_last_check(monkeypatch, note, append_through_the_open_file)
    outcome = deck.grade(card_id, 3, now=NOW)
    settle()
    text = note.read_text("utf-8")
    assert ran and "Written into the old file." in text
    assert f"<!--SR:!{outcome.due},{outcome.interval},{outcome.ease}-->" in text
    assert not list(note.parent.glob(".*.tmp")) and not list(note.parent.glob("* (conflict *)*"))


def test_an_in_place_save_between_the_check_and_the_replace_loses_nothing(tmp_path: Path, monkeypatch) -> None:
    """Pentest, issue 28: an editor saving in place (open with O_TRUNC, then write) right after the last
    comparison. What it had written so far was taken as the user's content and written back as the
    note, and the rest of its save went into a file no longer in the vault: the note lost its cards."""
    note, deck, card_id = _first_card(tmp_path)
    saved = note.read_text("utf-8") + "\nA third card::typed in the editor\n"
    head, tail = saved[:30], saved[30:]  # the save is half done when CogniVault replaces the note
    editor: list[int] = []

    def start_saving_in_place() -> None:
        editor.append(os.open(note, os.O_WRONLY | os.O_TRUNC))
        os.write(editor[0], head.encode("utf-8"))

    ran = _after_the_last_check(monkeypatch, note, start_saving_in_place)
    outcome = deck.grade(card_id, 3, now=NOW)
    os.write(editor[0], tail.encode("utf-8"))  # the editor finishes its save
    os.close(editor[0])
    settle()
    text = note.read_text("utf-8")
    assert ran and text.startswith("#flashcards\n\nFront::Back\n")
    assert "Second::Card" in text and text.endswith("A third card::typed in the editor\n")
    assert f"<!--SR:!{outcome.due},{outcome.interval},{outcome.ease}-->" in text


def test_a_note_half_saved_in_place_is_read_again_once_the_save_is_done(tmp_path: Path, monkeypatch) -> None:
    """Issue 28: never compute a change from a file being rewritten. The note was written a moment ago
    (its save may be under way): the grade waits for it to be quiet, then reads it again."""
    import time

    note, deck, card_id = _first_card(tmp_path)
    saved = note.read_text("utf-8") + "\nA third card::typed in the editor\n"
    editor = os.open(note, os.O_WRONLY | os.O_TRUNC)  # the editor's save has begun: half of it is there
    os.write(editor, saved[:30].encode("utf-8"))
    waited = []
    real_sleep = time.sleep

    def wait(seconds: float) -> None:  # CogniVault waits for the note to be quiet: the editor finishes meanwhile
        waited.append(seconds)
        if len(waited) == 1:
            os.write(editor, saved[30:].encode("utf-8"))
            os.close(editor)
        real_sleep(seconds)

    monkeypatch.setattr(time, "sleep", wait)
    outcome = deck.grade(card_id, 3, now=NOW)
    text = note.read_text("utf-8")  # at once: nothing left for the later look at the old file to repair
    assert waited and outcome.attempts == 1
    assert "Second::Card" in text and text.endswith("A third card::typed in the editor\n")
    assert f"<!--SR:!{outcome.due},{outcome.interval},{outcome.ease}-->" in text
    settle()
    assert note.read_text("utf-8") == text


def test_a_save_by_rename_between_the_check_and_the_replace_is_kept(tmp_path: Path, monkeypatch) -> None:
    """Pentest, issue 28: an editor or sync tool saving by rename after the check that the note is still
    the file compared, before the replace: its save was replaced by the grade (2 of 240 lines lost)."""
    note, deck, card_id = _first_card(tmp_path)

    def save_by_rename() -> None:
        staged = note.with_name(".Deck.md.editor")
        staged.write_text(note.read_text("utf-8") + "Saved by rename.\n", "utf-8")
        os.rename(staged, note)

    ran = _after_the_last_check(monkeypatch, note, save_by_rename)
    outcome = deck.grade(card_id, 3, now=NOW)
    settle()
    text = note.read_text("utf-8")
    assert ran and text.endswith("Saved by rename.\n") and outcome.attempts == 2
    assert f"<!--SR:!{outcome.due},{outcome.interval},{outcome.ease}-->" in text
    assert not list(note.parent.glob(".*.tmp")) and not list(note.parent.glob("* (conflict *)*"))


def test_grading_a_note_that_is_a_link_writes_its_target_inside_the_vault_only(tmp_path: Path) -> None:
    """Issue 28: grading a note that is a symbolic link replaced the link with a copy; a link to a note
    outside the vault is not written at all."""
    vault, note = _deck(tmp_path)
    real = note.rename(vault / "Study" / "Real.md")
    note.symlink_to("Real.md")
    deck = ReviewDeck(vault)
    deck.grade(deck.due(today=date(2025, 3, 10), paths=["Study/Deck.md"])[0].id, 3, now=NOW, path="Study/Deck.md")
    assert note.is_symlink() and "<!--SR:" in real.read_text("utf-8")

    outside = tmp_path / "outside.md"
    outside.write_text("#flashcards\n\nSecret::Outside\n", "utf-8")
    (vault / "Study" / "Away.md").symlink_to(outside)
    with pytest.raises(VaultPathError, match="outside the vault"):
        update_note(vault, vault / "Study" / "Away.md", lambda text: text + "graded\n")
    assert outside.read_text("utf-8") == "#flashcards\n\nSecret::Outside\n"


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
                 "answer/attachments.py", "answer/voice.py", "obsidian.py", "index/word_bridge.py"}
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
