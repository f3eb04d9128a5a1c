"""Progress events: sessions, daily totals, streaks, heatmap, and survival of kill -9 mid-write."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from cognivault.study.progress import (
    Clock,
    Event,
    ProgressError,
    ProgressStore,
    daily_seconds,
    sessions_of,
    streaks,
)

UTC = UTC
T0 = datetime(2025, 3, 10, 12, 0, tzinfo=UTC)


def event(offset_s: float, kind: str = "review", duration: float = 0.0, base: datetime = T0) -> Event:
    return Event(f"e{offset_s}-{kind}", base + timedelta(seconds=offset_s), kind, duration)


def test_a_gap_over_five_minutes_ends_a_session() -> None:
    assert len(sessions_of([event(0), event(300)])) == 1
    assert len(sessions_of([event(0), event(301)])) == 2
    # durations count: the second event began 60 s before it was recorded
    joined = sessions_of([event(0), event(360, duration=60)])
    assert len(joined) == 1 and joined[0].seconds == 360


def test_session_time_and_daily_split_at_midnight() -> None:
    late = datetime(2025, 3, 10, 23, 55, tzinfo=UTC)
    sessions = sessions_of([event(0, base=late), event(240, base=late), event(480, base=late)])
    assert len(sessions) == 1 and sessions[0].seconds == 480
    per_day = daily_seconds(sessions, Clock(UTC))
    assert per_day == {date(2025, 3, 10): 300.0, date(2025, 3, 11): 180.0}


def test_streaks() -> None:
    today = date(2025, 3, 10)
    days = {today - timedelta(days=n) for n in (0, 1, 2, 5, 6, 7, 8)}
    assert streaks(days, today) == (3, 4)
    assert streaks(days - {today}, today) == (2, 4)  # today not studied yet: yesterday's streak holds
    assert streaks(days - {today, today - timedelta(days=1)}, today) == (0, 4)
    assert streaks(set(), today) == (0, 0)


def test_summary_figures(tmp_path: Path) -> None:
    store = ProgressStore(tmp_path, tz=UTC)
    today = date(2025, 3, 10)
    for days_ago in (0, 1, 2, 4):
        base = datetime.combine(today - timedelta(days=days_ago), datetime.min.time(), UTC) + timedelta(hours=9)
        store.record("review", {"rating": 3}, ts=base, duration_s=60)
        store.record("review", {"rating": 3}, ts=base + timedelta(minutes=2), duration_s=60)
    store.record("note_edit", ts=datetime(2025, 3, 5, 9, tzinfo=UTC))  # time, but no streak day
    store.record("quiz_attempt", {"quiz": "Study/Q.md", "title": "Q", "correct": 4, "total": 5, "score": 0.8},
                 ts=datetime(2025, 3, 10, 10, tzinfo=UTC), duration_s=120)
    summary = store.summary(days=90, today=today)
    assert summary["current_streak"] == 3 and summary["longest_streak"] == 3
    assert summary["today_seconds"] == 180 + 120
    assert summary["total_seconds"] == 4 * 180 + 30 + 120
    assert summary["study_days"] == 4
    heatmap = summary["heatmap"]
    assert len(heatmap) == 90 and heatmap[-1]["date"] == "2025-03-10" and heatmap[0]["date"] == "2024-12-11"
    assert heatmap[-1]["level"] == 1 and heatmap[-1]["events"] == 3
    assert summary["recent_quizzes"][0]["score"] == 0.8
    assert summary["counts"] == {"review": 8, "note_edit": 1, "quiz_attempt": 1}


def test_heat_levels(tmp_path: Path) -> None:
    store = ProgressStore(tmp_path, tz=UTC)
    for minute in range(0, 61, 4):  # one hour and a bit of continuous study
        store.record("review", ts=T0 + timedelta(minutes=minute), duration_s=240)
    cell = store.heatmap(days=1, today=T0.date())[0]
    assert cell["seconds"] >= 3600 and cell["level"] == 4


def test_record_validates_and_is_idempotent_with_an_id(tmp_path: Path) -> None:
    store = ProgressStore(tmp_path, tz=UTC)
    with pytest.raises(ProgressError):
        store.record("dancing")
    with pytest.raises(ProgressError):
        store.record("ask", ts=datetime(2025, 1, 1))
    first = store.record("note_edit", {"path": "a.md"}, ts=T0, event_id="edit-1")
    again = store.record("note_edit", {"path": "a.md"}, ts=T0 + timedelta(hours=1), event_id="edit-1")
    assert again.ts == first.ts and len(store.events()) == 1


def test_events_are_sharded_by_month_and_an_unreadable_shard_is_reported(tmp_path: Path) -> None:
    store = ProgressStore(tmp_path, tz=UTC)
    store.record("ask", ts=datetime(2025, 1, 31, tzinfo=UTC))
    store.record("ask", ts=datetime(2025, 2, 1, tzinfo=UTC))
    shards = sorted(p.name for p in store.folder.glob("events-*.json"))
    assert shards == ["events-2025-01.json", "events-2025-02.json"]
    (store.folder / "events-2025-01.json").write_text("{not json", "utf-8")
    assert len(store.events()) == 1 and "unreadable" in store.messages[0]


WRITER = r"""
import os, sys, signal
from datetime import datetime, timedelta, timezone
import cognivault.atomic as atomic
from cognivault.study.progress import ProgressStore

vault, start, mode, crash_at = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
calls = {"n": 0}
if mode != "random":
    target = getattr(atomic.os, mode)
    def crashing(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == crash_at:
            os.kill(os.getpid(), signal.SIGKILL)
        return target(*args, **kwargs)
    setattr(atomic.os, mode, crashing)
store = ProgressStore(vault, tz=timezone.utc)
base = datetime(2025, 3, 10, tzinfo=timezone.utc)
i = start
while True:
    store.record("review", {"n": i, "pad": "x" * 2000}, ts=base + timedelta(seconds=i), event_id=f"e{i}")
    print(i, flush=True)
    i += 1
"""


def run_writer(vault: Path, start: int, mode: str, crash_at: int, seconds: float | None = None) -> list[int]:
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(vault), str(start), mode, str(crash_at)],
                            stdout=subprocess.PIPE, text=True)
    if seconds is not None:
        time.sleep(seconds)
        os.kill(proc.pid, signal.SIGKILL)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    return [int(line) for line in out.split()]


@pytest.mark.parametrize("mode,crash_at", [("fsync", 5), ("replace", 3), ("random", 0)])
def test_progress_survives_kill_9_mid_write(tmp_path: Path, mode: str, crash_at: int) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    acknowledged: list[int] = []
    start = 0
    for _ in range(2):
        acknowledged += run_writer(vault, start, mode, crash_at, seconds=0.8 if mode == "random" else None)
        start = (acknowledged[-1] + 1) if acknowledged else start + 1000
        store = ProgressStore(vault, tz=UTC)
        numbers = {e.data["n"] for e in store.events()}
        assert set(acknowledged) <= numbers  # every write that returned is on disk
        assert len(numbers - set(acknowledged)) <= 1  # at most the one in flight, whole
        for shard in store.folder.glob("events-*.json"):
            json.loads(shard.read_text("utf-8"))  # never torn
    if mode != "random":
        assert acknowledged  # the crash came after some writes
    leftovers = list(store.folder.glob(".events-*.tmp"))
    for leftover in leftovers:
        os.utime(leftover, (0, 0))
    assert store.cleanup_temp_files() == len(leftovers)
    store.record("ask")
    assert len(store.events()) >= len(acknowledged) + 1


APPENDER = r"""
import sys
from datetime import datetime, timedelta, timezone
from cognivault.study.progress import ProgressStore
store = ProgressStore(sys.argv[1], tz=timezone.utc)
base = datetime(2025, 3, 10, tzinfo=timezone.utc)
for i in range(25):
    store.record("ask", {"writer": sys.argv[2], "n": i}, ts=base + timedelta(seconds=i))
"""


def test_two_processes_appending_lose_nothing(tmp_path: Path) -> None:
    procs = [subprocess.Popen([sys.executable, "-c", APPENDER, str(tmp_path), name]) for name in ("a", "b")]
    assert [p.wait(timeout=60) for p in procs] == [0, 0]
    events = ProgressStore(tmp_path, tz=UTC).events()
    assert len(events) == 50 and {e.data["writer"] for e in events} == {"a", "b"}


def _count_rewrites(monkeypatch: pytest.MonkeyPatch, callers: int) -> list[int]:
    """Counts rewrites of month files; the first one is held until all ``callers`` queued behind it."""
    from cognivault.study import progress

    writes: list[int] = []
    real = progress.atomic_write_bytes

    def counted(path: Path, data: bytes, mode: int | None = None) -> None:
        writes.append(len(data))
        if len(writes) == 1:
            queue = progress._group_of(path)._queue
            written = len(json.loads(data)[progress._TABLE])  # events in the first batch
            deadline = time.monotonic() + 120  # bounds a hang only: no clock decides who queues
            while written + len(queue) < callers and time.monotonic() < deadline:
                time.sleep(0.01)
        real(path, data, mode)

    monkeypatch.setattr(progress, "atomic_write_bytes", counted)
    return writes


def test_concurrent_records_share_rewrites_and_each_gets_its_own_event(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    writes = _count_rewrites(monkeypatch, callers=20)
    store = ProgressStore(tmp_path, tz=UTC)
    start = threading.Barrier(20)
    returned: dict[int, Event] = {}

    def ask(n: int) -> None:
        start.wait()
        returned[n] = store.record("ask", {"n": n}, ts=T0 + timedelta(seconds=n))

    threads = [threading.Thread(target=ask, args=(n,)) for n in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(e.data["n"] for e in returned.values()) == list(range(20))
    assert all(returned[n].data["n"] == n for n in range(20))
    stored = ProgressStore(tmp_path, tz=UTC).events()
    assert sorted(e.id for e in stored) == sorted(e.id for e in returned.values())
    # the callers that queued behind the first write were written together, in the next one
    assert len(writes) == 2, writes


def test_a_failed_rewrite_fails_every_caller_of_its_batch_and_loses_nothing_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from cognivault.study import progress

    store = ProgressStore(tmp_path, tz=UTC)
    kept = store.record("review", ts=T0)

    def full_disk(path: Path, data: bytes, mode: int | None = None) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(progress, "atomic_write_bytes", full_disk)
    with pytest.raises(OSError, match="No space"):
        store.record("review", ts=T0 + timedelta(seconds=1))
    monkeypatch.undo()
    assert [e.id for e in store.events()] == [kept.id]
    later = store.record("review", ts=T0 + timedelta(seconds=2))
    assert [e.id for e in store.events()] == [kept.id, later.id]


def test_a_month_file_replaced_by_another_process_is_read_again(tmp_path: Path) -> None:
    store = ProgressStore(tmp_path, tz=UTC)
    mine = store.record("review", ts=T0)
    shard = next((tmp_path / ".cognivault" / "progress").glob("events-*.json"))
    data = json.loads(shard.read_text("utf-8"))
    theirs = {"id": "from-the-other-process", "ts": (T0 + timedelta(seconds=5)).isoformat(), "kind": "ask",
              "duration_s": 30.0, "data": {}}
    data["_default"]["2"] = theirs
    replacement = shard.with_name("other-writer.tmp")
    replacement.write_text(json.dumps(data), "utf-8")
    os.replace(replacement, shard)  # what the other process's atomic write does: a new inode
    assert [e.id for e in store.events()] == [mine.id, "from-the-other-process"]
    third = store.record("ask", ts=T0 + timedelta(seconds=9))
    assert [e.id for e in ProgressStore(tmp_path, tz=UTC).events()] == [mine.id, "from-the-other-process", third.id]
