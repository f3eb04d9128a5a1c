"""textDocument/hover: link targets (title, first lines or section, backlinks), tags, broken links."""

from __future__ import annotations

import pytest
from harness import position_of
from lsprotocol import types

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def _hover(session, note: str, needle: str, offset: int) -> types.Hover | None:
    text = session.text(note)
    return await session.client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=session.uri(note)),
        position=position_of(text, needle, offset=offset)))


@pytest.mark.parametrize("note, needle, offset, expected, absent", [
    ("Index.md", "[[Photosynthesis]]", 5, ["**Photosynthesis**", "Photosynthesis turns light energy",
                                            "6 backlinks"], ["---\nlang", "# Photosynthesis"]),
    ("Index.md", "[[Cells#Organelles]]", 10, ["**Cells**", "## Organelles", "The nucleus stores",
                                               "to this heading"], ["phospholipid"]),
    ("Index.md", "[[Cells#^mito]]", 9, ["Mitochondria produce ATP", "1 to this block"], ["nucleus"]),
    ("Index.md", "[[Photosynthesis#Light reactions]]", 10, ["## Light reactions", "thylakoid membranes"],
     ["Calvin"]),
    ("Index.md", "![[diagram.svg]]", 4, ["files/diagram.svg", "attachment (svg)"], []),
    ("Deutsch/Fotosynthese.md", "[[Index]]", 3, ["**Study Index**", "Welcome to the vault", "backlink"], []),
    ("Deutsch/Fotosynthese.md", "[[Enzymes]]", 3, ["**Enzymes**", "Enzymes are proteins"], []),
    ("Index.md", "[[Nonexistent Note]]", 4, ["no note or file", "quick fix"], []),
    ("Index.md", "[[Photosynthesis#No Such Heading]]", 8, ["no heading 'No Such Heading'"], []),
])
async def test_link_hover(shared, note: str, needle: str, offset: int, expected: list[str], absent: list[str]
                          ) -> None:
    hover = await _hover(shared, note, needle, offset)
    assert hover is not None
    value = hover.contents.value
    for part in expected:
        assert part in value, (part, value)
    for part in absent:
        assert part not in value, (part, value)
    text = shared.text(note)
    start = position_of(text, needle)
    assert hover.range.start == start
    assert hover.range.end.character == start.character + len(needle.encode("utf-16-le")) // 2


@pytest.mark.parametrize("needle, offset, expected", [
    ("#biology", 2, ["#biology", "4 notes"]),
    ("#study/exam", 4, ["#study/exam", "2 notes", "Enzymes", "Study Index"]),
])
async def test_tag_hover(shared, needle: str, offset: int, expected: list[str]) -> None:
    hover = await _hover(shared, "Index.md", needle, offset)
    assert hover is not None
    for part in expected:
        assert part in hover.contents.value


async def test_nothing_to_say_on_plain_text(shared) -> None:
    assert await _hover(shared, "Index.md", "Welcome to the vault", 2) is None
