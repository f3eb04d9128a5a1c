"""Fusing keyword and meaning rankings into one, weighted by what each side knows.

Reciprocal Rank Fusion (k=60) over the two ranked lists, with a weight per
side chosen from the query's language: dense retrieval only gets full say
where the embedding model knows the language (an English-only model ranks
German passages poorly, and plain RRF would let it drag German results down).
The weights were chosen by measurement on the dev question set
(``cognivault eval``), see ``FusionWeights``: with all-MiniLM-L6-v2 (English
only), hybrid lifts English nDCG@10 from 0.82 (BM25) to 0.88, while any dense
weight on German questions lowered German nDCG, so German is ranked by BM25
(where the keywords cannot tell a German query's first notes apart, a multilingual
model gets a small say in the note ranking: :mod:`cognivault.index.multilingual`).
A multilingual embedder (embeddinggemma via Ollama) declares no language limit
and gets full weight everywhere. A query of no clear language may be in any of
the vault's main languages: it gets ``dense_unclear_language`` (0) unless the
model knows them all, since a side that cannot help a language must not decide
a query that may be in it (it was weighted as the vault's main language).

Where meaning search has a say, the keywords' weight falls with the share of the
query's words that no passage holds (``FusionWeights.unknown_word_penalty``):
when the words that name the subject are missing (written in another language
than the notes, or a term the notes write otherwise), keywords only match the
question's frame ("mean", "year", "move") and rank notes on other subjects first. Chosen by
cross-validation over both dev vaults (penalty 0, 1, 2 or 3; 3 on the tune
halves): on the student vault it lifted English nDCG@10 from 0.956 to 0.984 and
the cross-language questions from 0.895 to 0.953 (tune half 0.795 to 0.912,
check half 0.994 unchanged); the help vault's questions hold no such share of
unknown words and keep their ranking. Where meaning search has no say (German
with the English-only model) the ranking stays the keywords' own.

Ranking notes with meaning search in the fusion, the notes' ranks are fused, each note at its best passage
on each side (:func:`fuse_notes`): fusing passage ranks, a note whose best keyword passage and best meaning
passage differ got nothing from both sides agreeing on it, and a note one side ranked first by one passage
beat it ("How is Obsidian Sync different from keeping my vault in a Dropbox or iCloud folder?": its note
second on both sides, by two passages, was fourth). Help vault nDCG@10 on English questions 0.819 | 0.940
(tune | check) to 0.856 | 0.938, conceptual questions 0.845 | 0.774 to 0.940 | 0.760. A query asked across
languages adds the multilingual meaning side as a third side of that fusion (see
:func:`cognivault.index.multilingual.across_languages`).

Ranking notes where keywords rank alone (dense weight 0), one passage's score
is thin evidence about its note: :func:`by_note_evidence` lets a note's
second-best passage add ``FusionWeights.note_evidence`` of its score to the
note's best passage, so a note that answers in two sections climbs above one
that shares a few words once (with meaning search in the fusion it lowered
English nDCG, so it applies to keyword-only rankings). It is off by default: a
keyword-only hybrid ranking must never fall below keywords alone, and it did
where it was measured on questions no one tuned on (help vault held out, German:
0.728-0.740 against 0.781 for keywords alone; the student vault's check half,
German: 0.969 against 0.997), although cross-validation on the dev questions of
both vaults still picks 0.1 (help German 0.842 against 0.808). A passage ranking keeps each
passage's own score: its note's other passages say nothing about it (answers
drawn from the lifted passages stated fewer facts).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

RRF_K = 60


@dataclass(frozen=True, slots=True)
class FusionWeights:
    lexical: float = 1.0
    dense_known_language: float = 1.0  # the embedder was trained on the query's language
    dense_other_language: float = 0.0  # it was not: on the dev set any weight here lowered German nDCG
    dense_unclear_language: float = 0.0  # no clear language, and the model lacks one of the vault's main ones
    rrf_k: int = RRF_K
    note_evidence: float = 0.0  # keyword-only note rankings: the share of a note's second passage added to its best
    unknown_word_penalty: float = 3.0  # keyword say lost per share of the query's words no passage holds

    def lexical_weight(self, unknown_share: float) -> float:
        """The keywords' say beside meaning search for a query with ``unknown_share`` of its words unknown
        to the vault: none from a third of them on (at the default penalty)."""
        return self.lexical * max(0.0, 1.0 - self.unknown_word_penalty * unknown_share)


@dataclass(frozen=True, slots=True)
class FusedHit:
    chunk_id: str
    score: float
    lexical_rank: int | None  # 1-based
    dense_rank: int | None


def reciprocal_rank_fusion(lexical: Sequence[str], dense: Sequence[str], lexical_weight: float,
                           dense_weight: float, k: int = RRF_K) -> list[FusedHit]:
    """Weighted RRF of two ranked id lists, best first (ties broken by the lexical rank)."""
    lexical_rank = {chunk_id: rank for rank, chunk_id in enumerate(lexical, start=1)}
    dense_rank = {chunk_id: rank for rank, chunk_id in enumerate(dense, start=1)}
    fused = []
    for chunk_id in dict.fromkeys([*lexical, *dense]):
        lr, dr = lexical_rank.get(chunk_id), dense_rank.get(chunk_id)
        score = (lexical_weight / (k + lr) if lr else 0.0) + (dense_weight / (k + dr) if dr else 0.0)
        fused.append(FusedHit(chunk_id, score, lr, dr))
    fused.sort(key=lambda hit: (-hit.score, hit.lexical_rank or 10**9, hit.dense_rank or 10**9))
    return fused


def fuse_rankings(lexical: Sequence[str], dense: Sequence[str], weights: FusionWeights, dense_weight: float,
                  note_of: Callable[[str], str | None] | None = None, unknown_share: float = 0.0,
                  multilingual: Sequence[str] = (), multilingual_weight: float = 0.0, across: Sequence[str] = (),
                  across_weight: float = 0.0) -> list[FusedHit]:
    """The hybrid ranking of two ranked id lists; ``note_of`` (a chunk's note) when it ranks notes, which
    fuses the notes' ranks (:func:`fuse_notes`), or, ranked by keywords alone, goes by
    :func:`by_note_evidence`. ``unknown_share``: the share of the query's words no passage holds, which
    lowers the keywords' say where meaning search has one. The multilingual meaning side's ranking (see
    :mod:`cognivault.index.multilingual`), in a note ranking: ``multilingual`` beside keywords alone
    (``dense`` empty), fused passage by passage with ``multilingual_weight``, or ``across`` (a query whose
    words say it is on notes of another language), a third side of the notes' fusion with ``across_weight``."""
    if across and note_of is not None:
        return fuse_notes([(lexical, weights.lexical_weight(unknown_share)), (dense, dense_weight),
                           (across, across_weight)], note_of, weights.rrf_k)
    if multilingual and not dense:
        dense, dense_weight, note_of = multilingual, multilingual_weight, None
    lexical_weight = weights.lexical_weight(unknown_share) if dense and dense_weight > 0 else weights.lexical
    if note_of is not None and dense and dense_weight > 0:
        return fuse_notes([(lexical, lexical_weight), (dense, dense_weight)], note_of, weights.rrf_k)
    fused = reciprocal_rank_fusion(lexical, dense, lexical_weight, dense_weight, weights.rrf_k)
    if note_of is not None and not dense:
        fused = by_note_evidence(fused, note_of, weights.note_evidence)
    return fused


def fuse_notes(rankings: Sequence[tuple[Sequence[str], float]], note_of: Callable[[str], str | None],
               k: int = RRF_K) -> list[FusedHit]:
    """Weighted RRF of the notes' ranks in ranked passage lists, each with its weight (keywords first, then
    meaning; a note ranked by its best passage on each side): every passage scores as its note, a note's
    passages keep their own fused order.

    Fusing passage ranks, a note whose best keyword passage and best meaning passage differ got nothing
    from both sides agreeing on it, and a note one side ranked first by one passage beat it."""
    notes = {chunk_id: note_of(chunk_id) or chunk_id  # a passage of no known note stands alone
             for ranked, _ in rankings for chunk_id in ranked}
    (lexical, lexical_weight), (dense, dense_weight) = rankings[0], rankings[1]
    passages = reciprocal_rank_fusion(lexical, dense, lexical_weight, dense_weight, k)
    seen = {hit.chunk_id for hit in passages}
    for other, _ in rankings[2:]:
        passages += [FusedHit(chunk_id, 0.0, None, None) for chunk_id in other if chunk_id not in seen]
        seen.update(other)
    scores: dict[str, float] = defaultdict(float)
    for ranked, weight in rankings:
        if weight > 0:
            for rank, note in enumerate(dict.fromkeys(notes[chunk_id] for chunk_id in ranked), start=1):
                scores[note] += weight / (k + rank)  # each note at its best passage on this side
    ordered = sorted(passages, key=lambda hit: -scores[notes[hit.chunk_id]])  # stable: ties keep the fused order
    return [FusedHit(hit.chunk_id, scores[notes[hit.chunk_id]], hit.lexical_rank, hit.dense_rank) for hit in ordered]


def by_note_evidence(fused: Sequence[FusedHit], note_of: Callable[[str], str | None], share: float
                     ) -> list[FusedHit]:
    """``fused`` with each note's best passage scored up by ``share`` of its note's second-best
    passage's score, best first (the other passages keep their own scores)."""
    if share <= 0:
        return list(fused)
    best: dict[str | None, FusedHit] = {}
    second: dict[str | None, float] = {}
    for hit in fused:
        note = note_of(hit.chunk_id)
        if note not in best:
            best[note] = hit
        elif note not in second:
            second[note] = hit.score
    lifted = {best[note].chunk_id: best[note].score + share * score for note, score in second.items()}
    rescored = [replace(hit, score=lifted.get(hit.chunk_id, hit.score)) for hit in fused]
    return sorted(rescored, key=lambda hit: -hit.score)  # stable: equal scores keep the fused order
