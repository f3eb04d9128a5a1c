"""The companion over real loopback HTTP: latency, first answer envelope, paced load, bursts, memory.

Starts ``cognivault serve --keyword-only`` on a copy of the help vault in a
subprocess (the answerer is the instant extractive one, no LLM), waits for the
index, then measures from this process as a client:

- startup: command start to the companion.json line;
- sequential latency of ``GET /api/status``, ``POST /api/search`` (lexical), a
  refused request (no token), and ``/api/ask`` time to first envelope and to ``done``
  (targets: first envelope p95 <= 100 ms);
- the load run (issue 7): ``--streams`` ask streams kept open and ``--rate``
  searches per second, together, for ``--seconds``, spread over ``--clients``
  loopback source addresses: errors, 429 refusals, mixed citations (an ask
  scoped to ``en/`` citing ``de/`` or the reverse), p50/p95, the server's RSS
  before/peak/after and CPU, and the machine's load average;
- a burst of 500 concurrent requests: how many the rate limit refused;
- the server's RSS before and after, and that companion.json is gone after SIGTERM.

- ``--asks-only N [--pause S]``: only N answers (a pause of S seconds after every 100), the
  server's RSS every 100 (issue 28).

    .venv/bin/python bench/bench_companion.py [--seconds 30] [--rate 200] [--streams 50] [--clients 4]
    .venv/bin/python bench/bench_companion.py --asks-only 2000
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
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


def _count(counter: dict[str, int], key: str) -> None:
    counter[key] = counter.get(key, 0) + 1


def _loopback_clients(count: int) -> list[aiohttp.ClientSession]:
    """One session per simulated client, each from its own loopback source address (127.0.0.2, .3, ...).

    The companion limits each remote address (token bucket and in-flight cap);
    the load run stands for several front ends at once (editor panels, the
    Obsidian plugin, the dashboard), not one client flooding it: that case is
    the burst measurement below and the rate-limit test.
    """
    return [aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0, local_addr=(f"127.0.0.{2 + n}", 0)))
            for n in range(count)]


async def load_run(info: dict, questions: list[str], args: argparse.Namespace,  # type: ignore[type-arg]
                   server: psutil.Process) -> dict:  # type: ignore[type-arg]
    """Issue 7's load: ``--streams`` asks kept open at all times and ``--rate`` searches/s, together, for ``--seconds``.

    Each ask stream loops back to back, alternately scoped to ``en/`` and
    ``de/``; a cited passage outside its stream's scope counts as a mixed
    citation. Searches are paced open loop (sent on schedule whatever the
    latency). Errors are everything but 200 and 429 (5xx, broken connections,
    an ask ending in an ``error`` envelope or not in ``done``); 429 refusals are
    counted apart. RSS and CPU of the server are sampled every 0.5 s.
    """
    url = info["url"]
    auth = {"Authorization": f"Bearer {info['token']}"}
    clients = _loopback_clients(args.clients)
    ask_first: list[float] = []
    ask_total: list[float] = []
    ask_codes: dict[str, int] = {}
    search_ms: list[float] = []
    search_codes: dict[str, int] = {}
    mixed = 0
    rss_samples: list[float] = []
    deadline = time.perf_counter() + args.seconds

    async def stream(n: int) -> None:
        nonlocal mixed
        session = clients[n % len(clients)]
        folder = "en" if n % 2 == 0 else "de"
        turn = 0
        while time.perf_counter() < deadline:
            body = {"question": questions[(n + turn * args.streams) % len(questions)],
                    "scope": {"folders": [folder]}, "use_cache": False}
            turn += 1
            try:
                outcome = await _ask(session, url, auth, body)
            except (TimeoutError, aiohttp.ClientError, json.JSONDecodeError) as exc:
                _count(ask_codes, type(exc).__name__)
                continue
            if outcome["status"] != 200:
                _count(ask_codes, str(outcome["status"]))
                if outcome["status"] == 429:
                    await asyncio.sleep(0.05)
                continue
            last = outcome["envelopes"][-1]["type"] if outcome["envelopes"] else "nothing"
            _count(ask_codes, "done" if last == "done" else f"ended in {last}")
            mixed += sum(1 for e in outcome["envelopes"]
                         if e["type"] == "metadata" and not e["data"]["path"].startswith(folder + "/"))
            ask_first.append(outcome["first_ms"])
            ask_total.append(outcome["total_ms"])

    async def search(n: int) -> None:
        try:
            elapsed, code = await _timed(clients[n % len(clients)], "POST", url + "/api/search",
                                         json={"query": questions[n % len(questions)], "mode": "lexical"},
                                         headers=auth)
        except (TimeoutError, aiohttp.ClientError) as exc:
            _count(search_codes, type(exc).__name__)
            return
        _count(search_codes, str(code))
        if code == 200:
            search_ms.append(elapsed)

    async def paced() -> tuple[int, float]:
        begun = time.perf_counter()
        sent = []
        n = 0
        while begun + n / args.rate < deadline:
            delay = begun + n / args.rate - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            sent.append(asyncio.ensure_future(search(n)))
            n += 1
        sending_s = time.perf_counter() - begun
        await asyncio.gather(*sent)
        return n, sending_s

    async def sample() -> None:
        while time.perf_counter() < deadline:
            rss_samples.append(server.memory_info().rss / 2**20)
            await asyncio.sleep(0.5)

    load_before = os.getloadavg()
    cpu_before = server.cpu_times()
    rss_before = server.memory_info().rss / 2**20
    started = time.perf_counter()
    try:
        results = await asyncio.gather(paced(), sample(), *(stream(n) for n in range(args.streams)))
    finally:
        for session in clients:
            await session.close()
    wall = time.perf_counter() - started
    cpu_after = server.cpu_times()
    sent, sending_s = results[0]
    ask_errors = sum(v for k, v in ask_codes.items() if k not in ("done", "429"))
    search_errors = sum(v for k, v in search_codes.items() if k not in ("200", "429"))
    return {
        "seconds": args.seconds, "wall_s": round(wall, 2), "clients": args.clients,
        "asks": {"streams": args.streams, "completed": ask_codes.get("done", 0), "outcomes": ask_codes,
                 "errors": ask_errors, "refused_429": ask_codes.get("429", 0), "mixed_citations": mixed,
                 "first_envelope": percentiles(ask_first) if ask_first else None,
                 "done_ms": percentiles(ask_total) if ask_total else None},
        "searches": {"target_rps": args.rate, "sent": sent, "sent_rps": round(sent / sending_s, 1),
                     "answered_rps": round(search_codes.get("200", 0) / wall, 1), "codes": search_codes,
                     "errors": search_errors, "refused_429": search_codes.get("429", 0),
                     "latency": percentiles(search_ms) if search_ms else None},
        "errors": ask_errors + search_errors,
        "server": {"rss_mb_before": round(rss_before, 1), "rss_mb_after": round(server.memory_info().rss / 2**20, 1),
                   "rss_mb_peak": round(max(rss_samples, default=rss_before), 1),
                   "cpu_s": round(cpu_after.user + cpu_after.system - cpu_before.user - cpu_before.system, 2)},
        "machine": {"cpus": os.cpu_count(), "loadavg_before": [round(x, 2) for x in load_before],
                    "loadavg_after": [round(x, 2) for x in os.getloadavg()]},
    }


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
            "ended_in_done": sum(bool(a["envelopes"]) and a["envelopes"][-1].get("type") == "done" for a in asks),
            "n": len(asks),
            "other_outcomes": [{"status": a["status"], "last": a["envelopes"][-1] if a["envelopes"] else None}
                               for a in asks if not a["envelopes"] or a["envelopes"][-1].get("type") != "done"][:5]}
        cached = [await _ask(session, url, auth, {"question": questions[0]}) for _ in range(20)]
        result["ask_cached_first_envelope"] = percentiles([a["first_ms"] for a in cached])

        result["load"] = await load_run(info, questions, args, server)
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


async def ask_memory(info: dict, questions: list[str], count: int, server: psutil.Process,  # type: ignore[type-arg]
                     pause_s: float = 0.0) -> dict:  # type: ignore[type-arg]
    """Issue 28: ``count`` answers and nothing else (an editor chat polls no status), back to back or with
    a pause of ``pause_s`` after every 100 (a person reading): the server's RSS every 100 asks. The first
    100 warm the caches; growth is counted from there."""
    url, auth = info["url"], {"Authorization": f"Bearer {info['token']}"}
    series = []
    outcomes: dict[str, int] = {}
    async with aiohttp.ClientSession() as session:
        for n in range(count):
            if n % 100 == 0:
                if n and pause_s:
                    await asyncio.sleep(pause_s)
                series.append(round(server.memory_info().rss / 2**20, 1))
            answer = await _ask(session, url, auth, {"question": questions[n % len(questions)], "use_cache": False})
            _count(outcomes, answer["envelopes"][-1].get("type", "?") if answer["envelopes"] else str(answer["status"]))
    series.append(round(server.memory_info().rss / 2**20, 1))
    warm = series[1] if len(series) > 2 else series[0]
    return {"asks": count, "pause_s_every_100": pause_s, "outcomes": outcomes, "rss_mb_every_100": series,
            "rss_mb_warm": warm,
            "rss_mb_end": series[-1], "rss_mb_peak": max(series),
            "growth_after_warm_pct": round(100 * (series[-1] - warm) / warm, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0, help="length of the load run (issue 7: 30)")
    parser.add_argument("--rate", type=float, default=200.0, help="searches per second during the load run")
    parser.add_argument("--streams", type=int, default=50, help="ask streams kept open during the load run")
    parser.add_argument("--clients", type=int, default=4,
                        help="simulated clients (loopback source addresses) the load is spread over; "
                             "1 puts it all under one client's rate limit")
    parser.add_argument("--asks-only", type=int, default=0, metavar="N",
                        help="only N answers back to back, the server's RSS every 100 (issue 28: 2000)")
    parser.add_argument("--pause", type=float, default=0.0, help="with --asks-only: seconds of quiet after every 100")
    args = parser.parse_args()
    cache = isolate_cache("companion", fresh=False)
    vault = copy_vault([HELP_VAULT], WORK / "vault-companion", fresh=False)
    # Every answered question is a study event; start each run from none, so runs compare.
    shutil.rmtree(vault / ".cognivault" / "progress", ignore_errors=True)
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
        if args.asks_only:
            result = {"ask_memory": asyncio.run(ask_memory(info, questions, args.asks_only, server, args.pause))}
        else:
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
