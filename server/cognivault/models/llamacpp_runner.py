"""The llama.cpp model runtime in a process of its own, so a crashing model never takes CogniVault down.

llama.cpp is native code: a build for the wrong CPU (llama.cpp's AMX matrix code segfaults on
Intel Xeons), a broken GGUF file or too little memory ends the process it runs in. Like Ollama's
runners, every loaded model therefore lives in a child process (one per model file and context
size), started on first use, reused by the next request, and stopped after
:data:`IDLE_S` without work or when CogniVault exits. ``serve``, the language server and the
CLI never load ``libllama`` themselves.

A request goes down a pipe; the child streams the reply back one piece of text at a time and
checks the pipe at every token, so a cancelled answer stops generating at once (a child that
does not stop within :data:`STOP_GRACE_S`, e.g. while reading a long prompt, is killed). A child
that dies mid-reply (a signal, the out-of-memory killer, an abort) ends that reply with a
:class:`ChatError` ``model_crashed`` in plain words ("the local model crashed (signal 11); see
`cognivault doctor`"); the next request starts a fresh child.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import threading
import time
from collections.abc import Iterator
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from cognivault.child_process import ChildProcess
from cognivault.errors import crash_cause
from cognivault.extras import install_hint
from cognivault.models.chat import ChatChunk, ChatError, ChatUsage
from cognivault.models.llamacpp_build import explain_crash

IDLE_S = 300.0  # an unused model's memory is given back after this long
STOP_GRACE_S = 2.0  # a cancelled reply gets this long to stop before its child is killed
POLL_S = 0.1
PROBE_TIMEOUT_S = 120.0  # loading a large model from a cold disk
PROBE_CONTEXT = 512
OPENMP_WAIT_ENV = "OMP_WAIT_POLICY"


class ModelCrashed(ChatError):
    """The model's child process died (``exitcode``: negative for the signal, None when unknown)."""

    def __init__(self, exitcode: int | None) -> None:
        super().__init__("model_crashed", f"the local model crashed ({crash_cause(exitcode)}); "
                                          "see `cognivault doctor`")
        self.exitcode = exitcode


# -- the child -----------------------------------------------------------------------------------


def _serve_model(connection: Connection, path: str, n_ctx: int, n_threads: int) -> None:
    """The child's whole life: load the model, then answer ``("generate", kwargs)`` until told to go."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C in a terminal is the parent's to handle
    os.dup2(2, 1)  # the parent's stdout may carry a protocol (the language server's JSON-RPC): output goes to stderr
    # llama.cpp's OpenMP threads spin while they wait: on 2 cores busy with other work (the indexer's embedder
    # beside an answer) that cost most of the speed (bench_llamacpp_runtime.py). A user's own setting wins.
    os.environ.setdefault(OPENMP_WAIT_ENV, "passive")
    try:
        import llama_cpp
    except ImportError:
        connection.send(("unavailable", f"llama-cpp-python is not installed ({install_hint('llamacpp')})"))
        return
    try:
        model = llama_cpp.Llama(model_path=path, n_ctx=n_ctx, n_threads=n_threads, verbose=False)
    except Exception as exc:  # noqa: BLE001 - llama.cpp raises ValueError/RuntimeError on bad files
        connection.send(("unavailable", f"cannot load the GGUF model {Path(path).name}: {exc}"))
        return
    connection.send(("ready", llama_cpp.llama_print_system_info().decode("utf-8", "replace").strip()))
    while True:
        try:
            message = connection.recv()
        except EOFError:  # the parent is gone
            return
        if message is None:
            return
        if message[0] == "generate" and not _generate(model, connection, message[1]):
            return


def _generate(model: Any, connection: Connection, kwargs: dict[str, Any]) -> bool:
    """Stream one reply down ``connection``; False when the parent is gone or asked the child to exit."""
    started = time.perf_counter()
    count = 0
    reason = "stop"
    try:
        for part in model.create_chat_completion(**kwargs):
            if connection.poll():  # the parent only writes mid-reply to stop it (or to end the child)
                try:
                    message = connection.recv()
                except EOFError:
                    return False
                if message is None:
                    return False
                reason = "cancelled"
                break
            choice = (part.get("choices") or [{}])[0]
            content = (choice.get("delta") or {}).get("content")
            if content:
                count += 1
                connection.send(("text", content))
            if choice.get("finish_reason"):
                reason = str(choice["finish_reason"])
        connection.send(("done", {"completion_tokens": count, "done_reason": reason,
                                  "total_ms": (time.perf_counter() - started) * 1000}))
    except (BrokenPipeError, EOFError):
        return False
    except Exception as exc:  # noqa: BLE001 - any llama.cpp failure becomes a clean error
        connection.send(("error", f"llama.cpp failed ({type(exc).__name__}: {exc})"))
    return True


# -- the parent ----------------------------------------------------------------------------------


class ModelRunner:
    """One GGUF model in its own child process; :meth:`generate` runs one request at a time."""

    def __init__(self, path: Path, n_ctx: int, *, idle_s: float = IDLE_S) -> None:
        self.path = path
        self.n_ctx = n_ctx
        self.idle_s = idle_s
        self.system_info = ""  # llama.cpp's build features, as the child reported them
        self._child: ChildProcess | None = None
        self._lock = threading.Lock()  # one request at a time; held for the whole reply
        self._idle_timer: threading.Timer | None = None
        self._retired = False

    @property
    def pid(self) -> int | None:
        """The child's process id while it runs."""
        child = self._child
        return child.process.pid if child is not None and child.alive else None

    def generate(self, kwargs: dict[str, Any], stop: threading.Event,
                 load_timeout_s: float | None = None) -> Iterator[ChatChunk]:
        """Stream the reply to ``create_chat_completion(**kwargs)``: ``text`` chunks, then ``done``.

        Blocking (run it in a thread). Setting ``stop`` ends the reply early with a ``done`` of
        reason ``cancelled``. Raises :class:`ChatError`: ``model_unavailable`` (cannot load),
        :class:`ModelCrashed` (the child died), ``model_error`` (llama.cpp raised).
        """
        with self._lock:
            self._cancel_idle_timer()
            try:
                connection = self._started(stop, load_timeout_s)
                if connection is None:
                    return
                connection.send(("generate", kwargs))
                yield from self._reply(connection, stop)
            finally:
                if self._retired:
                    self._shutdown()
                else:
                    self._arm_idle_timer()

    def retire(self) -> None:
        """Stop the child now if it is idle, else right after its current reply."""
        self._retired = True
        if self._lock.acquire(blocking=False):
            try:
                self._shutdown()
            finally:
                self._lock.release()

    def close(self) -> None:
        """Stop the child, waiting for a reply in progress to end."""
        with self._lock:
            self._shutdown()

    def _started(self, stop: threading.Event, timeout_s: float | None) -> Connection | None:
        """The running child's pipe, starting a child (and loading the model) when there is none."""
        if self._child is not None and self._child.alive:
            return self._child.connection
        self._shutdown()
        child = self._child = ChildProcess.start(
            _serve_model, (str(self.path), self.n_ctx, max(1, min(4, os.cpu_count() or 1))), "cognivault-llamacpp")
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        waited = child.wait(POLL_S, stop, deadline)
        if waited == "stopped":
            self._shutdown()
            return None
        if waited == "ended":
            raise self._crashed()
        if waited == "late":
            self._shutdown()
            raise ChatError("model_timeout", f"{self.path.name} did not load within {timeout_s:g} s")
        parent = child.connection
        try:
            kind, value = parent.recv()
        except (EOFError, OSError):
            raise self._crashed() from None
        if kind != "ready":
            self._shutdown()
            raise ChatError("model_unavailable", str(value))
        self.system_info = str(value)
        return parent

    def _reply(self, connection: Connection, stop: threading.Event) -> Iterator[ChatChunk]:
        stop_sent_at: float | None = None
        while True:
            if stop.is_set() and stop_sent_at is None:
                stop_sent_at = time.monotonic()
                with contextlib.suppress(OSError):
                    connection.send(("stop",))
            if stop_sent_at is not None and time.monotonic() - stop_sent_at > STOP_GRACE_S:
                self._shutdown()  # busy reading a long prompt: the next request starts a fresh child
                return
            if not connection.poll(POLL_S):
                if self._child is None or not self._child.alive:
                    raise self._crashed()
                continue
            try:
                kind, value = connection.recv()
            except (EOFError, OSError):
                raise self._crashed() from None
            if kind == "text":
                if stop_sent_at is None:
                    yield ChatChunk("text", value)
            elif kind == "done":
                yield ChatChunk("done", usage=ChatUsage(**value))
                return
            else:
                raise ChatError("model_error", str(value))

    def _crashed(self) -> ModelCrashed:
        exitcode = self._child.exitcode() if self._child is not None else None
        self._shutdown()
        return ModelCrashed(exitcode)

    def _shutdown(self) -> None:
        """Ask the child to exit, kill it if it does not, and forget it (the caller holds the lock)."""
        child, self._child = self._child, None
        if child is not None:
            child.stop()

    def _arm_idle_timer(self) -> None:
        timer = threading.Timer(self.idle_s, self._stop_if_idle)
        timer.daemon = True
        timer.start()
        self._idle_timer = timer

    def _cancel_idle_timer(self) -> None:
        if self._idle_timer is not None:
            self._idle_timer.cancel()
            self._idle_timer = None

    def _stop_if_idle(self) -> None:
        if self._lock.acquire(blocking=False):  # a request in progress re-arms the timer when it ends
            try:
                self._shutdown()
            finally:
                self._lock.release()


def probe(path: Path, timeout_s: float = PROBE_TIMEOUT_S) -> dict[str, Any]:
    """For ``cognivault doctor``: load ``path`` in a child and make one token; what happened, and the fix.

    ``{"probe": "works (...)", "build": ...}`` or ``{"probe": "crashes here (signal 11)", "why": ...,
    "fix": ...}`` (or ``"fails: ..."`` for a model that does not load).
    """
    runner = ModelRunner(path, PROBE_CONTEXT)
    stop = threading.Event()
    deadline = threading.Timer(timeout_s, stop.set)
    deadline.daemon = True
    started = time.monotonic()
    request = {"messages": [{"role": "user", "content": "Hi"}], "max_tokens": 1, "stream": True,
               "temperature": 0.0}
    deadline.start()
    try:
        finished = any(chunk.kind == "done" for chunk in runner.generate(request, stop, load_timeout_s=timeout_s))
    except ModelCrashed as exc:
        why, fix = explain_crash(exc.exitcode, runner.system_info)
        return {"probe": f"crashes here ({crash_cause(exc.exitcode)})", "why": why, "fix": fix,
                "build": runner.system_info or "-"}
    except ChatError as exc:
        return {"probe": f"fails: {exc.message}"}
    finally:
        deadline.cancel()
        runner.close()
    if not finished:
        return {"probe": f"no token within {timeout_s:g} s", "build": runner.system_info}
    return {"probe": f"works (a token in {time.monotonic() - started:.1f} s)", "build": runner.system_info}


_runners: dict[tuple[str, int], ModelRunner] = {}
_runners_lock = threading.Lock()


def runner_for(path: Path, n_ctx: int) -> ModelRunner:
    """The runner of this model file and context size; other models' children are stopped (one in memory)."""
    key = (str(path.resolve()), n_ctx)
    with _runners_lock:
        runner = _runners.get(key)
        if runner is None:
            for other in _runners.values():
                other.retire()
            _runners.clear()
            runner = _runners[key] = ModelRunner(path, n_ctx)
        return runner


@atexit.register
def _stop_all() -> None:
    with _runners_lock:
        for runner in _runners.values():
            runner.retire()
