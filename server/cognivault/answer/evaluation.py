"""Measuring answers: are they cited, cite the right notes, and honest when the vault has no answer?

For answerable questions (JSONL with ``question`` and ``relevant`` note paths):
- ``cited_share``: answers with at least one accepted citation;
- ``cited_note_precision``: of all notes cited, the share among the question's relevant notes;
- ``relevant_cited_share``: answers citing at least one relevant note;
- ``citation_acceptance``: citations kept by the check / citations the model wrote (occurrences).
For unanswerable questions (JSONL with ``question``, optional ``kind``):
- ``honest_share``: answers that say the vault doesn't cover it (no accepted citation,
  or the honest phrase), overall and per kind; and the confidence labels given.
The whole pipeline runs per question (no cache, no session), with any provider.
"""

from __future__ import annotations

import json
import re
import statistics
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cognivault.answer.pipeline import stream_answer
from cognivault.answer.request import AskRequest
from cognivault.answer.sessions import SessionStore

HONEST = re.compile(r"vault (?:doesn't|does not) say|not in (?:the|your) vault|steht nichts im vault|"
                    r"the notes do not (?:cover|say)|nichts (?:dazu )?in (?:deinen|den) notizen", re.IGNORECASE)


class AnswerQuestionError(ValueError):
    """A question file cannot be read."""


def load_jsonl(path: Path) -> list[dict[str, Any]]:
    rows = []
    for number, line in enumerate(Path(path).read_text("utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise AnswerQuestionError(f"{path}:{number}: {exc}") from exc
        if not isinstance(row, dict) or not isinstance(row.get("question"), str):
            raise AnswerQuestionError(f"{path}:{number}: each line needs a \"question\"")
        rows.append(row)
    return rows


def is_honest(done: dict[str, Any]) -> bool:
    return not done.get("answered") or bool(HONEST.search(done.get("answer", "")))


async def run_question(engine: Any, provider: Any, question: str) -> dict[str, Any]:
    """The ``done`` (or ``error``) data of one full pipeline run, with ``"error"`` set on failure."""
    started = time.perf_counter()
    last: dict[str, Any] = {}
    confidence = None
    async for envelope in stream_answer(engine, AskRequest(question, use_cache=False), provider,
                                        SessionStore(None), cache=None):
        if envelope["type"] == "confidence":
            confidence = envelope["data"]["label"]
        if envelope["type"] in ("done", "error"):
            last = dict(envelope["data"])
            if envelope["type"] == "error":
                last["error"] = True
    last.setdefault("confidence", confidence)
    last["wall_ms"] = round((time.perf_counter() - started) * 1000, 2)
    return last


def _percentile(values: Sequence[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))], 2)


async def evaluate_answers(engine: Any, provider: Any, questions: Sequence[dict[str, Any]],
                           unanswerable: Sequence[dict[str, Any]] = (), per_question: bool = False
                           ) -> dict[str, Any]:
    report: dict[str, Any] = {"provider": provider.name, "model": provider.model}
    rows: list[dict[str, Any]] = []
    latencies: list[float] = []
    if questions:
        cited = relevant_cited = errors = 0
        notes_cited = notes_relevant = accepted = claimed = 0
        confidence: Counter[str] = Counter()
        by_lang: dict[str, list[bool]] = defaultdict(list)
        for row in questions:
            done = await run_question(engine, provider, row["question"])
            latencies.append(done["wall_ms"])
            relevant = set(row.get("relevant") or row.get("grades", {}) or [])
            if done.get("error"):
                errors += 1
                rows.append({"id": row.get("id"), "error": done.get("code"), "message": done.get("message")})
                continue
            paths = list(dict.fromkeys(s["path"] for s in done.get("sources", [])))
            hit = bool(set(paths) & relevant)
            cited += bool(done.get("citations"))
            relevant_cited += hit
            notes_cited += len(paths)
            notes_relevant += len(set(paths) & relevant)
            accepted += int(done.get("accepted_citations", len(done.get("citations", []))))
            claimed += int(done.get("claimed_citations", 0))
            confidence[str(done.get("confidence"))] += 1
            by_lang[str(row.get("lang", "?"))].append(hit)
            if per_question:
                rows.append({"id": row.get("id"), "question": row["question"], "answered": done.get("answered"),
                             "confidence": done.get("confidence"), "cited_notes": paths,
                             "relevant_cited": hit, "answer": done.get("answer")})
        total = len(questions)
        report["answerable"] = {
            "questions": total,
            "errors": errors,
            "cited_share": round(cited / total, 4),
            "relevant_cited_share": round(relevant_cited / total, 4),
            "cited_note_precision": round(notes_relevant / notes_cited, 4) if notes_cited else 0.0,
            "citation_acceptance": round(accepted / claimed, 4) if claimed else 1.0,
            "confidence": dict(confidence),
            "relevant_cited_by_lang": {lang: round(sum(v) / len(v), 4) for lang, v in sorted(by_lang.items())},
        }
    if unanswerable:
        honest = errors = 0
        labels: Counter[str] = Counter()
        by_kind: dict[str, list[bool]] = defaultdict(list)
        for row in unanswerable:
            done = await run_question(engine, provider, row["question"])
            latencies.append(done["wall_ms"])
            if done.get("error"):
                errors += 1
                rows.append({"id": row.get("id"), "error": done.get("code"), "message": done.get("message")})
                continue
            ok = is_honest(done)
            honest += ok
            labels[str(done.get("confidence"))] += 1
            by_kind[str(row.get("kind", "?"))].append(ok)
            if per_question:
                rows.append({"id": row.get("id"), "question": row["question"], "honest": ok,
                             "confidence": done.get("confidence"), "answer": done.get("answer")})
        total = len(unanswerable)
        report["unanswerable"] = {
            "questions": total,
            "errors": errors,
            "honest_share": round(honest / total, 4),
            "honest_by_kind": {kind: round(sum(v) / len(v), 4) for kind, v in sorted(by_kind.items())},
            "confidence": dict(labels),
            "high_confidence_share": round(labels.get("high", 0) / total, 4),
        }
    report["latency_ms"] = {"p50": _percentile(latencies, 0.5), "p95": _percentile(latencies, 0.95),
                            "mean": round(statistics.fmean(latencies), 2) if latencies else 0.0}
    if per_question:
        report["per_question"] = rows
    return report
