"""The notes the language server's features read: open buffers, parsed off the event loop, and
files on disk, parsed once per (mtime, size).

An open document is parsed when a request needs more of it than its lines and aliases, or in
the background; a request about another document than the one being typed in uses its last parse
meanwhile (typing in a long note must not make hovers elsewhere wait). Files on disk the index
does not hold (an svg, a new note) are listed for link resolution by :class:`DiskNames`.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from cognivault.lsp.model import Document
from cognivault.lsp.positions import split_lines
from cognivault.lsp.uris import vault_uri

log = logging.getLogger(__name__)

DISK_CACHE_SIZE = 256


def parse_text(text: str, path: str) -> Any:
    from cognivault.vault.markdown import parse_note

    return parse_note(text, path)


class DiskDocuments:
    """Notes read from disk, parsed once per (mtime, size)."""

    def __init__(self, size: int = DISK_CACHE_SIZE) -> None:
        self._cache: OrderedDict[str, tuple[tuple[int, int], Document]] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()

    def get(self, vault: Path, path: str) -> Document | None:
        absolute = vault / path
        try:
            stat = absolute.stat()
            inside = absolute.resolve().is_relative_to(vault.resolve())
        except (OSError, RuntimeError):
            return None
        if not inside or not absolute.is_file() or not path.lower().endswith((".md", ".markdown")):
            return None  # a symlink out of the vault is not followed
        key = (stat.st_mtime_ns, stat.st_size)
        with self._lock:
            cached = self._cache.get(path)
            if cached is not None and cached[0] == key:
                self._cache.move_to_end(path)
                return cached[1]
        try:
            text = absolute.read_bytes().decode("utf-8", errors="replace")
        except OSError:
            return None
        doc = Document(vault_uri(vault, path), path, text, split_lines(text), None, parse_text, False)
        with self._lock:
            self._cache[path] = (key, doc)
            while len(self._cache) > self._size:
                self._cache.popitem(last=False)
        return doc


class DiskNames:
    """Every file on disk in the vault (also those the index skips), for links to them.

    Walking a large vault takes a while: after the first walk, requests use the last listing and a
    fresh one is made in the background when it is older than ``REFRESH_S`` or invalidated.
    """

    REFRESH_S = 10.0

    def __init__(self) -> None:
        self._resolver: Any = None
        self._built = 0.0
        self._lock = threading.Lock()
        self._walking = False

    def get(self, vault: Path) -> Any:
        with self._lock:
            resolver = self._resolver
            stale = time.monotonic() - self._built >= self.REFRESH_S
            walk_now = resolver is None and not self._walking
            walk_later = resolver is not None and stale and not self._walking
            if walk_now or walk_later:
                self._walking = True
        if walk_later:
            threading.Thread(target=self._walk, args=(vault,), name="cognivault-disk-names", daemon=True).start()
        if walk_now:
            return self._walk(vault)
        return resolver

    def _walk(self, vault: Path) -> Any:
        from cognivault.vault.links import LinkResolver
        from cognivault.vault.scan import ALWAYS_IGNORED_DIRS

        try:
            paths = []
            for dirpath, dirnames, filenames in os.walk(vault):
                dirnames[:] = [d for d in dirnames if d not in ALWAYS_IGNORED_DIRS and not d.startswith(".")]
                base = Path(dirpath).relative_to(vault).as_posix()
                for name in filenames:
                    paths.append(name if base == "." else f"{base}/{name}")
                if len(paths) > 200_000:
                    break
            resolver = LinkResolver(paths)
            with self._lock:
                self._resolver = resolver
                self._built = time.monotonic()
            return resolver
        finally:
            with self._lock:
                self._walking = False

    def invalidate(self) -> None:
        with self._lock:
            self._built = 0.0


class OpenDocuments:
    """The editor's open documents: the last parse of each, and the newest version of each, parsed
    when something needs it (once, whichever thread asks first)."""

    def __init__(self, pause: Callable[[], None]) -> None:
        self._pause = pause  # a background parse waits here while requests run
        self._parsed: dict[str, tuple[int | None, int, Document]] = {}
        self._newest: dict[str, tuple[int | None, int, Document]] = {}
        self._lock = threading.Lock()
        self._parsing: set[tuple[str, int | None]] = set()
        self._parser = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cognivault-parse")

    def get(self, uri: str, text: str, version: int | None, path: str,
            stale_ok: bool = False, parse_first: bool = False) -> Document | None:
        """The open document at ``version``, parsed when first needed (a request about the document
        being typed in often needs only its lines: link completion). With ``stale_ok`` the last parsed
        version will do while this one is parsed in the background (another document than the one a
        request is about: typing in a long note must not make hovers elsewhere wait for its parse).
        With nothing parsed yet that is None, unless ``parse_first``: then this version is returned."""
        key = hash(text)
        with self._lock:
            newest = self._newest.get(uri)
            if newest is not None and newest[2].parsed:  # parsed by a request meanwhile
                self._keep_parsed(uri, newest)
            cached = self._parsed.get(uri)
            if cached is not None and cached[0] == version and cached[1] == key:
                return cached[2]
            if newest is None or newest[:2] != (version, key):
                newest = self._newest[uri] = (version, key, Document(uri, path or None, text, split_lines(text),
                                                                     version, parse_text, True))
            doc = newest[2]
            if stale_ok and (cached is not None or not parse_first):
                if (uri, version) not in self._parsing:
                    self._parsing.add((uri, version))
                    self._parser.submit(self._parse_later, uri, newest)
                # Not parsed yet: the index's copy stands in meanwhile.
                return cached[2] if cached is not None else None
        return doc

    def parse_soon(self, uri: str, text: str, version: int | None, path: str) -> None:
        """Parse an open document in the background (on open: before the first request needs it)."""
        self.get(uri, text, version, path, stale_ok=True)

    def _keep_parsed(self, uri: str, entry: tuple[int | None, int, Document]) -> None:
        current = self._parsed.get(uri)
        version = entry[0]
        if current is None or current[0] is None or version is None or current[0] <= version:
            self._parsed[uri] = entry

    def _parse_later(self, uri: str, entry: tuple[int | None, int, Document]) -> None:
        self._pause()  # often asked for by a request that goes on meanwhile with the last parse
        try:
            entry[2].info()
            with self._lock:
                if uri in self._newest:  # not closed meanwhile
                    self._keep_parsed(uri, entry)
        except Exception:  # noqa: BLE001 - the next request parses it itself
            log.exception("parsing %s failed", uri)
        finally:
            with self._lock:
                self._parsing.discard((uri, entry[0]))

    def forget(self, uri: str) -> None:
        with self._lock:
            self._parsed.pop(uri, None)
            self._newest.pop(uri, None)

    def close(self) -> None:
        self._parser.shutdown(wait=False, cancel_futures=True)
