"""Answer quality on both dev vaults: facts stated (nuggets), refusals, length, and what a label is worth.

Runs ``eval-answers`` (``cognivault.answer.evaluation``) on the help vault (its dev questions, answer
nuggets and unanswerable questions) and on the student vault (questions with their nuggets inline,
unanswerable questions of two kinds: near-miss and off-topic), for one chat provider (default:
extractive, no model). Every question is in one half of its set (``_common.question_halves``): what is
chosen here is chosen on the ``tune`` halves of both vaults together and reported on both halves.
Prints one JSON document:

- ``figures``: per vault and half (``tune``, ``check``, ``all``): the all-nuggets share, nugget recall,
  false refusals and mean answer length, overall, per language and per kind of question, the
  reliability table (confidence label -> answers, share stating all nuggets), and the unanswerable
  questions refused ("the vault doesn't say"), per kind;
- ``calibration``: the thresholds of ``high`` (``confidence.HighRule``: the least ``answer_share``, the
  share of the question the quoted passages state, and ``lead_share``, the share the first quote
  states): the pair labelling the most tune answers ``high`` whose ``high`` answers state all nuggets at
  least ``--target`` of the time counting one more miss, next to the one the code ships
  (``confidence.HIGH_RULE``), and the reliability table it gives per vault and half;
- ``refusal``: the refusal thresholds (``evidence.NAME_WEIGHT``: what a name counts for in the
  off-topic share; ``confidence.OFF_TOPIC_SHARE``: the share of a question's weight in words the
  vault never uses; ``extractive.ANSWER_FLOOR``: the least share of the question the quoted
  passages must state) chosen on the tune halves (the triple refusing the most unanswerable
  questions with the fewest false refusals, at most 5 %; among those, the off-topic share farthest
  from every question's share), next to the shipped ones, with the false refusals and unanswerable
  questions refused it gives per vault and half (a refusal the thresholds do not govern stays one: a
  question asking for a kind of answer no passage gives, a near-miss whose asked entity no quote names);
- ``selection`` (with ``--select``): the parameters of which blocks the answer quotes
  (``extractive.NOTE_WEIGHT``, ``extractive.COMPLETING_SHARE``, ``extractive.LINK_SHARE``): the answers
  are run once per setting of ``SELECTION_GRID``, and the setting whose tune answers state all nuggets
  most often (on a tie, the first in the grid) is reported with its all-nuggets share per vault and half;
- ``targets``: the issue's targets, on each vault's check half.

Keyword retrieval unless ``--embedded`` (the vaults are read-only: their indexes go to a
benchmark-private cache).

    .venv/bin/python bench/bench_answer_quality.py [--vaults help student] [--embedded] [--select] [--per-question]
"""

from __future__ import annotations

import argparse
import asyncio
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from _common import (
    HALVES,
    HELP_VAULT,
    NUGGETS,
    QUESTIONS,
    STUDENT_QUESTIONS,
    STUDENT_UNANSWERABLE,
    STUDENT_VAULT,
    UNANSWERABLE,
    emit,
    isolate_cache,
    question_halves,
)

ANSWER_GRID = [round(0.4 + 0.025 * step, 3) for step in range(25)]  # answer_share thresholds 0.4 .. 1.0
LEAD_GRID = [round(0.05 * step, 2) for step in range(21)]  # lead_share thresholds 0.0 .. 1.0
LABELS = ("high", "medium", "low")


def high_rule(answer: float, lead: float) -> Any:
    from cognivault.answer.confidence import HIGH_RULE, HighRule

    return HighRule(answer=answer, lead=lead, block=HIGH_RULE.block)


def label_with(row: dict[str, Any], rule: Any) -> str:
    """The label ``row``'s answer gets when ``rule`` decides ``high`` (the coverage rule's medium and low
    stay as they are: the rule only promotes to or demotes from ``high``)."""
    if not row["answered"] or row["confidence"] == "low":
        return "low"
    return "high" if rule.holds(row["measures"]) else "medium"


def high_share(rows: list[dict[str, Any]], rule: Any) -> tuple[int, int]:
    """(answers labelled high by ``rule``, of those stating all nuggets)."""
    high = [row for row in rows if label_with(row, rule) == "high"]
    return len(high), sum(row["all_nuggets"] for row in high)


def choose_rule(rows: list[dict[str, Any]], target: float, min_answers: int = 3) -> tuple[float, float]:
    """The (answer_share, lead_share) thresholds labelling the most answers ``high`` whose ``high`` answers
    would still state all nuggets ``target`` of the time with one more miss (``good / (count + 1)``: a
    bucket of a dozen answers is not trusted to its last answer); on a tie, the stricter thresholds."""
    best, best_key = (ANSWER_GRID[-1], LEAD_GRID[-1]), (-1, 0.0, 0.0)
    for answer in ANSWER_GRID:
        for lead in LEAD_GRID:
            count, good = high_share(rows, high_rule(answer, lead))
            if count >= min_answers and good / (count + 1) >= target and (count, answer, lead) > best_key:
                best, best_key = (answer, lead), (count, answer, lead)
    return best


def reliability(labelled: list[tuple[str, bool]]) -> dict[str, dict[str, Any]]:
    """Label -> answers with it and the share of them stating all nuggets."""
    table = {}
    for label in LABELS:
        given = [good for name, good in labelled if name == label]
        table[label] = {"answers": len(given),
                        "all_nuggets_share": round(sum(given) / len(given), 4) if given else None}
    return table


OFF_TOPIC_GRID = [round(0.2 + 0.05 * step, 2) for step in range(13)]  # unknown_share 0.2 .. 0.8
FLOOR_GRID = [round(0.05 * step, 2) for step in range(9)]  # answer_share 0.0 .. 0.4
NAME_WEIGHT_GRID = (1.0, 1.5, 2.0, 3.0)  # what a name counts for in the off-topic share (1: a word like any)
Thresholds = tuple[float, float, float]  # (NAME_WEIGHT, OFF_TOPIC_SHARE, ANSWER_FLOOR)


def off_topic_shares(engine: Any, questions: list[dict[str, Any]]) -> dict[str, dict[float, float]]:
    """Each question's off-topic share (``EvidencePack.unknown_share``) under each name weight of the grid."""
    from cognivault.answer import evidence
    from cognivault.answer.retrieval import build_pack

    shipped = evidence.NAME_WEIGHT
    shares: dict[str, dict[float, float]] = {question["id"]: {} for question in questions}
    try:
        for weight in NAME_WEIGHT_GRID:
            evidence.NAME_WEIGHT = weight
            for question in questions:
                shares[question["id"]][weight] = round(build_pack(engine, question["question"])[0].unknown_share, 3)
    finally:
        evidence.NAME_WEIGHT = shipped
    return shares


def off_topic_share(row: dict[str, Any], name_weight: float) -> float:
    """The row's off-topic share under ``name_weight`` (as answered, where the row has no shares by weight)."""
    by_weight = row.get("off_topic_shares")
    return by_weight[name_weight] if by_weight else row["measures"].get("unknown_share", 0.0)


def refused(row: dict[str, Any], thresholds: Thresholds) -> bool:
    """Whether the answer is refused with these thresholds (refusals for other reasons stay as they were)."""
    from cognivault.answer.confidence import OFF_TOPIC_SHARE
    from cognivault.answer.extractive import ANSWER_FLOOR

    name_weight, off_topic, floor = thresholds
    stated = row["measures"].get("answer_share")
    was_refused = not row["answered"] if "answered" in row else row["honest"]
    by_rule = row["measures"].get("unknown_share", 0.0) >= OFF_TOPIC_SHARE or \
        (stated is not None and stated < ANSWER_FLOOR)
    # asked for a kind of answer no passage gives ("how many users": no number): refused whatever the
    # thresholds, though what its quotes would state may also fall under the floor
    by_kind = row["measures"].get("kind_refused", False)
    return off_topic_share(row, name_weight) >= off_topic or (stated is not None and stated < floor) or \
        (was_refused and (by_kind or not by_rule))


def choose_refusal(answerable: list[dict[str, Any]], unanswerable: list[dict[str, Any]]) -> Thresholds:
    """The thresholds refusing the most unanswerable questions with the fewest false refusals (at most 5 %);
    on a tie, the off-topic share farthest from every question's share (the middle of the gap between what
    is answered and what is refused, so a held-out question just past the training ones still falls on its
    side), then the lower name weight and the higher floor (precision first: of thresholds as good on the
    tune questions, the one refusing more of what states little of an unseen question)."""
    best: Thresholds = (NAME_WEIGHT_GRID[0], OFF_TOPIC_GRID[-1], FLOOR_GRID[0])
    best_key: tuple[float, ...] = (-1, 0, 0.0, 0.0, 0.0)
    rows = answerable + unanswerable
    for name_weight in NAME_WEIGHT_GRID:
        for off_topic in OFF_TOPIC_GRID:
            margin = round(min(abs(off_topic_share(row, name_weight) - off_topic) for row in rows), 3)
            for floor in FLOOR_GRID:
                thresholds = (name_weight, off_topic, floor)
                false = sum(refused(row, thresholds) for row in answerable)
                if false > 0.05 * len(answerable):
                    continue
                key = (sum(refused(row, thresholds) for row in unanswerable), -false, margin, -name_weight, floor)
                if key > best_key:
                    best, best_key = thresholds, key
    return best


SELECTION_GRID = [(note, completing, link) for note in (0.0, 0.5, 1.0) for completing in (0.1, 0.15, 0.2, 0.25)
                  for link in (0.5, 1.0)]
Selection = tuple[float, float, float]  # (NOTE_WEIGHT, COMPLETING_SHARE, LINK_SHARE)


@contextmanager
def selection(setting: Selection) -> Iterator[None]:
    """The extractive answerer with these block-selection parameters, for the time of the block."""
    from cognivault.answer import extractive

    shipped = shipped_selection()
    extractive.NOTE_WEIGHT, extractive.COMPLETING_SHARE, extractive.LINK_SHARE = setting
    try:
        yield
    finally:
        extractive.NOTE_WEIGHT, extractive.COMPLETING_SHARE, extractive.LINK_SHARE = shipped


def shipped_selection() -> Selection:
    from cognivault.answer import extractive

    return extractive.NOTE_WEIGHT, extractive.COMPLETING_SHARE, extractive.LINK_SHARE


def choose_selection(stated: dict[Selection, dict[str, bool]], ids: set[str]) -> Selection:
    """The setting whose answers to ``ids`` state all nuggets most often (a tie: the first in the grid, so the
    choice never leans on what ships)."""
    scores = {setting: sum(by_id[qid] for qid in ids) for setting, by_id in stated.items()}
    best = max(scores.values())
    return next(setting for setting in SELECTION_GRID if scores[setting] == best)


VaultSet = tuple[Path, Path, Path, Path]  # (vault, questions, nuggets, unanswerable)
VAULTS: dict[str, VaultSet] = {
    "help": (HELP_VAULT, QUESTIONS, NUGGETS, UNANSWERABLE),
    "student": (STUDENT_VAULT, STUDENT_QUESTIONS, STUDENT_QUESTIONS, STUDENT_UNANSWERABLE),  # nuggets inline
}


async def answer_vault(name: str, args: argparse.Namespace) -> dict[str, Any]:
    """One vault's answers, each row tagged with its vault and half (and, with ``--select``, whether each
    selection setting's answer states all nuggets)."""
    from cognivault.answer.evaluation import evaluate_answers, load_jsonl, load_nuggets
    from cognivault.engine import Engine
    from cognivault.models.chat import resolve_chat_provider

    vault, questions_path, nuggets_path, unanswerable_path = VAULTS[name]
    questions, unanswerable = load_jsonl(questions_path), load_jsonl(unanswerable_path)
    nuggets = load_nuggets(nuggets_path)
    half = {**question_halves(questions), **question_halves(unanswerable)}
    with Engine(vault, embedder="auto" if args.embedded else None) as engine:
        engine.index()
        provider, note = await resolve_chat_provider(engine.settings, args.provider, args.model,
                                                     embedder=engine.embedder)
        try:
            report = await evaluate_answers(engine, provider, questions, unanswerable, per_question=True,
                                            nuggets=nuggets)
            shares = off_topic_shares(engine, questions + unanswerable)
            stated: dict[Selection, dict[str, bool]] = {}
            for setting in SELECTION_GRID if args.select else ():
                with selection(setting):
                    runs = await evaluate_answers(engine, provider, questions, per_question=True, nuggets=nuggets)
                stated[setting] = {row["id"]: row["all_nuggets"] for row in runs["per_question"]
                                   if "all_nuggets" in row}
        finally:
            await provider.aclose()
    rows = report.pop("per_question")
    for row in rows:
        row.update(vault=name, half=half[row["id"]], off_topic_shares=shares[row["id"]])
        row["selection"] = {setting: by_id[row["id"]] for setting, by_id in stated.items() if row["id"] in by_id}
    return {"rows": rows, "note": note, "answerable": report.get("answerable")}


def unanswerable_summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The unanswerable questions refused ("the vault doesn't say"), overall and by kind, and the labels given."""
    if not rows:
        return {"questions": 0}
    kinds: dict[str, list[bool]] = {}
    for row in rows:
        kinds.setdefault(str(row.get("kind", "?")), []).append(row["honest"])
    return {"questions": len(rows), "refused": sum(row["honest"] for row in rows),
            "refused_share": round(sum(row["honest"] for row in rows) / len(rows), 4),
            "refused_by_kind": {kind: f"{sum(ok)}/{len(ok)}" for kind, ok in sorted(kinds.items())},
            "confidence": dict(Counter(str(row["confidence"]) for row in rows))}


def figures(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Every figure of one set of rows (a vault's half): nuggets by language and kind, refusals, labels."""
    from cognivault.answer.evaluation import nugget_report

    answerable = [row for row in rows if "all_nuggets" in row]
    report = nugget_report(answerable)
    kinds: dict[str, list[dict[str, Any]]] = {}
    for row in answerable:
        kinds.setdefault(str(row.get("kind", "?")), []).append(row)
    report["all_nuggets_by_kind"] = {kind: round(sum(r["all_nuggets"] for r in group) / len(group), 4)
                                     for kind, group in sorted(kinds.items())}
    report["unanswerable"] = unanswerable_summary([row for row in rows if "honest" in row])
    return report


def by_half(rows: list[dict[str, Any]], measure: Any) -> dict[str, Any]:
    """``measure`` of the rows of each vault and half (and of each vault whole)."""
    table: dict[str, Any] = {}
    for vault in VAULTS:
        mine = [row for row in rows if row["vault"] == vault]
        if mine:
            table[vault] = {half: measure([row for row in mine if row["half"] == half]) for half in HALVES}
            table[vault]["all"] = measure(mine)
    return table


def refusal_figures(rows: list[dict[str, Any]], thresholds: Thresholds) -> dict[str, Any]:
    answerable = [row for row in rows if "all_nuggets" in row]
    unanswerable = [row for row in rows if "honest" in row]
    return {"false_refusals": f"{sum(refused(row, thresholds) for row in answerable)}/{len(answerable)}",
            "unanswerable_refused": f"{sum(refused(row, thresholds) for row in unanswerable)}/{len(unanswerable)}"}


async def run(args: argparse.Namespace) -> dict[str, Any]:
    from cognivault.answer.confidence import HIGH_RULE, OFF_TOPIC_SHARE
    from cognivault.answer.evaluation import load_jsonl
    from cognivault.answer.evidence import NAME_WEIGHT
    from cognivault.answer.extractive import ANSWER_FLOOR

    rows: list[dict[str, Any]] = []
    report: dict[str, Any] = {"provider": args.provider, "retrieval": "hybrid" if args.embedded else "keyword"}
    for vault in args.vaults:
        answered = await answer_vault(vault, args)
        rows += answered["rows"]
        report.setdefault("answerable", {})[vault] = answered["answerable"]
        if answered["note"]:
            report["note"] = answered["note"]
    kinds = {}
    for vault in args.vaults:
        kinds.update({row["id"]: row.get("kind") for path in (VAULTS[vault][1], VAULTS[vault][3])
                      for row in load_jsonl(path)})
    for row in rows:
        row["kind"] = kinds.get(row["id"])
    report["figures"] = by_half(rows, figures)
    tune = [row for row in rows if row["half"] == "tune"]
    scored = [row for row in rows if "all_nuggets" in row]
    rule = high_rule(*choose_rule([row for row in tune if "all_nuggets" in row], args.target))
    report["calibration"] = {
        "target": args.target, "chosen_on_tune": (rule.answer, rule.lead),
        "shipped": (HIGH_RULE.answer, HIGH_RULE.lead),
        "reliability": by_half(scored, lambda part: reliability([(label_with(r, rule), r["all_nuggets"])
                                                                 for r in part]))}
    thresholds = choose_refusal([row for row in tune if "all_nuggets" in row], [row for row in tune if "honest" in row])
    shipped = (NAME_WEIGHT, OFF_TOPIC_SHARE, ANSWER_FLOOR)
    report["refusal"] = {"chosen_on_tune": thresholds, "shipped": shipped,
                         "with_chosen": by_half(rows, lambda part: refusal_figures(part, thresholds))}
    if args.select:
        settings = {setting: {row["id"]: row["selection"][setting] for row in scored} for setting in SELECTION_GRID}
        chosen = choose_selection(settings, {row["id"] for row in scored if row["half"] == "tune"})
        report["selection"] = {
            "grid": SELECTION_GRID, "chosen_on_tune": chosen, "shipped": shipped_selection(),
            "all_nuggets_share_with_chosen": by_half(
                scored, lambda part: round(sum(r["selection"][chosen] for r in part) / len(part), 4) if part else None)}
    if args.per_question:
        keys = ("id", "vault", "half", "lang", "kind", "question", "answered", "honest", "confidence",
                "nugget_recall", "all_nuggets", "answer_chars", "measures", "answer")
        report["per_question"] = [{k: row[k] for k in keys if k in row} for row in rows]
    report["targets"] = targets(report["figures"])
    return report


def targets(table: dict[str, Any]) -> dict[str, bool]:
    """The issue's targets, on each vault's check half."""
    checks: dict[str, bool] = {}
    floors = {"help": (0.65, 0.60), "student": (0.85, 0.80)}
    for vault, halves in table.items():
        check = halves["check"]
        overall, unanswerable = check["overall"], check["unanswerable"]
        every, german = floors[vault]
        checks[f"{vault}: all_nuggets>={every}"] = overall.get("all_nuggets_share", 0) >= every
        german_share = check["by_lang"].get("de", {}).get("all_nuggets_share", 0)
        checks[f"{vault}: all_nuggets_de>={german}"] = german_share >= german
        checks[f"{vault}: false_refusals<=5%"] = overall.get("false_refusal_share", 1) <= 0.05
        checks[f"{vault}: unanswerable_refused>=90%"] = unanswerable.get("refused_share", 0) >= 0.90
        checks[f"{vault}: mean_answer<=700"] = overall.get("mean_answer_chars", 1e9) <= 700
    return checks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vaults", nargs="+", choices=list(VAULTS), default=list(VAULTS))
    parser.add_argument("--provider", default="extractive", choices=["extractive", "ollama", "llamacpp"])
    parser.add_argument("--model")
    parser.add_argument("--target", type=float, default=0.8, help="share of high answers that state all nuggets")
    parser.add_argument("--embedded", action="store_true", help="also retrieve by meaning (embedded model)")
    parser.add_argument("--per-question", action="store_true")
    parser.add_argument("--select", action="store_true",
                        help="also choose the block-selection parameters (runs the answers once per setting)")
    args = parser.parse_args()
    isolate_cache("answers", fresh=False)
    emit(asyncio.run(run(args)))


if __name__ == "__main__":
    main()
