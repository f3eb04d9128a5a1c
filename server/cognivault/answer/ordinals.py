"""Ordinal numbers as atoms shared by every language: "the *second* law", "das *dritte* Gesetz", "the *2nd* law".

A note that numbers its sections ("## 2. Hauptsatz", "## 3rd law – actio = reactio") is asked about one of them by
its number, in whatever language the question is in: "second" and "2." are one thing to a reader, though no index
term links them. :func:`asked_ordinals` reads the numbers a question asks for, :func:`numbers` tells whether a
heading opens with that number, :func:`numbered_sections` whether a note numbers its sections at all (two
headings or more so numbered: a series the question picks one of, not a note that happens to open with "1."), and
:func:`series` what a numbered heading counts ("law" of "3rd law"), so the other sections of the same series
("1st law", "2nd law") are known as other things than the one asked, while "2. Course of the war" is not a sibling
of "1. Causes".

The ordinal words are per-language data (:data:`ORDINAL_WORDS`): each language's stems, with the endings its
ordinals take (German declines them: "dritte", "dritten", "dritter").
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# language -> (ordinal stems from one up, endings an ordinal takes after its stem)
ORDINAL_WORDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "en": (("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"), ("",)),
    "de": (("erst", "zweit", "dritt", "viert", "fünft", "sechst", "siebt", "acht", "neunt", "zehnt"),
           ("e", "en", "er", "es", "em")),
}
MIN_NUMBERED = 2  # a note numbers its sections when this many of its headings open with an ordinal

_WORD_NUMBER = {stem + ending: number for stems, endings in ORDINAL_WORDS.values()
                for number, stem in enumerate(stems, start=1) for ending in endings}
_WORD_RE = re.compile(r"[^\W\d_]+")
# "2nd", "3rd", "4th", and "2." before a word ("2. Hauptsatz", "die 4. Normalform"), never inside a date or a number
DIGIT_ORDINAL = r"(?<![\w.])(?P<number>\d{1,2})(?:st|nd|rd|th\b|\.(?=\s+[^\W\d_]))"
_DIGIT_RE = re.compile(DIGIT_ORDINAL, re.IGNORECASE)
_SUFFIXED_RE = re.compile(r"(?P<number>\d{1,2})(?:st|nd|rd|th)")


def ordinal_of(word: str) -> int | None:
    """The number an ordinal word stands for ("second", "Dritte", "3rd": 2, 3, 3), or None."""
    folded = word.casefold()
    if folded in _WORD_NUMBER:
        return _WORD_NUMBER[folded]
    digits = _SUFFIXED_RE.fullmatch(folded)
    return int(digits["number"]) if digits else None


def asked_ordinals(question: str) -> set[int]:
    """The ordinal numbers ``question`` names, as words or digits ("the second law", "das 3. Gesetz")."""
    found = {_WORD_NUMBER[word.casefold()] for word in _WORD_RE.findall(question) if word.casefold() in _WORD_NUMBER}
    return found | {int(match["number"]) for match in _DIGIT_RE.finditer(question)}


def heading_ordinal(heading: str) -> int | None:
    """The number a heading opens with as an ordinal ("2. Hauptsatz", "3rd law – …", "Second law"), or None."""
    text = heading.lstrip("#* _").strip()
    digits = _DIGIT_RE.match(text)
    if digits:
        return int(digits["number"])
    first = _WORD_RE.match(text)
    return _WORD_NUMBER.get(first.group().casefold()) if first else None


def series(heading: str) -> str:
    """What a numbered heading counts, the word after its ordinal ("2. Hauptsatz", "3rd law – …": "hauptsatz",
    "law"; "" when it opens with no ordinal): sections of one series count the same thing."""
    text = heading.lstrip("#* _").strip()
    opening = _DIGIT_RE.match(text) or _WORD_RE.match(text)
    if opening is None or heading_ordinal(heading) is None:
        return ""
    following = _WORD_RE.search(text, opening.end())
    return following.group().casefold() if following else ""


def numbers(heading: str, wanted: Iterable[int]) -> bool:
    """Whether ``heading`` opens with one of the ordinal numbers ``wanted``."""
    return heading_ordinal(heading) in set(wanted)


def numbered_sections(headings: Iterable[str]) -> bool:
    """Whether a note's headings number its sections (``MIN_NUMBERED`` of them open with an ordinal)."""
    return len({n for heading in headings if (n := heading_ordinal(heading)) is not None}) >= MIN_NUMBERED
