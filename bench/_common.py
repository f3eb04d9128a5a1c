"""Shared bits of the benchmarks: where the eval data is, isolated cache dirs, percentiles, timing proxies."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import statistics
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SHARED_EVAL = Path(os.environ.get("COGNIVAULT_SHARED_EVAL", REPO.parent / "shared" / "eval"))
HELP_VAULT = SHARED_EVAL / "help-vault"
MORE_VAULT = SHARED_EVAL / "help-vault-more"
QUESTIONS = SHARED_EVAL / "questions-dev.jsonl"
NUGGETS = SHARED_EVAL / "answers-dev.jsonl"
UNANSWERABLE = SHARED_EVAL / "questions-unanswerable.jsonl"
STUDENT = SHARED_EVAL / "student-vault"
STUDENT_VAULT = STUDENT / "vault"
STUDENT_QUESTIONS = STUDENT / "questions.jsonl"  # graded notes and nuggets in one file
STUDENT_UNANSWERABLE = STUDENT / "unanswerable.jsonl"
STUDENT_CARDS = STUDENT / "reference-cards.jsonl"
HALVES = ("tune", "check")
WORK = Path(os.environ.get("COGNIVAULT_BENCH_DIR", "/tmp/cognivault-bench"))


def dev_halves(keys: Iterable[str], group_of: Callable[[str], str] = lambda key: "") -> dict[str, str]:
    """Each key's half of a dev set: ``tune`` (choose rules and thresholds on it) or ``check`` (report only).

    Within each group (a question's language and kind, a card's note) the keys are ordered by a hash of the
    key and dealt out alternately, so both halves get each group in equal share (within one) and a key's half never
    depends on which other keys the set holds beyond its group. The same split serves every bench: a rule
    chosen on ``tune`` and reported on ``check`` is how a figure is trusted to hold on unseen data.
    """
    groups: dict[str, list[str]] = {}
    for key in keys:
        groups.setdefault(group_of(key), []).append(key)
    halves, dealt = {}, 0
    for group in sorted(groups):  # dealing goes on across groups, so an odd group's extra key alternates halves
        for key in sorted(groups[group], key=lambda key: hashlib.sha256(key.encode("utf-8")).hexdigest()):
            halves[key] = HALVES[dealt % 2]
            dealt += 1
    return halves


def question_halves(rows: list[dict[str, Any]]) -> dict[str, str]:
    """Question id -> half, balanced by language and kind (answerable and unanswerable sets alike)."""
    group = {str(row["id"]): f'{row.get("lang", "")}/{row.get("kind", "")}' for row in rows}
    return dev_halves(group, group.__getitem__)


def note_halves(notes: Iterable[str]) -> dict[str, str]:
    """Vault-relative note path -> half, for study-note benches: a note tuned on is never checked on."""
    return dev_halves(sorted(set(notes)))


def isolate_cache(name: str, fresh: bool) -> Path:
    """Point the user cache at a benchmark-private folder (emptied when ``fresh``)."""
    cache = WORK / "cache" / name
    if fresh:
        shutil.rmtree(cache, ignore_errors=True)
    cache.mkdir(parents=True, exist_ok=True)
    os.environ["XDG_CACHE_HOME"] = str(cache)
    os.environ.setdefault("COGNIVAULT_EMBEDDING_PROVIDER", "embedded")
    os.environ["HF_HUB_OFFLINE"] = "1"
    # Share the extracted model between benchmark caches so model setup is not timed as indexing.
    os.environ.setdefault("COGNIVAULT_MODEL_CACHE", str(WORK / "models"))
    return cache


def copy_vault(sources: list[Path], target: Path, fresh: bool) -> Path:
    """A writable copy of the read-only eval vault(s) outside the project."""
    if fresh or not target.exists():
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir(parents=True)
        for source in sources:
            for child in source.iterdir():
                destination = target / child.name
                if child.is_dir():
                    shutil.copytree(child, destination, dirs_exist_ok=True)
                else:
                    shutil.copy2(child, destination)
    return target


def percentiles(samples_ms: list[float]) -> dict[str, float]:
    ordered = sorted(samples_ms)

    def pick(q: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))], 3)

    return {"n": len(ordered), "p50_ms": pick(0.50), "p95_ms": pick(0.95), "max_ms": round(ordered[-1], 3),
            "mean_ms": round(statistics.fmean(ordered), 3)}


class TimedEmbedder:
    """Wraps an embedding provider and adds up the seconds spent embedding."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.seconds = 0.0
        self.texts = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def embed_documents(self, texts):  # type: ignore[no-untyped-def]
        started = time.perf_counter()
        try:
            return self.inner.embed_documents(texts)
        finally:
            self.seconds += time.perf_counter() - started
            self.texts += len(texts)

    def embed_query(self, text):  # type: ignore[no-untyped-def]
        return self.inner.embed_query(text)


def emit(result: dict[str, Any]) -> None:
    json.dump(result, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
