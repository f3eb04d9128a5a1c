"""textDocument/completion: notes after [[ ranked by the paragraph, headings after #, blocks after ^, tags."""

from __future__ import annotations

import pytest
from lsprotocol import types

from harness import position_of

pytestmark = pytest.mark.asyncio(loop_scope="module")

SCRATCH = "Scratch.md"


async def _complete(session, text: str, needle: str, version: int, offset: int | None = None,
                    trigger: str | None = None) -> types.CompletionList:
    uri = session.uri(SCRATCH)
    if version == 1:
        session.open(SCRATCH, text)
    else:
        session.replace_all(SCRATCH, text, version)
    position = position_of(text, needle, offset=len(needle) if offset is None else offset)
    context = types.CompletionContext(
        trigger_kind=types.CompletionTriggerKind.TriggerCharacter if trigger else types.CompletionTriggerKind.Invoked,
        trigger_character=trigger)
    found = await session.client.text_document_completion_async(types.CompletionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=position, context=context))
    assert isinstance(found, types.CompletionList)
    return found


async def test_notes_ranked_by_the_paragraph(shared) -> None:
    text = ("---\nlang: en\n---\n# Scratch\n\n"
            "Rubisco is an enzyme; enzymes lower the activation energy of reactions in cells. See [[\n")
    found = await _complete(shared, text, "See [[", 1, trigger="[")
    labels = [item.label for item in sorted(found.items, key=lambda i: i.sort_text)]
    assert labels[0] == "Enzymes", labels
    assert {"Photosynthesis", "Cells", "Index", "Fotosynthese"} <= set(labels)
    assert "Scratch" not in labels
    first = min(found.items, key=lambda i: i.sort_text)
    assert first.text_edit.new_text == "Enzymes]]"
    # The edit replaces what was typed after [[ (nothing yet): an empty range at the cursor.
    assert first.text_edit.range.start == first.text_edit.range.end == position_of(text, "See [[", offset=6)
    aliases = [item for item in found.items if item.label == "Enzyme"]
    assert aliases and aliases[0].text_edit.new_text == "Enzymes|Enzyme]]"
    assert any(item.label == "Übersicht" and item.text_edit.new_text == "Index|Übersicht]]" for item in found.items)


async def test_other_paragraph_other_ranking(shared) -> None:
    text = ("---\nlang: en\n---\n# Scratch\n\n"
            "The thylakoid membranes of the chloroplast split water during the light reactions [[Ph]]\n")
    found = await _complete(shared, text, "reactions [[Ph", 2)
    first = min(found.items, key=lambda i: i.sort_text)
    assert first.label == "Photosynthesis"
    # typed text is replaced, the closing brackets already there are kept
    assert first.text_edit.new_text == "Photosynthesis"
    start = position_of(text, "reactions [[Ph", offset=len("reactions [["))
    assert first.text_edit.range.start == start
    assert first.text_edit.range.end.character == start.character + 2


async def test_headings_of_the_chosen_note(shared) -> None:
    text = "# Scratch\n\nStraße 😀 漢字 [[Photosynthesis#\n"
    found = await _complete(shared, text, "[[Photosynthesis#", 3, trigger="#")
    assert [item.label for item in sorted(found.items, key=lambda i: i.sort_text)] == [
        "Photosynthesis", "Light reactions", "Calvin cycle"]
    item = next(i for i in found.items if i.label == "Calvin cycle")
    assert item.text_edit.new_text == "Calvin cycle]]"
    # after the emoji the UTF-16 column is one more than the code-point column
    expected = position_of(text, "[[Photosynthesis#", offset=len("[[Photosynthesis#"))
    assert item.text_edit.range.start == expected
    assert expected.character == len("Straße 😀 漢字 [[Photosynthesis#") + 1


async def test_blocks_of_the_chosen_note(shared) -> None:
    text = "# Scratch\n\nSee [[Cells#^]]\n"
    found = await _complete(shared, text, "[[Cells#^", 4, trigger="^")
    (item,) = found.items
    assert item.label == "mito" and item.text_edit.new_text == "mito"
    assert "Mitochondria" in (item.detail or "")


async def test_headings_of_this_note(shared) -> None:
    text = "# Scratch\n\n## Part one\n\nSee [[#\n"
    found = await _complete(shared, text, "See [[#", 5, trigger="#")
    assert [item.label for item in found.items] == ["Scratch", "Part one"]


async def test_tags(shared) -> None:
    text = "# Scratch\n\nTagged #st\n"
    found = await _complete(shared, text, "Tagged #st", 6)
    by_label = {item.label: item for item in found.items}
    assert list(by_label)[0] == "biology"  # most used first
    assert by_label["study/exam"].detail == "2 notes"
    item = by_label["study/exam"]
    start = position_of(text, "#st", offset=1)
    assert item.text_edit.range.start == start and item.text_edit.new_text == "study/exam"


@pytest.mark.parametrize("text, needle", [
    ("# Scratch\n\nplain words here\n", "plain words"),
    ("# Scratch\n\n[[Cells|alias text\n", "[[Cells|alias"),
    ("# Scratch\n\n#\n", "\n#"),  # a heading being started
    ("# Scratch\n\nDone [[Cells]] here\n", "]] here"),
])
async def test_no_completion_outside_links_and_tags(shared, text: str, needle: str) -> None:
    uri = shared.uri(SCRATCH)
    shared.replace_all(SCRATCH, text, 10 + len(needle))
    found = await shared.client.text_document_completion_async(types.CompletionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=position_of(text, needle, offset=len(needle))))
    assert not found or not found.items


async def test_resolve_adds_the_first_lines(shared) -> None:
    text = "# Scratch\n\nAbout cells [[Ce\n"
    found = await _complete(shared, text, "[[Ce", 30)
    item = next(i for i in found.items if i.label == "Cells")
    resolved = await shared.client.completion_item_resolve_async(item)
    assert "Cells are the basic units of life" in resolved.documentation.value
