"""Quizzes: multiple choice and true/false, answers folded in callouts, attempts scored and recorded.

A question is rendered as::

    ## Question 1

    Where does the Calvin cycle take place?

    - A) Thylakoid membrane
    - B) Stroma

    > [!success]- Answer
    > **B) Stroma**
    > The Calvin cycle runs in the stroma of the chloroplast.
    > Source: [[Photosynthesis/Calvin cycle|Calvin cycle]]<!--cv:cite id=... h=...-->

The answer callout is collapsed (``-``) so Obsidian hides it until opened.
Scoring reads the note back (``parse_quiz``), so a user's edit to a question
or its answer counts.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ValidationError, field_validator

from cognivault.errors import CogniVaultError
from cognivault.study.citations import CITATION_RE, cite, link, parse_citations
from cognivault.study.common import Composed, Draft, GeneratorSpec, ListPrompt, Text, short_id, study_folder
from cognivault.study.extract import (
    CLOZE_KINDS,
    COORDINATION_RE,
    GAP,
    MIN_DEFINITION_WORDS,
    Fact,
    all_facts,
    bare_name,
    clear_steps,
    cloze_place,
    plain,
    question_for,
    read_inline,
    sentences,
    spread,
    written_in_bold,
)
from cognivault.study.list_wording import (
    item_quiz_stem,
    labels_a_line,
    list_kind,
    lists_people,
    when,
)
from cognivault.study.sources import Source, SourceSet, StudyRequest
from cognivault.study.validate import mask_answer_words, question_problems, stems_of
from cognivault.vault.markdown import body_of, read_frontmatter
from cognivault.vault.notewriter import update_note
from cognivault.vault.reading import (
    WORDS,
    is_article,
    is_aspect,
    is_copula,
    links_a_predicate,
    names_a_person,
    names_an_action,
    names_someone,
    part_of,
    states_something,
)

if TYPE_CHECKING:
    from cognivault.study.progress import ProgressStore

DEFAULT_COUNT = 8
MAX_COUNT = 50
LETTERS = "ABCDEF"
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"questions": {"type": "array", "items": {
        "type": "object",
        "properties": {"type": {"type": "string", "enum": ["mcq", "tf"]}, "question": {"type": "string"},
                       "options": {"type": "array", "items": {"type": "string"}},
                       "correct_index": {"type": "integer"}, "explanation": {"type": "string"},
                       "source": {"type": "integer"}},
        "required": ["type", "question", "options", "correct_index", "explanation", "source"]}}},
    "required": ["questions"],
}


class QuestionItem(BaseModel):
    type: Literal["mcq", "tf"] = "mcq"
    question: Text
    options: list[str]
    correct_index: int
    explanation: Text
    source: int

    @field_validator("options")
    @classmethod
    def _options(cls, value: list[str]) -> list[str]:
        cleaned = [" ".join(str(o).split()) for o in value]
        if not 2 <= len(cleaned) <= len(LETTERS) or any(not o for o in cleaned):
            raise ValueError("2 to 6 non-empty options")
        if len({o.casefold() for o in cleaned}) != len(cleaned):
            raise ValueError("options repeat")
        return cleaned


@dataclass(frozen=True, slots=True)
class QuizQuestion:
    kind: str  # mcq | tf
    question: str
    options: list[str]
    correct_index: int
    explanation: str
    source: Source | None  # None when read back from a note

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("source")
        return data


def _two_sentences(text: str) -> str:
    parts = re.split(r"(?<=[.!?])\s+", text.strip())
    return " ".join(parts[:2])


def check_question(raw: Any, sources: SourceSet) -> QuizQuestion | None:
    try:
        item = QuestionItem.model_validate(raw)
    except ValidationError:
        return None
    source = sources.by_number(item.source)
    if source is None or not 0 <= item.correct_index < len(item.options):
        return None
    options = item.options
    if item.type == "tf":
        if len(options) != 2:
            return None
    return QuizQuestion(item.type, item.question, options, item.correct_index, _two_sentences(item.explanation),
                        source)


# -- extractive ------------------------------------------------------------------
OPTIONS = 4  # the right option and up to three wrong ones
MAX_OPTION_USES = 2  # a wrong option comes back once at most, and only when no fresh one of its kind is left
CLOSED_LISTS = ("item", "row", "vocab", "formula")  # wrong options from the same list or table when it has enough
# "which section of this note", "which step comes next", "which question does this note answer so": the note's own,
# again
CLOSED_SETS = ("heading", "step", "faq")
_WORDS_RE = re.compile(r"\S+")


_NAMING_RE = re.compile(r"^(?:the (?:term|word)|der (?:begriff|ausdruck)|das wort)\s+(?=\S)", re.IGNORECASE)


def _option(text: str) -> str:
    """An option as shown: emphasis gone, no closing period (code spans kept verbatim), no "the term" before a
    term ("The term sans-culottes refers to …" offers "sans-culottes")."""
    text = _NAMING_RE.sub("", plain(text))
    if when(text, german=False) is not None:
        return text  # "509 v. Chr.": the period is its era's
    return text[:-1] if text.endswith(".") and not text.endswith("..") else text


def _like(option: str, answer: str, german: bool) -> str | None:
    """A wrong option written in the right option's case, so the capital letter gives nothing away; None when
    it cannot be (a name such as "Third Estate" next to a lower-case answer)."""
    if not option or not answer or not option[0].isalpha() or not answer[0].isalpha():
        return option
    words = option.split()
    if german and answer[0].islower() and option[0].isupper() and answer.split()[0][1:].islower():
        return None  # German writes its nouns capitalised ("NADPH", "Wasser"): none fills the gap of "blaues und rotes"
    if answer[0].isupper() == option[0].isupper() or any(ch.isupper() or ch.isdigit() for ch in words[0][1:]):
        return option  # "pH scale", "iOS", "m3" (a minor third, "M3" a major one): a word whose case is its own
    ordinary = not german and words[0][1:].islower() and all(not w[:1].isupper() for w in words[1:])
    if answer[0].isupper():
        return option[0].upper() + option[1:] if not german or ordinary else None
    return option[0].lower() + option[1:] if ordinary else None


NAMES_NOTE = ("heading", "step", "faq")  # kinds whose stem names the note (or, in a one-note quiz, may leave it out)
QUOTES_OPENING = ("heading", "faq")  # kinds whose stem quotes a sentence of the note that the answer does not hold


def _stem(fact: Fact, reverse: bool, named: bool = True) -> str:
    """The question for a fact; every template quotes the note's words, so German never needs inflecting.

    ``named=False``: a one-note quiz's stem without the note's title, for when the title shares words with the
    right option ("Sync for teams" over the section "Obsidian Sync for teams")."""
    context = fact.context or fact.source.title
    description = _option(fact.definition)
    term = _option(fact.term)
    if fact.kind == "vocab":
        return f"Was heißt „{fact.term}“?" if fact.german else f"What does “{fact.term}” mean?"
    if fact.kind == "formula":
        return question_for(fact)  # "Power › P: formula?": the card's front
    if fact.kind == "row":
        return (f"{context}: Was gehört in der Spalte „{fact.column}“ zu „{term}“?" if fact.german
                else f"{context}: which “{fact.column}” goes with “{term}”?")
    if fact.kind == "item" and reverse:  # "Intervalle › Merklieder: Was gehört zu „kleine Terz“?": its list named
        context = " › ".join(filter(None, (context, fact.frame)))
        return f"{context}: Was gehört zu „{term}“?" if fact.german else f"{context}: what goes with “{term}”?"
    if fact.kind == "item":  # "Intervalle › Merklieder: Welcher Begriff gehört zu „"O Tannenbaum"“?"
        return item_quiz_stem(term, description, " › ".join(filter(None, (context, fact.frame))), fact.german,
                              fact.nested)
    if fact.kind in ("definition", "called") and _sort_of(fact)[0]:
        place = f"{context}: " if fact.situated else ""
        return (f"{place}Welche Person wird hier beschrieben: „{description}“?" if fact.german
                else f"{place}{'w' if place else 'W'}ho is described here: “{description}”?")
    if fact.kind in ("definition", "called"):
        place = f"{context}: " if fact.situated else ""
        return (f"{place}Welcher Begriff wird hier beschrieben: „{description}“?" if fact.german
                else f"{place}{'w' if place else 'W'}hich term is described here: “{description}”?")
    if fact.kind == "example":
        return (f"„{fact.source.title}“ › „{context}“: Welches Beispiel gehört hierher?" if fact.german
                else f"“{fact.source.title}” › “{context}”: which example belongs here?")
    title = fact.source.title
    if fact.kind == "step":  # the note's title, not the section's: a heading often names the answer's words
        if fact.german:
            return f"{f'„{title}“: W' if named else 'W'}elcher Schritt folgt direkt auf „{description}“?"
        return f"{f'“{title}”: w' if named else 'W'}hich step comes right after “{description}”?"
    if fact.kind == "heading":
        if fact.german:
            return f"Welcher Abschnitt {f'von „{title}“' if named else 'der Notiz'} beginnt so: „{description}“?"
        return f"Which section of {f'“{title}”' if named else 'the note'} begins like this: “{description}”?"
    if fact.kind == "faq" and fact.form == "statement":  # a problem or message the note answers, among others
        if fact.german:
            return f"Was {f'erklärt „{title}“' if named else 'wird'} so: „{description}“?"
        return f"What {f'does “{title}” explain' if named else 'is explained'} like this: “{description}”?"
    if fact.kind == "faq":  # the note's own question, asked back from its answer
        if fact.german:
            return f"Welche Frage {f'beantwortet „{title}“ so' if named else 'wird so beantwortet'}: „{description}“?"
        return f"Which question {f'does “{title}” answer' if named else 'is answered'} like this: “{description}”?"
    blank = fact.cloze.replace(f"=={fact.term}==", "…", 1)
    return (f"Welcher Begriff ergänzt den Satz: „{_option(blank)}“?" if fact.german
            else f"Which term completes the sentence: “{_option(blank)}”?")


def _answer_side(fact: Fact) -> tuple[str, str, str]:
    """(the right option, its form, which side of other facts gives wrong options: term | definition)."""
    if fact.kind in ("vocab", "formula"):
        return fact.definition, fact.kind, "definition"  # a formula or word verbatim: never re-spaced
    if fact.kind == "row" or (fact.kind == "item" and len(plain(fact.definition).split()) < 3):
        return _option(fact.definition), fact.answer_form, "definition"
    return _option(fact.term), fact.form, "term"


def _candidates(fact: Fact, pool: list[Fact], side: str, form: str, answer: str) -> list[str]:
    """Wrong options of the same kind: the same form of thing, the same side of a fact, another section."""
    kinds = {"row": ("row",), "item": ("item", "row") if side == "definition" else ("item", "definition", "called"),
             "definition": ("definition", "called", "item"), "called": ("definition", "called", "item"),
             "bold": ("bold",), "code": ("code", "example"), "example": ("example", "code"),
             "heading": ("heading",), "step": ("step",), "faq": ("faq", "heading"), "vocab": ("vocab",),
             "formula": ("formula",)}[fact.kind]
    found: list[str] = []
    # a gap opening its list item ("==Zeilen vertauschen==, sodass …") is the item's own point: the list's other
    # items' gaps are its options ("Click ==New note== at the top …" names a thing, any of the note's may do)
    listed_gap = fact.kind in CLOZE_KINDS and fact.listed and fact.cloze.startswith("==", len(_placed_at(fact)))
    # "Viele Anbieter, aber ==heterogene== Güter": a German gap opening with an adjective takes options declined as its
    # answer ("gegenseitiger Abhängigkeit" fits no such gap; a name or a label's capital says nothing of its form)
    declined = fact.german and fact.kind == "bold" and answer[:1].islower() and "`" not in answer
    opens_sentence = declined and _opens_sentence(fact)
    for other in pool:
        same_note = other.source.path == fact.source.path
        same_section = same_note and other.context == fact.context
        if listed_gap and not (same_section and other.listed and other.frame == fact.frame
                               and other.sentence != fact.sentence
                               and other.cloze.startswith("==", len(_placed_at(other)))):
            continue  # "Gauß-Algorithmus: ==Zeilen vertauschen==, …": the list's other such gaps, never "Kern"
        if other.kind == "item" and side == "term" and re.search(
                rf"(?<![^\W\d_]){re.escape(plain(other.term))}s?(?![^\W\d_])", plain(other.definition), re.IGNORECASE):
            continue  # "cells" for "neutrophils, macrophages, NK cells": the label names what its items are, no term
        if other.kind not in kinds or other.names_its_note or _names_an_aspect(other) \
                or _phrase_among_terms(fact, other) or (not listed_gap and same_section and fact.kind not in (
                    "row", "item", "heading", "step", "faq", "vocab", "formula")
                    and not (fact.kind in _DEFINED and other.kind in _DEFINED)):
            continue  # a table's rows, a list's items: each other's; a sentence's other terms may fit its gap (the
            #           terms a section defines each in a sentence of its own are each other's: a transcript's)
        if same_note and fact.kind in _DESCRIBED and other.kind in _DESCRIBED and _related(fact, other):
            continue  # "Konjugation" beside "horizontaler Gentransfer", the section it is one of: both are right
        if fact.kind in ("definition", "called") and other.kind == "item" and _a_stage(other):
            continue  # "Lag-Phase" among the terms for "a small ring-shaped DNA molecule": a stage, not a thing
        if side == "term" and fact.kind in (*_DEFINED, "item") and _sort_of(other) != _sort_of(fact) \
                and not (same_section and fact.kind == other.kind == "item" and other.frame == fact.frame):
            continue  # "Konjugation" for "a small ring-shaped DNA molecule", "August Bebel" for "the parliament";
            #           a list's items are of one sort by their list ("Aktivtausch", "Aktiv-Passiv-Mehrung")
        if fact.kind == "heading" and not same_note:  # "which section of this note": another note's is no option
            continue
        if fact.kind == "step" and (not same_section or other.column != fact.column
                                    or _option(other.term) == _option(fact.definition)):
            continue  # "which step comes next": the other steps of the same list, not the one the stem quotes
        text, other_form = (other.definition, other.answer_form) if side == "definition" and other.kind in (
            "row", "item") else (other.definition, other.kind) if other.kind in ("vocab", "formula") \
            else (other.term, other.form)
        if side == "definition" and other.kind == "item" and len(plain(other.definition).split()) >= 3:
            continue
        if fact.kind == "item" and (side == "definition" or fact.frame) \
                and (other.kind != "item" or other.frame != fact.frame):
            continue  # "what goes with „kleine Terz“" under "Merklieder": the songs, not the table's sounds; the
            #           song's interval among the other songs' intervals, not "Umkehrung"
        if other_form != form or (fact.kind == "row" and other.column.casefold() != fact.column.casefold()):
            continue
        option = text if other.kind in ("vocab", "formula") else _option(text)
        if option and declined and "`" not in option and not _declined_alike(option, answer, opens_sentence):
            continue
        if option and fact.kind in (*_DESCRIBED, "called") and _formed_otherwise(option, answer):
            continue  # "density-dependent factors" for "r and K": two symbols stand out among terms
        if option and (_within(option, answer) or part_of(option, answer) or _inflected_alike(option, answer)):
            continue  # "Brussels" beside "Brussels (in April, June and October: Luxembourg)", "`.then()`" beside
            #           "`.then/.catch/.finally`", "Willenserklärungen" beside "Willenserklärung": both are right, or
            #           they differ only in form
        if option and option.casefold() != answer.casefold() and len(option) <= 120:
            found.append(option)
    return list(dict.fromkeys(found))


_ADJECTIVE_ENDINGS = ("em", "en", "er", "es", "e")


def _ending(word: str) -> str:
    return next((ending for ending in _ADJECTIVE_ENDINGS if word.endswith(ending)), "")


def _declined_alike(option: str, answer: str, opens_sentence: bool) -> bool:
    """Whether a German option fills the right one's gap in its form: as many words, each a noun (capitalised) where
    the right one's is, and each adjective with its ending ("homogene" for "heterogene" before "Güter", never
    "gegenseitiger Abhängigkeit"; "vollkommenen Marktes" is no "gegenseitiger Abhängigkeit" after "mit").
    ``opens_sentence``: the gap opens its sentence, so its first word's capital says nothing."""
    words, keys = option.split(), answer.split()
    if len(words) != len(keys):
        return False
    for at, (word, key) in enumerate(zip(words, keys, strict=True)):
        if not (word.isalpha() and key.isalpha()) or (at == 0 and opens_sentence):
            continue
        if word[0].isupper() != key[0].isupper() or (key.islower() and _ending(word) != _ending(key)):
            return False
    return True


def _opens_sentence(fact: Fact) -> bool:
    before = plain(fact.cloze.split(f"=={fact.term}==", 1)[0]).rstrip()
    return not before or before.endswith((".", "!", "?", ":", "→"))


# words before a gap that make a German noun or adjective in it show its case ("eines ==Zeitraums==", "in einem
# ==abgeschlossenen System=="): genitive and dative of masculine and neuter, with their contractions
_CASE_MARKERS = {"de": frozenset({"des", "eines", "dem", "einem", "im", "am", "vom", "zum", "beim"})}
_GENITIVE_MARKERS = {"de": frozenset({"des", "eines"})}


def _case_ending(fact: Fact, answer: str) -> tuple[str, bool]:
    """(the ending every option of a gap must share, whether it is an adjective's) where the words before the gap
    inflect what fills it: "eines … (Geschäftsjahr)" takes "Zeitraums", never "Stichtag"; ("", False) otherwise."""
    before = fact.cloze.split(f"=={fact.term}==", 1)[0].split()
    marker = before[-1].casefold() if before else ""
    words = answer.split()
    if not words or marker not in _CASE_MARKERS.get(fact.lang, frozenset()):
        return "", False
    if words[0].isalpha() and words[0].islower() and len(words) > 1:
        return words[0][-2:], True  # "abgeschlossenen System": the adjective's ending
    if marker in _GENITIVE_MARKERS.get(fact.lang, frozenset()) and words[-1].endswith("s"):
        return "s", False
    return "", False


_COPULA = "\ue007"  # any copula before a gap: the same place for what fills it


def _slot(fact: Fact) -> str:
    """The place of a cloze's gap by the words right before it: an article ("a", "the", "den"), a copula or linking
    verb (``_COPULA``: "A matrix is ==diagonalisable== if …", "a `match` must be ==exhaustive==" take what a sentence
    says its subject is, never "eigenvector" that stood after "an"), a count (``_COUNTED``: "zwei übereinstimmende
    ==Willenserklärungen==" takes a plural), or an article and the noun naming what the gap is ("The crate
    ==anyhow==", "der Wirkstoff ==…==": only another crate fits); "" when none of these stands there."""
    opening, _, rest = fact.cloze.partition(f"=={fact.term}==")
    before, after = opening.split(), rest.split()
    word = before[-1] if before else ""
    if is_article(word, fact.lang):
        return word.casefold()
    if links_a_predicate(word, fact.lang) or (fact.german and after and links_a_predicate(after[0].strip(".,;"),
                                                                                          fact.lang)):
        return _COPULA  # German puts it after the predicate too: "wenn es ==abgelehnt== wird"
    if any(_counts(number, fact.lang) for number in before[-2:]) and all(w.islower() for w in before[-1:]):
        return _COUNTED
    if len(before) >= 2 and is_article(before[-2], fact.lang) and word.isalpha() \
            and (word.islower() or (fact.german and word[1:].islower())):
        return f"{before[-2].casefold()} {word.casefold()}"
    return ""


_COUNTED = "\ue008"  # a count before a gap ("zwei übereinstimmende ==…==", "three ==…=="): a plural's place


def _counts(word: str, lang: str) -> bool:
    """A count from two on, spelled out or in digits ("zwei", "three", "3")."""
    folded = word.casefold()
    return (folded.isdigit() and int(folded) >= 2) or (lang in WORDS and folded in WORDS[lang].numbers)




def _among_siblings(fact: Fact) -> bool:
    """A bold term coordinated with other bold terms ("**height**, **backness** and **rounding**"): its fitting
    wrong options are the others, which the stem shows; the note's other terms are of another sort."""
    term = re.escape(fact.term)
    return re.search(rf"\*\*{term}\*\*{COORDINATION_RE}\*\*|\*\*{COORDINATION_RE}\*\*{term}\*\*",
                     fact.sentence) is not None


def _written_as_name(fact: Fact) -> bool | None:
    """Whether an English gap's term is written as a name, capitalised inside its sentence ("Rome and
    ==Carthage=="), or as a common noun ("the ==corvus==", "==Competitive exclusion== means …"); None where the
    case tells nothing (German, an abbreviation, one word opening its sentence)."""
    term = plain(fact.term)
    words = term.split()
    if fact.lang != "en" or not term[:1].isalpha() or words[0].isupper():
        return None
    if fact.cloze.find(f"=={fact.term}==") - len(_placed_at(fact)) <= 0:  # its sentence's first word: capitalised
        return None if len(words) == 1 else all(word[:1].isupper() for word in words if word[:1].isalpha())
    return term[0].isupper()


def _named_around(fact: Fact) -> bool:
    """A gap whose term the note's title or the place its stem opens with shows ("ownership" in "Rust ownership",
    "Lotka" after "Lotka–Volterra model: "): the quiz's title or the stem gives it away."""
    term = plain(fact.term).strip("`")
    shown = (fact.source.title, cloze_place(fact)) if _placed_at(fact) else (fact.source.title,)
    return len(term) >= 2 and any(_shown_in(term, plain(text)) for text in shown)


_CALL_RE = re.compile(r"^[\w.$]+\(.*\)$")  # "`map(fn)`", "`Promise.all(iterable)`"
_NUMBER_RE = re.compile(r"^[-+]?\d[\d.,_]*$")
_CODE_SPAN_RE = re.compile(r"`[^`]+`")
_PHRASE_RE = re.compile(r"[^\W\d_]{2,}:? [^\W\d_]{2,}")  # words in a row ("in promise", "Error: Cannot"), not "T, E"
# the constants code languages share: a value, not a name one could call or write ("`undefined`" among methods)
_CODE_CONSTANTS = frozenset({"null", "undefined", "true", "false", "none", "nil", "nan", "nullptr"})


def _code_sort(code: str) -> str:
    """What a code span is by its form: a symbol ("`/`", "`---`"), a value ("`-1`", "`undefined`"), a lifetime
    ("`'static`"), an option ("`--force`"), a path ("`std::fmt`", "`.obsidian/plugins`"), a call with its arguments
    ("`map(fn)`"), a message in words ("`Uncaught (in promise)`", "`TypeError: …`") or a name (a keyword, a type,
    "`Result<T, E>`"). A gap for a lifetime takes no keyword, a key's symbol no name, a method's signature no error
    message."""
    text = code.strip("`").strip()
    checks = (("symbol", not any(c.isalnum() for c in text)),
              ("value", _NUMBER_RE.match(text) is not None or text.casefold() in _CODE_CONSTANTS
               or text[:1] in "\"'" and text[-1:] == text[:1] and len(text) > 1),
              ("lifetime", text.startswith("'")),
              ("option", text.startswith("-")), ("path", "::" in text or re.search(r"\w/\w", text) is not None
                                                    and not text.startswith(".")),
              ("call", _CALL_RE.match(text) is not None), ("message", _PHRASE_RE.search(text) is not None))
    return next((name for name, found in checks if found), "name")


def _adverb(text: str, lang: str) -> bool:
    """An English adverb ("exponentially", "independently"): one word saying how, never a thing's name."""
    words = plain(text).split()
    return lang == "en" and len(words) == 1 and words[0].casefold().endswith("ly") and len(words[0]) > 4


def _plural(text: str) -> bool:
    """An English term in the plural by its last word ("lifetimes", "borrow checkers"), which a verb after the gap
    agrees with."""
    words = plain(text).split()
    last = words[-1].casefold() if words else ""
    return last.endswith("s") and not last.endswith(("ss", "us", "is", "ics")) and last[:-1].isalpha()


def _fits_case(option: str, ending: str, adjective: bool) -> bool:
    words = option.split()
    if not ending:
        return True
    if adjective:
        return len(words) > 1 and words[0].isalpha() and words[0].islower() and words[0].endswith(ending)
    return bool(words) and words[-1].endswith(ending)


def _placed_at(fact: Fact) -> str:
    """What a cloze's text opens with before the note's words: its place ("Gauß-Algorithmus: "), "" when none."""
    place = cloze_place(fact)
    return f"{place}: " if place and fact.cloze.startswith(f"{place}: ") else ""


_DEFINED = ("definition", "called")
_DESCRIBED = ("item", *_DEFINED, "bold", "code")  # kinds whose fact is a term and what the note says of it


def _related(fact: Fact, other: Fact) -> bool:
    """Whether one of two facts of a note names the other's term in its heading or its description ("Konjugation"
    under "Horizontaler Gentransfer"; "Konjugation: Übertragung eines Plasmids …" and "Ein Plasmid"): offered
    instead of the other, it may be right too."""
    def names(text: str, term: str) -> bool:
        name = bare_name(plain(term)).strip()
        return len(name) >= 3 and _shown_in(name, plain(text))

    return (names(fact.context, other.term) or names(other.context, fact.term)
            or (fact.kind not in CLOZE_KINDS and names(fact.definition, other.term))
            or (other.kind not in CLOZE_KINDS and names(other.definition, fact.term)))


def _sort_of(fact: Fact) -> tuple[bool, bool]:
    """(a person, an action) for a fact's term: a person among events or concepts, a process among molecules,
    stands out by its sort alone."""
    headings = [heading for heading in (fact.frame, fact.context.rsplit(" › ", 1)[-1]) if heading] \
        if fact.kind == "item" else []  # a list's heading names its items' sort, not the prose beside them
    person = any(lists_people(heading, fact.german) for heading in headings) \
        or names_a_person(plain(fact.term), plain(fact.definition), fact.lang, stated=is_copula(fact.verb))
    return person, not person and names_an_action(plain(fact.term), fact.lang, plain(fact.definition))


def _term_sort(term: str, lang: str) -> str:
    """What sort of thing a term is, by how it is written: a date ("1789", "14. Juli 1789"), a number, a name
    ("Milton Friedman", "Ludwig XVI."), or another term. A wrong option of another sort than the right one gives the
    answer away ("… begann im Jahr …": "1789" among "Jakobiner", "Robespierre")."""
    text = plain(term).strip()
    if when(text, lang == "de") is not None:
        return "date"
    if text[:1].isdigit() or (lang in WORDS and " ".join(text.split()[:1]).casefold() in WORDS[lang].numbers):
        return "number"  # "drei Jahre" among "unverzüglich", "abgelehnt"
    if names_someone(text, lang):
        return "name"
    return "term"


def _a_stage(fact: Fact) -> bool:
    """A list item of a list its label or heading names as stages of one process ("Phasen der Wachstumskurve:",
    "Stages of mitosis"): one stage among the others, never a term among terms."""
    kinds = [list_kind(heading, fact.german) for heading in (fact.frame, fact.context.rsplit(" › ", 1)[-1]) if heading]
    return any(kind is not None and kind.sequence for kind in kinds)


_INFLECTIONS = ("s", "e", "n", "es", "en", "er", "ern", "nen")  # plural and case endings, English and German
_PLURAL_Y = ("y", "ies")  # "colony" and "colonies"
MIN_INFLECTED_STEM = 4
_JOINS_RE = re.compile(r"[-‐–—/]")


def _inflected_alike(option: str, answer: str) -> bool:
    """Whether two options are one answer in two forms: word by word the same up to an inflection ending
    ("Willenserklärung" and "Willenserklärungen", "enzyme" and "enzymes", "colony" and "colonies"), an article
    ("the schwa", "schwa") or the way a compound is joined ("Cash-Cow", "Cash Cow", "cashcow")."""
    def forms(text: str) -> list[str]:
        return [word for word in _JOINS_RE.sub(" ", bare_name(_said(text))).split() if any(c.isalnum() for c in word)]

    first, second = forms(option), forms(answer)
    if first and "".join(first) == "".join(second):
        return True
    if len(first) != len(second) or not first:
        return False
    for one, other in zip(first, second, strict=True):
        short, long = sorted((one, other), key=len)
        ending = long[len(short):]
        if one != other and not (len(short) >= MIN_INFLECTED_STEM and long.startswith(short)
                                 and ending in _INFLECTIONS) \
                and not (len(short) >= MIN_INFLECTED_STEM and short.endswith(_PLURAL_Y[0])
                         and long == short[:-1] + _PLURAL_Y[1]):
            return False
    return True


_COORDINATED_RE = re.compile(r"\s(?:and|or|und|oder|&)\s", re.IGNORECASE)
_JOINING_WORDS = frozenset({"and", "or", "und", "oder", "&"})
MAX_SYMBOL = 2  # "r", "K", "F1": a symbol, not a word


def _formed_otherwise(option: str, answer: str) -> bool:
    """Whether an option differs from the right one in its form: one joins two things ("r and K", "Angebot und
    Annahme") and the other names one, one is symbols and the other words ("r and K", "density-dependent
    factors"), or one opens with an article and the other not ("Ein Allel" among "Spaltungsregel"; English "the"
    is often part of a name: "The Reign of Terror")."""
    def form(text: str) -> tuple[bool, bool, bool]:
        prose = re.sub(r"`[^`]*`|\$[^$]*\$", "x", plain(text))
        words = [w.strip("()[],.;:") for w in prose.split() if w.casefold() not in _JOINING_WORDS]
        return (_COORDINATED_RE.search(prose) is not None,
                bool(words) and all(len(w) <= MAX_SYMBOL for w in words),
                len(words) > 1 and is_article(words[0], None) and words[0].casefold() != "the")

    return form(option) != form(answer)


def _within(option: str, answer: str) -> bool:
    """Whether one of two options holds the other as words of their own ("Brussels", "Brussels (in April …)")."""
    first, second = _said(option), _said(answer)
    if first == second:
        return False
    shorter, longer = sorted((first, second), key=len)
    return bool(shorter) and re.search(rf"(?<!\w){re.escape(shorter)}(?!\w)", longer) is not None


def _names_an_aspect(fact: Fact) -> bool:
    """A list item labelled by an aspect ("Grundregel:", "unit:") or one structuring its list ("Spannung:" in a
    plot): its label names no term to choose among others."""
    return fact.kind == "item" and (fact.structural or is_aspect(plain(fact.term)))


def _phrase_among_terms(fact: Fact, other: Fact) -> bool:
    """A list item labelled by a phrase ("priority for naming (highest first):", "Rückfluss zum Herzen:") offered
    beside a right option that is a term: it stands out by its form."""
    return other.kind == "item" and labels_a_line(plain(other.term)) and not labels_a_line(plain(fact.term))


def _other_sections(fact: Fact, outline: list[tuple[int, str]]) -> list[str] | None:
    """For "which section begins like this": the note's other headings as the note shows them, leaving out its
    title and the section's ancestors (they hold its text, and one with no text of its own begins with it); its
    subsections stay, the quoted opening comes before them. None when the outline does not show the section."""
    def shown(text: str) -> str:
        inline = read_inline(text)
        return "" if GAP in inline.text else inline.restore(inline.text)

    headings = [(level, shown(text)) for level, text in outline]
    key = plain(fact.term).casefold()
    at = next((i for i, (_, text) in enumerate(headings) if plain(text).casefold() == key), None)
    if at is None:
        return None
    ceiling, related = headings[at][0], {at}
    for index in range(at - 1, -1, -1):  # its ancestors
        if headings[index][0] < ceiling:
            ceiling = headings[index][0]
            related.add(index)
    return [text for index, (depth, text) in enumerate(headings) if index not in related and text
            and not (depth == 1 and plain(text).casefold() == fact.source.title.casefold())
            and text.endswith("?") == fact.term.endswith("?")]  # a question heading among questions


def _written_alike(option: str, answer: str, lang: str) -> bool:
    """A term written as the right one is: of its sort (a name, a date, a term), capitalised alike, with a remark
    in parentheses where it has one ("Costa v ENEL (1964)" for "Van Gend en Loos (1963)", never "EP first
    reading")."""
    return _term_sort(option, lang) == _term_sort(answer, lang) and option[:1].isupper() == answer[:1].isupper() \
        and option.rstrip().endswith(")") == answer.rstrip().endswith(")")


def _shape(text: str) -> str:
    """The punctuation skeleton of an option: "`![[Internal links]]`" → "`![[a a]]`"."""
    return re.sub(r"[^\W_]+", "a", text)


def _common_prefix(first: str, second: str, cap: int = 5) -> int:
    length = 0
    while length < min(cap, len(first), len(second)) and first[length] == second[length]:
        length += 1
    return length


def _shown_in(option: str, stem: str) -> bool:
    """Whether the stem shows the option as words of their own."""
    return re.search(rf"(?<!\w){re.escape(option.casefold())}(?!\w)", stem.casefold()) is not None


def _said(text: str) -> str:
    return " ".join(plain(text).casefold().rstrip(".").split())


def _source_text(fact: Fact) -> str:
    """The note's text a question on ``fact`` quotes: a section's opening or answer as quoted, else the sentence,
    list item or row the fact came from (a definition's description is part of its sentence)."""
    return fact.definition if fact.kind in QUOTES_OPENING else fact.sentence.removeprefix(f"{fact.context}: ")


def _unquoted(fact: Fact, quoted: set[str]) -> Fact | None:
    """``fact`` as a question may still quote it: a quiz quotes each sentence of the note once (a cloze or a
    definition on it, or the opening of its section, not both; a section opening with list items already asked
    about is not asked). An answer quoted in two sentences keeps the one not quoted yet; None when nothing is left.
    A row, a step or a code example quotes no sentence of the note's prose."""
    if fact.kind in ("row", "step", "example"):
        return fact
    parts = sentences(_source_text(fact))
    fresh = [part for part in parts if not any(said in _said(part) for said in quoted)]
    if len(fresh) == len(parts):
        return fact
    if not fresh or fact.kind not in QUOTES_OPENING or len(plain(" ".join(fresh)).split()) < MIN_DEFINITION_WORDS:
        return None
    return replace(fact, definition=" ".join(fresh))


def _without_its_list(fact: Fact) -> Fact | None:
    """A section's opening sentence without the list it introduces ("… review the following articles:"): it still
    tells the section when the list's words are too close to its heading to quote. None for a section that opens
    with its list, or with steps (their order is what the opening says)."""
    if fact.kind != "heading" or not fact.list_items or fact.in_order:
        return None
    introduction = fact.definition.removesuffix(".").removesuffix("; ".join(fact.list_items)).rstrip()
    if introduction == fact.definition or not introduction.endswith(":"):
        return None
    return replace(fact, definition=introduction[:-1] + ".")


def _question_from(fact: Fact, pool: list[Fact], used: Counter[str], asked: set[str], rng: random.Random,
                   outlines: dict[str, list[tuple[int, str]]], one_note: bool) -> QuizQuestion | None:
    """A question on ``fact`` whose wrong options are ones the quiz has not used yet (else used once before), none
    of them shown in the stem ("use …, `.webp` and `.png`" does not offer `.png`); in a one-note quiz, a stem that
    names the note is asked without the name when the name gives the answer away."""
    answer, form, side = _answer_side(fact)
    if not answer or answer.casefold() in asked or (fact.kind in CLOZE_KINDS and not fact.cloze) \
            or (fact.kind == "item" and fact.structural):
        return None  # "Welcher Begriff gehört zu „Hauke wird Deichgraf …“? Spannung": a label is nothing to choose
    if fact.kind == "bold" and answer.endswith(")"):
        return None  # "hedonic calculus (hedonistisches Kalkül)": a gap with its gloss stands out among terms
    if fact.kind in CLOZE_KINDS and (_among_siblings(fact) or _named_around(fact)):
        return None
    if fact.kind in ("definition", "called", "item") and side == "term" \
            and len(plain(fact.definition).split()) < MIN_DEFINITION_WORDS:
        return None  # "Which term matches: 'Available'?" cannot be answered
    if side == "term" and fact.kind in ("item", *_DEFINED) and any(
            other.source.path == fact.source.path and _said(other.definition) == _said(fact.definition)
            and _said(other.term) != _said(fact.term) for other in pool if other.kind == fact.kind):
        return None  # "Stichprobengröße – größer → mehr Power", "Effektstärke – größer → mehr Power": both are right
    sections = _other_sections(fact, outlines.get(fact.source.path, [])) if fact.kind == "heading" else None
    found = [_option(h) for h in sections] if sections is not None else _candidates(fact, pool, side, form, answer)
    # the note's own terms (its sections, its list's other items, its other questions) before other notes' ones;
    # a note's sections, a list's steps are a closed set: each may come back in every question on them
    own = set(found) if sections is not None else \
        set(_candidates(fact, [f for f in pool if f.source.path == fact.source.path], side, form, answer))
    if fact.kind in CLOSED_LISTS and (len(own - {answer}) >= 2 or fact.kind == "item"):
        found = [c for c in found if c in own]  # a list's, a table's own entries: no other subject's terms
        section = set(_candidates(fact, [f for f in pool if f.source.path == fact.source.path
                                         and f.context == fact.context], side, form, answer))
        # a profile's one term in bold (its other items label the subject's values: "Energie: 4 kcal/g",
        # "Funktion: …") asks for it among the terms the note's other profiles define so ("Transfette" for
        # "Essentielle Aminosäuren", each under its nutrient; not "Chartres" under "Bauten" for "Tonnengewölbe", nor
        # a button's name in bold among a manual's)
        profiles = {(f.source.path, f.context, f.frame) for f in pool if f.source.path == fact.source.path
                    and f.kind == "item" and _names_an_aspect(f)} \
            if fact.kind == "item" and side == "term" and len(section - {answer}) < 2 and written_in_bold(fact) \
            else set()
        # (not one described in a word of the right one's description: "Max – Largest value" for "The largest/most
        # recent date" fits too)
        described = stems_of(plain(fact.definition), fact.lang)
        alike = {option for option in _candidates(fact, [f for f in pool if written_in_bold(f) and (
            f.source.path, f.context, f.frame) in profiles and not stems_of(plain(f.definition), fact.lang)
                                                          & described], side, form, answer)
                 if _written_alike(option, answer, fact.lang)} \
            if (fact.source.path, fact.context, fact.frame) in profiles else set()
        if len(alike - {answer}) >= 2:
            found = [c for c in found if c in alike]
        elif len(section - {answer}) >= 2 or fact.kind == "item":
            # the artists of "Künstler", not the features of "Merkmale"; a list too short for two wrong options from
            # itself is asked on a card, not in the quiz
            found = [c for c in found if c in section]
    # a gap whose case the words before it show: only options in that case ("eines …": "Zeitraums" not among
    # "Stichtag", "Vermögen")
    ending, adjective = _case_ending(fact, answer) if fact.kind in CLOZE_KINDS else ("", False)
    # a gap after an article takes what stood after that article in its own sentence: "unless a … acts on it" is
    # no place for "same direction" (after "the") nor "equal in magnitude, opposite in direction" (after a noun); a
    # code span names something, the article before it belongs to the noun after it ("the `/` key")
    slot = _slot(fact) if fact.kind == "bold" else ""
    slots: dict[str, set[str]] = {}
    written: dict[str, set[bool | None]] = {}  # each bold term: written as a name or not, where it stands
    for other in pool:
        if other.kind == "bold" and other.cloze:
            slots.setdefault(_option(other.term), set()).add(_slot(other))
            written.setdefault(_option(other.term), set()).add(_written_as_name(other))
    # a gap naming a thing is no place for a predicate ("… tell the compiler how long references are valid" takes
    # no "exhaustive"), nor a name for a common noun's ("Rome and …": "Carthage", never "corvus"), nor an English
    # plural for a singular's
    name = _written_as_name(fact) if fact.kind == "bold" else None
    plural = _plural(answer) if fact.kind == "bold" and fact.lang == "en" and slot in ("", "the") else None

    def fits_slot(option: str) -> bool:
        if fact.kind == "code":
            return _code_sort(option) == _code_sort(answer)
        if _CODE_SPAN_RE.fullmatch(answer):
            # an item's code is offered among code of its sort ("`map(fn)`" among calls), never beside words
            return _CODE_SPAN_RE.fullmatch(option) is not None and _code_sort(option) == _code_sort(answer)
        if fact.kind != "bold":
            return True
        if slot and slot not in slots.get(option, set()):
            return False
        if not slot and (slots.get(option) == {_COPULA} or (fact.lang == "en" and bool(slots.get(option))
                                                             and slots.get(option, set()) <= {"a", "an"})):
            return False  # "must be ==exhaustive==", "a ==diphthong==": no place for them in "vowel …"
        if name is not None and written.get(option, {name}) <= {not name}:
            return False
        if _adverb(option, fact.lang) != _adverb(answer, fact.lang):
            return False  # "exponentially" among terms: it says how, they name what
        return plural is None or _plural(option) == plural
    # a gap takes a term or a clause, never both: "divide by …" is no place for "assuming H₀ is true", nor "Obsidian
    # Credit … eligible for a refund" (its answer "is not") for "buy credit"
    clause = states_something(answer) if fact.kind in CLOZE_KINDS else None
    # a gap's, a described term's options are of the right one's sort: a year for a year, a name for a name
    sort = _term_sort(answer, fact.lang) if fact.kind in (*CLOZE_KINDS, *_DEFINED) and side == "term" else None
    # a closed set's own entries, however often asked: another note's questions only when it has too few of its own
    closed = fact.kind in CLOSED_SETS and len(own - {answer}) >= 2
    candidates = [c for c in dict.fromkeys(found) if c and c.casefold() != answer.casefold()
                  and (c in own or not closed)
                  and (used[c.casefold()] < MAX_OPTION_USES or (c in own and fact.kind in CLOSED_SETS))
                  and _fits_case(c, ending, adjective) and fits_slot(c)
                  and clause in (None, states_something(c)) and sort in (None, _term_sort(c, fact.lang))]
    rng.shuffle(candidates)
    size = len(_WORDS_RE.findall(answer))
    shape = _shape(answer)
    candidates.sort(key=lambda c: (used[c.casefold()], c not in own, -_common_prefix(_shape(c), shape),
                                   abs(len(_WORDS_RE.findall(c)) - size) > max(2, size // 2)))

    def wrong_for(stem: str) -> list[str]:
        wrong: list[str] = []
        for candidate in candidates:
            option = _like(candidate, answer, fact.german)
            keys = {o.casefold() for o in [answer, *wrong]}
            if option is None or option.casefold() in keys or _shown_in(option, stem) \
                    or any(part_of(option, other) for other in wrong) \
                    or question_problems(stem, [answer, *wrong, option], 0, fact.source.text, fact.lang):
                continue
            wrong.append(option)
            if len(wrong) == OPTIONS - 1:
                break
        return wrong

    def masked(stem_of: Callable[[Fact], str], quoted: Fact) -> tuple[str, list[str]]:
        """The stem quoting the opening with the words that give the answer away as "…": wrong options are
        chosen with every answer word hidden, then only the words none of them holds stay hidden."""
        opening = quoted.definition
        hidden = mask_answer_words(opening, answer, fact.lang, most=None)
        if not hidden:
            return "", []
        wrong = wrong_for(stem_of(replace(quoted, definition=hidden)))
        giveaways = mask_answer_words(opening, answer, fact.lang, most=None, shared=wrong)
        shown = mask_answer_words(opening, answer, fact.lang, shared=wrong) if giveaways else opening
        stem = stem_of(replace(quoted, definition=shown)) if shown else ""
        return stem, [option for option in wrong if not _shown_in(option, stem)]

    namings = [True] + ([False] if one_note and fact.kind in NAMES_NOTE else [])
    for named in namings:
        def stem_of(each: Fact, named: bool = named) -> str:
            return _stem(each, side == "definition", named)

        tries = []
        for quoted in filter(None, (fact, _without_its_list(fact))):
            whole = stem_of(quoted)
            tries += [(whole, wrong_for(whole))] + ([masked(stem_of, quoted)] if fact.kind in QUOTES_OPENING else [])
        for stem, wrong in tries:
            if stem and len(wrong) >= 2 \
                    and not question_problems(stem, [answer, *wrong], 0, fact.source.text, fact.lang):
                used.update(o.casefold() for o in wrong)
                asked.add(answer.casefold())
                return QuizQuestion("mcq", stem, [answer, *wrong], 0, fact.sentence, fact.source)
    return None


def balance_answers(questions: list[QuizQuestion], seed: str) -> list[QuizQuestion]:
    """Place each right option on the letter used least so far (ties broken by a seeded draw), wrong ones shuffled.

    Deterministic for the same note, and no letter carries more than its share."""
    rng = random.Random(seed)
    used = [0] * len(LETTERS)
    placed: list[QuizQuestion] = []
    for question in questions:
        right = question.options[question.correct_index]
        wrong = [o for i, o in enumerate(question.options) if i != question.correct_index]
        rng.shuffle(wrong)
        slots = range(len(question.options))
        fewest = min(used[i] for i in slots)
        position = rng.choice([i for i in slots if used[i] == fewest])
        used[position] += 1
        options = wrong[:position] + [right] + wrong[position:]
        placed.append(QuizQuestion(question.kind, question.question, options, position, question.explanation,
                                   question.source))
    return placed


def extractive_questions(sources: SourceSet, count: int) -> list[QuizQuestion]:
    """Multiple-choice questions from the note's rows, list items, definitions, bold terms, code, sections and the
    order of its numbered steps.

    Wrong options are of the right option's kind (another shortcut, setting, date, heading or term), drawn from
    the note and the notes around it, fresh ones first; answer letters are balanced."""
    facts = all_facts(sources.material, sources.language)
    pool = facts + all_facts(sources.neighbours, sources.language)
    seed = short_id("quiz-order", *(s.content_hash for s in sources.material))
    rng = random.Random(seed)
    used: Counter[str] = Counter()  # wrong options so far
    asked: set[str] = set()  # right answers so far
    quoted: set[str] = set()  # the note's sentences the stems so far quote
    questions: list[QuizQuestion] = []
    gaps: set[int] = set()
    steps = {id(f) for f in clear_steps(facts)}
    # a term the note is named after is the quiz's own title ("The French Revolution" in "Quiz - French Revolution")
    # "which section begins like this" asks where a text stands: a section is asked about by the facts inside it
    askable = [f for f in facts if not f.names_its_note and (f.kind != "step" or id(f) in steps)
               and f.kind != "heading" and not _names_an_aspect(f) and not f.compared]
    one_note = len({s.path for s in sources.material}) == 1
    for kinds in (("row", "item", "definition", "called", "example", "vocab", "formula"), ("bold", "code"),
                  ("heading", "faq"),
                  ("step",)):
        for fact in spread([f for f in askable if f.kind in kinds], len(facts)):
            if len(questions) >= count:
                break
            unquoted = _unquoted(fact, quoted)
            if unquoted is None:
                continue  # its sentences are asked already
            question = _question_from(unquoted, pool, used, asked, rng, sources.outlines, one_note)
            if question is not None:
                if fact.kind in CLOZE_KINDS:
                    gaps.add(len(questions))
                questions.append(question)
                quoted.update(_said(part) for part in sentences(_source_text(unquoted))
                              if len(part.split()) > MIN_DEFINITION_WORDS)  # a short one may be part of many
    return balance_answers(_not_given_away(questions, gaps), seed)


def _not_given_away(questions: list[QuizQuestion], gaps: set[int]) -> list[QuizQuestion]:
    """The questions less the gaps (``gaps``: their positions) whose whole sentence another question shows in its
    stem or an option ("The main goroutine returns from `wg.Wait()`" offered as a step): taken in turn, the quiz
    would answer them itself."""
    def shows(other: QuizQuestion, question: QuizQuestion) -> bool:
        sentence = _said(question.explanation)
        return any(sentence and sentence in _said(text) for text in (other.question, *other.options))

    return [question for at, question in enumerate(questions)
            if at not in gaps or not any(shows(other, question) for other in questions if other is not question)]


# -- rendering and reading back ----------------------------------------------------
def render_quiz_body(title: str, questions: list[QuizQuestion], sources: SourceSet, path_hint: str) -> str:
    german = sources.language == "de"
    origin = ", ".join(link(p) for p in dict.fromkeys(q.source.path for q in questions if q.source))
    intro = (f"{len(questions)} Fragen aus {origin}. Die Antworten sind eingeklappt. Ein Versuch wird mit "
             f"`cognivault quiz \"{path_hint}\"` oder im Dashboard bewertet." if german else
             f"{len(questions)} questions from {origin}. Answers are folded: open a callout to check one. "
             f"Score an attempt with `cognivault quiz \"{path_hint}\"` or in the dashboard.")
    word = "Frage" if german else "Question"
    answer_word = "Antwort" if german else "Answer"
    source_word = "Quelle" if german else "Source"
    parts = [f"# {title}", intro]
    for number, question in enumerate(questions, start=1):
        options = "\n".join(f"- {LETTERS[i]}) {option}" for i, option in enumerate(question.options))
        letter = LETTERS[question.correct_index]
        callout = [f"> [!success]- {answer_word}", f"> **{letter}) {question.options[question.correct_index]}**",
                   f"> {question.explanation}"]
        if question.source is not None:
            callout.append(f"> {source_word}: {cite(question.source)}")
        parts.append(f"## {word} {number}\n\n{question.question}\n\n{options}\n\n" + "\n".join(callout))
    return "\n\n".join(parts) + "\n"


_QUESTION_HEAD = re.compile(r"^##\s+\S.*?(\d+)\s*$")
_OPTION = re.compile(r"^\s*[-*]\s+([A-F])\)\s+(.*)$")
_ANSWER = re.compile(r"^>\s*\*\*([A-F])\)")


@dataclass(slots=True)
class ParsedQuiz:
    quiz_id: str | None
    title: str
    questions: list[QuizQuestion]
    sources: list[list[dict[str, Any]]]  # per question: its citations (target, heading, label, chunk_id)


def parse_quiz(text: str) -> ParsedQuiz:
    """The questions of a quiz note as the user sees them now (edits included)."""
    frontmatter = read_frontmatter(text)
    body = body_of(text)
    title = str(frontmatter.get("title") or "")
    blocks: list[list[str]] = []
    for line in body.split("\n"):
        if _QUESTION_HEAD.match(line):
            blocks.append([])
            continue
        if line.startswith("# ") and not title:
            title = line[2:].strip()
        if blocks:
            blocks[-1].append(line)
    questions: list[QuizQuestion] = []
    cited: list[list[dict[str, Any]]] = []
    for block in blocks:
        options: list[str] = []
        stem: list[str] = []
        answer: str | None = None
        explanation: list[str] = []
        in_callout = False
        for line in block:
            option = _OPTION.match(line)
            if line.startswith(">"):
                in_callout = True
                found = _ANSWER.match(line)
                if found:
                    answer = found.group(1)
                elif not re.match(r"^>\s*\[!", line) and not CITATION_RE.search(line):
                    explanation.append(line.lstrip("> ").strip())
            elif option and not in_callout:
                options.append(option.group(2).strip())
            elif line.strip() and not options and not in_callout:
                stem.append(line.strip())
        if not options or answer is None or LETTERS.index(answer) >= len(options):
            continue
        kind = "tf" if len(options) == 2 and {o.casefold() for o in options} in (
            {"true", "false"}, {"wahr", "falsch"}) else "mcq"
        questions.append(QuizQuestion(kind, " ".join(stem), options, LETTERS.index(answer),
                                      " ".join(e for e in explanation if e), None))
        cited.append([{"target": c.target, "heading": c.heading, "label": c.label, "chunk_id": c.chunk_id}
                      for c in parse_citations("\n".join(block))])
    return ParsedQuiz(str(frontmatter.get("quiz_id")) if frontmatter.get("quiz_id") else None, title, questions,
                      cited)


def answer_index(value: Any, question: QuizQuestion) -> int | None:
    """The option ``value`` names (a letter, a number, the option's text, true/false words), or None."""
    if value is None:
        return None
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 0 <= value < len(question.options) else None
    text = str(value).strip()
    if not text:
        return None
    upper = text.upper().rstrip(")")
    if len(upper) == 1 and upper in LETTERS[:len(question.options)]:
        return LETTERS.index(upper)
    if text.isdigit() and 1 <= int(text) <= len(question.options):
        return int(text) - 1
    lowered = text.casefold()
    for index, option in enumerate(question.options):
        if option.casefold() == lowered:
            return index
    if question.kind == "tf":
        if lowered in ("t", "true", "w", "wahr", "yes", "ja"):
            return 0
        if lowered in ("f", "false", "falsch", "no", "nein"):
            return 1
    return None


def questions_to_take(quiz: ParsedQuiz) -> list[dict[str, Any]]:
    """The questions as a quiz taker sees them: no answer, no explanation."""
    return [{"number": number, "kind": q.kind, "question": q.question, "options": q.options}
            for number, q in enumerate(quiz.questions, start=1)]


def score_attempt(quiz: ParsedQuiz, answers: list[Any]) -> dict[str, Any]:
    """Compare answers (letters, 1-based numbers, option text, true/false) with the note's answers."""
    details = []
    correct = 0
    for number, question in enumerate(quiz.questions, start=1):
        given = answers[number - 1] if number - 1 < len(answers) else None
        index = answer_index(given, question)
        ok = index == question.correct_index
        correct += ok
        details.append({"number": number, "given": LETTERS[index] if index is not None else None,
                        "correct": LETTERS[question.correct_index], "ok": ok,
                        "explanation": question.explanation, "sources": quiz.sources[number - 1]})
    total = len(quiz.questions)
    return {"quiz_id": quiz.quiz_id, "title": quiz.title, "correct": correct, "total": total,
            "score": round(correct / total, 4) if total else 0.0, "details": details}


def record_attempt(progress: ProgressStore, quiz_path: str, result: dict[str, Any],
                   duration_s: float | None = None) -> None:
    progress.record("quiz_attempt", {"quiz": quiz_path, "quiz_id": result.get("quiz_id") or quiz_path,
                                     "title": result.get("title"), "correct": result["correct"],
                                     "total": result["total"], "score": result["score"]},
                    duration_s=duration_s)


class NotAQuiz(CogniVaultError, ValueError):
    """The note holds no quiz questions (any more)."""

    code = "not_a_quiz"


def quiz_to_take(text: str, quiz_path: str) -> ParsedQuiz:
    """The quiz in a note's text, for an attempt; NotAQuiz when it has no questions."""
    quiz = parse_quiz(text)
    if not quiz.questions:
        raise NotAQuiz(f"{quiz_path} holds no quiz questions")
    return quiz


def take_attempt(progress: ProgressStore, quiz_path: str, quiz: ParsedQuiz, answers: list[Any],
                 duration_s: float | None = None) -> dict[str, Any]:
    """Score an attempt and record it in the study progress (CLI, companion and language server alike)."""
    result = score_attempt(quiz, answers)
    record_attempt(progress, quiz_path, result, duration_s=duration_s)
    return {"quiz": quiz_path, **result}


# -- generation -------------------------------------------------------------------
def _compose(engine: Any, request: StudyRequest, sources: SourceSet, draft: Draft[QuizQuestion],
             count: int) -> Composed:
    questions = draft.items
    title = f"Quiz - {sources.title}"
    quiz_id = short_id("quiz", title, *(q.question for q in questions))
    folder = study_folder(engine.vault, engine.settings)
    hint = f"{folder.relative_to(engine.vault).as_posix()}/{title}.md"

    def point_at(path: str, text: str) -> None:
        if path != hint:  # another note had the name: point the instructions at the real path
            wrong, right = f'`cognivault quiz "{hint}"`', f'`cognivault quiz "{path}"`'
            update_note(engine.vault, engine.vault / path,
                        lambda current: current.replace(wrong, right) if wrong in current else None)

    return Composed(title, render_quiz_body(title, questions, sources, hint),
                    list({q.source.chunk_id: q.source for q in questions if q.source}.values()), folder,
                    frontmatter={"quiz_id": quiz_id}, extra={"quiz_id": quiz_id},
                    reads_back=lambda text: len(parse_quiz(text).questions) == len(questions), after_write=point_at)


QUIZ = GeneratorSpec.of_items(
    "quiz", DEFAULT_COUNT, MAX_COUNT, extractive_questions,
    ListPrompt("quiz", SCHEMA, ("questions", "quiz", "items"), "quiz", "questions", 200, check_question),
    _compose, "quiz questions")
generate_quiz = QUIZ.run
