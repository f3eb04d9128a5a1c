"""The link ``cognivault serve`` prints for a person: a one-time code that opens the dashboard, once.

Over a real loopback app: the code is exchanged for the HttpOnly SameSite=Strict cookie and
removed from the address by a 303, a second use is refused, ``/`` leads to the dashboard, and the
cookie still authenticates no other Origin. End to end: ``cognivault serve`` on a terminal (a pty)
prints one line, and headless Chromium opens that line's link with no other step and shows the
dashboard with its data; opening the same link again shows nothing. And the warm-up serve and lsp
run at start: models, indexes and the chat provider are loaded before the first question.
"""

from __future__ import annotations

import json
import os
import pty
import re
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer

from answer_support import WordHashEmbedder
from cognivault.companion import api
from cognivault.companion.app import create_app
from cognivault.companion.runner import warm_up
from cognivault.companion.security import COOKIE_NAME
from cognivault.config import load_settings
from cognivault.engine import Engine
from cognivault.vault.extractors import ocr
from cognivault.warmup import WARM_QUESTION, warm_answering
from processes import stop_process

TOKEN = "serve-link-token-" + "q" * 32
CHROMIUM = shutil.which("chromium")
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
                  "--virtual-time-budget=5000"]
LINK = re.compile(r"CogniVault dashboard: (http://127\.0\.0\.1:\d+/\?code=[A-Za-z0-9_-]+) ")


def _vault(root: Path) -> tuple[Path, object]:
    vault = root / "vault"
    (vault / "Biology").mkdir(parents=True)
    (vault / "Biology" / "Cells.md").write_text("# Cells\n\nMitochondria are the powerhouse of the cell: they make "
                                                        "ATP from sugar and oxygen in every animal cell.\n", "utf-8")
    settings = load_settings(vault, {"index": {"index_dir": str(root / "index")},
                                     "models": {"chat_provider": "extractive"},
                                     "embedding": {"multilingual": False}},  # as conftest has it
                             environ={})
    return vault, settings


@pytest.fixture
async def client(tmp_path: Path):
    vault, settings = _vault(tmp_path)
    with Engine(vault, settings, embedder=None) as engine:
        client = TestClient(TestServer(create_app(engine, settings, TOKEN), host="127.0.0.1"))
        await client.start_server()
        yield client
        await client.close()


async def test_a_login_code_opens_once_and_leaves_the_address(client) -> None:  # type: ignore[no-untyped-def]
    code = client.app[api.CONFIG_KEY].issue_login_code()
    async with client.get(f"/?code={code}&tab=cards", allow_redirects=False) as response:
        assert response.status == 303 and response.headers["Location"] == "/?tab=cards"
        cookie_header = response.headers["Set-Cookie"]
        assert "HttpOnly" in cookie_header and "SameSite=Strict" in cookie_header and code not in cookie_header
        jar = {COOKIE_NAME: response.cookies[COOKIE_NAME].value}
    async with client.get(f"/?code={code}", allow_redirects=False) as response:
        assert response.status == 401 and (await response.json())["error"]["code"] == "code_used"
    async with client.get("/", cookies=jar, allow_redirects=False) as response:
        assert response.status == 303 and response.headers["Location"] == "/dashboard"
    async with client.get("/dashboard", cookies=jar) as response:
        assert response.status == 200 and response.content_type == "text/html"
    async with client.get("/api/status", cookies=jar) as response:
        assert response.status == 200
    origin = "http://evil.example"
    async with client.get("/api/status", cookies=jar, headers={"Origin": origin}) as response:
        assert response.status == 403  # the Origin check comes before any cookie is looked at
    async with client.get("/api/status", cookies=jar, headers={"Origin": "app://obsidian.md"}) as response:
        assert response.status == 401  # an allowed foreign origin still needs the header token


async def test_codes_are_per_link_and_never_open_the_api(client) -> None:  # type: ignore[no-untyped-def]
    config = client.app[api.CONFIG_KEY]
    first, second = config.issue_login_code(), config.issue_login_code()
    assert first != second
    async with client.get(f"/api/status?code={first}") as response:
        assert response.status == 401  # not a page: the code is no credential here
    async with client.get(f"/?code={first}&code={first}", allow_redirects=False) as response:
        assert response.status == 401
    async with client.get("/?code=" + "x" * 32, allow_redirects=False) as response:
        assert response.status == 401
    for code in (first, second):  # neither refusal above used a code up
        async with client.get(f"/dashboard?code={code}", allow_redirects=False) as response:
            assert response.status == 303 and response.headers["Location"] == "/dashboard"
    assert config.login_codes == []


def _serve_on_a_terminal(vault: Path, env: dict[str, str]) -> tuple[subprocess.Popen[bytes], int]:
    leader, follower = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "cognivault.cli", "serve", "--vault", str(vault),
                                "--keyword-only", "--port", "0"],
                               stdin=subprocess.DEVNULL, stdout=follower, stderr=subprocess.PIPE, env=env)
    os.close(follower)
    return process, leader


def _first_line(leader: int, process: subprocess.Popen[bytes], timeout: float) -> str:
    buffer = b""
    deadline = time.monotonic() + timeout
    while b"\n" not in buffer and time.monotonic() < deadline and process.poll() is None:
        ready, _, _ = select.select([leader], [], [], 0.5)
        if ready:
            buffer += os.read(leader, 4096)
    return buffer.decode("utf-8", "replace").splitlines()[0] if buffer else ""


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (apt-get install chromium)")
def test_the_printed_link_opens_the_dashboard_in_headless_chromium(tmp_path: Path) -> None:
    vault, _ = _vault(tmp_path)
    env = {**os.environ, "COGNIVAULT_MODELS_CHAT_PROVIDER": "extractive"}
    process, leader = _serve_on_a_terminal(vault, env)
    try:
        line = _first_line(leader, process, 60)
        found = LINK.search(line)
        assert found, (line, process.stderr.read().decode() if process.poll() is not None else "")
        assert "token" not in line and json.loads(
            (vault / ".cognivault" / "companion.json").read_text("utf-8"))["token"] not in line
        url = found[1]
        dom = subprocess.run([CHROMIUM, *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}",
                              "--dump-dom", url], capture_output=True, text=True, timeout=120)
        html = dom.stdout
        assert 'data-loaded="true"' in html, dom.stderr[-2000:]
        assert html.count('class="badge ') == 25  # the badges came from /api/badges through the cookie
        assert re.search(r'id="stat-streak">\d+ days?<', html), html[:2000]
        again = subprocess.run([CHROMIUM, *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile-2'}",
                                "--dump-dom", url], capture_output=True, text=True, timeout=120)
        assert "code_used" in again.stdout and 'data-loaded="true"' not in again.stdout
    finally:
        stop_process(process, 15)
        os.close(leader)


def test_serve_on_a_terminal_shows_the_first_index_pass_progress(tmp_path: Path) -> None:
    """A person's `serve` indexes in the background: the terminal shows the pass as `index` does."""
    vault, _ = _vault(tmp_path)
    leader, follower = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "cognivault.cli", "serve", "--vault", str(vault),
                                "--keyword-only", "--port", "0"], stdin=subprocess.DEVNULL, stdout=follower,
                               stderr=follower, env={**os.environ, "COGNIVAULT_MODELS_CHAT_PROVIDER": "extractive"})
    os.close(follower)
    seen = b""
    try:
        deadline = time.monotonic() + 120  # bounds a hang only: the loop ends when the pass is done
        while b"done " not in seen and time.monotonic() < deadline and process.poll() is None:
            ready, _, _ = select.select([leader], [], [], 0.5)
            if ready:
                seen += os.read(leader, 4096)
    finally:
        stop_process(process, 15)
        os.close(leader)
    text = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", seen.decode("utf-8", "replace")).replace("\r", "\n")
    assert LINK.search(text), text
    assert re.search(r"^done +\[#+\] 1/1 files$", text, re.MULTILINE), text


class CountingEmbedder(WordHashEmbedder):
    def __init__(self) -> None:
        self.queries: list[str] = []

    def embed_query(self, text: str):  # type: ignore[no-untyped-def]
        self.queries.append(text)
        return super().embed_query(text)


def test_warm_answering_loads_the_embedder_and_runs_one_retrieval(tmp_path: Path) -> None:
    from cognivault.index import analysis

    vault, settings = _vault(tmp_path)
    embedder = CountingEmbedder()
    with Engine(vault, settings, embedder=embedder) as engine:  # type: ignore[arg-type]
        engine.index()
        timings = warm_answering(engine)
    assert set(timings) == {"embedder", "language_model", "retrieval"}
    assert embedder.queries.count(WARM_QUESTION) >= 2  # the model itself, then the retrieval's hybrid search
    assert analysis._base_identifier.cache_info().currsize == 1  # noqa: SLF001 - the language model is loaded


async def test_serve_warm_up_resolves_the_chat_provider_before_the_first_ask(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ocr, "_languages_cache", {})  # as in a new process
    vault, settings = _vault(tmp_path)
    with Engine(vault, settings, embedder=CountingEmbedder()) as engine:  # type: ignore[arg-type]
        client = TestClient(TestServer(create_app(engine, settings, TOKEN), host="127.0.0.1"))
        await client.start_server()
        try:
            assert api.service(client.app, "provider") is None
            await warm_up(client.app)
            assert api.service(client.app, "provider").name == "extractive"
            assert api.service(client.app, "sessions") is not None
            assert engine.embedder.queries  # type: ignore[union-attr]
            # the index pass that starts with the link finds tesseract's languages already asked
            assert ocr.known_languages() or shutil.which("tesseract") is None
        finally:
            await client.close()


async def test_serve_paces_full_collections_after_its_warm_up_and_gives_them_back(tmp_path: Path) -> None:
    """After the warm-up, what it loaded is frozen and full collections wait for idle moments (the startup
    pass's garbage had set one off inside the first answers); the app's cleanup restores the collector."""
    import gc

    from cognivault.companion.runner import _warm_up_then_pace_collections

    vault, settings = _vault(tmp_path)
    threshold = gc.get_threshold()
    with Engine(vault, settings, embedder=CountingEmbedder()) as engine:  # type: ignore[arg-type]
        client = TestClient(TestServer(create_app(engine, settings, TOKEN), host="127.0.0.1"))
        await client.start_server()
        collector = client.app[api.COLLECTOR_KEY]
        try:
            assert not collector.active
            await _warm_up_then_pace_collections(client.app)
            assert collector.active and gc.get_freeze_count() > 0
            assert gc.get_threshold()[2] > threshold[2]  # no automatic full collection
        finally:
            await client.close()
            gc.unfreeze()
    assert not collector.active and gc.get_threshold() == threshold
