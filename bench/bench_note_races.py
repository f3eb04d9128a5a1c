"""Grading while an editor saves the same note, as the pentest of issue 28 did: is anything lost?

Four threads grade the cards of one note (6 cards) for ``--seconds`` while an editor in another
process saves it every ~10 ms, in one of two ways:

- ``in-place``: like an editor that reloads a note changed on disk and saves it in place: read
  the note, open it with O_TRUNC, write it in two halves (a save under way for a moment);
- ``rename``: like an editor or sync tool that saves by rename: read the note, write it with one
  more numbered line to a temp file, rename that over the note.

Afterwards: how many of the 6 cards are still in the note (before the fix, the in-place run lost
all 6 in 45 s: a half-written file was written back as the note), how many of the lines the
rename editor added are still there (before: 2 of 240 lost), and the grades saved or refused.
Prints one JSON document.

    .venv/bin/python bench/bench_note_races.py [--seconds 45] [--mode in-place|rename|both]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from _common import emit

CARDS = 6
EDITOR = """
import os, sys, time
note, mode, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
end, saves = time.monotonic() + seconds, 0
while time.monotonic() < end:
    with open(note, "rb") as handle:
        text = handle.read()
    if mode == "in-place":
        fd = os.open(note, os.O_WRONLY | os.O_TRUNC)
        os.write(fd, text[:len(text) // 2])
        time.sleep(0.0005)  # the save is half done for a moment
        os.write(fd, text[len(text) // 2:])
        os.close(fd)
    else:
        staged = note + ".editor-tmp"
        with open(staged, "wb") as handle:
            handle.write(text + f"editor line {saves}\\n".encode())
        os.rename(staged, note)
    saves += 1
    time.sleep(0.01)
print(saves)
"""


def run(mode: str, seconds: float) -> dict[str, Any]:
    from cognivault.study.review import ReviewConflict, ReviewDeck
    from cognivault.vault.notewriter import settle

    with tempfile.TemporaryDirectory(prefix="cognivault-races-") as folder:
        vault = Path(folder) / "vault"
        (vault / "Study").mkdir(parents=True)
        note = vault / "Study" / "Deck.md"
        fronts = [f"Question {n}" for n in range(1, CARDS + 1)]
        note.write_text("#flashcards\n\n" + "".join(f"{front}::Answer {n}\n\n" for n, front in enumerate(fronts, 1)),
                        "utf-8")
        editor = subprocess.Popen([sys.executable, "-c", EDITOR, str(note), mode, str(seconds)],
                                  stdout=subprocess.PIPE, text=True)
        counts = {"saved": 0, "conflicts": 0, "card_changed": 0, "errors": 0}
        errors: list[str] = []
        guard = threading.Lock()
        end = time.monotonic() + seconds

        def grade(worker: int) -> None:
            deck = ReviewDeck(vault)
            n = worker
            while time.monotonic() < end:
                n += 1
                try:
                    cards = deck.cards()
                    if not cards:
                        outcome = "card_changed"
                    else:
                        deck.grade(cards[n % len(cards)].id, 1 + n % 4, path=cards[n % len(cards)].path)
                        outcome = "saved"
                except ReviewConflict:
                    outcome = "conflicts"
                except LookupError:  # the card's text was mid-save: refused, not written
                    outcome = "card_changed"
                except Exception as exc:  # noqa: BLE001 - counted and shown
                    outcome = "errors"
                    errors.append(f"{type(exc).__name__}: {exc}")
                with guard:
                    counts[outcome] += 1

        threads = [threading.Thread(target=grade, args=(worker,)) for worker in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        saves = int((editor.communicate()[0] or "0").strip() or 0)
        settle()
        text = note.read_text("utf-8", errors="replace")
        extra = sorted(p.name for p in note.parent.iterdir() if p.name != note.name)
        result: dict[str, Any] = {
            "mode": mode, "seconds": seconds, "editor_saves": saves, "grades": counts, "errors": errors[:5],
            "cards_kept": sum(f"{front}::" in text for front in fronts), "cards": CARDS,
            "note_bytes": len(text.encode()), "other_files": extra[:5]}
        if mode == "rename":
            result["editor_lines_kept"] = sum(f"editor line {n}\n" in text for n in range(saves))
            result["editor_lines"] = saves
        return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=45.0, help="length of each run (the pentest: 45)")
    parser.add_argument("--mode", choices=["in-place", "rename", "both"], default="both")
    args = parser.parse_args()
    modes = ["in-place", "rename"] if args.mode == "both" else [args.mode]
    emit({"benchmark": "note_races", "runs": [run(mode, args.seconds) for mode in modes]})


if __name__ == "__main__":
    main()
