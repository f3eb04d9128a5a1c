"""A question asked across languages, judged by meaning: German on an English note, English on a German one.

The off-topic gate (``confidence.OFF_TOPIC_SHARE`` over ``EvidencePack.unknown_share``) refuses a question much of
whose weight is in words no note uses: "When do we dream most vividly?" on a German note on sleep ("im REM-Schlaf …
träumen wir am lebhaftesten") has no word the vault holds, so it was refused before any meaning was consulted, and
so were "Wie endet ein Stern wie unsere Sonne?" on an English note on the life of stars and "How long does one sleep
cycle last?" on "Eine Nacht besteht aus vier bis sechs Zyklen von je etwa 90 Minuten". Where the multilingual
meaning side is filled (``index.multilingual``: USE-multilingual v3, beside an embedding model), such a question is
read by meaning before it is refused: the passages in another language than the question's whose vector is at
least :data:`MEANT_FLOOR` near the question's (cosine), and :data:`MEANT_MARGIN` nearer than any passage in the
question's language, are *meant* by it, and a question with a meant passage is not off-topic for want of words
(``EvidencePack.across``). The margin keeps out what is only near the vault's subjects: a vault of docs in both
languages lies as near a question it does not answer in either language ("Can I install Obsidian on an Apple
Watch?": 0.60 to a German passage, 0.59 to an English one). The question is answered from
the meant passages alone: their block nearest to the question by meaning is quoted. Its words state little of the
question, so the usual rules hedge it (``confidence.assess``; never ``high`` on meaning alone). Without the side
(keyword mode, the extra not installed, its fill not done) nothing changes.

Both chosen on the tune halves (``bench/bench_across.py``: the dev vaults, and 37 questions of our own, 26 asked in
the other language than their note's and 11 unanswerable, on 10 notes EN and DE unlike the dev vaults): the pair
answering the most answerable questions and no unanswerable one, the least floor, the middle margin. Off-topic
questions lie below 0.2 of every passage in another language or as near one in their own language (every help-vault
one: margins -0.08 to 0.02); a near-miss may come as near as questions answered ("Welche Impfung braucht man gegen
Tollwut?" of an English note on vaccines that never names rabies: 0.381, margin 0.25), and the floor lies above it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from cognivault.answer.confidence import OFF_TOPIC_SHARE, QuoteMeasures
from cognivault.answer.evidence import EvidencePack, analyzer_of
from cognivault.index.multilingual import MultilingualEncoder
from cognivault.index.scope import Scope
from cognivault.index.word_bridge import Bridge, letter_words
from cognivault.index.word_rarity import rarity

if TYPE_CHECKING:
    from cognivault.answer.extractive import PassageAnswer, Unit

MEANT_FLOOR = 0.385  # the least cosine of a passage's vector to the question's for it to be meant
MEANT_MARGIN = 0.1  # ... and by how much more than the nearest passage in the question's language
DEPTH = 20  # passages of the side searched for meant ones
MEANT_PASSAGES = 2  # meant passages put into the pack, nearest first
QUOTED_KINDS = frozenset({"paragraph", "sentence", "item", "list", "quote", "row"})


@dataclass(slots=True)
class Across:
    """The meant passages of a question asked across languages, and how near the question each is."""

    vector: np.ndarray  # the question's vector of the side's model
    encoder: MultilingualEncoder
    similarity: dict[str, float] = field(default_factory=dict)  # chunk id -> cosine, of the meant passages
    records: list[Any] = field(default_factory=list)  # their chunk records, nearest first
    same: float = 0.0  # the cosine of the nearest passage in the question's language (0: none among those searched)

    @property
    def best(self) -> float:
        return max(self.similarity.values(), default=0.0)


def meant_across(engine: Any, pack: EvidencePack, query: str, scope: Scope | None) -> Across | None:
    """The meant passages of a question its words call off-topic; None where the side is missing or not filled,
    the question's words are the vault's, or no passage in another language is meant."""
    side = getattr(engine, "multilingual", None)
    if side is None or pack.lang is None or pack.unknown_share < OFF_TOPIC_SHARE or not side.ready():
        return None
    allowed = _allowed_paths(engine, scope)
    vector = side.encoder.encode([query])[0]
    across = Across(vector, side.encoder)
    hits = []
    for hit in side.nearest(vector, DEPTH):
        record = engine.chunk(hit.chunk_id)
        if record is None or (allowed is not None and record.path not in allowed):
            continue
        if record.lang == pack.lang:
            across.same = max(across.same, hit.score)
        elif record.lang is not None:
            hits.append((hit.score, record))
    for score, record in hits[:MEANT_PASSAGES]:
        # a passage of the question's language as near says the question is near the vault's subjects, not about
        # what a passage of the other says (a vault of docs in both languages is near any question on software)
        if score >= MEANT_FLOOR and score - across.same >= MEANT_MARGIN:
            across.similarity[record.id] = score
            across.records.append(record)
    return across if across.records else None


def bridged(engine: Any, pack: EvidencePack) -> bool:
    """Read a question its words call off-topic through the word bridge (``index.word_bridge``, keyword search too):
    each concept whose word the vault never uses and that is bridged to a vault word of another language has that
    word's terms among its own (a passage stating the word states the concept) and is no longer unheard
    (``Concept.bridged``), where every unheard word but everyday ones is bridged. Whether any concept was bridged
    (then the pack's unknown words are to be read again)."""
    bridge = getattr(engine, "word_bridge", None)
    if bridge is None or pack.unknown_share < OFF_TOPIC_SHARE or not pack.unknown:
        return False
    from cognivault.answer.extractive import EVERYDAY_RARITY

    written = {word.casefold(): word for word in letter_words(pack.query)}
    unheard = {word: written.get(word, word) for word in pack.unknown}
    bridges = bridge.bridge(unheard.values(), pack.lang)
    # a word naming its subject left unread says the vault lacks it in every language ("Which *vaccines* should a
    # mother get during pregnancy?" of a German note on a mother's antibodies): the question stays off-topic; an
    # everyday word inflected is everyday ("what *holds* society together", of "hold")
    analyzer = analyzer_of(engine)
    if not bridges or any(word not in bridges and min(rarity(form, pack.lang) for form in (
            word, *analyzer.terms_of_word(word, pack.lang)[:1])) > EVERYDAY_RARITY for word in unheard):
        return False
    _read_as_bridged(engine, pack, bridges, set(pack.concepts))
    return True


def bridged_gaps(engine: Any, pack: EvidencePack) -> None:
    """Read through the word bridge the question's words that no passage of the pack states, where its first passage
    is in another language than the question's: a question asked across languages that shares a word or two with the
    vault is no off-topic one, so :func:`bridged` leaves it, and the rest of its words went unread ("What does the
    sodium-potassium *pump* do?" of "Natrium-Kalium-Pumpe: pumpt 3 Na⁺ raus", "Wann wurde die Berliner *Mauer*
    gebaut?" of "Berlin Wall built 13 Aug 1961": quoted as the nearest the notes come, though they state it). A
    passage stating the word a concept is bridged to states the concept (``Concept.bridged``: the answer is as sure
    as a translation, no more); a word bridged to no vault word stays missing."""
    bridge = getattr(engine, "word_bridge", None)
    first = next((item for item in pack.items if item.source == "vault"), None)
    if bridge is None or first is None or first.lang in (None, pack.lang):
        return
    stated = set().union(*(pack.concepts_in(item.terms, item.words) for item in pack.items))
    missing = {concept.whole or concept.word: key for key, concept in pack.concepts.items()
               if key not in stated and not concept.bridged}
    written = {word.casefold(): word for word in letter_words(pack.query)}
    bridges = bridge.bridge([written[word] for word in missing if word in written], pack.lang)
    if _read_as_bridged(engine, pack, bridges, set(missing.values())):
        for item in pack.items:  # a passage has a concept it states (``EvidencePack.add``), now in either language
            item.terms = item.terms | pack.concepts_in(item.terms, item.words)


def _read_as_bridged(engine: Any, pack: EvidencePack, bridges: dict[str, Bridge], keys: set[str]) -> bool:
    """The concepts ``keys`` names whose word is bridged with the terms of the vault word it is bridged to among their
    own (``Concept.bridged``); whether any was."""
    analyzer = analyzer_of(engine)
    read = False
    for key, concept in list(pack.concepts.items()):
        found = bridges.get(concept.whole or concept.word)
        if found is not None and key in keys:
            terms = analyzer.terms_of_word(found.target.casefold(), found.lang)
            pack.concepts[key] = replace(concept, terms=concept.terms | frozenset(terms), bridged=found.target)
            read = True
    return read


def _allowed_paths(engine: Any, scope: Scope | None) -> set[str] | None:
    """The notes a scope allows (None: every note)."""
    if scope is None or scope.is_empty():
        return None
    lexical = engine.store.lexical
    return scope.resolve(engine.store.reader(), lexical.paths if lexical else [], engine.generated_notes().paths)


def answer_by_meaning(pack: EvidencePack) -> PassageAnswer:
    """The passage answer of a question asked across languages (``EvidencePack.across``): the block of the meant
    passages nearest to the question by meaning, quoted whole."""
    from cognivault.answer.extractive import PassageAnswer, quotes_of, units_of

    across = pack.across
    units = [unit for position, item in enumerate(pack.items) if item.chunk_id in across.similarity
             for unit in units_of(item, position) if unit.kind in QUOTED_KINDS and not unit.cut and unit.text.strip()]
    if not units:
        return PassageAnswer()
    vectors = across.encoder.encode([f"{unit.intro} {unit.text}".strip() for unit in units])
    return PassageAnswer(quotes_of([units[int(np.argmax(vectors @ across.vector))]]), QuoteMeasures())


def quoted_across(units: Sequence[Unit], pack: EvidencePack) -> bool:
    """Whether a quote is in another language than the question's (which may state its words in its own)."""
    return any(pack.items[unit.position].lang not in (None, pack.lang) for unit in units)


def located_quotes(units: Sequence[Unit], pack: EvidencePack) -> list[Unit]:
    """The quotes of an answer asked across languages (one quote at least in another language than the question's)
    from the notes that state the most of what it asks about, by weight: the note its words, read in the other
    language, locate. "Which cells form the myelin sheath in the CNS?" on a German note on nerve cells ("im ZNS von
    Oligodendrozyten") was answered with that note's list and a line of an English note on volcanoes ("Caldera =
    large depression *formed* when …"), which shares one word of the question and states nothing of its subject: a
    question whose words are read through a translation matches stray words of other notes, and a collage of them
    is no answer. Several notes stating as much stay (two notes on the subject); a question in the language of
    every quote keeps every quote (``choose_units`` judged them)."""
    if not quoted_across(units, pack):
        return list(units)
    topic = {key for key, concept in pack.concepts.items() if not concept.frame}
    stated: dict[str, set[str]] = defaultdict(set)
    for unit in units:
        stated[pack.items[unit.position].path] |= unit.concepts & topic
    if len(stated) < 2:
        return list(units)
    weight = {path: sum(pack.term_weights.get(key, 1.0) for key in keys) for path, keys in stated.items()}
    most = max(weight.values())
    return [unit for unit in units if weight[pack.items[unit.position].path] >= most]
