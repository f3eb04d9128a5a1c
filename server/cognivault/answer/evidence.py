"""The evidence pack: the only passages an answer may use, each with a request-local label S1..Sn.

Hard limits: at most ``max_items`` passages and ``token_budget`` estimated
tokens in all (a passage longer than ``item_tokens`` is cut at a sentence
end). Tools may add passages later in the same request (search results,
read notes) within a separate, also hard, allowance; labels keep counting
(S7, S8...). Key terms of the question (stemmed, stopwords dropped) are
weighted by inverse document frequency over the whole index, so words every
note contains (the vault's own name) count for little when judging coverage.

A key term stands for one **concept**: the user's word as written and its
terms in each language the question may be in (the guessed language and the
vault's own languages), so a German question read as English still finds
"produzieren" in a passage that says "produziert". A passage has a concept
when it has one of those terms, or a word that is the same word inflected (a
shared start of at least ``INFLECTION_PREFIX`` letters, differing in at most
``INFLECTION_TAIL`` letters at the end), also as the vault's other language writes the
same learned word (``spelled_alike``: a German question's "Effekt" is the English note's
"effect"), or once a German verb's ending that makes it from a noun is left off
(``DERIVATION_ENDINGS``: "formatiere" is "Format"). Passages are tagged with the keys of
the concepts they have when they enter the pack, so coverage is judged by the
user's words, and reasons name them as the user wrote them.

A question about something the vault never mentions ("the boiling point on
Mount Everest") has words no note uses in any form: ``unknown_words`` finds
them (no term of the word, nor an inflection of it, is in the index), and the
share of the question's weight they carry is what the confidence rule uses to
refuse what the vault does not cover. Such a word weighs less the more common it is in the question's language
(``unheard_weight``): a small vault lacks most everyday words ("Where do the reactions take *place*?"), while a rare
one names what the question is about ("RuBisCO"). A compound the vault never uses whole
("Smartwatch") is unknown as a whole, even when its parts are known, and so is
a name of two capitalised words ("Apple Watch") that no passage has side by
side (``add_unknown_names``). A verb the vault never uses does not make a question
off-topic: it asks something about the things the question names ("Woraus *besteht*
ein Chloroplast?", "What do chloroplasts *consist* of?"). Such frame words are the
lowercase words of a German question (German capitalises every noun), the main
verb of an English question asked with "do"/"can"/..., and the nouns that frame a
question ("What is the *role* of water ...?", ``question_frame.FRAME_NOUNS``) (``Concept.frame``).
A name is what a question is about: a word written capitalised away from a sentence's
start ("send my notes to a *Kindle*", "a plugin in *Python*"; not in German, which
capitalises every noun) counts ``NAME_WEIGHT`` times towards the off-topic share
when the vault never uses it (``Concept.name``). A clause that sets the scene before the
question proper ("I'm on a *MacBook Pro*, how do I open the command palette?", "Seit ich
*Arch Linux* nutze, wie installiere ich ...?") says where the user is, not what they ask:
where the question after it asks about something the vault has, the scene's words the
vault never uses are neither for nor against its topic (``Concept.context``). A German
verb whose particle stands apart at the clause's end ("Wie *stelle* ich sie *wieder her*?",
"Wie *lege* ich ein Whiteboard *an*?") is also the whole verb the vault writes
("wiederherstellen", "anlegen"). A German question's noun the vault writes only inside compounds is those compounds
a note holds with the question's other words ("Faktoren": "Einflussfaktoren"), and a compound of one language is two
words of the other spelled as the same learned words ("Preisdiskriminierung": "price discrimination", by their
consonants: ``consonant_skeleton``).
"""

from __future__ import annotations

import math
import re
import threading
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any, NamedTuple

from cognivault.answer.ordinals import asked_count, cardinal_of, ordinal_of
from cognivault.index.analysis import (
    FUGEN,
    GERMAN_QUESTION_WORDS,
    SNOWBALL_BY_ISO,
    Analyzer,
    cognate_key,
    consonant_skeleton,
    detect_language,
    is_stopword,
    words,
)
from cognivault.index.lexical import COMPOUND_PART_CHARS, CompoundPart
from cognivault.index.question_frame import FRAME_NOUNS, SEQUENCE_NOUNS, frame_words
from cognivault.index.word_rarity import rarity
from cognivault.vault.markdown import CODE_FENCE_RE
from cognivault.vault.reading import WORDS

DEFAULT_MAX_ITEMS = 6
DEFAULT_TOKEN_BUDGET = 2400
DEFAULT_ITEM_TOKENS = 600
TOOL_EXTRA_ITEMS = 8
TOOL_EXTRA_TOKENS = 3000
NAME_WEIGHT = 1.5  # chosen by cross-validation on the dev set (bench/bench_answer_quality.py)
NOUN_CAPITALISING = frozenset({"de", "lb"})  # languages whose capitals mark every noun, not names
HARD_MAX_ITEMS = 24
INFLECTION_PREFIX = 5
INFLECTION_TAIL = 4
GENITIVE_MIN_CHARS = 4  # a word of up to this many letters keeps its s ("Haus", "Gas"); "Kants" loses it
# What tells two spellings of one word apart after their shared start, in the languages of the vault's notes
# (en, de and their neighbours): "capital/capital*s*", "produzier*en*/produzier*t*". A tail outside these is
# another word of the same start: "station" is no form of "statins", "reactions" none of "reactio".
INFLECTION_ENDINGS = frozenset({"", "e", "s", "es", "d", "ed", "n", "en", "er", "ers", "est", "ing", "ings", "y",
                                "ies", "ied", "em", "ern", "t", "st", "te", "ten", "ter", "tes", "et", "ete",
                                "eten", "nd", "end", "ens", "ste", "sten"})
MAX_QUESTION_LANGUAGES = 4  # a vault with more languages: the guessed one and English only

FALLBACK_ANALYZER = Analyzer()  # analysis without an index: the extractive chat provider reads passages with it


def estimate_tokens(text: str) -> int:
    """A cheap, slightly pessimistic token estimate (about 3.6 characters per token)."""
    return max(1, math.ceil(len(text) / 3.6)) if text else 0


def trim_to_tokens(text: str, tokens: int) -> tuple[str, bool]:
    """``text`` cut to about ``tokens`` tokens, at a sentence or line end when there is one."""
    limit = int(tokens * 3.6)
    if len(text) <= limit:
        return text, False
    head = text[:limit]
    cut = max(head.rfind(". "), head.rfind("\n"), head.rfind("! "), head.rfind("? "))
    if cut > limit * 0.5:
        head = head[: cut + 1]
    return head.rstrip() + " …", True


@dataclass(slots=True)
class Evidence:
    """One passage in the pack."""

    label: str
    chunk_id: str
    path: str
    title: str
    heading_path: list[str]
    line_start: int
    line_end: int
    locator: str
    text: str
    snippet: str
    score: float
    source: str = "vault"  # vault | attachment | tool
    lang: str | None = None
    terms: frozenset[str] = frozenset()
    truncated: bool = False
    pairs: frozenset[tuple[str, str]] = frozenset()
    similarity: float | None = None  # cosine to the question, where the embedder knows its language
    words: frozenset[str] = frozenset()  # its words as written (casefolded), for inflected matches
    aliases: tuple[str, ...] = ()  # its note's other names (frontmatter ``aliases``), said with its title
    names_in_note: frozenset[str] = frozenset()  # keys of the question's names its note states somewhere

    @property
    def heading(self) -> str:
        return self.heading_path[-1] if self.heading_path else ""

    def where(self) -> str:
        crumb = " > ".join([self.title, *self.heading_path]) if self.title else " > ".join(self.heading_path)
        if self.locator:
            place = self.locator
        elif self.line_start:
            place = f"lines {self.line_start}-{self.line_end}"
        else:
            place = ""
        return f"{self.path}" + (f" ({crumb})" if crumb and crumb != self.path else "") + \
            (f", {place}" if place else "")

    def metadata(self) -> dict[str, Any]:
        """The ``metadata`` envelope's data for this citation."""
        return {"label": self.label, "chunk_id": self.chunk_id, "path": self.path, "title": self.title,
                "heading": self.heading, "heading_path": list(self.heading_path),
                "line_start": self.line_start, "line_end": self.line_end, "locator": self.locator,
                "snippet": self.snippet, "score": round(float(self.score), 6), "source": self.source}


@dataclass(frozen=True, slots=True)
class Concept:
    """One thing the question asks about: the user's word and its terms in each language considered."""

    key: str  # its term in the question's language: the name in ``question_terms``
    word: str  # as the user wrote it (casefolded)
    terms: frozenset[str]
    whole: str = ""  # the compound this concept is a part of ("" when it is a word of its own)
    frame: bool = False  # a verb, adjective or framing noun of the question (``question_concepts``), not its topic
    name: bool = False  # written capitalised away from a sentence's start, in a language with lowercase nouns
    context: bool = False  # said only in a clause setting the scene before the question proper (``_scene_words``)
    slip: str = ""  # the vault's term this word was read as, the vault having the word in no form (``_with_slip_read``)
    # the vault's word of another language this word is read as, the vault having it in no form (``across.bridged``)
    bridged: str = ""
    # the vault's term in its other language that this short word is spelled alike with ("Gen": gene, ``short_cognate``)
    cognate: str = ""
    # a stopword the question quotes ("'Soll an Haben'"): the index keeps none, so cannot tell whether the vault says it
    unindexed: bool = False
    spelled: tuple[str, ...] = ()  # the words an acronym stands for, as the vault spells it out (``acronyms``)

    def found_in(self, terms: frozenset[str] | set[str], text_words: frozenset[str] | set[str]) -> bool:
        """Whether a text with these index ``terms`` and ``text_words`` has this concept."""
        if not self.terms.isdisjoint(terms) or self.word in text_words or \
                (self.spelled and set(self.spelled) <= text_words):
            return True
        if len(self.word) < INFLECTION_PREFIX:
            return False
        if any(inflected(self.word, w) for w in text_words):
            return True
        alike, base = spelled_alike(self.word), derivation_base(self.word)
        return any(inflected(alike, spelled_alike(w)) or inflected(base, derivation_base(w)) for w in text_words)


# Endings that make a German verb or its noun of action from a noun ("gruppieren", "Formatierung" from "Gruppe",
# "Format"): without them, a question's "Wie *gruppiere* ich Lesezeichen?" finds the note's "Lesezeichen-*Gruppen*".
DERIVATION_ENDINGS = ("ierungen", "ierung", "ierten", "ierte", "ieren", "ierst", "iert", "iere")


@lru_cache(maxsize=65536)
def derivation_base(word: str) -> str:
    """``word`` (casefolded) without a derivation ending (``DERIVATION_ENDINGS``), where a stem of at least
    ``INFLECTION_PREFIX`` letters is left; else ``word``."""
    for ending in DERIVATION_ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= INFLECTION_PREFIX:
            return word[:-len(ending)]
    return word


@lru_cache(maxsize=65536)
def spelled_alike(word: str) -> str:
    """``word`` (casefolded) as the vault's other language writes the same learned word (``analysis.cognate_key``:
    "Sokrates" and "Socrates", "Effekt" and "effect"), or itself where it is too short to tell words apart."""
    return cognate_key(word) or word


def inflected(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` look like one word inflected (produzieren/produziert, capital/capitals)."""
    if a[:INFLECTION_PREFIX] != b[:INFLECTION_PREFIX] or not b[:INFLECTION_PREFIX].isalpha():
        return False
    shared = INFLECTION_PREFIX
    limit = min(len(a), len(b))
    while shared < limit and a[shared] == b[shared]:
        shared += 1
    return len(a) - shared <= INFLECTION_TAIL and len(b) - shared <= INFLECTION_TAIL and \
        a[shared:] in INFLECTION_ENDINGS and b[shared:] in INFLECTION_ENDINGS


@dataclass(slots=True)
class EvidencePack:
    """Labelled passages for one request, with hard size limits."""

    items: list[Evidence] = field(default_factory=list)
    max_items: int = DEFAULT_MAX_ITEMS
    token_budget: int = DEFAULT_TOKEN_BUDGET
    item_tokens: int = DEFAULT_ITEM_TOKENS
    tokens_used: int = 0
    dropped_for_budget: int = 0
    extra_items: int = TOOL_EXTRA_ITEMS  # what tools may still add
    extra_tokens: int = TOOL_EXTRA_TOKENS
    question_terms: list[str] = field(default_factory=list)
    term_weights: dict[str, float] = field(default_factory=dict)
    question_phrases: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    query: str = ""  # the text searched for (a follow-up resolved against the previous turn)
    question_vector: Any = None  # its embedding, where the embedder knows the question's language
    concepts: dict[str, Concept] = field(default_factory=dict)  # by key (the names in question_terms)
    unknown_share: float = 0.0  # of the question's weight, in words the vault never uses
    unknown: list[str] = field(default_factory=list)  # those words, as the user wrote them
    gaps: set[str] = field(default_factory=set)  # concept keys the vault may say only in another language
    lang: str | None = None  # the question's language
    # the passages of another language meaning a question its words call off-topic (``answer.across.Across``)
    across: Any = None

    def concepts_in(self, terms: frozenset[str] | set[str], text_words: frozenset[str] | set[str]) -> set[str]:
        """The keys of the question's concepts that a text with these terms and words has."""
        return {key for key, concept in self.concepts.items() if concept.found_in(terms, text_words)}

    def side_by_side(self, name: tuple[str, str], pairs: frozenset[tuple[str, str]]) -> bool:
        """Whether ``pairs`` (a text's adjacent terms) have the two concepts of ``name`` side by side, in any of
        their terms: an English passage's "INNER JOIN" is ("inner", "join"), a German question's ("inn", "join")."""
        first, second = (self.concepts[key].terms | {key} if key in self.concepts else {key} for key in name)
        # one word the two stand for, the other language's compound of them ("Praetorian Guard": "Prätorianergarde")
        joined = first & second
        return any((a, b) in pairs or (b, a) in pairs for a in first for b in second) or \
            bool(joined) and any(a in joined or b in joined for a, b in pairs)

    def word_of(self, key: str) -> str:
        """The user's word for a concept key (the key itself when it names no concept)."""
        concept = self.concepts.get(key)
        return concept.word if concept is not None else key

    def __len__(self) -> int:
        return len(self.items)

    def __bool__(self) -> bool:
        return bool(self.items)

    def get(self, label: str) -> Evidence | None:
        label = label.upper()
        for item in self.items:
            if item.label == label:
                return item
        return None

    def labels(self) -> list[str]:
        return [item.label for item in self.items]

    def by_chunk(self, chunk_id: str) -> Evidence | None:
        for item in self.items:
            if item.chunk_id == chunk_id:
                return item
        return None

    def next_label(self) -> str:
        return f"S{len(self.items) + 1}"

    def add(self, item: Evidence, *, from_tool: bool = False) -> Evidence | None:
        """Add ``item`` under the next label if the limits allow; the existing entry for a known chunk."""
        known = self.by_chunk(item.chunk_id) if item.chunk_id else None
        if known is not None:
            return known
        if len(self.items) >= HARD_MAX_ITEMS:
            self.dropped_for_budget += 1
            return None
        limit_items = self.extra_items if from_tool else self.max_items - len(self.items)
        if limit_items <= 0:
            self.dropped_for_budget += 1
            return None
        room = self.extra_tokens if from_tool else self.token_budget - self.tokens_used
        allowed = min(self.item_tokens, room)
        if allowed < 40:
            self.dropped_for_budget += 1
            return None
        item.text, cut = trim_to_tokens(item.text, allowed)
        item.truncated = item.truncated or cut
        if self.concepts:
            item.terms = item.terms | self.concepts_in(item.terms, item.words)
        cost = estimate_tokens(item.text)
        item.label = self.next_label()
        self.items.append(item)
        if from_tool:
            self.extra_items -= 1
            self.extra_tokens -= cost
        else:
            self.tokens_used += cost
        return item

    def render(self, items: Sequence[Evidence] | None = None) -> str:
        """The passages as the prompt shows them: a label, where it is from, the text."""
        chosen = self.items if items is None else items
        if not chosen:
            return "(no passages: nothing in the vault matched this question)"
        blocks = []
        for item in chosen:
            blocks.append(f"[{item.label}] {item.where()}\n{item.text.strip()}")
        return "\n\n".join(blocks)

    def all_text(self) -> str:
        return "\n".join(item.text for item in self.items)


# -- terms and weights ---------------------------------------------------------


def question_language(engine: Any, question: str) -> str | None:
    try:
        known = engine.vault_languages() or None
    except Exception:  # noqa: BLE001 - a broken catalog still lets us answer
        known = None
    return detect_language(question, known)


def analyzer_of(engine: Any) -> Analyzer:
    lexical = getattr(getattr(engine, "store", None), "lexical", None)
    return lexical.analyzer if lexical is not None else FALLBACK_ANALYZER


# Adverbs of how often, how sure or how exactly ("what *usually* causes ...", "wie *normalerweise* ..."): they hedge
# what is asked, they name nothing the answer must say (a note states "X causes Y" without "usually"). A closed class.
HEDGES = frozenset(words("""
usually typically normally generally commonly mostly mainly often sometimes always ever frequently rarely
basically essentially roughly approximately probably likely perhaps maybe still already just simply
normalerweise üblicherweise gewöhnlich typischerweise meistens meist oft häufig manchmal immer jemals selten
grundsätzlich generell hauptsächlich ungefähr etwa circa wahrscheinlich vielleicht eher noch schon standardmäßig
"""))  # as a question's words are read (casefolded, "ß" as "ss")
# German makes such sentence adverbs from adjectives with "-erweise" ("*typischerweise*", "*möglicherweise*",
# "*normalerweise*", "*seltsamerweise*"): the suffix after the adjective's own ending marks the class, whatever the
# adjective (a bare "-erweise" would take nouns too: "Rückverweise")
HEDGE_SUFFIXES = ("licherweise", "ischerweise", "alerweise", "samerweise", "barerweise")


def is_hedge(word: str) -> bool:
    """Whether ``word`` (casefolded) hedges what a question asks rather than naming it."""
    return word in HEDGES or word.endswith(HEDGE_SUFFIXES)


# Words that shape a question without naming what it is about ("how *many*", "*tell* me", "what
# *happens* in X", "how does X *work*", "what does X *mean*"), and the German question words the
# stopword list lacks ("*wer*", "*warum*": English has "who" and "why" among its stopwords).
# A span the question quotes: opening and closing marks with a blank or the text's edge outside them.
_QUOTED_SPAN = re.compile(r"(?:^|(?<=[\s(]))['\"„“‚‘«»](?P<text>[^'\"„“”‚‘’«»\n]{1,80})['\"“”‘’«»](?=$|[\s.,;:!?)])")
QUESTION_FILLERS = frozenset("""
many much look tell explain describe define want need know possible way ways thing things something anything
somewhere anywhere elsewhere else someone anyone somebody anybody irgendwo woanders sonst irgendwas jemand
please exactly actually really happen happens happened happening work works mean means say says
would could might must shall
bitte genau eigentlich möchte möchten brauche wissen erkläre erklären beschreibe beschreiben erläutere erläutern
definiere lautet besagt besagen versteht gibt viele vielen wieviel wieviele passiert
geschieht funktioniert funktionieren bedeutet darf dürfen muss müssen beim zum zur vom ins
""".split()) | HEDGES | GERMAN_QUESTION_WORDS | frozenset(  # also in a vault without German notes (no German stopwords)
    # German asks "what of/for/about" with one word per preposition (woraus, wofür, worüber, ...): a closed class
    ("wor" if prep[0] in "aeiouü" else "wo") + prep for prep in
    "aus an auf bei durch für gegen hin her in mit nach neben über um unter von vor zu zwischen".split())


# Words that ask for a kind of answer ("how *many*", "how *long*", "wie *lange*", "*when was*") and the
# kind (``answer_kind``): they say what the answer must be, not what it is about ("long" is no topic of
# "how long are versions kept?").
ANSWER_CUES: dict[str, dict[tuple[str, ...], str]] = {
    "en": {
        ("how", "many"): "quantity", ("how", "much"): "quantity", ("what", "percentage"): "share",
        ("what", "percent"): "share", ("which", "percentage"): "share", ("what", "share"): "share",
        ("what", "fraction"): "share", ("which", "fraction"): "share", ("what", "proportion"): "share",
        ("which", "proportion"): "share",
        ("how", "big"): "quantity", ("how", "large"): "quantity", ("what", "number", "of"): "quantity",
        ("how", "long"): "duration", ("how", "often"): "duration",
        ("when", "was"): "date", ("when", "were"): "date", ("when", "did"): "date", ("what", "year"): "date",
        ("which", "year"): "date", ("since", "when"): "date", ("what", "date"): "date",
        ("the", "maximum"): "quantity", ("the", "minimum"): "quantity", ("the", "maximum", "number", "of"): "quantity",
        ("the", "minimum", "number", "of"): "quantity",
        ("how", "warm"): "temperature", ("how", "hot"): "temperature", ("how", "cold"): "temperature",
        ("what", "temperature"): "temperature", ("which", "temperature"): "temperature",
        ("how", "deep"): "length", ("how", "far"): "length", ("how", "tall"): "length", ("how", "wide"): "length",
        ("how", "heavy"): "mass", ("how", "old"): "age",
        ("how", "expensive"): "price",
    },
    "de": {
        ("wie", "viele"): "quantity", ("wie", "vielen"): "quantity", ("wie", "viel"): "quantity",
        ("wieviel",): "quantity", ("wieviele",): "quantity", ("wie", "groß"): "quantity", ("wie", "hoch"): "quantity",
        ("welcher", "anteil"): "share", ("welchen", "anteil"): "share", ("wie", "viel", "prozent"): "share",
        ("wie", "viele", "prozent"): "share",
        ("was", "kostet"): "price", ("was", "kosten"): "price", ("wie", "teuer"): "price",
        ("die", "maximale"): "quantity", ("der", "maximale"): "quantity", ("das", "maximale"): "quantity",
        ("die", "minimale"): "quantity", ("der", "minimale"): "quantity", ("das", "minimale"): "quantity",
        ("die", "maximale", "anzahl"): "quantity", ("die", "minimale", "anzahl"): "quantity",
        ("wie", "lange"): "duration", ("wie", "oft"): "duration",
        ("wann", "wurde"): "date", ("wann", "wurden"): "date", ("wann", "war"): "date", ("wann", "waren"): "date",
        ("in", "welchem", "jahr"): "date", ("seit", "wann"): "date", ("welches", "jahr"): "date",
        ("wie", "warm"): "temperature", ("wie", "heiß"): "temperature", ("wie", "kalt"): "temperature",
        ("welche", "temperatur"): "temperature", ("welcher", "temperatur"): "temperature",
        ("wie", "tief"): "length", ("wie", "weit"): "length", ("wie", "breit"): "length",
        ("wie", "schwer"): "mass", ("wie", "alt"): "age",
    },
}


@dataclass(frozen=True, slots=True)
class AnswerCue:
    """Where a question asks for a kind of answer: its words ``said[start:end]``, the kind, their language."""

    start: int
    end: int
    kind: str  # quantity | share | price | duration | date | temperature | length | mass | age
    lang: str
    words: str


def answer_cues(said: Sequence[str], lang: str | None) -> list[AnswerCue]:
    """The cues in a question's words, in order (the longest where two start together, then the question's
    language's; the other language's count too, since a short question's language is a guess)."""
    cues = _cues_in_order(lang)
    found: list[AnswerCue] = []
    at = 0
    while at < len(said):
        match = next((AnswerCue(at, at + len(cue), kind, code, " ".join(cue)) for code, cue, kind in cues
                      if tuple(said[at:at + len(cue)]) == cue), None)
        if match is not None:
            found.append(match)
        at = match.end if match is not None else at + 1
    return found


@lru_cache(maxsize=16)
def _cues_in_order(lang: str | None) -> tuple[tuple[str, tuple[str, ...], str], ...]:
    """The answer cues to look for, longest first ("wie viel prozent" before "wie viel"), then ``lang``'s."""
    return tuple(sorted(((code, tuple(word.casefold() for word in cue), kind)  # as the question's words ("wie groß")
                         for code in sorted(ANSWER_CUES, key=lambda code: code != lang)
                         for cue, kind in ANSWER_CUES[code].items()), key=lambda entry: -len(entry[1])))


def question_languages(engine: Any, lang: str | None) -> list[str]:
    """The languages a question's words are read in: its guessed language, then the vault's own ones."""
    try:
        known = sorted(engine.vault_languages() or ())
    except Exception:  # noqa: BLE001 - a broken catalog still lets us answer
        known = []
    others = [code for code in known if code != lang and code in SNOWBALL_BY_ISO]
    if len(others) + 1 > MAX_QUESTION_LANGUAGES:
        others = [code for code in others if code == "en"]
    elif not others and lang not in (None, "en"):
        others = ["en"]
    return list(dict.fromkeys([lang or "en", *others]))


SURE_LANGUAGE_WORDS = 4  # from this many words on, a question's guessed language is its language


def _stopword_of(word: str, languages: Sequence[str], analyzer: Analyzer, sure_vocab: dict[str, int] | None) -> bool:
    """Whether ``word`` is a stopword of the question's language (``languages[0]``) or, unless the question's
    language is sure (``sure_vocab``: the vault's terms then) and the vault uses the word in it, of another language
    it may be in."""
    own = analyzer.terms_of_word(word, languages[0])
    if not own:
        return True
    return any(not analyzer.terms_of_word(word, code) for code in languages[1:]) and not (
        sure_vocab is not None and own[0] in sure_vocab)


def question_concepts(engine: Any, text: str, lang: str | None) -> list[Concept]:
    """The concepts of ``text`` (stopwords of any language considered, question fillers and the words asking
    for a kind of answer dropped), in order.

    A German compound the vault never uses whole stands for its parts, one concept each: the parts the corpus
    splits compounds into, else two parts one note holds in any of the vault's languages ("Transformgrenze": the
    note's "transformen Plattengrenze"; "Informationsasymmetrie": the English note's "information asymmetry").
    A word the vault never uses alone that it writes as one with its neighbour ("Kohlenstoff-Kreislauf" for
    "Kohlenstoffkreislauf", ``LexicalIndex.read_compounds``) or with the word of its genitive ("Falle der
    Liquidität" for "Liquiditätsfalle", ``LexicalIndex.read_genitive_compounds``) has that word among its terms.
    """
    analyzer = analyzer_of(engine)
    vocab = _vocabulary(engine)
    lexical = getattr(getattr(engine, "store", None), "lexical", None)
    languages = question_languages(engine, lang)
    first = languages[0]
    concepts: dict[str, Concept] = {}
    symbols: set[str] = set()
    said = words(text)
    joined = dict(lexical.read_compounds(said, lang)) if lexical is not None else {}
    genitive = dict(lexical.read_genitive_compounds(said)) if lexical is not None and lang == "de" else {}
    asking = {at for cue in answer_cues(said, lang) for at in range(cue.start, cue.end)}
    count = asked_count(text, said)
    separable: dict[str, tuple[str, str]] = {}
    within: dict[str, set[str]] = {}  # concept key -> the compounds holding the word (``_compounds_of``)
    across = _joined_across(lexical, analyzer, said, lang) if lexical is not None and lang != "de" else {}
    if lang == "de":
        frame = _lowercase_words(text)
        separable = _separable_verbs(text)
    else:
        verb = _english_main_verb(said, lambda word: bool(found := analyzer.terms_of_word(word, first))
                                  and (vocab is None or found[0] in vocab))
        frame = frozenset({verb}) if verb is not None and verb in _lowercase_words(text) else frozenset()
    names = _name_words(text, lang)
    framing_words = frame_words(said, [lang, *languages])  # "difference", "heißt", "auf Spanisch"
    # what the question quotes is what it asks about ("What does 'Soll an Haben' mean?"), stopwords or not
    quoted = {word for span in _QUOTED_SPAN.finditer(text) for word in words(span["text"])}
    # a question long enough for its language to be known: a word of that language the vault uses as a term is one,
    # though another language has it as a stopword ("When did the *war* end?", "When did Kepler *die*?")
    sure_vocab = vocab if lang is not None and len(said) >= SURE_LANGUAGE_WORDS else None
    for at, word in enumerate(said):
        if at in asking:
            continue  # "how long": what kind of answer, not what about
        if not any(c.isalnum() for c in word):
            bare = word.strip("`")  # `::x::` is one symbol run, not "`::" and "::`"
            if bare in symbols:
                continue
            symbols.add(bare)
        if word in QUESTION_FILLERS or is_hedge(word) or _stopword_of(word, languages, analyzer, sure_vocab) and not (
                word in quoted and any(analyzer.terms_of_word(word, code) for code in languages)):
            continue  # a stopword in one of the languages the question may be in (in quotes: in all of them)
        found = analyzer.terms_of_word(word, first) or next(
            found for code in languages if (found := analyzer.terms_of_word(word, code)))
        if len(found) > 1 and vocab is not None and found[0] not in vocab:
            # a compound the vault never uses whole: its parts are the concepts
            for part in analyzer.split_compound(word):
                stems = analyzer.terms_of_word(part, first)
                if stems:
                    concepts.setdefault(stems[0], Concept(stems[0], part, frozenset(stems[:1]), word))
            continue
        if lang == "de" and word not in frame and lexical is not None and vocab is not None \
                and found[0] not in vocab and at not in joined \
                and (parts := lexical.note_compound_parts(found[:1]) or
                     _cognate_parts(lexical, analyzer, word, languages) or
                     _skeleton_parts(lexical, word)) is not None:  # nouns: no verb split
            for piece in parts:
                concepts.setdefault(piece.name, Concept(piece.name, piece.name, frozenset(piece.terms), word))
            continue
        terms = {found[0]} | {stems[0] for code in languages[1:] if (stems := analyzer.terms_of_word(word, code))}
        if at in joined and lexical is not None and not any(lexical.document_frequency(term) for term in terms):
            terms.add(joined[at])  # "Kreislauf" the vault writes only in "Kohlenstoffkreislauf"
        if at in genitive:
            terms.add(genitive[at])
        if lexical is not None and not any(lexical.document_frequency(term) for term in terms):
            # "Faktoren" the vault writes only in "Einflussfaktoren", "Kosten" only in "Kostenfunktion"; "object"
            # and "permanence" a German note writes as one word ("Objektpermanenz")
            if lang == "de" and word not in frame:
                within[found[0]] = _compounds_of(lexical, said, at, found[0])
        if at in across:
            terms.add(across[at])
        if count is not None and cardinal_of(word) == count:
            terms.add(str(count))  # "What are the *four* stages …?": "## The 4 stages"
        if word in separable:
            terms |= {found[0] for spelling in separable[word] if (found := analyzer.terms_of_word(spelling, first))}
        key = found[0]
        if not any(c.isalnum() for c in key) and (vocab is None or key not in vocab):
            continue  # punctuation the vault never uses (quotes, "?)") says nothing about the topic
        if len(key) > 1 or key.isdigit():  # symbol runs ("[[##", "%%") are what lexical questions hinge on
            # an ordinal says which one of what the question names ("the *second* law"), and a count how many ("the
            # *four* stages"), not what about
            framing = word in frame or word in FRAME_NOUNS or framing_words[at] or ordinal_of(word) is not None or \
                count is not None and (cardinal_of(word) == count or word == str(count))
            unindexed = any(not analyzer.terms_of_word(word, code) for code in languages)
            concepts.setdefault(key, Concept(key, word, frozenset(terms), frame=framing, name=word in names,
                                             unindexed=unindexed))
    if within and lexical is not None:
        concepts = _with_compounds(lexical, concepts, within)
    scene = _scene_words(text)
    if any(c.word not in scene and not c.frame and (vocab is None or c.key in vocab) for c in concepts.values()):
        concepts = {key: replace(c, context=c.word in scene) for key, c in concepts.items()}
    return _with_slip_read(engine, list(concepts.values()))


def _with_compounds(lexical: Any, concepts: dict[str, Concept], within: dict[str, set[str]]) -> dict[str, Concept]:
    """``concepts`` with the compounds holding a word (``within``) among its terms, those a note holds together with
    another thing the question names: "Faktoren" of "Welche Faktoren beeinflussen eine Impfung?" is the
    "Einflussfaktoren" of the note on vaccination, not the "Wachstumsfaktoren" of one on cells; "Schichten" is no
    "Vorgeschichte"."""
    kept = dict(concepts)
    for key, compounds in within.items():
        # (a number names no thing a note is on: "Darf ein *15*-Jähriger von seinem Taschengeld ...?" of the glossary's
        # "Taschengeldparagraph", whatever other note says "15")
        others = [term for other in concepts.values() if other.key != key and not other.frame and
                  not other.word.isdigit() for term in other.terms if lexical.document_frequency(term)]
        held = {compound for compound in compounds if not others or
                any(lexical.holding_both(compound, term, True) for term in others)}
        if key in kept and held:
            kept[key] = replace(kept[key], terms=kept[key].terms | held)
    return kept


def _compounds_of(lexical: Any, said: Sequence[str], at: int, term: str) -> set[str]:
    """The index terms of the compounds that hold the German question's noun ``said[at]`` (its index ``term``), a
    word the vault writes only inside them: as their last part ("Faktoren": "Einflussfaktoren") or, with its joint,
    as their first ("Kosten": "Kostenfunktion"). German joins nouns freely: a note on "Einflussfaktoren" lists
    factors."""
    word = said[at]
    return {*lexical.compounds_holding(term, at_end=True), *lexical.compounds_holding(word, at_end=False),
            *(lexical.compounds_holding(word, at_end=True) if word != term else ())} - {term}


def _joined_across(lexical: Any, analyzer: Analyzer, said: Sequence[str], lang: str | None) -> dict[int, str]:
    """The index terms of the German compounds that two neighbouring words of a question in another language, one of
    them a word no passage has, spell as the vault's German writes the same learned words ("object permanence":
    "Objektpermanenz", "communication model": "Kommunikationsmodell", with the joint; "antigen presentation":
    "Antigenpräsentation"), by each word's place in ``said``."""
    unused = [not any(lexical.document_frequency(term) for term in analyzer.terms_of_word(word, lang)) for word in said]
    found: dict[int, str] = {}
    for at, (first, second) in enumerate(zip(said, said[1:], strict=False)):
        if not (first.isalpha() and second.isalpha()) or not (unused[at] or unused[at + 1]) or \
                is_stopword(first, lang) or is_stopword(second, lang):
            continue
        term = next((read for joint in FUGEN for spelling in dict.fromkeys(
            [first + joint + second, *analyzer.terms_of_word(first + joint + second, "de")])
                     if (read := lexical.cognate(spelling))), None) or _spelled_by(lexical, first, second)
        if term is not None:
            found.setdefault(at, term)
            found.setdefault(at + 1, term)
    return found


def _spelled_by(lexical: Any, first: str, second: str) -> str | None:
    """The index term of the one compound whose consonants are those of ``first`` and ``second``, two words of
    another language, the same learned words ("price discrimination": "Preisdiskriminierung"); None."""
    head, tail = consonant_skeleton(first), consonant_skeleton(second)
    if len(head + tail) < MIN_SKELETON:
        return None
    found = {term for joint in _JOINT_CONSONANTS for term in _skeletons(lexical).get(head + joint + tail, ())}
    return found.pop() if len(found) == 1 else None


def _cognate_parts(lexical: Any, analyzer: Analyzer, word: str, languages: Sequence[str]
                   ) -> tuple[CompoundPart, CompoundPart] | None:
    """Two parts of a German question's compound the vault writes apart in its other language, one note holding
    both, each as that language writes the same learned word ("Komplementsystem": the English note's "complement
    system"; "Objektpermanenz": "object permanence"), or None."""
    best: tuple[int, tuple[CompoundPart, CompoundPart] | None] = (0, None)
    for cut in range(COMPOUND_PART_CHARS, len(word) - COMPOUND_PART_CHARS + 1):
        heads = {_read_part(lexical, analyzer, word[:cut][:len(word[:cut]) - len(joint)], languages)
                 for joint in FUGEN if word[:cut].endswith(joint) and cut - len(joint) >= COMPOUND_PART_CHARS}
        head = next((term for term in heads if term), None)
        tail = _read_part(lexical, analyzer, word[cut:], languages)
        if head and tail and head != tail and (together := lexical.holding_both(head, tail, True)) > best[0]:
            best = (together, (CompoundPart(head, (head,)), CompoundPart(tail, (tail,))))
    return best[1]


def _read_part(lexical: Any, analyzer: Analyzer, part: str, languages: Sequence[str]) -> str | None:
    """The index term a part of a German compound is in the vault, as a word of its own or as another language
    writes the same learned word ("komplement": "complement", "diskriminierung": "discrimin")."""
    for code in languages:
        for term in dict.fromkeys([*analyzer.terms_of_word(part, code)[:1], derivation_base(part)]):
            if lexical.document_frequency(term):
                return str(term)
            if (read := lexical.cognate(term)) is not None:
                return str(read)
    return None


MIN_SKELETON = 7  # consonants a compound keeps at least, so its two words spelled alike are no chance match


_JOINT_CONSONANTS = ("", "s", "n", "r")  # the consonants of a German compound's joints ("Prätorian|er|garde", "-s-")


def _skeletons(lexical: Any) -> dict[str, list[str]]:
    """The index's terms by their consonant skeleton (``consonant_skeleton``), rebuilt when the vocabulary grows."""
    table: dict[str, list[str]] = _per_vocabulary(lexical, "skeletons", _skeleton_table)
    return table


def _skeleton_table(lexical: Any) -> dict[str, list[str]]:
    table: dict[str, list[str]] = {}
    for term in lexical.vocab:
        if term.isalpha():
            table.setdefault(consonant_skeleton(term), []).append(term)
    return table


def _skeleton_parts(lexical: Any, word: str) -> tuple[CompoundPart, CompoundPart] | None:
    """Two words one passage holds that spell ``word``, a compound, as the vault's other language writes the same
    learned words ("Preisdiskriminierung": "price discrimination"), by their consonants; or None."""
    whole = consonant_skeleton(word)
    if len(whole) < MIN_SKELETON:
        return None
    table = _skeletons(lexical)
    for cut in range(2, len(whole) - 1):
        for joint in ("", whole[cut]) if whole[cut] in _JOINT_CONSONANTS else ("",):
            for head in table.get(whole[:cut], ()):
                for tail in table.get(whole[cut + len(joint):], ()):
                    if head != tail and lexical.holding_both(head, tail):
                        return CompoundPart(head, (head,)), CompoundPart(tail, (tail,))
    return None


def _with_slip_read(engine: Any, concepts: list[Concept]) -> list[Concept]:
    """``concepts`` with the words the vault never uses read as the vault's: each one it writes another way
    ("Delphin": Delfin; "mitosis": a German note's Mitose, ``LexicalIndex.read_other_spellings``), and a typing
    slip ("photosyntesis": photosynthesis; among other words the vault never uses, one slip in a long word,
    ``LexicalIndex.read_slips``), as keyword search reads them."""
    lexical = getattr(getattr(engine, "store", None), "lexical", None)
    if lexical is None:
        return concepts
    topics = [at for at, concept in enumerate(concepts) if not concept.frame]
    words_terms = [(concepts[at].key, *sorted(concepts[at].terms - {concepts[at].key})) for at in topics]
    readings = dict(lexical.read_slips(words_terms, [concepts[at].word for at in topics]))
    read = {topics[at]: term for at, term in readings.items()}
    alike = {at: term for at in topics if at not in read and not any(lexical.document_frequency(t) for t in
                                                                     concepts[at].terms)
             and (term := short_cognate(lexical, concepts[at].word, concepts[at].terms)) is not None}
    return [replace(concept, terms=concept.terms | {read[at]}, slip=read[at]) if at in read else
            replace(concept, terms=concept.terms | {alike[at]}, cognate=alike[at]) if at in alike else concept
            for at, concept in enumerate(concepts)]


SHORT_COGNATE_CHARS = 3  # a shorter term is spelled alike with too many words of the other language


def short_cognate(lexical: Any, word: str, terms: Collection[str]) -> str | None:
    """The index term that ``word`` (with these index ``terms``, none of which the vault has), a word too short for
    ``analysis.cognate_key``, is as the vault's other language spells the same word: a final e more or less, a
    German z or k where English writes c ("Gen": gene, "Zellen": cells, "cell": Zelle). None for a false friend
    (``LanguageWords.false_friends``: "Kurs" is no curse, "Not" no note) and where no such term is in the vault."""
    if any(word in language.false_friends for language in WORDS.values()):
        return None
    held: list[tuple[int, str]] = []
    for term in terms:
        if not term.isalpha() or len(term) < SHORT_COGNATE_CHARS or cognate_key(term) is not None:
            continue
        heads = [term[0], *_OTHER_INITIALS.get(term[0], ())]
        bare = term.removesuffix("e")
        for head in heads:
            for spelling in (head + bare[1:], head + bare[1:] + "e"):
                if spelling != term and len(spelling) >= SHORT_COGNATE_CHARS and \
                        (frequency := lexical.document_frequency(spelling)):
                    held.append((frequency, spelling))
    return max(held)[1] if held else None


# a German word's first letter where English writes c for the same learned word, and back ("Zelle": cell, "Kode": code)
_OTHER_INITIALS = {"z": ("c",), "k": ("c",), "c": ("z", "k")}


_AUXILIARIES = frozenset("do does did can could should would will may might must".split())
_WH_WORDS = frozenset("what where when why how which who whom whose".split())
_PERSONAL = frozenset("i you we they he she it".split())
# The words a question proper opens with after a clause setting its scene (", how do I ...", " - kann ich ...").
_ASKING_WORDS = _AUXILIARIES | _WH_WORDS | GERMAN_QUESTION_WORDS | frozenset(
    "is are was were has have wie was wo welche welcher welches kann können muss soll sollte lässt gibt ist sind"
    " wird werden habe hat".split())
_CLAUSE_BREAK = re.compile(r"\s*(?:[,;:]|\s[-–—])\s+")


def _scene_words(text: str) -> frozenset[str]:
    """The words of a clause that sets the scene before the question proper ("I'm on a MacBook Pro, *how do I*
    open the command palette?"): what comes before the first clause break followed by a word that asks, where
    the text does not open with such a word itself ("How do I export, and can I ...?" has no scene)."""
    said = words(text)
    if not said or said[0] in _ASKING_WORDS:
        return frozenset()
    for found in _CLAUSE_BREAK.finditer(text):
        after = words(text[found.end():])
        if after and after[0] in _ASKING_WORDS:
            return frozenset(words(text[:found.start()])) - frozenset(after)
    return frozenset()


def _english_main_verb(said: Sequence[str], known: Callable[[str], bool]) -> str | None:
    """The main verb of an English question asked with an auxiliary, where its place shows it: after "do",
    "does", "can", ... and the subject, a pronoun or a run of words the vault knows ("What do chloroplasts
    *consist* of?", "Where do the light reactions *occur*?"). None where the question has no such frame."""
    at = next((i for i, word in enumerate(said[:3]) if word in _AUXILIARIES), None)
    if at is None or not all(word in _WH_WORDS for word in said[:at]):
        return None
    rest = [word for word in said[at + 1:] if any(c.isalnum() for c in word)]
    if rest and rest[0] in _PERSONAL:
        return rest[1] if len(rest) > 1 and not is_stopword(rest[1], "en") else None
    subject = 0
    for word in rest:
        if is_stopword(word, "en") and not subject:
            continue  # "the", "a", "my" before the subject
        if not is_stopword(word, "en") and known(word):
            subject += 1
            continue
        if subject and not is_stopword(word, "en"):
            return word
        return None
    return None


def verb_asked_with(said: Sequence[str], cue: str, known: Callable[[str], bool]) -> str | None:
    """The main verb of an English question whose answer cue stands before its auxiliary ("How long do worker bees
    *survive*?", ``_english_main_verb`` read without the cue's other words: "how do worker bees survive")."""
    cue_words = set(cue.split()) - _WH_WORDS
    return _english_main_verb([word for word in said if word not in cue_words], known)


_SENTENCE_START = re.compile(r"(?:^|[.!?:;\n])\s*[\"'„“‚‘(»«]*$")


# German particles a verb leaves at the clause's end ("stelle ... wieder her", "lege ... an"): a closed class.
_SEPARABLE_PARTICLES = frozenset("""
ab an auf aus bei dar durch ein fest fort her herab heran herauf heraus herein herum herunter hervor hin hinauf
hinaus hinein hinzu los mit nach vor voran voraus vorbei weg weiter wieder zu zurück zusammen
""".split())
_CLAUSE_END = re.compile(r"[,;:.!?–—]")
_LETTER_RUN = re.compile(r"[^\W\d_]+")  # a word of letters, as written


_PERSON_ENDING = re.compile(r"(?:e|st|t|en|et)$")


def _separable_verbs(text: str) -> dict[str, tuple[str, str]]:
    """The German verbs of ``text`` whose particle stands apart at their clause's end, each with the whole verb
    as written and as an infinitive ("Wie *stelle* ich eine Änderung *wieder her*?": stelle -> wiederherstelle,
    wiederherstellen; the stemmer leaves "stellt" whole). The verb is the clause's first word that is no
    stopword and is written in lower case (or opens the question: "Stellt ...?")."""
    found: dict[str, tuple[str, str]] = {}
    for clause in _CLAUSE_END.split(text):
        said = _LETTER_RUN.findall(clause)
        particles: list[str] = []
        while said and said[-1].casefold() in _SEPARABLE_PARTICLES and len(particles) < 2:
            particles.insert(0, said.pop().casefold())
        if not particles or not said:
            continue
        candidates = [word for at, word in enumerate(said)
                      if (word.islower() or at == 0) and not is_stopword(word.casefold(), "de")]
        if candidates:
            verb = candidates[0].casefold()
            whole = "".join(particles) + verb
            found[verb] = (whole, "".join(particles) + _PERSON_ENDING.sub("", verb) + "en")
    return found


def _written_words(text: str) -> Iterator[tuple[str, bool]]:
    """Each word of ``text`` as written, and whether it opens a sentence (where a capital says nothing)."""
    for found in _LETTER_RUN.finditer(text):
        yield found.group(), _SENTENCE_START.search(text, 0, found.start()) is not None


def _lowercase_words(text: str) -> frozenset[str]:
    """Words a text writes only in lower case, away from a sentence's start: in German verbs, adjectives and
    the like, since German capitalises every noun and name ("Wo *findet* die Fotosynthese *statt*?")."""
    lower: set[str] = set()
    upper: set[str] = set()
    for word, opens_sentence in _written_words(text):
        if word[0].islower():
            lower.add(word.casefold())
        elif not opens_sentence:
            upper.add(word.casefold())
    return frozenset(lower - upper)


def _name_words(text: str, lang: str | None) -> frozenset[str]:
    """The words ``text`` writes with a capital away from a sentence's start ("a *Kindle* e-reader", "*iOS*"):
    names, in a language that writes its other nouns in lower case (none in German)."""
    if lang in NOUN_CAPITALISING:
        return frozenset()
    names = {word.casefold() for word, opens_sentence in _written_words(text)
             if not word.islower() and not opens_sentence}
    return frozenset(names - {"i"})


def topic_weight(concept: Concept | None, weight: float) -> float:
    """What a concept of the question weighs when judging whether the vault covers it (a name counts more)."""
    return max(weight, 0.05) * (NAME_WEIGHT if concept is not None and concept.name else 1.0)


def unheard_weight(concept: Concept, weight: float, lang: str | None) -> float:
    """What a word of the question that no note uses weighs towards the off-topic share (``weight``: its topic
    weight): less the more common it is in the question's language (``word_rarity.rarity``). A small vault lacks most
    everyday words ("Where do the reactions take *place*?"); a rare word, a name or a compound the vault never uses
    whole says what the question is about, which the vault does not cover ("RuBisCO", "Kindle", "Smartwatch")."""
    return weight if concept.name or concept.whole else weight * rarity(concept.word, lang)


class UnknownWords(NamedTuple):
    share: float  # of the question's weight, in words the vault never uses in any form
    words: list[str]  # those words, as the user wrote them
    # keys of the scene's words (``Concept.context``) and the sequence nouns the vault never uses: no measure
    unheard_scene: list[str]


def unknown_words(engine: Any, concepts: Sequence[Concept], weights: dict[str, float],
                  lang: str | None, given: Sequence[Evidence] = (), gaps: Collection[str] = ()) -> UnknownWords:
    """The share of the question's weight in words the vault never uses in any form, and those words.

    Words of the ``given`` passages (attachments) count as known, and so do the concepts ``gaps`` names
    (words the vault has only in another language: ``retrieval.translation_gaps``).
    """
    lexical = getattr(getattr(engine, "store", None), "lexical", None)
    if lexical is None or not concepts:
        return UnknownWords(0.0, [], [])
    analyzer = analyzer_of(engine)
    languages = question_languages(engine, lang)
    # a compound read as its parts is one word of the question: its parts share its weight
    parts = Counter(c.whole for c in concepts if c.whole)
    weight = {c.key: topic_weight(c, weights.get(c.key, 1.0)) / parts.get(c.whole, 1) for c in concepts}
    unknown: dict[str, float] = {}
    known: set[str] = set()
    # What a question is about are its nouns and names: a verb the vault never uses ("Wozu *dienen* die
    # Spaltöffnungen?") does not make it a question on something else (unless it has nothing but such words).
    judged_frame = not all(c.frame for c in concepts)
    unheard_scene: list[str] = []
    named: set[str] = set()
    for concept in concepts:
        word = concept.whole or concept.word
        if (number := cardinal_of(concept.word)) is not None and str(number) in concept.terms:
            del weight[concept.key]  # how many things a list question asks for says nothing of what they are
            continue
        if word in known or concept.key in gaps or concept.bridged or any(concept.key in item.terms for item in given):
            continue
        if word not in unknown:
            spellings = set(concept.terms) if not concept.whole else \
                {found[0] for code in languages if (found := analyzer.terms_of_word(word, code))}
            if any(lexical.document_frequency(t) for t in spellings) or \
                    _inflection_in_index(lexical, spellings | {word}):
                known.add(word)
                continue
            if any(spellings & _named_in_frontmatter(engine, lexical, analyzer, code) for code in languages):
                named.add(word)
        if "de" in languages and (_german_form_known(lexical, analyzer, word) or concept.whole and (
                _cognate_parts(lexical, analyzer, word, languages) or _skeleton_parts(lexical, word)) is not None):
            known.add(word)
            continue
        # "Welche *Schritte* umfasst das Härten?" on a note numbering them without the word: a course is asked for,
        # and the vault never saying "Schritte" is not what the question is about
        sequence = word.casefold() in SEQUENCE_NOUNS
        # "Was ist in der *Ökologie* eine Schlüsselart?" of a note tagged #ökologie: the vault's subject, which no
        # passage need say
        in_frontmatter = word in named
        if (concept.frame and judged_frame) or concept.context or concept.unindexed or sequence or in_frontmatter:
            del weight[concept.key]  # neither for nor against the question's topic
            if concept.context or sequence or in_frontmatter:
                unheard_scene.append(concept.key)
            continue
        weight[concept.key] = unheard_weight(concept, weight[concept.key], lang)
        unknown[word] = unknown.get(word, 0.0) + weight[concept.key]
    # A question in a language the vault is not written in keeps its function words as concepts ("wie",
    # "ich"): they count towards the share, but naming them as what "the vault never mentions" reads as nonsense.
    shown = [word for word in unknown if not any(is_stopword(word.casefold(), code) for code in SNOWBALL_BY_ISO)]
    total = sum(weight.values())  # none left: a question only on what notes are titled or tagged
    return UnknownWords(sum(unknown.values()) / total if total else 0.0, shown, unheard_scene)


def _named_in_frontmatter(engine: Any, lexical: Any, analyzer: Analyzer, code: str) -> frozenset[str]:
    """The terms (read in language ``code``) of the words of every note's title, aliases and tags: a note tagged
    ``#ökologie`` is on that subject though its text may never say so ("Was ist in der Ökologie eine Schlüsselart?",
    "What is a fuse in electronics?")."""
    def build(_: Any) -> frozenset[str]:
        reader = getattr(getattr(engine, "store", None), "reader", None)
        if reader is None:
            return frozenset()
        named = {word for _, title, aliases, tags in reader().notes() for text in (title, *aliases, *tags)
                 for word in words(text)}
        return frozenset(found[0] for word in named if (found := analyzer.terms_of_word(word, code)))

    terms: frozenset[str] = _per_vocabulary(lexical, "frontmatter " + code, build)
    return terms


def _german_form_known(lexical: Any, analyzer: Analyzer, word: str) -> bool:
    """Whether a word of a German question the vault has in no form is a German form of words it has: a name with
    the genitive -s ("Wegeners Kontinentaldrift": the note says "Alfred Wegener"; the stemmer reads the two apart),
    or a compound whose two parts one note holds ("Plattenbewegung": the note on plate tectonics says "Platten" and
    "Bewegung"). German joins nouns freely, so a compound the vault never writes whole is no sign of another subject
    (an English one is: "Smartwatch", "Heapsort")."""
    if word.endswith("s") and len(word) > GENITIVE_MIN_CHARS and any(
            lexical.document_frequency(term) for term in analyzer.terms_of_word(word[:-1], "de")):
        return True
    return lexical.note_compound_parts(analyzer.terms_of_word(word, "de")) is not None


# a table built from an index's vocabulary, by what it is: (the index's id, its vocabulary's size, the table)
_PER_VOCABULARY: dict[str, tuple[int, int, Any]] = {}
_PER_VOCABULARY_LOCK = threading.Lock()


def _per_vocabulary(lexical: Any, what: str, build: Callable[[Any], Any]) -> Any:
    """``build(lexical)``, kept for the last index asked about until its vocabulary grows."""
    with _PER_VOCABULARY_LOCK:
        cached = _PER_VOCABULARY.get(what)
        if cached is None or cached[:2] != (id(lexical), len(lexical.vocab)):
            cached = (id(lexical), len(lexical.vocab), build(lexical))
            _PER_VOCABULARY[what] = cached
    return cached[2]


def _inflection_in_index(lexical: Any, spellings: set[str]) -> bool:
    """Whether the index has a term that is an inflection of one of ``spellings`` (by shared start)."""
    ordered: list[str] = _per_vocabulary(lexical, "sorted", lambda index: sorted(index.vocab))
    for spelling in spellings:
        if len(spelling) < INFLECTION_PREFIX:
            continue
        head = spelling[:INFLECTION_PREFIX]
        index = bisect_left(ordered, head)
        while index < len(ordered) and ordered[index].startswith(head):
            term = ordered[index]
            if inflected(spelling, term) and lexical.document_frequency(term):
                return True
            index += 1
    return False


def add_unknown_names(pack: EvidencePack, names: Sequence[tuple[str, str]], lang: str | None = None) -> None:
    """Count ``names`` of the question the vault never has side by side as unknown, each as a whole.

    A name is one thing: "Apple Watch" in a vault that says "Apple" and "watch" only apart is as
    unknown as a compound the vault never uses whole ("Smartwatch"), so both its words' weight
    counts towards the off-topic share (``EvidencePack.unknown_share``). German capitalises every noun:
    in a German question (``lang``) two capitalised words are a name only where the vault lacks the second
    ("Wegeners Kontinentaldrift", "Antrieb der Plattenbewegung" ask about things the vault names).
    """
    if lang == "de":
        names = [name for name in names if pack.word_of(name[1]) in pack.unknown]
    if not names or not pack.question_terms:
        return
    weight = {t: topic_weight(pack.concepts.get(t), pack.term_weights.get(t, 1.0)) for t in pack.question_terms}
    for key, unheard in pack.concepts.items():  # as ``unknown_words`` weighed them
        if key in weight and (unheard.whole or unheard.word) in pack.unknown:
            weight[key] = unheard_weight(unheard, weight[key], lang)
    total = sum(weight.values())
    already = set(pack.unknown)
    unknown_weight = pack.unknown_share * total
    for name in names:
        keys = [key for key in name if key in weight and pack.word_of(key) not in already
                and not ((concept := pack.concepts.get(key)) is not None and concept.context)]
        if not keys:
            continue
        unknown_weight += sum(weight[key] for key in keys)
        already.update(pack.word_of(key) for key in keys)
        pack.unknown.append(" ".join(pack.word_of(key) for key in name))
    pack.unknown_share = min(1.0, unknown_weight / total)


def key_terms(engine: Any, text: str, lang: str | None) -> list[str]:
    """The keys of the concepts of ``text`` (see :func:`question_concepts`)."""
    return [concept.key for concept in question_concepts(engine, text, lang)]


def _vocabulary(engine: Any) -> dict[str, int] | None:
    lexical = getattr(getattr(engine, "store", None), "lexical", None)
    return lexical.vocab if lexical is not None else None


# Two capitalised words side by side, or joined by "of" and its kin ("Committee of Ministers", "Satz des Thales")
# (overlapping: "The *Night* Watch" is "The Night" and "Night Watch")
_NAME_PAIR = re.compile(r"(?<![.!?]\s)(?<!^)\b([A-ZÄÖÜ][\w-]*)\s+(?=(?:(?:of(?: the)?|der|des|von|de|del|la|du)\s+)?"
                        r"([A-ZÄÖÜ][\w-]*))")


def key_phrases(engine: Any, text: str, lang: str | None) -> list[tuple[str, str]]:
    """Names of two capitalised words side by side, not at a sentence start ("Apple Watch", "Web Clipper"), or
    joined by "of" ("Committee of Ministers")."""
    analyzer = analyzer_of(engine)
    pairs = []
    for first, second in _NAME_PAIR.findall(text.strip()):
        if first.casefold() in FRAME_NOUNS:
            continue  # "den Begriff Hyperinflation" names the term, it is no name of two words
        a = analyzer.terms_of_word(first.casefold(), lang)
        b = analyzer.terms_of_word(second.casefold(), lang)
        if a and b and a[0] != b[0]:
            pairs.append((a[0], b[0]))
    return list(dict.fromkeys(pairs))


def text_terms(analyzer: Analyzer, text: str, lang: str | None) -> frozenset[str]:
    found = set(analyzer.terms(words(text), lang))
    if lang not in (None, "en"):
        found |= set(analyzer.terms(words(text), "en"))
    return frozenset(found)


def text_pairs(analyzer: Analyzer, text: str, lang: str | None) -> frozenset[tuple[str, str]]:
    """Adjacent term pairs of ``text`` (stopwords skipped), for the phrase check of the confidence rule."""
    sequence = [terms[0] for terms in (analyzer.terms_of_word(w, lang) for w in words(text)) if terms]
    return frozenset(zip(sequence, sequence[1:], strict=False))


def idf_weights(engine: Any, terms: Iterable[str], concepts: dict[str, Concept] | None = None
                ) -> dict[str, float]:
    """BM25-style inverse document frequency of each term over the index (unseen terms weigh most).

    A concept's weight is that of its most common spelling in the index (its term in the
    vault's language, not a foreign stem no passage has). A frame word of the question (a verb
    or adjective: ``Concept.frame``) that no passage has weighs at most what its rarest noun or name
    does: that the vault never writes "besteht" says little, while rarity alone would make it the
    question's heaviest word.
    """
    lexical = getattr(getattr(engine, "store", None), "lexical", None)
    total = len(lexical) if lexical is not None else 0
    weights = {}
    unseen_frame = set()
    for term in terms:
        spellings = concepts[term].terms if concepts and term in concepts else (term,)
        df = max((lexical.document_frequency(t) for t in spellings), default=0) if lexical is not None else 0
        weights[term] = math.log(1.0 + (total - df + 0.5) / (df + 0.5))
        if df == 0 and concepts and term in concepts and concepts[term].frame:
            unseen_frame.add(term)
    if unseen_frame and len(unseen_frame) < len(weights):
        heaviest = max(weight for term, weight in weights.items() if term not in unseen_frame)
        weights.update({term: min(weights[term], heaviest) for term in unseen_frame})
    return weights


_SPACE = re.compile(r"[ \t]+")


def tidy_spaces(text: str) -> str:
    """``text`` with runs of blanks inside its lines of prose made one, and nothing else touched: code (fenced)
    is quoted byte for byte and a line's indentation is kept, so a quoted Python function stays valid Python
    and a nested list stays nested."""
    kept: list[str] = []
    fence = ""
    for line in text.split("\n"):
        marker = CODE_FENCE_RE.match(line)
        if fence:
            if marker and marker.group(1)[0] == fence[0] and len(marker.group(1)) >= len(fence) and \
                    not line[marker.end():].strip():
                fence = ""
            kept.append(line)
            continue
        if marker:
            fence = marker.group(1)
            kept.append(line)
            continue
        indent = len(line) - len(line.lstrip(" \t"))
        kept.append(line[:indent] + _SPACE.sub(" ", line[indent:]).rstrip())
    return "\n".join(kept).strip("\n").rstrip()


def note_aliases_of(engine: Any, path: str) -> tuple[str, ...]:
    """The aliases of the note at ``path`` (none for an attachment or a note the index does not know)."""
    store = getattr(engine, "store", None)
    if store is None or not path.endswith(".md"):
        return ()
    row = store.reader().note_row(path)
    aliases = row.get("aliases") if row else None
    return tuple(alias for alias in aliases if isinstance(alias, str)) if isinstance(aliases, list) else ()


def _evidence(engine: Any, chunk_id: str, path: str, title: str, heading_path: Sequence[str], body: str,
              **fields: Any) -> Evidence:
    """An evidence item whose terms are read under its note's names (title and aliases) and headings: a
    passage under "Temperature" in the note also called "Factors affecting photosynthesis" is about how
    temperature affects photosynthesis."""
    analyzer = analyzer_of(engine)
    crumb = " ".join([title, *heading_path])
    lang = fields.get("lang")
    return Evidence(label="", chunk_id=chunk_id, path=path, title=title, heading_path=list(heading_path),
                    text=tidy_spaces(body), aliases=note_aliases_of(engine, path),
                    terms=text_terms(analyzer, f"{crumb}\n{body}", lang),
                    pairs=text_pairs(analyzer, f"{crumb}\n{body}", lang),
                    words=frozenset(words(f"{crumb}\n{body}")), **fields)


def evidence_from_result(engine: Any, result: Any, text: str | None = None, lang: str | None = None,
                         source: str = "vault") -> Evidence:
    """An (unlabelled) evidence item from an engine ``SearchResult`` and its chunk text."""
    record = engine.chunk(result.chunk_id) if text is None else None
    body = text if text is not None else (record.text if record is not None else result.snippet)
    chunk_lang = lang if lang is not None else (record.lang if record is not None else None)
    return _evidence(engine, result.chunk_id, result.path, result.title, result.heading_path, body,
                     line_start=result.line_start, line_end=result.line_end, locator=result.locator,
                     snippet=result.snippet, score=float(result.score), source=source, lang=chunk_lang)


def evidence_from_record(engine: Any, record: Any, title: str, source: str = "tool") -> Evidence:
    return _evidence(engine, record.id, record.path, title, record.heading_path, record.text,
                     line_start=record.line_start, line_end=record.line_end, locator=record.locator,
                     snippet=record.text[:240], score=0.0, source=source, lang=record.lang)
