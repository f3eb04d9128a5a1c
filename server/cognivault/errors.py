"""The root of CogniVault's errors: a stable code and a one-line message the user can act on.

Every exception class of the project derives from :class:`CogniVaultError` (keeping the
built-in base it had, ``ValueError``, ``RuntimeError``..., so existing handlers still
match), except four private signals that never leave their module. Each class says its
``code``, the HTTP ``status`` and the CLI ``exit_code`` (2 for a mistake in what was
asked, 1 for a failure of the machine or a missing part). Every front end maps the root once: the CLI prints
``cognivault: <message>`` and exits with ``exit_code`` (``cli.main``), the companion
answers ``{"error": {"code", "message"}}`` with ``status`` (``security.error_middleware``),
the language server returns a JSON-RPC error, internal for ``exit_code`` 1, invalid params
otherwise (``CogniVaultServer.run_feature``). Nobody prints a traceback for one.
"""

from __future__ import annotations

import errno
import os
import signal


class CogniVaultError(Exception):
    """A problem the user can act on (a bad setting, a read-only vault, a full disk, a bad path)."""

    code: str = "error"
    status: int = 400  # the HTTP status the companion answers with
    exit_code: int = 2  # the CLI's: 2 for a mistake in what was asked, 1 for a failure of the machine

    def __init__(self, message: str = "", code: str | None = None, status: int | None = None,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        if status is not None:
            self.status = status
        self.headers = dict(headers or {})  # extra HTTP headers (Retry-After, Allow)

    def __str__(self) -> str:
        return self.message


def is_text(value: str) -> bool:
    """Whether ``value`` is real text: no lone surrogate (bytes that were not UTF-8, smuggled in by
    ``surrogateescape``, or a ``\\ud800`` escape in JSON), which no encoder takes."""
    return not any(0xD800 <= ord(ch) <= 0xDFFF for ch in value)


def display_path(path: object) -> str:
    """``path`` as printable text: bytes that are not UTF-8 (a file name from another system) show as \ufffd."""
    text = os.fspath(path) if isinstance(path, os.PathLike) else str(path)
    if isinstance(text, bytes):
        return text.decode("utf-8", "replace")
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except UnicodeEncodeError:  # a surrogate that stands for no byte
        return text.encode("utf-8", "replace").decode("utf-8")


def describe_os_error(exc: OSError, doing: str) -> CogniVaultError:
    """A user's one-line account of an OS error met while ``doing`` something (``"write the note"``)."""
    error = _os_error(exc, doing)
    error.exit_code = 1
    return error


def _os_error(exc: OSError, doing: str) -> CogniVaultError:
    where = f" {display_path(exc.filename)}" if exc.filename else ""
    if exc.errno == errno.ENOSPC or exc.errno == errno.EDQUOT:
        return CogniVaultError(f"cannot {doing}: the disk is full{where and ' at' + where}", "disk_full", 507)
    if exc.errno == errno.EROFS:
        return CogniVaultError(f"cannot {doing}: the file system is read-only{where and ' at' + where}",
                               "read_only", 409)
    if isinstance(exc, PermissionError):
        return CogniVaultError(f"cannot {doing}: permission denied{where and ' on' + where}", "permission_denied",
                               403)
    return CogniVaultError(f"cannot {doing}: {exc.strerror or exc}{where and ' (' + where.strip() + ')'}",
                           "os_error", 500)


# Why a child ended, by signal, for people: the OOM killer sends SIGKILL, a CPU lacking an
# instruction the build uses gives SIGILL, a failed assertion in llama.cpp aborts.
_SIGNAL_CAUSES = {
    signal.SIGKILL: "killed, often because memory ran out",
    signal.SIGILL: "an instruction this CPU lacks",
    signal.SIGABRT: "aborted",
}


def crash_cause(exitcode: int | None) -> str:
    """How a child that ended with ``exitcode`` (negative: the signal) ended: "signal 11", "exit code 1"."""
    if exitcode is None:
        return "no reply"
    if exitcode >= 0:
        return f"exit code {exitcode}"
    number = -exitcode
    try:
        cause = _SIGNAL_CAUSES.get(signal.Signals(number))
    except ValueError:
        cause = None
    return f"signal {number}: {cause}" if cause else f"signal {number}"
