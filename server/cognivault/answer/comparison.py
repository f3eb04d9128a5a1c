"""The two things a question asks to compare, each by its own name.

"What is the difference between X and Y?", "Unterschied zwischen X und Y", "X vs. Y – what's the difference?",
"Compare X and Y": an answer quoting what the notes say of X alone answers half of it. :func:`compared_sides` reads
the two names out of the question (the words between what opens the comparison and the word joining the two, and
after it up to the end of the clause); :func:`names_side` tells whether a passage names one of them word for word,
in order, so "Council of the European Union" does not name the "European Council".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cognivault.index.analysis import words


@dataclass(frozen=True, slots=True)
class CompareWords:
    """One language's words around the two things a question compares (casefolded)."""

    opens: frozenset[str]  # what asks to compare ("difference", "compare") and what comes right before the things
    joins: tuple[str, ...]  # what joins the two things, strongest first ("vs" before "and")
    reflexive: frozenset[str] = frozenset()  # what goes with the asking verb ("wie unterscheidet *sich* X von Y")


COMPARE_WORDS: dict[str, CompareWords] = {
    "en": CompareWords(opens=frozenset({"difference", "differences", "differ", "differs", "different", "compare",
                                        "comparison", "contrast", "between", "what", "what's", "whats", "how", "is",
                                        "are", "does", "do"}),
                       joins=("vs", "versus", "and", "from", "or")),
    "de": CompareWords(opens=frozenset({"unterschied", "unterschiede", "unterscheidet", "unterscheiden", "vergleich",
                                        "vergleiche", "vergleichen", "zwischen", "was", "wie", "ist", "sind"}),
                       joins=("vs", "versus", "und", "oder", "von"), reflexive=frozenset({"sich"})),
}
_OPENS = frozenset().union(*(words.opens for words in COMPARE_WORDS.values()))
_REFLEXIVE = frozenset().union(*(words.reflexive for words in COMPARE_WORDS.values()))
_JOINS = tuple(dict.fromkeys(join for words in COMPARE_WORDS.values() for join in words.joins))
_BOUNDS = _OPENS | _REFLEXIVE | set(_JOINS) | {"|"}  # what the name of a thing compared never runs across
# (not "different": "a different set of plugins" asks no comparison)
_ASKS = frozenset(word for word in _OPENS if word[:4] in ("diff", "comp", "cont", "unte", "verg")
                  and word != "different") | {"vs", "versus"}
# a word, or what ends a clause: "–", "?", ",", ":" (the things compared never run across one)
_TOKEN = re.compile(r"[^\W_][\w'’-]*\.?|[–—?,:;!]|\s-\s")


def compared_sides(question: str) -> tuple[str, str] | None:
    """The two things ``question`` asks to compare, as written ("European Council", "Council of the EU"), or None
    when it asks no comparison or names no two things."""
    tokens = [token.strip().rstrip(".") if token[0].isalnum() else "|" for token in _TOKEN.findall(question)]
    folded = [token.casefold() for token in tokens]
    if not _ASKS & set(folded):
        return None
    for join in _JOINS:
        if join not in folded:
            continue
        at = folded.index(join)
        start = at
        while start > 0 and folded[start - 1] not in _BOUNDS:
            start -= 1
        end = at + 1
        while end < len(tokens) and folded[end] not in _BOUNDS:
            end += 1
        before = at
        if start == at and at > 1 and folded[at - 1] in _ASKS:
            start = before = at - 1  # "How does mitosis differ from meiosis?": the first thing is before "differ"
            while start > 0 and folded[start - 1] not in _BOUNDS:
                start -= 1
        left, right = " ".join(tokens[start:before]), " ".join(tokens[at + 1:end])
        if left and right:
            return left, right
    return None


def side_terms(analyzer: Any, side: str, lang: str | None) -> list[tuple[str, str]]:
    """The words of ``side`` in order, each with its term (stopwords left out)."""
    return [(word.casefold(), terms[0]) for word in words(side) if (terms := analyzer.terms_of_word(word, lang))]


def names_side(analyzer: Any, text: str, side: Sequence[tuple[str, str]], lang: str | None) -> bool:
    """Whether ``text`` says the words of ``side`` (:func:`side_terms`) in its order, side by side."""
    said = side_terms(analyzer, text, lang)
    size = len(side)
    return size > 0 and any(all(_alike(word, wanted) for word, wanted in zip(said[i:i + size], side, strict=True))
                            for i in range(len(said) - size + 1))


def _alike(word: tuple[str, str], wanted: tuple[str, str]) -> bool:
    """The same word in another form: the same term, spelled alike but for an ending ("councils", "elastischen";
    not "directly" for "directive", which a stemmer reads as one)."""
    (said, term), (name, key) = word, wanted
    shorter = min(len(said), len(name))
    return term == key and (said[:shorter - 1] == name[:shorter - 1] or shorter <= 3)
