"""The companion's lanes of threads: answer work gives way to requests, and long work holds up no request."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer

from cognivault.companion import api
from cognivault.companion.app import create_app
from cognivault.companion.workers import BACKGROUND_THREADS, YieldingExecutor
from cognivault.config import load_settings
from cognivault.engine import Engine
from cognivault.threads import RequestGate

TOKEN = "workers-test-token-" + "w" * 32
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def test_answer_work_starts_once_the_requests_in_flight_are_done() -> None:
    gate = RequestGate()
    pool = YieldingExecutor(gate, max_workers=1, max_wait_s=600.0)  # longer than any test: only the request ends it
    try:
        with gate.request():
            started = pool.submit(time.monotonic)
            time.sleep(0.2)
            assert not started.done()
            request_done = time.monotonic()
        assert started.result(timeout=120) >= request_done  # the timeout bounds a hang only
    finally:
        pool.shutdown()


def test_answer_work_waits_for_requests_only_so_long() -> None:
    gate = RequestGate()
    pool = YieldingExecutor(gate, max_workers=1, max_wait_s=0.1)
    try:
        with gate.request():  # requests that never pause: the work starts while this one is still in flight
            submitted = time.monotonic()
            started = pool.submit(time.monotonic).result(timeout=120)  # bounds a hang only
        assert started - submitted >= 0.09
    finally:
        pool.shutdown()


def test_a_running_answer_step_holds_background_work_back() -> None:
    """The index writer (cognivault.live) waits between its steps while an answer step runs, as it
    does for requests: a question sent as ``serve`` starts is not slowed down by the start-up pass."""
    gate = RequestGate()
    pool = YieldingExecutor(gate, max_workers=1)
    try:
        assert pool.submit(gate.wait_quiet, 0).result(timeout=120) is False  # bounds a hang only
        assert gate.wait_quiet(0) is True  # and lets it go on once the step is done
    finally:
        pool.shutdown()


@pytest.fixture
async def companion(tmp_path: Path):
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Tides.md").write_text("# Tides\n\nThe moon's pull raises the tides twice a day.\n", "utf-8")
    (vault / "Seasons.md").write_text("# Seasons\n\nThe tilt of the earth's axis makes the seasons.\n", "utf-8")
    settings = load_settings(vault, {"index": {"index_dir": str(tmp_path / "index")},
                                     "models": {"chat_provider": "extractive"}}, environ={})
    engine = Engine(vault, settings, embedder=None)
    engine.index()
    app = create_app(engine, settings, TOKEN, features=[])
    client = TestClient(TestServer(app, host="127.0.0.1"))
    await client.start_server()
    yield app, client
    await client.close()
    engine.close()


async def test_a_search_is_answered_while_long_and_answer_work_fill_their_lanes(companion) -> None:
    app, client = companion
    release = threading.Event()
    holding: list[str] = []

    def hold(lane: str) -> bool:
        holding.append(lane)
        return release.wait(600)  # longer than the search's bound: a search queued behind this fails

    long_work = [asyncio.ensure_future(api.run_in_background(app, hold, "background"))
                 for _ in range(BACKGROUND_THREADS)]
    answer_work = asyncio.ensure_future(api.run_answer_work(app, hold, "answers"))
    try:
        async with asyncio.timeout(120):  # bounds a hang only: every lane's thread is taken before the search
            while len(holding) < BACKGROUND_THREADS + 1:
                await asyncio.sleep(0.01)
        async with asyncio.timeout(60):
            async with client.post("/api/search", json={"query": "moon tides", "mode": "lexical"},
                                   headers=AUTH) as response:
                assert response.status == 200
                assert (await response.json())["results"][0]["path"] == "Tides.md"
        assert not any(task.done() for task in [*long_work, answer_work])
    finally:
        release.set()
        await asyncio.gather(*long_work, answer_work)


async def test_the_answer_pipeline_runs_its_steps_on_the_answers_lane(companion, monkeypatch) -> None:
    app, client = companion
    answers = app[api.WORKERS_KEY].answers
    submitted: list[object] = []
    real_submit = answers.submit

    def counting_submit(fn, /, *args, **kwargs):  # type: ignore[no-untyped-def]
        submitted.append(fn)
        return real_submit(fn, *args, **kwargs)

    monkeypatch.setattr(answers, "submit", counting_submit)
    async with client.post("/api/ask", json={"question": "What raises the tides?", "use_cache": False},
                           headers=AUTH) as response:
        lines = [line async for line in response.content if line.strip()]
    assert response.status == 200 and b'"done"' in lines[-1]
    assert len(submitted) >= 2  # at least retrieval and choosing the sentences
