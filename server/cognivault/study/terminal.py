"""The review's terminal interaction: one key per choice, and the next interval of each grade shown first.

On a terminal a grade is a single key press (no Enter), read in cbreak mode so Ctrl+C still
interrupts; piped input (scripts, tests), and Windows, are read a line at a time with the same answers. Before
grading, each grade button shows when the card would come back, as the SR plugin's buttons do.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import UTC, datetime
from typing import IO, Any

from cognivault.study.scheduler import RATING_NAMES

try:
    import termios
    import tty
except ImportError:  # Windows: no cbreak mode, lines it is
    termios = tty = None  # type: ignore[assignment]

END_OF_INPUT = ("\x04",)  # Ctrl+D on a terminal in cbreak mode


def read_choice(stdin: IO[str], stdout: IO[str], prompt: str, keys: str) -> str | None:
    """The user's answer to ``prompt``: ``""`` for Enter, else a key of ``keys`` (lower case), None at end.

    A terminal gives one key press, other keys are ignored; piped input gives the stripped line
    (the caller checks it, as typed lines may hold anything).
    """
    stdout.write(prompt)
    stdout.flush()
    if termios is None or not stdin.isatty():
        line = stdin.readline()
        if not line:
            stdout.write("\n")
            return None
        return line.strip().lower()
    descriptor = stdin.fileno()
    saved = termios.tcgetattr(descriptor)
    try:
        tty.setcbreak(descriptor)
        while True:
            key = os.read(descriptor, 1).decode("utf-8", "ignore").lower()
            if not key or key in END_OF_INPUT:
                stdout.write("\n")
                return None
            if key in ("\r", "\n"):
                stdout.write("\n")
                return ""
            if key in keys:
                stdout.write(f"{key}\n")
                return key
    finally:
        termios.tcsetattr(descriptor, termios.TCSADRAIN, saved)


AGAIN_IN_SESSION = "this session"  # what "again" gives while the session will show the card once more


def counted(count: int, noun: str) -> str:
    """``1 card``, ``2 cards``, ``0 days``: a count with its noun in the right number (English plurals in -s)."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def interval_label(days: int) -> str:
    """``1 day``, ``12 days``, ``2.5 months``, ``1.2 years``: how the plugin's buttons say it."""
    if days < 30:
        return counted(days, "day")
    if days < 365:
        return f"{days / 30:.1f} months"
    return f"{days / 365:.1f} years"


def grade_prompt(next_interval: Callable[[int], int], again_in_session: bool = False) -> str:
    """``1 again · 1 day   2 hard · 3 days   3 good · 8 days   4 easy · 21 days  (s skip, q quit) >``.

    With ``again_in_session`` the "again" button says the card comes back in this session (the
    relearning step), as Anki's shows "<10m": the day it is saved as due holds only if the session ends first.
    """
    def label(rating: int) -> str:
        return AGAIN_IN_SESSION if rating == 1 and again_in_session else interval_label(next_interval(rating))

    buttons = "   ".join(f"{rating} {RATING_NAMES[rating]} · {label(rating)}" for rating in (1, 2, 3, 4))
    return f"{buttons}  (s skip, q quit) > "


def interval_preview(deck: Any, card_id: str, path: str, now: datetime | None = None) -> Callable[[int], int]:
    """For a card of ``deck``: rating -> days until the next review if graded so now (nothing is written)."""
    now = now or datetime.now(UTC)
    _, _, card = deck.find(card_id, path)
    return lambda rating: deck.scheduler.review(card.schedule, rating, now).schedule.interval
