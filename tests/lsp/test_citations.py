"""Citations in generated notes (vault_schema/citation.md): hover, definition, changed/missing diagnostics.

The generated note comes from the server itself (the "Generate a mind map" command, extractive).
"""

from __future__ import annotations

import asyncio

import pytest
import pytest_asyncio
from harness import plain, position_of
from lsprotocol import types

pytestmark = pytest.mark.asyncio(loop_scope="module")

CALVIN = "[[Photosynthesis#Calvin cycle|Calvin cycle]]<!--cv:cite"


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def generated(shared) -> str:
    result = plain(await shared.request(types.WORKSPACE_EXECUTE_COMMAND, types.ExecuteCommandParams(
        command="cognivault.generate", arguments=[{"kind": "mindmap", "uri": shared.uri("Photosynthesis.md")}]),
        timeout=60))
    assert result["path"].startswith("Study/") and result["produced"] >= 2
    assert CALVIN in shared.text(result["path"])
    await shared.wait_idle()
    return result["path"]


@pytest.mark.parametrize("offset", [3, len("[[Photosynthesis#Calvin cycle|Calvin cycle]]") + 8])  # link, marker
async def test_hover_shows_the_passage(shared, generated: str, offset: int) -> None:
    text = shared.text(generated)
    hover = await shared.client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=shared.uri(generated)),
        position=position_of(text, CALVIN, offset=offset)))
    value = hover.contents.value
    assert "Cited passage" in value and "`Photosynthesis.md`" in value
    lines = shared.text("Photosynthesis.md").split("\n")
    first = lines.index("The Calvin cycle fixes carbon dioxide into sugar using ATP and NADPH in the stroma.") + 1
    assert f"lines {first - 2}–" in value or f"lines {first}–" in value
    assert "> The Calvin cycle fixes carbon dioxide" in value
    assert "changed" not in value


async def test_definition_jumps_to_the_passage(shared, generated: str) -> None:
    text = shared.text(generated)
    (location,) = await shared.client.text_document_definition_async(types.DefinitionParams(
        text_document=types.TextDocumentIdentifier(uri=shared.uri(generated)),
        position=position_of(text, CALVIN, offset=60)))
    lines = shared.text("Photosynthesis.md").split("\n")
    assert location.uri == shared.uri("Photosynthesis.md")
    assert location.range.start.line == lines.index(
        "The Calvin cycle fixes carbon dioxide into sugar using ATP and NADPH in the stroma.")
    assert lines[location.range.end.line].startswith(("#biology", "See [["))


async def test_no_diagnostics_while_sources_are_current(shared, generated: str) -> None:
    shared.open(generated)
    assert not await shared.diagnostics(generated)


async def test_changed_and_missing_sources(shared, generated: str) -> None:
    shared.open(generated)
    photo = shared.text("Photosynthesis.md")
    changed = photo.replace("fixes carbon dioxide into sugar", "fixes CO2 into sugars")
    shared.open("Photosynthesis.md")
    shared.replace_all("Photosynthesis.md", changed, 2)  # unsaved: the index follows the buffer
    found = await shared.diagnostics(generated, lambda found: any(d.code == "citation-changed" for d in found))
    (diagnostic,) = found
    text = shared.text(generated)
    assert diagnostic.range.start == position_of(text, CALVIN)
    assert diagnostic.severity == types.DiagnosticSeverity.Information
    (action,) = [a for a in await shared.client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=shared.uri(generated)), range=diagnostic.range,
        context=types.CodeActionContext(diagnostics=[diagnostic], only=["quickfix"])))]
    assert action.title.startswith("Mark the citation as reviewed")
    (edit,) = action.edit.changes[shared.uri(generated)]
    assert len(edit.new_text) == 8 and edit.new_text not in text
    hover = await shared.client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=shared.uri(generated)),
        position=position_of(text, CALVIN, offset=3)))
    assert "changed since this note was generated" in hover.contents.value
    # The section goes away: the passage no longer exists.
    gone = changed.split("## Calvin cycle")[0]
    shared.replace_all("Photosynthesis.md", gone, 3)
    await shared.diagnostics(generated, lambda found: any(d.code == "citation-missing" for d in found))
    await asyncio.sleep(0)
