"""textDocument/references: backlinks to the note, a heading, a block; tag occurrences."""

from __future__ import annotations

import pytest
from harness import position_of
from lsprotocol import types

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def _references(session, note: str, needle: str, offset: int, declaration: bool = False
                      ) -> list[tuple[str, str]]:
    text = session.text(note)
    found = await session.client.text_document_references_async(types.ReferenceParams(
        text_document=types.TextDocumentIdentifier(uri=session.uri(note)),
        position=position_of(text, needle, offset=offset),
        context=types.ReferenceContext(include_declaration=declaration)))
    result = []
    for location in found or []:
        path = location.uri.split("/vault/", 1)[1].replace("%20", " ")
        line = session.text(path).split("\n")[location.range.start.line]
        result.append((path, _slice(line, location.range)))
    return sorted(result)


def _slice(line: str, range_: types.Range) -> str:
    encoded = line.encode("utf-16-le")
    return encoded[range_.start.character * 2:range_.end.character * 2].decode("utf-16-le")


@pytest.mark.parametrize("note, needle, offset, expected", [
    # anywhere in a note: every link to it
    ("Photosynthesis.md", "turns light energy", 2, [
        ("Biology/Enzymes.md", "[[Photosynthesis#Calvin cycle]]"),
        ("Biology/Enzymes.md", "[[Photosynthesis#^summary]]"),
        ("Cells.md", "[[Photosynthesis]]"),
        ("Index.md", "[[Photosynthesis#Light reactions]]"),
        ("Index.md", "[[Photosynthesis#No Such Heading]]"),
        ("Index.md", "[[Photosynthesis]]")]),
    # on a heading: links to that heading
    ("Photosynthesis.md", "## Light reactions", 5, [("Index.md", "[[Photosynthesis#Light reactions]]")]),
    ("Cells.md", "## Organelles", 4, [
        ("Deutsch/Fotosynthese.md", "[[Cells#Organelles|Organellen]]"),
        ("Index.md", "[[Cells#Organelles]]"),
        ("Photosynthesis.md", "[[Cells#Organelles]]")]),
    ("Cells.md", "## Membrane", 4, [
        ("Deutsch/Fotosynthese.md", "[Zellmembran](../Cells.md#Membrane)"),
        ("Index.md", "![[Cells#Membrane]]")]),
    # on a line ending with a block id: links to the block
    ("Cells.md", "Mitochondria produce", 3, [("Index.md", "[[Cells#^mito]]")]),
    ("Photosynthesis.md", "cyanobacteria", 3, [("Biology/Enzymes.md", "[[Photosynthesis#^summary]]")]),
    # on a link: the references of its target
    ("Index.md", "[[Cells#^mito]]", 4, [("Index.md", "[[Cells#^mito]]")]),
    # a tag: its occurrences (sub-tags included)
    ("Index.md", "#study/exam", 3, [("Biology/Enzymes.md", "#study/exam"), ("Index.md", "#study/exam")]),
])
async def test_backlinks(shared, note: str, needle: str, offset: int, expected: list[tuple[str, str]]) -> None:
    assert await _references(shared, note, needle, offset) == sorted(expected)


async def test_umlaut_and_emoji_lines_give_exact_ranges(shared) -> None:
    found = await _references(shared, "Photosynthesis.md", "## Light reactions", 5)
    assert found == [("Index.md", "[[Photosynthesis#Light reactions]]")]  # sliced in UTF-16 units


async def test_include_declaration_adds_the_heading(shared) -> None:
    found = await _references(shared, "Cells.md", "## Membrane", 4, declaration=True)
    assert ("Cells.md", "## Membrane") in found


async def test_unsaved_link_counts(shared) -> None:
    text = shared.text("Index.md") + "\nAnother: [[Cells#Membrane]]\n"
    uri = shared.open("Index.md", text)
    cells = shared.text("Cells.md")
    found = await shared.client.text_document_references_async(types.ReferenceParams(
        text_document=types.TextDocumentIdentifier(uri=shared.uri("Cells.md")),
        position=position_of(cells, "## Membrane", offset=4),
        context=types.ReferenceContext(include_declaration=False)))
    lines = text.split("\n")
    assert any(loc.uri == uri and lines[loc.range.start.line].startswith("Another") for loc in found)
    assert len(found) == 3
    shared.client.text_document_did_close(types.DidCloseTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
