"""cognivault/search, cognivault/related, cognivault/status (and cognivault/reindex)."""

from __future__ import annotations

import pytest
from harness import TEST_VAULT, plain, start_session, stop_session
from lsprotocol import types

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_search(shared) -> None:
    answer = plain(await shared.request("cognivault/search", {"query": "thylakoid membranes", "k": 3}))
    assert answer["mode"] == "hybrid" and answer["notes"]  # says dense search is off
    first = answer["results"][0]
    assert first["path"] == "Photosynthesis.md" and first["uri"] == shared.uri("Photosynthesis.md")
    assert first["headingPath"] == ["Photosynthesis", "Light reactions"]
    lines = shared.text("Photosynthesis.md").split("\n")
    assert lines[first["range"]["start"]["line"]].startswith("The light-dependent reactions")
    assert first["range"]["end"]["character"] == len(lines[first["range"]["end"]["line"]])
    assert "thylakoid" in first["snippet"] and first["score"] > 0 and first["chunkId"]
    assert len(answer["results"]) <= 3


@pytest.mark.parametrize("scope, paths", [
    (["folder:Deutsch"], {"Deutsch/Fotosynthese.md"}),
    (["tag:study/exam"], {"Biology/Enzymes.md", "Index.md"}),
    ({"files": ["Cells.md"]}, {"Cells.md"}),
])
async def test_search_scope(shared, scope, paths) -> None:
    answer = plain(await shared.request("cognivault/search", {"query": "Photosynthese Zellen enzyme cells",
                                                              "scope": scope, "k": 20, "mode": "lexical"}))
    assert answer["results"] and {r["path"] for r in answer["results"]} <= paths


@pytest.mark.parametrize("params, message", [
    ({"query": ""}, "query"),
    ({"query": "light", "mode": "psychic"}, "unknown search mode"),
    ({"query": "light", "k": 0}, "k:"),
    ({"query": "light", "scope": ["planet:mars"]}, "unknown kind"),
    ([], "params must be an object"),
])
async def test_search_rejects_bad_params(shared, params, message: str) -> None:
    with pytest.raises(Exception, match=message):
        await shared.request("cognivault/search", params)


async def test_related(shared) -> None:
    answer = plain(await shared.request("cognivault/related", {"uri": shared.uri("Deutsch/Fotosynthese.md"),
                                                               "includeLinked": True}))
    by_path = {note["path"]: note for note in answer["related"]}
    assert "Index.md" in by_path and "linked" in by_path["Index.md"]["why"]
    for note in answer["related"]:
        assert note["uri"] == shared.uri(note["path"]) and note["score"] > 0 and note["reasons"]
    scores = [note["score"] for note in answer["related"]]
    assert scores == sorted(scores, reverse=True)


async def test_related_unknown_note(shared) -> None:
    with pytest.raises(Exception, match="no indexed note|not in the vault"):
        await shared.request("cognivault/related", {"uri": "file:///somewhere/else.md"})


async def test_status(shared) -> None:
    status = await shared.status()
    assert status["indexing"]["phase"] == "ready"
    assert status["indexing"]["summary"].startswith("5 indexed")
    assert status["provider"]["embeddings"] is None and "keyword" in status["provider"]["note"]
    index = status["index"]
    assert index["files"]["indexed"] == 5 and index["consistency"]["agree"]
    assert index["stages"]["lexical"]["up_to_date"]
    assert index["failures"] == []
    assert status["server"]["positionEncoding"] == "utf-16"
    assert "rename" in status["server"]["features"]


async def test_failures_are_listed(shared) -> None:
    (shared.vault / "broken.md").write_bytes(b"# Broken\n\x00\x00 binary junk")
    await shared.request("cognivault/reindex", {})
    import asyncio

    async with asyncio.timeout(120):  # bounds a hang only
        while True:
            status = await shared.status()
            if status["indexing"]["phase"] == "ready" and status["index"]["failures"]:
                break
            await asyncio.sleep(0.05)
    (failure,) = status["index"]["failures"]
    assert failure["path"] == "broken.md" and "binary" in failure["reason"]


async def test_configuration_change_applies_live(shared) -> None:
    """Last in this module: it turns diagnostics off and changes the search defaults."""
    shared.open("Index.md")
    await shared.diagnostics("Index.md", lambda found: len(found) == 3)
    shared.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"cognivault": {"diagnostics": {"enabled": False}, "search": {"k": 2, "mode": "lexical"}}}))
    await shared.diagnostics("Index.md", lambda found: len(found) == 0)
    results = plain(await shared.request("cognivault/search", {"query": "light energy chlorophyll"}))
    assert results["mode"] == "lexical" and len(results["results"]) <= 2


async def test_provider_none_in_the_vault_config_loads_no_model(tmp_path) -> None:  # noqa: ANN001
    import shutil

    shutil.copytree(TEST_VAULT, tmp_path / "vault")
    (tmp_path / "vault" / ".cognivault").mkdir()
    (tmp_path / "vault" / ".cognivault" / "config.toml").write_text('[embedding]\nprovider = "none"\n', "utf-8")
    session = await start_session(tmp_path, options={"embeddings": True})
    try:
        status = await session.status()
        assert status["provider"]["embeddings"] is None and "keyword" in status["provider"]["note"]
        assert status["index"]["embedding"]["provider"] == "none" and status["index"]["embedding"]["error"] is None
        answer = plain(await session.request("cognivault/search", {"query": "thylakoid membranes", "k": 3}))
        assert answer["results"][0]["path"] == "Photosynthesis.md"
        assert answer["notes"] == ["meaning-based search is off (embedding.provider = none); showing keyword results"]
    finally:
        await stop_session(session)


async def test_related_of_a_note_not_indexed_yet_answers_from_its_file(tmp_path) -> None:  # noqa: ANN001
    """A note just written (here: on disk, the server not told) is not in the index: its related
    notes come from its key words and links, marked noteIndexed false, never an error."""
    session = await start_session(tmp_path)
    try:
        (session.vault / "Study").mkdir()
        (session.vault / "Study" / "Mitochondria deck.md").write_text(
            "---\ncognivault: 1\nsource_notes: ['[[Cells]]']\n---\n# Mitochondria and membranes\n\n"
            "Q :: what do mitochondria produce? A :: ATP, see [[Cells]]\n", "utf-8")
        answer = plain(await session.request("cognivault/related", {
            "uri": session.uri("Study/Mitochondria deck.md"), "includeLinked": True}))
        assert answer["noteIndexed"] is False and "indexing" not in answer
        by_path = {note["path"]: note for note in answer["related"]}
        assert "Cells.md" in by_path and "linked" in by_path["Cells.md"]["why"]
        indexed = plain(await session.request("cognivault/related", {"uri": session.uri("Cells.md")}))
        assert "noteIndexed" not in indexed
    finally:
        await stop_session(session)


async def test_related_and_search_on_an_index_not_built_yet_are_empty_not_errors(tmp_path) -> None:  # noqa: ANN001
    session = await start_session(tmp_path, options={"indexing": {"onStart": False}})
    try:
        answer = plain(await session.request("cognivault/related", {"uri": session.uri("Cells.md")}))
        assert answer["related"] == [] and answer["noteIndexed"] is False
        found = plain(await session.request("cognivault/search", {"query": "mitochondria"}))
        assert found["results"] == []
    finally:
        await stop_session(session)
