"""Which reading answers a question without a model: its words first, meaning where they leave it unanswered.

Where meaning search is on (an embedding model beside the keywords), a passage answer (``extractive``) used to be
sought in the hybrid pack alone: meaning ranks its passages and re-ranks the blocks it quotes
(``extractive._by_meaning``). Where keywords alone answer, that did worse on the dev questions than keywords alone:
"TCP handshake" quoted a comparison table's row ("connection-oriented (handshake)") instead of the handshake's three
steps, "ACE inhibitors vs sartans – what's the difference?" a sentence on combining them. So the answer is first
sought in the keyword pack, read by its words as with no embedding model at all; only where that gives no answer
or the nearest passages only (``low``) is the hybrid pack read, and its answer taken when it answers (or the
keyword one quoted nothing). An answer with meaning search on is thus never worse than keywords alone, and meaning
still answers what keywords cannot ("What does 'Soll an Haben' mean when you write a booking entry?": the keyword
pack's nearest passage is on the Treaty of Lisbon, the hybrid pack's on "Buchungssätze").

Dev answers with embeddings (``bench/bench_answer_quality.py --embedded``), tune | check: student vault all nuggets
0.84 | 0.80 to 0.80 | 0.92 (keywords alone 0.76 | 0.92), help vault 0.581 | 0.710 unchanged; unanswerable questions
all refused, as before.

Both packs are read by the question's words: "Why does a baby start looking for a toy hidden under a blanket?" on a
note on object permanence, or "Does silence count as accepting an offer?" on the German "Schweigen ist grds. keine
Annahme", share next to no word with the passage that answers them, and are refused ("nothing in the vault about
“blanket”"). Where both leave such a question unanswered, the multilingual meaning side
(:mod:`cognivault.index.multilingual`, which reads English and German alike) stands in for its words
(:func:`meaning_answer`): the passage nearest the question's meaning is quoted by its block nearest the question, as
the nearest passage only (``low``), when

- half or more of the question's weight is in words no passage holds (:func:`read_by_meaning`: read as asked across
  languages or in other words, as search reads it, ``multilingual.ACROSS_SHARE``);
- its note stands out: the passage's cosine to the question exceeds that of the nearest passage of any other note
  by at least :data:`MEANING_MARGIN` of itself. How near a passage is says little by itself (right passages of
  paraphrases at 0.20-0.49, passages of the help vault nearest questions it cannot answer, "Can I install Obsidian on
  an Apple Watch?", up to 0.60), but a question the vault does not answer is about as near several notes: at most a
  tenth of the cosine apart on the dev vaults' tune halves (a fixed margin, 0.05 above their 0.02, let "Wie berechne
  ich die Einkommensteuer als Freiberufler?" through on the check half: 0.46 against 0.38, the VAT note quoted), the
  right notes of paraphrases and questions across languages a third to a half (own notes, EN and DE: genetics,
  marketing, Roman history, ecology);
- every name the question asks about is one the vault uses (an acronym, a capitalised name or two side by side, a
  number it never writes stays a refusal: "How does *QUIC* avoid head-of-line blocking?"), and a question asking for a
  kind of answer ("how many", "when", "wie viel kostet") gets a block giving one (``answer_kind``), else it stays
  refused.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from cognivault.answer.acronyms import acronyms_written
from cognivault.answer.answer_kind import expected_answer, gives_answer
from cognivault.answer.confidence import Confidence, QuoteMeasures
from cognivault.answer.evidence import Evidence, EvidencePack, evidence_from_record
from cognivault.answer.extractive import MIN_WORDS, PassageAnswer, quotes_of, units_of
from cognivault.index.analysis import words
from cognivault.index.multilingual import ACROSS_SHARE
from cognivault.index.scope import Scope

MEANING_SHARE = ACROSS_SHARE
MEANING_MARGIN = 0.2  # of its cosine, by which the nearest passage is nearer than any other note's
MEANING_DEPTH = 40  # passages nearest the question by meaning, among which another note's nearest is sought
MAX_UNITS = 16  # blocks of the nearest passage read by meaning (embedding is not free)
WHOLE_KINDS = ("list", "paragraph")
KIND_UNITS = 3  # of them, the nearest that may give the kind of answer a question asks for

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class MeaningAnswer:
    """A passage answer chosen by meaning, with the cosine of its passage to the question and the share of it by which
    that exceeds any other note's."""

    answer: PassageAnswer
    similarity: float
    margin: float


def words_first(engine: Any) -> bool:
    """Whether a passage answer is first sought in the keyword pack: where meaning search is on."""
    return getattr(engine, "embedder", None) is not None


def answered(answer: PassageAnswer, confidence: Confidence) -> bool:
    """Whether ``answer`` answers: it quotes, and not as the nearest passages only (``low``)."""
    return bool(answer.quotes) and confidence.label != "low"


def read_by_meaning(pack: EvidencePack) -> bool:
    """Whether the question's words leave it to meaning: half of its weight or more is in words no passage holds."""
    return pack.unknown_share >= MEANING_SHARE


def names_unheard(pack: EvidencePack) -> list[str]:
    """The names the question asks about that the vault never uses (a capitalised name, an acronym, a number)."""
    unheard, acronyms = set(pack.unknown), acronyms_written(pack.query)
    names = {concept.word for concept in pack.concepts.values() if concept.name}
    single = [concept.word for concept in pack.concepts.values()
              if (concept.whole or concept.word) in unheard and not concept.frame and not concept.context
              and (concept.name or concept.word.isdigit() or concept.word in acronyms)]
    # a name of two words the vault never has side by side ("Apple Watch"), though it has each
    return single + [phrase for phrase in pack.unknown if " " in phrase and set(phrase.split()) <= names]


def meaning_answer(engine: Any, pack: EvidencePack, analyzer: Any, question: str = "",
                   scope: Scope | None = None) -> MeaningAnswer | None:
    """The passage nearest the question's meaning in ``scope``, quoted by its nearest block, where its note stands
    out (None: meaning does not answer it either). The passage joins the pack."""
    question = question or pack.query
    side = getattr(engine, "multilingual", None)
    if side is None or not side.filled or not read_by_meaning(pack) or names_unheard(pack):
        return None
    try:
        asked = side.encoder.encode([question])[0]
        ranked = engine.meaning_passages(question, MEANING_DEPTH, scope)
        with engine.store.lock:
            vectors = side.index.vectors_of(ranked)
    except Exception as exc:  # noqa: BLE001 - meaning is a second reading; words alone have answered
        log.info("no meaning reading: %s", exc)
        return None
    if not ranked or len(vectors) != len(ranked):
        return None
    near = vectors @ asked
    notes = [engine.store.lexical.path_of(chunk_id) for chunk_id in ranked]
    other = next((float(near[at]) for at, note in enumerate(notes) if note != notes[0]), 0.0)
    margin = (float(near[0]) - other) / float(near[0]) if near[0] > 0 else 0.0
    nearest = pack.by_chunk(ranked[0]) or _passage(engine, ranked[0])
    if margin < MEANING_MARGIN or nearest is None:
        return None
    item = pack.by_chunk(ranked[0]) or pack.add(nearest, from_tool=True)
    if item is None:
        return None
    position = pack.items.index(item)
    units = [unit for unit in units_of(item, position) if len(words(unit.text)) >= MIN_WORDS]
    # a block whole where the passage has it whole (a short list, not one of its items): meaning reads the whole
    units = [unit for unit in units if not any(other.kind in WHOLE_KINDS and other is not unit and
                                               unit.text in other.text for other in units)][:MAX_UNITS]
    if not units:
        return None
    closeness = np.asarray(side.encoder.encode([f"{unit.section}\n{unit.intro} {unit.header} {unit.text}".strip()
                                                for unit in units])) @ asked
    order = sorted(range(len(units)), key=lambda at: -closeness[at])
    expected = expected_answer(question, list(pack.concepts.values()), pack.lang) if pack.concepts else None
    if expected is not None and expected.required:  # of its nearest blocks, the first giving such an answer
        kind = replace(expected, focus=(), head=None)
        order = [at for at in order[:KIND_UNITS] if gives_answer(kind, f"{units[at].intro}\n{units[at].text}", analyzer,
                                                                 item.lang, f"{units[at].heading}\n{units[at].header}")]
    if not order:
        return None  # none gives the kind of answer asked for: the question stays refused
    measures = QuoteMeasures(kind_stated=True if expected is not None and expected.required else None)
    return MeaningAnswer(PassageAnswer(quotes_of([units[order[0]]]), measures), float(near[0]), margin)


def _passage(engine: Any, chunk_id: str) -> Evidence | None:
    """The vault passage ``chunk_id`` as evidence (None when it is gone)."""
    record = engine.chunk(chunk_id)
    if record is None:
        return None
    title = engine.store.reader().titles([record.path]).get(record.path, "")
    return evidence_from_record(engine, record, title, source="vault")


def meaning_confidence(confidence: Confidence, found: MeaningAnswer) -> Confidence:
    """``confidence`` for an answer chosen by meaning: ``low`` (its first line says it is the nearest passage only)."""
    reason = (f"the question's words are not the notes' ({confidence.unknown_share:.0%} of them unknown); the quoted "
              f"passage is nearest its meaning (cosine {found.similarity:.2f}, {found.margin:.0%} above other notes)")
    return replace(confidence, label="low", reason=reason, similarity=found.similarity,
                   kind_stated=found.answer.measures.kind_stated, kind_refused=False)
