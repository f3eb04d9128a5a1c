"""Zero external connections, proven where nothing could leave: a network namespace with only loopback.

The test moves its own thread into a fresh network namespace (``unshare(CLONE_NEWNET)``,
as ``unshare -n`` does; root or CAP_SYS_ADMIN needed, skipped with the reason
otherwise), brings ``lo`` up, and there runs the real commands on a copy of
the example vault: ``index`` with the embedded ONNX model, ``search``,
``ask`` and ``generate flashcards`` against a fake Ollama on 127.0.0.1,
``review`` (listing and grading a card), ``audit``, then ``cognivault serve``
with a search, a streamed ask and a review grade over HTTP and the
companion's own ``/api/audit``.

Two proofs, because a namespace alone would let a command try, fail and fall
back silently: every command must succeed (nothing it needs is outside), and
each Python process records every ``socket.connect`` and ``getaddrinfo`` it
makes (an audit hook installed through ``sitecustomize``), all of which must
be loopback. The audits must report zero non-loopback peers and listeners.
"""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cognivault.audit import is_loopback_host
from fake_ollama import fake_ollama_in_thread

CLONE_NEWNET = 0x40000000
QUESTION = "Where does the Calvin cycle take place?"
CARDS = [
    {"type": "qa", "front": "Where does the Calvin cycle run?", "back": "In the stroma of the chloroplast.",
     "source": 1},
    {"type": "cloze", "text": "RuBisCO fixes ==carbon dioxide== in the Calvin cycle.", "source": 1},
]

# Installed into every child Python: append each connect/getaddrinfo target to the log as one JSON line.
RECORDER = '''
import json, os, socket, sys

_LOG = os.environ.get("CV_CONNECT_LOG")


def _record(event, args):
    if event == "socket.connect":
        sock, address = args
        if sock.family not in (socket.AF_INET, socket.AF_INET6):
            return
        host = address[0]
    elif event == "socket.getaddrinfo":
        host = args[0]
        if isinstance(host, bytes):
            host = host.decode("ascii", "replace")
    else:
        return
    line = json.dumps({"pid": os.getpid(), "event": event, "host": str(host)}) + "\\n"
    fd = os.open(_LOG, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, line.encode())
    finally:
        os.close(fd)


if _LOG:
    sys.addaudithook(_record)
'''


@pytest.fixture
def loopback_only_namespace() -> Iterator[None]:
    """Run the test's thread (and every process and thread it starts) in a new network namespace."""
    if not sys.platform.startswith("linux") or shutil.which("ip") is None:
        pytest.skip("network namespaces need Linux and the `ip` tool (iproute2)")
    libc = ctypes.CDLL(None, use_errno=True)
    original = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    if libc.unshare(CLONE_NEWNET) != 0:
        error = ctypes.get_errno()
        os.close(original)
        pytest.skip(f"unshare(CLONE_NEWNET) is not permitted here ({os.strerror(error)}); run as root or with "
                    "CAP_SYS_ADMIN to prove zero external connections in a network namespace")
    try:
        subprocess.run(["ip", "link", "set", "lo", "up"], check=True, capture_output=True, timeout=10)
        yield
    finally:
        if libc.setns(original, CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), "could not return to the original network namespace")
        os.close(original)


def _interfaces() -> list[str]:
    return sorted(name for _, name in socket.if_nameindex())


class Commands:
    """Runs ``cognivault`` subcommands as child processes with the recorder and the test's environment."""

    def __init__(self, vault: Path, env: dict[str, str]) -> None:
        self.vault = vault
        self.env = env

    def popen(self, *argv: str, **kwargs: Any) -> subprocess.Popen[str]:
        return subprocess.Popen([sys.executable, "-m", "cognivault.cli", *argv, "--vault", str(self.vault)],
                                env=self.env, text=True, **kwargs)

    def json(self, *argv: str, timeout: float = 300) -> Any:
        process = self.popen(*argv, "--json", stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        out, err = process.communicate(timeout=timeout)
        assert process.returncode == 0, f"cognivault {' '.join(argv)} failed ({process.returncode}): {err[-3000:]}"
        return json.loads(out)


def _http(info: dict[str, str], method: str, path: str, body: object = None, timeout: float = 60) -> bytes:
    request = urllib.request.Request(
        info["url"] + path, method=method, data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {info['token']}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return response.read()


def _assert_audit_clean(audit: dict[str, Any], where: str) -> None:
    assert audit["non_loopback_peers"] == 0, (where, audit["sockets"])
    assert audit["non_loopback_listeners"] == 0, (where, audit["sockets"])
    assert audit["zero_external"] is True, where
    assert audit["model"]["host_is_loopback"] is True, where
    assert all(s["loopback"] for s in audit["sockets"]), (where, audit["sockets"])


@pytest.mark.slow
def test_index_search_ask_generate_review_serve_with_only_loopback(
        example_vault: Path, tmp_path: Path, embedded_model_cache: Path, loopback_only_namespace: None) -> None:
    assert _interfaces() == ["lo"], "the namespace must hold loopback only"
    site = tmp_path / "recorder"
    site.mkdir()
    (site / "sitecustomize.py").write_text(RECORDER, "utf-8")
    connect_log = tmp_path / "connects.ndjson"

    with fake_ollama_in_thread() as fake:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]),
               "CV_CONNECT_LOG": str(connect_log), "COGNIVAULT_MODEL_CACHE": str(embedded_model_cache),
               "COGNIVAULT_EMBEDDING_PROVIDER": "embedded", "COGNIVAULT_MODELS_OLLAMA_HOST": fake.url,
               "COGNIVAULT_MODELS_CHAT_PROVIDER": "ollama"}
        run = Commands(example_vault, env)

        report = run.json("index")
        states = {f["path"]: f["state"] for f in report["files"]}
        assert states["Photosynthesis/Calvin cycle.md"] == "indexed"
        assert not [p for p, s in states.items() if s == "failed"], report["files"]
        status = run.json("status")
        assert status["consistency"]["agree"] and status["consistency"]["embedded_chunks"] > 0, status

        hits = run.json("search", "where sugar is made from carbon dioxide")["results"]
        assert hits and any(h["path"].startswith("Photosynthesis/") for h in hits[:3]), hits

        answer = run.json("ask", QUESTION, "--no-cache")
        assert answer["citations"], answer
        assert any(r["_path"] == "/api/chat" for r in fake.requests), "the answer came from the model"

        fake.script_chat(content=json.dumps({"cards": CARDS}))
        generated = run.json("generate", "flashcards", "--note", "Photosynthesis/Calvin cycle.md", "--count", "2")
        assert generated["kind"] == "flashcards" and generated["produced"] == 2, generated

        due = run.json("review")["due"]
        assert len(due) == 2, due
        graded = run.json("review", "--card", due[0]["id"], "--grade", "3")
        assert graded["card_id"] == due[0]["id"]

        _assert_audit_clean(run.json("audit"), "cognivault audit")

        serve = run.popen("serve", "--port", "0", stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            info = json.loads(serve.stdout.readline())  # type: ignore[union-attr]
            found = json.loads(_http(info, "POST", "/api/search", {"query": "RuBisCO stroma"}))["results"]
            assert "Photosynthesis/Calvin cycle.md" in [r["path"] for r in found[:3]], found
            envelopes = [json.loads(line) for line in
                         _http(info, "POST", "/api/ask", {"question": QUESTION}).decode().splitlines() if line]
            assert envelopes[-1]["type"] == "done", envelopes[-1]
            assert json.loads(_http(info, "POST", f"/api/review/{due[1]['id']}", {"rating": 3}))["card_id"]
            audit = json.loads(_http(info, "GET", "/api/audit"))
            _assert_audit_clean(audit, "GET /api/audit")
            assert any(s["status"] == "LISTEN" for s in audit["sockets"]), audit["sockets"]
            assert any(s["peer"] for s in audit["sockets"]), "the audit sees this request's loopback connection"
        finally:
            serve.send_signal(signal.SIGTERM)
            try:
                serve.wait(15)
            finally:
                if serve.poll() is None:
                    serve.kill()
                    serve.wait()
        assert serve.returncode == 0, serve.stderr.read()[-3000:]  # type: ignore[union-attr]

    records = [json.loads(line) for line in connect_log.read_text("utf-8").splitlines()]
    assert {r["event"] for r in records} >= {"socket.connect"}, "the recorder saw the model calls"
    outside = [r for r in records if not is_loopback_host(r["host"])]
    assert outside == [], f"connections or lookups outside loopback: {outside}"
    assert _interfaces() == ["lo"]
