"""textDocument/publishDiagnostics: broken links and embeds, missing headings and blocks; live and debounced."""

from __future__ import annotations

import pytest
from lsprotocol import types

from harness import position_of

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_broken_links_of_an_open_note(shared) -> None:
    text = shared.text("Index.md")
    shared.open("Index.md")
    found = await shared.diagnostics("Index.md", lambda found: len(found) == 3)
    by_code = {d.code: d for d in found}
    assert set(by_code) == {"unresolved-note", "missing-heading", "missing-block"}
    assert all(d.source == "cognivault" and d.severity == types.DiagnosticSeverity.Warning for d in found)
    assert "Nonexistent Note" in by_code["unresolved-note"].message
    assert "No Such Heading" in by_code["missing-heading"].message
    assert "^nope" in by_code["missing-block"].message
    start = position_of(text, "[[Nonexistent Note]]")
    assert by_code["unresolved-note"].range.start == start
    assert by_code["unresolved-note"].range.end.character == start.character + len("[[Nonexistent Note]]")


async def test_clean_notes_have_none(shared) -> None:
    for path in ("Cells.md", "Deutsch/Fotosynthese.md", "Biology/Enzymes.md"):
        shared.open(path)
        assert not await shared.diagnostics(path)


async def test_broken_embed_and_umlaut_positions(shared) -> None:
    text = "# Neu\n\nÄöü 😀 ![[missing-picture.png]] und [[Cells#Zellwand]]\n"
    shared.open("Neu.md", text)
    found = await shared.diagnostics("Neu.md", lambda found: len(found) == 2)
    embed = next(d for d in found if d.code == "unresolved-note")
    assert embed.message.startswith("Broken embed")
    assert embed.range.start == position_of(text, "![[missing")
    assert embed.range.start.character == 7  # Ä ö ü space, the emoji counts twice, space
    heading = next(d for d in found if d.code == "missing-heading")
    assert heading.range.start == position_of(text, "[[Cells#Zellwand]]")


async def test_edits_update_diagnostics_without_saving(shared) -> None:
    text = "# Neu\n\nÄöü 😀 ![[files/diagram.svg]] und [[Cells#Membrane]]\n"
    shared.replace_all("Neu.md", text, 2)
    await shared.diagnostics("Neu.md", lambda found: len(found) == 0)
    broken = text.replace("[[Cells#Membrane]]", "[[Cells#Membran]]")
    shared.replace_all("Neu.md", broken, 3)
    (found,) = await shared.diagnostics("Neu.md", lambda found: len(found) == 1)
    assert found.code == "missing-heading"


async def test_a_new_note_heals_links_in_other_open_notes(shared) -> None:
    shared.open("Index.md")
    shared.open("Nonexistent Note.md", "# Nonexistent Note\n\nNow it exists.\n")
    await shared.diagnostics("Index.md", lambda found: len(found) == 2)
