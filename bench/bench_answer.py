"""The answer pipeline with an instant fake model on the indexed help vault: latency, isolation, cancel.

- ``first_envelope``: time from calling ``stream_answer`` to its first envelope (target p95 <= 100 ms:
  the user sees progress), to its first ``text`` envelope (``first_text``: the answer itself begins)
  and to ``done``, over ``--asks`` questions (no cache); the same through the companion's
  ``POST /api/ask`` over loopback HTTP when the companion is available;
- ``cached``: the same question again (answer cache hit);
- ``concurrent``: ``--streams`` streams at once, each scoped to a different folder of the vault,
  each model citing every label of its own pack: all must end in ``done`` with every cited
  source inside their own scope and no label outside their own pack (``mixed`` must be 0);
- ``cancel``: a model that streams forever; the cancel event is set after the first token and
  the time until the model call is closed is measured (target < 1 s).

The fake model is in-process and instant: it thinks one token in phase 1 and answers in phase 2.
Keyword index only unless ``--embedded`` (the answer's latency is the point, not the embedder's).

``--first-question``: instead, start ``cognivault serve`` on a terminal (a pty) on the indexed vault
as a user would (offline embedded model with ``--embedded``, the extractive answerer, no Ollama),
and time from the moment it printed its dashboard link to the first NDJSON envelope of a question
sent right then (target <= 100 ms; the models and indexes load while serve starts) and to its first
``text`` envelope (the answer's first words), ``--asks`` times, each with a fresh serve process.

    .venv/bin/python bench/bench_answer.py [--fresh] [--asks 60] [--streams 20] [--embedded]
    .venv/bin/python bench/bench_answer.py --first-question [--asks 5] [--embedded]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import secrets
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from _common import HELP_VAULT, QUESTIONS, WORK, copy_vault, emit, isolate_cache, percentiles
from cognivault.answer.cache import AnswerCache
from cognivault.answer.pipeline import stream_answer
from cognivault.answer.request import AskRequest
from cognivault.answer.sessions import SessionStore
from cognivault.config import load_settings
from cognivault.engine import Engine
from cognivault.index.scope import Scope
from cognivault.models.chat import ChatCapabilities, ChatChunk, ChatMessage, ChatOptions, ChatUsage, ToolSpec

_LABEL = re.compile(r"^\[(S\d+)\]", re.MULTILINE)


class InstantChat:
    """Thinks one token, then answers citing every label it was shown; ``slow`` streams forever instead."""

    def __init__(self, slow: bool = False) -> None:
        self.slow = slow
        self.closed_at: list[float] = []

    name = "instant"
    model = "instant-1"

    async def capabilities(self) -> ChatCapabilities:
        return ChatCapabilities(thinking=True, tools=False, schema=True)

    async def probe(self) -> None:
        return None

    async def aclose(self) -> None:
        return None

    async def stream(self, messages: Sequence[ChatMessage], *, think: bool = False,
                     schema: dict[str, Any] | None = None, tools: Sequence[ToolSpec] | None = None,
                     options: ChatOptions | None = None) -> AsyncIterator[ChatChunk]:
        try:
            if think:
                yield ChatChunk("thinking", "Plan. ")
                yield ChatChunk("done", usage=ChatUsage())
                return
            labels = _LABEL.findall(messages[0].content)
            if self.slow:
                yield ChatChunk("text", "Slowly [S1] ")
                while True:
                    await asyncio.sleep(0.05)
                    yield ChatChunk("text", "more ")
            for label in labels:
                yield ChatChunk("text", f"A point from the notes [{label}]. ")
            yield ChatChunk("done", usage=ChatUsage(completion_tokens=len(labels)))
        finally:
            self.closed_at.append(time.perf_counter())


class FirstTimes:
    """When a stream's first envelope and its first ``text`` envelope came, in ms since ``started``."""

    def __init__(self, started: float) -> None:
        self.started = started
        self.first_ms: float | None = None
        self.first_text_ms: float | None = None

    def seen(self, envelope: dict[str, Any]) -> None:
        elapsed = (time.perf_counter() - self.started) * 1000
        if self.first_ms is None:
            self.first_ms = elapsed
        if self.first_text_ms is None and envelope["type"] == "text":
            self.first_text_ms = elapsed


async def _timed(engine: Engine, request: AskRequest, provider: Any, cache: AnswerCache | None) -> dict[str, Any]:
    times = FirstTimes(time.perf_counter())
    envelopes = []
    async for envelope in stream_answer(engine, request, provider, SessionStore(None), cache=cache):
        times.seen(envelope)
        envelopes.append(envelope)
    return {"first_ms": times.first_ms, "first_text_ms": times.first_text_ms,
            "total_ms": (time.perf_counter() - times.started) * 1000, "envelopes": envelopes}


def _folders(engine: Engine, count: int) -> list[str]:
    """Second-level folders (``en/Plugins``...) with the most notes, alternating languages."""
    sizes: dict[str, int] = {}
    for path, *_ in engine.store.catalog.notes():
        parts = path.split("/")
        if len(parts) >= 3:
            sizes["/".join(parts[:2])] = sizes.get("/".join(parts[:2]), 0) + 1
    ranked = sorted(sizes, key=lambda f: -sizes[f])
    return [ranked[n % len(ranked)] for n in range(count)]


async def _http_first_envelope(engine: Engine, settings: Any, questions: list[str], asks: int
                               ) -> dict[str, Any] | None:
    try:
        import aiohttp
        from aiohttp import web

        from cognivault.companion.app import create_app
    except ImportError:
        return None
    token = secrets.token_urlsafe(32)
    app = create_app(engine, settings, token, provider=InstantChat(), sessions=SessionStore(None))
    runner = web.AppRunner(app, handle_signals=False)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    url = f"http://127.0.0.1:{port}/api/ask"
    firsts, first_texts, totals, done = [], [], [], 0
    try:
        async with aiohttp.ClientSession() as session:
            for n in range(asks):
                times = FirstTimes(time.perf_counter())
                last = None
                async with session.post(url, json={"question": questions[n % len(questions)], "use_cache": False},
                                        headers={"Authorization": f"Bearer {token}"}) as response:
                    async for line in response.content:
                        if line.strip():
                            last = json.loads(line)
                            times.seen(last)
                firsts.append(times.first_ms or 0.0)
                if times.first_text_ms is not None:
                    first_texts.append(times.first_text_ms)
                totals.append((time.perf_counter() - times.started) * 1000)
                done += bool(last and last["type"] == "done")
    finally:
        await runner.cleanup()
    return {"first_envelope": percentiles(firsts), "first_text": percentiles(first_texts), "done": percentiles(totals),
            "ended_in_done": done, "n": asks}


async def run(engine: Engine, settings: Any, questions: list[str], args: argparse.Namespace) -> dict[str, Any]:
    result: dict[str, Any] = {}
    provider = InstantChat()
    for question in questions[:5]:  # warm-up: language detector, stemmers, BM25 arrays
        await _timed(engine, AskRequest(question, use_cache=False), provider, None)

    asks = [await _timed(engine, AskRequest(questions[n % len(questions)], use_cache=False), provider, None)
            for n in range(args.asks)]
    result["first_envelope"] = {
        "target_p95_ms": 100, "first": percentiles([a["first_ms"] for a in asks]),
        "first_text": percentiles([a["first_text_ms"] for a in asks if a["first_text_ms"] is not None]),
        "done": percentiles([a["total_ms"] for a in asks]),
        "ended_in_done": sum(a["envelopes"][-1]["type"] == "done" for a in asks), "n": len(asks),
        "first_type": sorted({a["envelopes"][0]["type"] for a in asks})}

    cache = AnswerCache()
    await _timed(engine, AskRequest(questions[0]), provider, cache)
    hits = [await _timed(engine, AskRequest(questions[0]), provider, cache) for _ in range(20)]
    result["cached"] = {"first": percentiles([h["first_ms"] for h in hits]),
                        "done": percentiles([h["total_ms"] for h in hits]),
                        "all_cached": all(h["envelopes"][-1]["data"].get("cached") for h in hits)}

    folders = _folders(engine, args.streams)
    started = time.perf_counter()
    streams = await asyncio.gather(*(
        _timed(engine, AskRequest(questions[n % len(questions)], scope=Scope(folders=[folder]), use_cache=False),
               InstantChat(), None)
        for n, folder in enumerate(folders)))
    wall = time.perf_counter() - started
    mixed = done = cited = 0
    for folder, stream in zip(folders, streams, strict=True):
        last = stream["envelopes"][-1]
        done += last["type"] == "done"
        if last["type"] != "done":
            continue
        data = last["data"]
        cited += bool(data["citations"])
        own = {e["data"]["label"]: e["data"]["chunk_id"] for e in stream["envelopes"] if e["type"] == "metadata"}
        mixed += sum(not s["path"].startswith(folder + "/") for s in data["sources"])
        mixed += sum(own.get(s["label"]) != s["chunk_id"] for s in data["sources"])
        mixed += sum(label not in own for label in re.findall(r"\[(S\d+)\]", data["answer"]))
    result["concurrent"] = {"streams": args.streams, "distinct_scopes": len(set(folders)), "done": done,
                            "with_citations": cited, "mixed_citations": mixed, "wall_s": round(wall, 3),
                            "first": percentiles([s["first_ms"] for s in streams]),
                            "done_ms": percentiles([s["total_ms"] for s in streams])}

    frees = []
    for n in range(args.cancels):
        slow = InstantChat(slow=True)
        cancel = asyncio.Event()
        cancelled_at = 0.0
        last = None
        async for envelope in stream_answer(engine, AskRequest(questions[n % len(questions)], think=False,
                                                               use_cache=False), slow, SessionStore(None), cancel):
            if envelope["type"] == "text" and not cancel.is_set():
                cancel.set()
                cancelled_at = time.perf_counter()
            last = envelope
        frees.append(((slow.closed_at[0] if slow.closed_at else float("inf")) - cancelled_at) * 1000)
        assert last is not None and last["data"].get("code") == "cancelled", last
    result["cancel"] = {"target_ms": 1000, "model_call_freed": percentiles(frees), "n": len(frees)}

    http = await _http_first_envelope(engine, settings, questions, min(args.asks, 40))
    if http is not None:
        result["http_api_ask"] = http
    return result


def first_question(vault: Path, questions: list[str], embedded: bool) -> dict[str, float]:
    """One ``cognivault serve`` start: ms from its printed link to the first envelope and to the first
    ``text`` envelope of a question, and, as the control, the same for a second question on the same
    server."""
    import http.client
    import os
    import pty
    import subprocess
    import sys
    from urllib.parse import urlsplit

    env = {**os.environ, "COGNIVAULT_MODELS_CHAT_PROVIDER": "extractive",
           "COGNIVAULT_MODELS_OLLAMA_HOST": "http://127.0.0.1:9"}
    command = [sys.executable, "-m", "cognivault.cli", "serve", "--vault", str(vault), "--no-watch",
               *([] if embedded else ["--keyword-only"])]
    leader, follower = pty.openpty()
    started = time.perf_counter()
    process = subprocess.Popen(command, env=env, stdout=follower, stderr=subprocess.DEVNULL)
    os.close(follower)
    try:
        line = b""
        while b"\n" not in line:
            chunk = os.read(leader, 4096)
            assert chunk, "serve ended before printing its link"
            line += chunk
        printed = time.perf_counter()
        assert b"/?code=" in line, line
        info = json.loads((vault / ".cognivault" / "companion.json").read_text("utf-8"))
        address = urlsplit(info["url"])

        def first_envelopes_ms(question: str, since: float) -> tuple[float, float]:
            """ms to the first envelope and to the first text envelope of an answer to ``question``."""
            connection = http.client.HTTPConnection(address.hostname, address.port, timeout=60)
            connection.request("POST", "/api/ask", body=json.dumps({"question": question, "use_cache": False}),
                               headers={"Authorization": f"Bearer {info['token']}",
                                        "Content-Type": "application/json"})
            response = connection.getresponse()
            times = FirstTimes(since)
            first = None
            for line in response:
                envelope = json.loads(line)
                first = first or envelope
                times.seen(envelope)
                if times.first_text_ms is not None or envelope["type"] in ("done", "error"):
                    break
            response.read()
            connection.close()
            assert first is not None and first["type"] in ("confidence", "text", "metadata"), first
            assert times.first_ms is not None and times.first_text_ms is not None, "no answer text came"
            return times.first_ms, times.first_text_ms

        first_ms, first_text_ms = first_envelopes_ms(questions[0], printed)
        second_ms, second_text_ms = first_envelopes_ms(questions[1], time.perf_counter())
        return {"start_to_line_ms": (printed - started) * 1000, "line_to_first_envelope_ms": first_ms,
                "line_to_first_text_ms": first_text_ms, "second_question_ms": second_ms,
                "second_question_text_ms": second_text_ms}
    finally:
        process.terminate()
        process.wait(30)
        os.close(leader)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fresh", action="store_true", help="rebuild the index from scratch")
    parser.add_argument("--asks", type=int, default=60)
    parser.add_argument("--streams", type=int, default=20)
    parser.add_argument("--cancels", type=int, default=10)
    parser.add_argument("--embedded", action="store_true", help="also embed (hybrid retrieval)")
    parser.add_argument("--first-question", action="store_true",
                        help="time a real `cognivault serve` start: printed line -> first envelope")
    args = parser.parse_args()
    isolate_cache("answer" + ("-embedded" if args.embedded else ""), args.fresh)
    vault = copy_vault([HELP_VAULT], WORK / "vault-answer", args.fresh)
    settings = load_settings(vault)
    questions = [json.loads(line)["question"] for line in QUESTIONS.read_text("utf-8").splitlines() if line]
    started = time.perf_counter()
    with Engine(vault, settings, embedder="auto" if args.embedded else None) as engine:
        report = engine.index()
        index_s = time.perf_counter() - started
        model = engine.embedder.model_id if engine.embedder else "none (keyword index)"
        if not args.first_question:
            result = asyncio.run(run(engine, settings, questions, args))
    if args.first_question:  # the engine above is closed: serve takes the writer's place
        pairs = [[questions[(2 * i) % len(questions)], questions[(2 * i + 1) % len(questions)]]
                 for i in range(args.asks)]
        samples = [first_question(vault, pair, args.embedded) for pair in pairs]
        result = {"first_question": {
            "line_to_first_envelope": percentiles([s["line_to_first_envelope_ms"] for s in samples]),
            "line_to_first_text": percentiles([s["line_to_first_text_ms"] for s in samples]),
            "second_question_first_envelope": percentiles([s["second_question_ms"] for s in samples]),
            "second_question_first_text": percentiles([s["second_question_text_ms"] for s in samples]),
            "start_to_line": percentiles([s["start_to_line_ms"] for s in samples])}}
    emit({"benchmark": "answer", "vault": "help-vault", "notes": len(list(Path(vault).rglob("*.md"))),
          "chunks": report.totals().get("chunks"), "embedding": model, "index_s": round(index_s, 2), **result})


if __name__ == "__main__":
    main()
