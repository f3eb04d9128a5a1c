"""The vault audit: sockets with peers, the zero-external light, the model host, counts, URL import use."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections import namedtuple
from pathlib import Path

import psutil
import pytest

from cognivault import audit
from cognivault.config import load_settings

Addr = namedtuple("Addr", "ip port")
Conn = namedtuple("Conn", "fd family type laddr raddr status")


class FakeProcess:
    pid = 4242

    def __init__(self, conns):  # type: ignore[no-untyped-def]
        self.conns = conns

    def net_connections(self, kind: str = "inet"):  # type: ignore[no-untyped-def]
        assert kind == "inet"
        return self.conns


def test_this_process_sockets_are_listed_with_their_peers():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    client = socket.create_connection(server.getsockname())
    accepted, _ = server.accept()
    try:
        report = audit.socket_report()
        port = server.getsockname()[1]
        listening = [s for s in report["sockets"] if s["status"] == psutil.CONN_LISTEN and
                     s["local"] == f"127.0.0.1:{port}"]
        assert listening and listening[0]["peer"] is None and listening[0]["loopback"]
        peers = {s["peer"] for s in report["sockets"] if s["peer"]}
        assert f"127.0.0.1:{port}" in peers
        assert report["non_loopback_peers"] == 0 and report["non_loopback_listeners"] == 0
    finally:
        for sock in (client, accepted, server):
            sock.close()


def test_external_peers_and_listeners_are_counted():
    tcp, udp = socket.SOCK_STREAM, socket.SOCK_DGRAM
    conns = [
        Conn(3, socket.AF_INET, tcp, Addr("127.0.0.1", 5000), (), psutil.CONN_LISTEN),
        Conn(4, socket.AF_INET, tcp, Addr("127.0.0.1", 5001), Addr("127.0.0.1", 11434), psutil.CONN_ESTABLISHED),
        Conn(5, socket.AF_INET6, tcp, Addr("::1", 5002), Addr("::ffff:127.0.0.1", 80), psutil.CONN_ESTABLISHED),
        Conn(6, socket.AF_INET, tcp, Addr("192.168.1.5", 5003), Addr("93.184.216.34", 443), psutil.CONN_ESTABLISHED),
        Conn(7, socket.AF_INET, tcp, Addr("0.0.0.0", 8080), (), psutil.CONN_LISTEN),
        Conn(8, socket.AF_INET6, udp, Addr("::", 5353), Addr("ff02::fb", 5353), psutil.CONN_NONE),
    ]
    report = audit.socket_report(FakeProcess(conns))  # type: ignore[arg-type]
    assert report["non_loopback_peers"] == 2
    assert report["non_loopback_listeners"] == 1
    notes = {s["fd"]: s["note"] for s in report["sockets"]}
    assert notes[6] == "outside this machine" and notes[7] == "bound to all interfaces"
    assert [s["loopback"] for s in sorted(report["sockets"], key=lambda s: s["fd"])] == \
        [True, True, True, False, False, False]


@pytest.mark.parametrize(("host", "loopback"), [
    ("http://127.0.0.1:11434", True), ("http://localhost:11434", True), ("http://[::1]:11434", True),
    ("127.0.0.1:11434", True), ("http://127.8.9.1", True), ("http://gpu-box.lan:11434", False),
    ("http://192.168.0.10:11434", False), ("http://localhost.evil.example", False),
])
def test_model_host_is_judged_loopback_or_not(tmp_path: Path, host: str, loopback: bool):
    settings = load_settings(tmp_path, {"models": {"ollama_host": host}}, environ={})
    report = audit.model_report(settings)
    assert report["host_is_loopback"] is loopback
    assert report["allow_remote_model_host"] is False


def test_vault_audit_counts_and_url_import_use(tmp_path: Path):
    from cognivault.engine import Engine

    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "A.md").write_text("# A\n\nAlpha beta gamma.\n", "utf-8")
    (vault / "B.md").write_text("# B\n\nDelta epsilon.\n\n## More\n\nZeta eta theta.\n", "utf-8")
    settings = load_settings(vault, {"index": {"index_dir": str(tmp_path / "index")}}, environ={})
    with Engine(vault, settings, embedder=None) as engine:
        engine.index()
        report = audit.vault_audit(engine, settings)
        assert report["index"]["documents"] == 2 and report["index"]["chunks"] >= 2
        assert report["zero_external"] is True and report["non_loopback_peers"] == 0
        assert report["url_import"] == {"enabled": False, "last_used": None, "last_url": None,
                                        "last_path": None, "last_attempt": None}
        state = vault / ".cognivault" / "url-import.json"
        state.parent.mkdir()
        entry = {"at": "2026-01-02T03:04:05Z", "url": "https://example.org/", "path": "Imported/x.md", "ok": True}
        state.write_text(json.dumps({"last_import": entry, "last_attempt": entry}), "utf-8")
        report = audit.vault_audit(engine, settings)
        assert report["url_import"]["last_used"] == "2026-01-02T03:04:05Z"
        json.dumps(report)  # JSON-ready


def test_audit_command_prints_json(tmp_path: Path):
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "A.md").write_text("# A\n\nAlpha.\n", "utf-8")
    completed = subprocess.run([sys.executable, "-m", "cognivault.cli", "audit", "--vault", str(vault), "--json"],
                               capture_output=True, text=True, timeout=60, check=False)
    assert completed.returncode == 0, completed.stderr
    report = json.loads(completed.stdout)
    assert report["zero_external"] is True and report["model"]["host_is_loopback"] is True
