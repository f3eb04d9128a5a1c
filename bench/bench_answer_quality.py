"""Answer quality on the help vault: facts stated (nuggets), refusals, length, and what a label is worth.

Runs ``eval-answers`` (``cognivault.answer.evaluation``) with the dev questions, their answer
nuggets and the unanswerable questions, for one chat provider (default: extractive, no model),
and prints one JSON document:

- ``nuggets``: all-nuggets share, nugget recall, false refusals and mean answer length, overall and
  per language, and the reliability table (confidence label -> answers, share stating all nuggets);
- ``unanswerable``: the share refused ("the vault doesn't say") and the labels given;
- ``calibration``: the thresholds of ``high`` (``confidence.HighRule``: the least ``answer_share``, the
  share of the question the quoted passages state, and ``lead_share``, the share the first quote
  states) chosen by k-fold cross-validation over question ids: on each training fold, the pair
  labelling the most answers ``high`` whose ``high`` answers state all nuggets at least ``--target``
  of the time counting one more miss; that pair labels the held-out fold. Printed: the
  cross-validated reliability table (label -> answers, share stating all nuggets, of the held-out
  labels), each fold's choice, and the choice on all questions next to the one the code ships
  (``confidence.HIGH_RULE``). Tried and left out: how far the best note ranks ahead of the next one
  (the fused ranks put it at 0.02 for nearly every question);
- ``refusal``: the refusal thresholds (``evidence.NAME_WEIGHT``: what a name counts for in the
  off-topic share; ``confidence.OFF_TOPIC_SHARE``: the share of a question's weight in words the
  vault never uses; ``extractive.ANSWER_FLOOR``: the least share of the question the quoted
  passages must state) chosen the same way over the answerable and unanswerable questions
  together (on each training fold, the triple that refuses the most unanswerable questions with
  the fewest false refusals, at most 5 %; among those, the off-topic share farthest from every
  training question's share): held-out false refusals and unanswerable questions refused, each
  fold's choice, and the choice on all questions
  (a refusal the thresholds do not govern stays one: a question asking for a kind of answer no
  passage gives, "how many users" with no number to quote);
- ``selection`` (with ``--select``): the parameters of which blocks the answer quotes
  (``extractive.NOTE_WEIGHT``: how much a passage is judged by its note's other passages;
  ``extractive.COMPLETING_SHARE``: how much of the question a block must add to join the answer;
  ``extractive.LINK_SHARE``: what a question word said only as a link's text counts for),
  chosen the same way: the answers are run once per setting of ``SELECTION_GRID``; on each training
  fold the setting whose answers state all nuggets most often (on a tie, the first in the grid),
  applied to the held-out fold: the cross-validated all-nuggets share, each fold's choice,
  and the choice on all questions next to the shipped one;
- ``targets``: the issue's targets, checked.

Keyword retrieval unless ``--embedded`` (the help vault is read-only: its index goes to a
benchmark-private cache).

    .venv/bin/python bench/bench_answer_quality.py [--provider extractive] [--folds 5] [--embedded] [--select]
"""

from __future__ import annotations

import argparse
import asyncio
import random
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from _common import HELP_VAULT, NUGGETS, QUESTIONS, UNANSWERABLE, emit, isolate_cache

ANSWER_GRID = [round(0.4 + 0.025 * step, 3) for step in range(25)]  # answer_share thresholds 0.4 .. 1.0
LEAD_GRID = [round(0.05 * step, 2) for step in range(21)]  # lead_share thresholds 0.0 .. 1.0
LABELS = ("high", "medium", "low")


def high_rule(answer: float, lead: float) -> Any:
    from cognivault.answer.confidence import HighRule

    return HighRule(answer=answer, lead=lead)


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


def _folds(rows: list[dict[str, Any]], folds: int, seed: int = 17) -> dict[str, int]:
    ids = sorted(row["id"] for row in rows)
    random.Random(seed).shuffle(ids)
    return {qid: number % folds for number, qid in enumerate(ids)}


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
    side), then the lower name weight and the lower floor."""
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
                key = (sum(refused(row, thresholds) for row in unanswerable), -false, margin, -name_weight, -floor)
                if key > best_key:
                    best, best_key = thresholds, key
    return best


def cross_validate_refusal(answerable: list[dict[str, Any]], unanswerable: list[dict[str, Any]], folds: int
                           ) -> dict[str, Any]:
    fold_of = _folds(answerable + unanswerable, folds)
    chosen, false, caught = [], 0, 0
    for fold in range(folds):
        train_a = [r for r in answerable if fold_of[r["id"]] != fold]
        train_u = [r for r in unanswerable if fold_of[r["id"]] != fold]
        thresholds = choose_refusal(train_a, train_u)
        chosen.append(thresholds)
        false += sum(refused(r, thresholds) for r in answerable if fold_of[r["id"]] == fold)
        caught += sum(refused(r, thresholds) for r in unanswerable if fold_of[r["id"]] == fold)
    return {"folds": folds, "thresholds_by_fold": chosen,
            "cv_false_refusal_share": round(false / len(answerable), 4) if answerable else None,
            "cv_unanswerable_refused_share": round(caught / len(unanswerable), 4) if unanswerable else None}


def cross_validate(rows: list[dict[str, Any]], folds: int, target: float) -> dict[str, Any]:
    """k-fold over question ids: the thresholds chosen on k-1 folds label the held-out one; the reliability
    table of those held-out labels."""
    fold_of = _folds(rows, folds)
    labelled: list[tuple[str, bool]] = []
    chosen = []
    for fold in range(folds):
        train = [row for row in rows if fold_of[row["id"]] != fold]
        rule = high_rule(*choose_rule(train, target))
        chosen.append((rule.answer, rule.lead))
        labelled += [(label_with(row, rule), row["all_nuggets"]) for row in rows if fold_of[row["id"]] == fold]
    table = reliability(labelled)
    return {"folds": folds, "target": target, "thresholds_by_fold": chosen, "cv_reliability": table,
            "cv_high_answers": table["high"]["answers"],
            "cv_high_all_nuggets_share": table["high"]["all_nuggets_share"]}


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


def cross_validate_selection(stated: dict[Selection, dict[str, bool]], folds: int) -> dict[str, Any]:
    ids = sorted(next(iter(stated.values())))
    fold_of = _folds([{"id": qid} for qid in ids], folds)
    chosen, held = [], 0
    for fold in range(folds):
        setting = choose_selection(stated, {qid for qid in ids if fold_of[qid] != fold})
        chosen.append(setting)
        held += sum(stated[setting][qid] for qid in ids if fold_of[qid] == fold)
    return {"folds": folds, "grid": SELECTION_GRID, "settings_by_fold": chosen,
            "cv_all_nuggets_share": round(held / len(ids), 4),
            "all_nuggets_share_by_setting": {"/".join(map(str, setting)): round(sum(by_id.values()) / len(ids), 4)
                                             for setting, by_id in stated.items()},
            "choice_on_all": choose_selection(stated, set(ids)), "shipped": shipped_selection()}


async def run(args: argparse.Namespace) -> dict[str, Any]:
    from cognivault.answer.confidence import HIGH_RULE
    from cognivault.answer.evaluation import evaluate_answers, load_jsonl, load_nuggets
    from cognivault.engine import Engine
    from cognivault.models.chat import resolve_chat_provider

    with Engine(HELP_VAULT, embedder="auto" if args.embedded else None) as engine:
        engine.index()
        provider, note = await resolve_chat_provider(engine.settings, args.provider, args.model,
                                                     embedder=engine.embedder)
        try:
            report = await evaluate_answers(engine, provider, load_jsonl(args.questions), load_jsonl(UNANSWERABLE),
                                            per_question=True, nuggets=load_nuggets(args.nuggets))
            shares = off_topic_shares(engine, load_jsonl(args.questions) + load_jsonl(UNANSWERABLE))
            stated: dict[Selection, dict[str, bool]] = {}
            for setting in SELECTION_GRID if args.select else ():
                with selection(setting):
                    runs = await evaluate_answers(engine, provider, load_jsonl(args.questions), per_question=True,
                                                  nuggets=load_nuggets(args.nuggets))
                stated[setting] = {row["id"]: row["all_nuggets"] for row in runs["per_question"]
                                   if "all_nuggets" in row}
        finally:
            await provider.aclose()
    per_question = report.pop("per_question")
    for row in per_question:
        row["off_topic_shares"] = shares[row["id"]]
    rows = [row for row in per_question if "all_nuggets" in row]
    unanswerable = [row for row in per_question if "honest" in row]
    report["calibration"] = cross_validate(rows, args.folds, args.target)
    report["calibration"].update({"thresholds_on_all": choose_rule(rows, args.target),
                                  "shipped": (HIGH_RULE.answer, HIGH_RULE.lead)})
    from cognivault.answer.confidence import OFF_TOPIC_SHARE
    from cognivault.answer.evidence import NAME_WEIGHT
    from cognivault.answer.extractive import ANSWER_FLOOR

    if stated:
        report["selection"] = cross_validate_selection(stated, args.folds)
    report["refusal"] = cross_validate_refusal(rows, unanswerable, args.folds)
    report["refusal"].update({"thresholds_on_all": choose_refusal(rows, unanswerable),
                              "shipped": [NAME_WEIGHT, OFF_TOPIC_SHARE, ANSWER_FLOOR]})
    if args.per_question:
        answered_keys = ("id", "lang", "answered", "confidence", "nugget_recall", "all_nuggets", "answer_chars",
                         "measures", "off_topic_shares", "answer")
        report["per_question"] = [{k: row[k] for k in answered_keys} for row in rows]
        unanswerable_keys = ("id", "lang", "question", "honest", "confidence", "measures", "off_topic_shares",
                             "answer")
        report["per_unanswerable_question"] = [{k: row[k] for k in unanswerable_keys} for row in unanswerable]
    if note:
        report["note"] = note
    nuggets = report["nuggets"]
    overall = nuggets["overall"]
    high = nuggets["reliability"]["high"]
    report["targets"] = {
        "all_nuggets>=0.60": overall["all_nuggets_share"] >= 0.60,
        "all_nuggets_de>=0.55": nuggets["by_lang"].get("de", {}).get("all_nuggets_share", 0) >= 0.55,
        "false_refusals<=5%": overall["false_refusal_share"] <= 0.05,
        "unanswerable_refused>=95%": report["unanswerable"]["honest_share"] >= 0.95,
        "high_states_all>=80%": (high["all_nuggets_share"] or 0) >= 0.80,
        "mean_answer<=700": overall["mean_answer_chars"] <= 700,
    }
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=Path, default=QUESTIONS)
    parser.add_argument("--nuggets", type=Path, default=NUGGETS)
    parser.add_argument("--provider", default="extractive", choices=["extractive", "ollama", "llamacpp"])
    parser.add_argument("--model")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--target", type=float, default=0.8, help="share of high answers that state all nuggets")
    parser.add_argument("--embedded", action="store_true", help="also retrieve by meaning (embedded model)")
    parser.add_argument("--per-question", action="store_true")
    parser.add_argument("--select", action="store_true",
                        help="also cross-validate the block-selection parameters (runs the answers once per setting)")
    args = parser.parse_args()
    isolate_cache("answers", fresh=False)
    emit(asyncio.run(run(args)))


if __name__ == "__main__":
    main()
