"""Measuring answers: are they cited, cite the right notes, and honest when the vault has no answer?

For answerable questions (JSONL with ``question`` and ``relevant`` note paths):
- ``cited_share``: answers with at least one accepted citation;
- ``cited_note_precision``: of all notes cited, the share among the question's relevant notes;
- ``relevant_cited_share``: answers citing at least one relevant note;
- ``citation_acceptance``: citations kept by the check / citations the model wrote (occurrences).
For unanswerable questions (JSONL with ``question``, optional ``kind``):
- ``honest_share``: answers that say the vault doesn't cover it (no accepted citation,
  or the honest phrase), overall and per kind; and the confidence labels given.
With answer nuggets (``--nuggets``: JSONL ``{"id", "nuggets": [[alternative, ...], ...]}``, the
format of the shared eval set), what the answers actually state, overall and per language:
- ``all_nuggets_share``: answers stating every nugget of their question;
- ``nugget_recall``: mean share of a question's nuggets stated;
- ``false_refusals``: answerable questions answered "not in the vault";
- ``mean_answer_chars``: mean answer length;
- ``reliability``: per confidence label, how many answers carry it and the share of them stating all
  nuggets (what a label is worth).
A nugget is stated when any alternative occurs in the answer text, case-insensitive, with
whitespace collapsed to one space and citation markers left in.
The whole pipeline runs per question (no cache, no session), with any provider.
"""

from __future__ import annotations

import json
import statistics
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from cognivault.answer.extractive import says_not_in_vault
from cognivault.answer.pipeline import stream_answer
from cognivault.answer.request import AskRequest
from cognivault.answer.sessions import SessionStore
from cognivault.errors import CogniVaultError


class AnswerQuestionError(CogniVaultError, ValueError):
    """A question file cannot be read."""

    code = "bad_question_file"


def _rows(path: Path, valid: Callable[[Any], bool], needs: str) -> list[dict[str, Any]]:
    """The JSON objects of a JSONL file, each checked by ``valid`` (else an error naming what it ``needs``)."""
    rows = []
    for number, line in enumerate(Path(path).read_text("utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise AnswerQuestionError(f"{path}:{number}: {exc}") from exc
        if not isinstance(row, dict) or not valid(row):
            raise AnswerQuestionError(f"{path}:{number}: each line needs {needs}")
        rows.append(row)
    return rows


def load_jsonl(path: Path) -> list[dict[str, Any]]:
    return _rows(path, lambda row: isinstance(row.get("question"), str), 'a "question"')


def _valid_nuggets(row: dict[str, Any]) -> bool:
    nuggets = row.get("nuggets")
    return "id" in row and isinstance(nuggets, list) and all(
        isinstance(n, list) and n and all(isinstance(a, str) for a in n) for n in nuggets)


def load_nuggets(path: Path) -> dict[str, list[list[str]]]:
    """Question id -> its nuggets (each a list of alternatives) from a nugget JSONL file."""
    rows = _rows(path, _valid_nuggets, '"id" and "nuggets" (a list of lists of strings)')
    return {str(row["id"]): row["nuggets"] for row in rows}


def _comparable(text: str) -> str:
    return " ".join(text.split()).casefold()


def nuggets_stated(answer: str, nuggets: Sequence[Sequence[str]]) -> list[bool]:
    """For each nugget, whether ``answer`` states it (any alternative, case- and whitespace-insensitive)."""
    said = _comparable(answer)
    return [any(_comparable(alternative) in said for alternative in nugget) for nugget in nuggets]


def reliability_table(rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Confidence label -> answers with it and the share of them that state all their nuggets."""
    table: dict[str, dict[str, Any]] = {}
    for label in ("high", "medium", "low"):
        given = [row for row in rows if row.get("confidence") == label and "all_nuggets" in row]
        table[label] = {"answers": len(given),
                        "all_nuggets_share": round(sum(r["all_nuggets"] for r in given) / len(given), 4)
                        if given else None}
    return table


def _nugget_summary(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    scored = [row for row in rows if "all_nuggets" in row]
    if not scored:
        return {"questions": 0}
    refused = sum(not row["answered"] for row in scored)
    return {"questions": len(scored),
            "all_nuggets_share": round(statistics.fmean(r["all_nuggets"] for r in scored), 4),
            "nugget_recall": round(statistics.fmean(r["nugget_recall"] for r in scored), 4),
            "false_refusals": refused, "false_refusal_share": round(refused / len(scored), 4),
            "mean_answer_chars": round(statistics.fmean(r["answer_chars"] for r in scored), 1)}


def nugget_report(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The nugget metrics of scored answer rows: overall, per language, and the reliability table."""
    by_lang: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_lang[str(row.get("lang", "?"))].append(row)
    return {"overall": _nugget_summary(rows),
            "by_lang": {lang: _nugget_summary(group) for lang, group in sorted(by_lang.items())},
            "reliability": reliability_table(rows)}


def is_honest(done: dict[str, Any]) -> bool:
    return not done.get("answered") or says_not_in_vault(done.get("answer", ""))


async def run_question(engine: Any, provider: Any, question: str) -> dict[str, Any]:
    """The ``done`` (or ``error``) data of one full pipeline run, with ``"error"`` set on failure.

    ``confidence_detail`` is the last ``confidence`` envelope's data (the rule's measures, capped by what
    the answer cites).
    """
    started = time.perf_counter()
    last: dict[str, Any] = {}
    detail: dict[str, Any] = {}
    async for envelope in stream_answer(engine, AskRequest(question, use_cache=False), provider,
                                        SessionStore(None), cache=None):
        if envelope["type"] == "confidence":
            detail = dict(envelope["data"])
        if envelope["type"] in ("done", "error"):
            last = dict(envelope["data"])
            if envelope["type"] == "error":
                last["error"] = True
    last.setdefault("confidence", detail.get("label"))
    last["confidence_detail"] = detail
    last["wall_ms"] = round((time.perf_counter() - started) * 1000, 2)
    return last


def _measures(done: dict[str, Any]) -> dict[str, Any]:
    """The confidence rule's numbers for one answer (what a calibration can re-threshold)."""
    detail = done.get("confidence_detail") or {}
    return {key: detail[key] for key in ("coverage", "best", "keyword_coverage", "similarity", "unknown_share",
                                         "answer_share", "lead_share", "block_share", "kind_stated", "kind_refused")
            if key in detail}


def _percentile(values: Sequence[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))], 2)


async def evaluate_answers(engine: Any, provider: Any, questions: Sequence[dict[str, Any]],
                           unanswerable: Sequence[dict[str, Any]] = (), per_question: bool = False,
                           nuggets: dict[str, list[list[str]]] | None = None) -> dict[str, Any]:
    """The answer metrics (see the module doc); ``nuggets`` by question id adds the nugget metrics."""
    report: dict[str, Any] = {"provider": provider.name, "model": provider.model}
    rows: list[dict[str, Any]] = []
    scored: list[dict[str, Any]] = []
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
            entry = {"id": row.get("id"), "lang": row.get("lang", "?"), "question": row["question"],
                     "answered": not is_honest(done),
                     "confidence": done.get("confidence"), "measures": _measures(done),
                     "cited_notes": paths, "relevant_cited": hit, "answer": done.get("answer", ""),
                     "answer_chars": len(done.get("answer", ""))}
            wanted = nuggets.get(str(row.get("id"))) if nuggets is not None else None
            if wanted:
                stated = nuggets_stated(entry["answer"], wanted)
                entry.update({"nuggets_stated": sum(stated), "nuggets": len(stated),
                              "nugget_recall": sum(stated) / len(stated), "all_nuggets": all(stated)})
                scored.append(entry)
            if per_question:
                rows.append(entry)
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
        if nuggets is not None:
            report["nuggets"] = nugget_report(scored)
            report["nuggets"]["unmatched_questions"] = len(questions) - errors - len(scored)
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
                rows.append({"id": row.get("id"), "lang": row.get("lang", "?"), "question": row["question"],
                             "honest": ok, "confidence": done.get("confidence"), "measures": _measures(done),
                             "answer": done.get("answer")})
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
