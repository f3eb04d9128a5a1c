"""textDocument/completion: notes after [[ ranked by the paragraph, headings after #, blocks after ^, tags."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

import pytest
import pytest_asyncio
from harness import Session, plain, position_of, start_session, stop_session
from lsprotocol import types

from cognivault.live import EMBED_EDITS_AFTER_MS
from fake_ollama import FakeOllama, fake_ollama_in_thread

pytestmark = pytest.mark.asyncio(loop_scope="module")

SCRATCH = "Scratch.md"
QUERY_PREFIX = "task: search result | query: "  # what the Ollama embedder puts before a query


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


# -- with an embedding model (the fake Ollama's, on loopback) ----------------------------------------

@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def semantic(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[tuple[Session, FakeOllama]]:
    with fake_ollama_in_thread() as fake:
        session = await start_session(tmp_path_factory.mktemp("lsp-semantic"), options={
            "embeddings": True, "embedding": {"provider": "ollama"}, "models": {"ollama_host": fake.url}})
        try:
            status = await session.status()
            assert status["provider"]["embeddings"] == "ollama:embeddinggemma", status["provider"]
            yield session, fake
        finally:
            await stop_session(session)


def _query_embeds(fake: FakeOllama, wanted: Callable[[str], bool]) -> int:
    """How many query texts the server sent to the model that satisfy ``wanted``."""
    count = 0
    for request in fake.embeddings():
        texts = request["input"] if isinstance(request["input"], list) else [request["input"]]
        count += sum(1 for t in texts if t.startswith(QUERY_PREFIX) and wanted(t[len(QUERY_PREFIX):]))
    return count


async def _until(predicate: Callable[[], bool], timeout: float = 120) -> None:  # the timeout bounds a hang only
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.02)


def _insert(session: Session, path: str, line: int, character: int, text: str, version: int) -> None:
    at = types.Position(line=line, character=character)
    session.client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=session.uri(path), version=version),
        content_changes=[types.TextDocumentContentChangePartial(range=types.Range(start=at, end=at), text=text)]))


async def _complete_at(session: Session, path: str, line: int, character: int) -> types.CompletionList:
    found = await session.client.text_document_completion_async(types.CompletionParams(
        text_document=types.TextDocumentIdentifier(uri=session.uri(path)),
        position=types.Position(line=line, character=character)))
    assert isinstance(found, types.CompletionList)
    return found


def _first(found: types.CompletionList) -> str:
    return min(found.items, key=lambda i: i.sort_text).label


async def test_paragraph_embedded_after_a_pause_and_reused_while_the_link_is_typed(semantic) -> None:
    session, fake = semantic
    paragraph = "Rubisco is an enzyme that lowers the activation energy of reactions in cells."
    session.open("Draft.md", "# Draft\n\n\n")
    _insert(session, "Draft.md", 2, 0, paragraph, 2)
    # Nobody asked for a completion yet: the pause after writing has the paragraph embedded.
    await _until(lambda: _query_embeds(fake, lambda text: text == paragraph) == 1)
    typed = ""
    for version, keys in enumerate([" [[", "E", "n"], start=3):
        _insert(session, "Draft.md", 2, len(paragraph) + len(typed), keys, version)
        typed += keys
        found = await _complete_at(session, "Draft.md", 2, len(paragraph) + len(typed))
        assert not found.is_incomplete  # the full ranking, at once
        assert _first(found) == "Enzymes"
    # A barrier: a later edit in another note is embedded on the same background thread after the
    # last keystroke's own (speculative) look at Draft.md, which found the vector cached.
    session.open("Other.md", "# Other\n\n\n")
    _insert(session, "Other.md", 2, 0, "Thylakoid membranes split water in the light reactions.", 2)
    await _until(lambda: _query_embeds(fake, lambda text: text.startswith("Thylakoid membranes")) == 1)
    assert _query_embeds(fake, lambda text: text == paragraph) == 1  # typing the link target hit the cache


async def test_ranking_follows_the_paragraph_meaning(semantic) -> None:
    session, fake = semantic
    text = "# Draft two\n\nMitochondria and the nucleus are organelles of every organism. [[\n"
    session.open("Draft2.md", text)
    column = text.splitlines()[2].index("[[") + 2
    found = await _complete_at(session, "Draft2.md", 2, column)
    # Just opened, no pause: the request embedded the paragraph itself (the link left out) ...
    sent = "Mitochondria and the nucleus are organelles of every organism."
    await _until(lambda: _query_embeds(fake, lambda query: query == sent) == 1)
    async with asyncio.timeout(120):  # ... and when the model was slower than the budget, the editor asks again
        while found.is_incomplete:
            await asyncio.sleep(0.05)
            found = await _complete_at(session, "Draft2.md", 2, column)
    assert not found.is_incomplete and _first(found) == "Cells"
    assert _query_embeds(fake, lambda query: query == sent) == 1


async def test_stand_in_ranking_is_incomplete_until_the_vector_is_ready(semantic) -> None:
    session, fake = semantic
    session.open("Photosynthesis.md")
    line = 12  # "Water is split, oxygen is released, and ATP and NADPH are produced."
    end = len(session.text("Photosynthesis.md").splitlines()[line])
    fake.embed_delay_s = 600.0  # a model far slower than a keystroke: it answers when the test lets it
    try:
        _insert(session, "Photosynthesis.md", line, end, " [[", 2)
        found = await _complete_at(session, "Photosynthesis.md", line, end + 3)
        assert found.is_incomplete  # ranked by a stand-in: the client asks again
        assert {"Cells", "Enzymes", "Index"} <= {item.label for item in found.items}
        fake.embed_delay_s = 0.0  # the model answers now
        again = found
        async with asyncio.timeout(120):  # bounds a hang only
            while again.is_incomplete:
                await asyncio.sleep(0.1)
                again = await _complete_at(session, "Photosynthesis.md", line, end + 3)
        assert not again.is_incomplete  # the vector arrived: the full ranking
    finally:
        fake.embed_delay_s = 0.0
    assert {item.label for item in again.items} == {item.label for item in found.items}
    assert _query_embeds(fake, lambda query: query.startswith("The light dependent reactions")) == 1


def _document_embeds(fake: FakeOllama, word: str) -> int:
    """How many passages (not queries) containing ``word`` the server sent to the model."""
    count = 0
    for request in fake.embeddings():
        texts = request["input"] if isinstance(request["input"], list) else [request["input"]]
        count += sum(1 for t in texts if not t.startswith(QUERY_PREFIX) and word in t)
    return count


async def test_edited_passages_embedded_after_the_pause_then_found_by_meaning(semantic) -> None:
    session, fake = semantic
    word = "Quokkazymes"
    paragraph = f"{word} carry pigments through the stroma of every chloroplast membrane."
    before = (await session.wait_idle())["indexing"]["updatesDone"]  # earlier tests' edits are all done
    session.open("Cells.md")
    end = len(session.text("Cells.md").splitlines())
    loop = asyncio.get_running_loop()
    edited = loop.time()
    _insert(session, "Cells.md", end, 0, f"\n{paragraph}\n", 2)
    deadline = edited + 120  # bounds a hang only: a busy machine may take long
    while (await session.status())["indexing"]["updatesDone"] == before:
        assert loop.time() < deadline, "the edit was never re-indexed"
        await asyncio.sleep(0.02)
    # Searchable by keywords at once; its meaning follows once the user paused (a second later).
    found = plain(await session.request("cognivault/search", {"query": word, "mode": "lexical", "k": 3}))
    assert found["results"][0]["path"] == "Cells.md"

    async def found_by_meaning() -> bool:
        found = plain(await session.request("cognivault/search", {"query": paragraph, "mode": "dense", "k": 3}))
        return any(r["path"] == "Cells.md" and word in r["snippet"] for r in found["results"])

    # Before the pause is over nothing was embedded; on a machine too busy to get here within the
    # pause only the outcome below is checked (a timer is no assertion).
    embeds_before_pause = _document_embeds(fake, word)
    in_pause = loop.time() - edited < EMBED_EDITS_AFTER_MS / 1000
    if in_pause:
        assert embeds_before_pause == 0
    await session.wait_idle()
    assert _document_embeds(fake, word) == 1
    assert await found_by_meaning()


async def test_typed_names_rank_prefix_matches_first_and_forgive_typing_errors(tmp_path) -> None:  # noqa: ANN001
    """Prefix matches of titles and aliases first, generated study notes only when their name is
    typed, a swapped or wrong letter forgiven."""
    fresh = await start_session(tmp_path)
    try:
        (fresh.vault / "Photons and light.md").write_text("# Photons and light\n\nLight comes in photons.\n",
                                                          "utf-8")
        (fresh.vault / "Study").mkdir()
        (fresh.vault / "Study" / "Workshop - Photosynthesis.md").write_text(
            "---\ncognivault: 1\ntype: workshop\nsource_notes: ['[[Photosynthesis]]']\n---\n"
            "# Workshop - Photosynthesis\n\nPhotosynthesis, chlorophyll, light reactions, Calvin cycle, glucose, "
            "thylakoid: photosynthesis photosynthesis.\n", "utf-8")
        await fresh.request("cognivault/reindex", {})
        for _ in range(400):
            status = await fresh.wait_idle()
            if status["index"]["files"].get("indexed") == 7:
                break
            await asyncio.sleep(0.05)
        assert status["index"]["files"]["indexed"] == 7

        async def labels(typed: str, version: int) -> list[str]:
            text = ("# Scratch\n\nPhotosynthesis captures light with chlorophyll in the thylakoid; "
                    f"see [[{typed}\n")
            found = await _complete(fresh, text, f"[[{typed}", version)
            return [item.label for item in sorted(found.items, key=lambda i: i.sort_text)]

        found = await labels("pho", 1)
        assert set(found[:2]) == {"Photosynthesis", "Photons and light"}, found
        assert "Workshop - Photosynthesis" not in found and "Study/Workshop - Photosynthesis" not in found
        assert (await labels("Work", 2))[0] in ("Workshop - Photosynthesis", "Study/Workshop - Photosynthesis")
        assert (await labels("Photosytnhesis", 3))[0] == "Photosynthesis"  # two letters swapped
        assert (await labels("Enzmyes", 4))[0] == "Enzymes"
        alias = await labels("Übersciht", 5)  # an alias of Index, two letters swapped
        assert alias[0] == "Index" and "Übersicht" in alias[:3]
        # The paragraph's ranking still orders notes when nothing is typed, generated notes left out.
        empty = await labels("", 6)
        assert empty[0] == "Photosynthesis" and not any("Workshop" in label for label in empty)
    finally:
        await stop_session(fresh)


async def test_names_first_with_the_embedder_on_before_any_passage_has_a_vector(tmp_path) -> None:  # noqa: ANN001
    """An index built without vectors, served as it is (no pass at start) with the embedding model
    on: typed names still come first, a bare ``[[`` lists the notes, nothing fails."""
    keyword_only = await start_session(tmp_path)  # builds the index, keywords only
    await stop_session(keyword_only)
    with fake_ollama_in_thread() as fake:
        session = await start_session(tmp_path, options={
            "embeddings": True, "embedding": {"provider": "ollama"}, "models": {"ollama_host": fake.url},
            "indexing": {"onStart": False}})
        try:
            status = await session.status()
            assert status["provider"]["embeddings"] == "ollama:embeddinggemma", status["provider"]
            assert status["index"]["stages"]["embedded"]["done"] == 0, status["index"]["stages"]
            # The paragraph is about enzymes and cells; the typed name wins over what it is about.
            paragraph = "Enzymes lower the activation energy of reactions in cells and organelles; compare [["
            typed = {"Fo": "Fotosynthese", "phot": "Photosynthesis", "Übers": "Index",
                     "Photosytnhesis": "Photosynthesis"}
            for version, (written, expected) in enumerate(typed.items(), start=1):
                text = f"# Scratch\n\n{paragraph}{written}\n"
                found = await _complete(session, text, f"[[{written}", version, trigger="[" if version == 1 else None)
                labels = [item.label for item in sorted(found.items, key=lambda i: i.sort_text)]
                assert labels and labels[0] == expected, (written, labels)
            text = f"# Scratch\n\n{paragraph}\n"
            found = await _complete(session, text, "[[", len(typed) + 1)
            labels = {item.label for item in found.items}
            assert {"Photosynthesis", "Cells", "Enzymes", "Index", "Fotosynthese"} <= labels, labels
        finally:
            await stop_session(session)
