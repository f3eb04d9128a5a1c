"""Is the index reproducible? One set of files indexed clean, incrementally and resumed after kill -9; prints JSON.

On a copy of the help vault's English notes (``--lang``) with the embedded model:

- ``clean``: the edited files indexed once;
- ``incremental``: the original files indexed, ``--edits`` notes edited (a sentence appended), indexed again;
- ``resumed``: the edited files indexed by a ``cognivault index`` child killed with SIGKILL ``--kills``
  times (each time once it has stored more vectors than at the last kill), then finished.

Reported: how many stored vectors differ from the clean build's (and their lowest cosine), and for 20
dev questions of that language (both halves of ``bench/_common.question_halves``) how many give the
same top 10, ids and scores, as the clean build in hybrid, keyword and meaning search.

Usage: ``python bench/bench_reproducible_index.py [--lang en] [--edits 12] [--kills 4] [--queries 20]``
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "server"))
sys.path.insert(0, str(REPO / "bench"))

from _common import HELP_VAULT, QUESTIONS, WORK, emit, isolate_cache, question_halves  # noqa: E402

MODES = ("hybrid", "lexical", "dense")


def _vectors(index_dir: Path) -> dict[str, bytes]:
    with sqlite3.connect(f"file:{index_dir / 'catalog.sqlite3'}?mode=ro", uri=True, timeout=30) as db:
        return dict(db.execute("SELECT content_hash, vector FROM embeddings"))


def _count(index_dir: Path) -> int:
    try:
        with sqlite3.connect(f"file:{index_dir / 'catalog.sqlite3'}?mode=ro", uri=True, timeout=5) as db:
            return int(db.execute("SELECT count(*) FROM embeddings").fetchone()[0])
    except sqlite3.DatabaseError:  # not created yet, or its tables not yet
        return 0


def _edit(vault: Path, count: int) -> list[str]:
    notes = sorted(vault.rglob("*.md"))
    chosen = notes[:: max(1, len(notes) // count)][:count]
    for path in chosen:
        path.write_text(path.read_text("utf-8") + "\n\nEdited for the reproducibility bench: one more line.\n",
                        "utf-8")
    return [path.relative_to(vault).as_posix() for path in chosen]


def _rankings(vault: Path, index_dir: Path, questions: list[str]) -> dict[str, list[tuple[str, float]]]:
    from cognivault.config import load_settings
    from cognivault.engine import Engine

    settings = load_settings(vault, {"index": {"index_dir": str(index_dir)}})
    with Engine(vault, settings, writable=False) as engine:
        return {f"{mode}\t{q}": [(r.chunk_id, r.score) for r in engine.search(q, k=10, mode=mode).results]
                for q in questions for mode in MODES}


def _index(vault: Path, index_dir: Path) -> float:
    from cognivault.config import load_settings
    from cognivault.engine import Engine

    started = time.perf_counter()
    with Engine(vault, load_settings(vault, {"index": {"index_dir": str(index_dir)}})) as engine:
        engine.index()
    return time.perf_counter() - started


def _killed_runs(vault: Path, index_dir: Path, kills: int) -> list[int]:
    """Vectors stored at each SIGKILL of a ``cognivault index`` child."""
    env = {**os.environ, "COGNIVAULT_INDEX_INDEX_DIR": str(index_dir)}
    stored: list[int] = []
    for _ in range(kills):
        before = _count(index_dir)
        child = subprocess.Popen([sys.executable, "-m", "cognivault.cli", "index", "--vault", str(vault), "--json"],
                                 env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while child.poll() is None and _count(index_dir) <= before:
            time.sleep(0.05)
        if child.poll() is not None:
            break  # finished before this kill
        child.send_signal(signal.SIGKILL)
        child.wait()
        stored.append(_count(index_dir))
    return stored


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lang", default="en")
    parser.add_argument("--edits", type=int, default=12)
    parser.add_argument("--kills", type=int, default=4)
    parser.add_argument("--queries", type=int, default=20)
    args = parser.parse_args(argv)
    isolate_cache("reproducible-index", fresh=True)
    os.environ["COGNIVAULT_EMBEDDING_PROVIDER"] = "embedded"
    root = WORK / "reproducible-index"
    shutil.rmtree(root, ignore_errors=True)
    vaults = {name: root / name for name in ("clean", "incremental", "resumed")}
    for vault in vaults.values():
        shutil.copytree(HELP_VAULT / args.lang, vault / args.lang,
                        ignore=shutil.ignore_patterns("*.png", "*.jpg", "*.jpeg", "*.gif", "*.ogg", "*.webp"))
    rows = [json.loads(line) for line in QUESTIONS.read_text("utf-8").splitlines() if line.strip()]
    rows = [row for row in rows if row.get("lang") == args.lang]
    halves = question_halves(rows)
    per_half = args.queries // 2
    picked = {half: [row["question"] for row in rows if halves[str(row["id"])] == half][:per_half]
              for half in ("tune", "check")}

    seconds = {"incremental_first": _index(vaults["incremental"], root / "incremental-index")}
    edited = _edit(vaults["incremental"], args.edits)
    seconds["incremental_second"] = _index(vaults["incremental"], root / "incremental-index")
    assert _edit(vaults["clean"], args.edits) == edited == _edit(vaults["resumed"], args.edits)
    seconds["clean"] = _index(vaults["clean"], root / "clean-index")
    at_kills = _killed_runs(vaults["resumed"], root / "resumed-index", args.kills)
    seconds["resumed_finish"] = _index(vaults["resumed"], root / "resumed-index")

    import numpy as np

    clean_vectors = _vectors(root / "clean-index")
    report: dict[str, Any] = {"bench": "reproducible_index", "vault": f"help-vault/{args.lang}",
                              "edited_notes": len(edited), "vectors_at_kills": at_kills,
                              "chunk_vectors": len(clean_vectors),
                              "seconds": {k: round(v, 1) for k, v in seconds.items()}}
    expected = {half: _rankings(vaults["clean"], root / "clean-index", qs) for half, qs in picked.items()}
    for build in ("incremental", "resumed"):
        stored = _vectors(root / f"{build}-index")
        differing = [h for h, v in clean_vectors.items() if stored.get(h) != v]
        cosines = [float(np.frombuffer(clean_vectors[h], np.float32) @ np.frombuffer(stored[h], np.float32))
                   for h in differing if h in stored]
        same: dict[str, Any] = {}
        for half, qs in picked.items():
            got = _rankings(vaults[build], root / f"{build}-index", qs)
            same[half] = {mode: sum(got[f"{mode}\t{q}"] == expected[half][f"{mode}\t{q}"] for q in qs)
                          for mode in MODES} | {"queries": len(qs)}
        report[build] = {"vectors_differing": len(differing),
                         "lowest_cosine": round(min(cosines), 5) if cosines else None,
                         "same_top10_with_scores": same}
    report["load_average"] = [round(value, 1) for value in os.getloadavg()]
    emit(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
