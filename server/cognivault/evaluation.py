"""Measuring search quality on a graded question set: nDCG@10, Recall@5 and MRR per mode.

Question files are JSONL with ``id, lang, kind, question, relevant, grades``
(grades 2 = answers the question, 1 = answers part of it). Notes are ranked
by the rank of their best chunk. Scores are reported overall, per ``lang``
and per ``kind`` for the lexical, dense and hybrid modes, so a change to
tokenization or fusion can be judged by numbers.
"""

from __future__ import annotations

import json
import math
import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from cognivault.engine import SEARCH_MODES, Engine

NDCG_DEPTH = 10
RECALL_DEPTH = 5
MRR_DEPTH = 10


class QuestionFileError(ValueError):
    """A question file line is not valid JSON or lacks a required field."""


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


def _summarize(rows: list[dict[str, object]]) -> dict[str, object]:
    return {"n": len(rows), "ndcg@10": _mean(r["ndcg"] for r in rows),  # type: ignore[misc]
            "recall@5": _mean(r["recall"] for r in rows),  # type: ignore[misc]
            "mrr": _mean(r["mrr"] for r in rows)}  # type: ignore[misc]


def evaluate(engine: Engine, questions: Sequence[Question], modes: Sequence[str] = SEARCH_MODES,
             include_questions: bool = False) -> dict[str, object]:
    report: dict[str, object] = {"questions": len(questions), "embedding_model":
                                 engine.embedder.model_id if engine.embedder else None, "modes": {}}
    for mode in modes:
        rows: list[dict[str, object]] = []
        started = time.perf_counter()
        for question in questions:
            response = engine.search(question.question, k=max(NDCG_DEPTH, MRR_DEPTH), mode=mode,
                                     per_note=True)
            ranked = [result.path for result in response.results]
            rows.append({"id": question.id, "lang": question.lang, "kind": question.kind,
                         "ndcg": ndcg(ranked, question.grades), "recall": recall(ranked, question.grades),
                         "mrr": reciprocal_rank(ranked, question.grades), "top": ranked[:5]})
        by_lang: dict[str, list[dict[str, object]]] = defaultdict(list)
        by_kind: dict[str, list[dict[str, object]]] = defaultdict(list)
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
        report["modes"][mode] = summary  # type: ignore[index]
    return report
