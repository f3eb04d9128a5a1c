"""Study progress: activity events, sessions, daily totals, streaks and the heatmap.

Events live in ``<vault>/.cognivault/progress/events-YYYY-MM.json``, one JSON
file per month in TinyDB's layout (``{"_default": {"1": event, ...}}``), so a
write rewrites at most one month. Every write replaces the file atomically
(temp file, fsync, rename) under an inter-process lock, so a ``kill -9`` at any
moment leaves the previous or the new month file, never a torn one.

A busy companion records many questions at once, so a write must stay cheap
as the month fills: concurrent ``record`` calls on one month share one rewrite
(group commit), and the month's parsed events are kept while the file on disk
is still the one this process last read or wrote. A write is then one
serialisation of the month (about 0.15 µs per event), not a parse, a table
rebuild and a serialisation per event.

Time rules (explicit, and what the badges use too):

- An event covers ``[ts − duration, ts]``; an event without a duration counts
  ``TOUCH_SECONDS`` (30 s), and no event counts more than ``MAX_EVENT_SECONDS``.
- A study session is a run of events whose gaps are at most
  ``IDLE_GAP_SECONDS`` (5 minutes); a longer gap ends the session. Session
  time is its end minus its start.
- Daily totals split sessions at local midnight.
- A day is a study day when it holds at least one study activity (every kind
  but ``note_edit``: editing notes adds time but alone keeps no streak).
- The current streak counts consecutive study days ending today, or ending
  yesterday while today has none yet; the longest streak is the longest run.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import time as _time
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from pathlib import Path
from typing import Any

import orjson

from cognivault.atomic import atomic_write_bytes
from cognivault.errors import CogniVaultError
from cognivault.paths import vault_data_dir
from cognivault.study.locks import file_lock

log = logging.getLogger(__name__)

EVENT_KINDS = ("ask", "quiz_attempt", "review", "generate", "lesson_read", "note_edit", "mindmap_view")
STUDY_KINDS = frozenset(EVENT_KINDS) - {"note_edit"}
TOUCH_SECONDS = 30.0
MAX_EVENT_SECONDS = 1800.0
IDLE_GAP_SECONDS = 300.0
HEATMAP_LEVELS = (0, 600, 1800, 3600)  # seconds: above 0 → 1, ≥10 min → 2, ≥30 min → 3, ≥1 h → 4


class ProgressError(CogniVaultError, ValueError):
    """A malformed event (unknown kind, bad timestamp)."""

    code = "bad_event"


_FileSignature = tuple[int, int, int]
_TABLE = "_default"  # TinyDB's default table: month files written before stay readable


@dataclass(frozen=True, slots=True)
class _Month:
    """One month file as parsed: its events by numeric id, and the next free id."""

    signature: _FileSignature
    table: dict[str, Any]
    next_id: int


_PARSED: dict[Path, _Month] = {}


def _signature(path: Path) -> _FileSignature | None:
    try:
        status = path.stat()
    except FileNotFoundError:
        return None
    return status.st_ino, status.st_mtime_ns, status.st_size


def _read_month(path: Path) -> _Month | None:
    """The month's events, parsed again only when the file changed (an atomic replace makes a new inode).

    The returned table is shared: callers must not change it (writers copy it).
    """
    signature = _signature(path)
    if signature is None:
        return None
    cached = _PARSED.get(path)
    if cached is not None and cached.signature == signature:
        return cached
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    data = orjson.loads(raw) if raw.strip() else {}
    table = data.get(_TABLE) if isinstance(data, dict) else None
    table = table if isinstance(table, dict) else {}
    ids = [int(key) for key in table if key.isdigit()]
    month = _Month(signature, table, max(ids, default=0) + 1)
    _PARSED[path] = month
    return month


def _write_month(path: Path, table: dict[str, Any], next_id: int) -> None:
    """Replace the month file atomically; only under the progress lock, so no other write can interleave."""
    _PARSED.pop(path, None)
    atomic_write_bytes(path, orjson.dumps({_TABLE: table}))
    signature = _signature(path)
    if signature is not None:
        _PARSED[path] = _Month(signature, table, next_id)


@dataclass(frozen=True, slots=True)
class Event:
    id: str
    ts: datetime  # aware
    kind: str
    duration_s: float
    data: dict[str, Any] = field(default_factory=dict)

    @property
    def start(self) -> datetime:
        return self.ts - timedelta(seconds=self.duration_s)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "ts": self.ts.isoformat(), "kind": self.kind,
                "duration_s": self.duration_s, "data": self.data}

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> Event:
        ts = datetime.fromisoformat(str(raw["ts"]))
        if ts.tzinfo is None:
            ts = ts.replace(tzinfo=UTC)
        return cls(str(raw["id"]), ts, str(raw["kind"]), float(raw.get("duration_s", TOUCH_SECONDS)),
                   dict(raw.get("data") or {}))


@dataclass(slots=True)
class Session:
    start: datetime
    end: datetime
    events: int
    kinds: Counter[str]

    @property
    def seconds(self) -> float:
        return (self.end - self.start).total_seconds()

    def to_dict(self) -> dict[str, Any]:
        return {"start": self.start.isoformat(), "end": self.end.isoformat(),
                "seconds": round(self.seconds, 1), "events": self.events, "kinds": dict(self.kinds)}


def sessions_of(events: Iterable[Event]) -> list[Session]:
    """Group events (any order) into sessions by the 5-minute idle-gap rule."""
    sessions: list[Session] = []
    for event in sorted(events, key=lambda e: (e.ts, e.id)):
        start, end = event.start, event.ts
        current = sessions[-1] if sessions else None
        if current is not None and (start - current.end).total_seconds() <= IDLE_GAP_SECONDS:
            current.start = min(current.start, start)
            current.end = max(current.end, end)
            current.events += 1
            current.kinds[event.kind] += 1
        else:
            sessions.append(Session(start, end, 1, Counter({event.kind: 1})))
    return sessions


class Clock:
    """The local calendar: which day a moment falls on (a fixed tz, or the system's with DST)."""

    def __init__(self, tz: tzinfo | None = None) -> None:
        self.tz = tz

    def local(self, moment: datetime) -> datetime:
        return moment.astimezone(self.tz) if self.tz is not None else moment.astimezone()

    def day(self, moment: datetime) -> date:
        return self.local(moment).date()

    def midnight_after(self, moment: datetime) -> datetime:
        local = self.local(moment)
        next_day = local.date() + timedelta(days=1)
        if self.tz is not None:
            return datetime.combine(next_day, time(0), tzinfo=self.tz)
        return datetime.combine(next_day, time(0)).astimezone()

    def now(self) -> datetime:
        return datetime.now(UTC)

    def today(self) -> date:
        return self.day(self.now())


def daily_seconds(sessions: Iterable[Session], clock: Clock) -> dict[date, float]:
    totals: dict[date, float] = defaultdict(float)
    for session in sessions:
        cursor = session.start
        while cursor < session.end:
            boundary = min(session.end, clock.midnight_after(cursor))
            totals[clock.day(cursor)] += (boundary - cursor).total_seconds()
            cursor = boundary
    return dict(totals)


def streaks(study_days: set[date], today: date) -> tuple[int, int]:
    """(current, longest) runs of consecutive study days."""
    current = 0
    cursor = today if today in study_days else today - timedelta(days=1)
    while cursor in study_days:
        current += 1
        cursor -= timedelta(days=1)
    longest = run = 0
    previous: date | None = None
    for day in sorted(study_days):
        run = run + 1 if previous is not None and day - previous == timedelta(days=1) else 1
        longest = max(longest, run)
        previous = day
    return current, longest


def heat_level(seconds: float) -> int:
    if seconds <= 0:
        return 0
    return 1 + sum(1 for threshold in HEATMAP_LEVELS[1:] if seconds >= threshold)


@dataclass(eq=False, slots=True)
class _Pending:
    """One ``record`` call waiting for its event to be written."""

    event: Event
    idempotent: bool
    stored: Event | None = None
    error: BaseException | None = None
    done: bool = False


class _GroupCommit:
    """Concurrent ``record`` calls on one month file share one rewrite.

    Each caller queues its event; whoever holds the writer turn writes all that
    is queued by then, and callers that arrived meanwhile find their event
    written or take the next turn. Every call returns only once its own event is
    on disk (or raises the error its batch met).
    """

    def __init__(self) -> None:
        self._queue: list[_Pending] = []
        self._queue_lock = threading.Lock()
        self._turn = threading.Lock()

    def submit(self, pending: _Pending, write: Callable[[list[_Pending]], None]) -> None:
        with self._queue_lock:
            self._queue.append(pending)
        while not pending.done:
            with self._turn:
                if pending.done:
                    break
                with self._queue_lock:
                    batch, self._queue = self._queue, []
                try:
                    write(batch)
                except BaseException as exc:  # each waiting caller re-raises its batch's error
                    for item in batch:
                        item.error = exc
                finally:
                    for item in batch:
                        item.done = True
        if pending.error is not None:
            raise pending.error


_GROUPS: dict[Path, _GroupCommit] = {}
_GROUPS_LOCK = threading.Lock()


def _group_of(shard: Path) -> _GroupCommit:
    with _GROUPS_LOCK:
        return _GROUPS.setdefault(shard, _GroupCommit())


class ProgressStore:
    """The event log of one vault, with the figures the dashboard shows."""

    def __init__(self, vault: Path, tz: tzinfo | None = None) -> None:
        self.vault = Path(vault)
        self.folder = vault_data_dir(self.vault) / "progress"
        self.clock = Clock(tz)
        self.messages: list[str] = []

    # -- writing ----------------------------------------------------------
    def _lock(self) -> contextlib.AbstractContextManager[None]:
        return file_lock(self.folder / ".lock")

    def _shard(self, moment: datetime) -> Path:
        utc = moment.astimezone(UTC)
        return self.folder / f"events-{utc.year:04d}-{utc.month:02d}.json"

    def record(self, kind: str, data: dict[str, Any] | None = None, *, ts: datetime | None = None,
               duration_s: float | None = None, event_id: str | None = None) -> Event:
        """Append one event (idempotent when ``event_id`` is given and already stored)."""
        if kind not in EVENT_KINDS:
            raise ProgressError(f"unknown event kind {kind!r}: one of {', '.join(EVENT_KINDS)}")
        ts = ts or self.clock.now()
        if ts.tzinfo is None:
            raise ProgressError("event time must carry a time zone")
        duration = TOUCH_SECONDS if duration_s is None else float(duration_s)
        duration = min(MAX_EVENT_SECONDS, max(0.0, duration))
        event = Event(event_id or uuid.uuid4().hex, self.clock.local(ts), kind, duration,
                      json.loads(json.dumps(data or {}, default=str)))
        pending = _Pending(event, idempotent=event_id is not None)
        shard = self._shard(event.ts)
        _group_of(shard).submit(pending, lambda batch: self._write_batch(shard, batch))
        assert pending.stored is not None
        return pending.stored

    def _write_batch(self, shard: Path, batch: list[_Pending]) -> None:
        """Store ``batch`` in one rewrite of ``shard``; an event whose id is already stored keeps the stored one."""
        with self._lock():
            month = _read_month(shard)
            table = dict(month.table) if month else {}
            next_id = month.next_id if month else 1
            wanted = {item.event.id for item in batch if item.idempotent}
            stored = {str(raw["id"]): Event.from_dict(raw) for raw in table.values()
                      if isinstance(raw, dict) and raw.get("id") in wanted} if wanted else {}
            for item in batch:
                item.stored = stored.get(item.event.id)
                if item.stored is None:
                    item.stored = stored[item.event.id] = item.event
                    table[str(next_id)] = item.event.to_dict()
                    next_id += 1
            if month is None or len(table) > len(month.table):
                _write_month(shard, table, next_id)

    # -- reading ----------------------------------------------------------
    def _shards(self) -> list[Path]:
        if not self.folder.is_dir():
            return []
        return sorted(self.folder.glob("events-[0-9][0-9][0-9][0-9]-[0-9][0-9].json"))

    def events(self, since: datetime | None = None, kinds: Iterable[str] | None = None) -> list[Event]:
        wanted = set(kinds) if kinds is not None else None
        found: list[Event] = []
        for shard in self._shards():
            try:
                month = _read_month(shard)
            except (OSError, json.JSONDecodeError) as exc:
                message = f"progress file {shard.name} is unreadable ({exc}); it is skipped"
                if message not in self.messages:
                    self.messages.append(message)
                    log.warning(message)
                continue
            for raw in (month.table if month else {}).values():
                try:
                    event = Event.from_dict(raw)
                except (KeyError, TypeError, ValueError):
                    continue
                if since is not None and event.ts < since:
                    continue
                if wanted is not None and event.kind not in wanted:
                    continue
                found.append(event)
        found.sort(key=lambda e: (e.ts, e.id))
        return found

    def iter_events(self) -> Iterator[Event]:
        yield from self.events()

    def cleanup_temp_files(self, older_than_s: float = 3600) -> int:
        """Remove temp files a killed writer left behind (they never replace anything by themselves)."""
        removed = 0
        if not self.folder.is_dir():
            return 0
        for leftover in self.folder.glob(".events-*.tmp"):
            with contextlib.suppress(OSError):
                if _time.time() - leftover.stat().st_mtime > older_than_s:
                    leftover.unlink()
                    removed += 1
        return removed

    # -- figures ----------------------------------------------------------
    def summary(self, days: int = 90, today: date | None = None, recent: int = 10) -> dict[str, Any]:
        events = self.events()
        today = today or self.clock.today()
        sessions = sessions_of(events)
        per_day = daily_seconds(sessions, self.clock)
        study_days = {self.clock.day(e.ts) for e in events if e.kind in STUDY_KINDS}
        current, longest = streaks(study_days, today)
        counts = Counter(e.kind for e in events)
        return {
            "total_seconds": round(sum(s.seconds for s in sessions), 1),
            "today_seconds": round(per_day.get(today, 0.0), 1),
            "today": today.isoformat(),
            "sessions": len(sessions),
            "current_streak": current,
            "longest_streak": longest,
            "study_days": len(study_days),
            "counts": dict(counts),
            "heatmap": self.heatmap(days, today, per_day, events),
            "recent_quizzes": recent_quizzes(events, recent),
            "messages": list(self.messages),
        }

    def heatmap(self, days: int = 90, today: date | None = None, per_day: dict[date, float] | None = None,
                events: list[Event] | None = None) -> list[dict[str, Any]]:
        days = max(1, min(int(days), 3660))
        today = today or self.clock.today()
        if events is None:
            events = self.events()
        if per_day is None:
            per_day = daily_seconds(sessions_of(events), self.clock)
        event_counts = Counter(self.clock.day(e.ts) for e in events)
        cells = []
        for offset in range(days - 1, -1, -1):
            day = today - timedelta(days=offset)
            seconds = per_day.get(day, 0.0)
            cells.append({"date": day.isoformat(), "seconds": round(seconds, 1), "events": event_counts.get(day, 0),
                          "level": heat_level(seconds)})
        return cells


def recent_quizzes(events: list[Event], limit: int = 10) -> list[dict[str, Any]]:
    attempts = [e for e in events if e.kind == "quiz_attempt"][-limit:]
    return [{"ts": e.ts.isoformat(), "quiz": e.data.get("quiz"), "title": e.data.get("title"),
             "correct": e.data.get("correct"), "total": e.data.get("total"), "score": e.data.get("score")}
            for e in reversed(attempts)]
