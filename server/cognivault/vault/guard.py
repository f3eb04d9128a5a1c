"""Keeping every path that a request, a command or a setting names inside the vault.

One guard for all of them: a note path in a companion request, a scope folder,
the folder generated notes go to (``study.folder``), the folder URL imports go
to (``url_import.folder``). Refused with :class:`VaultPathError` (code
``bad_path``): empty paths, control characters, absolute paths (``/x``,
``C:\\x``, ``\\\\server``, ``~``), any ``..`` segment (also behind layers of
percent-encoding or with backslashes), and, once the vault is known, anything
that resolves outside it through a symlink. Messages never show where the
vault is.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path, PurePosixPath
from urllib.parse import unquote

from cognivault.errors import CogniVaultError

_WINDOWS_DRIVE = re.compile(r"^[A-Za-z]:")


class VaultPathError(CogniVaultError):
    """A path that is empty, malformed, absolute or leads outside the vault."""

    code = "bad_path"


def clean_relative(raw: object, what: str = "path", *, allow_root: bool = False) -> str:
    """``raw`` as a clean vault-relative POSIX path ("" for the vault itself when ``allow_root``).

    The checks that need no vault: a setting is checked with this when it is read.
    """
    if not isinstance(raw, str):
        raise VaultPathError(f"{what} must be a string")
    text = raw
    for _ in range(4):  # undo stacked percent-encoding (%252e%252e -> %2e%2e -> ..)
        decoded = unquote(text)
        if decoded == text:
            break
        text = decoded
    else:
        raise VaultPathError(f"{what} is encoded too many times")
    text = unicodedata.normalize("NFC", text.strip())
    if any(ord(ch) < 32 or ch == "\x7f" or 0xD800 <= ord(ch) <= 0xDFFF for ch in text):
        raise VaultPathError(f"{what} contains control characters or bytes that are not text")
    if text.startswith(("/", "\\", "~")) or _WINDOWS_DRIVE.match(text):
        raise VaultPathError(f"{what} must be relative to the vault, not absolute")
    parts = [part for part in re.split(r"[\\/]+", text) if part not in ("", ".")]
    if any(part == ".." or part.strip(". ") == "" and ".." in part for part in parts):
        raise VaultPathError(f"{what} must stay inside the vault ('..' is not allowed)")
    relative = PurePosixPath(*parts).as_posix() if parts else ""
    if not relative and not allow_root:
        raise VaultPathError(f"{what} is empty")
    return relative


def inside_vault(vault: Path, raw: object, what: str = "path", *, allow_root: bool = False) -> str:
    """``raw`` as a clean vault-relative POSIX path that also stays inside ``vault`` through symlinks."""
    relative = clean_relative(raw, what, allow_root=allow_root)
    root = vault.resolve()
    try:
        resolved = (root / relative).resolve()
    except (OSError, RuntimeError):  # symlink loop
        raise VaultPathError(f"{what} cannot be resolved") from None
    if resolved != root and not resolved.is_relative_to(root):
        raise VaultPathError(f"{what} leads outside the vault")
    return relative
