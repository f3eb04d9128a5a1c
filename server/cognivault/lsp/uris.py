"""``file://`` URIs to vault paths and back.

Editors percent-encode spaces and non-ASCII characters (``Start%20here.md``,
``Gr%C3%BC%C3%9Fe.md``); vault paths are plain, vault-relative POSIX strings.
"""

from __future__ import annotations

import posixpath
from pathlib import Path
from urllib.parse import unquote, urlparse


def uri_to_fs(uri: str) -> Path | None:
    """The file system path of a ``file:`` URI (None for other schemes)."""
    try:
        parsed = urlparse(uri)
    except (TypeError, ValueError):
        return None
    if parsed.scheme != "file":
        return None
    path = unquote(parsed.path)
    if parsed.netloc and parsed.netloc != "localhost":
        path = f"//{parsed.netloc}{path}"
    return Path(path)


def fs_to_uri(path: Path) -> str:
    return Path(path).absolute().as_uri()


def relative_path(vault: Path, uri: str) -> str | None:
    """The vault-relative path of ``uri``, or None when it lies outside the vault.

    Outside means where the file really is: ``..`` and symbolic links are resolved before the check,
    so a note reached through an in-vault link to a folder elsewhere (``shared -> ../outside``) is
    outside, as the CLI and the companion see it (:func:`cognivault.vault.guard.inside_vault`).
    """
    fs = uri_to_fs(uri)
    if fs is None:
        return None
    fs = Path(posixpath.normpath(fs.as_posix()))
    try:
        root = vault.resolve()
        resolved = fs.resolve()
    except (OSError, RuntimeError):  # a link loop
        return None
    if not resolved.is_relative_to(root):
        return None
    for base in (vault, root):
        try:
            return fs.relative_to(base).as_posix()
        except ValueError:
            pass
    return resolved.relative_to(root).as_posix()


def vault_uri(vault: Path, path: str) -> str:
    return fs_to_uri(vault / path)
