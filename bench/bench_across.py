"""Questions asked across languages: how near the nearest passage of another language is, answerable or not.

For every question of the dev sets (help vault, student vault) and, with ``--own DIR``, of a folder of one's own
(``DIR/vault``, ``DIR/questions.jsonl``, ``DIR/unanswerable.jsonl``), the pack ``answer.retrieval.build_pack``
builds with meaning on (``--embedded`` of ``bench_answer_quality.py``: its index cache is reused) is read with
``answer.across.MEANT_FLOOR`` and ``MEANT_MARGIN`` off: a question its words call off-topic gets the cosine
(USE-multilingual v3) of its nearest passage in another language and by how much it is nearer than the nearest in
its own. Prints one JSON document: the (floor, margin) chosen on the tune halves of all sets together (answering the
most answerable questions and no unanswerable one; the least floor, the middle margin) next to the shipped pair, and
per set and half the (cosine, margin) of answerable and unanswerable questions and what the chosen pair answers.

    .venv/bin/python bench/bench_across.py [--vaults help student] [--own /tmp/my-notes]
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from _common import (
    HALVES,
    HELP_VAULT,
    QUESTIONS,
    STUDENT_QUESTIONS,
    STUDENT_UNANSWERABLE,
    STUDENT_VAULT,
    UNANSWERABLE,
    emit,
    isolate_cache,
    question_halves,
)

VAULTS = {"help": (HELP_VAULT, QUESTIONS, UNANSWERABLE),
          "student": (STUDENT_VAULT, STUDENT_QUESTIONS, STUDENT_UNANSWERABLE)}
FLOOR_GRID = [round(0.2 + 0.005 * step, 3) for step in range(81)]  # cosines 0.2 .. 0.6
MARGIN_GRID = [round(0.01 * step, 2) for step in range(31)]  # over the nearest passage in the question's language


def nearest_across(vault: Path, questions_path: Path, unanswerable_path: Path) -> list[dict[str, Any]]:
    """Each question of one set: its half, whether it is answerable and, where its words call it off-topic, the
    cosine of its nearest passage in another language (None otherwise)."""
    from cognivault.answer import across
    from cognivault.answer.evaluation import load_jsonl
    from cognivault.answer.retrieval import build_pack
    from cognivault.engine import Engine

    questions, unanswerable = load_jsonl(questions_path), load_jsonl(unanswerable_path)
    half = {**question_halves(questions), **question_halves(unanswerable)}
    rows = []
    shipped = across.MEANT_FLOOR, across.MEANT_MARGIN
    with Engine(vault, embedder="auto") as engine:
        engine.index()
        try:
            across.MEANT_FLOOR, across.MEANT_MARGIN = -1.0, -1.0
            for answerable, group in ((True, questions), (False, unanswerable)):
                for question in group:
                    pack = build_pack(engine, question["question"])[0]
                    rows.append({"id": question["id"], "half": half[question["id"]], "answerable": answerable,
                                 "cosine": round(pack.across.best, 3) if pack.across is not None else None,
                                 "same": round(pack.across.same, 3) if pack.across is not None else None})
        finally:
            across.MEANT_FLOOR, across.MEANT_MARGIN = shipped
    return rows


def choose(rows: list[dict[str, Any]]) -> tuple[float, float]:
    """The (floor, margin) answering the most answerable questions and no unanswerable one; on a tie the least floor,
    and the margin in the middle of those that tie with it."""
    def meant(row: dict[str, Any], floor: float, margin: float) -> bool:
        return row["cosine"] is not None and row["cosine"] >= floor and row["cosine"] - row["same"] >= margin

    scores = {(floor, margin): sum(meant(row, floor, margin) for row in rows if row["answerable"])
              for floor in FLOOR_GRID for margin in MARGIN_GRID
              if not any(meant(row, floor, margin) for row in rows if not row["answerable"])}
    best = max(scores.values())
    floor = min(floor for (floor, _), score in scores.items() if score == best)
    margins = [margin for (at, margin), score in scores.items() if at == floor and score == best]
    return floor, margins[len(margins) // 2]


def figures(rows: list[dict[str, Any]], floor: float, margin: float) -> dict[str, Any]:
    """What (floor, margin) answers of the questions the words call off-topic, with their (cosine, margin)."""
    gated = [row for row in rows if row["cosine"] is not None]

    def meant(row: dict[str, Any]) -> bool:
        return row["cosine"] >= floor and row["cosine"] - row["same"] >= margin

    def pairs(answerable: bool) -> list[tuple[float, float]]:
        return sorted(((row["cosine"], round(row["cosine"] - row["same"], 3)) for row in gated
                       if row["answerable"] == answerable), reverse=True)

    return {"answerable_off_topic_by_words": sum(row["answerable"] for row in gated),
            "answered_by_meaning": sum(meant(row) for row in gated if row["answerable"]),
            "unanswerable_off_topic_by_words": sum(not row["answerable"] for row in gated),
            "unanswerable_answered": sum(meant(row) for row in gated if not row["answerable"]),
            "answerable_cosine_margin": pairs(True), "unanswerable_cosine_margin": pairs(False)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vaults", nargs="+", choices=list(VAULTS), default=list(VAULTS))
    parser.add_argument("--own", type=Path, help="a folder with vault/, questions.jsonl and unanswerable.jsonl")
    args = parser.parse_args()
    isolate_cache("answers", fresh=False)
    sets = {name: VAULTS[name] for name in args.vaults}
    if args.own:
        sets["own"] = (args.own / "vault", args.own / "questions.jsonl", args.own / "unanswerable.jsonl")
    rows = {name: nearest_across(*paths) for name, paths in sets.items()}
    floor, margin = choose([row for group in rows.values() for row in group if row["half"] == "tune"])
    from cognivault.answer.across import MEANT_FLOOR, MEANT_MARGIN

    emit({"chosen_on_tune": (floor, margin), "shipped": (MEANT_FLOOR, MEANT_MARGIN),
          "figures": {name: {half: figures([row for row in group if row["half"] == half], floor, margin)
                             for half in HALVES}
                      for name, group in rows.items()}})


if __name__ == "__main__":
    main()
