"""What kind of answer a question asks for, and whether a passage gives one.

"How many monthly active users does Obsidian have?" asks for a number: passages that use every
word of the question ("within one month", "Obsidian users") but give no number for *monthly
active users* do not answer it, however well they cover its words. The question's **cue** ("how
many", "wie viele", "what percentage", "how long", "wann wurde") names the kind of answer:

- ``quantity``: a number (digits, or a number word: "twelve", "zwölf", "unlimited"; not the number
  of a procedure's step, "2. Open the settings");
- ``limit``: a bound, for a quantity question saying one ("What is the *maximum* number of tabs?", "Wie viele
  Gruppen kann ich *höchstens* anlegen?"): a number said with a word bounding it ("*up to* 50 MB", "*höchstens* 10",
  ``LanguageWords.limits``), or a word saying there is none ("unlimited", ``LanguageWords.no_limits``); a passage
  counting the thing ("Bookmark 3 tabs") says how many there are, not how many there may be;
- ``share``: a percentage or a decimal fraction ("20 %", "half", "Hälfte", "≈ 0.15");
- ``price``: an amount of money or a word saying there is none to pay ("$8 per month", "4 €", "free", "kostenlos"),
  for a quantity question on what something costs ("How much does Sync Plus *cost*?", "Wie hoch ist die *Gebühr*?",
  ``PRICE_WORDS``) or a cue asking for a price ("how expensive", "wie teuer", "was kostet"): a number of vaults or
  megabytes in a note listing a plan's features is no price of it;
- ``duration``: a unit of time ("for 12 months", "two weeks", "täglich", "100 ns"); "how many days" asks for one too;
- ``date``: a year, an ordinal, a month or weekday name ("in 476", "the 5th century", "im Mai");
- ``temperature``, ``length``, ``mass``: a number with its unit ("140 °C", "4 km", "3 t"): "how warm is the Gulf
  Stream?" is not answered by the number of Sverdrups it carries, "what temperature" not by a temperature's word;
- ``age``: a span of time or a year ("how old", "wie alt");
- ``person``: a name, for a question opening with "who"/"wer" and asking who made something first ("Who discovered
  X?", "Wer hat den Begriff geprägt?"; "Who sits in the Council?" asks for a role): a word written capitalised,
  not a function word ("The"; in German, which capitalises every noun, two side by side, not right after an article:
  "der Kritiker Louis Leroy"), or one before life dates ("Mill (1806–1873)"), none of them the question's own words.

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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache

from cognivault.answer.evidence import INFLECTION_PREFIX, NOUN_CAPITALISING, Concept, answer_cues, text_terms
from cognivault.index.analysis import Analyzer, is_stopword, words
from cognivault.vault.reading import ALL_MONTH_ABBREVIATIONS, ALL_MONTHS, WORDS
from cognivault.vault.sentences import alternation, shield, unshield

NUMBER_WORDS = frozenset(words("""
none zero one two three four five six seven eight nine ten eleven twelve fifteen twenty thirty forty fifty sixty
seventy eighty ninety hundred hundreds thousand thousands million millions billion billions dozen dozens half unlimited
null kein keine keinen eins zwei drei vier fünf sechs sieben acht neun zehn elf zwölf fünfzehn zwanzig dreißig vierzig
fünfzig sechzig siebzig achtzig neunzig hundert hunderte tausend tausende million millionen milliarde milliarden
dutzend hälfte
unbegrenzt unbegrenzte unbegrenzten unbeschränkt
"""))  # as a sentence's words are read (casefolded: "dreißig" as "dreissig")
TIME_UNITS = frozenset("""
second seconds minute minutes hour hours day days daily week weeks weekly month months monthly year years yearly
forever indefinitely
sekunde sekunden minute minuten stunde stunden tag tage tagen täglich woche wochen wöchentlich monat monate monaten
monatlich jahr jahre jahren jährlich unbegrenzt
""".split())
SHARE_WORDS = frozenset("percent percentage half prozent hälfte viertel drittel".split())
# What a quantity question asks the price of something with ("how much does it *cost*", "wie hoch ist die *Gebühr*"),
# not "price" ("How much does demand fall when the *price* rises?" asks for a quantity)
PRICE_WORDS = frozenset("""
cost costs fee fees pay
kostet kosten gebühr gebühren bezahlen zahlen
""".split())
# An amount of money ("$8", "4,99 €", "10 USD", "5 dollars"), or a word saying nothing is to pay (or a number in a
# sentence on what something costs: "Grenzkosten: 12 GE")
_MONEY = re.compile(r"[$€£¥]\s?\d|\d(?:[\d.,]*\d)?\s?(?:[$€£¥]|(?:usd|eur|gbp|chf|dollars?|euros?|cents?)\b)",
                    re.IGNORECASE)
FREE_WORDS = frozenset("free kostenlos kostenlose kostenlosen gratis umsonst unentgeltlich".split())
# what asks when an event takes place ("*When is* the exam?", "*Wann findet* die Klausur statt?")
WHEN_IS = frozenset({("when", "is"), ("when", "are"), ("wann", "ist"), ("wann", "sind"), ("wann", "findet"),
                     ("wann", "finden")})
WHEN_WORDS = frozenset(when for when, _ in WHEN_IS)
# a date written in digits ("10.02.2026", "12.02.", "2026-02-10")
_NUMERIC_DATE = re.compile(r"(?<![\d.])\d{1,2}\.\s?\d{1,2}\.(?:\d{2,4})?(?![\d])|\d{4}-\d{2}-\d{2}")
# a time of day or a span of hours, of a weekly event ("Mo 10–12", "14:15", "9 Uhr")
_CLOCK = re.compile(r"(?<![\d.])\d{1,2}(?::\d{2})?\s?[–-]\s?\d{1,2}(?::\d{2})?(?![\d.])|\b\d{1,2}:\d{2}\b|"
                    r"\b\d{1,2}\s?(?:uhr|h|am|pm)\b", re.IGNORECASE)
# "may" is a month and, far more often, a verb ("may not answer")
DATE_WORDS = ALL_MONTHS - {"may"} | frozenset("""
monday tuesday wednesday thursday friday saturday sunday today yesterday
montag dienstag mittwoch donnerstag freitag samstag sonntag heute gestern
""".split())
_YEAR_OR_ORDINAL = re.compile(r"\d{3,4}|\d{1,2}(?:st|nd|rd|th)")  # "476", "2020", "5th" (a century, a day)
_MONTH_SHORTENED = alternation(ALL_MONTH_ABBREVIATIONS | {"mai"})
# a day with its month shortened, or a century, German style ("8./9. Nov.", "12. Okt", "im 16. Jh.", "Nov 12")
_SHORT_DATE = re.compile(rf"(?<![\d.])\d{{1,2}}\.\s?(?:{_MONTH_SHORTENED}|jh|jhd|jhdt|jahrhundert)\b"
                         rf"|\b(?:{_MONTH_SHORTENED})\.?\s\d{{1,2}}\b", re.IGNORECASE)
# A share written as a decimal fraction: "≈ 0.154", "$0{,}38$" (a note's math writes the decimal comma in braces)
_DECIMAL_SHARE = re.compile(r"(?<![\d.,}])0(?:[.,]|\{,\})\d")
_PERCENT = re.compile(r"(\d)\s?%(?!%)")  # "20 %" says "percent" (while "%%" is a comment's syntax)
_LIST_NUMBER = re.compile(r"^[ \t>]*\d{1,3}[.)][ \t]", re.MULTILINE)  # "2. Open ...": a step, not an amount
# list items, table rows and lines are sentences of their own, unless a line opens in lower case: it goes on with the
# sentence of the line above ("Die Vorwarnzeit beträgt meist\nsieben Tage oder weniger.")
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+|\n(?![ \t]*[a-zäöüß])")
# a line leading into a list ("We offer full refunds within 7 days … for the following services:") and the list's
# items ("- Obsidian Publish"), or into the lines right under it ("Wechselzahl = Substratmoleküle pro Sekunde:" over
# "Carboanhydrase: ca. $10^6$ pro Sekunde!"): one statement, which the items finish
_LEAD_AND_ITEMS = re.compile(r":[ \t]*\n(?:(?:[ \t>]*\n)?((?:[ \t>]*[-*+][ \t][^\n]*(?:\n|$))+)"
                             r"|((?:[ \t>]*[^\s#|>*+-][^\n]*(?:\n|$))+))")
_CAPITALISED = re.compile(r"(?<!^)(?<![.!?]\s)\b[A-ZÄÖÜ]\w*")  # not at a sentence start
# A counted noun in the plural, by language where nouns are not capitalised ("items", "hosts"; not "class", "basis",
# "status"): the counted phrase ends there.
_PLURALS = {"en": re.compile(r"\w{2,}(?<![sui])s")}
# Where a question's clause ends: what follows a cue up to there is what it counts ("how many X, and ...").
_CLAUSE_BREAK = re.compile(r"[,;:?!–—]|\s(?:and|or|but|und|oder|aber)\s", re.IGNORECASE)


# Cues that may ask for a degree rather than an amount ("how much control do I have over ...", "wie hoch ist
# das Risiko", "wie schwer ist die Klausur"): passages without a number still answer them, at low confidence,
# instead of a refusal.
DEGREE_CUES = frozenset(cue.casefold() for cue in (  # as a question's words are read ("wie groß" as "wie gross")
    "how much", "how big", "how large", "wie viel", "wieviel", "wie groß", "wie hoch", "wie schwer"))
# What the notes lack, by kind of answer, in the words of a refusal ("the notes give no *number*", "die Notizen
# nennen *keine Zahl*")
LACKING = {
    "en": {"quantity": "number", "limit": "limit", "share": "percentage", "price": "price",
           "duration": "number or span of time", "date": "date", "temperature": "temperature",
           "length": "length or distance", "mass": "weight", "age": "age or date", "person": "name"},
    "de": {"quantity": "keine Zahl", "limit": "keine Grenze", "share": "keinen Anteil", "price": "keinen Preis",
           "duration": "keine Zahl oder Zeitspanne", "date": "kein Datum", "temperature": "keine Temperatur",
           "length": "keine Länge oder Entfernung", "mass": "kein Gewicht", "age": "kein Alter oder Datum",
           "person": "keinen Namen"},
}
# A question for a person opens with these; it asks for a name where its verb is one of making something first
# (``MAKING``: "Who *discovered* X?", "Wer hat den Begriff *geprägt*?"), not of a role ("Who sits in the Council?",
# "Who was Kant?": a description answers)
_ASKS_WHO = re.compile(r"\s*(?P<cue>who|wer|von\s+wem|by\s+whom)\s", re.IGNORECASE)
MAKING = tuple("""
discover invent founded founder coined coin formulat wrote writ paint compos developed design creat propos proved
devis pioneer
entdeck erfand erfund erfind gründete gegründ begründete prägt geprägt schrieb geschrieb verfass malte gemalt
komponi formulier entwickelte entwarf entworf bewies bewiesen erschuf geschaffen aufgestellt
""".split())
# A name: a capitalised word; in a language capitalising its nouns two side by side ("Louis Leroy"), or one before
# life dates ("Mill (1806–1873)")
_CAPITAL_WORD = re.compile(r"(?<![\w*_`])[A-ZÀ-ÖØ-Þ][\w'’-]+")
_LIFE_DATES = re.compile(r"[A-ZÀ-ÖØ-Þ][\w'’-]+\s*\(\s*(?:\*\s*)?\d{3,4}")
# A measured amount is a number with its unit, by kind (digits: "140 °C", "30 km", "2,5 t")
_NUMBER = r"\d(?:[\d.,]*\d)?\s*"
MEASURES = {
    "temperature": re.compile(_NUMBER + r"(?:°|(?:K|Kelvin|degrees?|Grad)\b)", re.IGNORECASE),
    "length": re.compile(_NUMBER + r"(?:(?:km|m|cm|mm|µm|nm|mi|ft|AU|AE|Lj|ly)\b|kilomet|met(?:er|re)|"
                         r"centimet|zentimet|millimet|miles?\b|meilen?\b|seemeil|feet\b|foot\b|light-years?|"
                         r"lichtjahr)", re.IGNORECASE),
    "mass": re.compile(_NUMBER + r"(?:(?:kg|g|mg|µg|t|lbs?|oz)\b|kilogram|gram|tonnen?\b|tons?\b|tonnes?\b|"
                       r"pounds?\b|pfund)", re.IGNORECASE),
}
# a span of time written with its unit's symbol ("100 ns", "10 ms", "24 h", "90 min")
# a span of time in a unit students shorten ("4-6 h", "7–10 d", "every 12 hrs", "3-5 Tg.", "ab 60 J.", "2 Wo.")
# (a lone "h", "d" or "s" in lower case only: "4 H^+" and "2 S" are atoms of a formula, not hours or seconds)
_TIME_SYMBOL = re.compile(_NUMBER + r"(?:ns|µs|μs|ms|secs?|mins?|hrs?|std|tg|wks?|wo|mos?|yrs?|j|jhd?t?|"
                          r"(?-i:[hds]))\b", re.IGNORECASE)


# the kinds of answer that are an amount, which a word like "at most" / "höchstens" bounds (a date or a person is none)
AMOUNT_KINDS = frozenset({"quantity", "limit", "share", "duration", "temperature", "length", "mass", "age"})


@dataclass(frozen=True, slots=True)
class ExpectedAnswer:
    """The kind of answer a question asks for, the words that ask it, and what it must be about."""

    kind: str  # quantity | limit | share | price | duration | date | temperature | length | mass | age | person
    cue: str  # the user's words that ask for it ("how many")
    focus: tuple[Concept, ...]  # the question's concepts the answer must stand next to
    head: Concept | None = None  # of a counted noun phrase, its last word: what the number counts
    which: frozenset[str] = frozenset()  # keys of the focus the answer's sentence must state: which one is asked of

    @property
    def required(self) -> bool:
        """Whether passages without such an answer leave the question unanswered ("how many" does; "how much"
        may ask for a degree, see ``DEGREE_CUES``, unless what it asks the amount of is a price)."""
        return self.kind == "price" or self.cue not in DEGREE_CUES

    @property
    def leads(self) -> bool:
        """Whether a passage giving such an answer goes before the others: a number, a date, a measure do; a name
        does not (notes name people everywhere: a list of painters is no answer to who coined their movement's name,
        though a pack naming no one cannot answer it)."""
        return self.kind != "person"

    def describe(self, lang: str | None = None, written: Callable[[str], str] = str) -> str:
        """What the notes lack, in the user's words (``written``: a word as the question writes it): "number for
        monthly active users"; said in ``lang``, quoted: "number for “monthly active users”", "keinen Namen für
        „Knöllchenbakterien“" (German, with its article)."""
        what, joiner = LACKING.get(lang or "en", LACKING["en"])[self.kind], " für " if lang == "de" else " for "
        if not self.focus:
            return what
        about = " ".join(written(concept.word) for concept in self.focus)
        return what + joiner + (about if lang is None else f"„{about}“" if lang == "de" else f"“{about}”")


def expected_answer(question: str, concepts: Sequence[Concept], lang: str | None) -> ExpectedAnswer | None:
    """The kind of answer ``question`` asks for (None: any kind, e.g. "how do I ...")."""
    asking = _ASKS_WHO.match(question)
    if asking is not None and any(word.startswith(MAKING) for word in words(question)):
        about = tuple(concept for concept in concepts if not concept.frame)
        return ExpectedAnswer("person", asking["cue"].casefold(), about or tuple(concepts))
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
        # a word bounding the amount ("Wie lange durfte ein Diktator *höchstens* im Amt bleiben?") says which amount
        # is asked for, not what it is of: "max. 6 Monate" bounds it in other words
        bounding = _bound_words(cue.lang) if cue.kind in AMOUNT_KINDS else frozenset()
        in_clause = list(dict.fromkeys(concept for word in after if word not in bounding
                                       for concept in by_word.get(word, ())))
        if counted and all(concept.word in TIME_UNITS for concept in counted):
            # "how many days does Sync keep versions?": a span of time (in days or months), of what follows
            focus = [concept for concept in in_clause if concept not in counted]
            return ExpectedAnswer("duration", cue.words, tuple(focus or concepts))
        kind = "limit" if cue.kind == "quantity" and any(_bounds(words(question), cue.lang)) else \
            "price" if cue.words in DEGREE_CUES and PRICE_WORDS.intersection(words(question)) else cue.kind
        if counted:
            return ExpectedAnswer(kind, cue.words, tuple(counted), counted[-1])
        if all(concept.frame for concept in in_clause):
            # "mein Espresso schmeckt nach dem Rösten komisch, wie lange soll ich *warten*?": the clause asking says
            # only what is done; what it is done to is named in the question's other clauses
            in_clause += [concept for concept in concepts if not concept.frame and concept not in in_clause]
        return ExpectedAnswer(kind, cue.words, tuple(in_clause) or tuple(concepts))
    return _appointment_date(question, concepts, lang)


def _appointment_date(question: str, concepts: Sequence[Concept], lang: str | None) -> ExpectedAnswer | None:
    """A question asking when one of the course's dated events is ("When is the Rechnernetze exam?", "Wann ist die
    Klausur in Astronomie?", ``LanguageWords.appointments``) asks for its date or its hours, stated with every word of
    the question telling which event it is: a hub listing the dates of other modules' exams, or the hours of the same
    module's lecture, does not give it. ("When is a function continuous?" asks for a condition, "When do I have to
    register?" may be answered "two weeks before the exam".)"""
    said = words(question)
    language = WORDS.get(lang or "en")
    if language is None or tuple(said[:2]) not in WHEN_IS or not language.appointments.intersection(said):
        return None
    about = tuple(concept for concept in concepts if not concept.frame)
    return ExpectedAnswer("date", said[0], about, which=frozenset(concept.key for concept in about)) if about else None


def _bounds(said: Sequence[str], lang: str | None) -> tuple[bool, bool]:
    """Whether ``said`` (a text's words) has a word bounding an amount in ``lang`` (``LanguageWords.limits``: "up
    to"), and whether one saying there is no bound (``LanguageWords.no_limits``: "unlimited")."""
    limits, no_limits = _bound_phrases(lang or "en")
    text = f" {' '.join(said)} "
    return any(phrase in text for phrase in limits), any(phrase in text for phrase in no_limits)


@cache
def _bound_phrases(lang: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``lang``'s words bounding an amount and saying there is none, each as its words between spaces (read once: a
    sentence of every passage is judged by them)."""
    language = WORDS.get(lang)
    if language is None:
        return (), ()

    def spaced(phrases: Sequence[str]) -> tuple[str, ...]:
        return tuple(f" {' '.join(words(phrase))} " for phrase in phrases)

    return spaced(language.limits), spaced(language.no_limits)


@cache
def _bound_words(lang: str | None) -> frozenset[str]:
    """``lang``'s one-word bounds of an amount ("höchstens", "maximum": ``LanguageWords.limits``)."""
    limits, _ = _bound_phrases(lang or "en")
    return frozenset(phrase.strip() for phrase in limits if phrase.count(" ") == 2)  # " höchstens ", not " bis zu "


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


def gives_answer(expected: ExpectedAnswer, text: str, analyzer: Analyzer, lang: str | None, heading: str = "",
                 named_in_note: frozenset[str] = frozenset()) -> bool:
    """Whether a sentence (or line) of ``text`` has an expression of the expected kind, the counted noun (the
    focus's head) and at least half the focus's words.

    ``heading``: what ``text`` is under (its note's title and headings, a table's header), part of every sentence.
    A name the question gives what it asks of ("Sync Plus") must be in the sentence too, or in its note elsewhere
    (``named_in_note``: a transcript on Prussia names it once, at its start): a price of Publish is none of Sync Plus.
    A question in the text is part of the sentence answering it: "Q: How many Nash equilibria …? / A: Two in pure
    strategies plus one in mixed" counts equilibria.
    """
    # half of what the question is about; the words it asks with ("durfte", "bleiben") may be said otherwise, and
    # count for nothing where it names what it is about: "eine Runde *dauert* ca. 1000 Jahre" is no span of time of
    # what "Wie lange *dauert* die Lichtreaktion?" asks about
    about = [concept for concept in expected.focus if not concept.frame] or list(expected.focus)
    needed = len(about) / 2
    if expected.head is not None and expected.head not in about:
        about.append(expected.head)  # what a number counts is asked for whatever its kind of word
    named = ({concept.key for concept in expected.focus if concept.name} - named_in_note) | expected.which
    above = _concepts_in(heading, about, analyzer, lang)
    asked: set[str] = set()
    last: list[str] = []  # of a bound, the sentence before may give its number ("… 2048 tokens. This is the maximum …")
    text = _DECIMAL_SHARE.sub(r"percent \g<0>", _joined_items(_LIST_NUMBER.sub("", text)))
    text = shield(_PERCENT.sub(r"\1 percent", text))  # "ca. $10^6$ pro Sekunde": "ca." ends no sentence
    for sentence in _SENTENCE_BREAK.split(text):
        before, asked = asked, (_concepts_in(sentence, about, analyzer, lang)
                                if sentence.rstrip(" *_").endswith("?") else set())
        measure = MEASURES.get(expected.kind)
        if expected.kind == "person":
            if not _names_someone(sentence, expected.focus, lang):
                continue
        elif expected.kind == "limit":
            said, counted = words(sentence), last
            bounded, unbounded = _bounds(said, lang)
            last = said
            if not (unbounded or bounded and any(_fits("quantity", word) for word in said + counted)):
                continue
        elif expected.kind == "price":
            said = words(sentence)
            if not (_MONEY.search(sentence) or FREE_WORDS.intersection(said) or
                    PRICE_WORDS.intersection(said) and any(char.isdigit() for char in sentence)):
                continue
        elif not (measure.search(sentence) if measure is not None else
                  any(_fits(expected.kind, word) for word in words(sentence)) or
                  expected.kind in ("duration", "age") and _TIME_SYMBOL.search(sentence) or
                  expected.kind == "date" and (_NUMERIC_DATE.search(unshield(sentence)) or
                                               _SHORT_DATE.search(unshield(sentence)) or
                                               expected.cue in WHEN_WORDS and _CLOCK.search(sentence))):
            continue
        found = above | before | _concepts_in(sentence, about, analyzer, lang)
        if len(found) >= needed and named <= found and (expected.head is None or expected.head.key in found):
            return True
    return False


def _joined_items(text: str) -> str:
    """``text`` with each list (or lines) a line leads into (ending in a colon) joined to that line, items parted
    by ";"."""
    def join(found: re.Match[str]) -> str:
        items = [re.sub(r"^[ \t>]*[-*+][ \t]", "", item).strip() for item in (found[1] or found[2]).split("\n")
                 if item.strip()]
        return ": " + "; ".join(items) + "\n"

    return _LEAD_AND_ITEMS.sub(join, text)


def _fits(kind: str, word: str) -> bool:
    """Whether ``word`` is (part of) an answer of ``kind``."""
    if kind == "quantity":
        return any(ch.isdigit() for ch in word) or word in NUMBER_WORDS
    if kind == "share":
        return word in SHARE_WORDS
    if kind == "duration":
        return word in TIME_UNITS
    if kind == "age":
        return _fits("duration", word) or _fits("date", word)
    return bool(_YEAR_OR_ORDINAL.fullmatch(word)) or word in DATE_WORDS


def _names_someone(sentence: str, focus: Sequence[Concept], lang: str | None) -> bool:
    """Whether ``sentence`` names a person other than what the question names (``focus``)."""
    if _LIFE_DATES.search(sentence):
        return True
    asked = {concept.word[:INFLECTION_PREFIX] for concept in focus}
    found = [(match.start(), match.end(), match[0]) for match in _CAPITAL_WORD.finditer(sentence)
             if not is_stopword(match[0].casefold(), lang) and match[0].casefold()[:INFLECTION_PREFIX] not in asked]
    if lang not in NOUN_CAPITALISING:
        return bool(found)  # at a sentence's start too: "1764 – Hargreaves invented the spinning jenny"
    # two capitalised words side by side, the first not right after an article or other function word ("dem Enzym
    # Nitrogenase" is a noun and its name, "der Kritiker Louis Leroy" names the critic)
    return any(sentence[end:next_begin].strip() == "" and not _after_function_word(sentence[:begin], lang)
               for (begin, end, _), (next_begin, _, _) in zip(found, found[1:], strict=False))


def _after_function_word(before: str, lang: str | None) -> bool:
    """Whether ``before`` (a sentence up to a word) ends with a function word ("dem", "der", "mit")."""
    said = words(before[-40:])
    return bool(said) and is_stopword(said[-1], lang)


def _concepts_in(text: str, focus: Sequence[Concept], analyzer: Analyzer, lang: str | None) -> set[str]:
    """The keys of the ``focus`` concepts that ``text`` has."""
    said = words(text)
    terms = text_terms(analyzer, text, lang)
    return {concept.key for concept in focus if concept.found_in(terms, frozenset(said))}
