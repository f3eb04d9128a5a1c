"""Run every benchmark in bench/ and print their JSON documents as one JSON object."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCHMARKS = ["bench_embedding.py", "bench_eval.py", "bench_short_queries.py", "bench_index.py", "bench_query.py",
              "bench_companion.py", "bench_answer_quality.py"]


def main() -> None:
    results = {}
    for name in BENCHMARKS:
        completed = subprocess.run([sys.executable, str(HERE / name)], capture_output=True, text=True,
                                   check=False)
        try:
            results[name] = json.loads(completed.stdout)
        except json.JSONDecodeError:
            results[name] = {"error": completed.stderr[-2000:] or "no output", "exit": completed.returncode}
    json.dump(results, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
