"""CLI commands of the companion package: ``serve``, ``import-url`` and ``audit``.

Registered through ``cognivault.cli.FEATURE_COMMANDS``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cognivault.config import Settings
    from cognivault.engine import Engine
    from cognivault.models.base import EmbeddingProvider


def _user_error(message: str) -> Exception:
    from cognivault.cli import UserError

    return UserError(message)


def _settings(args: argparse.Namespace) -> tuple[Path, Settings]:
    from cognivault.cli import vault_folder
    from cognivault.config import ConfigError, load_settings

    vault = vault_folder(args.vault)
    try:
        return vault, load_settings(vault)
    except ConfigError as exc:
        raise _user_error(str(exc)) from exc


def _engine(args: argparse.Namespace, vault: Path, settings: Settings, writable: bool,
            embedder: EmbeddingProvider | str | None = "auto") -> Engine:
    from cognivault.engine import Engine, EngineError

    try:
        return Engine(vault, settings, embedder=embedder, writable=writable)
    except EngineError as exc:
        raise _user_error(str(exc)) from exc


def cmd_serve(args: argparse.Namespace) -> int:
    from cognivault.companion.runner import CompanionRunning, serve_forever

    if not 0 <= args.port <= 65535:
        raise _user_error(f"--port {args.port}: use 0 (any free port) or 1-65535")
    from cognivault.companion.security import parse_origin

    try:
        origins = [parse_origin(value) for value in args.allow_origin]
    except ValueError as exc:
        raise _user_error(f"--allow-origin: {exc}") from exc
    vault, settings = _settings(args)
    engine = _engine(args, vault, settings, writable=True, embedder=None if args.keyword_only else "auto")
    try:
        # Programs that start serve read its first line through a pipe: they keep getting JSON.
        return serve_forever(engine, settings, port=args.port, index=not args.no_index,
                             watch=not args.no_watch, force=args.force, extra_origins=origins,
                             json_line=args.json or not sys.stdout.isatty())
    except CompanionRunning as exc:
        raise _user_error(str(exc)) from exc
    except OSError as exc:
        raise _user_error(f"cannot listen on 127.0.0.1:{args.port}: {exc.strerror or exc}") from exc
    finally:
        engine.close()


def cmd_import_url(args: argparse.Namespace) -> int:
    from cognivault import urlimport

    vault, settings = _settings(args)
    try:
        result = urlimport.import_url(vault, args.url, folder=args.folder, settings=settings)
    except (urlimport.ImportRefused, urlimport.ImportFailed) as exc:
        raise _user_error(exc.message) from exc
    if args.json:
        json.dump(result.to_dict(), sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        print(f"saved {result.final_url} as {result.path}")
    return 0


def cmd_audit(args: argparse.Namespace) -> int:
    from cognivault.audit import vault_audit

    vault, settings = _settings(args)
    engine = _engine(args, vault, settings, writable=False, embedder=None)
    try:
        report = vault_audit(engine, settings)
    finally:
        engine.close()
    if args.json:
        json.dump(report, sys.stdout, ensure_ascii=False, indent=2, default=str)
        sys.stdout.write("\n")
        return 0
    model = report["model"]
    print(f"model host: {model['ollama_host']} ({'loopback' if model['host_is_loopback'] else 'NOT loopback'})")
    light = "zero external connections" if report["zero_external"] else \
        f"{report['non_loopback_peers']} external peers, {report['non_loopback_listeners']} external listeners"
    print(f"sockets: {len(report['sockets'])}; {light}")
    for entry in report["sockets"]:
        print(f"  {entry['type']} {entry['local']} -> {entry['peer'] or '-'} {entry['status']} {entry['note']}")
    index = report["index"]
    print(f"index: {index['documents']} documents, {index['chunks']} chunks")
    imports = report["url_import"]
    print(f"url import: {'on' if imports['enabled'] else 'off'}; last used {imports.get('last_used') or 'never'}")
    return 0


def register(command: Callable[..., argparse.ArgumentParser]) -> None:
    serve = command("serve", cmd_serve, "run the localhost companion HTTP server (dashboard, Obsidian, webviews); on a "
                    "terminal it prints a dashboard link that opens once, else (or with --json) one JSON "
                    "line: url, token, pid, vault")
    serve.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default 0: any free port)")
    serve.add_argument("--no-index", action="store_true", help="do not update the index on start")
    serve.add_argument("--no-watch", action="store_true",
                       help="do not follow notes changed on disk (default: the index follows them while "
                            "this process writes it; otherwise only Re-index updates it)")
    serve.add_argument("--keyword-only", action="store_true", help="no embedding model: keyword search only")
    serve.add_argument("--allow-origin", action="append", default=[], metavar="ORIGIN",
                       help="also accept requests from this exact origin (the page of a browser-hosted "
                            "editor, e.g. http://127.0.0.1:8080); repeatable")
    serve.add_argument("--force", action="store_true",
                       help="start even if companion.json names another live companion")

    importer = command("import-url", cmd_import_url,
                       "save a web page as a note (off unless url_import.enabled; public hosts only)")
    importer.add_argument("url", help="the page's http(s) address")
    importer.add_argument("--folder", help="vault folder for the note (default: Imported)")

    command("audit", cmd_audit, "vault audit: model host, this process's sockets, external connections")
