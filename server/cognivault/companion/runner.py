"""Running the companion: bind 127.0.0.1 only, a fresh token per start, ``companion.json`` for clients.

``start_companion`` is for callers that own an event loop; ``serve_forever`` is
``cognivault serve``, which, while it writes the index, watches the vault and
updates the index for each note changed on disk (``--no-watch``: only on "Re-index").
Index passes and updates run on the app's live vault (:mod:`cognivault.live`): one
writer thread, pausing between its steps while requests run.
``<vault>/.cognivault/companion.json`` holds ``{"url", "token", "pid", "vault"}``,
is written atomically with mode 0600 (the temp file is 0600 from its first byte)
and removed on exit, but only while it still describes this process.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import secrets
import signal
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import psutil
from aiohttp import web

from cognivault.atomic import atomic_write_text
from cognivault.companion import api
from cognivault.companion.app import create_app
from cognivault.errors import CogniVaultError
from cognivault.index.watch import VaultWatcher
from cognivault.live import LiveEvents
from cognivault.paths import vault_data_dir
from cognivault.progress_line import ProgressLine

if TYPE_CHECKING:
    from collections.abc import Callable

    from cognivault.config import Settings
    from cognivault.engine import Engine
    from cognivault.index.pipeline import Progress

log = logging.getLogger(__name__)

BIND_HOST = "127.0.0.1"  # never anything else: the companion is for this machine only
INFO_FILE = "companion.json"


class CompanionRunning(CogniVaultError, RuntimeError):
    """Another live process already serves this vault (its companion.json says so)."""

    code = "companion_running"
    status = 409
    exit_code = 1


def info_path(vault: Path) -> Path:
    return vault_data_dir(Path(vault)) / INFO_FILE


def read_info(vault: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(info_path(vault).read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def running_companion(vault: Path) -> dict[str, Any] | None:
    """The companion.json of a live companion of ``vault`` other than this process (None if stale)."""
    info = read_info(vault)
    if not info or not isinstance(info.get("pid"), int) or info["pid"] == os.getpid():
        return None
    try:
        alive = psutil.pid_exists(info["pid"]) and psutil.Process(info["pid"]).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        alive = False
    return info if alive else None


@dataclass
class Companion:
    """A running companion; ``await stop()`` shuts it down and removes companion.json."""

    app: web.Application
    runner: web.AppRunner
    url: str
    port: int
    token: str
    vault: Path
    info_file: Path | None

    def info(self) -> dict[str, Any]:
        return {"url": self.url, "token": self.token, "pid": os.getpid(), "vault": str(self.vault)}

    def dashboard_link(self) -> str:
        """A link for a person: opens the dashboard once (a one-time code, exchanged for the session cookie)."""
        return f"{self.url}/?code={self.app[api.CONFIG_KEY].issue_login_code()}"

    async def stop(self) -> None:
        try:
            if self.info_file is not None:
                current = read_info(self.vault)
                if current is not None and current.get("token") == self.token:
                    with contextlib.suppress(FileNotFoundError):
                        self.info_file.unlink()
        finally:
            await self.runner.cleanup()


async def start_companion(engine: Engine, settings: Settings, *, port: int = 0, token: str | None = None,
                          write_info: bool = True, force: bool = False, **app_options: Any) -> Companion:
    """Serve ``engine`` on 127.0.0.1:``port`` (0: a free port) with a fresh random token."""
    if not 0 <= port <= 65535:
        raise ValueError(f"port {port} is not between 0 and 65535")
    vault = Path(engine.vault)
    if write_info and not force:
        other = running_companion(vault)
        if other is not None:
            raise CompanionRunning(f"a companion already serves this vault (pid {other['pid']}, "
                                   f"{other.get('url')}); stop it or start with --force")
    token = token or secrets.token_urlsafe(32)
    app = create_app(engine, settings, token, **app_options)
    runner = web.AppRunner(app, handle_signals=False, access_log=None, handler_cancellation=True,
                           shutdown_timeout=2.0)
    await runner.setup()
    site = web.TCPSite(runner, BIND_HOST, port, backlog=128)
    try:
        await site.start()
    except OSError:
        await runner.cleanup()
        raise
    bound_port = int(runner.addresses[0][1])
    url = f"http://{BIND_HOST}:{bound_port}"
    companion = Companion(app, runner, url, bound_port, token, vault, info_path(vault) if write_info else None)
    app[api.CONFIG_KEY].info.update({"url": url, "pid": os.getpid()})
    if write_info:
        try:
            atomic_write_text(info_path(vault), json.dumps(companion.info()) + "\n", mode=0o600)
        except OSError as exc:  # a read-only vault is still served: only the index is written, in the cache
            log.warning("cannot write %s (%s): clients that look for it will not find this companion; "
                        "its address and token are printed instead", info_path(vault), exc.strerror or exc)
            companion.info_file = None
        except BaseException:
            await runner.cleanup()
            raise
    return companion


def serve_forever(engine: Engine, settings: Settings, *, port: int = 0, index: bool = True,
                  watch: bool = True, force: bool = False, out: IO[str] | None = None,
                  json_line: bool = True, extra_origins: Sequence[str] = ()) -> int:
    """``cognivault serve``: print one line, serve until SIGINT/SIGTERM, clean up.

    :func:`warm_up` starts as soon as the server listens. The line is the companion.json document
    (``json_line``: for programs, printed at once, as editors wait for it with a timeout) or the
    dashboard link for a person (:meth:`Companion.dashboard_link`), printed once the warm-up is
    done, so a first question finds the models loaded. ``extra_origins`` are the exact origins (an
    editor's webview host) accepted besides loopback's.
    """
    out = out or sys.stdout

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(signum, stop.set)
        companion = await start_companion(engine, settings, port=port, force=force, extra_origins=extra_origins)
        try:
            warming = api.spawn(companion.app, _warm_up_then_pace_collections(companion.app))
            if json_line:
                out.write(json.dumps(companion.info()) + "\n")
            else:
                sys.stderr.write("CogniVault: loading the models and the index...\n")
                await warming
                out.write(f"CogniVault dashboard: {companion.dashboard_link()}  (Ctrl+C stops the server)\n")
                api.live_of(companion.app).events = TerminalEvents()
            out.flush()
            if engine.store.writable:
                _start_writing(companion.app, engine, index=index, watch=watch)
            else:
                api.spawn(companion.app, _follow_other_writer(companion.app, engine, watch=watch))
            await stop.wait()
        finally:
            engine.stop_indexing()
            await companion.stop()

    asyncio.run(main())
    return 0


class TerminalEvents(LiveEvents):
    """``serve`` for a person: an index pass shows its progress line on the terminal, as ``cognivault
    index`` does (a first pass over a large vault takes minutes; search answers from what is read)."""

    async def pass_starting(self) -> Callable[[Progress], None] | None:
        return ProgressLine(sys.stderr.isatty())


async def warm_up(app: web.Application) -> None:
    """Load what the first question waits for (models, indexes, the chat provider), off the event loop.

    The server already answers meanwhile; ``serve`` prints its line after this, so a question sent
    as soon as the line appears finds everything loaded.
    """
    from cognivault.companion import answering
    from cognivault.warmup import warm_answering, warm_index_pass

    async def resolve_chat_provider() -> None:
        try:
            await answering.provider_of(app)
            answering.sessions_of(app)
        except Exception as exc:  # noqa: BLE001 - the first ask reports it properly
            log.info("warm-up could not resolve the chat provider: %s", exc)

    engine = app[api.ENGINE_KEY]
    await asyncio.gather(api.run_in_background(app, warm_answering, engine),
                         api.run_in_background(app, warm_index_pass, engine), resolve_chat_provider())


async def _warm_up_then_pace_collections(app: web.Application) -> None:
    """:func:`warm_up`, then full garbage collections only between requests: what the warm-up loaded
    is frozen (``cognivault.collector``); the pass that starts with the link no longer sets off a
    full collection inside the first answers."""
    await warm_up(app)
    app[api.COLLECTOR_KEY].start()


def _start_writing(app: web.Application, engine: Engine, *, index: bool, watch: bool) -> None:
    """This process writes the index: watch the vault, then bring the index up to date.

    The watcher starts first, so a note saved during the pass is not missed; its update
    waits for the pass (the live vault's one writer thread runs them in turn).
    """
    if watch:
        api.spawn(app, watch_vault(app, engine))
    live = api.live_of(app)
    if index:
        api.spawn(app, live.index_vault())
    else:
        live.state.phase = "ready"


async def _follow_other_writer(app: web.Application, engine: Engine, *, watch: bool) -> None:
    """Read-only (another process, e.g. the editor's language server, writes the index): reload its
    changes, and once that process has gone (closed, or killed), become the writer and index."""
    if await api.live_of(app).follow_other_writer():
        _start_writing(app, engine, index=True, watch=watch)


async def watch_vault(app: web.Application, engine: Engine, watcher: VaultWatcher | None = None) -> None:
    """Keep the index current with the vault's files on disk until cancelled (the app's shutdown):
    :meth:`LiveVault.follow_disk`. ``/api/status`` says ``watching: true`` once changes are being seen."""
    config = app[api.CONFIG_KEY]

    def ready(mode: str) -> None:
        config.watching = True

    try:
        await api.live_of(app).follow_disk(watcher or VaultWatcher(engine.vault, engine.store.folder), ready)
    finally:
        config.watching = False
