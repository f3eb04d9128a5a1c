"""The 25 achievement badges: explicit criteria over the event log, idempotent timestamped unlocks.

Badges are computed by replaying the events in time order; a badge unlocks
at the first event after which its criterion holds, and that event's time is
its unlock time. Unlocks are kept in ``<vault>/.cognivault/progress/badges.json``
(written atomically), so evaluating again never changes a recorded unlock and
a badge once earned stays earned. ``docs/BADGES.md`` lists the same table.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from cognivault.atomic import atomic_write_text
from cognivault.study.locks import file_lock
from cognivault.study.progress import IDLE_GAP_SECONDS, STUDY_KINDS, Clock, Event, ProgressStore


@dataclass(slots=True)
class Tally:
    """What the replay has seen so far; every criterion reads only this."""

    counts: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    reviews_by_day: dict[date, int] = field(default_factory=lambda: defaultdict(int))
    good_run: int = 0
    best_good_run: int = 0
    quiz_best: dict[str, float] = field(default_factory=dict)
    perfect_quiz: bool = False
    quiz_improvement: float = 0.0
    generated: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    cards_generated: int = 0
    workshop_lessons: dict[str, set[int]] = field(default_factory=lambda: defaultdict(set))
    workshop_totals: dict[str, int] = field(default_factory=dict)
    workshop_completed: bool = False
    study_days: set[date] = field(default_factory=set)
    streak: int = 0
    longest_streak: int = 0
    last_study_day: date | None = None
    seconds_closed: float = 0.0
    session_start: datetime | None = None
    session_end: datetime | None = None
    night_owl: bool = False
    kinds_by_day: dict[date, set[str]] = field(default_factory=lambda: defaultdict(set))
    polymath: bool = False

    @property
    def total_seconds(self) -> float:
        current = 0.0
        if self.session_start is not None and self.session_end is not None:
            current = (self.session_end - self.session_start).total_seconds()
        return self.seconds_closed + current

    def add(self, event: Event, clock: Clock) -> None:
        self.counts[event.kind] += 1
        day = clock.day(event.ts)
        # time: the same idle-gap rule as progress.sessions_of
        start, end = event.start, event.ts
        if self.session_end is not None and (start - self.session_end).total_seconds() <= IDLE_GAP_SECONDS:
            self.session_start = min(self.session_start or start, start)
            self.session_end = max(self.session_end, end)
        else:
            if self.session_start is not None and self.session_end is not None:
                self.seconds_closed += (self.session_end - self.session_start).total_seconds()
            self.session_start, self.session_end = start, end
        if event.kind in STUDY_KINDS:
            if day not in self.study_days:
                self.study_days.add(day)
                if self.last_study_day is not None and day - self.last_study_day == timedelta(days=1):
                    self.streak += 1
                elif self.last_study_day is None or day > self.last_study_day:
                    self.streak = 1
                self.last_study_day = max(day, self.last_study_day or day)
                self.longest_streak = max(self.longest_streak, self.streak)
            if clock.local(event.ts).hour < 5:
                self.night_owl = True
            self.kinds_by_day[day].add(event.kind)
            if {"ask", "quiz_attempt", "review", "generate"} <= self.kinds_by_day[day]:
                self.polymath = True
        data = event.data
        if event.kind == "review":
            self.reviews_by_day[day] += 1
            rating = int(data.get("rating", 0) or 0)
            self.good_run = self.good_run + 1 if rating >= 3 else 0
            self.best_good_run = max(self.best_good_run, self.good_run)
        elif event.kind == "quiz_attempt":
            total = int(data.get("total", 0) or 0)
            correct = int(data.get("correct", 0) or 0)
            score = correct / total if total else 0.0
            if total >= 5 and correct == total:
                self.perfect_quiz = True
            quiz = str(data.get("quiz_id") or data.get("quiz") or "")
            if quiz in self.quiz_best:
                self.quiz_improvement = max(self.quiz_improvement, score - self.quiz_best[quiz])
                self.quiz_best[quiz] = max(self.quiz_best[quiz], score)
            else:
                self.quiz_best[quiz] = score
        elif event.kind == "generate":
            kind = str(data.get("kind", ""))
            self.generated[kind] += 1
            if kind == "flashcards":
                self.cards_generated += int(data.get("produced", 0) or 0)
            if kind == "workshop" and data.get("workshop_id"):
                self.workshop_totals[str(data["workshop_id"])] = int(data.get("lessons", 0) or 0)
        elif event.kind == "lesson_read":
            workshop = str(data.get("workshop_id", ""))
            if workshop:
                self.workshop_lessons[workshop].add(int(data.get("lesson", 0) or 0))
                total = int(data.get("lessons_total", 0) or 0) or self.workshop_totals.get(workshop, 0)
                if total and len(self.workshop_lessons[workshop]) >= total:
                    self.workshop_completed = True


@dataclass(frozen=True, slots=True)
class Badge:
    id: str
    name: str
    category: str
    criterion: str
    icon: str
    test: Callable[[Tally], bool]

    def to_dict(self) -> dict[str, str]:
        return {"id": self.id, "name": self.name, "category": self.category, "criterion": self.criterion,
                "icon": self.icon}


BADGES: tuple[Badge, ...] = (
    Badge("first-question", "First Question", "chat", "Ask your vault 1 question.", "?",
          lambda t: t.counts["ask"] >= 1),
    Badge("curious-mind", "Curious Mind", "chat", "Ask 25 questions.", "??",
          lambda t: t.counts["ask"] >= 25),
    Badge("socratic", "Socratic", "chat", "Ask 100 questions.", "Σ",
          lambda t: t.counts["ask"] >= 100),
    Badge("first-quiz", "First Quiz", "quizzes", "Complete 1 quiz attempt.", "Q",
          lambda t: t.counts["quiz_attempt"] >= 1),
    Badge("quiz-regular", "Quiz Regular", "quizzes", "Complete 10 quiz attempts.", "Q10",
          lambda t: t.counts["quiz_attempt"] >= 10),
    Badge("flawless", "Flawless", "quizzes", "Answer every question right in a quiz of at least 5 questions.",
          "★", lambda t: t.perfect_quiz),
    Badge("comeback", "Comeback", "quizzes",
          "Beat your best score on a quiz by at least 20 percentage points.", "↑",
          lambda t: t.quiz_improvement >= 0.2 - 1e-9),
    Badge("workshop-architect", "Workshop Architect", "workshops", "Generate 1 workshop outline.", "W",
          lambda t: t.generated["workshop"] >= 1),
    Badge("apprentice", "Apprentice", "workshops", "Read 1 workshop lesson.", "L",
          lambda t: t.counts["lesson_read"] >= 1),
    Badge("graduate", "Graduate", "workshops", "Read every lesson of one workshop.", "♛",
          lambda t: t.workshop_completed),
    Badge("card-maker", "Card Maker", "flashcards", "Generate 1 flashcard note.", "C",
          lambda t: t.generated["flashcards"] >= 1),
    Badge("deck-builder", "Deck Builder", "flashcards", "Generate 100 flashcards in total.", "C100",
          lambda t: t.cards_generated >= 100),
    Badge("first-recall", "First Recall", "reviews", "Review 1 card.", "R",
          lambda t: t.counts["review"] >= 1),
    Badge("centurion", "Centurion", "reviews", "Review 100 cards.", "C",
          lambda t: t.counts["review"] >= 100),
    Badge("memory-palace", "Memory Palace", "reviews", "Review 1,000 cards.", "M",
          lambda t: t.counts["review"] >= 1000),
    Badge("marathon", "Marathon", "reviews", "Review 50 cards in one day.", "50",
          lambda t: max(t.reviews_by_day.values(), default=0) >= 50),
    Badge("sharp", "Sharp", "reviews", "Grade 25 reviews in a row Good or Easy.", "✓",
          lambda t: t.best_good_run >= 25),
    Badge("cartographer", "Cartographer", "mind maps", "Generate 1 mind map.", "◎",
          lambda t: t.generated["mindmap"] >= 1),
    Badge("atlas", "Atlas", "mind maps", "Generate 10 mind maps.", "◉",
          lambda t: t.generated["mindmap"] >= 10),
    Badge("on-a-roll", "On a Roll", "streaks", "Study 3 days in a row.", "3",
          lambda t: t.longest_streak >= 3),
    Badge("week-warrior", "Week Warrior", "streaks", "Study 7 days in a row.", "7",
          lambda t: t.longest_streak >= 7),
    Badge("habit-formed", "Habit Formed", "streaks", "Study 30 days in a row.", "30",
          lambda t: t.longest_streak >= 30),
    Badge("dedicated", "Dedicated", "time", "Reach 10 hours of study time.", "10h",
          lambda t: t.total_seconds >= 10 * 3600),
    Badge("night-owl", "Night Owl", "time", "Study between midnight and 5 a.m. (local time).", "☾",
          lambda t: t.night_owl),
    Badge("polymath", "Polymath", "variety", "On one day, ask a question, take a quiz, review a card and "
          "generate study material.", "∞", lambda t: t.polymath),
)
BADGES_BY_ID = {badge.id: badge for badge in BADGES}
assert len(BADGES) == 25 and len(BADGES_BY_ID) == 25


def replay(events: list[Event], clock: Clock) -> tuple[Tally, dict[str, Event]]:
    """Replay events in order: the final tally and, per badge, the first event satisfying it."""
    tally = Tally()
    first: dict[str, Event] = {}
    for event in sorted(events, key=lambda e: (e.ts, e.id)):
        tally.add(event, clock)
        for badge in BADGES:
            if badge.id not in first and badge.test(tally):
                first[badge.id] = event
    return tally, first


class BadgeBook:
    """The unlocked badges of a vault, persisted so unlocks are permanent and idempotent."""

    def __init__(self, store: ProgressStore) -> None:
        self.store = store
        self.path = store.folder / "badges.json"

    def _read(self) -> dict[str, dict[str, Any]]:
        try:
            data = json.loads(self.path.read_text("utf-8"))
        except (FileNotFoundError, json.JSONDecodeError):
            return {}
        unlocked = data.get("unlocked", {}) if isinstance(data, dict) else {}
        return {k: v for k, v in unlocked.items() if k in BADGES_BY_ID and isinstance(v, dict)}

    def evaluate(self, events: list[Event] | None = None) -> list[dict[str, Any]]:
        """Unlock what the events earn (once) and return all 25 badges with their state."""
        if events is None:
            events = self.store.events()
        _, first = replay(events, self.store.clock)
        with file_lock(self.store.folder / ".badges.lock"):
            unlocked = self._read()
            newly = {badge_id: {"unlocked_at": event.ts.isoformat(), "event": event.id}
                     for badge_id, event in first.items() if badge_id not in unlocked}
            if newly:
                unlocked.update(newly)
                atomic_write_text(self.path, json.dumps({"version": 1, "unlocked": unlocked}, indent=1,
                                                        ensure_ascii=False))
        result = []
        for badge in BADGES:
            state = unlocked.get(badge.id)
            result.append({**badge.to_dict(), "unlocked": state is not None,
                           "unlocked_at": state.get("unlocked_at") if state else None,
                           "new": badge.id in newly})
        return result
