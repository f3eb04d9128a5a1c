"""Keeps the garbage collector's long pauses out of the user's requests.

A full collection walks every object the collector tracks and holds every thread
while it does. On a 50k-passage vault the note graph, the snapshots and the
caches the features build make that 50 to 200 ms, and CPython starts one
whenever enough objects have survived into its oldest generation: in the middle
of a keystroke's completion, or of an edit's re-index (measured: a 64 ms
collection inside the first edit's update).

So once the first pass is done (at once when no pass runs at start), before its
warm-up, the language server (:class:`IdleCollector`), and ``cognivault serve`` once
its warm-up is done (the startup pass's garbage set off a full collection inside
the first questions' answers: 120-180 ms):

- moves what exists out of the collector's reach (``gc.freeze``) and turns off
  automatic full collections; the young generations are still collected
  automatically, which takes a few milliseconds;
- runs the full collection itself when no request has run for
  :data:`IDLE_COLLECT_MS`, over what was built since the last one only, then
  freezes what survived;
- under requests that never leave it idle that long (answers asked back to back),
  runs it between two of them once :data:`MAX_WAIT_S` passed since the last one,
  so memory stays flat (it grew ~110 KB an answer while no collection ran);
- at most every :data:`SWEEP_EVERY_S`, after :data:`SWEEP_IDLE_MS` without
  requests, collects everything, frozen objects included. Frozen objects are
  not examined by the other collections, so garbage cycles among them (rare:
  most objects are freed by reference counting as usual) wait for this sweep.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import time
from collections.abc import Iterator

IDLE_COLLECT_MS = 1000
SWEEP_IDLE_MS = 30_000
SWEEP_EVERY_S = 600.0
MAX_WAIT_S = 30.0  # the longest full collections wait for an idle moment while requests keep coming
NEVER = 2**31 - 1  # a gen-2 threshold no count of gen-1 collections reaches


class IdleCollector:
    """Full garbage collections only while the server is idle (see the module doc)."""

    def __init__(self, idle_ms: int = IDLE_COLLECT_MS, sweep_idle_ms: int = SWEEP_IDLE_MS,
                 sweep_every_s: float = SWEEP_EVERY_S, max_wait_s: float = MAX_WAIT_S) -> None:
        self.idle_ms = idle_ms
        self.max_wait_s = max_wait_s
        self.sweep_idle_ms = sweep_idle_ms
        self.sweep_every_s = sweep_every_s
        self.active = False
        self.collections = 0  # idle collections run so far
        self.sweeps = 0
        self._busy = 0
        self._last_sweep = self._last_collection = time.monotonic()
        self._threshold = gc.get_threshold()
        self._timers: list[asyncio.TimerHandle] = []

    def start(self) -> None:
        """Freeze what exists, as it is (no full collection first: on a 52k-passage vault that took ~2 s
        on 2 busy cores), and take over full collections from here on (on the event loop)."""
        gc.freeze()
        self._threshold = gc.get_threshold()
        gc.set_threshold(self._threshold[0], self._threshold[1], NEVER)
        self.active = True
        self._last_collection = time.monotonic()
        self._arm()

    def stop(self) -> None:
        for timer in self._timers:
            timer.cancel()
        self._timers.clear()
        if self.active:
            self.active = False
            gc.set_threshold(*self._threshold)

    @contextlib.contextmanager
    def busy(self) -> Iterator[None]:
        """Around a request's work (on the event loop): no collection starts while it runs."""
        self._busy += 1
        try:
            yield
        finally:
            self._busy -= 1
            self.touched()

    def touched(self) -> None:
        """Activity (a request ended, a document changed): idle time counts from now."""
        if self.active:
            if time.monotonic() - self._last_collection >= self.max_wait_s:
                self._collect()  # never idle for long: between two requests, then
            self._arm()

    def _arm(self) -> None:
        for timer in self._timers:
            timer.cancel()
        loop = asyncio.get_running_loop()
        self._timers = [loop.call_later(self.idle_ms / 1000, self._collect)]
        if time.monotonic() - self._last_sweep >= self.sweep_every_s:
            self._timers.append(loop.call_later(self.sweep_idle_ms / 1000, self._sweep))

    def _collect(self) -> None:
        if self._busy or not self.active:
            return  # the request's end arms the timer again
        gc.collect()
        gc.freeze()
        self.collections += 1
        self._last_collection = time.monotonic()

    def _sweep(self) -> None:
        if self._busy or not self.active:
            return
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        self.sweeps += 1
        self._last_sweep = time.monotonic()
