"""Nothing lost when CogniVault and the user write the same notes at once: grade/generate/type rounds.

Each round, at the same moment: a card of ``Study/Deck.md`` is graded (its schedule comment
rewritten), a generated lesson fills the empty placeholder ``Lessons/Lesson N.md``, and the
user (another process, like an editor) appends a line to both notes. Afterwards every line
the user typed must be in its note, every lesson in one of its two names, every grade saved
(or refused with a reason, never silently dropped). Prints one JSON document (issue 13 target:
1,000 rounds, 0 bytes lost); the test suite runs a bounded number of rounds of the same code.

    .venv/bin/python bench/bench_note_writes.py [--rounds 1000]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from _common import emit

CARDS = 12
USER = """
import sys
from pathlib import Path
deck, lessons = Path(sys.argv[1]), Path(sys.argv[2])
for line in sys.stdin:
    n = int(line)
    for path, text in ((deck, f"user line {n}\\n"), (lessons / f"Lesson {n}.md", f"user typed {n}\\n")):
        with open(path, "a", encoding="utf-8") as handle:  # what an editor appending does
            handle.write(text)
    sys.stdout.write("ok\\n")
    sys.stdout.flush()
"""


def run_rounds(root: Path, rounds: int) -> dict[str, Any]:
    """Run ``rounds`` rounds in a fresh vault under ``root``; the counts of what was kept and lost."""
    from cognivault.study.common import write_new_note
    from cognivault.study.review import ReviewConflict, ReviewDeck
    from cognivault.vault.notewriter import settle

    vault = root / "stress-vault"
    deck_note = vault / "Study" / "Deck.md"
    lessons = vault / "Lessons"
    deck_note.parent.mkdir(parents=True)
    lessons.mkdir()
    deck_note.write_text("#flashcards\n\n" + "\n\n".join(f"Question {i}::Answer {i}" for i in range(CARDS)) + "\n\n",
                         "utf-8")
    deck = ReviewDeck(vault)
    card_ids = [card.id for card in deck.cards()]
    user = subprocess.Popen([sys.executable, "-c", USER, str(deck_note), str(lessons)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, bufsize=1)
    saved = refused = redone = 0
    errors: list[str] = []
    started = time.perf_counter()
    try:
        for n in range(rounds):
            (lessons / f"Lesson {n}.md").write_text("", "utf-8")  # the link to a lesson not written yet
            outcome: dict[str, bool] = {}

            def grade(n: int = n, outcome: dict[str, bool] = outcome) -> None:
                try:
                    graded = deck.grade(card_ids[n % CARDS], 3, path="Study/Deck.md",
                                        now=datetime(2025, 3, 10, 9, tzinfo=UTC))
                    outcome["graded"] = True
                    outcome["redone"] = graded.attempts > 1
                except ReviewConflict:
                    outcome["graded"] = False
                except Exception as exc:  # noqa: BLE001 - counted and shown
                    errors.append(f"grade {n}: {exc!r}")

            def generate(n: int = n) -> None:
                try:
                    write_new_note(vault, lessons, f"Lesson {n}", f"# Lesson {n}\n\ngenerated {n}\n",
                                   fill_placeholder=True)
                except Exception as exc:  # noqa: BLE001 - counted and shown
                    errors.append(f"lesson {n}: {exc!r}")

            workers = [threading.Thread(target=grade), threading.Thread(target=generate)]
            assert user.stdin is not None and user.stdout is not None
            user.stdin.write(f"{n}\n")
            for worker in workers:
                worker.start()
            for worker in workers:
                worker.join()
            if user.stdout.readline() != "ok\n":
                raise RuntimeError("the typing process stopped")
            saved += outcome.get("graded") is True
            redone += outcome.get("redone") is True
            refused += outcome.get("graded") is False
    finally:
        if user.stdin:
            user.stdin.close()
        user.wait(timeout=30)
        settle()  # the last notes replaced are looked at once more now, not a moment later
    elapsed = time.perf_counter() - started

    everything = {path: path.read_text("utf-8") for path in vault.rglob("*.md")}
    deck_text = everything[deck_note]
    lost: list[str] = []
    lessons_lost = 0
    for n in range(rounds):
        line = f"user line {n}\n"
        if deck_text.count(line) != 1:
            lost.append(line)
        typed = f"user typed {n}\n"
        if typed not in everything.get(lessons / f"Lesson {n}.md", ""):
            lost.append(typed)
        if not any(f"generated {n}\n" in everything.get(lessons / name, "")
                   for name in (f"Lesson {n}.md", f"Lesson {n} 2.md")):
            lessons_lost += 1
    graded = sum(1 for card in ReviewDeck(vault).cards(paths=["Study/Deck.md"]) if not card.is_new)
    return {"rounds": rounds, "seconds": round(elapsed, 2), "grades_saved": saved, "grades_refused": refused,
            "grades_redone_after_a_user_edit": redone,
            "cards_with_a_schedule": graded, "user_lines_lost": len(lost),
            "user_bytes_lost": sum(len(line) for line in lost), "lost_lines": lost[:5],
            "lessons_lost": lessons_lost, "lessons_into_placeholder": sum(
                1 for n in range(rounds) if f"generated {n}\n" in everything.get(lessons / f"Lesson {n}.md", "")),
            "conflict_copies": sum(1 for path in everything if "(conflict" in path.name), "errors": errors[:5],
            "error_count": len(errors)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="cognivault-note-writes-") as folder:
        emit(run_rounds(Path(folder), args.rounds))


if __name__ == "__main__":
    main()
