"""textDocument/codeLens: "N related notes" (and backlinks) at the top of a note."""

from __future__ import annotations

import pytest
from harness import plain
from lsprotocol import types

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def _lenses(session, path: str) -> list[types.CodeLens]:
    return await session.client.text_document_code_lens_async(types.CodeLensParams(
        text_document=types.TextDocumentIdentifier(uri=session.uri(path))))


async def test_related_notes_lens(shared) -> None:
    related_lens, backlinks_lens = await _lenses(shared, "Photosynthesis.md")
    heading_line = shared.text("Photosynthesis.md").split("\n").index("# Photosynthesis")
    assert related_lens.range.start.line == heading_line
    assert related_lens.command.command == "cognivault.showRelated"
    (argument,) = related_lens.command.arguments
    notes = plain(argument)["notes"]
    assert related_lens.command.title == f"{len(notes)} related note" + ("" if len(notes) == 1 else "s")
    assert notes and all({"uri", "title", "score", "reasons"} <= set(n) for n in notes)
    assert backlinks_lens.command.title == "6 backlinks"  # links from Index (3), Cells (1), Enzymes (2)


async def test_lens_commands_run_on_the_server(shared) -> None:
    related_lens, backlinks_lens = await _lenses(shared, "Photosynthesis.md")
    answer = plain(await shared.request(types.WORKSPACE_EXECUTE_COMMAND, types.ExecuteCommandParams(
        command=related_lens.command.command, arguments=list(related_lens.command.arguments))))
    assert answer["notes"]
    locations = await shared.request(types.WORKSPACE_EXECUTE_COMMAND, types.ExecuteCommandParams(
        command=backlinks_lens.command.command, arguments=list(backlinks_lens.command.arguments)))
    assert len(locations) == 6


async def test_lens_can_be_switched_off(shared) -> None:
    shared.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"codeLens": {"enabled": False}}))
    import asyncio

    async with asyncio.timeout(60):  # bounds a hang only
        while await _lenses(shared, "Cells.md"):
            await asyncio.sleep(0.02)
