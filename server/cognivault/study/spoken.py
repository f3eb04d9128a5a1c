"""Cards from a lecture said aloud: what a transcript's lecturer names, counts off or answers a student.

A transcript (paragraphs opening with ``**[05:40]**``, or a note titled "… (transcript)", "… (Mitschrift)") is
read sentence by sentence as :func:`cognivault.vault.reading.said_plainly` writes it down (no timestamp, filler,
hesitation or tag question). Besides its definitions (read like any note's), three spoken shapes give a card:

- a naming: "The most important one is at the end of G1, we call this the restriction point." gives a cloze on
  "restriction point" over that sentence (over the sentence before it when the naming opens its own: "An
  advertisement is not an offer. We call this an invitation to treat.");
- a list said after a colon whose lead counts its items ("Interphase has three phases: first G1, …, then …, and
  finally …") or names an aspect of the paragraph's subject ("Side effects: bradycardia, fatigue, …"): the lead
  asks, the items answer;
- a student's question in the recording ("[student question: can you give it in pregnancy?] No. …"): the lecturer's
  answer, without the praise of the question;
- a list counted in one sentence and said over the paragraphs after it, one each ("Durkheim distinguishes four
  types of suicide …" and then "First, egoistic suicide: …", "Second, altruistic suicide. …", …, "And fourth,
  fatalistic suicide, …"): the count asks, the items named after each ordinal answer.

Everything else said (anecdotes, organisation, "okay, any questions?") gives nothing: a card only where the
lecturer clearly names, lists or answers.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from cognivault.vault.reading import (
    WORDS,
    counted_in,
    is_aspect,
    key_point,
    naming_in,
    opens_with_existential,
    said_plainly,
    spoken_list,
    student_question,
    without_praise,
)

MAX_ANSWER_SENTENCES = 2
MAX_TOPIC_WORDS = 4
_PRONOUNS = {"it", "they", "them", "this", "that", "these", "those", "es", "sie", "er", "das", "dies", "diese"}
_NOT_TOPICS = {"good", "okay", "ok", "right", "alright", "yes", "no", "gut", "ja", "nein", "so", "also", "next",
               "hello", "hallo", "welcome"}
_TITLE_REMARK_RE = re.compile(r"\s*\([^()]*\)")
_TITLE_PARTS_RE = re.compile(r"\s+[–—-]\s+|:\s+")
_SESSION_RE = re.compile(r"^[^\W\d_]+\.?\s+\d+\s+(?=\D)")  # "VL 05 Preiselastizität": the session's number


@dataclass(frozen=True, slots=True)
class Said:
    """A card's fact read from speech: ``kind`` "bold" (a cloze on ``term`` in ``text``) or "faq" (``term`` asks,
    ``text`` answers)."""

    kind: str
    term: str
    text: str


def lecture_subject(title: str) -> str:
    """What a lecture is about, from its title: "Lecture 07 – Antihypertensives (Transcript)" → "Antihypertensives",
    "VL 05 Preiselastizität der Nachfrage" → "Preiselastizität der Nachfrage" (no remark in parentheses, no part or
    opening that numbers the session)."""
    parts = [_SESSION_RE.sub("", part.strip()) for part in _TITLE_PARTS_RE.split(_TITLE_REMARK_RE.sub("", title))]
    kept = [part for part in parts if part and not re.search(r"\d", part)]
    return " – ".join(kept) or title


def _clause_head(sentence: str) -> str:
    """The words before a sentence's first comma when they are a short noun phrase (no pronoun, no filler)."""
    head = re.split(r",\s|\.$|\s[—–]\s", sentence, maxsplit=1)[0].strip(" .")
    words = head.split()
    if not words or len(words) > MAX_TOPIC_WORDS or words[0].casefold() in _PRONOUNS | _NOT_TOPICS:
        return ""
    return head if all(word.isalpha() or "-" in word for word in words) else ""


def paragraph_topic(first: str, lang: str) -> str:
    """What a spoken paragraph is about when it opens by naming it: "So, first class, ACE inhibitors." → "ACE
    inhibitors", "Next, beta blockers, ending -olol." → "beta blockers", "Diuretics." → "Diuretics"."""
    said = said_plainly(first, lang)
    ranks = WORDS[lang].ranks if lang in WORDS else frozenset()
    head, comma, rest = said.partition(", ")
    if comma and head.split() and head.split()[0].casefold() in ranks and len(head.split()) <= 2:
        said = rest  # "first class, ACE inhibitors"
    return _clause_head(said) if said.count(" ") < 8 or "," in said else ""


def named_cloze(sentence: str, previous: str, lang: str) -> Said | None:
    """A naming's cloze: the sentence, with the one before it when the naming opens its own sentence."""
    naming = naming_in(sentence, lang)
    if naming is None:
        return None
    term = sentence[naming.start:naming.end]
    if naming.said_before:
        return Said("bold", term, sentence)
    if not previous or "?" in previous:
        return None
    return Said("bold", term, f"{previous} {sentence}")


def list_card(sentence: str, subject: str, lecture: str, lang: str) -> Said | None:
    """A list said after a colon as a card: "Cell cycle: interphase has three phases – which?" (a counting lead),
    "Antihypertensives › Thiazides: side effects you need to know?" (an aspect of the paragraph's ``subject``)."""
    found = spoken_list(sentence, lang)
    if found is None:
        return None
    lead, _, answer = found
    german = lang == "de"
    if lead.split()[0].casefold() in _PRONOUNS and not opens_with_existential(lead, lang):
        return None  # "It has two big parts: …": of what, the sentence before says ("Es gibt drei …" points nowhere)
    answer = answer[:1].upper() + answer[1:]  # as said: "first G1, where the cell grows, then S phase, …"
    if is_aspect(" ".join(lead.split()[:2])) or is_aspect(lead):
        if not subject:
            return None  # "Side effects: …" of what?
        place = subject if subject.casefold() in lecture.casefold() or not lecture else f"{lecture} › {subject}"
        aspect = lead if german else lead[:1].lower() + lead[1:]
        return Said("faq", f"{place}: {aspect}?", answer)
    if not any(char.isdigit() for char in lead) and not any(word.casefold().strip(",") in WORDS[lang].numbers
                                                            for word in lead.split()):
        return None
    said = lead if german else lead[:1].lower() + lead[1:]
    # "Now the transmission mechanism. There are three main channels: …": the channels of what the paragraph is on
    place = " › ".join(dict.fromkeys(name for name in (lecture, subject)
                                     if name and name.casefold() not in lead.casefold()))
    return Said("faq", f"{place or lecture}: {said} – {'welche' if german else 'which'}?", answer)


def stressed_card(sentence: str, topic: str, lecture: str, lang: str) -> Said | None:
    """A statement the lecturer stresses as a card asking for it: "Antihypertensives › ACE inhibitors: the key
    point?::ACE also breaks down bradykinin." (framed by the paragraph's topic where it names one)."""
    stated = key_point(sentence, lang)
    if not stated or len(stated.split()) < 3 or "?" in stated:
        return None
    place = " › ".join(dict.fromkeys(filter(None, (lecture, topic))))
    return Said("faq", f"{place}: {WORDS[lang].key_point_asked}?", stated) if place else None


def sentence_subject(sentence: str, lang: str) -> str:
    """The subject a sentence opens with and sets apart by a comma ("The dihydropyridines, amlodipine, nifedipine,
    act …", "Thiazides, hydrochlorothiazide, inhibit …"): what its neighbours' "side effects:" are of."""
    return _clause_head(said_plainly(sentence, lang))


def answered_question(paragraph: str, topic: str, lang: str, split: Callable[[str], list[str]]) -> Said | None:
    """A student's question and the lecturer's answer (its first sentences, praise left out); a question pointing
    at what was said before ("can you give it …?") is framed by the topic it was asked on, or gives no card."""
    found = student_question(paragraph, lang)
    if found is None:
        return None
    question, answer = found
    said = [without_praise(said_plainly(sentence, lang), lang) for sentence in split(answer)]
    said = [sentence for sentence in said if sentence and "?" not in sentence]
    if not said:
        return None
    words = {word.casefold().strip(",.?") for word in question.split()}
    if words & _PRONOUNS:
        if not topic:
            return None
        question = f"{topic}: {question[:1].lower() + question[1:]}" if lang != "de" else f"{topic}: {question}"
    return Said("faq", question, " ".join(said[:MAX_ANSWER_SENTENCES]))


def leans_back_said(phrase: str, lang: str) -> bool:
    """What a naming names is only a pronoun ("it is often called …", "das nennt man …"): it points at what was said
    before, a card on it alone would not say what is named."""
    words = phrase.split()
    return not words or words[0].casefold().strip(",") in _PRONOUNS or words[-1].casefold().strip(",") in _PRONOUNS


MAX_ITEM_WORDS = 5
MAX_LEAD_WORDS = 10
_ITEM_END_RE = re.compile(r"[:;,.!?(]|\s[—–-]\s")


def counted_off(paragraphs: list[list[str]], lecture: str, lang: str) -> tuple[int, Said] | None:
    """A list counted in one paragraph's sentence and said over the paragraphs right after it, each opening with its
    place ("four types of suicide" over "First, egoistic suicide: …", …, "And fourth, fatalistic suicide, …"): as
    many paragraphs as counted, the next one not going on counting. ``paragraphs``: each spoken paragraph's
    sentences, said plainly; the card with the paragraph it is counted in."""
    words = WORDS.get(lang)
    if words is None or not words.places:
        return None
    for index, said in enumerate(paragraphs):
        for sentence in said:
            for phrase, count in counted_in(sentence, lang):
                following = paragraphs[index + 1:index + 2 + count]
                items = [_placed_item(paragraph[0], place, count, lang) if paragraph else ""
                         for place, paragraph in enumerate(following[:count])]
                if len(following) < count or not all(items) \
                        or (len(following) > count and following[count] and _placed_item(following[count][0], count,
                                                                                         count + 1, lang)):
                    continue
                # "Die Sonatenhauptsatzform besteht aus drei Teilen": what counts them, with its verb ("drei Teilen"
                # alone is inflected by it)
                lead = sentence[:sentence.find(phrase) + len(phrase)]
                asked = lead if len(lead.split()) <= MAX_LEAD_WORDS else phrase
                return index, Said("faq", f"{lecture}: {asked} – {'welche' if lang == 'de' else 'which'}?",
                                   "; ".join(items))
    return None


def _placed_item(sentence: str, place: int, count: int, lang: str) -> str:
    """What a paragraph's first sentence names after the ordinal of ``place`` (0 for "First"), up to its first
    punctuation ("First, egoistic suicide: this happens …" → "egoistic suicide"; "Zweitens die traditionale
    Herrschaft." → "traditionale Herrschaft"); "" when it opens otherwise or names no short item."""
    words = WORDS[lang]
    opening = re.sub(r"^(?:and|und)\s+", "", sentence.strip(), flags=re.IGNORECASE)
    ordinals = (*words.places[place], *(words.last_places if place == count - 1 else ())) \
        if place < len(words.places) else ()
    found = next((len(ordinal) for ordinal in ordinals if opening.casefold().startswith(ordinal)
                  and not opening[len(ordinal):len(ordinal) + 1].isalpha()), 0)
    if not found:
        return ""
    item = _ITEM_END_RE.split(opening[found:].lstrip(" ,"), maxsplit=1)[0].strip()
    named = item.split()
    if named and named[0].casefold() in words.articles:
        named = named[1:]
    if not named or len(named) > MAX_ITEM_WORDS or named[0].casefold() in _PRONOUNS | set(words.subjects):
        return ""
    return " ".join(named)
