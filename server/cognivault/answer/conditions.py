"""What term a question asks the condition of, and whether a passage states that condition.

"When is demand called elastic?", "When does an image count as overexposed?", "Ab wann gilt ein Vulkan als aktiv?",
"Wann spricht man von Sturm?": the question asks under what condition a term applies (a threshold, an inequality, an
"if"/"wenn" clause), not what the notes say about the term. The note's list of what elasticity depends on mentions
"elastic" as often as the question's other words; the line "elastic: |ε| > 1" answers. :func:`asked_condition` reads
the term out of a question opening with ``LanguageWords.condition_openers`` after the words naming it
(``LanguageWords.condition_namings``); :func:`states_condition` tells whether a text names the term, in a line or
sentence that also says a condition: a condition word (``LanguageWords.conditions``), a comparison sign, or a number
with a word bounding it (``limits``, ``thresholds``: "at least 6 g", "ab Bft 8") or after the term as its label
("- fast: f/2.8 or wider").
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from cognivault.answer.comparison import names_side, side_terms
from cognivault.vault.reading import ALL_ARTICLES, WORDS

MAX_CONDITION_TERM_WORDS = 4  # a longer "when is X called …?" names more than a term
_COMPARISON_SIGN = re.compile(r"[<>≤≥≦≧]|(?<![\w=])=(?!=)")
_DIGIT = re.compile(r"\d")
_LINE_BREAK = re.compile(r"\n+|(?<=[.!?;])\s+(?=[A-ZÄÖÜ\W])")
_LABEL = re.compile(r"^[\s>*+\-\d.)|]*(?:\*\*|__|\*)?(?P<label>[^:\n]{1,60}?)(?:\*\*|__|\*)?\s*(?::|=|[–—]\s)")


def _phrase_pattern(phrase: str) -> str:
    # "count … as": the thing asked about stands between the words (up to a few words)
    return r"(?:\s+\S+){0,5}?\s+".join(re.escape(part.strip()).replace(r"\ ", r"\s+")
                                        for part in phrase.split("…"))


@cache
def _question_patterns() -> tuple[re.Pattern[str], ...]:
    patterns = []
    for words in WORDS.values():
        if not (words.condition_openers and words.condition_namings):
            continue
        openers = "|".join(_phrase_pattern(opener) for opener in words.condition_openers)
        namings = "|".join(_phrase_pattern(naming) for naming in words.condition_namings)
        patterns.append(re.compile(rf"(?:{openers})\b.*?\b(?:{namings})\s+(?P<term>[^?]+?)",
                                   re.IGNORECASE))
    return tuple(patterns)


def asked_condition(question: str) -> str:
    """The term ``question`` asks the condition of ("elastic" of "When is demand called elastic?", "Sturm" of "Ab
    welcher Windstärke spricht man von Sturm?"), without an article, or ""."""
    text = " ".join(question.split()).rstrip(" ?.!")
    for pattern in _question_patterns():
        match = pattern.fullmatch(text)
        if match is None:
            continue
        term = match.group("term").split()
        while term and term[0].casefold() in ALL_ARTICLES:
            term = term[1:]
        if 0 < len(term) <= MAX_CONDITION_TERM_WORDS:
            return " ".join(term)
    return ""


@cache
def _bound_pattern(lang: str | None) -> re.Pattern[str]:
    words = [WORDS[lang]] if lang in WORDS else list(WORDS.values())
    bounds = sorted({bound for language in words for bound in (*language.limits, *language.thresholds)},
                    key=len, reverse=True)
    return re.compile(r"(?<!\w)(?:" + "|".join(re.escape(bound) for bound in bounds) + r")(?!\w)", re.IGNORECASE)


@cache
def _condition_pattern(lang: str | None) -> re.Pattern[str]:
    words = [WORDS[lang]] if lang in WORDS else list(WORDS.values())
    phrases = sorted({phrase for language in words for phrase in language.conditions}, key=len, reverse=True)
    return re.compile(r"(?<!\w)(?:" + "|".join(re.escape(phrase) for phrase in phrases) + r")(?!\w)", re.IGNORECASE)


def names_term(text: str, term: str, analyzer: Any, lang: str | None) -> bool:
    """Whether ``text`` names ``term`` word for word (each word in any form)."""
    wanted = side_terms(analyzer, term, lang)
    return bool(wanted) and names_side(analyzer, text, wanted, lang)


def states_condition(text: str, term: str, analyzer: Any, lang: str | None) -> bool:
    """Whether ``text`` names ``term`` in a line or sentence saying a condition: a condition word ("Von Osteoporose
    spricht man, wenn …"), a comparison sign ("elastic: |ε| > 1"), or a number bounded by a word ("at least 6 g",
    "Ab Bft 8 …") or labelled by the term ("- fast: f/2.8")."""
    wanted = side_terms(analyzer, term, lang)
    if not wanted:
        return False
    for line in _LINE_BREAK.split(text):
        if not names_side(analyzer, line, wanted, lang):
            continue
        if _condition_pattern(lang).search(line) or _COMPARISON_SIGN.search(line):
            return True
        if _DIGIT.search(line):
            label = _LABEL.match(line)
            if _bound_pattern(lang).search(line) or (
                    label is not None and names_side(analyzer, label.group("label"), wanted, lang)):
                return True
    return False
