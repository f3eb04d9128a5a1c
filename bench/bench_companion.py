"""The companion over real loopback HTTP: latency, first answer envelope, paced load, bursts, memory.

Starts ``cognivault serve --keyword-only`` on a copy of the help vault in a
subprocess (the answerer is the instant extractive one, no LLM), waits for the
index, then measures from this process as a client:

- startup: command start to the companion.json line;
- sequential latency of ``GET /api/status``, ``POST /api/search`` (lexical), a
  refused request (no token), and ``/api/ask`` time to first envelope and to ``done``
  (targets: first envelope p95 <= 100 ms);
- ``--streams`` concurrent ask streams, half scoped to ``en/``, half to ``de/``:
  all must finish with ``done`` and cite only their own scope (mixed = 0);
- ``--rate`` searches per second for ``--seconds`` (open loop): errors, 429s, p50/p95;
- a burst of 500 concurrent requests: how many the rate limit refused;
- the server's RSS before and after, and that companion.json is gone after SIGTERM.

    .venv/bin/python bench/bench_companion.py [--seconds 10] [--rate 200] [--streams 20]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import aiohttp
import psutil

from _common import HELP_VAULT, QUESTIONS, REPO, WORK, copy_vault, emit, isolate_cache, percentiles


async def _timed(session: aiohttp.ClientSession, method: str, url: str, **kwargs) -> tuple[float, int]:  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    async with session.request(method, url, **kwargs) as response:
        await response.read()
        return (time.perf_counter() - started) * 1000, response.status


async def _ask(session: aiohttp.ClientSession, url: str, headers: dict, body: dict) -> dict:  # type: ignore[type-arg]
    started = time.perf_counter()
    first = None
    envelopes = []
    async with session.post(url + "/api/ask", json=body, headers=headers) as response:
        async for line in response.content:
            if not line.strip():
                continue
            if first is None:
                first = (time.perf_counter() - started) * 1000
            envelopes.append(json.loads(line))
    return {"status": response.status, "first_ms": first, "total_ms": (time.perf_counter() - started) * 1000,
            "envelopes": envelopes}


async def run(info: dict, questions: list[str], args: argparse.Namespace, server: psutil.Process) -> dict:  # type: ignore[type-arg]
    url = info["url"]
    auth = {"Authorization": f"Bearer {info['token']}"}
    result: dict = {}  # type: ignore[type-arg]
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector) as session:
        # warm up
        for question in questions[:10]:
            await _timed(session, "POST", url + "/api/search", json={"query": question, "mode": "lexical"},
                         headers=auth)
        result["rss_mb_before"] = round(server.memory_info().rss / 2**20, 1)

        status_ms = [(await _timed(session, "GET", url + "/api/status", headers=auth))[0] for _ in range(200)]
        search_ms = []
        for n in range(300):
            elapsed, code = await _timed(session, "POST", url + "/api/search",
                                         json={"query": questions[n % len(questions)], "mode": "lexical"},
                                         headers=auth)
            assert code == 200, code
            search_ms.append(elapsed)
        refused_ms = [(await _timed(session, "GET", url + "/api/status"))[0] for _ in range(200)]
        result["sequential"] = {"status": percentiles(status_ms), "search_lexical": percentiles(search_ms),
                                "refused_no_token": percentiles(refused_ms)}

        asks = [await _ask(session, url, auth, {"question": questions[n % len(questions)], "use_cache": False})
                for n in range(60)]
        result["ask_sequential"] = {
            "first_envelope": percentiles([a["first_ms"] for a in asks]),
            "done": percentiles([a["total_ms"] for a in asks]),
            "ended_in_done": sum(a["envelopes"][-1]["type"] == "done" for a in asks), "n": len(asks)}
        cached = [await _ask(session, url, auth, {"question": questions[0]}) for _ in range(20)]
        result["ask_cached_first_envelope"] = percentiles([a["first_ms"] for a in cached])

        # concurrent streams with different scopes: no citation may cross into the other scope
        async def scoped(n: int) -> dict:  # type: ignore[type-arg]
            folder = "en" if n % 2 == 0 else "de"
            outcome = await _ask(session, url, auth, {"question": questions[n % len(questions)],
                                                      "scope": {"folders": [folder]}, "use_cache": False})
            outcome["folder"] = folder
            return outcome

        started = time.perf_counter()
        streams = await asyncio.gather(*(scoped(n) for n in range(args.streams)))
        mixed = sum(1 for s in streams for e in s["envelopes"]
                    if e["type"] == "metadata" and not e["data"]["path"].startswith(s["folder"] + "/"))
        result["concurrent_asks"] = {
            "streams": args.streams, "wall_s": round(time.perf_counter() - started, 3),
            "done": sum(s["envelopes"][-1]["type"] == "done" for s in streams),
            "errors": sum(s["envelopes"][-1]["type"] == "error" or s["status"] != 200 for s in streams),
            "mixed_citations": mixed, "first_envelope": percentiles([s["first_ms"] for s in streams]),
            "done_ms": percentiles([s["total_ms"] for s in streams])}

        # open-loop paced searches
        latencies: list[float] = []
        codes: dict[str, int] = {}
        interval = 1.0 / args.rate
        tasks = []

        async def one(n: int) -> None:
            try:
                elapsed, code = await _timed(session, "POST", url + "/api/search",
                                             json={"query": questions[n % len(questions)], "mode": "lexical"},
                                             headers=auth)
                latencies.append(elapsed)
                codes[str(code)] = codes.get(str(code), 0) + 1
            except aiohttp.ClientError as exc:
                codes[type(exc).__name__] = codes.get(type(exc).__name__, 0) + 1

        started = time.perf_counter()
        total = int(args.rate * args.seconds)
        for n in range(total):
            delay = started + n * interval - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            tasks.append(asyncio.ensure_future(one(n)))
        await asyncio.gather(*tasks)
        wall = time.perf_counter() - started
        result["paced_search"] = {"target_rps": args.rate, "seconds": args.seconds, "requests": total,
                                  "achieved_rps": round(total / wall, 1), "codes": codes,
                                  "latency": percentiles(latencies)}
        await asyncio.sleep(2)  # let the bucket refill

        burst_codes: dict[str, int] = {}

        async def burst_one() -> None:
            _, code = await _timed(session, "GET", url + "/api/status", headers=auth)
            burst_codes[str(code)] = burst_codes.get(str(code), 0) + 1

        started = time.perf_counter()
        await asyncio.gather(*(burst_one() for _ in range(500)))
        result["burst_500"] = {"codes": burst_codes, "wall_s": round(time.perf_counter() - started, 3)}
        result["rss_mb_after"] = round(server.memory_info().rss / 2**20, 1)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="paced search duration (issue 7: 30)")
    parser.add_argument("--rate", type=float, default=200.0, help="paced searches per second")
    parser.add_argument("--streams", type=int, default=20, help="concurrent ask streams (issue 7: 50)")
    args = parser.parse_args()
    cache = isolate_cache("companion", fresh=False)
    vault = copy_vault([HELP_VAULT], WORK / "vault-companion", fresh=False)
    questions = [json.loads(line)["question"] for line in QUESTIONS.read_text("utf-8").splitlines() if line]
    env = {**os.environ, "XDG_CACHE_HOME": str(cache), "COGNIVAULT_MODELS_CHAT_PROVIDER": "extractive",
           "PYTHONPATH": str(REPO / "server")}
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "cognivault.cli", "serve", "--vault", str(vault),
                                "--keyword-only", "--force"], stdout=subprocess.PIPE, env=env, text=True)
    try:
        info = json.loads(process.stdout.readline())  # type: ignore[union-attr]
        startup_ms = (time.perf_counter() - started) * 1000
        server = psutil.Process(process.pid)

        async def wait_indexed() -> float:
            begun = time.perf_counter()
            async with aiohttp.ClientSession() as session:
                while True:
                    async with session.get(info["url"] + "/api/status",
                                           headers={"Authorization": f"Bearer {info['token']}"}) as response:
                        status = await response.json()
                    files = status["files"]
                    if files["total"] and files["total"] == files.get("indexed", 0) + files.get("skipped", 0) \
                            + files.get("failed", 0) and status["stages"]["lexical"]["up_to_date"]:
                        return time.perf_counter() - begun
                    await asyncio.sleep(0.5)

        index_s = asyncio.run(wait_indexed())
        result = asyncio.run(run(info, questions, args, server))
        result = {"benchmark": "companion", "vault": "help-vault", "notes": len(list(Path(vault).rglob("*.md"))),
                  "startup_ms": round(startup_ms, 1), "index_wait_s": round(index_s, 2), **result}
    finally:
        process.send_signal(signal.SIGTERM)
        code = process.wait(timeout=30)
    result["exit_code"] = code
    result["companion_json_removed"] = not (vault / ".cognivault" / "companion.json").exists()
    emit(result)


if __name__ == "__main__":
    main()
