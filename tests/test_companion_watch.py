"""``cognivault serve`` follows the vault on disk: notes created, edited, renamed and deleted outside
the editor reach ``/api/search`` within a bounded wait, without a Re-index.

The real command on a loopback port and real files, keyword-only (no model). Ignored
places (``.obsidian/``, ``.cognivaultignore``) stay out of the index; ``--no-watch``
turns following off; a companion that takes over writing from a writer that went
away starts watching; a batch whose update fails does not end the watching.
``Engine.read_files`` is also the live vault's per-file update (language server and companion):
unsaved buffers, the note graph patched around the writes, reshaped notes reported.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from answer_support import WordHashEmbedder
from cognivault.companion import api
from cognivault.companion.app import create_app
from cognivault.companion.runner import watch_vault
from cognivault.config import load_settings
from cognivault.engine import Engine
from cognivault.index import watch
from cognivault.index.watch import VaultWatcher
from processes import stop_process
from test_two_process import _http as _api  # an authorized JSON call to a running companion

WAIT_S = 60.0  # bounds a hang only: a batch is formed within 2.5 s of the first event on a quiet machine


def _vault(root: Path) -> Path:
    vault = root / "vault"
    (vault / "Biology").mkdir(parents=True)
    (vault / "Biology" / "Cells.md").write_text("# Cells\n\nMitochondria make ATP for the cell.\n", "utf-8")
    (vault / ".cognivaultignore").write_text("drafts/\n", "utf-8")
    return vault


@contextmanager
def _serve(vault: Path, *flags: str) -> Iterator[dict[str, Any]]:
    process = subprocess.Popen([sys.executable, "-m", "cognivault.cli", "serve", "--vault", str(vault),
                                "--keyword-only", "--port", "0", *flags],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line, process.stderr.read() if process.stderr else "serve printed nothing"
        yield json.loads(line)
    finally:
        stop_process(process, 15)
    # Reached when the test passed: the watcher let the process stop cleanly on SIGTERM.
    assert process.returncode == 0, process.stderr.read() if process.stderr else process.returncode
    assert not (vault / ".cognivault" / "companion.json").exists()


def _paths_for(info: dict[str, Any], word: str) -> set[str]:
    answer = _api(info, "POST", "/api/search", {"query": word, "mode": "lexical"})
    return {result["path"] for result in answer["results"]}


def _until(check: Callable[[], bool], what: str, timeout: float = WAIT_S) -> float:
    started = time.monotonic()
    while not check():
        if time.monotonic() - started > timeout:
            raise AssertionError(f"{what}: not within {timeout} s")
        time.sleep(0.1)
    return time.monotonic() - started


def _ready(info: dict[str, Any]) -> None:
    """Watching, and the first pass done (Cells.md searchable)."""
    _until(lambda: _api(info, "GET", "/api/status")["watching"] is True, "status says watching")
    _until(lambda: _paths_for(info, "mitochondria") == {"Biology/Cells.md"}, "the first pass")


def test_created_edited_renamed_and_deleted_notes_reach_search_without_reindex(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    with _serve(vault) as info:
        _ready(info)

        (vault / "Biology" / "Enzymes.md").write_text("# Enzymes\n\nEnzymes lower the zorbquil barrier.\n",
                                                       "utf-8")
        waited = _until(lambda: _paths_for(info, "zorbquil") == {"Biology/Enzymes.md"}, "a created note")
        assert waited < WAIT_S

        (vault / "Biology" / "Enzymes.md").write_text("# Enzymes\n\nEnzymes lower the plevnarth barrier.\n",
                                                       "utf-8")
        _until(lambda: _paths_for(info, "plevnarth") == {"Biology/Enzymes.md"}, "the edited text")
        assert _paths_for(info, "zorbquil") == set(), "the old text is still found"

        (vault / "Biology" / "Enzymes.md").rename(vault / "Catalysts.md")
        _until(lambda: _paths_for(info, "plevnarth") == {"Catalysts.md"}, "a renamed note under its new path")

        (vault / "Catalysts.md").unlink()
        _until(lambda: _paths_for(info, "plevnarth") == set(), "a deleted note leaving the results")
        assert _paths_for(info, "mitochondria") == {"Biology/Cells.md"}


def test_ignored_places_stay_out_while_watching(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    (vault / ".obsidian").mkdir()
    (vault / "drafts").mkdir()
    with _serve(vault) as info:
        _ready(info)
        (vault / ".obsidian" / "Workspace.md").write_text("# W\n\nquendrix in the app's folder\n", "utf-8")
        (vault / "drafts" / "Draft.md").write_text("# Draft\n\nquendrix in an ignored draft\n", "utf-8")
        (vault / ".cognivault" / "Notes.md").write_text("# Own\n\nquendrix in CogniVault's folder\n", "utf-8")
        # Written after the ignored files: once it is found, their batch has been handled too.
        (vault / "Sentinel.md").write_text("# Sentinel\n\nquendrix in a real note\n", "utf-8")
        _until(lambda: "Sentinel.md" in _paths_for(info, "quendrix"), "the sentinel note")
        assert _paths_for(info, "quendrix") == {"Sentinel.md"}

        # A rule added to .cognivaultignore takes effect on the notes it now covers.
        (vault / ".cognivaultignore").write_text("drafts/\nSentinel.md\n", "utf-8")
        _until(lambda: _paths_for(info, "quendrix") == set(), "a note newly ignored leaving the results")


def test_no_watch_leaves_changes_to_reindex(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    with _serve(vault, "--no-watch") as info:
        _until(lambda: _paths_for(info, "mitochondria") == {"Biology/Cells.md"}, "the first pass")
        assert _api(info, "GET", "/api/status")["watching"] is False
        (vault / "Unwatched.md").write_text("# Unwatched\n\nA trelvonic note.\n", "utf-8")
        time.sleep(4.0)  # longer than a watcher's burst (0.5 s quiet, 2 s at most) and its update
        assert _paths_for(info, "trelvonic") == set()
        assert _api(info, "POST", "/api/reindex", {}) == {"started": True}
        _until(lambda: _paths_for(info, "trelvonic") == {"Unwatched.md"}, "the note after Re-index")
        assert _api(info, "GET", "/api/status")["watching"] is False


def test_a_companion_that_takes_over_writing_starts_watching(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    writer = Engine(vault, load_settings(vault), embedder=None)
    try:
        writer.index()
        with _serve(vault) as info:
            status = _api(info, "GET", "/api/status")
            assert status["writable"] is False and status["watching"] is False
            writer.close()  # the writer goes away: the companion takes over within its 2 s follow interval
            _until(lambda: _api(info, "GET", "/api/status")["watching"] is True, "watching after the takeover")
            assert _api(info, "GET", "/api/status")["writable"] is True
            (vault / "After.md").write_text("# After\n\nA vostrelline note written after the takeover.\n", "utf-8")
            _until(lambda: _paths_for(info, "vostrelline") == {"After.md"}, "a note created after the takeover")
    finally:
        writer.close()


@pytest.mark.parametrize("force_polling", [False, True], ids=["notify", "polling"])
async def test_a_failed_update_is_logged_and_watching_goes_on(tmp_path: Path, force_polling: bool,
                                                              caplog: pytest.LogCaptureFixture) -> None:
    vault = _vault(tmp_path)
    engine = Engine(vault, load_settings(vault), embedder=None)
    engine.index()
    app = create_app(engine, load_settings(vault), "watch-test-token-" + "w" * 32, features=[])
    real_read = engine.read_files
    calls: list[set[str]] = []

    def read_failing_once(paths: list[str], **options: Any) -> object:
        calls.append(set(paths))
        if len(calls) == 1:
            raise OSError("disk trouble")
        return real_read(paths, **options)

    engine.read_files = read_failing_once  # type: ignore[method-assign]
    watcher = VaultWatcher(vault, engine.store.folder, force_polling=force_polling)
    task = asyncio.ensure_future(watch_vault(app, engine, watcher))
    try:
        started = time.monotonic()
        while not app[api.CONFIG_KEY].watching:
            assert time.monotonic() - started < WAIT_S, "the watcher never armed"
            await asyncio.sleep(0.05)
        assert watcher.mode == ("polling" if force_polling else "notify")
        (vault / "First.md").write_text("# First\n\nThe update of this one fails.\n", "utf-8")
        while not calls:
            assert time.monotonic() - started < 2 * WAIT_S, "no batch for the first note"
            await asyncio.sleep(0.05)
        (vault / "Second.md").write_text("# Second\n\nA glimmentor note.\n", "utf-8")
        while not engine.search("glimmentor", mode="lexical").results:
            assert time.monotonic() - started < 3 * WAIT_S, "watching stopped after a failed update"
            await asyncio.sleep(0.05)
        assert calls[0] == {"First.md"}
        assert "updating the index for 1 changed files failed" in caplog.text
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        assert app[api.CONFIG_KEY].watching is False
        app[api.WORKERS_KEY].shutdown(wait=True)
        engine.close()


def test_update_files_reads_notes_skips_touches_and_passes_over_attachments_and_folders(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    with Engine(vault, load_settings(vault), embedder=WordHashEmbedder()) as engine:
        engine.index()
        cells = vault / "Biology" / "Cells.md"
        cells.touch()
        assert engine.update_files(["Biology/Cells.md"]).updated == []  # same bytes: left alone

        (vault / "drafts").mkdir()
        (vault / "drafts" / "Draft.md").write_text("# Draft\n\nignored\n", "utf-8")
        cells.write_text("# Cells\n\nRibosomes build proteins.\n", "utf-8")
        updates = engine.update_files(["Biology/Cells.md", "drafts/Draft.md", "Gone.md"])
        assert (updates.updated, updates.removed, updates.full_pass) == (["Biology/Cells.md"], [], None)
        assert [r.path for r in engine.search("ribosomes", mode="lexical").results] == ["Biology/Cells.md"]
        assert engine.store.consistency()["agree"]  # the new passages embedded, the old vectors gone
        assert engine.search("ribosomes build proteins", mode="dense").results[0].path == "Biology/Cells.md"

        (vault / "Prices.csv").write_text("item,price\nflurbonite,3\n", "utf-8")
        updates = engine.update_files(["Prices.csv"])
        assert updates.full_pass is not None  # attachments are read in the isolated extractor of a pass
        assert [r.path for r in engine.search("flurbonite", mode="lexical").results] == ["Prices.csv"]

        (vault / "Biology").rename(vault / "Life")  # a folder moved: one event for the folder alone
        updates = engine.update_files(["Biology", "Life"])
        assert updates.full_pass is not None
        assert [r.path for r in engine.search("ribosomes", mode="lexical").results] == ["Life/Cells.md"]


class _RecordingView:
    """A live vault's side of the engine's writes (``Engine.live``): what read_files told it, and when."""

    def __init__(self) -> None:
        self.events: list[tuple[str, object]] = []

    @contextmanager
    def updating(self) -> Iterator[None]:
        self.events.append(("enter", None))
        yield
        self.events.append(("exit", None))

    def patch(self, engine: Engine, paths: set[str], before: int) -> None:
        assert engine.store.catalog.generation() > before  # called after the writes, with the old generation
        self.events.append(("patch", sorted(paths)))

    def pause(self) -> None:
        self.events.append(("pause", None))

    def outdated(self, path: str) -> bool:
        return False  # no newer change comes while these updates run


def test_read_files_indexes_unsaved_buffers_and_reports_reshaped_notes_to_the_live_vault(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    (vault / "Prices.csv").write_text("item,price\nflurbonite,3\n", "utf-8")
    with Engine(vault, load_settings(vault), embedder=None) as engine:
        engine.index()
        cells = (vault / "Biology" / "Cells.md").read_text("utf-8")
        view = engine.live = _RecordingView()
        # An unsaved buffer is indexed though the file's bytes did not change; same headings: not reshaped.
        buffer = cells + "\nZorbulent vesicles, typed but not saved.\n"
        updates = engine.read_files(["Biology/Cells.md"], texts={"Biology/Cells.md": buffer})
        assert (updates.updated, updates.reshaped, updates.removed) == (["Biology/Cells.md"], [], [])
        assert [e for e in view.events if e[0] != "pause"] == [
            ("enter", None), ("patch", ["Biology/Cells.md"]), ("exit", None)]
        assert ("pause", None) in view.events  # between the update's steps
        assert [r.path for r in engine.search("zorbulent", mode="lexical").results] == ["Biology/Cells.md"]
        # A new heading changes what other notes' links can reach.
        updates = engine.read_files(["Biology/Cells.md"], texts={"Biology/Cells.md": buffer + "## Vesicles\n"})
        assert updates.reshaped == ["Biology/Cells.md"]
        # The buffer outlives its file: still indexed from the buffer, not removed.
        (vault / "Biology" / "Cells.md").unlink()
        updates = engine.read_files(["Biology/Cells.md"], texts={"Biology/Cells.md": buffer})
        assert (updates.updated, updates.removed) == (["Biology/Cells.md"], [])
        # Without the buffer the deletion counts; a deleted attachment is forgotten without a whole pass.
        (vault / "Prices.csv").unlink()
        view = engine.live = _RecordingView()
        updates = engine.read_files(["Biology/Cells.md", "Prices.csv"])
        assert (sorted(updates.removed), updates.whole_pass_needed) == (["Biology/Cells.md", "Prices.csv"], False)
        assert ("patch", ["Biology/Cells.md", "Prices.csv"]) in view.events
        assert not engine.search("zorbulent", mode="lexical").results
        assert not engine.search("flurbonite", mode="lexical").results
        # read_files only tells its caller that a whole pass is needed.
        (vault / "Later.csv").write_text("item,price\nquendrite,4\n", "utf-8")
        updates = engine.read_files(["Later.csv"])
        assert (updates.whole_pass_needed, updates.full_pass) == (True, None)
        assert not engine.search("quendrite", mode="lexical").results


async def test_the_vault_is_polled_when_notifications_cannot_start(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    vault = _vault(tmp_path)
    real_awatch = watch.awatch

    def awatch_without_inotify(*paths: Any, force_polling: bool, **options: Any) -> Any:
        if not force_polling:
            raise OSError(28, "inotify watch limit reached")
        return real_awatch(*paths, force_polling=force_polling, **options)

    monkeypatch.setattr(watch, "awatch", awatch_without_inotify)
    watcher = VaultWatcher(vault)
    modes: list[str] = []
    batches = watcher.batches(on_ready=modes.append)
    first = asyncio.ensure_future(batches.__anext__())
    try:
        started = time.monotonic()
        while not modes:
            assert time.monotonic() - started < WAIT_S, "the polling watcher never armed"
            await asyncio.sleep(0.05)
        (vault / "Polled.md").write_text("# Polled\n", "utf-8")
        assert await asyncio.wait_for(first, WAIT_S) == {"Polled.md"}
        assert modes == ["polling"] and watcher.mode == "polling"
    finally:
        first.cancel()
        await asyncio.gather(first, return_exceptions=True)
        await batches.aclose()


def test_an_update_waits_between_its_steps_while_a_request_runs(tmp_path: Path) -> None:
    import threading

    from cognivault.threads import RequestGate

    vault = _vault(tmp_path)
    gate = RequestGate()
    steps: list[float] = []

    class HeldByTheRequest(_RecordingView):  # a live vault whose pause lasts as long as the request
        def pause(self) -> None:
            steps.append(time.monotonic())
            gate.wait_quiet(600.0)  # longer than any test: only the request's end lets the update go on

    with Engine(vault, load_settings(vault), embedder=WordHashEmbedder()) as engine:
        engine.index()
        engine.live = HeldByTheRequest()
        (vault / "Biology" / "Cells.md").write_text("# Cells\n\nRibosomes build proteins.\n", "utf-8")
        update = threading.Thread(target=engine.update_files, args=(["Biology/Cells.md"],))
        with gate.request():  # a request in flight: the update stops at its first step
            update.start()
            _until(lambda: len(steps) >= 1, "the update's first step")
            time.sleep(0.3)  # room for steps that would (wrongly) not wait
            assert len(steps) == 1 and update.is_alive()
            assert not engine.search("ribosomes", mode="lexical").results  # parsed, not stored yet
            request_done = time.monotonic()
        update.join(120)  # bounds a hang only
        assert not update.is_alive()
        # after parsing, before dropping the old vectors, after the note, before the keyword index
        assert len(steps) == 4 and steps[1] >= request_done
        assert [r.path for r in engine.search("ribosomes", mode="lexical").results] == ["Biology/Cells.md"]
        assert engine.store.consistency()["agree"]
