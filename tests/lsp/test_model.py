"""The server's note-graph snapshot: a per-file patch gives exactly what a full reload gives."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from harness import TEST_VAULT

from cognivault.engine import Engine
from cognivault.graph import LinkRef, NoteInfo, Snapshot
from cognivault.index.pipeline import Indexer
from cognivault.vault.scan import VaultFile


def _backlinks(snapshot: Snapshot) -> dict[str, list[tuple[str, int, int]]]:
    return {target: sorted((link.src, link.line, link.start_col) for link in links)
            for target, links in snapshot.backlinks().items() if links}


@pytest.fixture
def engine(tmp_path: Path):
    shutil.copytree(TEST_VAULT, tmp_path / "vault")
    from cognivault.config import load_settings

    settings = load_settings(tmp_path / "vault", {"index": {"index_dir": str(tmp_path / "index")}})
    with Engine(tmp_path / "vault", settings, embedder=None) as engine:
        engine.index()
        yield engine


@pytest.mark.parametrize("path, change", [
    ("Cells.md", lambda t: t.replace("lang: en", "lang: en\naliases: [Nonexistent Note, Zellen]")),  # new alias
    ("New note.md", lambda t: "# New\n[[Cells]] [[Index#Study Index]]\n"),  # a new note
    ("Photosynthesis.md", lambda t: t.replace("## Calvin cycle", "## Calvin")),  # same names
    ("Index.md", lambda t: t.replace("aliases: [Start, Übersicht]", "aliases: [Start]")),  # alias dropped
])
def test_patch_equals_reload(engine: Engine, path: str, change) -> None:  # type: ignore[no-untyped-def]
    catalog = engine.store.catalog
    before = Snapshot.load(catalog)
    before.backlinks()
    before.link_index()
    _derived(before, engine)
    file = engine.vault / path
    file.write_text(change(file.read_text("utf-8") if file.exists() else ""), "utf-8")
    Indexer(engine.vault, engine.settings, engine.store, None).index_markdown(VaultFile(path, file, "markdown"))
    patched = before.patched(catalog, {path})
    reloaded = Snapshot.load(catalog)
    assert _backlinks(patched) == _backlinks(reloaded)
    assert patched.generation == reloaded.generation
    assert {k: len(v) for k, v in patched.link_index().items()} == {k: len(v) for k, v in reloaded.link_index().items()}
    assert _derived(patched, engine) == _derived(reloaded, engine)  # updated from the previous snapshot's = built anew


def _derived(snapshot: Snapshot, engine: Engine) -> tuple[list[object], list[object]]:
    """The symbol and completion indexes features derive per snapshot."""
    from types import SimpleNamespace

    from cognivault.lsp import completion, workspace_symbols

    ctx = SimpleNamespace(view=SimpleNamespace(snapshot=snapshot), engine=engine)
    return (list(workspace_symbols._entries(ctx)),  # type: ignore[arg-type]
            [(e.path, e.name, e.haystack) for e in completion._entries(ctx, True)])  # type: ignore[arg-type]


def test_patch_after_delete(engine: Engine) -> None:
    catalog = engine.store.catalog
    before = Snapshot.load(catalog)
    before.backlinks()
    (engine.vault / "Biology/Enzymes.md").unlink()
    Indexer(engine.vault, engine.settings, engine.store, None).remove_paths(["Biology/Enzymes.md"])
    assert _backlinks(before.patched(catalog, {"Biology/Enzymes.md"})) == _backlinks(Snapshot.load(catalog))


def test_buffer_only_names_resolve_like_a_full_pass() -> None:
    def note(path: str, aliases: tuple[str, ...] = ()) -> NoteInfo:
        return NoteInfo(path, path, aliases, (), (), (), 1)

    def link(src: str, target: str) -> LinkRef:
        return LinkRef(src, target, None, None, None, False, 1, 0, 5)

    files = {"a.md": "markdown", "b/c.md": "markdown", "d.md": "markdown"}
    notes = {"a.md": note("a.md"), "b/c.md": note("b/c.md"), "d.md": note("d.md", ("Dee",))}
    links = {"a.md": [link("a.md", "c"), link("a.md", "Dee"), link("a.md", "x"), link("a.md", "New")],
             "b/c.md": [link("b/c.md", "a"), link("b/c.md", "../d")]}
    snapshot = Snapshot(1, files, notes, links, {})
    overlay = {"New.md": (), "d.md": ("x",)}  # a new note; d's alias changed
    resolver, backlinks = snapshot.alternate((("New.md", ()), ("d.md", ("x",))), overlay)
    expected: dict[str, set[LinkRef]] = {}
    for items in links.values():
        for item in items:
            target = resolver.resolve(item.target, item.src)
            if target:
                expected.setdefault(target, set()).add(item)
    assert {k: set(v) for k, v in backlinks.items() if v} == expected
    assert expected["New.md"] and expected["d.md"] == {link("a.md", "x"), link("b/c.md", "../d")}


@pytest.mark.parametrize("text", [
    "---\naliases: [Zellen, Cell]\n---\n# Cells\n",
    "\ufeff---\r\nalias: Zellen, Cell\r\n---\r\nBody\r\n",  # BOM, CRLF, a comma-separated alias
    "---\naliases:\n  - Zellen\n  - 42\n---\n",
    "---\naliases: [unclosed\n---\ntext",  # invalid YAML: no frontmatter
    "---\naliases: [Zellen]\nno closing fence\n",
    "# No frontmatter\naliases: [Zellen]\n",
])
def test_aliases_read_without_the_body_are_the_parse_aliases(text: str) -> None:
    from cognivault.vault.markdown import note_aliases, parse_note

    assert note_aliases(text) == parse_note(text, "Cells.md").aliases


def test_an_edited_open_note_is_found_by_its_new_alias_before_it_is_parsed(engine: Engine) -> None:
    from cognivault.lsp.documents import parse_text
    from cognivault.lsp.model import Document, VaultView
    from cognivault.lsp.positions import split_lines

    snapshot = Snapshot.load(engine.store.catalog)
    text = (engine.vault / "Cells.md").read_text("utf-8").replace("lang: en", "lang: en\naliases: [Zellkunde]")
    doc = Document("file:///Cells.md", "Cells.md", text, split_lines(text), 2, parse_text, True)
    view = VaultView(engine.vault, snapshot, {"Cells.md": doc}, lambda path: None)
    assert view.resolve("Zellkunde", "Index.md") == "Cells.md"
    assert view.link_name("Cells.md", "Index.md") == "Cells"
    assert not doc.parsed  # finding notes by name needed its frontmatter only
    info = view.note("Cells.md")
    assert info is not None and info.aliases == ("Zellkunde",) and doc.parsed
    assert [h.text for h in info.headings][:2] == ["Cells", "Organelles"]


def test_open_documents_parse_each_version_once_and_stand_in_with_the_last_parse() -> None:
    from cognivault.lsp.documents import OpenDocuments

    documents = OpenDocuments(lambda: None)
    try:
        first = documents.get("file:///a.md", "# A\n[[B]]\n", 1, "a.md")
        assert first is not None and not first.parsed  # the document asked about: parsed when needed
        assert documents.get("file:///a.md", "# A\n[[B]]\n", 1, "a.md") is first
        assert documents.get("file:///a.md", "# A\n[[B]]\n", 1, "a.md", stale_ok=True) is None  # none parsed yet
        assert [link.target for link in first.note.links] == ["B"]
        # Another request's view of a newer version: the last parse stands in while it is parsed.
        assert documents.get("file:///a.md", "# A\n[[C]]\n", 2, "a.md", stale_ok=True) is first
        second = documents.get("file:///a.md", "# A\n[[C]]\n", 2, "a.md")
        assert second is not None and second is not first and second.version == 2
    finally:
        documents.close()


@pytest.mark.parametrize("seed", range(20))
def test_a_bare_link_picks_what_the_tiered_match_picks(seed: int) -> None:
    import random

    from cognivault.lsp.completion import _Entry, _haystack, _shorter_first, best_matches, every_note, matching_tiers

    rng = random.Random(seed)
    entries = []
    for number in range(rng.randint(0, 60)):
        name = f"{rng.choice(['Cell', 'Zelle', 'Index', 'Study/Quiz'])} {number}"
        entries.append(_Entry(f"{name}.md", name, name, (), _haystack(name, name, ()), True, rng.random() < 0.2))
    entries.sort(key=_shorter_first)
    paths = [entry.path for entry in entries] + ["Attachment.png"]  # a ranked path without an entry
    ranked = rng.sample(paths, rng.randint(0, len(paths)))
    ranking = {path: (rank, 1.0 / (rank + 1)) for rank, path in enumerate(ranked)}
    limit = rng.choice([1, 5, 20, 100])
    skip = rng.choice([None, *paths])
    assert every_note(entries, ranking, limit, skip) == best_matches(
        entries, matching_tiers(entries, "", limit), ranking, limit, skip)
