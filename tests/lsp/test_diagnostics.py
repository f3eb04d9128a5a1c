"""textDocument/publishDiagnostics: broken links and embeds, missing headings and blocks; live and debounced."""

from __future__ import annotations

import asyncio
import shutil

import pytest
from harness import TEST_VAULT, position_of, start_session, stop_session
from lsprotocol import types

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


CELLS = "Cells.md"


async def _open_and_settle(session, paths: list[str]) -> None:
    for path in paths:
        session.open(path)
    for path in paths:
        await session.diagnostics(path)
    await session.wait_idle()


async def test_a_new_alias_heals_links_in_open_notes_and_leaves_unrelated_notes_alone(tmp_path) -> None:
    shutil.copytree(TEST_VAULT, tmp_path / "vault")
    (tmp_path / "vault" / "Reader.md").write_text("# Reader\n\nWhere is the [[Organelle Atlas]]?\n", "utf-8")
    session = await start_session(tmp_path)
    try:
        # Reader links to the alias Cells is about to get, Photosynthesis to Cells by name, Enzymes to neither.
        await _open_and_settle(session, ["Reader.md", "Photosynthesis.md", "Biology/Enzymes.md", CELLS])
        (broken,) = await session.diagnostics("Reader.md")
        assert broken.code == "unresolved-note"
        linking, unrelated = session.publications("Photosynthesis.md"), session.publications("Biology/Enzymes.md")
        text = session.text(CELLS).replace("lang: en\n", "lang: en\naliases: [Organelle Atlas]\n")
        session.replace_all(CELLS, text, 2)  # not saved
        await session.diagnostics("Reader.md", lambda found: len(found) == 0)
        await session.wait_idle()
        async with asyncio.timeout(60):  # it links to Cells: checked again (the timeout bounds a hang only)
            while session.publications("Photosynthesis.md") == linking:
                await asyncio.sleep(0.03)
        await asyncio.sleep(0.3)  # what a publication for every open note would have sent meanwhile
        assert session.publications("Biology/Enzymes.md") == unrelated
    finally:
        await stop_session(session)


async def test_a_removed_heading_breaks_links_to_it_in_open_notes(tmp_path) -> None:
    session = await start_session(tmp_path)
    try:
        await _open_and_settle(session, ["Index.md", "Deutsch/Fotosynthese.md", CELLS])
        text = session.text(CELLS)
        session.replace_all(CELLS, text[:text.index("## Membrane")] + "#biology\n", 2)
        found = await session.diagnostics("Index.md", lambda found: len(found) == 4)
        assert [d.message for d in found if d.code == "missing-heading" and "Membrane" in d.message]
        # A Markdown link by relative path: ../Cells.md#Membrane from Deutsch/.
        (broken,) = await session.diagnostics("Deutsch/Fotosynthese.md", lambda found: len(found) == 1)
        assert broken.code == "missing-heading" and "Membrane" in broken.message
    finally:
        await stop_session(session)
