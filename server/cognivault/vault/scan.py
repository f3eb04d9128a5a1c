"""Finding the files of a vault that belong in the index.

Skips what Obsidian and git keep for themselves (``.obsidian/``, ``.trash/``,
``.git/``), CogniVault's own data folder, the index folder when the user put it
inside the vault, anything matched by ``.cognivaultignore`` (gitignore syntax),
and symlinks whose target lies outside the vault.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pathspec

from cognivault.vault.extractors import FORMATS

MARKDOWN_EXTENSIONS = frozenset({".md", ".markdown"})
ALWAYS_IGNORED_DIRS = frozenset({".obsidian", ".trash", ".git", ".cognivault", "node_modules"})
IGNORE_FILE = ".cognivaultignore"


@dataclass(frozen=True, slots=True)
class VaultFile:
    path: str  # vault-relative POSIX path
    absolute: Path
    kind: str  # "markdown" or the attachment format ("pdf", "image", "audio", ...)


@dataclass(slots=True)
class ScanResult:
    files: list[VaultFile]
    unsupported: int  # regular files of formats we do not read (svg, zip, ...)
    ignored: int  # files excluded by ignore rules or escaping symlinks


def file_kind(relative_path: str) -> str | None:
    """``"markdown"``, an attachment format, or None for formats we do not read."""
    suffix = os.path.splitext(relative_path)[1].lower()
    if suffix in MARKDOWN_EXTENSIONS:
        return "markdown"
    return FORMATS.get(suffix)


def load_ignore_spec(vault: Path) -> pathspec.GitIgnoreSpec:
    ignore_file = vault / IGNORE_FILE
    lines = ignore_file.read_text("utf-8", errors="replace").splitlines() if ignore_file.is_file() else []
    return pathspec.GitIgnoreSpec.from_lines(lines)


def _inside(path: Path, root: Path) -> bool:
    try:
        path.relative_to(root)
    except ValueError:
        return False
    return True


def is_indexable(vault: Path, path: str, index_folder: Path | None = None,
                 spec: pathspec.GitIgnoreSpec | None = None) -> bool:
    """Whether :func:`scan_vault` would index the vault-relative ``path`` (ignore rules, private
    folders, the index itself, symlinks leaving the vault), for callers that see one file at a time.

    ``spec``: the vault's ignore rules when the caller has them loaded (read from disk otherwise).
    """
    parts = path.split("/")
    if any(part in ALWAYS_IGNORED_DIRS for part in parts[:-1]) or parts[-1] == IGNORE_FILE:
        return False
    absolute = vault / path
    try:
        resolved = absolute.resolve()
        if index_folder is not None and _inside(resolved, index_folder.resolve()):
            return False
        if absolute.is_symlink() and not _inside(resolved, vault.resolve()):
            return False
    except OSError:
        return False
    return not (spec or load_ignore_spec(vault)).match_file(path)


def scan_vault(vault: Path, extra_ignored: tuple[Path, ...] = ()) -> ScanResult:
    """Walk ``vault`` and return the indexable files, sorted by path."""
    root = vault.resolve()
    spec = load_ignore_spec(root)
    ignored_roots = tuple(p.resolve() for p in extra_ignored)
    files: list[VaultFile] = []
    unsupported = ignored = 0
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        current = Path(dirpath)
        kept_dirs = []
        for name in dirnames:
            child = current / name
            relative = child.relative_to(root).as_posix()
            if name in ALWAYS_IGNORED_DIRS or spec.match_file(relative + "/"):
                continue
            if any(_inside(child.resolve(), r) for r in ignored_roots):
                continue
            if child.is_symlink():
                target = child.resolve()
                if not _inside(target, root) or any(_inside(target, r) for r in ignored_roots):
                    ignored += 1
                    continue
                # A symlinked folder inside the vault holds files already seen under their real path.
                continue
            kept_dirs.append(name)
        dirnames[:] = sorted(kept_dirs)
        for name in filenames:
            absolute = current / name
            relative = absolute.relative_to(root).as_posix()
            if name == IGNORE_FILE:
                continue
            if spec.match_file(relative):
                ignored += 1
                continue
            if absolute.is_symlink() and not _inside(absolute.resolve(), root):
                ignored += 1
                continue
            if not absolute.is_file():
                continue
            kind = file_kind(relative)
            if kind is None:
                unsupported += 1
                continue
            files.append(VaultFile(relative, absolute, kind))
    files.sort(key=lambda f: f.path)
    return ScanResult(files, unsupported, ignored)
