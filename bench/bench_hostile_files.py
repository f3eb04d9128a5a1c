"""How long each hostile file takes to be refused (or read) when indexed alone next to two good notes.

The test suite checks that each one ends in its own state for its own reason
(tests/test_hostile_vault.py); how fast is measured here, where a busy machine
cannot turn a timing into a failure. Target (issue 7): each under 5 s on a quiet
machine. Prints one JSON document: seconds per file, the slowest, the total.

    .venv/bin/python bench/bench_hostile_files.py
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from _common import REPO, emit

sys.path.insert(0, str(REPO / "tests"))


def main() -> None:
    from cognivault.engine import Engine
    from test_hostile_vault import build_hostile_files, hostile_settings, hostile_vault

    files = build_hostile_files()
    seconds: dict[str, float] = {}
    states: dict[str, str] = {}
    for relative, data in sorted(files.items()):
        with tempfile.TemporaryDirectory(prefix="cognivault-hostile-") as folder:
            root = Path(folder)
            vault = hostile_vault(root, {relative: data})
            with Engine(vault, hostile_settings(vault, root), embedder=None) as engine:
                started = time.perf_counter()
                report = engine.index()
                seconds[relative] = round(time.perf_counter() - started, 3)
            states[relative] = next(f.state for f in report.files if f.path == relative)
    slowest = max(seconds, key=seconds.__getitem__)
    emit({"files": len(seconds), "seconds": seconds, "states": states, "slowest": slowest,
          "slowest_s": seconds[slowest], "under_5_s": sum(1 for s in seconds.values() if s < 5.0),
          "total_s": round(sum(seconds.values()), 2)})


if __name__ == "__main__":
    main()
