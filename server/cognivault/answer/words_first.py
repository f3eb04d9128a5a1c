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
"""

from __future__ import annotations

from typing import Any

from cognivault.answer.confidence import Confidence
from cognivault.answer.extractive import PassageAnswer


def words_first(engine: Any) -> bool:
    """Whether a passage answer is first sought in the keyword pack: where meaning search is on."""
    return getattr(engine, "embedder", None) is not None


def answered(answer: PassageAnswer, confidence: Confidence) -> bool:
    """Whether ``answer`` answers: it quotes, and not as the nearest passages only (``low``)."""
    return bool(answer.quotes) and confidence.label != "low"


def hybrid_replaces(keyword: PassageAnswer, hybrid: PassageAnswer, hybrid_confidence: Confidence) -> bool:
    """Whether the hybrid pack's answer is taken instead of the keyword pack's (which did not answer): it quotes,
    and the keyword one quoted nothing or the hybrid one answers."""
    return bool(hybrid.quotes) and (not keyword.quotes or answered(hybrid, hybrid_confidence))
