"""URL import: the SSRF policy (every spelling of a private address), redirects re-checked hop by hop,
connections pinned to the checked address, body caps while streaming, timeouts, the note written, and
the page parsed in a reader process (a crash there fails that import only; ``serve`` never maps lxml).

The only server is a loopback one started here; the policy refuses loopback by
default, so these tests allow 127.0.0.1 explicitly (``allow_networks``) for it and
prove separately that without that exception it is refused. Any connection
outside loopback would fail the test through the conftest guard.
"""

from __future__ import annotations

import gzip
import http.server
import ipaddress
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from cognivault import urlimport
from cognivault.config import Settings, load_settings
from cognivault.urlimport import ImportFailed, ImportPolicy, ImportRefused, check_url, fetch, import_url
from crashing_reader import CRASH_MARKER, crashing_reader  # noqa: F401 - the fixture

ARTICLE = """<!doctype html><html><head><title>Photosynthesis explained</title></head><body>
<nav>Home | About</nav>
<article><h1>Photosynthesis explained</h1>
<p>Photosynthesis turns light, water and carbon dioxide into sugar and oxygen. It happens in the
chloroplasts of plant cells, where chlorophyll absorbs mostly red and blue light.</p>
<p>The light reactions make ATP and NADPH; the Calvin cycle uses them to fix carbon dioxide into
sugar. Without it there would be no oxygen in the air we breathe.</p>
</article><footer>Copyright</footer></body></html>"""


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    seen: list[tuple[str, str]] = []  # (path, Host header)
    hung_up: list[str] = []  # paths whose client went away before the whole body was sent

    def log_message(self, *args: object) -> None:
        pass

    def _send(self, status: int, body: bytes = b"", headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        if "Content-Length" not in (headers or {}):
            self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802
        type(self).seen.append((self.path, self.headers.get("Host", "")))
        port = self.server.server_address[1]
        path = self.path
        if path == "/page":
            self._send(200, ARTICLE.encode(), {"Content-Type": "text/html; charset=utf-8"})
        elif path == "/crash":  # a page the (patched) reader crashes on
            self._send(200, ARTICLE.replace("<nav>", CRASH_MARKER.decode() + "<nav>").encode(),
                       {"Content-Type": "text/html; charset=utf-8"})
        elif path == "/notes.txt":
            self._send(200, b"# Plain notes\n\nSome plain text.\n", {"Content-Type": "text/plain"})
        elif path.startswith("/redirect-to?"):
            self._send(302, headers={"Location": path.split("?", 1)[1]})
        elif path == "/redirect-relative":
            self._send(301, headers={"Location": "/page"})
        elif path == "/redirect-loop":
            self._send(302, headers={"Location": f"http://127.0.0.1:{port}/redirect-loop"})
        elif path == "/big":  # no Content-Length: only a streaming cap can stop it
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Connection", "close")
            self.end_headers()
            try:
                for _ in range(4096):  # 64 MB: far more than the kernel's socket buffers hold
                    self.wfile.write(b"<p>" + b"x" * 16384 + b"</p>")
            except (BrokenPipeError, ConnectionResetError):
                type(self).hung_up.append(path)
            self.close_connection = True
        elif path == "/big-declared":
            self._send(200, b"tiny", {"Content-Type": "text/html", "Content-Length": str(10**9)})
        elif path == "/gzip-bomb":
            bomb = gzip.compress(b"<p>" + b"0" * (20 * 1024 * 1024) + b"</p>")
            self._send(200, bomb, {"Content-Type": "text/html", "Content-Encoding": "gzip"})
        elif path == "/slow":
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Connection", "close")
            self.end_headers()
            try:
                for _ in range(1200):  # two minutes of drips: only the client's deadline ends it sooner
                    self.wfile.write(b"<p>drip</p>")
                    self.wfile.flush()
                    time.sleep(0.1)
            except (BrokenPipeError, ConnectionResetError):
                pass
            self.close_connection = True
        elif path == "/silent":
            time.sleep(120)  # answers long after any client's deadline (a daemon thread: no wait at the end)
            self._send(200, b"late", {"Content-Type": "text/html"})
        elif path == "/binary":
            self._send(200, b"\x00\x01" * 100, {"Content-Type": "application/octet-stream"})
        elif path == "/missing":
            self._send(404, b"nope", {"Content-Type": "text/html"})
        else:
            self._send(500, b"unexpected")


class _QuietServer(http.server.ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        pass  # a client that hangs up on a capped body is the point of several tests


@pytest.fixture(scope="module")
def server():
    httpd = _QuietServer(("127.0.0.1", 0), _Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", httpd.server_address[1]
    httpd.shutdown()
    httpd.server_close()


def no_dns(host: str, port: int) -> list[str]:
    raise AssertionError(f"the resolver must not be asked about {host}")


LOOPBACK_OK = urlimport.allow_networks(["127.0.0.1/32"])  # the test server, explicitly
STRICT = ImportPolicy(resolver=no_dns)


def test_policy(**overrides) -> ImportPolicy:  # type: ignore[no-untyped-def]
    return ImportPolicy(**{"allow_networks": LOOPBACK_OK, "resolver": no_dns, "timeout_s": 60.0, **overrides})


test_policy.__test__ = False  # type: ignore[attr-defined]


# -- the address policy ------------------------------------------------------
@pytest.mark.parametrize("url", [
    "http://127.0.0.1/", "http://127.1/", "http://127.0.1/", "http://0x7f000001/", "http://0x7f.0.0.1/",
    "http://2130706433/", "http://0177.0.0.1/", "http://017700000001/", "http://[::ffff:127.0.0.1]/",
    "http://[::ffff:7f00:1]/", "http://[::1]/", "http://[0:0:0:0:0:0:0:1]/", "http://localhost/",
    "http://LOCALHOST./", "http://app.localhost/", "http://169.254.169.254/latest/meta-data/",
    "http://[fe80::1]/", "http://[fe80::1%25eth0]/", "http://100.64.0.1/", "http://100.127.255.254/",
    "http://10.0.0.1/", "http://172.16.5.4/", "http://192.168.1.1/", "http://[fc00::1]/", "http://[fd12::1]/",
    "http://224.0.0.1/", "http://239.255.255.250/", "http://[ff02::1]/", "http://0.0.0.0/", "http://0/",
    "http://[::]/", "http://255.255.255.255/", "http://240.0.0.1/", "http://192.0.2.1/", "http://198.18.0.1/",
    "http://[64:ff9b::a9fe:a9fe]/", "http://[2002:a9fe:a9fe::]/", "http://[2001:db8::1]/", "http://[::7f00:1]/",
    "http://127.0.0.1:8080/admin", "https://[::ffff:10.0.0.1]:8443/", "http://[fec0::1]/",
])
def test_private_loopback_link_local_cgnat_multicast_unspecified_are_refused(url):
    with pytest.raises(ImportRefused) as info:
        check_url(url, STRICT)
    assert info.value.code == "import_refused"
    assert "public" in info.value.message or "this machine" in info.value.message


@pytest.mark.parametrize("url", [
    "ftp://example.org/file", "file:///etc/passwd", "gopher://example.org/", "javascript:alert(1)",
    "data:text/html,<p>x</p>", "//example.org/page", "example.org/page", "ws://example.org/", "",
    "http://user:pw@example.org/", "http://example.org@127.0.0.1/", "http://exa mple.org/",
    "http://example.org\\@127.0.0.1/", "http://example.org:99999/", "http:///nohost", "http://[::1/",
])
def test_other_schemes_credentials_and_broken_urls_are_refused(url):
    with pytest.raises(ImportRefused):
        check_url(url, STRICT)


def test_every_resolved_address_is_checked():
    calls: list[str] = []

    def resolver(host: str, port: int) -> list[str]:
        calls.append(host)
        return {"intranet.example": ["10.1.2.3"], "mixed.example": ["93.184.216.34", "127.0.0.1"],
                "rebind.example": ["127.0.0.1"], "meta.example": ["169.254.169.254"],
                "public.example": ["93.184.216.34", "2606:2800:220:1::1"],
                "nip.example": ["::ffff:192.168.0.1"]}[host]

    policy = ImportPolicy(resolver=resolver)
    for host in ("intranet.example", "mixed.example", "rebind.example", "meta.example", "nip.example"):
        with pytest.raises(ImportRefused, match=host):
            check_url(f"https://{host}/x", policy)
    target = check_url("https://Public.Example./a?b=1", policy)
    assert (target.host, target.port, target.path) == ("public.example", 443, "/a?b=1")
    assert target.address == ipaddress.ip_address("93.184.216.34")
    assert calls.count("public.example") == 1


def test_loopback_is_refused_by_default_even_for_our_own_server(server):
    base, _ = server
    with pytest.raises(ImportRefused, match="loopback"):
        fetch(f"{base}/page", ImportPolicy(resolver=no_dns))


# -- redirects ---------------------------------------------------------------
@pytest.mark.parametrize("target", [
    "http://10.0.0.5/admin", "http://169.254.169.254/latest/meta-data/", "http://[::1]:22/",
    "http://0x7f000002:9/",  # 127.0.0.2: only the test server's exact address is allowed
    "http://100.64.0.1/", "file:///etc/passwd", "gopher://127.0.0.1:25/",
    "http://intranet.example/",
])
def test_a_redirect_to_a_private_address_is_refused_at_that_hop(server, target):
    base, _ = server
    resolved: list[str] = []

    def resolver(host: str, port: int) -> list[str]:
        resolved.append(host)
        return ["10.9.9.9"]

    with pytest.raises(ImportRefused):
        fetch(f"{base}/redirect-to?{target}", test_policy(resolver=resolver))
    assert resolved in ([], ["intranet.example"])


def test_redirects_are_followed_by_hand_and_counted(server):
    base, _ = server
    fetched = fetch(f"{base}/redirect-relative", test_policy())
    assert fetched.url == f"{base}/page" and len(fetched.hops) == 2
    with pytest.raises(ImportRefused) as info:
        fetch(f"{base}/redirect-loop", test_policy(max_redirects=3))
    assert info.value.code == "import_too_many_redirects"


def test_the_connection_goes_to_the_checked_address(server):
    """The name is resolved once per hop and the socket connects to exactly that address;
    the name still travels as Host. A resolver answering differently the second time changes nothing."""
    base, port = server
    answers = iter([["127.0.0.1"], ["10.6.6.6"], ["10.6.6.6"]])
    calls: list[str] = []

    def rebinding(host: str, port_: int) -> list[str]:
        calls.append(host)
        return next(answers)

    _Handler.seen.clear()
    fetched = fetch(f"http://pinned.example:{port}/page", test_policy(resolver=rebinding))
    assert calls == ["pinned.example"]
    assert ("/page", f"pinned.example:{port}") in _Handler.seen
    assert b"Photosynthesis" in fetched.body


# -- caps and timeouts -------------------------------------------------------
def test_body_is_capped_while_streaming(server):
    base, _ = server
    _Handler.hung_up.clear()
    with pytest.raises(ImportFailed) as info:
        fetch(f"{base}/big", test_policy(max_bytes=256 * 1024))
    assert info.value.code == "import_too_large"
    deadline = time.monotonic() + 60  # bounds a hang only: the server notices the hang-up on its next write
    while not _Handler.hung_up and time.monotonic() < deadline:
        time.sleep(0.02)
    assert _Handler.hung_up == ["/big"]  # stopped mid-body: the 64 MB were never all read
    with pytest.raises(ImportFailed, match="limit"):
        fetch(f"{base}/big-declared", test_policy(max_bytes=1024))


def test_compressed_bodies_are_capped_after_decompression(server):
    base, _ = server
    with pytest.raises(ImportFailed) as info:
        fetch(f"{base}/gzip-bomb", test_policy(max_bytes=1024 * 1024))
    assert info.value.code == "import_too_large"


@pytest.mark.parametrize("path", ["/slow", "/silent"])
def test_timeouts(server, path):
    base, _ = server
    started = time.monotonic()
    with pytest.raises(ImportFailed) as info:
        fetch(f"{base}{path}", test_policy(timeout_s=0.5))
    assert info.value.code == "import_timeout"
    assert time.monotonic() - started < 60  # the server goes on for 120 s: the 0.5 s deadline ended it


def test_non_pages_and_http_errors_fail_clearly(server):
    base, _ = server
    with pytest.raises(ImportFailed, match="not a web page"):
        fetch(f"{base}/binary", test_policy())
    with pytest.raises(ImportFailed, match="404"):
        fetch(f"{base}/missing", test_policy())


# -- the note ----------------------------------------------------------------
def test_import_writes_a_new_note_and_never_overwrites(server, tmp_path: Path):
    base, _ = server
    vault = tmp_path / "vault"
    (vault / "Imported").mkdir(parents=True)
    first = import_url(vault, f"{base}/page", test_policy(), enabled=True)
    assert first.path == "Imported/Photosynthesis explained.md"
    text = (vault / first.path).read_text("utf-8")
    assert text.startswith("---\ntitle: \"Photosynthesis explained\"\n")
    assert f'source: "{base}/page"' in text
    assert "Calvin cycle" in text and "Copyright" not in text
    second = import_url(vault, f"{base}/redirect-relative", test_policy(), enabled=True)
    assert second.path == "Imported/Photosynthesis explained (2).md" and second.hops == 1
    assert (vault / first.path).read_text("utf-8") == text
    plain = import_url(vault, f"{base}/notes.txt", test_policy(), folder="Inbox/Web", enabled=True)
    assert plain.path == "Inbox/Web/Plain notes.md"
    last = urlimport.last_import(vault)
    assert last["last_url"] == f"{base}/notes.txt" and last["last_used"]
    state = vault / ".cognivault" / urlimport.STATE_FILE
    assert state.stat().st_mode & 0o777 == 0o600


def test_a_reader_that_crashes_fails_that_import_and_the_next_one_works(
        server, tmp_path: Path, crashing_reader: None) -> None:  # noqa: F811 - the fixture
    base, _ = server
    with pytest.raises(ImportFailed) as info:
        import_url(tmp_path, f"{base}/crash", test_policy(), enabled=True)
    assert info.value.code == "import_unreadable"
    assert info.value.message == "the page could not be converted: the reader crashed (signal 11)"
    assert not list(tmp_path.rglob("*.md"))
    state = json.loads((tmp_path / ".cognivault" / urlimport.STATE_FILE).read_text("utf-8"))
    assert state["last_attempt"]["error"] == info.value.message
    assert import_url(tmp_path, f"{base}/page", test_policy(), enabled=True).title == "Photosynthesis explained"


async def test_over_http_a_crashing_reader_is_a_502_and_the_companion_keeps_importing(
        server, tmp_path: Path, crashing_reader: None) -> None:  # noqa: F811 - the fixture
    from aiohttp.test_utils import TestClient, TestServer

    from cognivault.companion.app import create_app
    from cognivault.engine import Engine

    base, _ = server
    (tmp_path / "vault").mkdir()
    token = "url-import-test-token-" + "u" * 32
    settings = load_settings(tmp_path / "vault", {"index": {"index_dir": str(tmp_path / "index")},
                                                  "url_import": {"enabled": True}}, environ={})
    engine = Engine(tmp_path / "vault", settings, embedder=None)
    client = TestClient(TestServer(create_app(engine, settings, token, features=[], import_policy=test_policy()),
                                   host="127.0.0.1"))
    await client.start_server()
    auth = {"Authorization": f"Bearer {token}"}
    try:
        async with client.post("/api/import-url", json={"url": f"{base}/crash"}, headers=auth) as response:
            error = (await response.json())["error"]
            assert response.status == 502 and error["code"] == "import_unreadable"
            assert error["message"].endswith("the reader crashed (signal 11)")
        async with client.post("/api/import-url", json={"url": f"{base}/page"}, headers=auth) as response:
            assert response.status == 200, await response.text()
            assert (await response.json())["path"] == "Imported/Photosynthesis explained.md"
    finally:
        await client.close()
        engine.close()


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="needs /proc (Linux)")
def test_the_importing_process_never_maps_lxml() -> None:
    script = (  # a fresh process: the test process may have loaded lxml itself for other tests
        "import pathlib, sys\n"
        "from cognivault.config import Settings\n"
        "from cognivault.urlimport import Fetched, convert_isolated\n"
        "page = Fetched('https://example.org/photosynthesis', 'text/html', 'utf-8', sys.stdin.buffer.read())\n"
        "print(convert_isolated(page, Settings())[0])\n"
        "print(pathlib.Path('/proc/self/maps').read_text())\n")
    done = subprocess.run([sys.executable, "-c", script], input=ARTICLE.encode(), capture_output=True,
                          timeout=120, env={**os.environ})
    assert done.returncode == 0, done.stderr
    title, _, maps = done.stdout.decode().partition("\n")
    assert title == "Photosynthesis explained"  # converted, by lxml in the reader
    assert "lxml" not in maps


def test_import_is_off_unless_enabled(server, tmp_path: Path):
    base, _ = server
    with pytest.raises(ImportRefused) as info:
        import_url(tmp_path, f"{base}/page", test_policy())
    assert info.value.code == "import_disabled"
    assert not urlimport.import_enabled(Settings())
    enabled = load_settings(tmp_path, environ={"COGNIVAULT_URL_IMPORT_ENABLED": "1"})
    assert urlimport.import_enabled(enabled)
    assert import_url(tmp_path, f"{base}/page", test_policy(), settings=enabled).path.startswith("Imported/")


def test_refused_imports_are_recorded_and_write_nothing(server, tmp_path: Path):
    base, _ = server
    with pytest.raises(ImportRefused):
        import_url(tmp_path, f"{base}/redirect-to?http://10.0.0.5/", test_policy(), enabled=True)
    with pytest.raises(ImportRefused):
        import_url(tmp_path, f"{base}/page", test_policy(), folder="../outside", enabled=True)
    assert not any(p.suffix == ".md" for p in tmp_path.rglob("*"))
    state = json.loads((tmp_path / ".cognivault" / urlimport.STATE_FILE).read_text("utf-8"))
    assert state["last_attempt"]["ok"] is False and "last_import" not in state


def test_note_file_names_are_safe():
    for title in ("../../etc/passwd", "a/b\\c:d*e?f\"g<h>i|j", "\x00\x1f", "   ", "." * 10, "x" * 500):
        name = urlimport.note_file_name(title)
        assert name and "/" not in name and "\\" not in name and not name.startswith(".") and len(name) <= 80
