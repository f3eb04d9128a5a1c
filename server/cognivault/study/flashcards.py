"""Flashcard notes in the spaced-repetition plugin's syntax, from a model or extractively.

A card is written as ``front::back`` (or a multi-line card around a ``?``
line when a side spans lines) or as a cloze paragraph with ``==term==``; each
card ends with its citation (``vault_schema/citation.md``). A ``#flashcards/<deck>``
line above the cards puts them in a deck. The written note parses back with
``cards.parse_cards`` exactly as the plugin reads it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ValidationError, model_validator

from cognivault.study.cards import has_cloze, parse_cards, strip_comments
from cognivault.study.citations import cite, link, parse_citations, without_cited_links
from cognivault.study.common import Composed, Draft, GeneratorSpec, ListPrompt, deck_slug, study_folder
from cognivault.study.extract import (
    CLOZE_KINDS,
    Fact,
    all_facts,
    answer_for,
    asks_term,
    clear_steps,
    cloze_place,
    plain,
    question_for,
    spread,
)
from cognivault.study.sources import Source, SourceSet, StudyRequest
from cognivault.study.validate import card_problems, cloze_problems, stems_of
from cognivault.vault.markdown import inline_pieces
from cognivault.vault.reading import is_aspect

DEFAULT_COUNT = 20  # asked of a model; without one, every fact the note's structure supports is a card (MAX_COUNT)
MAX_COUNT = 100
COVERED = 0.8  # a card whose answer's words the passage's cards already show (this share of them) asks again
# Kinds that restate a passage's text (a cloze, a section's opening): left out when the passage's cards say it
# already. A list item, row or definition is a fact of its own even where its table's rows share their words,
# a step's place in its list too.
RESTATING = ("bold", "code", "heading", "label")
MIN_JUDGED = 3  # fewer content words than this are too few to tell a repeat from a new fact
MAX_CODE_GAP = 40  # characters of a code span a cloze may hide: a keyword or call, not a whole definition
MAX_RESTATED = 3  # a list item answered in this many content words or fewer may be another card's fact again
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"cards": {"type": "array", "items": {
        "type": "object",
        "properties": {"type": {"type": "string", "enum": ["qa", "cloze"]}, "front": {"type": "string"},
                       "back": {"type": "string"}, "text": {"type": "string"}, "source": {"type": "integer"}},
        "required": ["type", "source"]}}},
    "required": ["cards"],
}


class CardItem(BaseModel):
    type: Literal["qa", "cloze"]
    front: str | None = None
    back: str | None = None
    text: str | None = None
    source: int

    @model_validator(mode="before")
    @classmethod
    def _infer_type(cls, data: Any) -> Any:
        if isinstance(data, dict) and "type" not in data:
            data = dict(data)
            data["type"] = "cloze" if data.get("text") and not data.get("front") else "qa"
        return data

    @model_validator(mode="after")
    def _complete(self) -> CardItem:
        if self.type == "qa":
            if not (self.front or "").strip() or not (self.back or "").strip():
                raise ValueError("a question card needs a front and a back")
        elif not self.text or not has_cloze(self.text):
            raise ValueError("a cloze card needs text with ==term==")
        return self


@dataclass(frozen=True, slots=True)
class Flashcard:
    kind: str  # qa | cloze
    front: str
    back: str
    text: str
    source: Source


def _clean_side(text: str) -> str:
    """A model's card side in the plugin's syntax: "::" outside code spans read as ":" (code kept verbatim)."""
    text = text.replace("\r\n", "\n")
    pieces, pos = [], 0
    for code in (piece for piece in inline_pieces(text) if piece.kind == "code"):
        pieces += [text[pos:code.start].replace("::", ":"), text[code.start:code.end]]
        pos = code.end
    lines = [line.rstrip() for line in "".join([*pieces, text[pos:].replace("::", ":")]).split("\n")]
    while lines and not lines[-1].strip():
        lines.pop()
    # A line that is only "?" or "??" would end the side early in the plugin's syntax.
    return "\n".join(line if line.strip() not in ("?", "??") else line + "\u200b" for line in lines).strip()


def check_card(raw: Any, sources: SourceSet) -> Flashcard | None:
    try:
        item = CardItem.model_validate(raw)
    except ValidationError:
        return None
    source = sources.by_number(item.source)
    if source is None:
        return None
    if item.type == "qa":
        front, back = _clean_side(item.front or ""), _clean_side(item.back or "")
        card = Flashcard("qa", front, back, "", source) if front and back else None
    else:
        text = " ".join(_clean_side(item.text or "").split())
        card = Flashcard("cloze", "", "", text, source) if has_cloze(text) else None
    return card if card is not None and render_card(card) is not None else None


def _reads_back(written: str, card: Flashcard) -> bool:
    """Whether the plugin's syntax (``parse_cards`` follows the plugin) reads ``written`` as exactly this card."""
    found = parse_cards(f"#flashcards\n\n{written}\n", "check.md").flashcards
    if len(found) != 1:
        return False
    flashcard = found[0]
    citations = parse_citations(written)
    if card.kind == "cloze":
        return flashcard.kind == "cloze" and len(flashcard.cards) == card.text.count("==") // 2 \
            and without_cited_links(strip_comments(flashcard.text), citations) == card.text
    sides = [(front, without_cited_links(back, citations)) for front, back in
             ((c.front, c.back) for c in flashcard.cards)]
    return flashcard.kind in ("basic", "multiline") and sides == [(card.front, card.back)]


def render_card(card: Flashcard) -> str | None:
    """The card as the note holds it: one line ``front::back`` where the plugin reads that line as this card, else
    a multi-line card around a ``?`` line (a front with ``::`` in a code span), else None (no way to write it)."""
    citation = cite(card.source)
    if card.kind == "cloze":
        forms = [f"{card.text} {citation}"]
    else:
        forms = [f"{card.front}::{card.back} {citation}"] if "\n" not in card.front + card.back else []
        forms.append(f"{card.front}\n?\n{card.back}\n{citation}")
    return next((form for form in forms if _reads_back(form, card)), None)


def render_note_body(title: str, cards: list[Flashcard], deck: str, sources: SourceSet) -> str:
    origin = ", ".join(link(path, None, None) for path in dict.fromkeys(c.source.path for c in cards))
    german = sources.language == "de"
    intro = (f"{len(cards)} Karteikarten aus {origin}. Wiederholen: `cognivault review`, das Dashboard oder das "
             "Spaced-Repetition-Plugin." if german else
             f"{len(cards)} flashcards from {origin}. Review them with `cognivault review`, the dashboard or the "
             "Spaced Repetition plugin.")
    parts = [f"# {title}", intro, f"#flashcards/{deck}"]
    parts.extend(written for written in map(render_card, cards) if written is not None)
    return "\n\n".join(parts) + "\n"


def _plugin_safe(text: str) -> bool:
    """A one-line side with no cloze mark, comment or tag line of its own inside."""
    return "==" not in text and "<!--" not in text and not text.lstrip().startswith("#") and "\n" not in text


def card_for(fact: Fact) -> Flashcard | None:
    """A card for a fact, or None when the plugin would misread it or the validator rejects it."""
    if fact.kind in CLOZE_KINDS:
        if fact.kind == "code" and len(plain(fact.term).strip("`")) > MAX_CODE_GAP:
            return None  # "==`Bestellung(BestNr, Datum, KundenNr, …)`==": a whole example to type, no fact to recall
        # "*Ich kaufe ein Geschenk für ==meinen== Vater.*": the example's italics are the note's, not the card's
        cloze = re.sub(r"([.!?])\.$", r"\1", plain(fact.cloze.replace("==", "\ue006")).replace("\ue006", "=="))
        if not cloze or not _plugin_safe(cloze.replace("==", "")) or cloze.count("==") != 2 \
                or cloze_problems(cloze, fact.source.text):
            return None
        card = Flashcard("cloze", "", "", cloze, fact.source)
    else:
        if fact.kind in ("heading", "label") and fact.definition.endswith("…"):
            return None  # "Why Britain first?::Resources: …; Markets: …; …" answers with part of the list
        # as the card shows it: "**Sinusknoten**", "==key==" are the note's emphasis, not the card's text
        front, back = plain(question_for(fact)), plain(answer_for(fact))
        if not front or not (_plugin_safe(front) and _plugin_safe(back)) \
                or card_problems(front, back, fact.source.text):
            return None
        card = Flashcard("qa", front, back, "", fact.source)
    return card if render_card(card) is not None else None


def _item_key(text: str) -> str:
    return plain(text).casefold().rstrip(". ")


def once_per_list(facts: list[Fact]) -> tuple[list[Fact], set[int]]:
    """A list asked whole ("which steps, in order?") or its items one by one, not both (its items' clozes go): where
    at least half of its items have a card asking what the item means ("Was bedeutet „Kettenstart“?", "prüfen?"),
    the whole goes.
    Where every item is asked back by its name ("Welche Art ist gemeint: …?" beside "Nenne die 4 Arten"), those
    cards go: the whole card holds each of their facts, and is taken with the list items it stands for (returned:
    the facts kept, the ids of such whole lists)."""
    items: dict[str, list[Fact]] = {}
    for fact in facts:
        if fact.kind == "item":
            items.setdefault(_item_key(fact.sentence), []).append(fact)
    dropped: set[int] = set()
    standing_in: set[int] = set()
    for fact in facts:
        if fact.kind not in ("heading", "label") or not fact.list_items:
            continue
        asked = [item for listed in fact.list_items for item in items.get(_item_key(listed), [])]
        backwards = [item for item in asked if asks_term(item)]
        if {_item_key(item.sentence) for item in backwards} >= {_item_key(listed) for listed in fact.list_items}:
            dropped.update(id(item) for item in backwards)
            standing_in.add(id(fact))
        elif 2 * len(asked) >= len(fact.list_items) and not backwards:
            dropped.add(id(fact))
    # a list asked whole holds its items' clozes ("Gauß-Algorithmus: ==Zeilen vertauschen==, …" beside "which steps, in
    # order?"): they ask again what its card asks
    whole = {_item_key(listed) for fact in facts if fact.kind in ("heading", "label") and id(fact) not in dropped
             and question_for(fact) for listed in fact.list_items}
    dropped.update(id(fact) for fact in facts if fact.kind in CLOZE_KINDS and fact.listed
                   and _sentence_key(fact) in whole)
    return [fact for fact in facts if id(fact) not in dropped], standing_in


def _sentence_key(fact: Fact) -> str:
    """The note's sentence a fact was read from, as a cloze and a definition card on it both hold it."""
    place = cloze_place(fact) if fact.kind in CLOZE_KINDS else ""
    return _item_key(fact.sentence.removeprefix(f"{place}: ") if place else fact.sentence)


def _aspect_key(fact: Fact, card: Flashcard) -> str:
    """One aspect of one subject, however the note names it: a table's "“CJEU” – Seat?::Luxembourg" and a section's
    "Court of Justice of the European Union: seat?::Luxembourg (…)" are "seat | CJEU | luxembourg" ("" for others)."""
    if fact.kind == "row":
        aspect, subject = fact.column, plain(fact.term)
    elif fact.kind == "item" and is_aspect(plain(fact.term)):
        aspect, subject = plain(fact.term), fact.context.split(" › ")[0]
    else:
        return ""
    words = subject.split()
    initials = subject if len(words) == 1 and subject.isupper() else "".join(w[0] for w in words if w[:1].isupper())
    head = re.split(r"[(,;]", card.back, maxsplit=1)[0].strip(" .").casefold()
    return f"{aspect.casefold()} | {initials} | {head}" if len(initials) >= 2 and head else ""


def extractive_cards(sources: SourceSet, count: int) -> list[Flashcard]:
    """Cards from list items, table rows, definitions, namings and the note's own questions, clozes on bold terms
    and code, then sections and the labelled lists in them, then what comes after a step of a numbered list.

    Each kind is taken across the note's sections in turn; a term, front or back already carded is skipped, and
    so is a cloze or section card whose words the passage's cards already show, so a note gives fewer cards rather
    than repeated or doubtful ones (a section's one-line example is on its section card)."""
    facts = all_facts(sources.material, sources.language)
    # a wide table's row is one card ("record"), not one card per cell
    recorded = {(f.source.chunk_id, f.context, f.term) for f in facts if f.kind == "record"}
    # a list asked whole and in order is not asked again step by step
    ordered = {f.context for f in facts if f.kind in ("heading", "label") and f.in_order and f.list_items}
    kept, whole_lists = once_per_list([f for f in facts if f.kind != "step" and not (
        f.kind == "row" and (f.source.chunk_id, f.context, f.term) in recorded)])
    facts = kept + [f for f in clear_steps(facts) if f.context not in ordered]
    cards: list[Flashcard] = []
    seen: set[str] = set()
    said: dict[str, set[str]] = {}  # per passage: the stems its cards already show, front and back
    stated: list[set[str]] = []  # each card's stems, front and back, for a short item the note states again
    answered: dict[str, list[str]] = {}  # per sentence a definition card asks on: its answers and its terms
    structured = ("item", "row", "record", "definition", "called", "faq", "vocab", "formula", "task")
    for kinds in (structured, ("bold", "code"), ("heading", "label"), ("step",)):
        # a whole list standing in for its items' cards is taken with the items
        taken = [f for f in facts if (f.kind in kinds and id(f) not in whole_lists)
                 or (kinds is structured and id(f) in whole_lists)]
        for fact in spread(taken, len(facts)):
            if len(cards) >= count:
                return cards
            card = card_for(fact)
            if card is None:
                continue
            sides = {card.front, card.back} if card.kind == "qa" else {card.text.replace("==", "")}
            # a section or question card asks about its text, not its heading: a card on the same term stays apart
            # per column; a table's row and a list item on the same term say different things ("Ketone" – its
            # structure, suffix, example; "ketone: C=O in the middle of the chain")
            term = f"{plain(fact.term)} | {fact.column}" if fact.kind == "row" \
                else f"{plain(fact.term)} | table" if fact.kind == "record" \
                else f"{plain(fact.term)} | {fact.context}" if is_aspect(plain(fact.term)) or fact.structural \
                else plain(fact.term)
            # (an aspect, "term of office", is one per section it describes)
            keys = ({term.casefold()} if fact.kind not in ("heading", "label", "faq") else set()) \
                | {side.casefold().rstrip(". ") for side in sides}  # "Frankfurt am Main." is "Frankfurt am Main"
            keys |= {_aspect_key(fact, card)} - {""}
            shown = said.setdefault(card.source.chunk_id, set())
            # the label a cloze's item hangs from ("Life paths › massive stars: …") frames its fact, it is not what
            # the cloze says
            place = cloze_place(fact) if card.kind == "cloze" and fact.frame else ""
            framed = place.endswith(fact.frame) and card.text.startswith(f"{place}: ") if place else False
            answer = stems_of(card.back if card.kind == "qa" else card.text, fact.lang) \
                - (stems_of(fact.frame, fact.lang) if framed else set())
            repeats = fact.kind in RESTATING and not fact.in_order and len(answer) >= MIN_JUDGED \
                and len(answer & shown) >= COVERED * len(answer)
            # "Timeline (short version): what happened in 1771?::Cromford Mill." beside "… in 1769?::Richard
            # Arkwright: water frame … → 1771 Cromford Mill …": a short item that one card says whole already
            asked = stems_of(plain(fact.term), fact.lang) | answer
            # ("… in 1833?::Factory Act.": one word long enough to judge, asked by a name of its own, not "Formeln")
            restated = fact.kind == "item" and not fact.structural and 1 <= len(answer) <= MAX_RESTATED \
                and len(asked) >= 2 \
                and (len(answer) >= 2 or not is_aspect(plain(fact.term))) \
                and all(len(stem) >= 3 for stem in answer) and any(asked <= card for card in stated)
            # "A generator function is a function that contains ==`yield`==; …" beside "What is a generator
            # function?::A function that contains `yield`": the gap is what the sentence's card answers already
            # ("Die ==Michaelis-Konstante== $K_M$ ist …" beside "Was ist die Michaelis-Konstante $K_M$?": the gap is
            # the term that card asks about, the same fact the other way round)
            gap_answered = card.kind == "cloze" and any(
                plain(fact.term).casefold() in side for side in answered.get(_sentence_key(fact), []))
            if keys & seen or repeats or restated or gap_answered:
                continue  # the same fact again, or one the passage's cards already state
            seen |= keys
            shown |= stems_of(" ".join(sides), fact.lang)
            stated.append(stems_of(" ".join(sides), fact.lang))
            if fact.kind in ("definition", "called"):
                answered.setdefault(_sentence_key(fact), []).extend(
                    (plain(card.back).casefold(), plain(fact.term).casefold()))
            cards.append(card)
    return cards


def _compose(engine: Any, request: StudyRequest, sources: SourceSet, draft: Draft[Flashcard],
             count: int) -> Composed:
    cards = draft.items
    title = f"Flashcards - {sources.title}" if sources.language != "de" else f"Karteikarten - {sources.title}"
    deck = deck_slug(request.deck or sources.title)
    body = render_note_body(title, cards, deck, sources)
    written = sum(len(f.cards) for f in parse_cards(body, "check.md").flashcards)
    return Composed(title, body, list({c.source.chunk_id: c.source for c in cards}.values()),
                    study_folder(engine.vault, engine.settings), frontmatter={"deck": deck},
                    extra={"deck": deck, "cards": written},
                    # never write a deck the plugin would read differently
                    reads_back=lambda text: len(parse_cards(text, "check.md").flashcards) == len(cards))


FLASHCARDS = GeneratorSpec.of_items(
    "flashcards", DEFAULT_COUNT, MAX_COUNT, extractive_cards,
    ListPrompt("flashcards", SCHEMA, ("cards", "flashcards", "items"), "flashcards", "cards", 120, check_card),
    _compose, "flashcards", extractive_all=True)
generate_flashcards = FLASHCARDS.run
