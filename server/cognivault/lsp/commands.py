"""``cognivault lsp``: the language server over stdio, or ``--tcp HOST:PORT`` (loopback only).

Editors' language clients add their transport flag to the command line: vscode-languageclient
appends ``--stdio`` (accepted: stdio is what this server speaks), ``--pipe=NAME`` or
``--socket=PORT`` (refused with one line naming what works instead, exit 2).
"""

from __future__ import annotations

import argparse
import ipaddress
import logging
import os
import sys
from typing import Any


class _UsageError(Exception):
    pass


def parse_tcp(value: str) -> tuple[str, int]:
    """``HOST:PORT`` with a loopback host (``127.0.0.1``, ``::1``, ``[::1]:port``, ``localhost``)."""
    host, sep, port_text = value.rpartition(":")
    if not sep or not host:
        raise _UsageError(f"--tcp expects HOST:PORT, got {value!r}")
    host = host.strip("[]")
    try:
        port = int(port_text)
    except ValueError:
        raise _UsageError(f"--tcp: port must be a number, got {port_text!r}") from None
    if not 0 <= port <= 65535:
        raise _UsageError(f"--tcp: port out of range: {port}")
    if host == "localhost":
        return "127.0.0.1", port
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        raise _UsageError(f"--tcp: {host!r} is not a loopback address (use 127.0.0.1 or ::1)") from None
    if not address.is_loopback:
        raise _UsageError(f"--tcp: refusing to listen on {host}: the language server binds loopback only")
    return host, port


def cmd_lsp(args: argparse.Namespace) -> int:
    from cognivault.lsp.server import create_server

    level = os.environ.get("COGNIVAULT_LOG", "WARNING")
    logging.basicConfig(level=level, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s",
                        force=True)
    if args.pipe is not None or args.socket is not None:
        flag = "--pipe" if args.pipe is not None else "--socket"
        print(f"cognivault: lsp {flag} is not supported; use stdio (the default, or --stdio) "
              "or --tcp HOST:PORT", file=sys.stderr)
        return 2
    tcp = None
    if args.tcp:
        try:
            tcp = parse_tcp(args.tcp)
        except _UsageError as exc:
            print(f"cognivault: {exc}", file=sys.stderr)
            return 2
    vault = None
    if args.vault_given:
        from cognivault.cli import UserError, vault_folder

        try:
            vault = vault_folder(args.vault).resolve()
        except UserError as exc:
            print(f"cognivault: {exc}", file=sys.stderr)
            return 2
    # Background work (indexing, embedding) holds the GIL in long stretches: switch threads
    # more often so requests never wait long for the event loop.
    sys.setswitchinterval(0.001)
    server = create_server(vault)
    if tcp is not None:
        server.start_tcp(*tcp)
        return 0
    # The protocol owns the real stdout; anything else printed (a library, a stray print)
    # goes to stderr instead of corrupting the message stream.
    protocol_out = os.fdopen(os.dup(sys.stdout.fileno()), "wb", buffering=0)
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr
    server.start_io(sys.stdin.buffer, protocol_out)
    return 0


class _VaultGiven(argparse.Action):
    def __call__(self, parser: Any, namespace: argparse.Namespace, values: Any, option_string: Any = None) -> None:
        setattr(namespace, self.dest, values)
        namespace.vault_given = True


def register(command: Any) -> None:
    parser = command("lsp", cmd_lsp, "run the language server (stdio; --tcp HOST:PORT on loopback for debugging)")
    transport = parser.add_mutually_exclusive_group()
    transport.add_argument("--tcp", metavar="HOST:PORT", help="listen on a loopback TCP port instead of stdio")
    transport.add_argument("--stdio", action="store_true", help="talk over stdin/stdout (the default)")
    parser.add_argument("--pipe", metavar="NAME", help=argparse.SUPPRESS)  # refused with a message
    parser.add_argument("--socket", metavar="PORT", help=argparse.SUPPRESS)  # refused with a message
    parser.set_defaults(vault_given=False)
    for action in parser._actions:  # --vault is optional here: the workspace root is the default
        if "--vault" in action.option_strings:
            action.__class__ = _VaultGiven

