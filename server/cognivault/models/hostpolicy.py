"""Which model hosts CogniVault may talk to: this machine only, unless the user says otherwise.

Everything sent to a model server (note passages to embed, questions, evidence
packs) is the user's private notes, so by default the Ollama host must be a
loopback address: ``127.0.0.0/8``, ``::1`` (also IPv4-mapped ``::ffff:127.x``)
or the literal name ``localhost``. Any other name is refused without a DNS
lookup (a name's address can change under us, and resolving it already tells a
resolver what we are about to do); ``0.0.0.0`` and ``::`` are refused too (they
mean "any interface" when listening, not "this machine" as a destination).

A user who runs Ollama on another machine they trust sets
``models.allow_remote_model_host = true`` in their own config file
(``~/.config/cognivault/config.toml``; a vault's own file cannot say it) or
``COGNIVAULT_MODELS_ALLOW_REMOTE_MODEL_HOST=1``.
"""

from __future__ import annotations

import ipaddress
import urllib.parse

from cognivault.models.base import ModelUnavailable

DEFAULT_OLLAMA_PORT = 11434
LOOPBACK_NAMES = frozenset({"localhost", "localhost."})


def tls_verification(url: str | None) -> bool:
    """httpx's ``verify`` for a model host: False for plain HTTP, where no TLS ever happens, so the client
    does not build a verifying SSL context for nothing (it loads the CA bundle: 0.2-1 s at each start of
    ``serve``, ``lsp`` and ``ask``); True (the system's CA bundle) for https."""
    return parse_host(url)[0] == "https"


def parse_host(url: str | None) -> tuple[str, str, int, str]:
    """Split an Ollama host setting into ``(scheme, host, port, path)`` the way the ``ollama`` client does.

    Accepts ``http://127.0.0.1:11434``, ``127.0.0.1:11434``, ``localhost``,
    ``:11434``, ``[::1]:11434`` and ``https://host/prefix``; the port defaults to
    11434 without a scheme and to 80/443 with one. ``host`` has no brackets.
    """
    text = (url or "").strip()
    if not text:
        return "http", "127.0.0.1", DEFAULT_OLLAMA_PORT, ""
    default_port = DEFAULT_OLLAMA_PORT
    if "://" not in text:
        text = "http://" + text
    else:
        scheme_part = text.split("://", 1)[0].lower()
        default_port = {"http": 80, "https": 443}.get(scheme_part, DEFAULT_OLLAMA_PORT)
    split = urllib.parse.urlsplit(text)
    scheme = split.scheme.lower()
    if scheme not in {"http", "https"}:
        raise ModelUnavailable(f"model host {url!r}: only http:// and https:// hosts are supported")
    try:
        port = split.port
    except ValueError as exc:
        raise ModelUnavailable(f"model host {url!r}: invalid port ({exc})") from None
    host = split.hostname or ""
    if not host and split.netloc.startswith(":"):
        host = "127.0.0.1"  # ":11434" means this machine, as in the ollama client
    if not host:
        raise ModelUnavailable(f"model host {url!r} names no host")
    if split.username is not None or split.password is not None:
        raise ModelUnavailable(f"model host {url!r}: credentials in the URL are not supported")
    path = split.path.rstrip("/")
    return scheme, host, port if port is not None else default_port, path


def is_loopback_host(host: str) -> bool:
    """True for ``localhost`` and loopback IP literals; never resolves names."""
    name = host.strip().strip("[]").lower()
    if name in LOOPBACK_NAMES:
        return True
    try:
        address = ipaddress.ip_address(name.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_loopback


def format_base_url(scheme: str, host: str, port: int, path: str = "") -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"{scheme}://{shown}:{port}{path}"


def check_model_host(url: str, allow_remote: bool) -> str:
    """Return the normalized base URL of ``url`` if CogniVault may send notes there.

    Raises :class:`ModelUnavailable` (saying why and how to allow it) for a host
    that is not loopback while ``allow_remote`` is false.
    """
    from cognivault.config import user_config_file
    from cognivault.errors import display_path

    scheme, host, port, path = parse_host(url)
    if not allow_remote and not is_loopback_host(host):
        if host in {"0.0.0.0", "::"}:
            why = f"{host} is a wildcard listen address, not a destination; use 127.0.0.1"
        else:
            why = "it is not a loopback address (127.0.0.1, ::1 or localhost); names are not resolved"
        raise ModelUnavailable(
            f"Refusing model host {url!r}: {why}. CogniVault only sends your notes to a model "
            "server on this machine unless you allow another host. If you trust it, set "
            f"`models.allow_remote_model_host = true` in your own config file, {display_path(user_config_file())} "
            "(a vault's .cognivault/config.toml cannot), or COGNIVAULT_MODELS_ALLOW_REMOTE_MODEL_HOST=1."
        )
    return format_base_url(scheme, host, port, path)
