"""Full garbage collections run while the language server is idle, never during a request."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Iterator

import pytest

from cognivault.collector import NEVER, IdleCollector


class _Node:
    def __init__(self) -> None:
        self.other: _Node | None = None


@pytest.fixture
def collections() -> Iterator[list[int]]:
    """Generations of the collections that run, as the collector's callbacks see them."""
    seen: list[int] = []
    threshold = gc.get_threshold()

    def callback(phase: str, info: dict) -> None:  # type: ignore[type-arg]
        if phase == "stop":
            seen.append(info["generation"])

    gc.callbacks.append(callback)
    yield seen
    gc.callbacks.remove(callback)
    gc.set_threshold(*threshold)
    gc.unfreeze()


def _garbage_cycle() -> weakref.ref[_Node]:
    first, second = _Node(), _Node()
    first.other, second.other = second, first
    return weakref.ref(first)


async def test_full_collections_wait_for_an_idle_moment(collections: list[int]) -> None:
    collector = IdleCollector(idle_ms=100)
    threshold = gc.get_threshold()
    collector.start()
    try:
        assert gc.get_threshold() == (threshold[0], threshold[1], NEVER)
        with collector.busy():
            garbage = [_garbage_cycle() for _ in range(20_000)]  # enough for many young collections
            await asyncio.sleep(0.3)  # longer than the idle time: a request is still running
            assert collector.collections == 0 and 2 not in collections
        await asyncio.sleep(0.3)
        assert collector.collections == 1 and 2 in collections
        assert all(cycle() is None for cycle in garbage)
        assert gc.get_freeze_count() > 0  # what survived is out of the next collections' way
    finally:
        collector.stop()
    assert gc.get_threshold() == threshold


async def test_activity_postpones_the_collection(collections: list[int]) -> None:
    collector = IdleCollector(idle_ms=200)
    loop = asyncio.get_running_loop()
    collector.start()
    try:
        longest_gap, last = 0.0, loop.time()
        for _ in range(6):
            await asyncio.sleep(0.08)
            longest_gap, last = max(longest_gap, loop.time() - last), loop.time()
            collector.touched()  # an edit every 80 ms
        before = collector.collections
        if longest_gap < 0.15:  # every edit came within the idle time (a loaded machine may sleep longer)
            assert before == 0
        await asyncio.sleep(0.4)  # the loop runs the idle timer, due earlier, before this wakes
        assert collector.collections == before + 1
    finally:
        collector.stop()


async def test_the_sweep_frees_garbage_cycles_among_frozen_objects(collections: list[int]) -> None:
    first, second = _Node(), _Node()
    first.other, second.other = second, first
    cycle = weakref.ref(first)
    gc.freeze()  # as the warm-up does with everything it built
    del first, second
    collector = IdleCollector(idle_ms=50, sweep_idle_ms=200, sweep_every_s=0)
    collector.start()
    try:
        await asyncio.sleep(0.1)  # the timers due earlier run first: the collection, and on a slow machine the sweep
        assert collector.collections == 1
        if collector.sweeps == 0:
            assert cycle() is not None  # frozen: out of the ordinary collection's reach
        await asyncio.sleep(0.3)
        assert collector.sweeps == 1 and cycle() is None
    finally:
        collector.stop()


async def test_requests_that_never_leave_it_idle_still_get_a_collection_between_them(collections: list[int]) -> None:
    """Issue 28: answers asked back to back never left the companion idle for a second, so no full
    collection ran and memory grew with every answer. Past ``max_wait_s`` it runs between two requests."""
    collector = IdleCollector(idle_ms=600_000, max_wait_s=0.0)  # never idle long enough: only the wait counts
    collector.start()
    try:
        with collector.busy():
            garbage = [_garbage_cycle() for _ in range(20_000)]
            assert collector.collections == 0  # never during a request
        assert collector.collections == 1 and 2 in collections  # at its end
        assert all(cycle() is None for cycle in garbage)
    finally:
        collector.stop()
