"""Where a sentence of a note ends, one rule for every place that quotes or asks about a sentence.

A period is no sentence end after a date's ordinal ("am 9. November 1918", "im 19. Jahrhundert", "the 4. of
July"), an abbreviation (a language's own: "z. B.", "bzw.", "Mio.", "e.g.", "Dr."; a lower-case letter and the
short words after it: "Alexander d. Gr.", "i. d. R."; a short word before its number: "Nr. 5", "Art. 48"; a German
adjective cut short between its article and its noun: "der schriftl. Kündigung") or a name's initial ("J. S. Bach"):
study cards,
quiz stems and quoted answers split a paragraph into sentences, and cutting there gave a card whose back was
"Nach der Novemberrevolution rief Philipp Scheidemann am 9." The splitters keep their own patterns;
``shield`` hides the periods that end nothing behind a character none of them splits at (same length, so
positions stay valid) and ``unshield`` brings them back in each piece.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from cognivault.vault.reading import ALL_MONTH_ABBREVIATIONS, ALL_MONTHS, WORDS

_SHIELDED = "\ue006"  # a period that ends no sentence, while a text is split


def alternation(choices: Iterable[str]) -> str:
    """Words as a regex alternation, the longest first ("sept" before "sep"), in a fixed order."""
    return "|".join(sorted(choices, key=lambda word: (-len(word), word)))


_MONTHS = alternation(ALL_MONTHS)
_SHORT_MONTHS = alternation(ALL_MONTH_ABBREVIATIONS)  # as notes shorten them: "9. Nov."
# words before an ordinal in German dates and counts: "am 9.", "im 19.", "der 1.", "vom 3. bis 5."
_ORDINAL_LEAD = r"am|im|vom|zum|bis|seit|ab|ans|der|die|das|den|dem|des|jeden|jedem"


def _written(abbreviation: str) -> str:
    """An abbreviation as a pattern: "z.b" matches "z.B." and "z. B."."""
    return r"\.\s?".join(re.escape(part) for part in abbreviation.split("."))


_ABBREVIATIONS = "|".join(_written(word) for word in sorted({word for words in WORDS.values()
                                                             for word in words.abbreviations}, key=len, reverse=True))
_OPENERS = "|".join(sorted({word for words in WORDS.values() for word in words.openers}, key=len, reverse=True))
_NO_OPENER = rf"(?!\s+(?-i:{_OPENERS})\b)"  # "… 30 v. Chr. Danach kam Rom": there a sentence ends
# an uninflected lower-case word between an article and a noun, cut short: "nach Zugang der schriftl. Kündigung"
# (not a pronoun's verb, adverb or verb particle closing a clause: "…, die kommt. Sie", "Ich mache das auch. Aber",
# "füge eine hinzu. Die …")
_CLIPPED_RE = re.compile("|".join(
    rf"(?<!\w)(?i:{'|'.join(words.articles)})\s+(?P<{lang}>[a-zäöüß]{{3,}})"
    + "".join(f"(?<!{re.escape(ending)})" for ending in words.inflections) + rf"(?<!t)\.{_NO_OPENER}(?=\s+[A-ZÄÖÜ])"
    for lang, words in WORDS.items() if words.inflections))
_NOT_AN_END = re.compile(
    rf"(?<!\w)(?:{_ABBREVIATIONS})\.{_NO_OPENER}(?=[\s),;:])"  # a language's abbreviation, "(ca. 5 Mio.):" too
    # a lower-case letter's period and the short words' after it: "Alexander d. Gr.", "i. d. R.", "u. U.",
    # "384 v. Chr.", "100 v.u.Z.", "Paul v. Hindenburg"
    rf"|(?<![\w.])(?-i:[a-zäöü])\.(?:\s?[^\W\d_]{{1,3}}\.(?![^\W\d_]))*{_NO_OPENER}(?=[\s),;:])"
    r"|(?-i:(?<![\w.])[A-ZÄÖÜ][a-zäöü]{1,3})\.(?=\s+\d{1,3}(?![\d.]))"  # a short word before its number: "Art. 48"
    rf"|(?<!\w)s\.(?=\s*\d)"  # a page: "S. 45"
    rf"|(?<!\w)\d{{1,2}}\.(?=\s+(?:{_MONTHS}|{_SHORT_MONTHS})\b)"  # a day before its month
    rf"|(?<!\w)(?:{_SHORT_MONTHS})\.(?=\s+(?:\d|(?-i:[a-zäöü])))"  # a month shortened: "9. Nov. 1923", "Nov. in …"
    rf"|(?<!\w)(?:{_ORDINAL_LEAD})\s+\d{{1,3}}\.(?=\s+\w)"  # an ordinal after its article or preposition
    rf"|(?-i:(?<![\w.])[A-ZÄÖÜ]\.(?=\s+(?!(?:{_OPENERS})\b)[A-ZÄÖÜ]))",  # an initial: "J. S. Bach"
    re.IGNORECASE)


def shield(text: str) -> str:
    """``text`` with the periods that end no sentence hidden (the same length)."""
    if "." not in text:
        return text
    text = _NOT_AN_END.sub(lambda match: match.group(0).replace(".", _SHIELDED), text)
    return _CLIPPED_RE.sub(_shield_clipped, text)


def _shield_clipped(match: re.Match[str]) -> str:
    lang, word = next((lang, word) for lang, word in match.groupdict().items() if word)
    closes = word in WORDS[lang].function_words or word in WORDS[lang].verb_particles
    return match.group(0) if closes else match.group(0)[:-1] + _SHIELDED


def unshield(text: str) -> str:
    """A piece of a shielded text as the note writes it."""
    return text.replace(_SHIELDED, ".")
