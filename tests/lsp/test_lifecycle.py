"""Lifecycle: progress, requests during indexing, unsaved edits, saves, watched files, shutdown."""

from __future__ import annotations

import asyncio
import shutil
import sys
import threading
from pathlib import Path

import pytest
from harness import client_capabilities, plain, position_of, start_session, stop_session
from lsprotocol import types

from cognivault.lsp.paragraph_vectors import vectors_of
from cognivault.lsp.server import CogniVaultServer

REPO = Path(__file__).resolve().parents[2]


def _hover_text(hover: types.Hover | None) -> str:
    assert hover is not None
    contents = hover.contents
    return contents.value if isinstance(contents, types.MarkupContent) else str(contents)


async def test_progress_then_saves_and_watched_files_update_the_index(fresh) -> None:
    reports = fresh.client.progress_reports
    assert len(reports) == 1, reports
    (events,) = reports.values()
    kinds = [event.kind for event in events]
    assert kinds[0] == "begin" and kinds[-1] == "end"
    assert "report" in kinds
    report = next(e for e in events if e.kind == "report" and e.message.startswith("reading"))
    assert "/5" in report.message  # files done / total and the current file
    assert "indexed" in events[-1].message
    registrations = getattr(fresh.client, "registrations", [])
    assert any(r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES for r in registrations)
    status = await fresh.status()
    assert status["indexing"]["phase"] == "ready"
    assert status["index"]["files"]["indexed"] == 5
    assert status["index"]["consistency"]["agree"]

    # A new note written by another program: the watcher event indexes it and the link heals.
    (fresh.vault / "Nonexistent Note.md").write_text("# Nonexistent Note\n\nNow it exists, about osmosis.\n", "utf-8")
    fresh.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=fresh.uri("Nonexistent Note.md"), type=types.FileChangeType.Created)]))
    fresh.open("Index.md")
    await fresh.diagnostics("Index.md", lambda found: found and not any("Nonexistent" in d.message for d in found))
    # Saved edit: didSave re-reads the file.
    cells = fresh.text("Cells.md") + "\nOsmosis moves water across the membrane, a saved change.\n"
    fresh.open("Cells.md")
    fresh.replace_all("Cells.md", cells, 2)
    (fresh.vault / "Cells.md").write_text(cells, "utf-8")
    fresh.client.text_document_did_save(types.DidSaveTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=fresh.uri("Cells.md"))))
    await asyncio.sleep(0.1)
    status = await fresh.wait_idle()
    assert "Cells.md" not in status["server"]["unsavedDocuments"]
    results = plain(await fresh.request("cognivault/search", {"query": "saved change osmosis", "mode": "lexical"}))
    assert {r["path"] for r in results["results"]} >= {"Cells.md"}
    # A deleted note leaves the index.
    (fresh.vault / "Biology/Enzymes.md").unlink()
    fresh.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=fresh.uri("Biology/Enzymes.md"), type=types.FileChangeType.Deleted)]))
    await asyncio.sleep(0.1)
    status = await fresh.wait_idle()
    assert status["index"]["files"]["indexed"] == 5  # 5 notes + the new one - the deleted one
    assert status["index"]["consistency"]["agree"]


async def test_a_folder_moved_in_or_out_is_followed_from_its_one_event(fresh, tmp_path: Path) -> None:
    # Editors report a moved folder as one event for the folder, none for the notes inside it.
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "Moved.md").write_text("# Moved\n\nA trellivane note that came with its folder.\n", "utf-8")
    shutil.move(outside, fresh.vault / "Moved in")
    fresh.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=fresh.uri("Moved in"), type=types.FileChangeType.Created)]))
    await asyncio.sleep(0.1)
    await fresh.wait_idle()
    results = plain(await fresh.request("cognivault/search", {"query": "trellivane", "mode": "lexical"}))
    assert [r["path"] for r in results["results"]] == ["Moved in/Moved.md"]
    shutil.move(fresh.vault / "Moved in", outside)
    fresh.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=fresh.uri("Moved in"), type=types.FileChangeType.Deleted)]))
    await asyncio.sleep(0.1)
    status = await fresh.wait_idle()
    results = plain(await fresh.request("cognivault/search", {"query": "trellivane", "mode": "lexical"}))
    assert results["results"] == [] and status["index"]["files"]["indexed"] == 5


async def test_requests_answered_while_indexing(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    shutil.copytree(Path(__file__).parent / "vault", vault)
    for number in range(150):  # enough notes that the first pass takes a while
        (vault / f"bulk/Note {number:03}.md").parent.mkdir(exist_ok=True)
        (vault / f"bulk/Note {number:03}.md").write_text(
            f"---\nlang: en\n---\n# Note {number}\n\nFiller about [[Photosynthesis]] and light number {number}.\n"
            + "More text so that the note becomes a chunk of its own with enough words. " * 3, "utf-8")
    session = await start_session(tmp_path, wait=False)
    try:
        text = session.text("Index.md")
        uri = session.open("Index.md")
        seen_indexing = False
        deadline = asyncio.get_running_loop().time() + 30
        while asyncio.get_running_loop().time() < deadline:
            status = await session.status()
            symbols = await session.client.text_document_document_symbol_async(types.DocumentSymbolParams(
                text_document=types.TextDocumentIdentifier(uri=uri)))
            assert symbols and symbols[0].name == "Study Index"
            if status["indexing"]["phase"] == "indexing":
                seen_indexing = True
                hover = await session.client.text_document_hover_async(types.HoverParams(
                    text_document=types.TextDocumentIdentifier(uri=uri),
                    position=position_of(text, "[[Photosynthesis]]", offset=3)))
                assert hover is not None  # answered (the target may not be indexed yet)
                break
            if status["indexing"]["phase"] == "ready":
                break
            await asyncio.sleep(0.01)
        assert seen_indexing, "the server never reported an indexing phase"
        status = await session.wait_ready()
        assert status["index"]["files"]["indexed"] == 155
    finally:
        await stop_session(session)


async def test_unsaved_edit_changes_hover_and_diagnostics(fresh) -> None:
    index_text = fresh.text("Index.md")
    uri = fresh.open("Index.md")
    await fresh.diagnostics("Index.md", lambda found: any("Nonexistent" in d.message for d in found))
    # Edit the target note without saving: its new first line shows up in the hover over a link to it.
    photo = fresh.text("Photosynthesis.md").replace("Photosynthesis turns light", "Freshly edited: it turns light")
    fresh.open("Photosynthesis.md")
    fresh.replace_all("Photosynthesis.md", photo, 2)
    # And fix the broken link in the open note itself.
    fixed = index_text.replace("[[Nonexistent Note]]", "[[Enzymes]]")
    fresh.replace_all("Index.md", fixed, 2)
    found = await fresh.diagnostics("Index.md", lambda found: not any("Nonexistent" in d.message for d in found))
    assert {d.code for d in found} == {"missing-heading", "missing-block"}
    hover = await fresh.client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        position=position_of(fixed, "[[Photosynthesis]]", offset=4)))
    assert "Freshly edited" in _hover_text(hover)
    # The unsaved text reached the index too (search finds it), the file on disk did not change.
    await fresh.wait_idle()
    results = plain(await fresh.request("cognivault/search", {"query": "freshly edited", "mode": "lexical"}))
    assert results["results"] and results["results"][0]["path"] == "Photosynthesis.md"
    assert "Freshly" not in fresh.text("Photosynthesis.md")
    # Closing without saving puts the file's text back into the index.
    fresh.client.text_document_did_close(types.DidCloseTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=fresh.uri("Photosynthesis.md"))))
    await asyncio.sleep(0.1)
    await fresh.wait_idle()
    results = plain(await fresh.request("cognivault/search", {"query": "freshly edited", "mode": "lexical"}))
    assert not any(r["path"] == "Photosynthesis.md" for r in results["results"])


async def test_shutdown_leaves_the_index_consistent(tmp_path: Path) -> None:
    session = await start_session(tmp_path)
    session.open("Index.md")
    text = session.text("Index.md") + "\nA last unsaved sentence about stomata before shutting down.\n"
    session.replace_all("Index.md", text, 2)
    await asyncio.sleep(0.2)
    await stop_session(session)
    code = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from cognivault.config import load_settings\n"
        "from cognivault.engine import Engine\n"
        f"settings = load_settings(Path({str(session.vault)!r}), "
        f"{{'index': {{'index_dir': {str(tmp_path / 'index')!r}}}}})\n"
        f"engine = Engine(Path({str(session.vault)!r}), settings, embedder=None, writable=False)\n"
        "print(json.dumps(engine.status(per_file=False)['consistency']))\n")
    process = await asyncio.create_subprocess_exec(sys.executable, "-c", code, stdout=asyncio.subprocess.PIPE,
                                                   env={**__import__("os").environ,
                                                        "PYTHONPATH": str(REPO / "server")})
    out, _ = await asyncio.wait_for(process.communicate(), 60)
    import json

    consistency = json.loads(out)
    assert consistency["agree"], consistency
    assert consistency["catalog_chunks"] == consistency["lexical_chunks"]


async def test_vault_from_initialization_options_and_progress_optional(tmp_path: Path) -> None:
    other = tmp_path / "elsewhere"
    other.mkdir()
    shutil.copytree(Path(__file__).parent / "vault", tmp_path / "vault")
    session = await start_session(tmp_path, options={"vault": str(tmp_path / "vault")},
                                  capabilities=client_capabilities(progress=False, watch=False))
    try:
        assert session.client.progress_reports == {}
        status = await session.status()
        assert status["vault"] == str((tmp_path / "vault").resolve())
        assert status["index"]["files"]["indexed"] == 5
        # A second server on the same vault and index (another editor): it reads, never writes.
        second = await start_session(tmp_path, options={"vault": str(tmp_path / "vault")})
        try:
            status = await second.status()
            assert status["indexing"]["phase"] == "read-only"
            assert status["index"]["files"]["indexed"] == 5 and not status["index"]["writable"]
            text = second.text("Index.md")
            hover = await second.client.text_document_hover_async(types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=second.uri("Index.md")),
                position=position_of(text, "[[Photosynthesis]]", offset=3)))
            assert "Photosynthesis turns light" in _hover_text(hover)
        finally:
            await stop_session(second)
    finally:
        await stop_session(session)


async def test_no_vault_is_an_error_not_a_dead_server(tmp_path: Path) -> None:
    session = await start_session(tmp_path, options={"vault": str(tmp_path / "missing")}, wait=False, copy=False)
    try:
        status = await session.status()
        assert status["indexing"]["phase"] == "failed"
        assert "not found" in status["error"]
        with pytest.raises(Exception, match="unavailable"):
            await session.request("cognivault/search", {"query": "light"})
        assert (await session.status())["indexing"]["phase"] == "failed"  # still answering
    finally:
        await stop_session(session)


async def test_cancel_request(tmp_path: Path) -> None:
    # Right after `initialized` the engine is still opening: requests wait for it, so a cancel
    # reaches them in flight.
    session = await start_session(tmp_path, wait=False)
    try:
        client = session.client
        futures = [asyncio.ensure_future(client.protocol.send_request_async(
            "cognivault/search", {"query": f"light energy chloroplast membrane {number}", "k": 50},
            msg_id=f"search-{number}")) for number in range(3)]
        await asyncio.sleep(0.05)  # the requests are on their way before the cancels
        for number in range(3):
            client.cancel_request(types.CancelParams(id=f"search-{number}"))
        outcomes = await asyncio.wait_for(asyncio.gather(*futures, return_exceptions=True), 20)
        assert all(isinstance(o, Exception) and "cancel" in str(o).lower() for o in outcomes), outcomes
        await session.wait_ready()
        answer = plain(await session.request("cognivault/search", {"query": "chloroplast"}))
        assert answer["results"]
    finally:
        await stop_session(session)


class _SlowEmbedder:
    """Embeds one paragraph at a time, each only when the test lets it finish."""

    model_id = "slow-test-model"

    def __init__(self) -> None:
        self.started = threading.Event()
        self.release = threading.Event()
        self.texts: list[str] = []

    def embed_query(self, text: str) -> list[float]:
        self.texts.append(text)
        self.started.set()
        assert self.release.wait(120)  # bounds a hang only
        return [1.0, 0.0]


def test_closing_the_server_stops_the_paragraph_thread() -> None:
    server = CogniVaultServer()
    vectors = vectors_of(server)
    embedder = _SlowEmbedder()
    running = vectors.embedding(embedder, "the paragraph being embedded")
    assert embedder.started.wait(10)
    (thread,) = [t for t in threading.enumerate() if t.name.startswith("cognivault-paragraph")]
    queued = vectors.embedding(embedder, "a paragraph waiting its turn")
    server.close_engine()
    # Whoever waits is answered at once (completion falls back to keywords); nothing new is taken on.
    # (The model is held until after these: waiting for it would end only at the hang bound.)
    assert running.result(timeout=60) is None and queued.result(timeout=60) is None
    assert vectors_of(server).embedding(embedder, "typed after closing").result(timeout=60) is None
    vectors_of(server).speculate("file:///vault/Note.md", lambda: (embedder, "typed after closing"))
    embedder.release.set()
    thread.join(10)
    assert not thread.is_alive()
    assert embedder.texts == ["the paragraph being embedded"]  # the queued job was dropped

