"""prepareRename + rename: a note's file and every link to it, or a heading and every link to it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from harness import position_of, start_session, stop_session
from lsprotocol import types
from pygls.workspace import TextDocument

pytestmark = pytest.mark.asyncio(loop_scope="module")


def apply_edit(vault: Path, edit: types.WorkspaceEdit) -> None:
    """Apply a WorkspaceEdit the way an editor does (text edits, then file operations, in order)."""
    from cognivault.lsp.uris import uri_to_fs

    for change in edit.document_changes or []:
        if isinstance(change, types.TextDocumentEdit):
            path = uri_to_fs(change.text_document.uri)
            document = TextDocument(change.text_document.uri, path.read_text("utf-8"))
            for text_edit in sorted(change.edits, key=lambda e: (e.range.start.line, e.range.start.character),
                                    reverse=True):
                document.apply_change(types.TextDocumentContentChangePartial(range=text_edit.range,
                                                                             text=text_edit.new_text))
            path.write_text(document.source, "utf-8")
        elif isinstance(change, types.RenameFile):
            uri_to_fs(change.old_uri).rename(uri_to_fs(change.new_uri))


async def _prepare(session, path: str, needle: str, offset: int):
    return await session.client.text_document_prepare_rename_async(types.PrepareRenameParams(
        text_document=types.TextDocumentIdentifier(uri=session.uri(path)),
        position=position_of(session.text(path), needle, offset=offset)))


async def _rename(session, path: str, needle: str, offset: int, new_name: str) -> types.WorkspaceEdit:
    return await session.client.text_document_rename_async(types.RenameParams(
        text_document=types.TextDocumentIdentifier(uri=session.uri(path)),
        position=position_of(session.text(path), needle, offset=offset), new_name=new_name))


@pytest.mark.parametrize("path, needle, offset, placeholder, covered", [
    ("Photosynthesis.md", "## Light reactions", 6, "Light reactions", "Light reactions"),
    ("Index.md", "[[Cells#Organelles]]", 3, "Cells", "Cells"),
    ("Index.md", "[[Cells#Organelles]]", 10, "Organelles", "Organelles"),
    ("Index.md", "[[Photosynthesis#Light reactions]]", 22, "Light reactions", "Light reactions"),
    ("Deutsch/Fotosynthese.md", "[Zellmembran](../Cells.md#Membrane)", 18, "Cells", "../Cells.md"),
])
async def test_prepare_rename(shared, path: str, needle: str, offset: int, placeholder: str, covered: str) -> None:
    found = await _prepare(shared, path, needle, offset)
    assert found.placeholder == placeholder
    line = shared.text(path).split("\n")[found.range.start.line]
    utf16 = line.encode("utf-16-le")
    assert utf16[found.range.start.character * 2:found.range.end.character * 2].decode("utf-16-le") == covered


async def test_prepare_rename_refuses_plain_text(shared) -> None:
    with pytest.raises(Exception, match="rename works on a heading"):
        await _prepare(shared, "Index.md", "Welcome to the vault", 3)


async def test_rename_note_then_heading_updates_every_linking_note(tmp_path: Path) -> None:
    # Its own server (it changes the vault), started inside the test: this module runs in one event loop.
    fresh = await start_session(tmp_path)
    try:
        await _rename_note_then_heading(fresh)
    finally:
        await stop_session(fresh)


async def _rename_note_then_heading(fresh) -> None:
    edit = await _rename(fresh, "Index.md", "[[Cells#Organelles]]", 3, "Cell biology")
    rename_ops = [c for c in edit.document_changes if isinstance(c, types.RenameFile)]
    assert len(rename_ops) == 1 and edit.document_changes[-1] is rename_ops[0]
    apply_edit(fresh.vault, edit)
    assert not (fresh.vault / "Cells.md").exists()
    assert (fresh.vault / "Cell biology.md").exists()
    index = fresh.text("Index.md")
    assert "[[Cell biology#Organelles]]" in index and "[[Cell biology#^mito]]" in index
    assert "![[Cell biology#Membrane]]" in index and "[[Cell biology#^nope]]" in index
    assert "[[Cell biology#Organelles]]" in fresh.text("Photosynthesis.md")
    german = fresh.text("Deutsch/Fotosynthese.md")
    assert "[[Cell biology#Organelles|Organellen]]" in german
    assert "[Zellmembran](../Cell%20biology.md#Membrane)" in german
    assert "Cells" not in index.replace("Cells#^nope", "")
    # The server follows the rename: links resolve again, nothing new is broken.
    fresh.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=fresh.uri("Cells.md"), type=types.FileChangeType.Deleted),
        types.FileEvent(uri=(fresh.vault / "Cell biology.md").as_uri(), type=types.FileChangeType.Created),
        *[types.FileEvent(uri=fresh.uri(p), type=types.FileChangeType.Changed)
          for p in ("Index.md", "Photosynthesis.md", "Deutsch/Fotosynthese.md")]]))
    await asyncio.sleep(0.2)
    await fresh.wait_idle()
    fresh.open("Deutsch/Fotosynthese.md")
    assert not await fresh.diagnostics("Deutsch/Fotosynthese.md")
    fresh.open("Index.md")
    found = await fresh.diagnostics("Index.md")
    assert {d.code for d in found} == {"unresolved-note", "missing-heading", "missing-block"}
    for path in ("Index.md", "Deutsch/Fotosynthese.md"):
        fresh.client.text_document_did_close(types.DidCloseTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=fresh.uri(path))))

    # Now a heading of the renamed note.
    edit = await _rename(fresh, "Cell biology.md", "## Membrane", 5, "Cell membrane")
    apply_edit(fresh.vault, edit)
    assert "## Cell membrane" in fresh.text("Cell biology.md")
    assert "![[Cell biology#Cell membrane]]" in fresh.text("Index.md")
    assert "[Zellmembran](../Cell%20biology.md#Cell%20membrane)" in fresh.text("Deutsch/Fotosynthese.md")


async def test_rename_heading_from_a_link_in_an_open_buffer(shared) -> None:
    text = shared.text("Index.md")
    uri = shared.open("Index.md")
    edit = await _rename(shared, "Index.md", "[[Photosynthesis#Light reactions]]", 20, "Light-dependent reactions")
    by_uri = {c.text_document.uri: c for c in edit.document_changes}
    assert by_uri[uri].text_document.version == 1  # the open buffer's version
    (link_edit,) = by_uri[uri].edits
    assert link_edit.range.start == position_of(text, "Light reactions]]")
    (heading_edit,) = by_uri[shared.uri("Photosynthesis.md")].edits
    assert heading_edit.new_text == "Light-dependent reactions"


@pytest.mark.parametrize("new_name, message", [
    ("Bad#Name", "not a valid note name"),
    ("Photosynthesis", "exists already"),
    ("  ", "not a valid note name"),
])
async def test_rename_note_refused(shared, new_name: str, message: str) -> None:
    with pytest.raises(Exception, match=message):
        await _rename(shared, "Index.md", "[[Cells#Organelles]]", 3, new_name)


async def test_will_rename_files_updates_links(shared) -> None:
    edit = await shared.client.workspace_will_rename_files_async(types.RenameFilesParams(files=[
        types.FileRename(old_uri=shared.uri("Biology/Enzymes.md"), new_uri=shared.uri("Biology/Enzyme basics.md"))]))
    changed = {c.text_document.uri: c.edits for c in edit.document_changes}
    (german_edit,) = changed[shared.uri("Deutsch/Fotosynthese.md")]
    assert german_edit.new_text == "Enzyme basics"
