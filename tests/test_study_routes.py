"""The study routes on a real companion app, and the dashboard in real headless Chromium."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import shutil
import subprocess
import threading
from datetime import datetime, time, timedelta
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from cognivault.companion.app import create_app
from cognivault.config import load_settings
from cognivault.engine import Engine
from cognivault.study.progress import ProgressStore

REPO = Path(__file__).resolve().parents[1]
ARTIFACTS = REPO / "test-artifacts"
TOKEN = "study-token-" + "k" * 32
AUTH = {"Authorization": f"Bearer {TOKEN}"}
CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)


def seed_progress(vault: Path) -> None:
    """Three study days of 25 minutes each (today, yesterday, the day before) and one quiz attempt."""
    store = ProgressStore(vault)
    today = datetime.now().astimezone().date()
    for days_ago in (2, 1, 0):
        start = datetime.combine(today - timedelta(days=days_ago), time(0, 1)).astimezone()
        for minute in range(5, 26, 5):  # five reviews of 5 minutes each: one 25-minute session
            store.record("review", {"rating": 3, "card": f"seed-{days_ago}-{minute}"},
                         ts=start + timedelta(minutes=minute), duration_s=300)
    store.record("quiz_attempt", {"quiz": "Study/Seeded quiz.md", "quiz_id": "seeded", "title": "Seeded quiz",
                                  "correct": 4, "total": 5, "score": 0.8},
                 ts=datetime.combine(today, time(0, 20)).astimezone(), duration_s=0)


@pytest.fixture(scope="module")
def companion_vault(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("routes")
    vault = root / "vault"
    for note in (REPO / "examples" / "vault").rglob("*.md"):
        target = vault / note.relative_to(REPO / "examples" / "vault")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(note, target)
    (vault / "Decks").mkdir()
    (vault / "Decks" / "Cells.md").write_text(
        "#flashcards/cells\n\nWhat is the stroma?::The fluid around the thylakoids.\n\n"
        "Where is chlorophyll?::In the thylakoid membranes.\n", "utf-8")
    seed_progress(vault)
    settings = load_settings(vault, {"index": {"index_dir": str(root / "index")}}, environ={})
    engine = Engine(vault, settings, embedder=None)
    engine.index()
    yield engine, settings
    engine.close()


async def client_for(engine: Engine, settings) -> TestClient:  # type: ignore[no-untyped-def]
    client = TestClient(TestServer(create_app(engine, settings, TOKEN), host="127.0.0.1"))
    await client.start_server()
    return client


async def ndjson(response) -> list[dict]:  # type: ignore[no-untyped-def]
    assert response.headers["Content-Type"].startswith("application/x-ndjson")
    return [json.loads(line) for line in (await response.text()).splitlines() if line.strip()]


async def test_review_routes(companion_vault) -> None:  # type: ignore[no-untyped-def]
    engine, settings = companion_vault
    client = await client_for(engine, settings)
    try:
        response = await client.get("/api/review/due", params={"note": "Decks/Cells.md"}, headers=AUTH)
        assert response.status == 200
        data = await response.json()
        assert [c["front"] for c in data["due"]] == ["What is the stroma?", "Where is chlorophyll?"]
        assert data["stats"]["decks"]["cells"]["total"] == 2
        card = data["due"][0]
        response = await client.post(f"/api/review/{card['id']}", json={"rating": "good", "path": card["path"]},
                                     headers=AUTH)
        assert response.status == 200, await response.text()
        outcome = await response.json()
        text = (engine.vault / "Decks" / "Cells.md").read_text("utf-8")
        assert f"<!--SR:!{outcome['due']},{outcome['interval']},{outcome['ease']}-->" in text
        for body, status, code in (({"rating": 7}, 400, "bad_rating"), ({"rating": 3, "path": "../x.md"}, 400,
                                                                        "bad_path")):
            response = await client.post(f"/api/review/{card['id']}", json=body, headers=AUTH)
            assert response.status == status and (await response.json())["error"]["code"] == code
        response = await client.post("/api/review/not-a-card", json={"rating": 3}, headers=AUTH)
        assert response.status == 400 and (await response.json())["error"]["code"] == "bad_card"
        response = await client.post("/api/review/0123456789ab-0", json={"rating": 3}, headers=AUTH)
        assert response.status == 404 and (await response.json())["error"]["code"] == "card_not_found"
        assert (await client.get("/api/review/due")).status == 401
    finally:
        await client.close()


async def test_generate_streams_progress_then_the_note(companion_vault) -> None:  # type: ignore[no-untyped-def]
    engine, settings = companion_vault
    client = await client_for(engine, settings)
    try:
        response = await client.post("/api/generate/mindmap", json={"note": "Photosynthesis/Calvin cycle.md",
                                                                    "chat_provider": "extractive"}, headers=AUTH)
        assert response.status == 200
        lines = await ndjson(response)
        assert [line["type"] for line in lines[:-1]] == ["progress"] * (len(lines) - 1) and len(lines) >= 3
        assert lines[-1]["type"] == "done"
        path = lines[-1]["data"]["path"]
        assert (engine.vault / path).is_file() and path.startswith("Study/Mind map - ")

        response = await client.post("/api/generate/quiz", json={"scope": {"folders": ["Nowhere"]},
                                                                 "chat_provider": "extractive"}, headers=AUTH)
        lines = await ndjson(response)
        assert lines[-1] == {"type": "error", "data": {"code": "empty_scope", "message": lines[-1]["data"]["message"]}}
        assert sum(1 for line in lines if line["type"] in ("done", "error")) == 1

        response = await client.post("/api/generate/quiz", json={"topic": "RuBisCO carbon fixation", "count": 3,
                                                                 "chat_provider": "extractive"}, headers=AUTH)
        quiz_path = (await ndjson(response))[-1]["data"]["path"]
        response = await client.post("/api/quiz/attempt", json={"path": quiz_path, "answers": ["A", "B", "C"]},
                                     headers=AUTH)
        attempt = await response.json()
        assert response.status == 200 and attempt["total"] == 3

        for body, status in (({}, 400), ({"note": "../../etc/passwd"}, 400), ({"topic": "x", "count": 0}, 400)):
            assert (await client.post("/api/generate/flashcards", json=body, headers=AUTH)).status == status
        assert (await client.post("/api/generate/essay", json={"topic": "x"}, headers=AUTH)).status == 404

        maps = (await (await client.get("/api/mindmaps", headers=AUTH)).json())["mindmaps"]
        assert maps and maps[0]["path"] == path
        tree = await (await client.get("/api/mindmap", params={"path": path}, headers=AUTH)).json()
        assert tree["root"]["label"] == "Calvin cycle" and tree["root"]["children"]
    finally:
        await client.close()


async def test_progress_badges_heatmap_and_events(companion_vault) -> None:  # type: ignore[no-untyped-def]
    engine, settings = companion_vault
    client = await client_for(engine, settings)
    try:
        progress = await (await client.get("/api/progress", headers=AUTH)).json()
        assert progress["current_streak"] >= 3 and progress["longest_streak"] >= 3
        assert progress["today_seconds"] >= 1500 and len(progress["heatmap"]) == 90
        assert progress["badges_total"] == 25
        badges = await (await client.get("/api/badges", headers=AUTH)).json()
        unlocked = {b["id"] for b in badges["badges"] if b["unlocked"]}
        assert {"first-recall", "first-quiz", "on-a-roll"} <= unlocked and badges["total"] == 25
        heat = await (await client.get("/api/heatmap", params={"days": "30"}, headers=AUTH)).json()
        assert len(heat["days"]) == 30 and heat["days"][-1]["level"] >= 2
        assert (await client.get("/api/heatmap", params={"days": "0"}, headers=AUTH)).status == 400
        response = await client.post("/api/progress/event", json={"kind": "mindmap_view", "data": {"path": "x"}},
                                     headers=AUTH)
        assert response.status == 200 and (await response.json())["kind"] == "mindmap_view"
        assert (await client.post("/api/progress/event", json={"kind": "review"}, headers=AUTH)).status == 400
    finally:
        await client.close()


async def test_client_events_carry_a_small_data_per_event_and_per_day(companion_vault) -> None:  # type: ignore[no-untyped-def]
    """Issue 28: /api/progress/event stored up to 1 MB of ``data`` per event in the vault (30 requests: 30 MB)."""
    from cognivault.study.routes import MAX_EVENT_DATA_BYTES, MAX_EVENT_DATA_PER_DAY

    engine, settings = companion_vault
    client = await client_for(engine, settings)
    try:
        big = {"kind": "lesson_read", "data": {"note": "x" * (MAX_EVENT_DATA_BYTES + 1)}}
        async with client.post("/api/progress/event", json=big, headers=AUTH) as response:
            assert response.status == 413 and (await response.json())["error"]["code"] == "event_too_large"
        near_cap = {"kind": "lesson_read", "data": {"note": "y" * (MAX_EVENT_DATA_BYTES - 100)}}
        answers = []
        for _ in range(MAX_EVENT_DATA_PER_DAY // (MAX_EVENT_DATA_BYTES - 100) + 2):
            async with client.post("/api/progress/event", json=near_cap, headers=AUTH) as response:
                answers.append((response.status, (await response.json()).get("error", {}).get("code")))
        assert answers[0] == (200, None) and answers[-1] == (429, "event_quota")
        stored = sum(path.stat().st_size for path in (engine.vault / ".cognivault" / "progress").glob("*.json"))
        assert stored < 2 * MAX_EVENT_DATA_PER_DAY
    finally:
        await client.close()


async def test_quizzes_to_take_without_their_answers(companion_vault) -> None:  # type: ignore[no-untyped-def]
    engine, settings = companion_vault
    path = "Study/Quiz - Routes.md"
    (engine.vault / "Study").mkdir(exist_ok=True)
    (engine.vault / path).write_text(QUIZ_NOTE.replace("Chloroplast parts", "Routes"), "utf-8")
    client = await client_for(engine, settings)
    try:
        listed = (await (await client.get("/api/quizzes", headers=AUTH)).json())["quizzes"]
        mine = next(q for q in listed if q["path"] == path)
        assert mine["title"] == "Quiz - Routes" and mine["attempts"] == 0 and mine["last"] is None
        quiz = await (await client.get("/api/quiz", params={"path": path}, headers=AUTH)).json()
        assert quiz["questions"] == [
            {"number": 1, "kind": "mcq", "question": "Where do the light reactions happen?",
             "options": ["Stroma", "Thylakoid membranes"]},
            {"number": 2, "kind": "mcq", "question": "Which pigment absorbs red and blue light?",
             "options": ["Chlorophyll", "Carotene", "Xanthophyll"]}]
        assert "light-dependent" not in json.dumps(quiz)  # no explanation before the attempt
        assert (await client.get("/api/quiz", params={"path": "Decks/Cells.md"}, headers=AUTH)).status == 400
        assert (await client.get("/api/quiz", params={"path": "../x.md"}, headers=AUTH)).status == 400
        scored = await (await client.post("/api/quiz/attempt", json={"path": path, "answers": ["B", None]},
                                          headers=AUTH)).json()
        assert (scored["correct"], scored["total"]) == (1, 2)
        assert scored["details"][0]["sources"] == [{"target": "Photosynthesis/Light reactions", "heading": "Where",
                                                    "label": "Light reactions › Where", "chunk_id": "0123456789abcdef"}]
        listed = (await (await client.get("/api/quizzes", headers=AUTH)).json())["quizzes"]
        mine = next(q for q in listed if q["path"] == path)
        assert mine["attempts"] == 1 and (mine["last"]["correct"], mine["last"]["total"]) == (1, 2)
    finally:
        await client.close()
        (engine.vault / path).unlink()


async def test_dashboard_is_one_self_contained_page(companion_vault) -> None:  # type: ignore[no-untyped-def]
    engine, settings = companion_vault
    client = await client_for(engine, settings)
    try:
        response = await client.get("/dashboard", headers=AUTH)
        assert response.status == 200 and response.content_type == "text/html"
        html = await response.text()
        assert "/*__CSS__*/" not in html and "/*__JS__*/" not in html and "renderHeatmap" in html
        assert not re.search(r"""(src|href)=["']?https?://""", html)  # no CDN, nothing from elsewhere
        assert "@import" not in html and "@font-face" not in html
        css = await client.get("/dashboard/assets/dashboard.css", headers=AUTH)
        assert css.status == 200 and css.content_type == "text/css"
        assert (await client.get("/dashboard/assets/secret.py", headers=AUTH)).status == 404
        redirect = await client.get("/dashboard", params={"token": TOKEN}, allow_redirects=False)
        assert redirect.status == 303 and "cognivault_session" in redirect.headers.get("Set-Cookie", "")
    finally:
        await client.close()


# -- real headless Chromium against a running companion ------------------------------------------
class RunningCompanion:
    def __init__(self, engine: Engine, settings) -> None:  # type: ignore[no-untyped-def]
        self.loop = asyncio.new_event_loop()
        self.app = create_app(engine, settings, TOKEN)
        self.runner = web.AppRunner(self.app)
        self.port = 0
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    def __enter__(self) -> RunningCompanion:
        self.thread.start()

        async def start() -> int:
            await self.runner.setup()
            site = web.TCPSite(self.runner, "127.0.0.1", 0)
            await site.start()
            return site._server.sockets[0].getsockname()[1]  # noqa: SLF001

        self.port = asyncio.run_coroutine_threadsafe(start(), self.loop).result(30)
        return self

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self.runner.cleanup(), self.loop).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
                  "--hide-scrollbars"]


def chromium(url: str, profile: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    flags = [*CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--virtual-time-budget=5000"]
    return subprocess.run([CHROMIUM, *flags, *extra, url],
                          capture_output=True, text=True, timeout=90)


class DevTools:
    """Headless Chromium driven over the DevTools protocol (a websocket on loopback): real mouse clicks."""

    def __init__(self, profile: Path) -> None:
        self.profile = profile
        self.process: subprocess.Popen[bytes] | None = None
        self.session: aiohttp.ClientSession | None = None
        self.ws: aiohttp.ClientWebSocketResponse | None = None
        self.ids = 0

    async def __aenter__(self) -> DevTools:
        assert CHROMIUM is not None
        log = self.profile.with_suffix(".log")
        with log.open("wb") as err:
            self.process = subprocess.Popen([CHROMIUM, *CHROMIUM_FLAGS, f"--user-data-dir={self.profile}",
                                             "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
                                             "--window-size=1280,1700", "about:blank"],
                                            stdout=subprocess.DEVNULL, stderr=err)
        for _ in range(300):
            found = re.search(r"DevTools listening on ws://127\.0\.0\.1:(\d+)/", log.read_text("utf-8", "replace"))
            if found:
                break
            await asyncio.sleep(0.1)
        assert found, log.read_text("utf-8", "replace")[-2000:]
        self.session = aiohttp.ClientSession()
        async with self.session.get(f"http://127.0.0.1:{found[1]}/json/list") as response:
            page = next(t for t in await response.json() if t["type"] == "page")
        self.ws = await self.session.ws_connect(page["webSocketDebuggerUrl"], max_msg_size=0)
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self.session is not None:
            await self.session.close()
        if self.process is not None:
            self.process.terminate()
            self.process.wait(20)

    async def send(self, method: str, **params: object) -> dict:
        assert self.ws is not None
        self.ids += 1
        await self.ws.send_json({"id": self.ids, "method": method, "params": params})
        while True:  # events arrive in between: skip them
            message = await asyncio.wait_for(self.ws.receive_json(), 30)
            if message.get("id") == self.ids:
                assert "error" not in message, message
                return message["result"]

    async def evaluate(self, expression: str) -> object:
        result = await self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        assert "exceptionDetails" not in result, result
        return result["result"].get("value")

    async def wait_for(self, expression: str, timeout: float = 60) -> None:  # bounds a hang only
        for _ in range(int(timeout * 10)):
            if await self.evaluate(expression):
                return
            await asyncio.sleep(0.1)
        raise AssertionError(f"never true: {expression}")

    async def click(self, selector: str) -> None:
        """A left click at the middle of the element, as a user's mouse makes it."""
        box = await self.evaluate(f"""(() => {{ const e = document.querySelector({json.dumps(selector)});
            e.scrollIntoView({{block: "center"}}); const r = e.getBoundingClientRect();
            return [r.x + r.width / 2, r.y + r.height / 2]; }})()""")
        assert isinstance(box, list), selector
        x, y = box
        await self.send("Input.dispatchMouseEvent", type="mouseMoved", x=x, y=y)
        for kind in ("mousePressed", "mouseReleased"):
            await self.send("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    async def screenshot(self, target: Path) -> None:
        shot = await self.send("Page.captureScreenshot", format="png", captureBeyondViewport=True)
        target.write_bytes(base64.b64decode(shot["data"]))


QUIZ_NOTE = """---
cognivault: 1
type: quiz
title: Quiz - Chloroplast parts
generated_at: '2026-01-02T10:00:00+00:00'
quiz_id: 0fedcba987654321
---

# Quiz - Chloroplast parts

## Question 1

Where do the light reactions happen?

- A) Stroma
- B) Thylakoid membranes

> [!success]- Answer
> **B) Thylakoid membranes**
> The light-dependent reactions run in the thylakoid membranes.
> Source: [[Photosynthesis/Light reactions#Where|Light reactions › Where]]<!--cv:cite id=0123456789abcdef h=89abcdef-->

## Question 2

Which pigment absorbs red and blue light?

- A) Chlorophyll
- B) Carotene
- C) Xanthophyll

> [!success]- Answer
> **A) Chlorophyll**
> Chlorophyll absorbs red and blue light and reflects green.
> Source: [[Photosynthesis/Light reactions|Light reactions]]<!--cv:cite id=fedcba9876543210 h=01234567-->
"""


async def take_quiz_in_the_page(url: str, profile: Path, shot: Path) -> str:
    """Open the dashboard, take the quiz (1 right, 1 wrong), submit: the page's score line and question texts."""
    async with DevTools(profile) as browser:
        await browser.send("Page.enable")
        await browser.send("Page.navigate", url=url)
        await browser.wait_for("document.body && document.body.dataset.loaded === 'true'")
        await browser.click('button.take[data-quiz="Study/Quiz - Chloroplast parts.md"]')
        await browser.wait_for("document.getElementById('quiz-panel').dataset.state === 'open'")
        assert await browser.evaluate("document.querySelectorAll('#quiz-questions .option').length") == 5
        await browser.click('li[data-question="1"] label[data-option="B"]')  # right
        await browser.click('li[data-question="2"] label[data-option="C"]')  # wrong
        assert await browser.evaluate("[...document.querySelectorAll('#quiz-questions input:checked')]"
                                      ".map(i => i.value).join()") == "B,C"
        await browser.click("#quiz-submit")
        await browser.wait_for("document.getElementById('quiz-panel').dataset.state === 'scored'")
        await browser.screenshot(shot)
        page_text = str(await browser.evaluate("document.getElementById('quiz-panel').innerText"))
        marks = await browser.evaluate("[...document.querySelectorAll('#quiz-questions li')].map(li => "
                                       "li.className + ':' + [...li.querySelectorAll('.option.correct, .option.wrong')]"
                                       ".map(o => o.dataset.option + '=' + o.className.split(' ')[1]).join('/'))")
        assert marks == ["ok:B=correct", "missed:A=correct/C=wrong"], marks
        await browser.click("#quiz-close")
        await browser.wait_for("document.getElementById('quiz-panel').hidden && document.body.dataset.loaded === 'true'"
                               " && document.getElementById('quiz-list').innerText.includes('1/2')")
        return page_text


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (apt-get install chromium)")
def test_dashboard_in_headless_chromium(companion_vault, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    engine, settings = companion_vault
    with RunningCompanion(engine, settings) as running:
        url = f"http://127.0.0.1:{running.port}/dashboard?token={TOKEN}"
        dom = chromium(url, tmp_path / "profile-dom", "--dump-dom")
        html = dom.stdout
        assert 'data-loaded="true"' in html, dom.stderr[-2000:]
        store = ProgressStore(engine.vault)
        summary = store.summary()
        minutes = round(summary["total_seconds"] / 60)
        expected_total = f"{minutes // 60} h {minutes % 60:02d} min" if minutes >= 60 else f"{minutes} min"
        assert f'id="stat-total">{expected_total}<' in html
        assert f'id="stat-streak">{summary["current_streak"]} days<' in html
        assert html.count('class="badge ') == 25 and 'data-badge="first-recall"' in html
        assert len(re.findall(r'class="cell l\d', html)) == 90
        assert "Seeded quiz" in html and "4/5 · 80%" in html
        assert "What is the stroma?" in html or "Where is chlorophyll?" in html
        assert re.search(r'<g class="node root"', html), "the mind-map viewer drew the map"
        ARTIFACTS.mkdir(exist_ok=True)
        shot = ARTIFACTS / "dashboard.png"
        shot.unlink(missing_ok=True)
        result = chromium(url, tmp_path / "profile-shot", f"--screenshot={shot}", "--window-size=1280,1700")
        assert shot.is_file() and shot.stat().st_size > 10_000, result.stderr[-2000:]
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

        # take a quiz through the page: open it, click options, submit, read the score
        quiz_path = "Study/Quiz - Chloroplast parts.md"
        (engine.vault / "Study").mkdir(exist_ok=True)
        (engine.vault / quiz_path).write_text(QUIZ_NOTE, "utf-8")
        quiz_shot = ARTIFACTS / "dashboard-quiz.png"
        quiz_shot.unlink(missing_ok=True)
        text = asyncio.run(take_quiz_in_the_page(url, tmp_path / "profile-quiz", quiz_shot))
        assert "Score: 1/2 · 50%" in text
        assert "Correct. The light-dependent reactions run in the thylakoid membranes." in text
        assert "Answer A. Chlorophyll absorbs red and blue light and reflects green." in text
        assert "Source: Light reactions › Where (Photosynthesis/Light reactions)" in text
        assert quiz_shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and quiz_shot.stat().st_size > 10_000
        (attempt,) = [e for e in store.events(kinds=["quiz_attempt"]) if e.data["quiz"] == quiz_path]
        assert (attempt.data["correct"], attempt.data["total"], attempt.data["quiz_id"]) == (1, 2, "0fedcba987654321")
        assert attempt.duration_s > 0
    assert os.environ.get("COGNIVAULT_MODELS_OLLAMA_HOST") == "http://127.0.0.1:9"  # nothing reached a model
