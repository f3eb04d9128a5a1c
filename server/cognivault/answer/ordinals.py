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

Counts are atoms too (:data:`CARDINAL_WORDS`): a question asking for the things of a list by their count ("What are
the *four* stages of …?", :func:`asked_count`) is answered by a list of that many, whose heading may write the count
in digits ("## The 4 stages", :func:`says_count`), or by the blocks after a sentence announcing them, each opening with
its ordinal ("[00:07:45] First, …", "Zweitens …", :func:`opening_ordinal`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# language -> (ordinal stems from one up, endings an ordinal takes after its stem)
ORDINAL_WORDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "en": (("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"),
           ("", "ly")),  # "Secondly, …"
    "de": (("erst", "zweit", "dritt", "viert", "fünft", "sechst", "siebt", "acht", "neunt", "zehnt"),
           ("e", "en", "er", "es", "em", "ens")),  # "Drittens, …" opens the third of a list
}
# language -> the cardinal numbers from two up ("the *four* stages", "aus *vier* Instrumenten"): a count the notes may
# write in digits ("## The 4 stages") or the other way round
CARDINAL_WORDS: dict[str, tuple[str, ...]] = {
    "en": ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"),
    "de": ("zwei", "drei", "vier", "fünf", "sechs", "sieben", "acht", "neun", "zehn", "elf", "zwölf"),
}
MIN_NUMBERED = 2  # a note numbers its sections when this many of its headings open with an ordinal

_WORD_NUMBER = {stem + ending: number for stems, endings in ORDINAL_WORDS.values()
                for number, stem in enumerate(stems, start=1) for ending in endings}
_CARDINAL_NUMBER = {word: number for cardinals in CARDINAL_WORDS.values()
                    for number, word in enumerate(cardinals, start=2)}
_WORD_RE = re.compile(r"[^\W\d_]+")
_TOKEN_RE = re.compile(r"\w+")
_LIST_MARKER = re.compile(r"^[ \t>]*\d{1,3}[.)][ \t]", re.MULTILINE)
COUNT_REACH = 3  # a count stands this many words before what it counts at most ("the 4 main types")
# the words a question asking for the things of a list opens with ("*What* are the four stages …?", "*Welche* vier
# Phasen …?", "*Name* the three …"): "*Kann* ich zwei Tastenkombinationen …" asks no list
LIST_ASKING = frozenset("what which name list welche welcher welches aus nenne nenn zähle".split())
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


def cardinal_of(word: str) -> int | None:
    """The number a cardinal word stands for, two and up ("four", "Vier": 4), or None."""
    return _CARDINAL_NUMBER.get(word.casefold())


def asked_count(question: str, nouns: Iterable[str]) -> int | None:
    """The count ``question`` asks a list of, the number before one of ``nouns`` (casefolded words of what it asks
    about) in a question asking what they are (``LIST_ASKING``): "What are the *four* stages of …?", "Aus welchen
    *vier* Instrumenten …?", "Name the 3 types"; or None."""
    wanted = set(nouns)
    said = _TOKEN_RE.findall(question.casefold())
    if not said or said[0] not in LIST_ASKING:
        return None
    for at, word in enumerate(said):
        number = int(word) if word.isdigit() else cardinal_of(word)
        if number is not None and 1 < number <= 12 and wanted & set(said[at + 1:at + 1 + COUNT_REACH]):
            return number
    return None


def says_count(text: str, number: int) -> bool:
    """Whether ``text`` says the count ``number``, in digits or in a word of any language ("4", "four", "vier")."""
    text = _LIST_MARKER.sub("", text)  # "3. Type III" numbers an item, it counts nothing
    return any(cardinal_of(word) == number for word in _WORD_RE.findall(text)) or \
        re.search(rf"(?<![\w.,]){number}(?![\w.,]\d)", text) is not None


_TIMESTAMP = re.compile(r"\s*(?:\*\*)?\[?\d{1,2}:\d{2}(?::\d{2})?\]?(?:\*\*)?\s*")  # "[00:07:45]", "**[02:15]**"


def opening_ordinal(text: str) -> int | None:
    """The number a block opens with as an ordinal, after a lecture's timestamp or an article if any ("[00:07:45]
    First, the maxim of quantity …", "Zweitens die Preispolitik", "The second is …", "2. Type II …"), or None."""
    stamp = _TIMESTAMP.match(text)
    opening = text[stamp.end():] if stamp else text.lstrip(" \t-*+")
    return heading_ordinal(_ARTICLE_FIRST.sub("", opening, count=1))


_ARTICLE_FIRST = re.compile(r"^(?:the|die|der|das)\s+(?=[^\W\d_]+)", re.IGNORECASE)  # "The second is …"
