"""The answer cache: a repeated question is answered at once, even after a restart; any index change invalidates it.

The key covers everything an answer depends on: the resolved question
(whitespace and case folded), the scope, the session context that went into
the prompt, the index generation (bumped by every change to the catalog),
the provider and the model (and the vault, the answer options and the
answering code itself: a digest of this package's source, so a changed
answerer, in development as after an upgrade, never replays old answers). Answers
with attachments, tool calls that read the clock, errors or cancellations
are never stored.

Each vault's cache is a file next to its index (``<index dir>/answer-cache.json``,
see :func:`cache_for`): it is rebuildable data like the index, it lives on
this machine only (a generation number means nothing against another
device's index, so a synced copy could serve stale answers), and it goes
when the index is deleted, so a rebuilt index never meets old answers.
Writes are atomic; processes that share a vault (editor, CLI) merge what
they find on disk before writing. Bounded to ``size`` entries and
``max_bytes`` on disk; entries of an older generation are dropped, as they
can never be asked for again.
"""

from __future__ import annotations

import copy
import hashlib
import json
import logging
import threading
import time
from collections import OrderedDict
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from cognivault.atomic import atomic_write_text

log = logging.getLogger(__name__)

DEFAULT_SIZE = 256
DEFAULT_TTL_S = 24 * 3600
DEFAULT_MAX_BYTES = 4 * 1024 * 1024
CACHE_FILE = "answer-cache.json"
FORMAT = 1


def source_digest(package: Path) -> str:
    """A digest of the Python source under ``package``: it changes whenever the code in it does."""
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode("utf-8") + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


# the package's source, as it runs: an answer is read from notes by the note reader, the analyzer and the study
# extractors too, not only by the answer package ("kommt das dran?" in vault/reading.py changes which lines are quoted)
ANSWER_CODE = source_digest(Path(__file__).resolve().parent.parent)


def cache_key(question: str, scope: dict[str, Any] | None, session_context: str, generation: int,
              provider: str, model: str, vault: str = "", options: dict[str, Any] | None = None) -> str:
    normalized = " ".join(question.casefold().split())
    raw = json.dumps([ANSWER_CODE, vault, normalized, scope or {}, session_context, generation, provider, model,
                      options or {}],
                     sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


@dataclass(slots=True)
class CachedAnswer:
    envelopes: list[dict[str, Any]]  # confidence, metadata, text (no thinking, memory or done)
    done: dict[str, Any]
    stored_at: float
    generation: int = 0


class AnswerCache:
    """LRU answers in memory, kept in ``path`` too when one is given (thread-safe, blocking file I/O)."""

    def __init__(self, size: int = DEFAULT_SIZE, ttl_s: float = DEFAULT_TTL_S, path: Path | None = None,
                 max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.size = size
        self.ttl_s = ttl_s
        self.path = path
        self.max_bytes = max_bytes
        self._entries: OrderedDict[str, CachedAnswer] = OrderedDict()
        self._lock = threading.Lock()
        self._seen: tuple[int, int] | None = None  # (mtime_ns, size) of the file as last merged
        self.hits = 0
        self.misses = 0

    def get(self, key: str) -> CachedAnswer | None:
        with self._lock:
            self._merge_from_disk()
            entry = self._entries.get(key)
            if entry is None or time.time() - entry.stored_at > self.ttl_s:
                if entry is not None:
                    del self._entries[key]
                self.misses += 1
                return None
            self._entries.move_to_end(key)
            self.hits += 1
            return copy.deepcopy(entry)

    def put(self, key: str, envelopes: list[dict[str, Any]], done: dict[str, Any], generation: int = 0) -> None:
        with self._lock:
            self._merge_from_disk()
            self._entries[key] = CachedAnswer(copy.deepcopy(envelopes), copy.deepcopy(done), time.time(), generation)
            self._entries.move_to_end(key)
            newest = max(entry.generation for entry in self._entries.values())
            for stale in [k for k, entry in self._entries.items() if entry.generation < newest]:
                del self._entries[stale]
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)
            self._write()

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._write()

    def __len__(self) -> int:
        return len(self._entries)

    # -- the file ------------------------------------------------------------------------------------
    def _stamp(self) -> tuple[int, int] | None:
        if self.path is None:
            return None
        try:
            status = self.path.stat()
        except OSError:
            return None
        return status.st_mtime_ns, status.st_size

    def _merge_from_disk(self) -> None:
        """Take in entries another process (or engine) wrote since we last looked; ours win on a tie."""
        if self.path is None:
            return
        stamp = self._stamp()
        if stamp is None or stamp == self._seen:
            return
        self._seen = stamp
        try:
            data = json.loads(self.path.read_text("utf-8"))
            if data.get("format") != FORMAT:
                return
            found = [(row["key"], CachedAnswer(row["envelopes"], row["done"], float(row["stored_at"]),
                                               int(row["generation"]))) for row in data["entries"]]
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            log.warning("answer cache %s ignored: %s", self.path, exc)
            return
        for key, entry in found:
            mine = self._entries.get(key)
            if mine is None or mine.stored_at < entry.stored_at:
                self._entries[key] = entry
        ordered = sorted(self._entries.items(), key=lambda item: item[1].stored_at)
        self._entries = OrderedDict(ordered[-self.size:])

    def _write(self) -> None:
        if self.path is None:
            return
        rows = [json.dumps({"key": key, **asdict(entry)}, ensure_ascii=False) for key, entry in self._entries.items()]
        total = sum(len(row) + 2 for row in rows)
        while rows and total > self.max_bytes:  # the oldest go first
            total -= len(rows[0]) + 2
            rows.pop(0)
            self._entries.popitem(last=False)
        try:
            entries = ",\n".join(rows)
            atomic_write_text(self.path, f'{{"format": {FORMAT}, "entries": [\n{entries}\n]}}\n')
        except OSError as exc:  # a read-only cache dir costs the speed-up, never the answer
            log.warning("answer cache %s not saved: %s", self.path, exc)
            return
        self._seen = self._stamp()


_caches: dict[Path, AnswerCache] = {}
_caches_lock = threading.Lock()


def cache_for(index_dir: Path) -> AnswerCache:
    """The one cache of the vault whose index is in ``index_dir`` (shared by every engine of this process)."""
    path = Path(index_dir).resolve() / CACHE_FILE
    with _caches_lock:
        if path not in _caches:
            _caches[path] = AnswerCache(path=path)
        return _caches[path]
