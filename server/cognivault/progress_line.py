"""The one-line progress display of long work on a terminal: indexing (``cognivault index``, and the
first pass ``cognivault serve`` runs in the background), with rate and time left."""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cognivault.index.pipeline import Progress


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}" if seconds >= 3600 \
        else f"{seconds // 60}:{seconds % 60:02d}"


def progress_text(stage: str, done: int, total: int, elapsed_s: float, current: str = "") -> str:
    """One progress line: stage, bar, done/total with unit, rate and time left (once there is a rate)."""
    label, unit = {"read": ("reading", "files"), "embed": ("embedding", "chunks"), "finish": ("done", "files"),
                   "multilingual": ("German", "chunks"),
                   "scan": ("scanning", "files")}[stage]
    width = 24
    filled = min(width, int(width * done / total)) if total else width
    text = f"{label:9} [{'#' * filled}{'-' * (width - filled)}] {done}/{total} {unit}"
    if stage != "finish" and done > 0 and elapsed_s > 0:
        rate = done / elapsed_s
        text += f"  {rate:.0f}/s  {_duration((total - done) / rate)} left" if rate >= 1 \
            else f"  {rate * 60:.0f}/min  {_duration((total - done) / rate)} left"
    return f"{text}  {current[-40:]}" if current else text


class ProgressLine:
    """A one-line progress display on a terminal's stderr (silent when not a terminal).

    Rate and time left are per stage (files read, chunks embedded), measured from the stage's first event.
    """

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.last = 0.0
        self.stage = ""
        self.stage_started = 0.0

    def __call__(self, event: Progress) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if event.stage != self.stage:
            self.stage, self.stage_started = event.stage, now
        if now - self.last < 0.1 and event.stage != "finish":
            return
        self.last = now
        text = progress_text(event.stage, event.done, event.total, now - self.stage_started, event.current)
        sys.stderr.write(f"\r\x1b[2K{text}")
        if event.stage == "finish":
            sys.stderr.write("\n")
        sys.stderr.flush()
