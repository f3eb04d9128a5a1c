"""Measuring search quality on a graded question set: nDCG@10, Recall@5 and MRR per mode.

Question files are JSONL with ``id, lang, kind, question, relevant, grades``
(grades 2 = answers the question, 1 = answers part of it). Notes are ranked
by the rank of their best chunk. Scores are reported overall, per ``lang``
and per ``kind`` for the lexical, dense and hybrid modes, so a change to
tokenization or fusion can be judged by numbers.

:func:`cross_validate` chooses fusion parameters the honest way: k-fold over
questions (folds balanced by language, repeated with other shuffles), each
fold's questions scored with the parameters that did best on the other folds;
the mean of those held-out scores is the figure to report, never the score of
the parameters fitted to all questions.
"""

from __future__ import annotations

import json
import math
import random
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cognivault.engine import SEARCH_MODES, Engine
from cognivault.errors import CogniVaultError
from cognivault.index.hybrid import FusionWeights

NDCG_DEPTH = 10
RECALL_DEPTH = 5
MRR_DEPTH = 10


class QuestionFileError(CogniVaultError, ValueError):
    """A question file line is not valid JSON or lacks a required field."""

    code = "bad_question_file"


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    lang: str
    kind: str
    question: str
    grades: dict[str, int]


def load_questions(path: Path) -> list[Question]:
    questions = []
    for number, line in enumerate(path.read_text("utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            grades = data.get("grades") or {p: 1 for p in data["relevant"]}
            for relevant in data.get("relevant", []):
                grades.setdefault(relevant, 1)
            questions.append(Question(str(data["id"]), str(data.get("lang", "?")),
                                      str(data.get("kind", "?")), str(data["question"]),
                                      {str(k): int(v) for k, v in grades.items()}))
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise QuestionFileError(f"{path}:{number}: {exc}") from exc
    return questions


def ndcg(ranked: Sequence[str], grades: dict[str, int], depth: int = NDCG_DEPTH) -> float:
    dcg = sum((2 ** grades.get(path, 0) - 1) / math.log2(rank + 1)
              for rank, path in enumerate(ranked[:depth], start=1))
    ideal = sorted(grades.values(), reverse=True)[:depth]
    idcg = sum((2 ** g - 1) / math.log2(rank + 1) for rank, g in enumerate(ideal, start=1))
    return dcg / idcg if idcg > 0 else 0.0


def recall(ranked: Sequence[str], grades: dict[str, int], depth: int = RECALL_DEPTH) -> float:
    relevant = {p for p, g in grades.items() if g > 0}
    return len(relevant & set(ranked[:depth])) / len(relevant) if relevant else 0.0


def reciprocal_rank(ranked: Sequence[str], grades: dict[str, int], depth: int = MRR_DEPTH) -> float:
    for rank, path in enumerate(ranked[:depth], start=1):
        if grades.get(path, 0) > 0:
            return 1.0 / rank
    return 0.0


def _mean(values: Iterable[float]) -> float:
    values = list(values)
    return round(sum(values) / len(values), 4) if values else 0.0


def _summarize(rows: list[dict[str, Any]]) -> dict[str, float]:
    return {"n": len(rows), "ndcg@10": _mean(r["ndcg"] for r in rows),
            "recall@5": _mean(r["recall"] for r in rows),
            "mrr": _mean(r["mrr"] for r in rows)}


def evaluate(engine: Engine, questions: Sequence[Question], modes: Sequence[str] = SEARCH_MODES,
             include_questions: bool = False) -> dict[str, Any]:
    modes_report: dict[str, dict[str, object]] = {}
    report: dict[str, Any] = {"questions": len(questions), "embedding_model":
                              engine.embedder.model_id if engine.embedder else None, "modes": modes_report}
    for mode in modes:
        rows: list[dict[str, Any]] = []
        started = time.perf_counter()
        for question in questions:
            response = engine.search(question.question, k=max(NDCG_DEPTH, MRR_DEPTH), mode=mode,
                                     per_note=True)
            ranked = [result.path for result in response.results]
            rows.append({"id": question.id, "lang": question.lang, "kind": question.kind,
                         "ndcg": ndcg(ranked, question.grades), "recall": recall(ranked, question.grades),
                         "mrr": reciprocal_rank(ranked, question.grades), "top": ranked[:5]})
        by_lang: dict[str, list[dict[str, Any]]] = defaultdict(list)
        by_kind: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for row in rows:
            by_lang[str(row["lang"])].append(row)
            by_kind[str(row["kind"])].append(row)
        summary: dict[str, object] = {
            "overall": _summarize(rows),
            "by_lang": {lang: _summarize(r) for lang, r in sorted(by_lang.items())},
            "by_kind": {kind: _summarize(r) for kind, r in sorted(by_kind.items())},
            "seconds": round(time.perf_counter() - started, 3),
        }
        if include_questions:
            summary["per_question"] = [
                {k: (round(v, 4) if isinstance(v, float) else v) for k, v in row.items()} for row in rows]
        modes_report[mode] = summary
    return report


def _ranked_notes(engine: Engine, question: Question, mode: str, vector: np.ndarray | None) -> list[str]:
    response = engine.search(question.question, k=max(NDCG_DEPTH, MRR_DEPTH), mode=mode, per_note=True,
                             query_vector=vector)
    return [result.path for result in response.results]


def cross_validate(engine: Engine, questions: Sequence[Question], grid: Sequence[FusionWeights],
                   folds: int = 5, repeats: int = 4, seed: int = 7) -> dict[str, object]:
    """Cross-validated hybrid nDCG@10 of choosing the fusion weights from ``grid`` (see the module
    docstring). ``grid[0]`` wins ties (put the current defaults first). The engine's weights are
    restored afterwards; the report names the weights chosen on all questions (what to ship) and
    how often each was chosen across folds."""
    vectors: dict[str, np.ndarray | None] = {}
    embedder = engine.embedder
    for question in questions:
        try:
            vectors[question.id] = embedder.embed_query(question.question) if embedder is not None else None
        except Exception:  # noqa: BLE001 - a model that fails here fails in search too, and says so
            vectors[question.id] = None
    original = engine.weights
    scores = np.zeros((len(grid), len(questions)))
    try:
        for row, weights in enumerate(grid):
            engine.weights = weights
            for column, question in enumerate(questions):
                ranked = _ranked_notes(engine, question, "hybrid", vectors[question.id])
                scores[row, column] = ndcg(ranked, question.grades)
    finally:
        engine.weights = original
    held_out = np.zeros((repeats, len(questions)))
    chosen: Counter[int] = Counter()
    by_lang: dict[str, list[int]] = defaultdict(list)
    for column, question in enumerate(questions):
        by_lang[question.lang].append(column)
    rng = random.Random(seed)
    for repeat in range(repeats):
        fold_of = np.zeros(len(questions), int)
        for members in by_lang.values():  # each language spread evenly over the folds
            shuffled = list(members)
            rng.shuffle(shuffled)
            offset = rng.randrange(folds)
            for position, column in enumerate(shuffled):
                fold_of[column] = (position + offset) % folds
        for fold in range(folds):
            train, test = fold_of != fold, fold_of == fold
            best = int(np.argmax(scores[:, train].mean(axis=1)))  # the first of equals: grid order
            chosen[best] += 1
            held_out[repeat, test] = scores[best, test]
    fitted = int(np.argmax(scores.mean(axis=1)))

    def summary(columns: Sequence[int], values: np.ndarray) -> dict[str, float]:
        return {"n": len(columns), "ndcg@10": round(float(values[..., columns].mean()), 4)}

    everyone = list(range(len(questions)))
    return {
        "folds": folds, "repeats": repeats, "grid_size": len(grid),
        "cross_validated": {"overall": summary(everyone, held_out),
                            "by_lang": {lang: summary(cols, held_out) for lang, cols in sorted(by_lang.items())}},
        "defaults": {"weights": asdict(grid[0]), "overall": summary(everyone, scores[0]),
                     "by_lang": {lang: summary(cols, scores[0]) for lang, cols in sorted(by_lang.items())}},
        "fitted_on_all": {"weights": asdict(grid[fitted]), "overall": summary(everyone, scores[fitted]),
                          "by_lang": {lang: summary(cols, scores[fitted]) for lang, cols in sorted(by_lang.items())}},
        "chosen_in_folds": [{"weights": asdict(grid[index]), "times": times}
                            for index, times in chosen.most_common()],
    }
