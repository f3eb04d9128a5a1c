"""textDocument/definition: wikilinks, embeds, heading and block links, Markdown links."""

from __future__ import annotations

import pytest
from harness import position_of
from lsprotocol import types

pytestmark = pytest.mark.asyncio(loop_scope="module")


def _line_of(session, path: str, needle: str) -> int:
    return next(i for i, line in enumerate(session.text(path).split("\n")) if needle in line)


# (note, link text to put the cursor in, cursor offset inside it, target path, target line needle or None)
CASES = [
    ("Index.md", "[[Photosynthesis]]", 3, "Photosynthesis.md", None),
    ("Index.md", "[[Photosynthesis]]", 0, "Photosynthesis.md", None),  # on the first bracket
    ("Index.md", "[[Cells#Organelles]]", 12, "Cells.md", "## Organelles"),
    ("Index.md", "[[Cells#^mito]]", 9, "Cells.md", "^mito"),
    ("Index.md", "[[Photosynthesis#Light reactions]]", 20, "Photosynthesis.md", "## Light reactions"),
    ("Index.md", "![[diagram.svg]]", 0, "files/diagram.svg", None),
    ("Index.md", "![[Cells#Membrane]]", 5, "Cells.md", "## Membrane"),
    ("Deutsch/Fotosynthese.md", "[[Cells#Organelles|Organellen]]", 22, "Cells.md", "## Organelles"),
    ("Deutsch/Fotosynthese.md", "[[Enzymes]]", 4, "Biology/Enzymes.md", None),
    ("Deutsch/Fotosynthese.md", "[[Index]]", 3, "Index.md", None),
    ("Deutsch/Fotosynthese.md", "[Zellmembran](../Cells.md#Membrane)", 3, "Cells.md", "## Membrane"),
    ("Biology/Enzymes.md", "[[Photosynthesis#^summary]]", 10, "Photosynthesis.md", "^summary"),
    ("Biology/Enzymes.md", "[[Photosynthesis#Calvin cycle]]", 25, "Photosynthesis.md", "## Calvin cycle"),
]


@pytest.mark.parametrize("note, link, offset, target, needle", CASES)
async def test_jumps_to_exact_place(shared, note: str, link: str, offset: int, target: str, needle: str | None
                                    ) -> None:
    text = shared.text(note)
    found = await shared.client.text_document_definition_async(types.DefinitionParams(
        text_document=types.TextDocumentIdentifier(uri=shared.uri(note)),
        position=position_of(text, link, offset=offset)))
    assert found, f"no definition for {link}"
    (location,) = found
    assert location.uri == shared.uri(target)
    if needle is None:
        assert location.range.start.line == 0
    elif needle.startswith("^"):
        block_line = _line_of(shared, target, needle)
        assert location.range.end.line == block_line
        assert location.range.start.line <= block_line
    else:
        line = _line_of(shared, target, needle)
        assert location.range.start.line == line == location.range.end.line
        assert location.range.end.character == len(needle)


async def test_block_in_a_paragraph_spans_the_paragraph(shared) -> None:
    text = shared.text("Biology/Enzymes.md")
    (location,) = await shared.client.text_document_definition_async(types.DefinitionParams(
        text_document=types.TextDocumentIdentifier(uri=shared.uri("Biology/Enzymes.md")),
        position=position_of(text, "[[Photosynthesis#^summary]]", offset=5)))
    lines = shared.text("Photosynthesis.md").split("\n")
    assert location.range.start.line == lines.index(
        "Photosynthesis turns light energy into chemical energy stored in glucose.")
    assert location.range.end.line == location.range.start.line + 1


@pytest.mark.parametrize("needle, offset", [
    ("Welcome to the vault", 3),  # plain text
    ("[[Nonexistent Note]]", 4),  # a link to nothing
    ("# Study Index", 3),  # a heading
])
async def test_nothing_to_jump_to(shared, needle: str, offset: int) -> None:
    text = shared.text("Index.md")
    found = await shared.client.text_document_definition_async(types.DefinitionParams(
        text_document=types.TextDocumentIdentifier(uri=shared.uri("Index.md")),
        position=position_of(text, needle, offset=offset)))
    assert not found


async def test_same_note_heading_link_in_unsaved_buffer(shared) -> None:
    text = shared.text("Cells.md") + "\nSee [[#Membrane]] above, and [[#New part]].\n\n## New part\n\nText.\n"
    uri = shared.open("Cells.md", text)
    found = await shared.client.text_document_definition_async(types.DefinitionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=position_of(text, "[[#New part]]", offset=4)))
    (location,) = found
    assert location.uri == uri
    assert location.range.start.line == text.split("\n").index("## New part")
    shared.client.text_document_did_close(types.DidCloseTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
