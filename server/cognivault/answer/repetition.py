"""Noticing a model that loops ("Theft: Theft: Theft: …") while it streams, so the answer stops early.

Small models fall into repeating the same few words. :class:`LoopGuard` is fed
the answer text as it streams and says when it has started looping, either way:

- **a repeating tail**: the text ends in one piece of 1 to ``MAX_PERIOD``
  characters written ``MIN_REPEATS`` times or more in a row, covering at least
  ``MIN_SPAN`` characters (``"Theft: " * 12``, ``"!!!!…"``);
- **few new words**: among the last ``WINDOW_WORDS`` words, less than
  ``MIN_DISTINCT`` of the word triples are different ("1. Theft 2. Theft 3. Theft").

Both need more repetition than a real answer has (a list of settings, a table
row of "Yes | Yes"), so an answer is never stopped for being orderly.
"""

from __future__ import annotations

import re

MAX_PERIOD = 120
MIN_REPEATS = 4
MIN_SPAN = 60
WINDOW_WORDS = 48
MIN_DISTINCT = 0.35
_TAIL = MAX_PERIOD * MIN_REPEATS
_WORD = re.compile(r"\w+")


def repeating_tail(text: str) -> bool:
    """Whether ``text`` ends in one piece repeated ``MIN_REPEATS``+ times over ``MIN_SPAN``+ characters."""
    tail = text[-_TAIL:]
    for period in range(1, MAX_PERIOD + 1):
        repeats = max(MIN_REPEATS, -(-MIN_SPAN // period))
        span = period * repeats
        if span > len(tail):
            break
        piece = tail[-period:]
        if piece.strip() and tail[-span:] == piece * repeats:
            return True
    return False


def few_new_words(text: str) -> bool:
    """Whether the last ``WINDOW_WORDS`` words of ``text`` are mostly the same word triples."""
    found = _WORD.findall(text[-WINDOW_WORDS * 24:].casefold())[-WINDOW_WORDS:]
    if len(found) < WINDOW_WORDS:
        return False
    triples = list(zip(found, found[1:], found[2:], strict=False))
    return len(set(triples)) / len(triples) < MIN_DISTINCT


class LoopGuard:
    """Fed streamed text; ``looping`` turns True once the text has started repeating itself."""

    def __init__(self) -> None:
        self.text = ""
        self.looping = False

    def feed(self, piece: str) -> bool:
        """Add ``piece``; whether the text is looping now."""
        if self.looping or not piece:
            return self.looping
        self.text = (self.text + piece)[-max(_TAIL, WINDOW_WORDS * 24):]
        self.looping = repeating_tail(self.text) or few_new_words(self.text)
        return self.looping
