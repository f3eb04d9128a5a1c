"""Measuring search quality on a graded question set: nDCG@10, Recall@5 and MRR per mode.

Question files are JSONL with ``id, lang, kind, question, relevant, grades``
(grades 2 = answers the question, 1 = answers part of it). Notes are ranked
by the rank of their best chunk. Scores are reported overall, per ``lang``,
per ``kind`` and (given a question's half) per half of the dev split for the
lexical, dense and hybrid modes, so a change to tokenization or fusion can be
judged by numbers.

:func:`cross_validate` chooses fusion parameters the honest way, over the
questions of several vaults together (:class:`EvalSet`): k-fold over questions
(folds balanced by vault and language, repeated with other shuffles), each
fold's questions scored with the parameters that did best on the other folds;
the mean of those held-out scores is the figure to report, never the score of
the parameters fitted to all questions. It also chooses on the dev split's
tuning halves and reports both halves.
"""

from __future__ import annotations

import json
import math
import random
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cognivault.engine import SEARCH_MODES, Engine
from cognivault.errors import CogniVaultError
from cognivault.index.hybrid import FusionWeights

NDCG_DEPTH = 10
RECALL_DEPTH = 5
MRR_DEPTH = 10
METRICS = {"ndcg@10": "ndcg", "recall@5": "recall", "mrr": "mrr"}  # reported figure -> a question row's key
NDCG_ONLY = {"ndcg@10": "ndcg"}  # what cross-validation scores


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


def _summarize(rows: list[dict[str, Any]], metrics: Mapping[str, str]) -> dict[str, float]:
    return {"n": len(rows), **{name: _mean(r[key] for r in rows) for name, key in metrics.items()}}


def _breakdown(rows: list[dict[str, Any]], metrics: Mapping[str, str] = METRICS) -> dict[str, Any]:
    """Overall, per language and per kind figures (``metrics``) of question rows."""
    by_lang: dict[str, list[dict[str, Any]]] = defaultdict(list)
    by_kind: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_lang[str(row["lang"])].append(row)
        by_kind[str(row["kind"])].append(row)
    return {"overall": _summarize(rows, metrics),
            "by_lang": {lang: _summarize(r, metrics) for lang, r in sorted(by_lang.items())},
            "by_kind": {kind: _summarize(r, metrics) for kind, r in sorted(by_kind.items())}}


def evaluate(engine: Engine, questions: Sequence[Question], modes: Sequence[str] = SEARCH_MODES,
             include_questions: bool = False, halves: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Each mode's figures overall, per language and per kind; ``halves`` (question id -> half, as
    ``bench/_common.question_halves`` deals them) adds the same figures per half (``by_half``)."""
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
        summary: dict[str, object] = {**_breakdown(rows), "seconds": round(time.perf_counter() - started, 3)}
        if halves is not None:
            by_half: dict[str, list[dict[str, Any]]] = defaultdict(list)
            for row in rows:
                by_half[halves.get(str(row["id"]), "?")].append(row)
            summary["by_half"] = {half: _breakdown(r) for half, r in sorted(by_half.items())}
        if include_questions:
            summary["per_question"] = [
                {k: (round(v, 4) if isinstance(v, float) else v) for k, v in row.items()} for row in rows]
        modes_report[mode] = summary
    return report


def _ranked_notes(engine: Engine, question: Question, mode: str, vector: np.ndarray | None) -> list[str]:
    response = engine.search(question.question, k=max(NDCG_DEPTH, MRR_DEPTH), mode=mode, per_note=True,
                             query_vector=vector)
    return [result.path for result in response.results]


@dataclass(frozen=True, slots=True)
class EvalSet:
    """A vault's graded questions, as one part of a cross-validation over several vaults."""

    name: str
    engine: Engine
    questions: Sequence[Question]
    halves: Mapping[str, str] = field(default_factory=dict)  # question id -> "tune" | "check"


def _query_vectors(engine: Engine, questions: Sequence[Question]) -> list[np.ndarray | None]:
    embedder = engine.embedder
    vectors: list[np.ndarray | None] = []
    for question in questions:
        try:
            vectors.append(embedder.embed_query(question.question) if embedder is not None else None)
        except Exception:  # noqa: BLE001 - a model that fails here fails in search too, and says so
            vectors.append(None)
    return vectors


def _grid_scores(eval_set: EvalSet, grid: Sequence[FusionWeights]) -> np.ndarray:
    """nDCG@10 of every question (columns) under every weighting of ``grid`` (rows)."""
    engine = eval_set.engine
    vectors = _query_vectors(engine, eval_set.questions)
    original = engine.weights
    scores = np.zeros((len(grid), len(eval_set.questions)))
    try:
        for row, weights in enumerate(grid):
            engine.weights = weights
            for column, question in enumerate(eval_set.questions):
                scores[row, column] = ndcg(_ranked_notes(engine, question, "hybrid", vectors[column]),
                                           question.grades)
    finally:
        engine.weights = original
    return scores


def cross_validate(sets: Sequence[EvalSet], grid: Sequence[FusionWeights], folds: int = 5, repeats: int = 4,
                   seed: int = 7) -> dict[str, object]:
    """Held-out hybrid nDCG@10 of choosing the fusion weights from ``grid`` over the questions of all
    ``sets`` together (see the module docstring), reported per set, language and kind.

    Two protocols: k-fold (folds balanced by set and language, repeated with other shuffles), and
    the dev split (weights chosen on every set's ``tune`` half, reported on both halves).
    ``grid[0]`` wins ties (put the current defaults first). The engines' weights are restored
    afterwards; the report names the weights chosen on all questions (what to ship) and how often
    each was chosen across folds."""
    scores = np.concatenate([_grid_scores(eval_set, grid) for eval_set in sets], axis=1)
    columns = [(eval_set, question) for eval_set in sets for question in eval_set.questions]
    by_group: dict[str, list[int]] = defaultdict(list)
    for column, (eval_set, question) in enumerate(columns):
        by_group[f"{eval_set.name}/{question.lang}"].append(column)
    held_out = np.zeros((repeats, len(columns)))
    chosen: Counter[int] = Counter()
    rng = random.Random(seed)
    for repeat in range(repeats):
        fold_of = np.zeros(len(columns), int)
        for members in by_group.values():  # each vault's languages spread evenly over the folds
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
    tune = np.array([eval_set.halves.get(question.id) == "tune" for eval_set, question in columns])
    tuned = int(np.argmax(scores[:, tune].mean(axis=1))) if tune.any() else 0

    def figures(values: np.ndarray, picked: Callable[[EvalSet, Question], bool] = lambda *_: True
                ) -> dict[str, object]:
        """Per set: overall, per language, per kind (``values`` averaged over any leading axis)."""
        per_question = values.reshape(-1, len(columns)).mean(axis=0)
        report: dict[str, object] = {}
        for eval_set in sets:
            rows = [{"lang": question.lang, "kind": question.kind, "ndcg": float(per_question[column])}
                    for column, (owner, question) in enumerate(columns)
                    if owner is eval_set and picked(owner, question)]
            report[eval_set.name] = _breakdown(rows, NDCG_ONLY)
        return report

    def in_half(half: str) -> Callable[[EvalSet, Question], bool]:
        return lambda eval_set, question: eval_set.halves.get(question.id) == half

    return {
        "folds": folds, "repeats": repeats, "grid_size": len(grid),
        "cross_validated": figures(held_out),
        "tune_check": {"weights": asdict(grid[tuned]),
                       "tune": figures(scores[tuned], in_half("tune")),
                       "check": figures(scores[tuned], in_half("check"))},
        "defaults": {"weights": asdict(grid[0]), **figures(scores[0])},
        "fitted_on_all": {"weights": asdict(grid[fitted]), **figures(scores[fitted])},
        "chosen_in_folds": [{"weights": asdict(grid[index]), "times": times}
                            for index, times in chosen.most_common()],
    }
