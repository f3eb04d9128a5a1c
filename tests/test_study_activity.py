"""Study activity from outside the study hub: answered questions (CLI and companion) and throttled note edits
count in the progress store, so sessions, streaks and the chat badges see them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer

from answer_support import make_vault
from cognivault.cli import main
from cognivault.companion.app import create_app
from cognivault.engine import Engine
from cognivault.study.activity import EDIT_INTERVAL_S, EditThrottle, record_answer
from cognivault.study.badges import BadgeBook
from cognivault.study.progress import ProgressStore

TOKEN = "activity-token-" + "a" * 32
AUTH = {"Authorization": f"Bearer {TOKEN}"}


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_edit_throttle_admits_one_edit_per_note_per_interval() -> None:
    clock = FakeClock()
    throttle = EditThrottle(clock=clock)
    assert throttle.admit("a.md")
    admitted = 0
    for _ in range(5000):  # a typing burst within one interval
        clock.now += (EDIT_INTERVAL_S - 1) / 5000
        admitted += throttle.admit("a.md")
    assert admitted == 0
    assert throttle.admit("b.md")  # another note has its own interval
    clock.now = 1000.0 + EDIT_INTERVAL_S
    assert throttle.admit("a.md") and not throttle.admit("a.md")


def test_an_unwritable_progress_folder_never_fails_the_answer(tmp_path: Path) -> None:
    (tmp_path / ".cognivault").write_text("not a folder", "utf-8")
    assert record_answer(tmp_path, "cli", {"confidence": "high", "sources": []}) is None


def _first_question_unlocked(vault: Path) -> bool:
    badges = {b["id"]: b for b in BadgeBook(ProgressStore(vault)).evaluate()}
    return bool(badges["first-question"]["unlocked"])


def test_cli_ask_records_an_ask_event(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    vault, settings = make_vault(tmp_path)
    monkeypatch.setenv("COGNIVAULT_INDEX_INDEX_DIR", settings.index.index_dir)
    assert not _first_question_unlocked(vault)
    assert main(["ask", "--vault", str(vault), "--keywords-only", "--json", "--chat-provider", "extractive",
                 "What do mitochondria make?"]) == 0
    answer = json.loads(capsys.readouterr().out)
    (event,) = ProgressStore(vault).events(kinds=["ask"])
    assert event.data == {"via": "cli", "confidence": answer["confidence"], "sources": len(answer["sources"])}
    assert _first_question_unlocked(vault)
    assert main(["ask", "--vault", str(vault), "--keywords-only", "   "]) == 2  # no answer: nothing recorded
    assert len(ProgressStore(vault).events(kinds=["ask"])) == 1


async def test_companion_ask_records_an_ask_event(tmp_path: Path) -> None:
    vault, settings = make_vault(tmp_path)
    settings.models.chat_provider = "extractive"
    with Engine(vault, settings, embedder=None) as engine:
        client = TestClient(TestServer(create_app(engine, settings, TOKEN), host="127.0.0.1"))
        await client.start_server()
        try:
            async with client.post("/api/ask", json={"question": "What do mitochondria make?"}, headers=AUTH) as r:
                lines = [json.loads(line) for line in (await r.text()).splitlines() if line.strip()]
            assert lines[-1]["type"] == "done"
            async with client.get("/api/progress", headers=AUTH) as r:
                progress = await r.json()
            assert progress["counts"] == {"ask": 1} and progress["current_streak"] == 1
            async with client.get("/api/badges", headers=AUTH) as r:
                badges = {b["id"]: b for b in (await r.json())["badges"]}
            assert badges["first-question"]["unlocked"]
        finally:
            await client.close()
    (event,) = ProgressStore(vault).events(kinds=["ask"])
    assert event.data["via"] == "companion" and event.data["sources"] == len(lines[-1]["data"]["sources"])
