"""The live vault (``cognivault.live``), the one service the language server and the companion keep
their index current with: an unsaved buffer is searchable once its debounced update ran and the
file is the truth again once the buffer is dropped; a watcher's batch is read on the writer thread
and a change one file cannot settle runs a whole pass; the index pass gives way to requests.

A real engine on real files, keyword-only (no model); waits bound a hang only.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path

from cognivault.config import load_settings
from cognivault.engine import Engine
from cognivault.live import LiveEvents, LiveVault

WAIT_S = 60.0  # bounds a hang only


def _vault(root: Path) -> Path:
    vault = root / "vault"
    vault.mkdir()
    (vault / "Cells.md").write_text("# Cells\n\nMitochondria make ATP for the cell.\n", "utf-8")
    return vault


class _Buffers(LiveEvents):
    """An editor with unsaved buffers; records the updates the live vault reports."""

    def __init__(self) -> None:
        self.texts: dict[str, str] = {}
        self.updated: list[str] = []
        self.passes: list[str] = []

    def unsaved_text(self, path: str) -> str | None:
        return self.texts.get(path)

    def file_updated(self, path: str, updates: object) -> None:
        self.updated.append(path)

    def pass_finished(self, summary: str, first: bool) -> None:
        self.passes.append(summary)


async def _until(condition, what: str) -> None:  # type: ignore[no-untyped-def]
    started = time.monotonic()
    while not condition():
        assert time.monotonic() - started < WAIT_S, f"never: {what}"
        await asyncio.sleep(0.02)


def _paths(engine: Engine, query: str) -> set[str]:
    return {r.path for r in engine.search(query, mode="lexical").results}


@contextlib.asynccontextmanager
async def _indexed_with_buffers(tmp_path: Path) -> AsyncIterator[tuple[_Buffers, LiveVault, Engine]]:
    """A live vault with an editor's buffers, its first pass done (updates run without debounce)."""
    vault = _vault(tmp_path)
    events = _Buffers()
    live = LiveVault(events, debounce_ms=0)
    with Engine(vault, load_settings(vault), embedder=None) as engine:
        live.attach(engine)
        await live.index_vault()
        yield events, live, engine
        await live.stop()
        live.close()


async def test_an_unsaved_buffer_is_indexed_and_the_file_again_once_it_is_dropped(tmp_path: Path) -> None:
    async with _indexed_with_buffers(tmp_path) as (events, live, engine):
        assert live.state.phase == "ready" and len(events.passes) == 1
        events.texts["Cells.md"] = "# Cells\n\nRibosomes, typed but not saved.\n"
        live.buffer_changed("Cells.md")
        assert live.unsaved_paths() == ["Cells.md"] and not live.updates_idle
        await _until(lambda: live.updates_idle and events.updated, "the buffer's update")
        assert _paths(engine, "ribosomes") == {"Cells.md"} and not _paths(engine, "mitochondria")
        assert live.snapshots.get(engine, live.indexing).notes["Cells.md"].title == "Cells"
        live.buffer_dropped("Cells.md")
        assert live.unsaved_paths() == []
        await _until(lambda: live.updates_idle and len(events.updated) == 2, "the file's update")
        assert _paths(engine, "mitochondria") == {"Cells.md"} and not _paths(engine, "ribosomes")


async def test_a_batch_is_read_on_the_writer_thread_and_an_attachment_runs_a_whole_pass(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    live = LiveVault()
    with Engine(vault, load_settings(vault), embedder=None) as engine:
        live.attach(engine)
        await live.index_vault()
        (vault / "New.md").write_text("# New\n\nA quorbelline note.\n", "utf-8")
        (vault / "Cells.md").unlink()
        updates = await live.update_files(["New.md", "Cells.md"])
        assert updates is not None and (updates.updated, updates.removed) == (["New.md"], ["Cells.md"])
        assert _paths(engine, "quorbelline") == {"New.md"}
        (vault / "Prices.csv").write_text("item,price\nflurbonite,3\n", "utf-8")
        updates = await live.update_files(["Prices.csv"])
        assert updates is not None and updates.whole_pass_needed
        assert _paths(engine, "flurbonite") == {"Prices.csv"}  # the pass ran before update_files returned
        await live.stop()
        live.close()
        assert await live.update_files(["New.md"]) is None  # closed: nothing is written


async def test_the_index_pass_waits_between_files_while_a_request_runs(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    for n in range(5):
        (vault / f"Note {n}.md").write_text(f"# Note {n}\n\nText {n}.\n", "utf-8")
    live = LiveVault()
    pauses: list[bool] = []
    real_wait = live.gate.wait_quiet

    def recording_wait(timeout: float) -> bool:
        quiet = real_wait(timeout)
        pauses.append(quiet)
        return quiet

    live.gate.wait_quiet = recording_wait  # type: ignore[method-assign]
    with Engine(vault, load_settings(vault), embedder=None) as engine:
        live.attach(engine)
        request_done = threading.Event()

        def request() -> None:
            with live.request():
                request_done.wait(WAIT_S)

        holder = threading.Thread(target=request)
        holder.start()
        try:
            await live.index_vault()
        finally:
            request_done.set()
            holder.join()
        # Every file of the pass waited for the request (which outlived it), at most 50 ms each.
        assert len(pauses) >= 6 and not any(pauses)
        await live.index_vault()
        assert pauses[-1] is True  # quiet: no wait
        live.close()


async def test_an_update_whose_buffer_changed_again_before_it_ran_is_dropped(tmp_path: Path) -> None:
    async with _indexed_with_buffers(tmp_path) as (events, live, engine):
        reads: list[str] = []
        real_read = engine.read_files

        def recording_read(paths, texts=None):  # type: ignore[no-untyped-def]
            reads.append((texts or {}).get("Cells.md", ""))
            return real_read(paths, texts=texts)

        engine.read_files = recording_read  # type: ignore[method-assign]
        writer_free = threading.Event()
        busy = asyncio.ensure_future(live.run_writer(writer_free.wait, WAIT_S))  # the writer is busy ...
        events.texts["Cells.md"] = "# Cells\n\nRibosomes, typed.\n"
        live.buffer_changed("Cells.md")
        await _until(lambda: live._update_jobs == 1, "the first update waiting for the writer")
        events.texts["Cells.md"] = "# Cells\n\nRibosomes and lysosomes, typed on.\n"  # ... when the user types on
        live.buffer_changed("Cells.md")
        writer_free.set()
        await busy
        await _until(lambda: live.updates_idle and events.updated, "the newer text's update")
        assert reads == ["# Cells\n\nRibosomes and lysosomes, typed on.\n"]  # the older text was never read
        assert events.updated == ["Cells.md"] and _paths(engine, "lysosomes") == {"Cells.md"}


async def test_an_update_whose_buffer_changed_while_it_was_read_is_not_stored(tmp_path: Path) -> None:
    async with _indexed_with_buffers(tmp_path) as (events, live, engine):
        loop = asyncio.get_running_loop()
        steps: list[str] = []
        real_yield = live.yield_to_requests

        async def type_on() -> None:
            events.texts["Cells.md"] = "# Cells\n\nRibosomes and lysosomes, typed on.\n"
            live.buffer_changed("Cells.md")

        def yield_then_type_on() -> None:
            real_yield()
            steps.append("pause")
            if len(steps) == 2:  # the update began (1), read the note and is about to store it (2)
                asyncio.run_coroutine_threadsafe(type_on(), loop).result(WAIT_S)

        live.yield_to_requests = yield_then_type_on  # type: ignore[method-assign]
        events.texts["Cells.md"] = "# Cells\n\nRibosomes, typed.\n"
        live.buffer_changed("Cells.md")
        await _until(lambda: live.updates_idle and events.updated, "the newer text's update")
        assert len(steps) > 2  # the newer text's update ran after the first one was left
        assert events.updated == ["Cells.md"]  # the older text was read but neither stored nor reported
        assert _paths(engine, "lysosomes") == {"Cells.md"}
