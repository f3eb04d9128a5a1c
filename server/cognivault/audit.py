"""The vault audit: proof, from the process itself, that nothing leaves the machine.

``vault_audit(engine, settings)`` reports:

- the chat/embedding model host and whether it is loopback (and whether remote hosts are allowed);
- every socket this process holds, with its local address, peer and state
  (``psutil.Process().net_connections()``), listeners included;
- ``non_loopback_peers``: how many of them talk to anything outside 127.0.0.0/8 and ::1,
  and ``non_loopback_listeners``: sockets accepting connections on a non-loopback address.
  ``zero_external`` is the green light: both are zero;
- the index's document and chunk counts;
- URL import: whether it is enabled and when it was last used.

Served as ``GET /api/audit`` by the companion and ``cognivault audit`` on the command line.
"""

from __future__ import annotations

import ipaddress
import os
import socket
import time
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import psutil

if TYPE_CHECKING:
    from cognivault.config import Settings
    from cognivault.engine import Engine

_FAMILIES = {socket.AF_INET: "ipv4", socket.AF_INET6: "ipv6"}
_TYPES = {socket.SOCK_STREAM: "tcp", socket.SOCK_DGRAM: "udp"}


def is_loopback_ip(address: str) -> bool:
    """True for 127.0.0.0/8, ::1 and IPv4-mapped loopback (``::ffff:127.0.0.1``)."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback


def is_loopback_host(host: str) -> bool:
    host = host.strip().strip("[]").rstrip(".").lower()
    return host == "localhost" or host.endswith(".localhost") or is_loopback_ip(host)


def _unbound(address: str) -> bool:
    try:
        return ipaddress.ip_address(address.split("%", 1)[0]).is_unspecified
    except ValueError:
        return False


def socket_report(process: psutil.Process | None = None) -> dict[str, Any]:
    """Every inet socket of ``process`` (default: this one) and the external-connection counts."""
    process = process or psutil.Process()
    sockets: list[dict[str, Any]] = []
    peers_outside = 0
    listeners_outside = 0
    for conn in process.net_connections(kind="inet"):
        local = f"{conn.laddr.ip}:{conn.laddr.port}" if conn.laddr else ""
        peer = f"{conn.raddr.ip}:{conn.raddr.port}" if conn.raddr else None
        external_peer = bool(conn.raddr) and not is_loopback_ip(conn.raddr.ip)
        listening = conn.status == psutil.CONN_LISTEN
        external_listener = listening and bool(conn.laddr) and not is_loopback_ip(conn.laddr.ip)
        peers_outside += external_peer
        listeners_outside += external_listener
        sockets.append({
            "fd": conn.fd, "family": _FAMILIES.get(conn.family, str(conn.family)),
            "type": _TYPES.get(conn.type, str(conn.type)), "local": local, "peer": peer,
            "status": conn.status, "loopback": not (external_peer or external_listener),
            "note": ("bound to all interfaces" if external_listener and _unbound(conn.laddr.ip)
                     else "outside this machine" if external_peer else ""),
        })
    sockets.sort(key=lambda s: (s["status"] != psutil.CONN_LISTEN, s["local"]))
    return {"pid": process.pid, "sockets": sockets, "non_loopback_peers": peers_outside,
            "non_loopback_listeners": listeners_outside}


def model_report(settings: Settings) -> dict[str, Any]:
    models = settings.models
    host = urlsplit(models.ollama_host if "://" in models.ollama_host else f"http://{models.ollama_host}")
    hostname = host.hostname or ""
    return {
        "chat_provider": models.chat_provider, "chat_model": models.chat_model,
        "embedding_provider": settings.embedding.provider,
        "ollama_host": models.ollama_host, "host_is_loopback": is_loopback_host(hostname),
        "allow_remote_model_host": models.allow_remote_model_host,
    }


def index_counts(engine: Engine) -> dict[str, Any]:
    catalog = engine.store.catalog
    documents = catalog.db.execute("SELECT COUNT(*) FROM files WHERE state = 'indexed'").fetchone()[0]
    consistency = engine.store.consistency()
    return {"documents": int(documents), "chunks": consistency["catalog_chunks"],
            "embedded_chunks": consistency["embedded_chunks"]}


def vault_audit(engine: Engine | None, settings: Settings) -> dict[str, Any]:
    """The whole audit as one JSON-ready dict."""
    from cognivault import urlimport

    sockets = socket_report()
    report: dict[str, Any] = {
        "checked_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "pid": os.getpid(),
        "model": model_report(settings),
        "zero_external": sockets["non_loopback_peers"] == 0 and sockets["non_loopback_listeners"] == 0,
        "non_loopback_peers": sockets["non_loopback_peers"],
        "non_loopback_listeners": sockets["non_loopback_listeners"],
        "sockets": sockets["sockets"],
    }
    if engine is not None:
        report["vault"] = str(engine.vault)
        report["index"] = index_counts(engine)
        report["url_import"] = {"enabled": urlimport.import_enabled(settings),
                                **urlimport.last_import(engine.vault)}
    else:
        report["url_import"] = {"enabled": urlimport.import_enabled(settings)}
    return report
