"""textDocument/codeAction: create a missing note, fix headings and blocks, link related notes, study."""

from __future__ import annotations

import pytest
from harness import plain
from lsprotocol import types

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def _actions(session, path: str, diagnostics: list[types.Diagnostic], range_: types.Range | None = None,
                   only: list[str] | None = None) -> list[types.CodeAction]:
    found = await session.client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=session.uri(path)),
        range=range_ or diagnostics[0].range,
        context=types.CodeActionContext(diagnostics=diagnostics, only=only)))
    return [a for a in found or [] if isinstance(a, types.CodeAction)]


async def test_quick_fixes_for_each_broken_link(shared) -> None:
    shared.open("Index.md")
    found = await shared.diagnostics("Index.md", lambda found: len(found) == 3)
    by_code = {d.code: d for d in found}

    (create,) = await _actions(shared, "Index.md", [by_code["unresolved-note"]], only=["quickfix"])
    assert create.title == "Create note 'Nonexistent Note.md'" and create.is_preferred
    created, content = create.edit.document_changes
    assert isinstance(created, types.CreateFile) and created.uri == shared.uri("Nonexistent Note.md").replace(
        " ", "%20")
    assert content.edits[0].new_text.startswith("# Nonexistent Note")

    heading_fixes = await _actions(shared, "Index.md", [by_code["missing-heading"]], only=["quickfix"])
    titles = [a.title for a in heading_fixes]
    assert "Add heading 'No Such Heading' to Photosynthesis" in titles
    assert any(t.startswith("Change to heading") for t in titles)

    block_fixes = await _actions(shared, "Index.md", [by_code["missing-block"]], only=["quickfix"])
    (change,) = block_fixes
    assert change.title == "Change to block '^mito'"
    (edit,) = change.edit.document_changes[0].edits
    assert edit.new_text == "mito"


async def test_applying_create_note_heals_the_link(shared) -> None:
    found = await shared.diagnostics("Index.md", lambda found: len(found) == 3)
    diagnostic = next(d for d in found if d.code == "unresolved-note")
    (create,) = await _actions(shared, "Index.md", [diagnostic], only=["quickfix"])
    content = create.edit.document_changes[1].edits[0].new_text
    (shared.vault / "Nonexistent Note.md").write_text(content, "utf-8")  # what the editor does
    shared.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=create.edit.document_changes[0].uri, type=types.FileChangeType.Created)]))
    await shared.diagnostics("Index.md", lambda found: len(found) == 2)


async def test_insert_link_to_a_related_note(shared) -> None:
    where = types.Range(start=types.Position(line=6, character=0), end=types.Position(line=6, character=0))
    actions = await _actions(shared, "Biology/Enzymes.md", [], range_=where, only=["refactor"])
    assert actions, "no related-note action"
    assert all(a.title.startswith("Insert link to related note: ") for a in actions)
    titles = " ".join(a.title for a in actions)
    assert "Photosynthesis" not in titles  # already linked
    edit = actions[0].edit.document_changes[0].edits[0]
    assert edit.new_text.startswith("[[") and edit.range.start == where.start


async def test_study_actions_and_ask(shared) -> None:
    selection = types.Range(start=types.Position(line=6, character=0), end=types.Position(line=6, character=60))
    found = await shared.client.protocol.send_request_async(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=shared.uri("Photosynthesis.md")), range=selection,
        context=types.CodeActionContext(diagnostics=[], only=["source"])))
    titles = [getattr(a, "title", "") for a in found]
    assert "Ask CogniVault about this selection" in titles
    assert "Generate flashcards from this selection" in titles
    assert "Generate a quiz from this selection" in titles
    assert "Generate a mind map from this selection" in titles
    assert "Generate a workshop from this selection" in titles  # every kind made from notes (study/kinds.py)
    answer = plain(await shared.request(types.WORKSPACE_EXECUTE_COMMAND, types.ExecuteCommandParams(
        command="cognivault.ask", arguments=[{"question": "What does photosynthesis turn light energy into?"}])))
    assert answer["answered"] and "chemical energy" in answer["text"]
    assert answer["sources"] and answer["sources"][0]["path"] == "Photosynthesis.md"
