"""Every one of the 25 badges: unlocked exactly by its criterion, idempotently, with a timestamp."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from cognivault.study.badges import BADGES, BADGES_BY_ID, BadgeBook, replay
from cognivault.study.progress import Clock, Event, ProgressStore

UTC = UTC
T0 = datetime(2025, 3, 10, 12, 0, tzinfo=UTC)
REPO = Path(__file__).resolve().parents[1]


class Log:
    def __init__(self) -> None:
        self.events: list[Event] = []

    def add(self, kind: str, data: dict | None = None, at: datetime | None = None, duration: float = 30,
            count: int = 1, step_s: float = 60) -> Log:
        at = at or (self.events[-1].ts + timedelta(seconds=step_s) if self.events else T0)
        for n in range(count):
            self.events.append(Event(f"{len(self.events):06d}", at + timedelta(seconds=n * step_s), kind,
                                     duration, dict(data or {})))
        return self


def days(count: int, gap_after: int | None = None) -> Log:
    log = Log()
    for n in range(count):
        shift = n + (1 if gap_after is not None and n >= gap_after else 0)
        log.add("ask", at=T0 + timedelta(days=shift))
    return log


def reviews_with_ratings(ratings: list[int]) -> Log:
    log = Log()
    for rating in ratings:
        log.add("review", {"rating": rating})
    return log


def quiz(correct: int, total: int, quiz_id: str = "q1") -> dict:
    return {"quiz_id": quiz_id, "correct": correct, "total": total, "score": correct / total}


def hours_of_study(seconds: float) -> Log:
    log = Log()
    covered = 0.0
    while covered < seconds:
        step = min(240.0, seconds - covered)
        log.add("review", {"rating": 3}, duration=step, step_s=step)
        covered += step
    return log


# badge id -> (events that earn it, events that fall just short)
CASES: dict[str, tuple[Callable[[], Log], Callable[[], Log]]] = {
    "first-question": (lambda: Log().add("ask"), lambda: Log().add("review")),
    "curious-mind": (lambda: Log().add("ask", count=25), lambda: Log().add("ask", count=24)),
    "socratic": (lambda: Log().add("ask", count=100), lambda: Log().add("ask", count=99)),
    "first-quiz": (lambda: Log().add("quiz_attempt", quiz(1, 2)), lambda: Log().add("ask")),
    "quiz-regular": (lambda: Log().add("quiz_attempt", quiz(1, 2), count=10),
                     lambda: Log().add("quiz_attempt", quiz(1, 2), count=9)),
    "flawless": (lambda: Log().add("quiz_attempt", quiz(5, 5)),
                 lambda: Log().add("quiz_attempt", quiz(4, 4)).add("quiz_attempt", quiz(4, 5))),
    "comeback": (lambda: Log().add("quiz_attempt", quiz(5, 10)).add("quiz_attempt", quiz(7, 10)),
                 lambda: Log().add("quiz_attempt", quiz(5, 10)).add("quiz_attempt", quiz(7, 10, "q2"))
                 .add("quiz_attempt", quiz(6, 10))),
    "workshop-architect": (lambda: Log().add("generate", {"kind": "workshop", "workshop_id": "w", "lessons": 3}),
                           lambda: Log().add("generate", {"kind": "quiz"})),
    "apprentice": (lambda: Log().add("lesson_read", {"workshop_id": "w", "lesson": 1}),
                   lambda: Log().add("generate", {"kind": "workshop", "workshop_id": "w", "lessons": 2})),
    "graduate": (lambda: Log().add("generate", {"kind": "workshop", "workshop_id": "w", "lessons": 2})
                 .add("lesson_read", {"workshop_id": "w", "lesson": 1})
                 .add("lesson_read", {"workshop_id": "w", "lesson": 2}),
                 lambda: Log().add("generate", {"kind": "workshop", "workshop_id": "w", "lessons": 2})
                 .add("lesson_read", {"workshop_id": "w", "lesson": 1}, count=2)),
    "card-maker": (lambda: Log().add("generate", {"kind": "flashcards", "produced": 3}),
                   lambda: Log().add("generate", {"kind": "mindmap"})),
    "deck-builder": (lambda: Log().add("generate", {"kind": "flashcards", "produced": 60})
                     .add("generate", {"kind": "flashcards", "produced": 40}),
                     lambda: Log().add("generate", {"kind": "flashcards", "produced": 60})
                     .add("generate", {"kind": "flashcards", "produced": 39})),
    "first-recall": (lambda: Log().add("review", {"rating": 1}), lambda: Log().add("ask")),
    "centurion": (lambda: Log().add("review", {"rating": 3}, count=100),
                  lambda: Log().add("review", {"rating": 3}, count=99)),
    "memory-palace": (lambda: Log().add("review", {"rating": 3}, count=1000, step_s=10),
                      lambda: Log().add("review", {"rating": 3}, count=999, step_s=10)),
    "marathon": (lambda: Log().add("review", {"rating": 2}, count=50, step_s=30),
                 lambda: Log().add("review", {"rating": 2}, count=49, step_s=30)
                 .add("review", {"rating": 2}, at=T0 + timedelta(days=1))),
    "sharp": (lambda: reviews_with_ratings([3, 4] * 12 + [3]),
              lambda: reviews_with_ratings([4] * 24 + [2] + [3] * 24)),
    "cartographer": (lambda: Log().add("generate", {"kind": "mindmap"}),
                     lambda: Log().add("generate", {"kind": "flashcards", "produced": 1})),
    "atlas": (lambda: Log().add("generate", {"kind": "mindmap"}, count=10),
              lambda: Log().add("generate", {"kind": "mindmap"}, count=9)),
    "on-a-roll": (lambda: days(3), lambda: days(3, gap_after=2)),
    "week-warrior": (lambda: days(7), lambda: days(7, gap_after=6)),
    "habit-formed": (lambda: days(30), lambda: days(30, gap_after=29)),
    "dedicated": (lambda: hours_of_study(10 * 3600), lambda: hours_of_study(10 * 3600 - 60)),
    "night-owl": (lambda: Log().add("ask", at=datetime(2025, 3, 10, 4, 59, tzinfo=UTC)),
                  lambda: Log().add("ask", at=datetime(2025, 3, 10, 5, 0, tzinfo=UTC))
                  .add("note_edit", at=datetime(2025, 3, 11, 2, 0, tzinfo=UTC))),
    "polymath": (lambda: Log().add("ask").add("quiz_attempt", quiz(1, 2)).add("review", {"rating": 3})
                 .add("generate", {"kind": "quiz"}),
                 lambda: Log().add("ask").add("quiz_attempt", quiz(1, 2)).add("review", {"rating": 3})
                 .add("generate", {"kind": "quiz"}, at=T0 + timedelta(days=1))),
}


def test_there_are_25_badges_each_with_a_case() -> None:
    assert len(BADGES) == 25
    assert set(CASES) == set(BADGES_BY_ID)
    assert {b.category for b in BADGES} >= {"chat", "quizzes", "workshops", "flashcards", "reviews", "mind maps",
                                            "streaks"}


@pytest.mark.parametrize("badge_id", list(CASES))
def test_badge_criterion(badge_id: str) -> None:
    earn, short = CASES[badge_id]
    earned_log = earn()
    _, first = replay(earned_log.events, Clock(UTC))
    assert badge_id in first
    assert first[badge_id] is earned_log.events[-1]  # unlocked by the event that completed the criterion
    _, first_short = replay(short().events, Clock(UTC))
    assert badge_id not in first_short


def test_unlocks_are_timestamped_idempotent_and_permanent(tmp_path: Path) -> None:
    store = ProgressStore(tmp_path, tz=UTC)
    ask_time = datetime(2025, 3, 10, 9, 30, tzinfo=UTC)
    store.record("ask", ts=ask_time)
    book = BadgeBook(store)
    first = {b["id"]: b for b in book.evaluate()}
    assert first["first-question"]["unlocked"] and first["first-question"]["new"]
    assert first["first-question"]["unlocked_at"] == ask_time.isoformat()
    assert not first["first-quiz"]["unlocked"] and first["first-quiz"]["unlocked_at"] is None
    store.record("ask", ts=ask_time + timedelta(hours=1))
    second = {b["id"]: b for b in book.evaluate()}
    assert second["first-question"]["unlocked_at"] == ask_time.isoformat() and not second["first-question"]["new"]
    for shard in store.folder.glob("events-*.json"):
        shard.unlink()  # events lost: an earned badge stays earned
    assert {b["id"]: b for b in book.evaluate()}["first-question"]["unlocked"]


def test_the_docs_table_lists_every_badge_with_its_criterion() -> None:
    table = (REPO / "docs" / "BADGES.md").read_text("utf-8")
    rows = [line for line in table.splitlines() if re.match(r"^\|\s*\d+\s*\|", line)]
    assert len(rows) == 25
    for badge in BADGES:
        assert any(f"`{badge.id}`" in row and badge.criterion in row for row in rows), badge.id
