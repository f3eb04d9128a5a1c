"""What kind of answer a question asks for, and whether a passage gives one.

"How many monthly active users does Obsidian have?" asks for a number: passages that use every
word of the question ("within one month", "Obsidian users") but give no number for *monthly
active users* do not answer it, however well they cover its words. The question's **cue** ("how
many", "wie viele", "what percentage", "how long", "wann wurde") names the kind of answer:

- ``quantity``: a number (digits, or a number word: "twelve", "zwölf", "unlimited"; not the number
  of a procedure's step, "2. Open the settings");
- ``share``: a percentage ("20 %", "half", "Hälfte");
- ``duration``: a unit of time ("for 12 months", "two weeks", "täglich"); "how many days" asks for one too;
- ``date``: a year, an ordinal, a month or weekday name ("in 476", "the 5th century", "im Mai").

The **focus** is what the answer counts or dates: the noun phrase right after the cue ("how many
*monthly active users* does ...", "wie viele *Personen* können ..."; in German it ends at its noun,
nouns being capitalised), whose last word (the *head*, "users") is what a number counts. When a
function word follows the cue ("how much *does* a licence cost?"), the focus is every content word
of the cue's clause, with no head. A passage gives the answer when one of its sentences (a list
item, a table row) has a fitting expression, the head, and at least half the focus's words; its
note's title and headings (a table's header) count as part of every sentence.

The cues are ``evidence.ANSWER_CUES``: reading a question drops their words from its concepts ("long"
is no topic of "how long are versions kept?"); each holds one of the analyzer's question or stop
words ("how", "wie", "wann" in ``index.analysis``) or a question filler ("wieviel").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from cognivault.answer.evidence import Concept, answer_cues, text_terms
from cognivault.index.analysis import Analyzer, words

NUMBER_WORDS = frozenset(words("""
two three four five six seven eight nine ten eleven twelve fifteen twenty thirty forty fifty sixty seventy
eighty ninety hundred hundreds thousand thousands million millions billion billions dozen dozens half unlimited
eins zwei drei vier fünf sechs sieben acht neun zehn elf zwölf fünfzehn zwanzig dreißig vierzig fünfzig sechzig
siebzig achtzig neunzig hundert hunderte tausend tausende million millionen milliarde milliarden dutzend hälfte
unbegrenzt unbegrenzte unbegrenzten unbeschränkt
"""))  # as a sentence's words are read (casefolded: "dreißig" as "dreissig")
TIME_UNITS = frozenset("""
second seconds minute minutes hour hours day days daily week weeks weekly month months monthly year years yearly
forever indefinitely
sekunde sekunden minute minuten stunde stunden tag tage tagen täglich woche wochen wöchentlich monat monate monaten
monatlich jahr jahre jahren jährlich unbegrenzt
""".split())
SHARE_WORDS = frozenset("percent percentage half prozent hälfte viertel drittel".split())
DATE_WORDS = frozenset("""
january february march april june july august september october november december
monday tuesday wednesday thursday friday saturday sunday today yesterday
januar februar märz mai juni juli oktober dezember montag dienstag mittwoch donnerstag freitag samstag sonntag
heute gestern
""".split())
_YEAR_OR_ORDINAL = re.compile(r"\d{3,4}|\d{1,2}(?:st|nd|rd|th)")  # "476", "2020", "5th" (a century, a day)
_PERCENT = re.compile(r"(\d)\s?%(?!%)")  # "20 %" says "percent" (while "%%" is a comment's syntax)
_LIST_NUMBER = re.compile(r"^[ \t>]*\d{1,3}[.)][ \t]", re.MULTILINE)  # "2. Open ...": a step, not an amount
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+|\n")  # list items, table rows and lines are sentences of their own
_CAPITALISED = re.compile(r"(?<!^)(?<![.!?]\s)\b[A-ZÄÖÜ]\w*")  # not at a sentence start
# A counted noun in the plural, by language where nouns are not capitalised ("items", "hosts"; not "class", "basis",
# "status"): the counted phrase ends there.
_PLURALS = {"en": re.compile(r"\w{2,}(?<![sui])s")}
# Where a question's clause ends: what follows a cue up to there is what it counts ("how many X, and ...").
_CLAUSE_BREAK = re.compile(r"[,;:?!–—]|\s(?:and|or|but|und|oder|aber)\s", re.IGNORECASE)


# Cues that may ask for a degree rather than an amount ("how much control do I have over ...", "wie hoch ist
# das Risiko"): passages without a number still answer them, at low confidence, instead of a refusal.
DEGREE_CUES = frozenset(cue.casefold() for cue in (
    "how much", "how big", "how large", "wie viel", "wieviel", "wie groß", "wie hoch"))


@dataclass(frozen=True, slots=True)
class ExpectedAnswer:
    """The kind of answer a question asks for, the words that ask it, and what it must be about."""

    kind: str  # quantity | duration | date
    cue: str  # the user's words that ask for it ("how many")
    focus: tuple[Concept, ...]  # the question's concepts the answer must stand next to
    head: Concept | None = None  # of a counted noun phrase, its last word: what the number counts

    @property
    def required(self) -> bool:
        """Whether passages without such an answer leave the question unanswered ("how many" does; "how much"
        may ask for a degree, see ``DEGREE_CUES``)."""
        return self.cue not in DEGREE_CUES

    def describe(self) -> str:
        """What the notes lack, in the user's words ("a number for monthly active users")."""
        what = {"quantity": "number", "share": "percentage", "duration": "number or span of time",
                "date": "date"}[self.kind]
        return f"{what} for {' '.join(concept.word for concept in self.focus)}" if self.focus else what


def expected_answer(question: str, concepts: Sequence[Concept], lang: str | None) -> ExpectedAnswer | None:
    """The kind of answer ``question`` asks for (None: any kind, e.g. "how do I ...")."""
    by_word: dict[str, list[Concept]] = {}
    for concept in concepts:
        by_word.setdefault(concept.whole or concept.word, []).append(concept)
    for clause in _CLAUSE_BREAK.split(question):
        said = words(clause)
        cues = answer_cues(said, lang)
        if not cues:
            continue
        cue = cues[0]
        after = said[cue.end:]
        nouns = {word.casefold() for word in _CAPITALISED.findall(clause)} if cue.lang == "de" else set()
        counted = _counted(after, by_word, nouns, _PLURALS.get(cue.lang))
        in_clause = list(dict.fromkeys(concept for word in after for concept in by_word.get(word, ())))
        if counted and all(concept.word in TIME_UNITS for concept in counted):
            # "how many days does Sync keep versions?": a span of time (in days or months), of what follows
            focus = [concept for concept in in_clause if concept not in counted]
            return ExpectedAnswer("duration", cue.words, tuple(focus or concepts))
        if counted:
            return ExpectedAnswer(cue.kind, cue.words, tuple(counted), counted[-1])
        return ExpectedAnswer(cue.kind, cue.words, tuple(in_clause) or tuple(concepts))
    return None


def _counted(after: Sequence[str], by_word: dict[str, list[Concept]], nouns: set[str],
             plural: re.Pattern[str] | None = None) -> list[Concept]:
    """The noun phrase a cue counts: the content words right after it, up to a function word ("how many
    *monthly active users* does ...") or up to its noun: in German, the capitalised word ("wie viel
    *Speicherplatz* bietet ..."), in English, a plural (``plural``: "how many *items* fit into ...": "fit" is
    what the items do, not what is counted); empty when a function word follows the cue ("how much *does* a
    licence cost"), or when a German cue's words reach no noun ("wie viel *kostet* die …")."""
    counted: list[Concept] = []
    for word in after:
        if word not in by_word:
            break
        counted += [concept for concept in by_word[word] if concept not in counted]
        if word in nouns or plural is not None and plural.fullmatch(word):
            return counted
    # German writes its nouns capitalised: a run of lowercase words that ends before any noun is a verb's clause
    # ("wie viel *kostet* die VIP-Stufe"), which counts nothing, like an English function word after the cue
    return [] if nouns else counted


def gives_answer(expected: ExpectedAnswer, text: str, analyzer: Analyzer, lang: str | None, heading: str = "") -> bool:
    """Whether a sentence (or line) of ``text`` has an expression of the expected kind, the counted noun (the
    focus's head) and at least half the focus's words.

    ``heading``: what ``text`` is under (its note's title and headings, a table's header), part of every sentence.
    """
    needed = len(expected.focus) / 2
    above = _concepts_in(heading, expected.focus, analyzer, lang)
    for sentence in _SENTENCE_BREAK.split(_PERCENT.sub(r"\1 percent", _LIST_NUMBER.sub("", text))):
        if not any(_fits(expected.kind, word) for word in words(sentence)):
            continue
        found = above | _concepts_in(sentence, expected.focus, analyzer, lang)
        if len(found) >= needed and (expected.head is None or expected.head.key in found):
            return True
    return False


def _fits(kind: str, word: str) -> bool:
    """Whether ``word`` is (part of) an answer of ``kind``."""
    if kind == "quantity":
        return any(ch.isdigit() for ch in word) or word in NUMBER_WORDS
    if kind == "share":
        return word in SHARE_WORDS
    if kind == "duration":
        return word in TIME_UNITS
    return bool(_YEAR_OR_ORDINAL.fullmatch(word)) or word in DATE_WORDS


def _concepts_in(text: str, focus: Sequence[Concept], analyzer: Analyzer, lang: str | None) -> set[str]:
    """The keys of the ``focus`` concepts that ``text`` has."""
    said = words(text)
    terms = text_terms(analyzer, text, lang)
    return {concept.key for concept in focus if concept.found_in(terms, frozenset(said))}
