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
    """The vault-relative path of ``uri``, or None when it lies outside the vault (``..`` included)."""
    fs = uri_to_fs(uri)
    if fs is None:
        return None
    fs = Path(posixpath.normpath(fs.as_posix()))
    try:
        return fs.relative_to(vault).as_posix()
    except ValueError:
        pass
    try:
        return fs.resolve().relative_to(vault).as_posix()
    except (OSError, ValueError):
        return None


def vault_uri(vault: Path, path: str) -> str:
    return fs_to_uri(vault / path)
