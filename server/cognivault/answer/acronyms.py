"""Acronyms the vault spells out: "Court of Justice of the European Union (CJEU)", "TEU = Treaty on European Union".

A question may name a thing by its acronym where a note names it in full, or the other way round ("the Council of the
EU" and the heading "Council of the European Union"). The passages of an answer's pack that spell an acronym out say
which words it stands for; an acronym's tail stands for the tail of its words too ("EU" of "CJEU": "European Union").
A concept of the question that is such an acronym is found in a text that has all of its words
(``evidence.Concept.spelled``), and a phrase of the question with it is side by side where the text has the words in
their order (:func:`abbreviated`). :func:`acronyms_written` reads the acronyms a text writes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# Words an acronym skips ("Court of Justice of the European Union": CJEU), per language, casefolded.
CONNECTIVES: dict[str, frozenset[str]] = {
    "en": frozenset({"of", "on", "for", "and", "the", "in", "to", "a", "an"}),
    "de": frozenset({"der", "des", "die", "das", "dem", "den", "für", "und", "von", "vom", "zur", "zum", "im"}),
}
_SKIPPED = frozenset().union(*CONNECTIVES.values())
_BETWEEN = r"(?:\s+(?:" + "|".join(sorted(_SKIPPED)) + r"))*\s+"  # what may stand between an acronym's words
MAX_WORDS = 8  # an expansion longer than this is no acronym's
_WORD = r"[^\W\d_][\w-]*"
_SHORT = r"[A-ZÄÖÜ]{2,6}"
_LONG_THEN_SHORT = re.compile(rf"(?P<long>{_WORD}(?:[ \t]+{_WORD}){{0,{2 * MAX_WORDS}}})[ \t]*\((?P<short>{_SHORT})\)")
_SHORT_IS_LONG = re.compile(
    rf"(?<!\w)(?P<short>{_SHORT})[ \t]*[=:][ \t]*(?P<long>{_WORD}(?:[ \t]+{_WORD}){{0,{2 * MAX_WORDS}}})")
_WRITTEN = re.compile(r"\b[A-ZÄÖÜ][A-ZÄÖÜ0-9]+\b")  # "OSI", "EU", "SN2": the same in every language


def acronyms_written(text: str) -> set[str]:
    """The acronyms ``text`` writes as such, all capitals ("OSI", "EU", "SN2"), casefolded."""
    return {word.casefold() for word in _WRITTEN.findall(text)}


def _capitals(words: list[str], size: int) -> list[str] | None:
    """The first ``size`` capitalised words of ``words``, only connectives between them (None: there are not)."""
    found: list[str] = []
    for word in words:
        if len(found) == size:
            break
        if word[:1].isupper():
            found.append(word)
        elif word.casefold() not in _SKIPPED:
            return None
    return found if len(found) == size else None


def spelled_out(texts: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """Acronym (casefolded) -> the words it stands for (casefolded), as ``texts`` spell it out, with its tails."""
    found: dict[str, tuple[str, ...]] = {}
    for text in texts:
        pairs = [(m["short"], m["long"].split()[::-1], True) for m in _LONG_THEN_SHORT.finditer(text)]
        pairs += [(m["short"], m["long"].split(), False) for m in _SHORT_IS_LONG.finditer(text)]
        for short, words, backwards in pairs:
            capitals = _capitals(words, len(short))
            if capitals is None:
                continue
            if backwards:  # read from the acronym back: "… of the European Union (CJEU)"
                capitals.reverse()
            if "".join(word[0] for word in capitals).upper() != short:
                continue
            for start in range(len(short) - 1):  # "CJEU", "JEU", "EU"
                found.setdefault(short[start:].casefold(), tuple(word.casefold() for word in capitals[start:]))
    return found


def abbreviated(text: str, acronyms: dict[str, tuple[str, ...]]) -> str:
    """``text`` with each of ``acronyms``' words, where it has them in order, written as the acronym ("Council of the
    European Union": "Council of the eu"), so a phrase of the question with the acronym is found in it."""
    for short, spelled in acronyms.items():
        text = re.sub(r"(?<!\w)" + _BETWEEN.join(map(re.escape, spelled)) + r"(?!\w)", short, text, flags=re.IGNORECASE)
    return text
