"""FSRS scheduling stored in the spaced-repetition plugin's comment format.

The plugin keeps, per card, ``!due,interval,ease`` (a date, whole days, and
an SM-2 ease × 100 with base 250 and floor 130). FSRS keeps stability S (days
until recall probability falls to the desired retention), difficulty D
(1–10), the last review and the due time. CogniVault writes only the plugin's
three numbers, so the plugin and CogniVault can take turns on the same cards
without either losing the other's history. The mapping, both ways:

- **due** is the FSRS due date (the user's local calendar day).
- **interval** is the FSRS interval in whole days, at least 1. With the
  default desired retention r = 0.9 the FSRS interval equals S, so reading a
  comment takes S = interval (for another r, S = interval / k with
  k = (r^(1/decay) − 1) / (0.9^(1/decay) − 1)). The last review is
  due − interval.
- **ease** encodes D linearly: ease = round(350 − (D − 1) · 220 / 9), so D = 1
  (easiest) is 350, D = 10 (hardest) is 130, the plugin's floor, and the
  plugin's base 250 reads as D ≈ 5.1 (FSRS's difficulty for a first "Good"
  on a card of average difficulty). Reading: D = 1 + (350 − ease) · 9 / 220,
  clamped to 1–10 (the plugin lets ease grow past 350: D stays 1).
- ``!2000-01-01,1,250`` (the plugin's placeholder) and no comment at all mean
  a new card: FSRS starts it from scratch.

A card whose comment is the plugin's FSRS group (``!fsrs,...``) carries FSRS's
own stability and difficulty: they are used as they are, and the card is
written back as an FSRS group (due time, interval, S, D, state, reps, lapses,
last review), so the plugin's FSRS history is never replaced by SM-2 numbers.

Because the comment holds whole days, FSRS runs without intra-day learning
steps (``learning_steps=()``): every review yields a due day. "Again" still
gets a relearning step, as in Anki, but in the review session rather than in
the comment: the terminal review shows the card again at the end of the
session, and the grade given there (a same-day FSRS review) sets the next
review; the next day written for the "again" itself holds only if the session
ends first. Fuzzing is off so that the stored interval is exactly
FSRS's interval and reading it back gives S again.

The rounding of interval to days and of D to the ease integer is the only
loss: a round trip keeps S to within half a day and D to within 0.03.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from fsrs import Card as FsrsCard
from fsrs import Rating, Scheduler, State

from cognivault.study.cards import FsrsState, Schedule

EASE_EASIEST = 350
EASE_HARDEST = 130
RATINGS = {1: Rating.Again, 2: Rating.Hard, 3: Rating.Good, 4: Rating.Easy}
RATING_NAMES = {1: "again", 2: "hard", 3: "good", 4: "easy"}


def ease_from_difficulty(difficulty: float) -> int:
    difficulty = min(10.0, max(1.0, difficulty))
    return round(EASE_EASIEST - (difficulty - 1.0) * (EASE_EASIEST - EASE_HARDEST) / 9.0)


def difficulty_from_ease(ease: int) -> float:
    value = 1.0 + (EASE_EASIEST - ease) * 9.0 / (EASE_EASIEST - EASE_HARDEST)
    return min(10.0, max(1.0, value))


def parse_rating(value: object) -> int:
    """1–4, or again/hard/good/easy (any case); ValueError otherwise."""
    if isinstance(value, bool):
        raise ValueError("rating must be 1-4 or again/hard/good/easy")
    if isinstance(value, int) and value in RATINGS:
        return value
    text = str(value).strip().lower()
    if text.isdigit() and int(text) in RATINGS:
        return int(text)
    for number, name in RATING_NAMES.items():
        if text == name or (len(text) == 1 and text == name[0]):
            return number
    raise ValueError(f"rating {value!r}: use 1-4 or again/hard/good/easy")


@dataclass(frozen=True, slots=True)
class ReviewResult:
    schedule: Schedule
    stability: float
    difficulty: float
    retrievability: float  # predicted recall probability at review time (0 for a new card)
    previous: Schedule | None


class CardScheduler:
    """FSRS over the plugin's ``!due,interval,ease`` comment values."""

    def __init__(self, desired_retention: float = 0.9, maximum_interval: int = 36500) -> None:
        self.fsrs = Scheduler(desired_retention=desired_retention, learning_steps=(), relearning_steps=(),
                              maximum_interval=maximum_interval, enable_fuzzing=False)
        decay = -self.fsrs.parameters[20]
        factor = 0.9 ** (1 / decay) - 1
        self._days_per_stability = (desired_retention ** (1 / decay) - 1) / factor

    def to_fsrs(self, schedule: Schedule | None, now: datetime) -> FsrsCard:
        """The FSRS card a comment value stands for (a new card for None or the placeholder)."""
        if schedule is None or schedule.is_new:
            return FsrsCard(card_id=1, due=now)
        kept = schedule.fsrs  # the plugin's own FSRS memory state: taken as it is
        if kept is not None and kept.due_at is not None:
            if kept.state == 0 or kept.stability <= 0:
                return FsrsCard(card_id=1, due=now)
            last_review = kept.last_review or kept.due_at - timedelta(days=max(kept.interval, 1.0))
            return FsrsCard(card_id=1, state=State.Review, step=None, stability=max(0.1, kept.stability),
                            difficulty=min(10.0, max(1.0, kept.difficulty)), due=kept.due_at,
                            last_review=min(last_review, now))
        stability = max(0.1, schedule.interval / self._days_per_stability)
        last_day = schedule.due - timedelta(days=schedule.interval)
        today = now.astimezone().date()
        elapsed = (today - last_day).days
        last_review = now - timedelta(days=max(0, elapsed))
        due = datetime.combine(schedule.due, time(0), tzinfo=UTC)
        return FsrsCard(card_id=1, state=State.Review, step=None, stability=stability,
                        difficulty=difficulty_from_ease(schedule.ease), due=due, last_review=last_review)

    def review(self, schedule: Schedule | None, rating: int, now: datetime | None = None, *,
               fsrs_form: bool = False) -> ReviewResult:
        """Grade a card (1 again, 2 hard, 3 good, 4 easy) and return its next comment value.

        The value is in the form the card had: the plugin's FSRS group when ``schedule`` is one
        (or ``fsrs_form``: a new card whose siblings are), the SM-2 group otherwise.
        """
        now = (now or datetime.now(UTC)).astimezone(UTC)
        rating = parse_rating(rating)
        card = self.to_fsrs(schedule, now)
        retrievability = self.fsrs.get_card_retrievability(card, now) if card.last_review else 0.0
        updated, _ = self.fsrs.review_card(card, RATINGS[rating], now)
        days = max(1, round((updated.due - now).total_seconds() / 86400))
        today = now.astimezone().date()
        assert updated.stability is not None and updated.difficulty is not None
        previous = schedule.fsrs if schedule is not None and schedule.fsrs is not None else None
        if previous is not None or fsrs_form and (schedule is None or schedule.is_new):
            before = previous if previous is not None and previous.due_at is not None else None
            lapsed = rating == 1 and before is not None and before.state == State.Review.value
            new = Schedule.of_fsrs(FsrsState(
                now + timedelta(days=days), days, updated.stability, updated.difficulty, int(updated.state),
                (before.reps if before else 0) + 1, (before.lapses if before else 0) + int(lapsed), 0, now,
                previous.extra if previous is not None else ()))
        else:
            new = Schedule(today + timedelta(days=days), days, ease_from_difficulty(updated.difficulty))
        return ReviewResult(new, updated.stability, updated.difficulty, float(retrievability), schedule)


def is_due(schedule: Schedule | None, today: date) -> bool:
    """New cards and cards whose due day has come are due."""
    return schedule is None or schedule.is_new or schedule.due <= today
