"""``cognivault mcp`` as an agent's host runs it: the MCP SDK's client session over stdio.

Indexes a copy of the help vault (keyword index, no model) first, then starts
``cognivault mcp --keyword-only`` on it and measures from this process as the client:

- startup: command start to the ``initialize`` result, and to the first ``tools/list``;
- ``search`` (lexical, k=10) over the dev questions, each half of the split (``question_halves``);
- ``ask`` (the offline extractive answerer) on the first ``--asks`` questions: latency and how many
  were answered with citations;
- ``read_note`` of ``--notes`` notes and ``resources/list`` (every note of the vault);
- SIGTERM to exit, with the client's stdin still open.

    .venv/bin/python bench/bench_mcp.py [--asks 20] [--notes 50]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters, stdio_client

from _common import HELP_VAULT, QUESTIONS, REPO, WORK, copy_vault, emit, isolate_cache, percentiles, question_halves


async def _timed(call: Any) -> tuple[float, Any]:
    started = time.perf_counter()
    result = await call
    return (time.perf_counter() - started) * 1000, result


async def measure(vault: Path, questions: list[dict[str, Any]], asks: int, notes: int) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(REPO / "server")}
    server = StdioServerParameters(command=sys.executable, env=env,
                                   args=["-m", "cognivault.cli", "mcp", "--vault", str(vault), "--keyword-only"])
    halves = question_halves(questions)
    report: dict[str, Any] = {}
    started = time.perf_counter()
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        report["startup_ms"] = {"initialize": round((time.perf_counter() - started) * 1000, 1)}
        await session.list_tools()
        report["startup_ms"]["tools_list"] = round((time.perf_counter() - started) * 1000, 1)
        await session.call_tool("search", {"query": "warm up", "mode": "lexical"})  # the index loads on first use

        for half in ("tune", "check"):
            samples = []
            for row in questions:
                if halves[row["id"]] == half:
                    ms, _ = await _timed(session.call_tool("search", {"query": row["question"], "mode": "lexical"}))
                    samples.append(ms)
            report[f"search_{half}"] = percentiles(samples)

        samples, answered = [], 0
        for row in questions[:asks]:
            ms, result = await _timed(session.call_tool("ask", {"question": row["question"]}))
            samples.append(ms)
            data = result.structured_content or {}
            answered += bool(data.get("answered") and data.get("citations"))
        report["ask"] = {**percentiles(samples), "answered_with_citations": answered}

        ms, listed = await _timed(session.list_resources())
        report["resources_list"] = {"ms": round(ms, 1), "notes": len(listed.resources),
                                    "pages_more": listed.next_cursor is not None}
        samples = []
        for resource in listed.resources[:notes]:
            ms, _ = await _timed(session.call_tool("read_note", {"path": resource.name}))
            samples.append(ms)
        report["read_note"] = percentiles(samples)
    return report


def sigterm_exit_ms(vault: Path) -> float:
    """Milliseconds from SIGTERM to exit, with the client's stdin open, once the server answered."""
    env = {**os.environ, "PYTHONPATH": str(REPO / "server")}
    process = subprocess.Popen([sys.executable, "-m", "cognivault.cli", "mcp", "--vault", str(vault),
                                "--keyword-only"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, env=env)
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}\n')
    process.stdin.flush()
    process.stdout.readline()
    started = time.perf_counter()
    process.terminate()
    process.wait(timeout=60)
    return round((time.perf_counter() - started) * 1000, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--asks", type=int, default=20)
    parser.add_argument("--notes", type=int, default=50)
    args = parser.parse_args()
    isolate_cache("mcp", fresh=True)
    vault = copy_vault([HELP_VAULT], WORK / "mcp-vault", fresh=True)
    env = {**os.environ, "PYTHONPATH": str(REPO / "server")}
    subprocess.run([sys.executable, "-m", "cognivault.cli", "index", "--vault", str(vault), "--provider", "none",
                    "--json"], check=True, capture_output=True, env=env)
    questions = [json.loads(line) for line in QUESTIONS.read_text("utf-8").splitlines() if line.strip()]
    report = asyncio.run(measure(vault, questions, args.asks, args.notes))
    report["sigterm_exit_ms"] = sigterm_exit_ms(vault)
    emit({"benchmark": "mcp", "vault": "help-vault", "questions": len(questions), **report})


if __name__ == "__main__":
    main()
