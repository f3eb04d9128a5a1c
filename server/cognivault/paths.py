"""Where CogniVault keeps things: the rebuildable index in the user cache, user data in the vault.

The index of a vault lives in ``$XDG_CACHE_HOME/cognivault/vaults/<name>-<hash>/``
(named from the vault's absolute path) unless ``index.index_dir`` says
otherwise; it never lands inside the synced vault by default. Study progress,
sessions and per-vault settings live in ``<vault>/.cognivault/``.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import platformdirs

from cognivault.config import Settings

DATA_DIR_NAME = ".cognivault"


def user_cache_root() -> Path:
    return Path(platformdirs.user_cache_dir("cognivault", appauthor=False))


def index_dir_for(vault: Path, settings: Settings) -> Path:
    """The folder holding the catalog, FAISS and BM25 files of ``vault``."""
    if settings.index.index_dir:
        configured = Path(settings.index.index_dir).expanduser()
        return configured if configured.is_absolute() else (vault / configured)
    absolute = vault.resolve()
    digest = hashlib.sha256(str(absolute).encode("utf-8")).hexdigest()[:12]
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", absolute.name)[:40] or "vault"
    return user_cache_root() / "vaults" / f"{name}-{digest}"


def vault_data_dir(vault: Path) -> Path:
    """``<vault>/.cognivault/``: user data that belongs with the vault (progress, sessions, prompts)."""
    return vault / DATA_DIR_NAME
