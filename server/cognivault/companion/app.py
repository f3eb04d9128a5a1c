"""The companion's aiohttp application: ``create_app(engine, settings, token)``.

Routes come from route modules, each exposing ``setup_routes(app)`` and
registering through :func:`cognivault.companion.api.add_route`:

- ``cognivault.companion.routes``: search, related, status, audit, import-url, OpenAPI, the landing page
- ``cognivault.companion.ask``: ``/api/ask`` (NDJSON stream) and session truncation
- ``cognivault.companion.transcribe``: ``/api/transcribe`` (voice input)
- every module in :data:`FEATURE_ROUTES` (the study hub adds its own there)

Every one of them sits behind the same middlewares (``security.MIDDLEWARES``).
The engine is never called on the event loop: handlers use ``api.run_blocking`` and its
siblings, which run work on the lanes of :mod:`cognivault.companion.workers`.
"""

from __future__ import annotations

import asyncio
import hmac
import importlib
import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any

from aiohttp import web

from cognivault.collector import IdleCollector
from cognivault.companion import api
from cognivault.companion.security import MIDDLEWARES, RateLimiter, on_response_prepare
from cognivault.companion.workers import Workers
from cognivault.live import LiveVault

if TYPE_CHECKING:
    from cognivault.config import Settings
    from cognivault.engine import Engine


CORE_ROUTES = ("cognivault.companion.routes", "cognivault.companion.ask", "cognivault.companion.transcribe")
# Feature packages add their HTTP routes here: a module with ``setup_routes(app)``.
# A listed module that does not exist or fails to import is an error.
FEATURE_ROUTES: list[str] = ["cognivault.study.routes"]

FeatureSpec = str | ModuleType | Callable[[web.Application], None]


@dataclass
class CompanionConfig:
    """Per-process secrets and limits of one companion app."""

    token: str
    cookie_secret: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    limiter: RateLimiter = field(default_factory=RateLimiter)
    extra_origins: frozenset[str] = frozenset()  # exact extra Origins to allow (none by default)
    info: dict[str, Any] = field(default_factory=dict)  # url/pid written to companion.json, once known
    watching: bool = False  # the vault is being watched and the index follows its files (cognivault serve)
    login_codes: list[str] = field(default_factory=list)  # one-time codes of printed links, not yet opened

    def issue_login_code(self) -> str:
        """A fresh one-time code for a page link (``?code=``): a browser exchanges it once for the cookie."""
        code = secrets.token_urlsafe(24)
        self.login_codes.append(code)
        return code

    def redeem_login_code(self, given: str) -> bool:
        """True (once) for an issued code: it is used up whether or not the browser gets further."""
        for code in self.login_codes:
            if hmac.compare_digest(given.encode("utf-8", "surrogatepass"), code.encode("utf-8")):
                self.login_codes.remove(code)
                return True
        return False


def _setup_feature(app: web.Application, feature: FeatureSpec) -> None:
    if callable(feature) and not isinstance(feature, ModuleType):
        feature(app)
        return
    if isinstance(feature, str):
        feature = importlib.import_module(feature)  # a misspelt module fails here, never silently
    setup = getattr(feature, "setup_routes", None)
    if setup is None:
        raise TypeError(f"companion feature module {feature.__name__} has no setup_routes(app)")
    setup(app)


def create_app(engine: Engine, settings: Settings, token: str, *,
               features: Iterable[FeatureSpec] | None = None, limiter: RateLimiter | None = None,
               extra_origins: Iterable[str] = (), **services: Any) -> web.Application:
    """The companion app for ``engine``; every route needs ``token``.

    ``features``: route modules (names, modules or ``setup(app)`` callables) added after
    the core routes; default :data:`FEATURE_ROUTES`. ``services``: objects route modules
    look up in ``app`` (``provider=``, ``sessions=`` for the answer pipeline), stored under
    ``api.service_key(name)``.
    """
    if not token or len(token) < 16:
        raise ValueError("the companion token must be a random string of at least 16 characters")
    config = CompanionConfig(token=token, limiter=limiter or RateLimiter(),
                             extra_origins=frozenset(extra_origins))
    # aiohttp's own reader (request.json() in a feature handler) stays at 1 MiB; routes that
    # take more read through api.read_json, which applies the route's own cap while reading.
    app = web.Application(middlewares=MIDDLEWARES, client_max_size=api.DEFAULT_MAX_BODY)
    app[api.ROUTES_KEY] = {}
    app[api.ENGINE_KEY] = engine
    app[api.SETTINGS_KEY] = settings
    app[api.CONFIG_KEY] = config
    app[api.TASKS_KEY] = set()
    app[api.SERVICES_KEY] = dict(services)
    workers = Workers.start()
    app[api.WORKERS_KEY] = workers
    live = LiveVault(gate=workers.gate)  # the index pass and the watcher's updates give way to requests
    live.attach(engine)
    app[api.LIVE_KEY] = live
    app[api.COLLECTOR_KEY] = IdleCollector()
    app.on_response_prepare.append(on_response_prepare)

    async def _shutdown(app: web.Application) -> None:
        app[api.COLLECTOR_KEY].stop()
        running = app[api.TASKS_KEY]
        tasks = list(running)
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        await asyncio.get_running_loop().run_in_executor(None, workers.shutdown, True)
        await asyncio.get_running_loop().run_in_executor(None, live.close)

    app.on_cleanup.append(_shutdown)
    for module in CORE_ROUTES:
        _setup_feature(app, module)
    for feature in FEATURE_ROUTES if features is None else features:
        _setup_feature(app, feature)
    return app
