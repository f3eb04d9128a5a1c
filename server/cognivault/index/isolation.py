"""Reading untrusted attachments in a separate process with time and memory limits.

A PDF that loops forever, an image that eats all memory or a library that
crashes takes down only the worker: that file is reported ``failed`` with the
reason and the next file gets a fresh worker. Results arrive in a queue so the
indexer keeps embedding while attachments are read. The same worker reads what
users hand the companion and the CLI (a recording to transcribe, a fetched web
page to convert: :meth:`IsolatedExtractor.run`), so ``serve`` never loads
FFmpeg, CTranslate2 or lxml into its own process.
"""

from __future__ import annotations

import os
import queue
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, TypeVar

from cognivault.child_process import ChildProcess
from cognivault.config import IndexSettings
from cognivault.errors import crash_cause
from cognivault.vault.extractors import ocr
from cognivault.vault.scan import FileSwapped, VaultFile, open_vault_file
from cognivault.vault.types import Extraction, ExtractionFailed, ExtractionSkipped

WORKER_MEMORY_BYTES = 3 * 1024**3
OPENMP_THREADS_ENV = "OMP_THREAD_LIMIT"
OUT_OF_MEMORY = "ran out of the memory allowed for one file"

Result = TypeVar("Result")


@dataclass(frozen=True, slots=True)
class _Call:
    """A task for the worker: ``function(*args)``, its value or its exception sent back as they are."""

    function: Callable[..., Any]
    args: tuple[Any, ...]


@dataclass(slots=True)
class AttachmentResult:
    path: str
    extraction: Extraction | None
    state: str  # indexed | skipped | failed
    reason: str | None
    seconds: float


def _limit_memory() -> None:
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (WORKER_MEMORY_BYTES, WORKER_MEMORY_BYTES))
    except (ImportError, ValueError, OSError):  # not on this platform: the time limit still holds
        pass


def _worker(connection: Connection, settings: IndexSettings, ocr_languages: dict[str, list[str]]) -> None:
    _limit_memory()
    # tesseract (started from here) parallelizes with OpenMP, whose idle threads spin: on 2 cores under
    # load 6 that cost 4x the CPU (23.8 s against 5.9 s for 8 help-vault images) and 3x the wall time of
    # one thread, taken from the embedder that runs beside this worker. A user's own setting wins.
    os.environ.setdefault(OPENMP_THREADS_ENV, "1")
    from cognivault.vault.extractors import extract_attachment

    ocr.remember_languages(ocr_languages)  # what the parent already asked tesseract (each run spawns anew)

    while True:
        try:
            task = connection.recv()
        except EOFError:
            return
        if task is None:
            return
        try:
            if isinstance(task, _Call):
                result: tuple[str, object] = ("ok", task.function(*task.args))
            else:
                result = ("ok", _read_scanned(task, settings) if isinstance(task, VaultFile)
                          else extract_attachment(Path(task), settings))
        except MemoryError:
            result = ("failed", OUT_OF_MEMORY)
        except Exception as exc:  # noqa: BLE001 - raised by a call: the caller gets it as it is
            if isinstance(task, _Call):
                result = ("raised", exc)
            else:
                result = _failure(exc)
        try:
            connection.send(result)
        except Exception as exc:  # noqa: BLE001 - a value or an exception that cannot be pickled
            connection.send(("failed", f"{type(exc).__name__}: {exc}"))


def _failure(exc: Exception) -> tuple[str, str]:
    """How a reader's exception marks its file: skipped (no reader here) or failed (with the reason)."""
    if isinstance(exc, ExtractionSkipped):
        return ("skipped", str(exc))
    if isinstance(exc, (ExtractionFailed, FileSwapped)):
        return ("failed", str(exc))
    return ("failed", f"{type(exc).__name__}: {exc}")  # any library error fails this file alone


def _read_scanned(vault_file: VaultFile, settings: IndexSettings) -> Extraction:
    """Extract a file of the vault as the scan took it, never through a link swapped in since: it is
    opened without following links (:func:`cognivault.vault.scan.open_vault_file`), and the readers
    (some run programs: tesseract, ffmpeg) get a name in a private folder that leads to that open file,
    whatever happens to the vault's name meanwhile (Linux: ``/proc/PID/fd``; elsewhere the name itself)."""
    from cognivault.vault.extractors import extract_attachment

    with open_vault_file(vault_file) as handle:
        opened = Path(f"/proc/{os.getpid()}/fd/{handle.fileno()}")
        if not opened.exists():
            return extract_attachment(vault_file.absolute, settings)
        with tempfile.TemporaryDirectory(prefix="cognivault-read-") as folder:
            alias = Path(folder) / f"file{vault_file.absolute.suffix}"  # the suffix picks the reader
            alias.symlink_to(opened)
            return extract_attachment(alias, settings)


class IsolatedExtractor:
    """Extract attachments one at a time in a worker process; results go to ``results``."""

    def __init__(self, settings: IndexSettings) -> None:
        self.settings = settings
        self.results: queue.Queue[AttachmentResult] = queue.Queue()
        self._child: ChildProcess | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    def _start_worker(self) -> ChildProcess:
        self._child = ChildProcess.start(_worker, (self.settings, ocr.known_languages()), "cognivault-extractor")
        return self._child

    def _kill_worker(self) -> None:
        child, self._child = self._child, None
        if child is not None:
            child.kill()

    def _ask(self, task: object) -> tuple[str, object]:
        """Send ``task`` to the worker (started when needed) and wait for ``(status, payload)``; a worker
        that crashes or goes over its time becomes ``("failed", why)`` and is replaced next time."""
        started = time.monotonic()
        child = self._child if self._child is not None and self._child.alive else self._start_worker()
        try:
            child.connection.send(task)
        except OSError:  # the worker died before it took the task
            return ("failed", self._crashed())
        waited = child.wait(0.2, self._stop, started + self.settings.extract_timeout_s)
        if waited == "stopped":
            self._kill_worker()
            return ("stopped", "indexing was stopped")
        if waited == "ended":
            return ("failed", self._crashed())
        if waited == "late":
            self._kill_worker()
            return ("failed", f"took longer than {self.settings.extract_timeout_s:g} s")
        try:
            answer: tuple[str, object] = child.connection.recv()
        except (EOFError, OSError):
            return ("failed", self._crashed())
        return answer

    def _crashed(self) -> str:
        """Why the worker ended (it is replaced by the next task): "the reader crashed (signal 11)"."""
        assert self._child is not None
        exitcode = self._child.exitcode()
        self._kill_worker()
        return f"the reader crashed ({crash_cause(exitcode)})"

    def _extract_one(self, relative: str, absolute: Path | VaultFile) -> AttachmentResult:
        started = time.monotonic()
        status, payload = self._ask(absolute if isinstance(absolute, VaultFile) else str(absolute))
        seconds = time.monotonic() - started
        if status == "ok":
            return AttachmentResult(relative, payload, "indexed", None, seconds)  # type: ignore[arg-type]
        if status == "stopped":
            return AttachmentResult(relative, None, "failed", str(payload), 0.0)
        return AttachmentResult(relative, None, status, str(payload), seconds)

    def extract(self, path: Path) -> Extraction:
        """Read one file now, in the worker (started when needed); ExtractionSkipped or ExtractionFailed
        with the reason when it cannot be read, over its limits included."""
        result = self._extract_one(path.name, path)
        if result.state == "indexed" and result.extraction is not None:
            return result.extraction
        if result.state == "skipped":
            raise ExtractionSkipped(result.reason or "skipped")
        raise ExtractionFailed(result.reason or "failed")

    def run(self, function: Callable[..., Result], *args: Any) -> Result:
        """``function(*args)`` in the worker, under its memory and time limits: its value, or the exception
        it raised; ExtractionFailed when the worker crashed, ran out of memory or time. ``function`` must
        be a module-level function and ``args`` picklable."""
        status, payload = self._ask(_Call(function, args))
        if status == "ok":
            return payload  # type: ignore[return-value]
        if status == "raised" and isinstance(payload, BaseException):
            raise payload
        raise ExtractionFailed(str(payload))

    def submit_all(self, files: Iterable[tuple[str, Path | VaultFile]]) -> int:
        """Start reading ``files`` (relative path, and the absolute path or the scanned file) in the
        background; returns the count."""
        tasks = list(files)

        def run() -> None:
            try:
                for relative, absolute in tasks:
                    if self._stop.is_set():
                        break
                    self.results.put(self._extract_one(relative, absolute))
            finally:
                self._shutdown_worker()

        if tasks:
            self._thread = threading.Thread(target=run, name="cognivault-attachments", daemon=True)
            self._thread.start()
        return len(tasks)

    def _shutdown_worker(self) -> None:
        child, self._child = self._child, None
        if child is not None:
            child.stop()

    def close(self) -> None:
        """End the worker of :meth:`extract` (a pass's worker ends with its files)."""
        self._shutdown_worker()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(10)
