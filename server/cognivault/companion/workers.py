"""Where the companion's blocking work runs, so searches stay quick while answers stream and the vault indexes.

Python runs one thread's bytecode at a time, so CPU-bound threads slow each other
down, and a quick search queued behind answer work waits for all of it. Measured
on 2 cores with 50 answer streams and 200 searches a second: with one pool of 4
threads for everything, searches waited 2.6 s in its queue and a tenth of them
were refused; split as below, every search was answered, p50 12 ms.

- **requests**: one thread for the short blocking work of request handlers
  (search, related notes, status, study figures, recording study events);
- **answers**: one thread for the answer pipeline's steps (retrieval, choosing
  sentences, sessions) and other answer-sized work. A step starts only when no
  request work is in flight, or after :data:`ANSWER_YIELD_S` at the latest, so
  answers give way to searches but never starve; a running step counts as
  request work for the background (the index pass after ``serve`` starts made
  the first question's first envelope wait);
- **background**: a few threads for long work that must hold up neither lane:
  URL imports, transcriptions, the warm-up. Index passes, the file watcher's
  updates and index saves run on the live vault's writer thread
  (:mod:`cognivault.live`), which waits between its steps while request work
  counted by the same :class:`RequestGate` runs.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from cognivault.threads import RequestGate

T = TypeVar("T")

ANSWER_YIELD_S = 0.05  # the longest an answer step waits for request work to finish
BACKGROUND_THREADS = 4


class YieldingExecutor(ThreadPoolExecutor):
    """A thread pool whose tasks each start when ``gate`` is quiet, or after ``max_wait_s``, and
    count in ``gate`` while they run (with one thread, they never wait for each other)."""

    def __init__(self, gate: RequestGate, max_workers: int, max_wait_s: float = ANSWER_YIELD_S,
                 thread_name_prefix: str = "") -> None:
        super().__init__(max_workers=max_workers, thread_name_prefix=thread_name_prefix)
        self.gate = gate
        self.max_wait_s = max_wait_s

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        def after_requests() -> T:
            self.gate.wait_quiet(self.max_wait_s)
            with self.gate.request():  # background work (the index writer) waits for it in turn
                return fn(*args, **kwargs)

        return super().submit(after_requests)


@dataclass(frozen=True, slots=True)
class Workers:
    """The companion's three lanes of threads (see the module doc)."""

    gate: RequestGate
    requests: ThreadPoolExecutor
    answers: YieldingExecutor
    background: ThreadPoolExecutor

    @classmethod
    def start(cls, background_threads: int = BACKGROUND_THREADS) -> Workers:
        gate = RequestGate()
        return cls(gate,
                   ThreadPoolExecutor(max_workers=1, thread_name_prefix="cognivault-requests"),
                   YieldingExecutor(gate, max_workers=1, thread_name_prefix="cognivault-answers"),
                   ThreadPoolExecutor(max_workers=background_threads, thread_name_prefix="cognivault-background"))

    def shutdown(self, wait: bool = True) -> None:
        for pool in (self.requests, self.answers, self.background):
            pool.shutdown(wait=wait)
