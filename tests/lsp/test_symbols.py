"""textDocument/documentSymbol: the heading outline, nested by level, ranges covering sections."""

from __future__ import annotations

import pytest
from lsprotocol import types

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def _symbols(session, path: str) -> list[types.DocumentSymbol]:
    return await session.client.text_document_document_symbol_async(types.DocumentSymbolParams(
        text_document=types.TextDocumentIdentifier(uri=session.uri(path))))


@pytest.mark.parametrize("path, outline", [
    ("Photosynthesis.md", [("Photosynthesis", ["Light reactions", "Calvin cycle"])]),
    ("Cells.md", [("Cells", ["Organelles", "Membrane"])]),
    ("Deutsch/Fotosynthese.md", [("Fotosynthese", ["Lichtreaktion"])]),
    ("Index.md", [("Study Index", [])]),
])
async def test_outline(shared, path: str, outline: list) -> None:
    symbols = await _symbols(shared, path)
    assert [(s.name, [c.name for c in s.children or []]) for s in symbols] == outline


async def test_ranges_cover_sections_and_select_heading_text(shared) -> None:
    text = shared.text("Photosynthesis.md")
    lines = text.split("\n")
    (top,) = await _symbols(shared, "Photosynthesis.md")
    light, calvin = top.children
    assert lines[light.selection_range.start.line] == "## Light reactions"
    assert (light.selection_range.start.character, light.selection_range.end.character) == (3, 18)
    assert light.range.start.line == lines.index("## Light reactions")
    assert light.range.end.line == lines.index("## Calvin cycle") - 1
    assert calvin.range.end.line >= len(text.rstrip("\n").split("\n")) - 1
    assert top.range.start.line == lines.index("# Photosynthesis")


async def test_unsaved_buffer_outline(shared) -> None:
    uri = shared.open("Cells.md")
    text = shared.text("Cells.md") + "\n## Cytoskeleton 😀\n\nFibres.\n"
    shared.replace_all("Cells.md", text, 2)
    symbols = await _symbols(shared, "Cells.md")
    assert [c.name for c in symbols[0].children] == ["Organelles", "Membrane", "Cytoskeleton 😀"]
    shared.client.text_document_did_close(types.DidCloseTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
