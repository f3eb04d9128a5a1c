"""Reviewing flashcards: find due cards in the vault, grade them, write the schedule back safely.

A grade rewrites only the graded card's ``<!--SR:...-->`` comment, through the
one writer into user notes (:func:`cognivault.vault.notewriter.update_note`):
if the user (or the plugin, or another CogniVault process) changes the note
while the grade is being saved, nothing of theirs is replaced and the grade is
recomputed on the fresh content. A card whose text changed (its id is a hash
of its text) is not graded at all: the caller gets ``CardNotFound``.
"""

from __future__ import annotations

import contextlib
import logging
import re
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import IO, Any

from cognivault.errors import CogniVaultError
from cognivault.study.cards import (
    DEFAULT_OPTIONS,
    Card,
    Flashcard,
    NoteCards,
    ParserOptions,
    parse_cards,
    with_schedule,
)
from cognivault.study.citations import parse_citations, strip_citations, without_cited_links
from cognivault.study.progress import ProgressStore
from cognivault.study.scheduler import RATING_NAMES, CardScheduler, ReviewResult, is_due, parse_rating
from cognivault.study.terminal import counted, grade_prompt, interval_label, interval_preview, read_choice
from cognivault.vault.notewriter import NoteConflict, update_note

log = logging.getLogger(__name__)


class CardNotFound(CogniVaultError, LookupError):
    """No card with that id: it was deleted or its text was edited since it was shown."""

    code = "card_not_found"
    status = 404


class NoteNotFound(CogniVaultError, LookupError):
    """A note asked for by path or name that the vault does not hold."""

    code = "unknown_note"
    status = 404


class ReviewConflict(NoteConflict):
    """The note kept changing on disk while the schedule was being written."""

    code = "review_conflict"


@dataclass(slots=True)
class DueCard:
    id: str
    path: str
    title: str
    decks: list[str]
    kind: str
    front: str
    back: str
    heading_path: list[str]
    line: int  # 1-based first line of the card text
    sources: list[dict[str, Any]]  # the card's citations (target, heading, label, chunk_id, hash)
    due: str | None  # ISO date, None for a new card
    interval: int | None
    ease: int | None
    is_new: bool

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(slots=True)
class GradeOutcome:
    card_id: str
    path: str
    rating: int
    due: str
    interval: int
    ease: int
    previous_due: str | None
    stability: float
    difficulty: float
    attempts: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _due_card(path: str, flashcard: Flashcard, card: Card) -> DueCard:
    schedule = card.schedule
    title = Path(path).stem
    headings = [h for h in flashcard.heading_path if h and h != title]
    citations = parse_citations(flashcard.text)
    return DueCard(card.id, path, title, list(flashcard.decks), flashcard.kind,
                   without_cited_links(strip_citations(card.front), citations),
                   without_cited_links(strip_citations(card.back), citations), headings, flashcard.first_line + 1,
                   [c.to_dict() for c in citations],
                   schedule.due.isoformat() if schedule else None, schedule.interval if schedule else None,
                   schedule.ease if schedule else None, schedule is None)


@dataclass
class ReviewDeck:
    """The flashcards of one vault (every note the plugin would read), with grading."""

    vault: Path
    options: ParserOptions = DEFAULT_OPTIONS
    scheduler: CardScheduler = field(default_factory=CardScheduler)
    progress: ProgressStore | None = None
    extra_ignored: tuple[Path, ...] = ()
    before_replace: Callable[[int], None] | None = None  # test hook: runs before each replace attempt
    _cache: dict[str, tuple[tuple[int, int], NoteCards]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.vault = Path(self.vault).expanduser().resolve()

    # -- reading ----------------------------------------------------------
    def _markdown_paths(self) -> list[str]:
        from cognivault.vault.scan import scan_vault

        return [f.path for f in scan_vault(self.vault, self.extra_ignored).files if f.kind == "markdown"]

    def note_path(self, name: str) -> str:
        """The vault path of a note given as a vault path, a path on disk inside the vault, or a name
        (``Cells``, ``Biology/Cells``: with or without ``.md``, any case); NoteNotFound otherwise.

        Without this, a mistyped ``--note`` read as "nothing is due".
        """
        candidate = name.strip()
        with contextlib.suppress(OSError, ValueError, RuntimeError):
            on_disk = Path(candidate).expanduser().resolve()
            if on_disk.is_file() and on_disk.is_relative_to(self.vault):
                candidate = on_disk.relative_to(self.vault).as_posix()
        candidate = candidate.lstrip("/")
        paths = self._markdown_paths()
        if candidate in paths:
            return candidate
        wanted = candidate.removesuffix(".md").casefold()
        matches = [path for path in paths if path.removesuffix(".md").casefold() == wanted] or [
            path for path in paths if Path(path).stem.casefold() == wanted]
        if len(matches) == 1:
            return matches[0]
        if matches:
            raise NoteNotFound(f"{name!r} names {len(matches)} notes: give one of {', '.join(sorted(matches))}")
        raise NoteNotFound(f"no note {name!r} in the vault")

    def note(self, path: str) -> NoteCards:
        absolute = self.vault / path
        stat = absolute.stat()
        signature = (stat.st_mtime_ns, stat.st_size)
        cached = self._cache.get(path)
        if cached and cached[0] == signature:
            return cached[1]
        text = absolute.read_text("utf-8", errors="replace")
        if self.options.require_tag and not any(t.casefold() in text.casefold() for t in self.options.flashcard_tags):
            parsed = NoteCards(path, [], False)
        else:
            parsed = parse_cards(text, path, self.options)
        self._cache[path] = (signature, parsed)
        return parsed

    def notes(self, paths: list[str] | None = None) -> list[NoteCards]:
        found = []
        for path in paths if paths is not None else self._markdown_paths():
            try:
                parsed = self.note(path)
            except OSError as exc:
                log.warning("cannot read %s: %s", path, exc)
                continue
            if parsed.flashcards:
                found.append(parsed)
        return found

    def flashcards(self, deck: str | None = None, paths: list[str] | None = None) -> list[tuple[str, Flashcard]]:
        """(note path, flashcard) of every flashcard text, of one deck (and its sub-decks) if given."""
        return [(note.path, flashcard) for note in self.notes(paths) for flashcard in note.flashcards
                if not deck or any(d == deck or d.startswith(deck + "/") for d in flashcard.decks)]

    def cards(self, deck: str | None = None, paths: list[str] | None = None) -> list[DueCard]:
        return [_due_card(path, flashcard, card) for path, flashcard in self.flashcards(deck, paths)
                for card in flashcard.cards]

    def due(self, today: date | None = None, deck: str | None = None, limit: int | None = None,
            paths: list[str] | None = None, include_new: bool = True) -> list[DueCard]:
        """Due cards, most overdue first, then new cards in note order."""
        today = today or datetime.now().astimezone().date()
        reviewing = []
        new = []
        for card in self.cards(deck, paths):
            if card.is_new:
                if include_new:
                    new.append(card)
            elif card.due and date.fromisoformat(card.due) <= today:
                reviewing.append(card)
        reviewing.sort(key=lambda c: (c.due or "", c.path, c.line))
        ordered = reviewing + new
        return ordered[:limit] if limit is not None else ordered

    def next_due(self, today: date | None = None, deck: str | None = None,
                 paths: list[str] | None = None) -> tuple[str, int] | None:
        """(the first day after ``today`` a scheduled card is due, how many are due then), None if none is."""
        today = today or datetime.now().astimezone().date()
        later = Counter(card.due for card in self.cards(deck, paths)
                        if card.due and date.fromisoformat(card.due) > today)
        if not later:
            return None
        first = min(later)
        return first, later[first]

    def stats(self, today: date | None = None) -> dict[str, Any]:
        today = today or datetime.now().astimezone().date()
        decks: dict[str, Counter[str]] = {}
        for card in self.cards():
            for deck in card.decks:
                counter = decks.setdefault(deck, Counter())
                counter["total"] += 1
                if card.is_new:
                    counter["new"] += 1
                elif card.due and date.fromisoformat(card.due) <= today:
                    counter["due"] += 1
        totals: Counter[str] = Counter()
        for counter in decks.values():
            totals.update(counter)
        return {"today": today.isoformat(), "total": totals["total"], "due": totals["due"], "new": totals["new"],
                "decks": {name: dict(c) for name, c in sorted(decks.items())}}

    def find(self, card_id: str, path: str | None = None) -> tuple[str, Flashcard, Card]:
        paths = [path] if path else None
        for note in self.notes(paths):
            hit = note.card(card_id)
            if hit:
                return note.path, hit[0], hit[1]
        if path:  # the caller's path may be stale: look everywhere
            return self.find(card_id)
        raise CardNotFound(f"no card {card_id}: it was deleted, or its text changed since it was shown")

    # -- grading ----------------------------------------------------------
    def grade(self, card_id: str, rating: int | str, *, path: str | None = None, now: datetime | None = None,
              duration_s: float | None = None) -> GradeOutcome:
        """Schedule a card with FSRS and rewrite its comment (only it), never clobbering an edit."""
        rating = parse_rating(rating)
        now = now or datetime.now(UTC)
        note_path, _, _ = self.find(card_id, path)
        graded: list[tuple[Card, ReviewResult]] = []

        def regrade(text: str) -> str:
            hit = parse_cards(text, note_path, self.options).card(card_id)
            if hit is None:
                raise CardNotFound(f"card {card_id} is no longer in {note_path}: its text changed")
            flashcard, card = hit
            # A sibling never reviewed has no schedule, but may have the plugin's placeholder, whose
            # markers (``,suspended``) the new group keeps.
            placeholder = flashcard.schedules[card.sibling] if card.sibling < len(flashcard.schedules) else None
            result = self.scheduler.review(card.schedule or placeholder, rating, now, fsrs_form=flashcard.uses_fsrs)
            graded[:] = [(card, result)]
            return with_schedule(text, flashcard, card.sibling, result.schedule)

        attempts = 0

        def count(attempt: int) -> None:
            nonlocal attempts
            attempts = attempt
            if self.before_replace is not None:
                self.before_replace(attempt)

        try:
            update_note(self.vault, self.vault / note_path, regrade, before_replace=count)
        except NoteConflict as exc:
            raise ReviewConflict(f"{note_path} kept changing while the review was being saved; "
                                 "nothing was written, grade the card again") from exc
        self._cache.pop(note_path, None)
        card, result = graded[0]
        outcome = GradeOutcome(card_id, note_path, rating, result.schedule.due.isoformat(),
                               result.schedule.interval, result.schedule.ease,
                               card.schedule.due.isoformat() if card.schedule else None,
                               round(result.stability, 4), round(result.difficulty, 4), attempts)
        if self.progress is not None:
            self.progress.record("review", {"card": card_id, "path": note_path, "rating": rating,
                                            "interval": outcome.interval, "due": outcome.due},
                                 ts=now, duration_s=duration_s)
        return outcome


# -- the terminal review (keys and interval previews: cognivault.study.terminal) ----
def run_terminal_review(deck: ReviewDeck, cards: list[DueCard], stdin: IO[str], stdout: IO[str],
                        max_again: int = 3, clock: Callable[[], float] = time.monotonic) -> dict[str, Any]:
    """Show each card, reveal on Enter, read a grade 1–4 (one key on a terminal), each shown with the
    interval it would give.

    "Again" is a relearning step, as in Anki: the card comes back at the end of this session (up to
    ``max_again`` times), and its grade there sets the next review. The comment holds whole days, so
    an "again" is saved at once as due on the next day: that date holds only if the session ends
    before the card comes back, and the messages say so.
    """

    queue = list(cards)
    again_count: Counter[str] = Counter()
    summary: Counter[str] = Counter()
    graded_cards: set[str] = set()
    waiting_again: dict[str, str] = {}  # card id -> the day it is saved as due, until it comes back
    position = 0
    total = len(queue)
    while queue:
        card = queue.pop(0)
        position += 1
        crumb = " › ".join([card.title, *card.heading_path])
        status = " (again)" if again_count[card.id] else " (new)" if card.is_new else ""
        stdout.write(f"\n[{min(position, total)}/{total}] {', '.join(card.decks)} · {crumb}{status}\n\n")
        stdout.write(_indent(card.front) + "\n\n")
        shown = clock()
        answer = read_choice(stdin, stdout, "Enter: show answer · s: skip · q: quit > ", "sq")
        if answer is None or answer.lower() == "q":
            summary["quit"] += 1
            break
        if answer.lower() == "s":
            summary["skipped"] += 1
            continue
        back = _with_cloze_answers_marked(card, stdout.isatty()) if card.kind == "cloze" else card.back
        stdout.write("\n" + _indent(back) + "\n" + _source_line(card) + "\n")
        rating: int | None = None
        try:
            comes_back = again_count[card.id] < max_again
            prompt = grade_prompt(interval_preview(deck, card.id, card.path), again_in_session=comes_back)
        except CardNotFound as exc:
            stdout.write(f"Skipped: {exc}\n")
            summary["changed"] += 1
            continue
        for _ in range(5):
            answer = read_choice(stdin, stdout, prompt, "1234sq")
            if answer is None or answer.lower() in ("q", "s"):
                break
            try:
                rating = parse_rating(answer)
                break
            except ValueError:
                stdout.write("Please type 1, 2, 3 or 4.\n")
        if answer is None or (answer.lower() == "q" and rating is None):
            summary["quit"] += 1
            break
        if rating is None:
            summary["skipped"] += 1
            continue
        try:
            outcome = deck.grade(card.id, rating, path=card.path, duration_s=min(300.0, clock() - shown))
        except CardNotFound as exc:
            stdout.write(f"Skipped: {exc}\n")
            summary["changed"] += 1
            continue
        except ReviewConflict as exc:
            stdout.write(f"Not saved: {exc}\n")
            summary["conflicts"] += 1
            continue
        summary["reviewed"] += 1
        summary[RATING_NAMES[rating]] += 1
        graded_cards.add(card.id)
        waiting_again.pop(card.id, None)
        if rating == 1 and comes_back:
            waiting_again[card.id] = outcome.due
            again_count[card.id] += 1
            queue.append(card)
            total += 1
            stdout.write(f"→ again: it comes back later in this session (if you stop before, it is due "
                         f"{outcome.due})\n")
        else:
            stdout.write(f"→ {RATING_NAMES[rating]}: next review {outcome.due} "
                         f"(in {interval_label(outcome.interval)})\n")
    grades, skipped = summary["reviewed"], summary["skipped"]
    stdout.write(f"\nReviewed {counted(len(graded_cards), 'card')}"
                 + (f" ({counted(grades, 'grade')})" if grades != len(graded_cards) else "")
                 + (f", skipped {skipped}" if skipped else "") + ".\n")
    if waiting_again:
        stdout.write(f"{counted(len(waiting_again), 'card')} you marked again did not come back before the end: "
                     f"due {', '.join(sorted(set(waiting_again.values())))}.\n")
    return dict(summary)


_CLOZE_GAP = "[...]"


def _with_cloze_answers_marked(card: DueCard, terminal: bool) -> str:
    """A cloze card's answer side with what its front asked marked, so it stands out in the sentence as in the
    plugin: bold on a terminal, ``==term==`` (the note's own cloze form) elsewhere. Unchanged when the gaps
    cannot be told apart (a hint shown in place of ``[...]``)."""
    pieces = card.front.split(_CLOZE_GAP)
    if len(pieces) < 2:
        return card.back
    pattern = "(.+?)".join(re.escape(piece) for piece in pieces)
    found = re.fullmatch(pattern, card.back, re.DOTALL)
    if found is None:
        return card.back
    marked = [pieces[0]]
    for answer, after in zip(found.groups(), pieces[1:], strict=True):
        if answer != _CLOZE_GAP:  # a gap hidden on both sides stays a gap
            answer = f"\x1b[1m{answer}\x1b[0m" if terminal else f"=={answer}=="
        marked += [answer, after]
    return "".join(marked)


def _source_line(card: DueCard) -> str:
    """``  Source: Chloroplast › Structure`` and a newline: the note passages a generated card was made from
    (the review strips their links from the answer, so this is where the student sees them); ``""`` for none."""
    labels = dict.fromkeys(source.get("label") or " › ".join(part for part in (
        Path(str(source.get("target") or "")).name, source.get("heading")) if part) for source in card.sources)
    shown = [label for label in labels if label]
    return f"  Source: {'; '.join(shown)}\n" if shown else ""


def _indent(text: str) -> str:
    return "\n".join("  " + line for line in text.split("\n"))


def is_card_due(card: Card, today: date) -> bool:
    return is_due(card.schedule, today)
