"""The companion's gatekeepers, outermost first: errors, Host, rate limit, Origin/CORS, token, body cap.

- Host must name loopback (``127.0.0.1``, ``localhost``, ``[::1]``) with the port the
  request actually arrived on: a DNS-rebinding page (``evil.example`` or
  ``127.0.0.1.nip.io`` resolving to us) is refused before anything else runs (403).
- Per client (remote address): a token bucket (sustained rate + burst) and a cap on
  requests in flight (streams count); over either, 429 with ``Retry-After``.
  Applied before the token check (so guessing the token is throttled too) and
  before CORS preflights are answered.
- Origin, when sent, must be the server's own, ``app://obsidian.md``,
  ``vscode-webview://<id>`` or one given to ``serve --allow-origin`` (the page of a
  browser-hosted editor); anything else is refused (403). CORS headers name the
  exact allowed origin, never ``*``; a preflight is answered only for allowed origins.
- Every route and method, known or not, needs the token: ``Authorization: Bearer``,
  or the HttpOnly SameSite=Strict cookie that a page URL's ``?token=`` is
  exchanged for (303 to the same URL without it). A token in the query string of
  anything but a page is refused even when it is right (401), so it never lands in
  logs or history next to API calls.
- The link ``cognivault serve`` prints carries no token but a one-time ``?code=``
  (``CompanionConfig.issue_login_code``): a page opened with it gets the same
  cookie and the same 303; the code is then used up (a second use is 401), so the
  link in the terminal's scrollback or the browser's history opens nothing. The
  cookie is only accepted with no Origin or the server's own, and SameSite=Strict
  keeps other sites' pages from sending it at all.
- Bodies: ``Content-Length`` over the route's cap is refused before reading (413);
  chunked bodies are capped while reading (``api.read_body``).
"""

from __future__ import annotations

import hmac
import logging
import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlencode

from aiohttp import hdrs, web
from aiohttp.typedefs import Handler

from cognivault.companion.api import CONFIG_KEY, DEFAULT_MAX_BODY, ApiError, error_response, route_spec
from cognivault.errors import CogniVaultError

log = logging.getLogger(__name__)

COOKIE_NAME = "cognivault_session"
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
FIXED_ORIGINS = ("app://obsidian.md",)
ORIGIN_PATTERNS = (re.compile(r"vscode-webview://[A-Za-z0-9][A-Za-z0-9.-]{0,127}"),)
_HOST_RE = re.compile(r"(\[[0-9A-Fa-f:.]+\]|[^:\[\]]+):(\d{1,5})")


# -- rate limiting -----------------------------------------------------------
@dataclass
class _Bucket:
    tokens: float
    updated: float
    in_flight: int = 0


@dataclass
class RateLimiter:
    """Token bucket per client plus a cap on concurrent requests per client.

    ``rate`` requests per second sustained, ``burst`` at once from a full bucket,
    ``max_in_flight`` open at the same time. The defaults carry 200 searches a
    second and 50 parallel answer streams from one editor, and stop a burst of
    500 from one process.
    """

    rate: float = 250.0
    burst: float = 250.0
    max_in_flight: int = 128
    clock: Callable[[], float] = time.monotonic
    buckets: dict[str, _Bucket] = field(default_factory=dict)

    def acquire(self, client: str) -> float | None:
        """None when the request may go ahead (release it later), else seconds to wait."""
        now = self.clock()
        bucket = self.buckets.get(client)
        if bucket is None:
            if len(self.buckets) > 4096:
                self._prune(now)
            bucket = self.buckets[client] = _Bucket(self.burst, now)
        bucket.tokens = min(self.burst, bucket.tokens + (now - bucket.updated) * self.rate)
        bucket.updated = now
        if bucket.in_flight >= self.max_in_flight:
            return 1.0
        if bucket.tokens < 1.0:
            return (1.0 - bucket.tokens) / self.rate
        bucket.tokens -= 1.0
        bucket.in_flight += 1
        return None

    def release(self, client: str) -> None:
        bucket = self.buckets.get(client)
        if bucket is not None and bucket.in_flight > 0:
            bucket.in_flight -= 1

    def _prune(self, now: float) -> None:
        for key, bucket in list(self.buckets.items()):
            if bucket.in_flight == 0 and now - bucket.updated > self.burst / self.rate:
                del self.buckets[key]


# -- helpers -----------------------------------------------------------------
def local_port(request: web.Request) -> int | None:
    transport = request.transport
    sockname = transport.get_extra_info("sockname") if transport is not None else None
    if isinstance(sockname, tuple) and len(sockname) >= 2:
        return int(sockname[1])
    return None


def check_host(request: web.Request) -> None:
    values = request.headers.getall(hdrs.HOST, [])
    if len(values) != 1:
        raise ApiError(403, "bad_host", "exactly one Host header naming the loopback server is required")
    match = _HOST_RE.fullmatch(values[0].strip())
    port = local_port(request)
    if match is None or match.group(1).lower() not in LOOPBACK_HOSTS or port is None \
            or int(match.group(2)) != port:
        raise ApiError(403, "bad_host", "the Host header must be 127.0.0.1, localhost or [::1] with this "
                                        "server's port (DNS rebinding protection)")


def own_origins(request: web.Request) -> set[str]:
    port = local_port(request)
    return {f"http://{host}:{port}" for host in LOOPBACK_HOSTS}


def origin_allowed(request: web.Request, origin: str) -> bool:
    config = request.app[CONFIG_KEY]
    if origin in own_origins(request) or origin in FIXED_ORIGINS or origin in config.extra_origins:
        return True
    return any(pattern.fullmatch(origin) for pattern in ORIGIN_PATTERNS)


_ORIGIN_RE = re.compile(r"(https?)://([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::(\d{1,5}))?", re.IGNORECASE)


def parse_origin(value: str) -> str:
    """An exact origin to allow (``http(s)://host[:port]``, as browsers send it), or ValueError.

    For an editor hosted in a browser page (code-server): its webviews call the companion
    with that page's origin, which the editor registers when it starts ``cognivault serve``.
    """
    match = _ORIGIN_RE.fullmatch(value.strip())
    if match is None or (match.group(3) is not None and not 0 < int(match.group(3)) <= 65535):
        raise ValueError(f"{value!r} is not an origin (scheme://host[:port], nothing after it)")
    scheme, host, port = match.group(1).lower(), match.group(2).lower(), match.group(3)
    default = {"http": "80", "https": "443"}[scheme]
    return f"{scheme}://{host}" + (f":{int(port)}" if port and port != default else "")


def client_key(request: web.Request) -> str:
    return request.remote or "unknown"


def _tokens_equal(given: str, expected: str) -> bool:
    return hmac.compare_digest(given.encode("utf-8", "surrogatepass"), expected.encode("utf-8"))


def _bearer(request: web.Request) -> str | None:
    values = request.headers.getall(hdrs.AUTHORIZATION, [])
    if len(values) != 1:
        return None
    scheme, _, credentials = values[0].strip().partition(" ")
    if scheme.lower() != "bearer" or not credentials.strip():
        return None
    return credentials.strip()


def cors_headers(request: web.Request, origin: str) -> dict[str, str]:
    return {
        "Access-Control-Allow-Origin": origin,
        "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
        "Access-Control-Allow-Headers": "Authorization, Content-Type",
        "Access-Control-Max-Age": "600",
        "Vary": "Origin",
    }


# -- middlewares -------------------------------------------------------------
@web.middleware
async def error_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Every refusal and failure as ``{"error": {"code", "message"}}``, never a traceback."""
    try:
        return await handler(request)
    except CogniVaultError as exc:  # ApiError and every user mistake a feature raises
        return error_response(exc.status, exc.code, exc.message, exc.headers)
    except web.HTTPException as exc:
        if exc.status < 400:
            return exc
        code = {404: "not_found", 405: "method_not_allowed", 413: "body_too_large"}.get(exc.status, "http_error")
        message = {404: "no such route", 405: f"method {request.method} is not allowed here",
                   413: "request body is over the limit"}.get(exc.status, exc.reason)
        headers = {k: v for k, v in exc.headers.items() if k == hdrs.ALLOW}
        return error_response(exc.status, code, message, headers)
    except ConnectionResetError:
        raise
    except Exception:
        log.exception("companion request %s %s failed", request.method, request.path)
        return error_response(500, "internal", "the server failed on this request; see its log")


@web.middleware
async def host_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    check_host(request)
    return await handler(request)


@web.middleware
async def origin_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    origin = request.headers.get(hdrs.ORIGIN)
    if origin is not None and not origin_allowed(request, origin):
        raise ApiError(403, "bad_origin", "requests from this origin are not allowed")
    if request.method == "OPTIONS" and origin is not None \
            and hdrs.ACCESS_CONTROL_REQUEST_METHOD in request.headers:
        # A CORS preflight carries no credentials by design; it reveals nothing but the CORS policy.
        wanted = request.headers[hdrs.ACCESS_CONTROL_REQUEST_METHOD].upper()
        if wanted not in ("GET", "POST"):
            raise ApiError(403, "bad_origin", f"method {wanted} is not allowed from other origins")
        return web.Response(status=204, headers=cors_headers(request, origin))
    return await handler(request)


@web.middleware
async def rate_limit_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    limiter: RateLimiter = request.app[CONFIG_KEY].limiter
    client = client_key(request)
    wait = limiter.acquire(client)
    if wait is not None:
        seconds = max(1, math.ceil(wait))
        raise ApiError(429, "rate_limited", f"too many requests; retry in {seconds} s",
                       {"Retry-After": str(seconds)})
    try:
        return await handler(request)
    finally:
        limiter.release(client)


def _session_cookie_redirect(request: web.Request, credential: str) -> web.Response:
    """303 to the same page without ``credential`` in the query, setting the session cookie."""
    rest = [(k, v) for k, v in request.query.items() if k != credential]
    location = request.path + (f"?{urlencode(rest)}" if rest else "")
    response = web.Response(status=303, headers={hdrs.LOCATION: location})
    response.set_cookie(COOKIE_NAME, request.app[CONFIG_KEY].cookie_secret, httponly=True, samesite="Strict",
                        path="/", secure=False)
    return response


@web.middleware
async def auth_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    config = request.app[CONFIG_KEY]
    spec = route_spec(request)
    is_page = spec is not None and spec.page
    if "token" in request.query:
        if not is_page:
            raise ApiError(401, "token_in_query", "send the token in the Authorization header, "
                                                  "never in the URL")
        given = request.query.get("token", "")
        if len(request.query.getall("token")) != 1 or not _tokens_equal(given, config.token):
            raise ApiError(401, "unauthorized", "missing or wrong token")
        return _session_cookie_redirect(request, "token")
    if "code" in request.query and is_page:
        if len(request.query.getall("code")) != 1 or not config.redeem_login_code(request.query["code"]):
            raise ApiError(401, "code_used", "this link was opened already (each link opens once) or is "
                                             "wrong; restart `cognivault serve` for a new one")
        return _session_cookie_redirect(request, "code")
    bearer = _bearer(request)
    if bearer is not None:
        if not _tokens_equal(bearer, config.token):
            raise ApiError(401, "unauthorized", "missing or wrong token")
    else:
        cookie = request.cookies.get(COOKIE_NAME)
        origin = request.headers.get(hdrs.ORIGIN)
        same_origin = origin is None or origin in own_origins(request)
        if cookie is None or not same_origin or not _tokens_equal(cookie, config.cookie_secret):
            raise ApiError(401, "unauthorized", "missing or wrong token",
                           {hdrs.WWW_AUTHENTICATE: 'Bearer realm="cognivault"'})
    return await handler(request)


@web.middleware
async def body_limit_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    spec = route_spec(request)
    cap = spec.max_body if spec is not None else DEFAULT_MAX_BODY
    length = request.content_length
    if length is not None and length > cap:
        raise ApiError(413, "body_too_large", f"request body is {length} bytes; the limit is {cap}")
    return await handler(request)


MIDDLEWARES = (error_middleware, host_middleware, rate_limit_middleware, origin_middleware,
               auth_middleware, body_limit_middleware)


async def on_response_prepare(request: web.Request, response: web.StreamResponse) -> None:
    """Security headers on every response, CORS headers for allowed foreign origins only."""
    headers = response.headers
    headers.setdefault("X-Content-Type-Options", "nosniff")
    headers.setdefault("Cache-Control", "no-store")
    headers.setdefault("Referrer-Policy", "no-referrer")
    headers.setdefault("Cross-Origin-Resource-Policy", "same-origin")
    if response.content_type == "text/html":
        headers.setdefault("Content-Security-Policy",
                           "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' "
                           "'unsafe-inline'; connect-src 'self'; frame-ancestors 'self' vscode-webview: "
                           "app:; base-uri 'none'; form-action 'self'")
    origin = request.headers.get(hdrs.ORIGIN)
    if origin and "Access-Control-Allow-Origin" not in headers and response.status != 403 \
            and origin_allowed(request, origin):
        headers["Access-Control-Allow-Origin"] = origin
        headers["Vary"] = "Origin"
