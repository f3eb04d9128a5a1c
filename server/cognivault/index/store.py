"""One vault's index on disk: the catalog, the FAISS file and the BM25 folder, kept in agreement.

The catalog is the truth; FAISS and BM25 are loaded when their stamps match
it and rebuilt from it otherwise, so a crash, a kill -9 or a corrupt derived
file costs a rebuild, never data. Only one process writes an index at a time
(``writer.lock`` held with ``flock``, released by the OS if the process dies,
so a stale lock cannot block anyone); others open it read-only and take over
writing once that process has gone.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import shutil
import sqlite3
import threading
from pathlib import Path

from cognivault.errors import CogniVaultError
from cognivault.index.catalog import Catalog
from cognivault.index.dense import DenseIndex
from cognivault.index.lexical import CorruptIndex, LexicalIndex

log = logging.getLogger(__name__)

CATALOG_FILE = "catalog.sqlite3"
LEXICAL_DIR = "lexical"


class IndexBusy(CogniVaultError, RuntimeError):
    """Another process holds the writer lock of this index."""

    code = "index_busy"
    status = 409
    exit_code = 1


class WriterLock:
    def __init__(self, folder: Path) -> None:
        self.path = folder / "writer.lock"
        self._fd: int | None = None

    def acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = self.holder() or "?"
            os.close(fd)
            raise IndexBusy(f"another CogniVault process (pid {holder}) is writing this index; "
                            "it will pick up your changes, or try again when it is done") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode("ascii"), 0)
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, 0)
            os.close(self._fd)
            self._fd = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def holder(self) -> str:
        """The pid written by the last writer ("" once it released the lock; a dead writer's stays)."""
        try:
            return self.path.read_text("ascii", "replace").strip()
        except OSError:
            return ""


def _move_aside(path: Path) -> Path:
    target = path.with_name(path.name + ".corrupt")
    if target.is_dir():
        shutil.rmtree(target)
    elif target.exists():
        target.unlink()
    path.rename(target)
    return target


class IndexStore:
    """The on-disk index of one vault, with in-memory FAISS and BM25 guarded by one lock."""

    def __init__(self, folder: Path, model_id: str, dimension: int, *, writable: bool = True) -> None:
        self.folder = folder
        self.model_id = model_id
        self.dimension = dimension
        self.lock = threading.RLock()
        self.writer = WriterLock(folder)
        self.messages: list[str] = []
        self.busy: str | None = None  # why this process only reads (names the writer's pid)
        self._wants_write = writable  # opened read-only on purpose: never takes over writing
        if writable:
            try:
                self.writer.acquire()
            except IndexBusy as exc:
                writable = False
                self.busy = str(exc)
        self.writable = writable
        folder.mkdir(parents=True, exist_ok=True)
        self.catalog = self._open_catalog(writable)
        self._readers = threading.local()
        self._reader_list: list[Catalog] = []
        self.lexical: LexicalIndex | None = None
        self._lexical_saved = -1  # the generation of the keyword index on disk
        self.dense: DenseIndex | None = None
        self.multilingual: DenseIndex | None = None  # the second meaning side, when on (index/multilingual.py)

    # -- opening ----------------------------------------------------------
    def _open_catalog(self, writable: bool) -> Catalog:
        path = self.folder / CATALOG_FILE
        if not writable and not path.exists():
            # Nothing to read yet: an empty in-memory catalog until the writer creates it.
            return Catalog(Path(":memory:"))
        try:
            catalog = Catalog(path, readonly=not writable)
            verdict = catalog.check_integrity()
            if verdict != "ok":
                catalog.close()
                raise sqlite3.DatabaseError(verdict)
            return catalog
        except sqlite3.DatabaseError as exc:
            if not writable:
                raise
            moved = _move_aside(path)
            for suffix in ("-wal", "-shm"):
                Path(str(path) + suffix).unlink(missing_ok=True)
            self.messages.append(f"the catalog was unreadable ({exc}); moved it to {moved.name} "
                                 "and started a fresh index")
            log.warning(self.messages[-1])
            return Catalog(path)

    def try_become_writer(self) -> bool:
        """Opened while another process wrote: become the writer once the lock is free (that process exited or died).

        Never blocks. ``flock`` decides who wins, so two processes cannot both become writers;
        this one starts writing only once it holds the lock. The catalog is then reopened
        writable (SQLite replays a dead writer's WAL); the caller runs an index pass next, which
        catches the in-memory indexes up and saves them. On any failure the lock is released and
        the store stays read-only, to try again later. True when this call made it the writer.
        """
        if self.writable or not self._wants_write:
            return False
        previous = self.writer.holder()
        try:
            self.writer.acquire()
        except IndexBusy as exc:
            self.busy = str(exc)
            return False
        except OSError as exc:
            log.warning("cannot take the writer lock of %s: %s", self.folder, exc)
            return False
        try:
            catalog = self._open_catalog(writable=True)
        except Exception:  # noqa: BLE001 - whatever failed, do not hold a lock nobody writes under
            self.writer.release()
            log.exception("taking over writing %s failed; staying read-only", self.folder)
            return False
        with self.lock:
            # Searches in flight may still use the read-only connection: closed with the store.
            self._reader_list.append(self.catalog)
            self.catalog = catalog
            self.writable = True
            self.busy = None
            self._lexical_saved = -1  # the dead writer may not have saved its last keyword index
            if self.dense is not None:
                self.dense.mark_unsaved()
        gone = f"the process that wrote this index (pid {previous})" if previous else "the index's writer"
        self.messages.append(f"{gone} has stopped; this process (pid {os.getpid()}) writes it now")
        log.warning(self.messages[-1])
        return True

    def reader(self) -> Catalog:
        """A read-only catalog connection of the calling thread's own.

        Searches read through it, so they never queue behind the writer's transactions on the
        shared connection (SQLite serialises the statements of one connection; WAL lets separate
        readers go on while the writer commits).
        """
        found: Catalog | None = getattr(self._readers, "catalog", None)
        if found is not None:
            return found
        path = self.folder / CATALOG_FILE
        if str(self.catalog.path) == ":memory:" or not path.exists():
            return self.catalog
        found = Catalog(path, readonly=True)
        self._readers.catalog = found
        with self.lock:
            self._reader_list.append(found)
        return found

    def load_derived(self) -> None:
        """Load BM25 and FAISS, rebuilding whichever is missing, stale or corrupt (moved aside)."""
        with self.lock:
            generation = self.catalog.generation()
            lexical_dir = self.folder / LEXICAL_DIR
            try:
                lexical = LexicalIndex.load(lexical_dir)
            except CorruptIndex as exc:
                lexical = None
                self._note_corrupt(lexical_dir, exc)
            if lexical is None or lexical.generation != generation:
                # Behind the catalog (a run or edits after the last save): catch up chunk by chunk.
                if lexical is None or not lexical.sync(self.catalog):
                    lexical = LexicalIndex.build(self.catalog, previous=lexical)
                if self.writable:
                    lexical.save(lexical_dir)
            self.lexical = lexical
            self._lexical_saved = lexical.generation
            dense_path = self.dense_path
            try:
                dense = DenseIndex.load(dense_path, self.model_id, self.dimension)
            except CorruptIndex as exc:
                dense = None
                self._note_corrupt(dense_path, exc)
            dense = dense or DenseIndex(self.model_id, self.dimension)
            added, removed = dense.reconcile(self.catalog)
            self.dense = dense
            if (added or removed) and self.writable:
                dense.save(dense_path, generation)

    def _note_corrupt(self, path: Path, error: Exception) -> None:
        if self.writable:
            moved = _move_aside(path)
            self.messages.append(f"{error}; moved it to {moved.name} and rebuilt it from the catalog")
        else:
            self.messages.append(f"{error}; rebuilt it in memory")
        log.warning(self.messages[-1])

    @property
    def dense_path(self) -> Path:
        safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in self.model_id)
        return self.folder / f"dense-{safe}.faiss"

    # -- derived index upkeep -------------------------------------------------
    def remove_vectors(self, chunk_ids: list[str]) -> None:
        """Forget the vectors of passages that changed or went, in every meaning side."""
        with self.lock:
            for side in (self.dense, self.multilingual):
                if side is not None:
                    side.remove(chunk_ids)

    def update_lexical(self, paths: set[str] | None = None, since: int | None = None) -> LexicalIndex:
        """Bring the keyword index up to date with the catalog, in place.

        ``paths`` changed since catalog generation ``since``: only their chunks are read again.
        Otherwise (or when the index is not at ``since``) every chunk is compared by digest; a
        full rebuild only happens when there is no index yet or the German compound lexicon moved.
        """
        lexical = self.lexical
        if lexical is not None and paths is not None and since is not None and lexical.generation == since:
            lexical.update_paths(self.catalog, paths)
        elif lexical is None or lexical.generation != self.catalog.generation():
            if lexical is None or not lexical.sync(self.catalog):
                lexical = LexicalIndex.build(self.catalog, previous=lexical)
                with self.lock:
                    self.lexical = lexical
        return lexical

    def save_lexical(self) -> None:
        """Persist the keyword index (a crash before this costs a catch-up on the next load)."""
        lexical = self.lexical
        if self.writable and lexical is not None and lexical.generation != self._lexical_saved:
            lexical.save(self.folder / LEXICAL_DIR)
            self._lexical_saved = lexical.generation

    def save_dense(self) -> None:
        """Persist the vector index when vectors were added or removed since it was last saved.

        Only the copy into memory holds the lock: a search waits for that, not for the disk.
        """
        dense = self.dense
        if not self.writable or dense is None:
            return
        with self.lock:
            if not dense.unsaved:
                return
            saved = dense.snapshot(self.catalog.generation())
        dense.write(saved, self.dense_path)

    def refresh_if_changed(self) -> bool:
        """For a read-only process: pick up the writer's changes. Returns True if anything reloaded."""
        if self.lexical is not None and self.lexical.generation == self.catalog.generation():
            return False
        self.update_lexical()
        with self.lock:
            for side in (self.dense, self.multilingual):
                if side is not None:
                    side.reconcile(self.catalog)
        return True

    def consistency(self) -> dict[str, object]:
        """Counts of chunks in the catalog, BM25 and FAISS, and whether they agree."""
        with self.lock:
            chunks = self.catalog.chunk_count()
            embedded = self.catalog.embedded_chunk_count(self.model_id)
            lexical_rows = len(self.lexical) if self.lexical is not None else 0
            dense_rows = len(self.dense) if self.dense is not None else 0
        return {
            "catalog_chunks": chunks,
            "lexical_chunks": lexical_rows,
            "embedded_chunks": embedded,
            "dense_vectors": dense_rows,
            "agree": chunks == lexical_rows and embedded == dense_rows,
        }

    def close(self) -> None:
        try:
            with self.lock:
                for reader in self._reader_list:
                    with contextlib.suppress(sqlite3.Error):
                        reader.close()
                self._reader_list.clear()
            self.catalog.close()
        finally:  # another process may take over writing only once the lock says it is free
            self.writer.release()
