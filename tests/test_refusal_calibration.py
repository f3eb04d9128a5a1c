"""The refusal thresholds' cross-check (``bench/bench_answer_quality.py``): it counts what the answerer refuses
for a reason the thresholds do not govern (a question asking for a kind of answer no passage gives, "how many
monthly active users": no number, stays refused whatever answer floor a fold tries), and among thresholds that
refuse as much it picks the middle of the gap between answered and refused questions, so a held-out question
just past the training ones still falls on its side (issue 17)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from bench_answer_quality import choose_refusal, refused  # noqa: E402

NO_NUMBER = {"honest": True, "measures": {"unknown_share": 0.0, "answer_share": 0.0, "kind_stated": False,
                                          "kind_refused": True}}
# "how much funding ... investors": no amount given, and what the quotes would state (0.2) is under the floor too
NO_AMOUNT = {"honest": True, "measures": {"unknown_share": 0.28, "answer_share": 0.2, "kind_stated": False,
                                          "kind_refused": True}}
THIN = {"honest": True, "measures": {"unknown_share": 0.0, "answer_share": 0.1}}
OFF_TOPIC = {"honest": True, "measures": {"unknown_share": 0.6}}
ANSWERED = {"answered": True, "measures": {"unknown_share": 0.1, "answer_share": 0.6}}


def test_a_kind_refusal_holds_under_any_threshold() -> None:
    assert all(refused(NO_NUMBER, (1.0, 0.8, floor)) for floor in (0.0, 0.05, 0.25))
    assert all(refused(NO_AMOUNT, (1.0, 0.8, floor)) for floor in (0.0, 0.05, 0.25))


def test_threshold_refusals_follow_the_thresholds() -> None:
    assert refused(THIN, (1.0, 0.8, 0.25)) and not refused(THIN, (1.0, 0.8, 0.05))  # refused by the floor alone
    assert refused(OFF_TOPIC, (1.0, 0.45, 0.0)) and not refused(OFF_TOPIC, (1.0, 0.7, 0.0))
    assert not refused(ANSWERED, (1.0, 0.45, 0.25)) and refused(ANSWERED, (1.0, 0.1, 0.25))


def _row(qid: str, share: float, answered: bool, by_weight: dict[float, float] | None = None) -> dict[str, Any]:
    row: dict[str, Any] = {"id": qid, "measures": {"unknown_share": share, "answer_share": 0.6}}
    row["answered" if answered else "honest"] = answered or share >= 0.45
    if by_weight:
        row["off_topic_shares"] = by_weight
    return row


def test_the_off_topic_threshold_lies_in_the_middle_of_the_gap() -> None:
    answerable = [_row(f"a{n}", share, True) for n, share in enumerate((0.0, 0.1, 0.2, 0.3))]
    unanswerable = [_row(f"u{n}", share, False) for n, share in enumerate((0.7, 0.75, 0.8))]
    # every threshold from 0.35 to 0.7 refuses all three; the one nearest both sides is in the middle
    assert choose_refusal(answerable, unanswerable)[1] == 0.5
    # a question just past the lowest training one (0.62) is refused; the laxest tie (0.7) would answer it
    assert refused(_row("u9", 0.62, False), choose_refusal(answerable, unanswerable))


def test_a_name_weight_is_chosen_where_it_widens_the_gap() -> None:
    answerable = [_row("a0", 0.3, True, {1.0: 0.3, 1.5: 0.3, 2.0: 0.3, 3.0: 0.3})]
    # a question about a name the vault never uses: its share grows with the weight a name gets
    unanswerable = [_row("u0", 0.5, False, {1.0: 0.4, 1.5: 0.5, 2.0: 0.6, 3.0: 0.7})]
    name_weight, off_topic, _ = choose_refusal(answerable, unanswerable)
    assert name_weight == 3.0 and off_topic == 0.5
