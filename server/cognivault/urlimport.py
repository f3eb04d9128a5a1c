"""Saving a web page as a Markdown note: the one feature that goes to the network, and so off by default.

``import_url(vault, url, policy)`` fetches with the standard library only and refuses:

- schemes other than http/https, credentials in the URL, control characters;
- any host that is, or resolves to, a loopback, private, link-local, CGNAT
  (100.64/10), multicast, unspecified, reserved or otherwise non-global address,
  IPv4 and IPv6 alike; IPv4 in any spelling (``127.1``, ``0x7f000001``,
  ``2130706433``, ``0177.0.0.1``) and IPv4 inside IPv6 (``::ffff:127.0.0.1``,
  NAT64 ``64:ff9b::/96``, 6to4 ``2002::/16``, Teredo) is checked as the IPv4 it is;
  a name with several addresses is refused when any one of them is refused;
- redirects are not followed by the HTTP library: each hop's target goes
  through the same checks (at most ``max_redirects`` hops);
- the connection goes to the address that was checked (the name is resolved
  once per hop, so DNS cannot rebind between the check and the connect); the
  name is still sent as Host and used for TLS verification;
- the body is capped while it streams (and ``Content-Length`` is checked first),
  compressed bodies are decompressed under the same cap, and the whole fetch has
  a deadline besides the per-read socket timeout.

The page becomes Markdown through trafilatura in the attachment reader's process
(:class:`cognivault.index.isolation.IsolatedExtractor`, its memory and time
limits): lxml is native code fed with a stranger's HTML, and a crash there fails
that import ("the page could not be converted: the reader crashed (signal 11)")
instead of ending ``serve``. The note is written into the vault
atomically, never over an existing note; ``.cognivault/url-import.json`` records
when it was last used (shown by the vault audit).

Enabled by the ``url_import.enabled`` setting (or ``COGNIVAULT_URL_IMPORT_ENABLED=1``).
"""

from __future__ import annotations

import http.client
import ipaddress
import json
import re
import socket
import ssl
import time
import unicodedata
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

from cognivault.atomic import atomic_create, atomic_write_text
from cognivault.config import Settings
from cognivault.errors import CogniVaultError
from cognivault.paths import vault_data_dir
from cognivault.vault.guard import VaultPathError, inside_vault

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], Sequence[str]]

ENABLE_HINT = "the setting url_import.enabled = true (or COGNIVAULT_URL_IMPORT_ENABLED=1)"
STATE_FILE = "url-import.json"
REDIRECTS = {301, 302, 303, 307, 308}
ACCEPTED_TYPES = ("text/html", "application/xhtml+xml", "text/plain", "text/markdown")

_CGNAT = ipaddress.ip_network("100.64.0.0/10")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")
_SIX_TO_FOUR = ipaddress.ip_network("2002::/16")
_NUMERIC_V4 = re.compile(r"[0-9a-fA-FxX.]+")


class ImportRefused(CogniVaultError, ValueError):
    """The URL (or a redirect) points somewhere we do not go, or the import is off."""

    status = 400

    def __init__(self, message: str, code: str = "import_refused") -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class ImportFailed(CogniVaultError, RuntimeError):
    """The fetch or the conversion failed (network error, HTTP error, too big, too slow, no text)."""

    status = 502
    exit_code = 1

    def __init__(self, message: str, code: str = "import_failed") -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def import_enabled(settings: Settings) -> bool:
    return settings.url_import.enabled


@dataclass
class ImportPolicy:
    """Limits of one import. ``allow_networks`` punches explicit holes in the address policy
    (the tests allow their own 127.0.0.1 server this way); the policy itself has none."""

    max_bytes: int = 5 * 1024 * 1024
    timeout_s: float = 20.0
    max_redirects: int = 5
    allow_networks: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = ()
    resolver: Resolver | None = None
    user_agent: str = "CogniVault-url-import/0.1 (+local study notes)"
    ssl_context: ssl.SSLContext | None = None

    def allowed_explicitly(self, ip: IPAddress) -> bool:
        return any(ip.version == net.version and ip in net for net in self.allow_networks)


def policy_from_settings(settings: Settings) -> ImportPolicy:
    section = settings.url_import
    return ImportPolicy(max_bytes=int(section.max_mb * 1024 * 1024), timeout_s=section.timeout_s,
                        max_redirects=section.max_redirects)


# -- the address policy ------------------------------------------------------
def refusal_reason(ip: IPAddress) -> str | None:
    """Why ``ip`` is not a public internet address (None when it is)."""
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return refusal_reason(ip.ipv4_mapped)
        if ip in _NAT64 or ip in _NAT64_LOCAL:
            return refusal_reason(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)) or "a NAT64 address"
        if ip.sixtofour is not None:
            return refusal_reason(ip.sixtofour) or "a 6to4 address"
        if ip.teredo is not None:
            return "a Teredo tunnel address"
    if ip.is_unspecified:
        return "the unspecified address"
    if ip.is_loopback:
        return "a loopback address (this machine)"
    if ip.is_link_local:
        return "a link-local address (cloud metadata lives here)"
    if ip.is_multicast:
        return "a multicast address"
    if isinstance(ip, ipaddress.IPv6Address) and ip.scope_id:
        return "an address with a zone index"
    if isinstance(ip, ipaddress.IPv4Address) and ip in _CGNAT:
        return "a carrier-grade NAT address (100.64.0.0/10)"
    if isinstance(ip, ipaddress.IPv6Address) and ip.is_site_local:
        return "a site-local address"
    if ip.is_private:
        return "a private-network address"
    if ip.is_reserved:
        return "a reserved address"
    if not ip.is_global:
        return "not a public internet address"
    return None


def check_address(ip: IPAddress, policy: ImportPolicy, host: str) -> None:
    if policy.allowed_explicitly(ip):
        return
    reason = refusal_reason(ip)
    if reason is not None:
        shown = host if host == str(ip) else f"{host} ({ip})"
        raise ImportRefused(f"{shown} is {reason}; URL import only goes to public web servers")


def literal_address(host: str) -> IPAddress | None:
    """``host`` as an IP address if it is written as one, in any notation a resolver would accept."""
    bare = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    try:
        return ipaddress.ip_address(bare)
    except ValueError:
        pass
    if ":" in bare:  # looks like IPv6 but is not valid: refuse later as a bad host
        raise ImportRefused(f"{host!r} is not a valid address")
    if _NUMERIC_V4.fullmatch(bare) and any(ch.isdigit() for ch in bare):
        try:  # inet_aton reads 127.1, 0x7f000001, 2130706433 and octal 0177.0.0.1 like resolvers do
            return ipaddress.IPv4Address(socket.inet_aton(bare.rstrip(".")))
        except OSError:
            return None
    return None


def _system_resolver(host: str, port: int) -> list[str]:
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


@dataclass(slots=True)
class Target:
    url: str
    scheme: str
    host: str  # as it goes into Host and TLS SNI (IDNA-encoded)
    port: int
    path: str  # path + query, never empty
    address: IPAddress  # the checked address we connect to


def check_url(url: str, policy: ImportPolicy) -> Target:
    """Parse and check ``url``; resolve its host once and check every address. Raises ImportRefused."""
    if not isinstance(url, str) or not url.strip():
        raise ImportRefused("the URL is empty")
    url = url.strip()
    if len(url) > 4096 or any(ord(ch) < 33 or ch == "\x7f" for ch in url):
        raise ImportRefused("the URL is too long or contains spaces or control characters")
    if "\\" in url:
        raise ImportRefused("the URL contains a backslash")
    try:
        parts = urlsplit(url)
        _ = parts.hostname
    except ValueError as exc:
        raise ImportRefused(f"the URL cannot be parsed: {exc}") from None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise ImportRefused(f"only http and https URLs can be imported (not {scheme or 'a relative URL'!r})")
    if "@" in parts.netloc:
        raise ImportRefused("URLs with a user name or password are not imported")
    if not parts.hostname:
        raise ImportRefused("the URL has no host")
    try:
        port = parts.port or (443 if scheme == "https" else 80)
    except ValueError:
        raise ImportRefused("the URL has an invalid port") from None
    host = parts.hostname.rstrip(".")
    literal = literal_address(host)
    if literal is not None:
        check_address(literal, policy, host)
        addresses: list[IPAddress] = [literal]
        sent_host = f"[{literal}]" if literal.version == 6 else str(literal)
    else:
        try:
            sent_host = host.encode("idna").decode("ascii")
        except UnicodeError:
            raise ImportRefused(f"{host!r} is not a valid host name") from None
        if sent_host == "localhost" or sent_host.endswith(".localhost"):
            raise ImportRefused(f"{host} is this machine; URL import only goes to public web servers")
        try:
            found = (policy.resolver or _system_resolver)(sent_host, port)
        except (OSError, UnicodeError) as exc:
            raise ImportFailed(f"cannot resolve {host}: {exc}", "import_dns") from None
        addresses = []
        for text in found:
            try:
                ip = ipaddress.ip_address(str(text))
            except ValueError:
                raise ImportRefused(f"{host} resolved to something that is not an address") from None
            check_address(ip, policy, host)  # every address must pass, not just the first
            addresses.append(ip)
        if not addresses:
            raise ImportFailed(f"{host} has no address", "import_dns")
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    return Target(url, scheme, sent_host, port, path, addresses[0])


# -- fetching ----------------------------------------------------------------
class _PinnedHTTP(http.client.HTTPConnection):
    def __init__(self, target: Target, timeout: float) -> None:
        super().__init__(target.host.strip("[]"), target.port, timeout=timeout)
        self._address = target.address

    def connect(self) -> None:
        self.sock = socket.create_connection((str(self._address), self.port), self.timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class _PinnedHTTPS(http.client.HTTPSConnection):
    def __init__(self, target: Target, timeout: float, context: ssl.SSLContext) -> None:
        super().__init__(target.host.strip("[]"), target.port, timeout=timeout, context=context)
        self._address = target.address
        self._context_for_pin = context

    def connect(self) -> None:
        raw = socket.create_connection((str(self._address), self.port), self.timeout)
        self.sock = self._context_for_pin.wrap_socket(raw, server_hostname=self.host)


@dataclass(slots=True)
class Fetched:
    url: str  # final URL after redirects
    content_type: str
    charset: str | None
    body: bytes
    hops: list[str] = field(default_factory=list)


def _read_capped(response: http.client.HTTPResponse, policy: ImportPolicy, deadline: float) -> bytes:
    encoding = (response.getheader("Content-Encoding") or "identity").strip().lower()
    if encoding not in ("identity", "gzip", "x-gzip", "deflate"):
        raise ImportFailed(f"the server sent an unsupported content encoding ({encoding})")
    length = response.getheader("Content-Length")
    if length and length.strip().isdigit() and int(length) > policy.max_bytes:
        raise ImportFailed(f"the page is {int(length)} bytes; the limit is {policy.max_bytes}", "import_too_large")
    decoder = None
    if encoding in ("gzip", "x-gzip"):
        decoder = zlib.decompressobj(16 + zlib.MAX_WBITS)
    elif encoding == "deflate":
        decoder = zlib.decompressobj()
    received = 0
    parts: list[bytes] = []
    size = 0
    while True:
        if time.monotonic() > deadline:
            raise ImportFailed(f"the page took longer than {policy.timeout_s:g} s", "import_timeout")
        chunk = response.read1(64 * 1024) if hasattr(response, "read1") else response.read(64 * 1024)
        if not chunk:
            break
        received += len(chunk)
        if received > policy.max_bytes:
            raise ImportFailed(f"the page is over the limit of {policy.max_bytes} bytes", "import_too_large")
        if decoder is not None:
            chunk = decoder.decompress(chunk, policy.max_bytes + 1 - size)
            if decoder.unconsumed_tail:
                raise ImportFailed("the page decompresses past the size limit", "import_too_large")
        size += len(chunk)
        if size > policy.max_bytes:
            raise ImportFailed(f"the page is over the limit of {policy.max_bytes} bytes", "import_too_large")
        parts.append(chunk)
    return b"".join(parts)


def fetch(url: str, policy: ImportPolicy) -> Fetched:
    """GET ``url`` under ``policy``: every hop checked, connections pinned, body capped, deadline kept."""
    deadline = time.monotonic() + policy.timeout_s
    hops: list[str] = []
    current = url
    for _ in range(policy.max_redirects + 1):
        target = check_url(current, policy)
        hops.append(target.url)
        remaining = max(0.1, deadline - time.monotonic())
        timeout = min(policy.timeout_s, remaining)
        if target.scheme == "https":
            connection: http.client.HTTPConnection = _PinnedHTTPS(
                target, timeout, policy.ssl_context or ssl.create_default_context())
        else:
            connection = _PinnedHTTP(target, timeout)
        response: http.client.HTTPResponse | None = None
        try:
            connection.request("GET", target.path, headers={
                "User-Agent": policy.user_agent, "Accept-Encoding": "gzip, deflate",
                "Accept": "text/html,application/xhtml+xml,text/plain;q=0.8,text/markdown;q=0.8",
                "Connection": "close"})
            response = connection.getresponse()
            if response.status in REDIRECTS:
                location = response.getheader("Location")
                if not location:
                    raise ImportFailed(f"a redirect ({response.status}) without a Location")
                current = urljoin(target.url, location.strip())
                continue
            if response.status != 200:
                raise ImportFailed(f"the server answered HTTP {response.status} {response.reason}",
                                   "import_http_error")
            media, charset = _media_type(response.getheader("Content-Type") or "")
            if media not in ACCEPTED_TYPES:
                raise ImportFailed(f"not a web page ({media or 'no content type'}); only HTML and text "
                                   "are imported", "import_unsupported")
            body = _read_capped(response, policy, deadline)
            return Fetched(target.url, media, charset, body, hops)
        except TimeoutError:
            raise ImportFailed(f"the server did not answer within {policy.timeout_s:g} s",
                               "import_timeout") from None
        except (OSError, http.client.HTTPException) as exc:
            raise ImportFailed(f"cannot fetch {target.host}: {exc}") from None
        finally:
            if response is not None:  # the response holds the socket: closing only the connection left it open
                response.close()
            connection.close()
    raise ImportRefused(f"more than {policy.max_redirects} redirects", "import_too_many_redirects")


def _media_type(header: str) -> tuple[str, str | None]:
    media, _, params = header.partition(";")
    charset = None
    for param in params.split(";"):
        key, _, value = param.strip().partition("=")
        if key.lower() == "charset" and value:
            charset = value.strip().strip('"')
    return media.strip().lower(), charset


# -- conversion and writing --------------------------------------------------
def page_to_markdown(fetched: Fetched) -> tuple[str, str]:
    """(title, markdown) of the page. Raises ImportFailed when nothing readable is in it."""
    charset = fetched.charset or "utf-8"
    try:
        text = fetched.body.decode(charset, errors="replace")
    except LookupError:
        text = fetched.body.decode("utf-8", errors="replace")
    if fetched.content_type in ("text/plain", "text/markdown"):
        first = next((line.strip("# ").strip() for line in text.splitlines() if line.strip()), "")
        return first[:120] or _title_from_url(fetched.url), text
    import trafilatura

    document = trafilatura.bare_extraction(text, url=fetched.url, with_metadata=True, include_links=True,
                                           include_tables=True, output_format="python")
    markdown = trafilatura.extract(text, url=fetched.url, output_format="markdown", include_links=True,
                                   include_tables=True, include_formatting=True)
    if not markdown or not markdown.strip():
        raise ImportFailed("the page has no readable text", "import_empty")
    title = getattr(document, "title", None) if document is not None else None
    return (title or _title_from_url(fetched.url)).strip(), markdown.strip()


def convert_isolated(fetched: Fetched, settings: Settings) -> tuple[str, str]:
    """:func:`page_to_markdown` of an HTML page in a reader process of its own (plain text needs no
    parser). ImportFailed ``import_unreadable`` when that process crashed or went over its limits."""
    if fetched.content_type in ("text/plain", "text/markdown"):
        return page_to_markdown(fetched)
    from cognivault.index.isolation import IsolatedExtractor
    from cognivault.vault.types import ExtractionFailed

    reader = IsolatedExtractor(settings.index)
    try:
        return reader.run(page_to_markdown, fetched)
    except ExtractionFailed as exc:
        raise ImportFailed(f"the page could not be converted: {exc}", "import_unreadable") from None
    finally:
        reader.close()


def _title_from_url(url: str) -> str:
    parts = urlsplit(url)
    tail = parts.path.rstrip("/").rsplit("/", 1)[-1]
    return tail or parts.hostname or "Imported page"


def note_file_name(title: str) -> str:
    name = unicodedata.normalize("NFC", title)
    name = re.sub(r'[\\/:*?"<>|#^\[\]\x00-\x1f\x7f]+', " ", name)
    name = " ".join(name.split()).strip(" .")[:80].strip(" .")
    return name or "Imported page"


def _write_new(path: Path, text: str) -> Path:
    """Write ``text`` to ``path`` or, when taken, ``path (2)``, ... atomically; never replaces a file."""
    candidates = (path if n == 1 else path.with_name(f"{path.stem} ({n}){path.suffix}") for n in range(1, 1000))
    written = atomic_create(candidates, text.encode("utf-8"))
    if written is None:
        raise ImportFailed("too many notes with this name already")
    return written


@dataclass(slots=True)
class ImportResult:
    path: str  # vault-relative
    title: str
    url: str  # as asked
    final_url: str
    bytes: int
    hops: int
    imported_at: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _record(vault: Path, entry: dict[str, Any]) -> None:
    state_path = vault_data_dir(vault) / STATE_FILE
    try:
        state = json.loads(state_path.read_text("utf-8"))
        if not isinstance(state, dict):
            state = {}
    except (OSError, ValueError):
        state = {}
    state["last_attempt"] = entry
    if entry.get("ok"):
        state["last_import"] = entry
    atomic_write_text(state_path, json.dumps(state, ensure_ascii=False, indent=2) + "\n", mode=0o600)


def last_import(vault: Path) -> dict[str, Any]:
    """``{"last_used": time or None, "last_url": ..., "last_attempt": ...}`` for the vault audit."""
    try:
        state = json.loads((vault_data_dir(vault) / STATE_FILE).read_text("utf-8"))
    except (OSError, ValueError):
        state = {}
    last = state.get("last_import") or {}
    return {"last_used": last.get("at"), "last_url": last.get("url"), "last_path": last.get("path"),
            "last_attempt": state.get("last_attempt")}


def import_url(vault: Path, url: str, policy: ImportPolicy | None = None, *, folder: str | None = None,
               settings: Settings | None = None, now: float | None = None,
               enabled: bool | None = None) -> ImportResult:
    """Fetch ``url`` under ``policy`` and save it as a new note in ``folder`` (vault-relative)."""
    vault = Path(vault).resolve()
    settings = settings or Settings()
    if not (import_enabled(settings) if enabled is None else enabled):
        raise ImportRefused(f"URL import is off. Turn it on with {ENABLE_HINT}", "import_disabled")
    policy = policy or policy_from_settings(settings)
    try:
        folder = inside_vault(vault, folder if folder is not None else settings.url_import.folder,
                              "the target folder", allow_root=True)
    except VaultPathError as exc:
        raise ImportRefused(str(exc), "bad_path") from None
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now))
    target_dir = (vault / folder) if folder else vault
    try:
        fetched = fetch(url, policy)
        title, markdown = convert_isolated(fetched, settings)
    except (ImportRefused, ImportFailed) as exc:
        _record(vault, {"at": stamp, "url": url, "ok": False, "error": exc.message})
        raise
    front = "\n".join([
        "---",
        f"title: {json.dumps(title, ensure_ascii=False)}",
        f"source: {json.dumps(fetched.url, ensure_ascii=False)}",
        f"imported: {stamp}",
        "tags: [imported]",
        "---",
        "",
        f"# {title}",
        "",
        f"> Imported from <{fetched.url}> on {stamp[:10]}.",
        "",
    ])
    written = _write_new(target_dir / f"{note_file_name(title)}.md", front + markdown + "\n")
    relative = written.relative_to(vault).as_posix()
    _record(vault, {"at": stamp, "url": url, "final_url": fetched.url, "path": relative, "ok": True})
    return ImportResult(relative, title, url, fetched.url, len(fetched.body), len(fetched.hops) - 1, stamp)


def allow_networks(networks: Iterable[str]) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    """Explicit exceptions for :class:`ImportPolicy` (``["127.0.0.1/32"]`` for a test server)."""
    return tuple(ipaddress.ip_network(n) for n in networks)
