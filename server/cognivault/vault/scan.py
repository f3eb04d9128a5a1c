"""Finding the files of a vault that belong in the index.

Skips what Obsidian and git keep for themselves (``.obsidian/``, ``.trash/``,
``.git/``), CogniVault's own data folder, the index folder when the user put it
inside the vault, anything matched by ``.cognivaultignore`` (gitignore syntax),
and symlinks whose target lies outside the vault. A file or folder whose
name is not UTF-8, or a folder that cannot be read, is reported with its reason
rather than dropped in silence or stopping the scan.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

import pathspec

from cognivault.errors import CogniVaultError, display_path, is_text
from cognivault.vault.extractors import FORMATS

MARKDOWN_EXTENSIONS = frozenset({".md", ".markdown"})
ALWAYS_IGNORED_DIRS = frozenset({".obsidian", ".trash", ".git", ".cognivault", "node_modules"})
IGNORE_FILE = ".cognivaultignore"


@dataclass(frozen=True, slots=True)
class VaultFile:
    path: str  # vault-relative POSIX path
    absolute: Path
    kind: str  # "markdown" or the attachment format ("pdf", "image", "audio", ...)
    identity: tuple[int, int] | None = None  # (device, inode) of the file the scan saw


class FileSwapped(CogniVaultError, OSError):
    """The file at a vault path is no longer one the vault may read: a link or a special file put there
    since it was scanned, or it was being replaced while it was opened. An OSError too, so every reader
    that skips a file it cannot read skips this one."""

    code = "file_swapped"


@dataclass(frozen=True, slots=True)
class ScanProblem:
    """A file or folder the scan could not take, and why (shown to the user, never silently dropped)."""

    path: str  # vault-relative, printable (bytes that are not UTF-8 shown as \ufffd)
    kind: str  # "markdown", an attachment format, "folder" or "file"
    reason: str


@dataclass(slots=True)
class ScanResult:
    files: list[VaultFile]
    unsupported: int  # regular files of formats we do not read (svg, zip, ...)
    ignored: int  # files excluded by ignore rules or escaping symlinks
    problems: list[ScanProblem] = field(default_factory=list)
    unreadable_dirs: list[str] = field(default_factory=list)  # vault-relative folders that could not be listed


class VaultUnreadable(CogniVaultError):
    """The vault folder itself cannot be listed (permissions)."""

    code = "vault_unreadable"


LINK_LOOP = "it is a symbolic link that leads back to itself (or through too many links): fix or remove the link"
NOT_UTF8 = ("its name is not valid UTF-8 (it came from a system with another encoding); rename it to index it")


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


def _resolved(path: Path) -> Path | None:
    """Where ``path`` leads, or None for a symbolic link that loops (Python 3.11 raises RuntimeError for it,
    later versions OSError)."""
    try:
        return path.resolve()
    except (RuntimeError, OSError):
        return None


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
    if not is_text(path):
        return False  # scan_vault reports it
    absolute = vault / path
    try:
        resolved = absolute.resolve()
        if index_folder is not None and _inside(resolved, index_folder.resolve()):
            return False
        if not _inside(resolved, vault.resolve()):  # a link on the file or on a folder above it
            return False
    except OSError:
        return False
    return not (spec or load_ignore_spec(vault)).match_file(path)


def scan_vault(vault: Path, extra_ignored: tuple[Path, ...] = ()) -> ScanResult:
    """Walk ``vault`` and return the indexable files, sorted by path.

    What cannot be taken is listed in ``problems`` with a reason: a file or folder whose name
    is not UTF-8, a folder that cannot be listed (also in ``unreadable_dirs``, so that the
    index keeps what it knows from there). A vault that cannot be listed at all raises
    :class:`VaultUnreadable`.
    """
    root = vault.resolve()
    try:
        os.listdir(root)
    except PermissionError:
        raise VaultUnreadable(f"cannot read the vault folder {display_path(root)}: permission denied") from None
    spec = load_ignore_spec(root)
    ignored_roots = tuple(p.resolve() for p in extra_ignored)
    files: list[VaultFile] = []
    unsupported = ignored = 0
    result = ScanResult(files, 0, 0)

    def unreadable(error: OSError) -> None:
        relative = Path(error.filename).relative_to(root).as_posix() if error.filename else "?"
        result.unreadable_dirs.append(relative)
        result.problems.append(ScanProblem(display_path(relative), "folder",
                                           f"cannot read this folder: {error.strerror or error}; "
                                           "what is indexed from it is kept as it was"))

    for dirpath, dirnames, filenames in os.walk(root, onerror=unreadable, followlinks=False):
        current = Path(dirpath)
        kept_dirs = []
        for name in dirnames:
            child = current / name
            relative = child.relative_to(root).as_posix()
            if name in ALWAYS_IGNORED_DIRS or spec.match_file(relative + "/"):
                continue
            if not is_text(name):
                result.problems.append(ScanProblem(display_path(relative), "folder", NOT_UTF8))
                continue
            target = _resolved(child)
            if target is None:
                result.problems.append(ScanProblem(display_path(relative), "folder", LINK_LOOP))
                continue
            if any(_inside(target, r) for r in ignored_roots):
                continue
            if child.is_symlink():
                if not _inside(target, root):
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
            if not is_text(name):
                kind = file_kind(relative)
                if kind is not None:
                    result.problems.append(ScanProblem(display_path(relative), kind, NOT_UTF8))
                else:
                    unsupported += 1
                continue
            if spec.match_file(relative):
                ignored += 1
                continue
            if absolute.is_symlink():
                target = _resolved(absolute)
                if target is None:
                    kind = file_kind(relative)
                    if kind is not None:
                        result.problems.append(ScanProblem(display_path(relative), kind, LINK_LOOP))
                    continue
                if not _inside(target, root):
                    ignored += 1
                    continue
            if not absolute.is_file():
                continue
            kind = file_kind(relative)
            if kind is None:
                unsupported += 1
                continue
            try:
                seen = absolute.stat()
            except OSError:
                continue  # gone since it was listed
            files.append(VaultFile(relative, absolute, kind, (seen.st_dev, seen.st_ino)))
    files.sort(key=lambda f: f.path)
    result.unsupported, result.ignored = unsupported, ignored
    return result


def _open_below(root: Path, relative: tuple[str, ...]) -> int:
    """A descriptor of the file ``root/relative``, every name below ``root`` opened without following a
    link (a link put in place of a folder or of the file since it was checked makes this fail)."""
    nofollow = getattr(os, "O_NOFOLLOW", 0)
    folder = os.open(root, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        for name in relative[:-1]:
            inner = os.open(name, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | nofollow, dir_fd=folder)
            os.close(folder)
            folder = inner
        return os.open(relative[-1], os.O_RDONLY | nofollow | getattr(os, "O_NONBLOCK", 0), dir_fd=folder)
    finally:
        os.close(folder)


def open_vault_file(vault_file: VaultFile) -> BinaryIO:
    """The file the scan took, opened for reading, never through a link swapped in since.

    The scan checked each link; what is read here could be another file by now (a note flipped into a
    link to a secret outside the vault while the index runs). So the names are opened without following
    links: a file that is an in-vault link by scan's leave is opened at its target (checked again
    to be inside), and the file opened must be a regular file, the one the scan saw or one that replaced
    it at that name (a save by rename). :class:`FileSwapped` otherwise.
    """
    parts = vault_file.path.split("/")
    root = vault_file.absolute.parents[len(parts) - 1]
    target = vault_file.absolute
    if target.is_symlink():
        real_root, resolved = root.resolve(), _resolved(target)
        if resolved is None or not _inside(resolved, real_root):
            raise FileSwapped(f"{display_path(vault_file.path)} is now a symbolic link leading outside the vault")
        root, parts = real_root, list(resolved.relative_to(real_root).parts)
    try:
        fd = _open_below(root, tuple(parts))
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise FileSwapped(f"{display_path(vault_file.path)} or a folder above it became a symbolic link "
                              "while it was indexed") from None
        raise
    try:
        opened = os.fstat(fd)
        identity = (opened.st_dev, opened.st_ino)
        if not stat.S_ISREG(opened.st_mode):
            raise FileSwapped(f"{display_path(vault_file.path)} is no longer a regular file")
        if vault_file.identity is not None and identity != vault_file.identity:
            now = os.lstat(root.joinpath(*parts))
            if (now.st_dev, now.st_ino) != identity:  # replaced again while it was opened
                raise FileSwapped(f"{display_path(vault_file.path)} was being replaced while it was read")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
