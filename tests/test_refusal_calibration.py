"""The refusal thresholds' cross-check (``bench/bench_answer_quality.py``) counts what the answerer refuses for a
reason the thresholds do not govern: a question asking for a kind of answer no passage gives ("how many monthly
active users": no number) stays refused whatever answer floor a fold tries (issue 17)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from bench_answer_quality import refused  # noqa: E402

NO_NUMBER = {"honest": True, "measures": {"unknown_share": 0.0, "answer_share": 0.0, "kind_stated": False}}
THIN = {"honest": True, "measures": {"unknown_share": 0.0, "answer_share": 0.1}}
OFF_TOPIC = {"honest": True, "measures": {"unknown_share": 0.6}}
ANSWERED = {"answered": True, "measures": {"unknown_share": 0.1, "answer_share": 0.6}}


def test_a_kind_refusal_holds_under_any_threshold() -> None:
    assert all(refused(NO_NUMBER, (0.8, floor)) for floor in (0.0, 0.05, 0.25))


def test_threshold_refusals_follow_the_thresholds() -> None:
    assert refused(THIN, (0.8, 0.25)) and not refused(THIN, (0.8, 0.05))  # refused by the shipped floor alone
    assert refused(OFF_TOPIC, (0.45, 0.0)) and not refused(OFF_TOPIC, (0.7, 0.0))
    assert not refused(ANSWERED, (0.45, 0.25)) and refused(ANSWERED, (0.1, 0.25))
