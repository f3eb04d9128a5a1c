"""The companion under attack: the auth / Host / Origin table over every route and method,
oversized and malformed bodies, path traversal, the rate limit, the one-time page token, CORS.

Runs against a real aiohttp server on a loopback port (aiohttp's test client) with a
real Engine on a tiny indexed vault. Every refusal must carry the right status, the
``{"error": {"code", "message"}}`` shape, and no vault data.
"""

from __future__ import annotations

import asyncio
import io
import json
import re
import signal
import subprocess
import sys
import urllib.error
import urllib.request
import wave
from pathlib import Path

import aiohttp
import pytest
from aiohttp.test_utils import TestClient, TestServer
from yarl import URL

from cognivault.companion import api
from cognivault.companion.app import create_app
from cognivault.companion.security import COOKIE_NAME, RateLimiter, parse_origin
from cognivault.config import load_settings
from cognivault.engine import Engine

TOKEN = "test-token-" + "x" * 32
SECRET = "Zebrafishmarker"  # appears only inside the vault's notes
NOTES = {
    "Biology/Cells.md": f"# Cells\n\nMitochondria are the powerhouse of the cell. {SECRET} lives here.\n",
    "Energy.md": "# Energy\n\nEnergy is conserved in every reaction. See [[Cells]].\n",
    "Private/Diary.md": f"# Diary\n\nMy private {SECRET} thoughts about mitochondria.\n",
}


# -- fixtures ----------------------------------------------------------------
@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("companion")
    vault = root / "vault"
    for rel, text in NOTES.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text, "utf-8")
    settings = load_settings(vault, {"index": {"index_dir": str(root / "index")}}, environ={})
    engine = Engine(vault, settings, embedder=None)
    engine.index()
    outside = root / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text(f"# Outside\n\n{SECRET} outside the vault\n", "utf-8")
    (vault / "escape").symlink_to(outside, target_is_directory=True)  # after indexing: a trap, not a note
    yield engine, settings, root
    engine.close()


async def _client(app) -> TestClient:  # type: ignore[no-untyped-def]
    client = TestClient(TestServer(app, host="127.0.0.1"))
    await client.start_server()
    return client


@pytest.fixture
async def client(indexed):
    """The app as ``cognivault serve`` builds it: core routes plus every feature module's routes."""
    engine, settings, _ = indexed
    client = await _client(create_app(engine, settings, TOKEN))
    yield client
    await client.close()


AUTH = {"Authorization": f"Bearer {TOKEN}"}
VALID_BODIES = {
    "/api/search": {"query": "mitochondria"},
    "/api/ask": {"question": "What are mitochondria?"},
    "/api/import-url": {"url": "http://example.org/"},
    "/api/sessions/{session_id}/truncate": {"turn": 0},
}


def _silence_wav(seconds: float = 0.1) -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as recording:
        recording.setnchannels(1)
        recording.setsampwidth(2)
        recording.setframerate(16000)
        recording.writeframes(b"\0\0" * int(16000 * seconds))
    return out.getvalue()


# Routes whose body is not JSON: (query, raw body) of a valid request.
VALID_UPLOADS = {"/api/transcribe": ({"name": "question.wav"}, _silence_wav())}


def _concrete(path: str) -> str:
    return re.sub(r"\{(\w+)(:[^}]*)?\}", "s1", path)


def _routes(app) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    return sorted(app[api.ROUTES_KEY])


def _request_kwargs(method: str, path: str) -> dict:
    if method in ("POST", "PUT", "PATCH"):
        template = re.sub(r"\{(\w+)(:[^}]*)?\}", r"{\1}", path)
        if template in VALID_UPLOADS:
            params, data = VALID_UPLOADS[template]
            return {"params": params, "data": data}
        return {"json": VALID_BODIES.get(template, {})}  # feature routes: refused before the body is read
    if path == "/api/related":
        return {"params": {"path": "Energy.md"}}
    return {}


def assert_refusal(status: int, body: bytes, expected_status: int, code: str | None, root: Path) -> None:
    assert status == expected_status, body
    text = body.decode("utf-8")
    data = json.loads(text)
    assert set(data) == {"error"} and set(data["error"]) == {"code", "message"}
    if code is not None:
        assert data["error"]["code"] == code
    for leak in (SECRET, "Mitochondria", "Cells.md", "Diary", str(root)):
        assert leak not in text


# -- the table ---------------------------------------------------------------
ATTACKS = [
    # (name, headers, query token?, status, code)
    ("no token", {}, False, 401, "unauthorized"),
    ("wrong token", {"Authorization": "Bearer " + "y" * 43}, False, 401, "unauthorized"),
    ("wrong scheme", {"Authorization": f"Basic {TOKEN}"}, False, 401, "unauthorized"),
    ("token prefix", {"Authorization": f"Bearer {TOKEN[:-1]}"}, False, 401, "unauthorized"),
    ("token in query", {}, True, 401, "token_in_query"),
    ("token in query and header", AUTH, True, 401, "token_in_query"),
    ("Host evil.example", {**AUTH, "Host": "evil.example"}, False, 403, "bad_host"),
    ("Host 127.0.0.1.nip.io", {**AUTH, "Host": "127.0.0.1.nip.io:{port}"}, False, 403, "bad_host"),
    ("Host localhost.evil.example", {**AUTH, "Host": "localhost.evil.example:{port}"}, False, 403, "bad_host"),
    ("Host wrong port", {**AUTH, "Host": "127.0.0.1:1"}, False, 403, "bad_host"),
    ("Host without port", {**AUTH, "Host": "localhost"}, False, 403, "bad_host"),
    ("foreign Origin", {**AUTH, "Origin": "https://evil.example"}, False, 403, "bad_origin"),
    ("Origin null", {**AUTH, "Origin": "null"}, False, 403, "bad_origin"),
    ("look-alike Origin", {**AUTH, "Origin": "http://127.0.0.1.evil.example"}, False, 403, "bad_origin"),
    ("vscode-webview look-alike", {**AUTH, "Origin": "vscode-webview://x/../evil"}, False, 403, "bad_origin"),
]


async def test_every_route_and_method_refuses_every_attack(client, indexed):
    _, _, root = indexed
    routes = _routes(client.app)
    assert len(routes) >= 9  # GET / and the eight API routes
    port = client.port
    checked = 0
    for method, path in routes:
        for name, headers, query_token, status, code in ATTACKS:
            kwargs = _request_kwargs(method, path)
            if query_token:
                kwargs["params"] = {**kwargs.get("params", {}), "token": TOKEN}
            sent = {k: v.replace("{port}", str(port)) for k, v in headers.items()}
            if client.app[api.ROUTES_KEY][(method, path)].page and query_token:
                continue  # a page's one-time ?token= exchange: tested on its own below
            async with client.request(method, _concrete(path), headers=sent, allow_redirects=False,
                                      **kwargs) as response:
                body = await response.read()
                assert_refusal(response.status, body, status, code, root)
                assert "Access-Control-Allow-Origin" not in response.headers, (method, path, name)
                checked += 1
    pages = sum(spec.page for spec in client.app[api.ROUTES_KEY].values())
    assert checked == len(routes) * len(ATTACKS) - 2 * pages


async def test_unknown_methods_and_paths_need_the_token_too(client, indexed):
    _, _, root = indexed
    paths = sorted({_concrete(p) for _, p in _routes(client.app)}) + ["/api/nothing-here", "/.cognivault/x"]
    for path in paths:
        for method in ("GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"):
            async with client.request(method, path, allow_redirects=False) as response:
                assert response.status == 401, (method, path)
                if method != "HEAD":
                    assert_refusal(response.status, await response.read(), 401, "unauthorized", root)
    async with client.put("/api/search", headers=AUTH) as response:
        assert response.status == 405
        assert (await response.json())["error"]["code"] == "method_not_allowed"
    async with client.get("/api/nothing-here", headers=AUTH) as response:
        assert response.status == 404
        assert (await response.json())["error"]["code"] == "not_found"


async def test_valid_requests_pass_on_every_route(client):
    """The control row of the table: the same requests with the right token succeed."""
    for method, path in _routes(client.app):
        async with client.request(method, _concrete(path), headers=AUTH, allow_redirects=False,
                                  **_request_kwargs(method, path)) as response:
            body = await response.read()
            if path == "/api/import-url":
                assert response.status == 403 and b"import_disabled" in body  # off by default
            elif path == "/":  # leads to the dashboard (the study hub is installed)
                assert (response.status, response.headers.get("Location")) == (303, "/dashboard")
            elif path == "/api/transcribe":  # no whisper model folder in this vault's settings
                assert response.status == 503 and b"transcription_unavailable" in body
            elif client.app[api.ROUTES_KEY][(method, path)].tag != "core":
                assert response.status not in (401, 403, 429) and response.status < 500, (method, path, body)
            else:
                assert response.status == 200, (method, path, body[:300])


# -- bodies ------------------------------------------------------------------
def _post_routes(client) -> list[str]:  # type: ignore[no-untyped-def]
    """The POST routes that take JSON (uploads are checked in test_companion_transcribe.py)."""
    specs = client.app[api.ROUTES_KEY]
    return [_concrete(p) for m, p in _routes(client.app) if m == "POST" and
            "application/json" in specs[(m, p)].request_types]


async def test_oversized_bodies_are_refused_before_reading(client, indexed):
    _, _, root = indexed
    specs = {_concrete(path): spec for (method, path), spec in client.app[api.ROUTES_KEY].items()
             if method == "POST"}
    for path, spec in specs.items():
        media = {**AUTH, "Content-Type": spec.request_types[0]}
        params = VALID_UPLOADS.get(path, ({}, b""))[0]
        big = json.dumps({"question": "a" * (spec.max_body + 10), "query": "x"})
        async with client.post(path, data=big, params=params, headers=media) as response:
            assert_refusal(response.status, await response.read(), 413, "body_too_large", root)

        async def chunks(size: int = spec.max_body + 1):  # no Content-Length: capped while reading
            yield b'{"query": "'
            for _ in range(size // 65536 + 1):
                yield b"a" * 65536
            yield b'"}'

        async with client.post(path, data=chunks(), params=params, headers=media) as response:
            assert_refusal(response.status, await response.read(), 413, "body_too_large", root)


@pytest.mark.parametrize(("raw", "content_type", "status", "code"), [
    (b'{"query": ', "application/json", 400, "invalid_json"),
    (b"", "application/json", 400, "invalid_json"),
    (b"\xff\xfe{}", "application/json", 400, "invalid_json"),
    (b"[1, 2]", "application/json", 400, "invalid_request"),
    (b'"just a string"', "application/json", 400, "invalid_request"),
    (b"[" * 1500 + b"]" * 1500, "application/json", 400, None),  # deeper than the parser allows
    # Issue 28: 260-900 levels passed the parser, then failed where the body was stored (orjson: 254): a 500.
    (b'{"kind": "mindmap_view", "data": {"x": ' + b"[" * 300 + b"]" * 300 + b"}}", "application/json", 400,
     "invalid_json"),
    # Issue 13: numbers and strings Python's json accepts but nothing behind a route can use.
    (b'{"query": "x", "k": ' + b"9" * 4000 + b"}", "application/json", 400, "invalid_json"),
    (b'{"query": "x", "k": -' + b"1" * 41 + b"}", "application/json", 400, "invalid_json"),
    (b'{"query": "x", "k": 1e999}', "application/json", 400, "invalid_json"),
    (b'{"query": "x", "k": NaN}', "application/json", 400, "invalid_json"),
    (b'{"query": "x", "k": -Infinity}', "application/json", 400, "invalid_json"),
    (b'{"query": "\\ud800 lone surrogate", "question": "\\udfff"}', "application/json", 400, "invalid_json"),
    (b'{"query": "x", "k": 0.' + b"5" * 60 + b"}", "application/json", 400, "invalid_json"),
    (b'{"query": "x"}', "text/plain", 415, "unsupported_media_type"),
    (b"query=x", "application/x-www-form-urlencoded", 415, "unsupported_media_type"),
])
async def test_malformed_json_is_a_clear_4xx_on_every_post_route(client, indexed, raw, content_type, status, code):
    _, _, root = indexed
    for path in _post_routes(client):
        async with client.post(path, data=raw, headers={**AUTH, "Content-Type": content_type}) as response:
            assert_refusal(response.status, await response.read(), status, code, root)


async def test_a_5000_digit_integer_is_refused_on_every_post_route_never_a_500(client, indexed):
    """Past Python's 4,300-digit limit: a 400 (or 413 where the route's cap is smaller), with the envelope."""
    _, _, root = indexed
    raw = b'{"query": "x", "question": "x", "rating": ' + b"7" * 5000 + b"}"
    for path in _post_routes(client):
        async with client.post(path, data=raw, headers={**AUTH, "Content-Type": "application/json"}) as response:
            body = await response.read()
            assert response.status in (400, 413), (path, body)
            assert_refusal(response.status, body, response.status,
                           "invalid_json" if response.status == 400 else "body_too_large", root)


@pytest.mark.parametrize(("body", "fragment"), [
    ({}, "body.query is required"),
    ({"query": 5}, "body.query must be string"),
    ({"query": ""}, "at least 1"),
    ({"query": "x", "k": 0}, "body.k must be at least 1"),
    ({"query": "x", "k": "10"}, "body.k must be integer"),
    ({"query": "x", "k": True}, "body.k must be integer"),
    ({"query": "x", "mode": "fuzzy"}, "body.mode must be one of"),
    ({"query": "x", "per_note": "yes"}, "body.per_note must be boolean"),
    ({"query": "x", "scope": {"folders": [1]}}, "body.scope.folders[0] must be string"),
    ({"query": "x", "scope": {"colour": "red"}}, "unknown field 'colour'"),
    ({"query": "x", "limit": 3}, "unknown field 'limit'"),
    ({"query": "   "}, "the query is empty"),
])
async def test_search_validation_messages(client, body, fragment):
    async with client.post("/api/search", json=body, headers=AUTH) as response:
        assert response.status == 400
        error = (await response.json())["error"]
        assert error["code"] in ("invalid_request", "bad_request")
        assert fragment in error["message"]


async def test_ask_and_truncate_validation(client):
    for body, fragment in [({"question": ""}, "at least 1"), ({"question": "   "}, "empty after trimming"),
                           ({"question": "x" * 4001}, "4000"), ({"question": "x" * 8001}, "at most 8000"),
                           ({"question": "x", "session_id": "../../etc"}, "invalid format")]:
        async with client.post("/api/ask", json=body, headers=AUTH) as response:
            assert response.status in (400, 413), body
            assert fragment in (await response.json())["error"]["message"]
    async with client.post("/api/ask", json={"question": "  " + "x" * 4000 + "  "}, headers=AUTH) as response:
        assert response.status == 200  # the limit applies after trimming
        await response.read()
    async with client.post("/api/sessions/s1/truncate", json={"turn": -1}, headers=AUTH) as response:
        assert response.status == 400
    async with client.post("/api/sessions/..%2F..%2Fetc/truncate", json={"turn": 0}, headers=AUTH) as response:
        assert response.status in (401, 404)  # the session id pattern does not even match the route


# -- paths -------------------------------------------------------------------
TRAVERSALS = [
    "../outside/secret.md",
    "Biology/../../outside/secret.md",
    "..",
    "/etc/passwd",
    "~/secret.md",
    "C:\\Windows\\win.ini",
    "C:/Windows/win.ini",
    "\\\\server\\share\\x.md",
    "..\\outside\\secret.md",
    "escape/secret.md",  # a symlink inside the vault that points out of it
    "Energy.md\x00.png",
    ".. /outside/secret.md",  # Windows drops the trailing space: ".."
]
ENCODED = [
    "%2e%2e%2foutside%2fsecret.md",
    "%2E%2E/outside/secret.md",
    "..%2f..%2fetc%2fpasswd",
    "%252e%252e%252foutside%252fsecret.md",  # double encoded
    "%25252e%25252e%25252f",  # triple encoded
    "%2fetc%2fpasswd",
    "..%5coutside%5csecret.md",
    "Energy.md%00.png",
]


async def test_related_refuses_path_traversal(client, indexed):
    _, _, root = indexed
    for raw in TRAVERSALS:
        async with client.get("/api/related", params={"path": raw}, headers=AUTH) as response:
            assert_refusal(response.status, await response.read(), 400, "bad_path", root)
    for encoded in ENCODED:
        url = URL(f"http://127.0.0.1:{client.port}/api/related?path={encoded}", encoded=True)
        async with client.session.get(url, headers=AUTH) as response:
            assert_refusal(response.status, await response.read(), 400, "bad_path", root)
    async with client.get("/api/related", params={"path": "Energy.md"}, headers=AUTH) as response:
        assert response.status == 200


async def test_scopes_and_import_folder_refuse_path_traversal(client, indexed):
    _, settings, root = indexed
    for raw in TRAVERSALS + ["%2e%2e%2foutside"]:
        for key in ("folders", "files"):
            body = {"query": "mitochondria", "scope": {key: [raw]}}
            async with client.post("/api/search", json=body, headers=AUTH) as response:
                assert_refusal(response.status, await response.read(), 400, "bad_path", root)
            body = {"question": "mitochondria?", "scope": {key: raw}}
            async with client.post("/api/ask", json=body, headers=AUTH) as response:
                assert_refusal(response.status, await response.read(), 400, "bad_path", root)
    settings.url_import.enabled = True
    for raw in TRAVERSALS:
        body = {"url": "http://example.org/", "folder": raw}
        async with client.post("/api/import-url", json=body, headers=AUTH) as response:
            assert_refusal(response.status, await response.read(), 400, "bad_path", root)


# -- the page token, cookies and CORS ------------------------------------------
async def test_page_token_is_exchanged_for_a_strict_cookie(client):
    async with client.get("/", params={"token": TOKEN, "tab": "quiz"}, allow_redirects=False) as response:
        assert response.status == 303
        assert response.headers["Location"] == "/?tab=quiz"
        cookie_header = response.headers["Set-Cookie"]
        assert "HttpOnly" in cookie_header and "SameSite=Strict" in cookie_header
        assert TOKEN not in cookie_header  # the cookie is a separate secret, not the token
        cookie = response.cookies[COOKIE_NAME].value
    jar = {COOKIE_NAME: cookie}
    async with client.get("/", cookies=jar) as response:
        assert response.status == 200 and "text/html" in response.headers["Content-Type"]
        assert "frame-ancestors" in response.headers["Content-Security-Policy"]
    async with client.get("/api/status", cookies=jar) as response:  # same-origin fetch from the page
        assert response.status == 200
    origin = f"http://127.0.0.1:{client.port}"
    async with client.get("/api/status", cookies=jar, headers={"Origin": origin}) as response:
        assert response.status == 200
    async with client.get("/api/status", cookies=jar, headers={"Origin": "app://obsidian.md"}) as response:
        assert response.status == 401  # the cookie never authenticates another origin
    async with client.get("/api/status", cookies={COOKIE_NAME: "forged"}) as response:
        assert response.status == 401
    async with client.get("/", params={"token": "wrong" * 10}, allow_redirects=False) as response:
        assert response.status == 401 and "Set-Cookie" not in response.headers
    async with client.get("/api/status", params={"token": TOKEN}, allow_redirects=False) as response:
        assert response.status == 401 and "Set-Cookie" not in response.headers


@pytest.mark.parametrize("origin", ["app://obsidian.md", "vscode-webview://1a2b3c4d5e"])
async def test_cors_for_allowed_origins_only_and_never_a_wildcard(client, origin):
    preflight = {"Origin": origin, "Access-Control-Request-Method": "POST",
                 "Access-Control-Request-Headers": "authorization, content-type"}
    async with client.options("/api/search", headers=preflight) as response:
        assert response.status == 204
        assert response.headers["Access-Control-Allow-Origin"] == origin
        assert "Authorization" in response.headers["Access-Control-Allow-Headers"]
        assert await response.read() == b""
    async with client.post("/api/search", json={"query": "energy"}, headers={**AUTH, "Origin": origin}) as response:
        assert response.status == 200
        assert response.headers["Access-Control-Allow-Origin"] == origin
        assert response.headers["Vary"] == "Origin"
    async with client.options("/api/search", headers={**preflight, "Origin": "https://evil.example"}) as response:
        assert response.status == 403
        assert "Access-Control-Allow-Origin" not in response.headers
    async with client.options("/api/search", headers={**preflight, "Access-Control-Request-Method": "DELETE"}) \
            as response:
        assert response.status == 403
    async with client.get("/api/status", headers=AUTH) as response:
        assert "Access-Control-Allow-Origin" not in response.headers
        assert response.headers["X-Content-Type-Options"] == "nosniff"
        assert response.headers["Cache-Control"] == "no-store"


# -- rate limit --------------------------------------------------------------
def test_rate_limiter_bucket_and_in_flight_cap():
    now = [0.0]
    limiter = RateLimiter(rate=10.0, burst=5.0, max_in_flight=3, clock=lambda: now[0])
    assert [limiter.acquire("a") for _ in range(3)] == [None, None, None]
    assert limiter.acquire("a") == 1.0  # three in flight
    for _ in range(3):
        limiter.release("a")
    assert limiter.acquire("a") is None and limiter.acquire("a") is None
    limiter.release("a")
    limiter.release("a")
    wait = limiter.acquire("a")  # bucket empty
    assert wait is not None and 0 < wait <= 0.1
    assert limiter.acquire("b") is None  # per client
    now[0] += 0.1
    assert limiter.acquire("a") is None


def test_default_rate_limit_carries_a_steady_200_per_second():
    now = [0.0]
    limiter = RateLimiter(clock=lambda: now[0])
    for _ in range(200 * 30):  # 200 requests a second for 30 s, evenly spaced
        assert limiter.acquire("127.0.0.1") is None
        limiter.release("127.0.0.1")
        now[0] += 1 / 200
    now[0] += 5
    refused = 0
    for _ in range(500):  # a burst of 500 at the same instant
        if limiter.acquire("127.0.0.1") is not None:
            refused += 1
        else:
            limiter.release("127.0.0.1")
    assert refused >= 200


class RecordingLimiter(RateLimiter):
    """The default limits, remembering the most requests it ever let be in flight at once."""

    peak: int = 0

    def acquire(self, client: str) -> float | None:
        wait = super().acquire(client)
        self.peak = max(self.peak, self.buckets[client].in_flight)
        return wait


async def test_a_burst_of_500_from_one_client_is_limited(indexed):
    engine, settings, root = indexed
    limiter = RecordingLimiter()
    client = await _client(create_app(engine, settings, TOKEN, features=[], limiter=limiter))
    statuses: list[int] = []
    retry_after: set[str] = set()
    connector = aiohttp.TCPConnector(limit=0, force_close=True)
    try:
        async with aiohttp.ClientSession(connector=connector) as session:
            async def one() -> None:
                async with session.get(f"http://127.0.0.1:{client.port}/api/status", headers=AUTH) as response:
                    body = await response.read()
                    statuses.append(response.status)
                    if response.status == 429:
                        retry_after.add(response.headers["Retry-After"])
                        assert_refusal(429, body, 429, "rate_limited", root)

            started = asyncio.get_running_loop().time()
            await asyncio.gather(*(one() for _ in range(500)))
            elapsed = asyncio.get_running_loop().time() - started
        assert len(statuses) == 500 and set(statuses) <= {200, 429}
        assert statuses.count(200) >= 50
        assert limiter.peak <= limiter.max_in_flight  # never more open at once than the cap
        # Nor more than the bucket held, measured over this burst's own duration: a burst faster than the
        # bucket refills (any quiet machine) meets refusals, a slow machine's may all fit.
        assert statuses.count(200) <= limiter.burst + limiter.rate * elapsed + 1
        assert bool(retry_after) == (429 in statuses) and all(int(v) >= 1 for v in retry_after)
        await asyncio.sleep(1.1)  # the bucket refills: the client is served again
        async with client.get("/api/status", headers=AUTH) as response:
            assert response.status == 200
    finally:
        await client.close()


# -- registry and OpenAPI ------------------------------------------------------
async def test_openapi_describes_every_route(client):
    async with client.get("/api/openapi.json", headers=AUTH) as response:
        doc = await response.json()
    assert doc["openapi"].startswith("3.1")
    described = {(method.upper(), path) for path, ops in doc["paths"].items() for method in ops}
    registered = set(client.app[api.ROUTES_KEY])
    assert described == registered
    served = {(r.method, r.resource.canonical) for r in client.app.router.routes()}
    assert served == registered  # nothing is routed around add_route (and its checks)
    expected = {("POST", "/api/ask"), ("POST", "/api/search"), ("GET", "/api/related"), ("GET", "/api/status"),
                ("GET", "/api/audit"), ("GET", "/api/openapi.json"), ("POST", "/api/import-url")}
    assert expected <= registered
    assert any(p.startswith("/api/sessions/") and m == "POST" for m, p in registered)
    search = doc["paths"]["/api/search"]["post"]
    assert search["requestBody"]["content"]["application/json"]["schema"]["required"] == ["query"]
    assert {"401", "403", "413", "429"} <= set(search["responses"])


async def test_feature_modules_add_routes_behind_the_same_guards(indexed):
    engine, settings, root = indexed

    async def ping(request):  # type: ignore[no-untyped-def]
        return aiohttp.web.json_response({"pong": True})

    def setup_routes(app):  # type: ignore[no-untyped-def]
        api.add_route(app, "GET", "/api/study/ping", ping, summary="ping", tag="study")

    client = await _client(create_app(engine, settings, TOKEN, features=[setup_routes]))
    try:
        async with client.get("/api/study/ping") as response:
            assert_refusal(response.status, await response.read(), 401, "unauthorized", root)
        async with client.get("/api/study/ping", headers={**AUTH, "Host": "evil.example"}) as response:
            assert response.status == 403
        async with client.get("/api/study/ping", headers=AUTH) as response:
            assert await response.json() == {"pong": True}
        async with client.get("/api/openapi.json", headers=AUTH) as response:
            assert "/api/study/ping" in (await response.json())["paths"]
    finally:
        await client.close()
    with pytest.raises(ValueError, match="registered twice"):
        create_app(engine, settings, TOKEN, features=[setup_routes, setup_routes])
    with pytest.raises(ValueError, match="at least 16"):
        create_app(engine, settings, "short")


async def test_engine_calls_run_off_the_event_loop(client, indexed, monkeypatch):
    import threading

    engine, _, _ = indexed
    seen: list[str] = []
    original = engine.search

    def spy(*args, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(threading.current_thread().name)
        return original(*args, **kwargs)

    monkeypatch.setattr(engine, "search", spy)
    async with client.post("/api/search", json={"query": "energy"}, headers=AUTH) as response:
        assert response.status == 200
    assert seen and seen[0].startswith("cognivault-requests")
    assert threading.current_thread().name != seen[0]


# -- an origin registered at start (browser-hosted editors) --------------------
@pytest.mark.parametrize("value, expected", [
    ("http://127.0.0.1:8080", "http://127.0.0.1:8080"), ("HTTP://LocalHost:80", "http://localhost"),
    ("https://code.example.org:443", "https://code.example.org"), ("http://[::1]:3000", "http://[::1]:3000")])
def test_parse_origin_normalizes_as_browsers_send_it(value: str, expected: str) -> None:
    assert parse_origin(value) == expected


@pytest.mark.parametrize("value", ["http://127.0.0.1:8080/", "http://127.0.0.1:8080/x", "*", "127.0.0.1:8080",
                                   "ftp://host", "http://host:99999", "http://a b", "null"])
def test_parse_origin_refuses_anything_but_an_exact_origin(value: str) -> None:
    with pytest.raises(ValueError):
        parse_origin(value)


def test_serve_allow_origin_accepts_that_origin_only(tmp_path: Path) -> None:
    """``cognivault serve --allow-origin``: the editor's page origin passes, every other still gets 403."""
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Energy.md").write_text(NOTES["Energy.md"], "utf-8")
    page = "http://127.0.0.1:8123"
    process = subprocess.Popen([sys.executable, "-m", "cognivault.cli", "serve", "--vault", str(vault),
                                "--keyword-only", "--no-watch", "--allow-origin", page],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        info = json.loads(process.stdout.readline())  # type: ignore[union-attr]

        def status_from(origin: str) -> tuple[int, str | None]:
            request = urllib.request.Request(info["url"] + "/api/status", headers={
                "Authorization": f"Bearer {info['token']}", "Origin": origin})
            try:
                with urllib.request.urlopen(request, timeout=60) as response:
                    return response.status, response.headers.get("Access-Control-Allow-Origin")
            except urllib.error.HTTPError as exc:
                return exc.code, exc.headers.get("Access-Control-Allow-Origin")

        assert status_from(page) == (200, page)
        for other in ("http://127.0.0.1:8124", "https://127.0.0.1:8123", "http://evil.example", "null"):
            assert status_from(other) == (403, None), other
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)


def test_serve_refuses_a_malformed_allow_origin_in_one_line(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "cognivault.cli", "serve", "--vault", str(tmp_path),
                           "--allow-origin", "http://127.0.0.1:8123/dashboard"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and "--allow-origin" in done.stderr, done.stderr
