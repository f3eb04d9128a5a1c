"""workspace/symbol: notes and headings by name and by meaning."""

from __future__ import annotations

import pytest
from harness import start_session, stop_session
from lsprotocol import types

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def _symbols(session, query: str) -> list[types.SymbolInformation]:
    return await session.client.workspace_symbol_async(types.WorkspaceSymbolParams(query=query))


@pytest.mark.parametrize("query, first_name, first_path", [
    ("calvin", "Calvin cycle", "Photosynthesis.md"),
    ("Light reactions", "Light reactions", "Photosynthesis.md"),
    ("enzyme", "Enzymes", "Biology/Enzymes.md"),
    ("übersicht", "Study Index", "Index.md"),  # an alias
    ("fotosyn", "Fotosynthese", "Deutsch/Fotosynthese.md"),
    ("orgnl", "Organelles", "Cells.md"),  # subsequence
])
async def test_by_name(shared, query: str, first_name: str, first_path: str) -> None:
    found = await _symbols(shared, query)
    assert found, query
    assert (found[0].name, found[0].location.uri) == (first_name, shared.uri(first_path))


async def test_by_meaning(shared) -> None:
    found = await _symbols(shared, "phospholipid bilayer")  # words of a section, not of any name
    assert found and (found[0].name, found[0].container_name) == ("Membrane", "Cells")
    line = shared.text("Cells.md").split("\n").index("## Membrane")
    assert found[0].location.range.start.line == line


async def test_empty_query_lists_notes(shared) -> None:
    found = await _symbols(shared, "")
    assert {s.name for s in found} == {"Study Index", "Photosynthesis", "Cells", "Enzymes", "Fotosynthese"}
    assert all(s.kind == types.SymbolKind.File for s in found)


async def test_headings_typed_into_notes_are_found_and_removed_ones_are_gone(tmp_path) -> None:
    session = await start_session(tmp_path)
    try:
        session.open("Cells.md")
        session.open("Biology/Enzymes.md")
        await session.wait_idle()
        assert [s.name for s in await _symbols(session, "organelles")][:1] == ["Organelles"]  # names joined once
        cells = session.text("Cells.md").replace("## Organelles", "## Zymogen granules")
        session.replace_all("Cells.md", cells, 2)  # not saved
        await session.wait_idle()
        assert "Zymogen granules" in {s.name for s in await _symbols(session, "zymogen")}
        enzymes = session.text("Biology/Enzymes.md") + "\n## Zymogen activation\n\nTrypsinogen becomes trypsin.\n"
        session.replace_all("Biology/Enzymes.md", enzymes, 2)
        await session.wait_idle()
        found = await _symbols(session, "zymogen")
        assert {(s.name, s.location.uri) for s in found if s.kind == types.SymbolKind.String} >= {
            ("Zymogen granules", session.uri("Cells.md")), ("Zymogen activation", session.uri("Biology/Enzymes.md"))}
        assert "Organelles" not in {s.name for s in await _symbols(session, "organelles")}
    finally:
        await stop_session(session)
