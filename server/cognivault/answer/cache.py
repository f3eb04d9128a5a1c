"""A small answer cache: a repeated question is answered at once, and any index change invalidates it.

The key covers everything an answer depends on: the resolved question
(whitespace and case folded), the scope, the session context that went into
the prompt, the index generation (bumped by every change to the catalog),
the provider and the model (and the vault and the answer options, so one
process serving several vaults never mixes them up). Answers with attachments, tool calls that read
the clock, errors or cancellations are never stored. In memory, LRU, per
process.
"""

from __future__ import annotations

import copy
import hashlib
import json
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

DEFAULT_SIZE = 256
DEFAULT_TTL_S = 24 * 3600


def cache_key(question: str, scope: dict[str, Any] | None, session_context: str, generation: int,
              provider: str, model: str, vault: str = "", options: dict[str, Any] | None = None) -> str:
    normalized = " ".join(question.casefold().split())
    raw = json.dumps([vault, normalized, scope or {}, session_context, generation, provider, model, options or {}],
                     sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


@dataclass(slots=True)
class CachedAnswer:
    envelopes: list[dict[str, Any]]  # confidence, metadata, text (no thinking, memory or done)
    done: dict[str, Any]
    stored_at: float


class AnswerCache:
    def __init__(self, size: int = DEFAULT_SIZE, ttl_s: float = DEFAULT_TTL_S) -> None:
        self.size = size
        self.ttl_s = ttl_s
        self._entries: OrderedDict[str, CachedAnswer] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: str) -> CachedAnswer | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None or time.time() - entry.stored_at > self.ttl_s:
                if entry is not None:
                    del self._entries[key]
                self.misses += 1
                return None
            self._entries.move_to_end(key)
            self.hits += 1
            return copy.deepcopy(entry)

    def put(self, key: str, envelopes: list[dict[str, Any]], done: dict[str, Any]) -> None:
        with self._lock:
            self._entries[key] = CachedAnswer(copy.deepcopy(envelopes), copy.deepcopy(done), time.time())
            self._entries.move_to_end(key)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)


DEFAULT_CACHE = AnswerCache()
