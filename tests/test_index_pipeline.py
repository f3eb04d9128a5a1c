"""Indexing end to end on real files: incremental by content, deletions, ignores, failures, resume."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from answer_support import WordHashEmbedder
from cognivault.config import load_settings
from cognivault.engine import Engine
from cognivault.index.lexical import LexicalIndex
from cognivault.index.scope import Scope
from cognivault.vault.chunking import CHUNKER_VERSION
from cognivault.vault.types import ChunkDraft, ParsedNote

NOTES = {
    "Biology/Photosynthesis.md": """---
tags: [biology/plants, howto]
aliases: [Fotosynthese]
---
# Photosynthesis

Photosynthesis is the process by which green plants turn light energy into chemical energy stored
in glucose. It takes place in the chloroplasts of leaf cells and releases oxygen as a by-product.

## Light reactions

The light-dependent reactions happen in the thylakoid membranes. Chlorophyll absorbs photons, water is
split, and the energy is stored in ATP and NADPH for the next stage of the process. See [[Calvin cycle]].

## Calvin cycle summary

In the stroma the enzyme RuBisCO fixes carbon dioxide; ATP and NADPH from the light reactions drive the
reduction of the fixed carbon into sugar phosphates that the plant uses to build glucose and starch.
""",
    "Biology/Calvin cycle.md": """# Calvin cycle

The Calvin cycle is the light-independent part of photosynthesis. It uses ATP and NADPH to turn carbon
dioxide into glyceraldehyde-3-phosphate, which the plant converts into glucose, sucrose and starch.
#biology/plants
""",
    "Deutsch/Einstellungen.md": """---
lang: de
---
# Synchronisierungseinstellungen

Die Synchronisierungseinstellungen legen fest, welche Dateien zwischen deinen Geräten abgeglichen werden.
Du findest sie in den Einstellungen unter Sync; dort wählst du auch aus, ob Bilder und Audiodateien
übertragen werden sollen und wie Konflikte zwischen zwei Geräten gelöst werden.
""",
    "Sync/Conflicts.md": """---
status: done
---
# Sync conflicts

When two devices change the same note before they sync, a conflict happens. The newer version is kept
and the older one is saved as a conflict copy next to the note, so no edit is ever lost. #howto
""",
}


def write_vault(root: Path) -> Path:
    for relative, text in NOTES.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")
    return root


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return write_vault(tmp_path / "vault")


def keyword_engine(vault: Path) -> Engine:
    return Engine(vault, load_settings(vault), embedder=None)


def states(report) -> dict[str, str]:
    return {f.path: f.state for f in report.files}


def test_first_index_then_unchanged(vault: Path) -> None:
    with keyword_engine(vault) as engine:
        first = engine.index()
        assert set(states(first).values()) == {"indexed"}
        assert first.totals()["chunks"] >= 5
        assert first.consistency["agree"] is True
        second = engine.index()
        assert set(states(second).values()) == {"unchanged"}
        assert second.totals()["chunks"] == first.totals()["chunks"]


def test_index_lives_in_cache_not_vault(vault: Path, isolated_user_paths: Path) -> None:
    with keyword_engine(vault) as engine:
        engine.index()
        assert Path(engine.index_dir).is_relative_to(isolated_user_paths / "cache")
    assert not any(p.suffix in (".sqlite3", ".faiss") for p in vault.rglob("*"))


def test_editing_one_section_keeps_other_chunk_ids(vault: Path) -> None:
    with keyword_engine(vault) as engine:
        engine.index()
        before = {c.heading_path: (c.id, c.content_hash)
                  for c in engine.store.catalog.chunks_of("Biology/Photosynthesis.md")}
        note = vault / "Biology/Photosynthesis.md"
        note.write_text(note.read_text("utf-8").replace("RuBisCO fixes", "RuBisCO (an enzyme) fixes"), "utf-8")
        report = engine.index()
        assert states(report)["Biology/Photosynthesis.md"] == "indexed"
        assert states(report)["Biology/Calvin cycle.md"] == "unchanged"
        after = {c.heading_path: (c.id, c.content_hash)
                 for c in engine.store.catalog.chunks_of("Biology/Photosynthesis.md")}
    assert before.keys() == after.keys()
    changed = [path for path in before if before[path][1] != after[path][1]]
    assert changed == [("Photosynthesis", "Calvin cycle summary")]
    assert all(before[path][0] == after[path][0] for path in before)


def test_deleted_file_leaves_every_index(vault: Path) -> None:
    with keyword_engine(vault) as engine:
        engine.index()
        assert engine.search("conflict copy", mode="lexical").results
        (vault / "Sync/Conflicts.md").unlink()
        report = engine.index()
        assert states(report)["Sync/Conflicts.md"] == "deleted"
        assert engine.store.catalog.file("Sync/Conflicts.md") is None
        assert not [r for r in engine.search("conflict copy", mode="lexical").results
                    if r.path == "Sync/Conflicts.md"]
        assert engine.status()["consistency"]["agree"]


def test_german_compound_matches_part(vault: Path) -> None:
    with keyword_engine(vault) as engine:
        engine.index()
        results = engine.search("Einstellungen Konflikte", mode="lexical").results
        assert results and results[0].path == "Deutsch/Einstellungen.md"
        # The part matches the compound too: "Synchronisierung" alone finds the compound heading.
        hits = engine.search("Synchronisierung", mode="lexical").results
        assert hits and hits[0].path == "Deutsch/Einstellungen.md"


@pytest.mark.parametrize(("filters", "expected"), [
    (["folder:Biology"], {"Biology/Photosynthesis.md", "Biology/Calvin cycle.md"}),
    (["tag:biology"], {"Biology/Photosynthesis.md", "Biology/Calvin cycle.md"}),
    (["tag:howto"], {"Biology/Photosynthesis.md", "Sync/Conflicts.md"}),
    (["folder:Sync", "tag:howto"], {"Sync/Conflicts.md"}),
    (["folder:Biology", "folder:Sync"], {"Biology/Photosynthesis.md", "Biology/Calvin cycle.md",
                                         "Sync/Conflicts.md"}),
    (["file:Biology/Calvin cycle.md"], {"Biology/Calvin cycle.md"}),
    (["property:status=done"], {"Sync/Conflicts.md"}),
])
def test_scope_filters(vault: Path, filters: list[str], expected: set[str]) -> None:
    with keyword_engine(vault) as engine:
        engine.index()
        results = engine.search("the process of sync and light energy photosynthesis conflict",
                                mode="lexical", k=50, scope=Scope.parse(filters)).results
    assert {r.path for r in results} <= expected
    assert results


def test_results_carry_location_and_snippet(vault: Path) -> None:
    with keyword_engine(vault) as engine:
        engine.index()
        result = engine.search("thylakoid membranes", mode="lexical").results[0]
    assert result.path == "Biology/Photosynthesis.md"
    assert result.heading_path == ["Photosynthesis", "Light reactions"] or \
        result.heading_path == ["Light reactions"]
    lines = NOTES["Biology/Photosynthesis.md"].splitlines()
    assert any("thylakoid" in line for line in lines[result.line_start - 1:result.line_end])
    assert result.highlights
    start, end = result.highlights[0]
    assert result.snippet[start:end].lower().startswith("thylakoid")


def test_per_note_collapses(vault: Path) -> None:
    with keyword_engine(vault) as engine:
        engine.index()
        results = engine.search("photosynthesis ATP NADPH", mode="lexical", per_note=True).results
    assert len({r.path for r in results}) == len(results)


def test_ignore_rules_and_symlinks(vault: Path, tmp_path: Path) -> None:
    (vault / ".obsidian").mkdir()
    (vault / ".obsidian" / "workspace.md").write_text("obsidian internal state " * 20)
    (vault / ".trash").mkdir()
    (vault / ".trash" / "Old.md").write_text("deleted note text " * 20)
    (vault / "Drafts").mkdir()
    (vault / "Drafts" / "Secret.md").write_text("a private draft note that must stay out " * 5)
    (vault / ".cognivaultignore").write_text("Drafts/\n*.tmp.md\n")
    (vault / "scratch.tmp.md").write_text("scratch text " * 20)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "Leak.md").write_text("text outside the vault " * 20)
    os.symlink(outside / "Leak.md", vault / "Leak.md")
    os.symlink(outside, vault / "linked-folder")
    with keyword_engine(vault) as engine:
        report = engine.index()
    paths = set(states(report))
    assert paths == set(NOTES)
    assert report.ignored_files >= 3


def test_a_note_or_folder_flipped_into_a_link_after_the_scan_is_not_read(vault: Path, tmp_path: Path,
                                                                            monkeypatch) -> None:
    """Pentest, issue 28: the scan checked the link, the read followed whatever was there by then (a note
    flipped into a link to an outside secret was indexed and searchable). Now the read opens the names
    without following links and checks the file it opened."""
    from cognivault.index import pipeline

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# Secret\n\nThe launch code is zebrawalrus forty-two.\n", "utf-8")
    (outside / "Biology").mkdir()
    for name in ("Photosynthesis.md", "Cells.md"):
        (outside / "Biology" / name).write_text("# Decoy\n\nAlso zebrawalrus, from outside the vault.\n", "utf-8")
    real_scan = pipeline.scan_vault
    flipped = sorted(NOTES)[-1]

    def scan_then_flip(*args, **kwargs):  # type: ignore[no-untyped-def]
        result = real_scan(*args, **kwargs)
        (vault / flipped).unlink()
        (vault / flipped).symlink_to(outside / "secret.md")  # a note becomes a link to a secret...
        (vault / "Biology").rename(tmp_path / "Biology-moved")
        (vault / "Biology").symlink_to(outside / "Biology")  # ...and a folder a link to another place
        return result

    monkeypatch.setattr(pipeline, "scan_vault", scan_then_flip)
    with keyword_engine(vault) as engine:
        report = engine.index()
        found = engine.search("zebrawalrus", mode="lexical").results
    assert found == []
    failed = {f.path: f.reason for f in report.files if f.state == "failed"}
    assert flipped in failed and "symbolic link" in failed[flipped]
    assert all(path in failed for path in NOTES if path.startswith("Biology/"))


def test_an_attachment_flipped_into_a_link_after_the_scan_is_not_read(vault: Path, tmp_path: Path,
                                                                      monkeypatch) -> None:
    """Issue 28, the same for attachments, which the indexer's worker process reads: it opens the scanned
    file without following links and hands the readers that open file, not the vault's name."""
    from cognivault.index import isolation

    page = ("<html><body><p>The {} page tells how the rotor of a centrifuge is balanced: tubes of equal mass "
            "go opposite each other, the lid is closed before the start, and the speed is raised slowly until "
            "the run reaches the rate the protocol asks for.</p></body></html>")
    (vault / "Pages").mkdir()
    (vault / "Pages" / "kept.html").write_text(page.format("kept"), "utf-8")
    (vault / "Pages" / "flipped.html").write_text(page.format("flipped"), "utf-8")
    secret = tmp_path / "secret.html"
    secret.write_text(page.replace("rotor", "zebrawalrus rotor"), "utf-8")
    real_submit = isolation.IsolatedExtractor.submit_all

    def flip_then_submit(self, files):  # type: ignore[no-untyped-def]
        (vault / "Pages" / "flipped.html").unlink()  # checked and hashed already: the worker reads it next
        (vault / "Pages" / "flipped.html").symlink_to(secret)
        return real_submit(self, files)

    monkeypatch.setattr(isolation.IsolatedExtractor, "submit_all", flip_then_submit)
    with keyword_engine(vault) as engine:
        report = engine.index()
        assert engine.search("zebrawalrus", mode="lexical").results == []
        found = {r.path for r in engine.search("centrifuge rotor", mode="lexical").results}
    files = {f.path: f for f in report.files}
    assert "Pages/kept.html" in found, files["Pages/kept.html"]
    assert files["Pages/kept.html"].state == "indexed"
    flipped = files["Pages/flipped.html"]
    assert flipped.state == "failed" and "symbolic link" in (flipped.reason or "")


def test_a_symlink_loop_is_skipped_with_its_reason_and_the_rest_indexes(vault: Path) -> None:
    os.symlink("Loop.md", vault / "Loop.md")  # leads to itself
    os.symlink("Round B", vault / "Round A")  # two folder links leading to each other
    os.symlink("Round A", vault / "Round B")
    (vault / "Biology" / "Twice.md").symlink_to(vault / "Biology" / "Twice.md")
    with keyword_engine(vault) as engine:
        report = engine.index()
    assert {path for path, state in states(report).items() if state == "indexed"} == set(NOTES)  # went on
    skipped = {f.path: f.reason for f in report.files if f.state == "skipped"}
    assert "symbolic link that leads back to itself" in skipped["Loop.md"]
    assert "symbolic link that leads back to itself" in skipped["Biology/Twice.md"]


def test_failed_and_binary_files_fail_alone(vault: Path) -> None:
    (vault / "junk.md").write_bytes(b"\x00\x01\x02binary\x00" * 100)
    (vault / "broken.pdf").write_bytes(b"%PDF-1.7\nthis is not really a pdf\n%%EOF")
    (vault / "broken.docx").write_bytes(b"PK\x03\x04 not a zip")
    with keyword_engine(vault) as engine:
        report = engine.index()
    by_path = {f.path: f for f in report.files}
    for name in ("junk.md", "broken.pdf", "broken.docx"):
        assert by_path[name].state == "failed", by_path[name]
        assert by_path[name].reason
    assert all(by_path[p].state == "indexed" for p in NOTES)


def test_interrupted_run_resumes_without_duplicates(vault: Path) -> None:
    for number in range(30):
        (vault / f"Extra/Note {number}.md").parent.mkdir(exist_ok=True)
        (vault / f"Extra/Note {number}.md").write_text(
            f"# Extra {number}\n\n" + f"Paragraph {number} about leaves, light and sugar. " * 12, "utf-8")
    with keyword_engine(vault) as engine:
        seen = []

        def stop_early(event) -> None:
            seen.append(event)
            if event.stage == "read" and event.done == 10:
                engine.stop_indexing()

        first = engine.index(stop_early)
        assert first.interrupted
        done_first = len([f for f in first.files if f.state == "indexed"])
        assert 0 < done_first < len(NOTES) + 30
        second = engine.index()
        assert not second.interrupted
        assert len([f for f in second.files if f.state == "unchanged"]) >= done_first - 1
        status = engine.status()
        assert status["consistency"]["agree"]
        ids = [row[0] for row in engine.store.catalog.chunk_ids_and_hashes()]
        assert len(ids) == len(set(ids))


def test_corrupt_catalog_is_moved_aside_and_rebuilt(vault: Path) -> None:
    with keyword_engine(vault) as engine:
        engine.index()
        catalog_path = Path(engine.index_dir) / "catalog.sqlite3"
    catalog_path.write_bytes(b"this is not a database" * 100)
    for suffix in ("-wal", "-shm"):
        Path(str(catalog_path) + suffix).unlink(missing_ok=True)
    with keyword_engine(vault) as engine:
        assert any("unreadable" in message for message in engine.store.messages)
        report = engine.index()
        assert set(states(report).values()) == {"indexed"}
    assert catalog_path.with_name("catalog.sqlite3.corrupt").exists()
    sqlite3.connect(catalog_path).execute("SELECT COUNT(*) FROM chunks").fetchone()


@pytest.mark.parametrize("damaged", ["rows.npz", "rows.json", "vocab.json"])
def test_corrupt_lexical_index_is_rebuilt(vault: Path, damaged: str) -> None:
    with keyword_engine(vault) as engine:
        engine.index()
        lexical_dir = Path(engine.index_dir) / "lexical"
    (lexical_dir / damaged).write_bytes(b"garbage")
    with keyword_engine(vault) as engine:
        assert any("lexical index" in message for message in engine.store.messages)
        assert engine.search("thylakoid", mode="lexical").results
        assert engine.status()["consistency"]["agree"]
    assert (lexical_dir.with_name("lexical.corrupt") / damaged).read_bytes() == b"garbage"


QUERIES = ["thylakoid", "glucose starch", "conflict copy", "Synchronisierung Geräte", "light energy",
           "carbon dioxide sugar", "note sync devices", "osmosis water"]


def _ranking(lexical: LexicalIndex, query: str) -> list[tuple[float, tuple[str, ...]]]:
    """(score, chunk ids with that score) from best to worst: equal scores may come in any order."""
    groups: dict[float, list[str]] = {}
    for hit in lexical.search(query, None, 50):
        groups.setdefault(round(hit.score, 4), []).append(hit.chunk_id)
    return [(score, tuple(sorted(ids))) for score, ids in groups.items()]


def _edit(engine: Engine, path: str, text: str | None) -> None:
    """What the language server does for one edit: store the note, then update the keyword index."""
    from cognivault.index.pipeline import Indexer
    from cognivault.vault.scan import VaultFile

    store = engine.store
    before = store.catalog.generation()
    indexer = Indexer(engine.vault, engine.settings, store, None)
    if text is None:
        (engine.vault / path).unlink()
        indexer.remove_paths([path])
    else:
        (engine.vault / path).parent.mkdir(parents=True, exist_ok=True)
        (engine.vault / path).write_text(text, "utf-8")
        indexer.index_markdown(VaultFile(path, engine.vault / path, "markdown"))
    store.update_lexical({path}, before)


EDITS: list[tuple[str, str | None]] = [
    ("Biology/Calvin cycle.md", NOTES["Biology/Calvin cycle.md"] + "\nStarch is stored in the stroma.\n"),
    ("Biology/Osmosis.md", "# Osmosis\n\nOsmosis moves water through a membrane from the side with fewer "
                           "dissolved particles to the side with more, until both sides balance out.\n"),
    ("Sync/Conflicts.md", NOTES["Sync/Conflicts.md"].replace("conflict copy", "duplicate copy")),
    ("Biology/Photosynthesis.md", None),
    ("Biology/Osmosis.md", "# Osmosis\n\nWater crosses a membrane towards the side with more dissolved "
                           "particles; plant cells take up water this way and stay firm.\n\n## Light\n\n"
                           "Light energy has nothing to do with osmosis, but glucose does.\n"),
]


@pytest.mark.parametrize("compact_every_edit", [False, True])
def test_keyword_index_after_edits_ranks_as_a_clean_rebuild(vault: Path, monkeypatch: pytest.MonkeyPatch,
                                                            compact_every_edit: bool) -> None:
    from cognivault.index import lexical as lexical_module

    if compact_every_edit:
        monkeypatch.setattr(lexical_module, "COMPACT_MIN_ROWS", 0)
        monkeypatch.setattr(lexical_module, "COMPACT_SHARE", 0.0)
    with keyword_engine(vault) as engine:
        engine.index()
        for path, text in EDITS:
            _edit(engine, path, text)
            updated = engine.store.lexical
            assert updated is not None and updated.generation == engine.store.catalog.generation()
            clean = LexicalIndex.build(engine.store.catalog)
            assert sorted(updated.chunk_ids) == sorted(clean.chunk_ids)
            assert all(_ranking(updated, q) == _ranking(clean, q) for q in QUERIES), path
            assert (updated.delta_share == 0) == compact_every_edit
        assert engine.status()["consistency"]["agree"]
        assert not engine.search("thylakoid", mode="lexical").results  # its note was deleted
        assert engine.search("osmosis", mode="lexical").results[0].path == "Biology/Osmosis.md"


def test_saved_keyword_index_behind_the_catalog_catches_up_without_rebuild(
        vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with keyword_engine(vault) as engine:
        engine.index()
        for path, text in EDITS:  # in memory only: as if the process died before saving
            _edit(engine, path, text)
        expected = {q: _ranking(engine.store.lexical, q) for q in QUERIES}

    def no_rebuild(*args: object, **kwargs: object) -> None:
        raise AssertionError("the keyword index was rebuilt")

    monkeypatch.setattr(LexicalIndex, "build", no_rebuild)
    with keyword_engine(vault) as engine:
        lexical = engine.store.lexical
        assert lexical is not None and lexical.generation == engine.store.catalog.generation()
        assert {q: _ranking(lexical, q) for q in QUERIES} == expected


class BatchRecordingEmbedder(WordHashEmbedder):
    """The word-hash model, noting how many passages each call embedded."""

    def __init__(self) -> None:
        self.batches: list[int] = []

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        self.batches.append(len(texts))
        return super().embed_documents(texts)


def test_edit_searchable_at_once_and_embedded_later_in_stoppable_batches(vault: Path) -> None:
    """``read_files`` (the live vault while the user types): the keyword index has
    the edit at once, the model is not called; ``embed_files`` adds the vectors later, a batch at a
    time until told to stop, and a second call finishes the rest; an undo gets its cached vectors back
    at once."""
    embedder = BatchRecordingEmbedder()
    path = "Sync/Conflicts.md"
    sections = ["Zeppelin hangars shelter airships from storms", "Marmalade recipes need bitter oranges",
                "Lighthouse keepers trimmed lamp wicks nightly"]
    text = "".join(f"# {s.split()[0]}\n\n{s}, as everybody knows who tried it, again and again.\n\n"
                   for s in sections)
    settings = load_settings(vault)
    settings.index.chunk_chars = 200  # a passage per section
    with Engine(vault, settings, embedder=embedder) as engine:
        engine.index()
        embedder.batches.clear()
        updates = engine.read_files([path], texts={path: text})
        assert updates.updated == [path] and embedder.batches == []
        assert engine.search("marmalade oranges", k=1, mode="lexical").results[0].path == path
        missing = len(engine.store.catalog.missing_embeddings(embedder.model_id, [path]))
        consistency = engine.store.consistency()
        assert missing >= 2 and consistency["embedded_chunks"] == consistency["catalog_chunks"] - missing
        query = "which recipes need the bitter oranges for marmalade"
        assert engine.search(query, k=1, mode="dense").results[0].path != path

        embedder.batches.clear()  # the query's
        assert engine.embed_files([path], batch_size=1, stop=lambda: True) == 1  # one batch, then stopped
        assert engine.embed_files([path], batch_size=1) == missing - 1
        assert engine.embed_files([path]) == 0
        assert embedder.batches == [1] * missing
        assert engine.store.consistency()["agree"]
        assert engine.search(query, k=1, mode="dense").results[0].heading_path == ["Marmalade"]

        calls = len(embedder.batches)
        engine.read_files([path])  # undone: the file's own text, whose vectors are cached
        assert engine.store.consistency()["agree"] and len(embedder.batches) == calls


def test_second_writer_is_refused_and_reads(vault: Path) -> None:
    with keyword_engine(vault) as writer:
        writer.index()
        reader = keyword_engine(vault)
        try:
            assert not reader.store.writable
            assert reader.search("thylakoid", mode="lexical").results
            from cognivault.index.store import IndexBusy

            with pytest.raises(IndexBusy):
                reader.index()
        finally:
            reader.close()


def test_related_without_vectors_uses_words_and_links(vault: Path) -> None:
    with keyword_engine(vault) as engine:
        engine.index()
        related = engine.related("Biology/Calvin cycle.md", k=5)
        paths = [note.path for note in related]
        assert "Biology/Calvin cycle.md" not in paths
        assert paths[0] == "Biology/Photosynthesis.md"
        assert any("links here" in reason for reason in related[0].reasons)
        # Photosynthesis links to Calvin cycle; it is excluded from its own list unless asked.
        own = [note.path for note in engine.related("Biology/Photosynthesis.md", k=5)]
        assert "Biology/Calvin cycle.md" not in own
        with_linked = engine.related("Biology/Photosynthesis.md", k=5, include_linked=True)
        assert "Biology/Calvin cycle.md" in [note.path for note in with_linked]


def test_chunk_paths_read_the_keyword_index_and_the_catalog_for_the_rest(vault: Path) -> None:
    with keyword_engine(vault) as engine:
        engine.index()
        catalog = engine.store.reader()
        expected = {chunk.id: chunk.path for path in ("Biology/Calvin cycle.md", "Biology/Photosynthesis.md")
                    for chunk in catalog.chunks_of(path)}
        assert engine.chunk_paths(list(expected)) == expected
        lexical, engine.store.lexical = engine.store.lexical, None  # no keyword index yet: all from the catalog
        try:
            assert engine.chunk_paths([*expected, "no-such-chunk"]) == expected
        finally:
            engine.store.lexical = lexical


def test_related_unknown_note_is_a_clear_error(vault: Path) -> None:
    from cognivault.engine import EngineError

    with keyword_engine(vault) as engine:
        engine.index()
        with pytest.raises(EngineError, match="no indexed note"):
            engine.related("Nowhere/Missing.md")
        assert engine.note_path("Calvin cycle") == "Biology/Calvin cycle.md"


def test_provider_none_means_keyword_search_and_no_model(vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from cognivault.cli import main
    from cognivault.config import ConfigError

    (vault / ".cognivault").mkdir()
    (vault / ".cognivault" / "config.toml").write_text('[embedding]\nprovider = "none"\n', "utf-8")
    with Engine(vault, load_settings(vault)) as engine:  # "auto" would look for a model: "none" does not
        assert engine.embedder is None and engine.keyword_only and engine.embedder_error is None
        report = engine.index()
        assert report.embedding_model == "none" and report.embedded_chunks == 0
        response = engine.search("thylakoid membranes")
        assert response.mode == "hybrid" and response.results[0].path == "Biology/Photosynthesis.md"
        assert response.notes == ["meaning-based search is off (embedding.provider = none); showing keyword results"]
        assert engine.status(per_file=False)["embedding"]["provider"] == "none"
        assert engine.related("Biology/Calvin cycle.md")[0].path == "Biology/Photosynthesis.md"
    (vault / ".cognivault" / "config.toml").unlink()
    assert main(["index", "--vault", str(vault), "--provider", "none", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["embedding_model"] == "none"
    with pytest.raises(ConfigError, match="embedding.provider"):
        load_settings(vault, {"embedding": {"provider": "nothing"}})


def read_blank_image_in_worker(tmp_path: Path):  # noqa: ANN201 - an AttachmentResult
    """What the isolated attachment worker makes of a blank PNG."""
    from PIL import Image

    from cognivault.config import IndexSettings
    from cognivault.index.isolation import IsolatedExtractor

    image = tmp_path / "scan.png"
    Image.new("RGB", (200, 80), "white").save(image)
    extractor = IsolatedExtractor(IndexSettings())
    try:
        assert extractor.submit_all([("scan.png", image)]) == 1
        return extractor.results.get(timeout=60)
    finally:
        extractor.stop()


def test_attachment_worker_reuses_what_the_parent_knows_of_tesseract(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Each run spawns its reader anew: it must not ask tesseract again what this process knows."""
    from cognivault.vault.extractors import ocr

    pytesseract = pytest.importorskip("pytesseract")
    # This process "knows" tesseract has no language data: a worker that asked tesseract itself would OCR.
    monkeypatch.setattr(ocr, "_languages_cache", {str(pytesseract.pytesseract.tesseract_cmd): []})
    result = read_blank_image_in_worker(tmp_path)
    assert result.state == "skipped" and "no language data" in (result.reason or "")


def test_vector_index_is_written_only_when_the_vault_changed(vault: Path) -> None:
    """A pass over an unchanged vault leaves the saved vector index alone (writing and syncing it
    held up searches right after start-up); a changed note writes it again, and a new engine loads it."""
    embedder = WordHashEmbedder()
    with Engine(vault, load_settings(vault), embedder=embedder) as engine:
        engine.index()
        saved = engine.store.dense_path
        first = saved.stat().st_ino, saved.stat().st_mtime_ns
        assert set(states(engine.index()).values()) == {"unchanged"}
        assert (saved.stat().st_ino, saved.stat().st_mtime_ns) == first
        (vault / "Sync/Conflicts.md").write_text("# Airships\n\nZeppelin hangars shelter airships.\n", "utf-8")
        engine.index()
        assert (saved.stat().st_ino, saved.stat().st_mtime_ns) != first
        count = len(engine.store.dense)
    with Engine(vault, load_settings(vault), embedder=WordHashEmbedder()) as reopened:
        reopened.store.load_derived()
        assert len(reopened.store.dense) == count
        assert set(states(reopened.index()).values()) == {"unchanged"}


FAKE_TESSERACT = """#!/bin/sh
case "$1" in
  --list-langs) printf 'List of available languages (1):\\neng\\n' ;;
  --version) echo 'tesseract 5.3.0' ;;
  *) echo "threads limited to ${OMP_THREAD_LIMIT:-nothing}" > "$2.txt" ;;
esac
"""


def test_attachment_worker_runs_tesseract_on_one_openmp_thread(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """OCR beside the embedder: tesseract's spinning OpenMP threads would take the model's cores."""
    from cognivault.vault.extractors import ocr

    pytest.importorskip("pytesseract")
    fake = tmp_path / "bin" / "tesseract"
    fake.parent.mkdir()
    fake.write_text(FAKE_TESSERACT)
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.delenv("OMP_THREAD_LIMIT", raising=False)
    monkeypatch.setattr(ocr, "_languages_cache", {})  # the worker asks the fake which languages it has
    result = read_blank_image_in_worker(tmp_path)
    assert result.state == "indexed", result.reason
    assert result.extraction is not None
    assert "threads limited to 1" in " ".join(chunk.text for chunk in result.extraction.chunks)


class NextVersionEmbedder(WordHashEmbedder):
    """The word-hash model's next version (a new quantization recipe, say): another id, other vectors."""

    model_id = "test:word-hash-64-v2"

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return np.roll(super().embed_documents(texts), 1, axis=1)


def test_a_new_model_version_re_embeds_everything_and_never_mixes_vectors(vault: Path) -> None:
    """Vectors are cached per model id: an index embedded by one version is embedded again by the
    next (no old vector served as a new one), and going back computes nothing again."""
    settings = load_settings(vault)
    first, second = WordHashEmbedder(), NextVersionEmbedder()

    def dense_matches(engine: Engine, embedder: WordHashEmbedder) -> bool:
        store = engine.store
        assert store.dense is not None and store.dense.model_id == embedder.model_id
        stored = dict(store.catalog.embedded_chunks(embedder.model_id))
        ids = [chunk.id for path in NOTES for chunk in store.catalog.chunks_of(path)]
        expected = np.vstack([np.frombuffer(stored[chunk_id], dtype=np.float32) for chunk_id in ids])
        return len(store.dense) == len(ids) and np.array_equal(store.dense.vectors_of(ids), expected)

    with Engine(vault, settings, embedder=first) as engine:
        chunks = engine.index().embedded_chunks
        assert chunks > 0 and dense_matches(engine, first)
    with Engine(vault, settings, embedder=second) as engine:
        report = engine.index()
        assert report.embedded_chunks == chunks and report.reused_chunks == 0
        assert 0 < report.timings["embed"] <= report.timings["embed_and_attachments"]
        assert dense_matches(engine, second) and engine.store.consistency()["agree"]
    with Engine(vault, settings, embedder=first) as engine:
        report = engine.index()
        assert report.embedded_chunks == 0
        assert dense_matches(engine, first) and engine.store.consistency()["agree"]


def test_notes_cut_by_another_chunker_version_are_cut_again(vault: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """A chunker change gives unchanged notes other passages: the next pass cuts every note again (its
    bytes did not change), embeds only the passages whose text changed, and the pass after is a no-op."""
    import cognivault.index.pipeline as pipeline

    current = pipeline.chunk_note

    def older_chunker(text: str, note: ParsedNote, path: str, **options: int) -> list[ChunkDraft]:
        drafts = current(text, note, path, **options)
        return [replace(d, text=d.text + " Zeppelin.") for d in drafts] if path == "Sync/Conflicts.md" else drafts

    settings = load_settings(vault)
    with monkeypatch.context() as older, Engine(vault, settings, embedder=WordHashEmbedder()) as engine:
        older.setattr(pipeline, "chunk_note", older_chunker)
        older.setattr(pipeline, "CHUNKER_VERSION", CHUNKER_VERSION - 1)
        engine.index()
        assert engine.search("zeppelin", mode="lexical").results
    with Engine(vault, settings, embedder=WordHashEmbedder()) as engine:
        report = engine.index()
        assert states(report) == {path: "indexed" for path in NOTES}
        assert report.embedded_chunks == len(engine.store.catalog.chunks_of("Sync/Conflicts.md"))
        assert not engine.search("zeppelin", mode="lexical").results
        assert engine.store.consistency()["agree"]
        again = engine.index()
        assert set(states(again).values()) == {"unchanged"} and again.embedded_chunks == 0


def test_an_attachment_without_text_is_not_read_again_while_unchanged(vault: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from cognivault.index import pipeline

    submitted: list[str] = []

    class Recording(pipeline.IsolatedExtractor):  # the real extractor, its submissions counted
        def submit_all(self, files):  # type: ignore[no-untyped-def]
            files = list(files)
            submitted.extend(path for path, _ in files)
            return super().submit_all(files)

    monkeypatch.setattr(pipeline, "IsolatedExtractor", Recording)
    (vault / "blank.html").write_text("<html><body><p> </p></body></html>", "utf-8")
    (vault / "short.csv").write_text("a\n1\n", "utf-8")
    with keyword_engine(vault) as engine:
        first = {f.path: f for f in engine.index().files}
        assert first["blank.html"].state == "skipped" and "no readable text" in (first["blank.html"].reason or "")
        assert first["short.csv"].state == "skipped" and "too short" in (first["short.csv"].reason or "")
        assert {"blank.html", "short.csv"} <= set(submitted)
        submitted.clear()
        again = {f.path: f for f in engine.index().files}
        assert submitted == []  # nothing new to read
        assert again["blank.html"].state == "skipped" and again["blank.html"].reason == first["blank.html"].reason
        (vault / "short.csv").write_text("animal,sound\ncat,meow\ndog,woof\ncow,moo\nowl,hoot\n" * 3, "utf-8")
        engine.index()
        assert submitted == ["short.csv"]  # changed: read again


def test_attachments_read_by_another_extractor_version_are_read_again(vault: Path) -> None:
    """An index whose DOCX, PPTX and HTML text came from an older extractor (one that wrote tables as
    ``a | b`` lines, as before extractor versions were recorded) reads those files again on the next
    pass, though their bytes did not change; an image is not OCR'd again, its extractor did not change;
    the pass after is a no-op."""
    import docx
    from PIL import Image, ImageDraw, ImageFont
    from pptx import Presentation

    document = docx.Document()
    document.add_paragraph("The leaf tissues and what each of them does for the plant during the day.")
    table = document.add_table(rows=2, cols=2)
    for cell, value in zip([*table.rows[0].cells, *table.rows[1].cells],
                           ["Tissue", "Main function", "Guard cells", "Control stomata"], strict=True):
        cell.text = value
    document.save(str(vault / "leaf.docx"))
    presentation = Presentation()
    slide = presentation.slides.add_slide(presentation.slide_layouts[1])
    slide.shapes.title.text = "Photosystems"
    slide.placeholders[1].text_frame.text = "Photosystem II splits water and passes electrons on"
    presentation.save(str(vault / "light.pptx"))
    (vault / "page.html").write_text(
        "<html><body><article><h1>Stomata</h1><p>Stomata are pores in the leaf epidermis that let carbon "
        "dioxide in and water vapour out.</p><table><tr><th>Plant</th><th>Strategy</th></tr><tr><td>CAM"
        "</td><td>Open stomata at night</td></tr></table></article></body></html>", "utf-8")
    image = Image.new("RGB", (900, 200), "white")
    font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 48) \
        if Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf").is_file() else ImageFont.load_default(48)
    ImageDraw.Draw(image).text((30, 60), "Chlorophyll absorbs light", fill="black", font=font)
    image.save(vault / "figure.png")
    attachments = ("leaf.docx", "light.pptx", "page.html")

    settings = load_settings(vault)
    with Engine(vault, settings, embedder=WordHashEmbedder()) as engine:
        first = states(engine.index())
        assert all(first[name] == "indexed" for name in attachments)
        catalog = engine.store.catalog
        with catalog.db:  # as an index built before extractor versions were recorded, by the old extractors
            catalog.db.execute("DELETE FROM meta WHERE key LIKE 'extractor_version:%'")
            catalog.db.execute("UPDATE chunks SET text = replace(replace(text, '| ', ''), ' |', '') "
                               "WHERE path = 'leaf.docx'")
    with Engine(vault, settings, embedder=WordHashEmbedder()) as engine:
        report = engine.index()
        second = states(report)
        assert {name: second[name] for name in attachments} == {name: "indexed" for name in attachments}
        assert second["figure.png"] == ("unchanged" if first["figure.png"] == "indexed" else first["figure.png"])
        assert all(second[path] == "unchanged" for path in NOTES)
        assert report.embedded_chunks == 0, "the text read again is the text embedded before: the cache serves it"
        (leaf,) = engine.store.catalog.chunks_of("leaf.docx")
        assert "| Tissue | Main function |\n|---|---|\n| Guard cells | Control stomata |" in leaf.text
        assert engine.store.consistency()["agree"]
        again = engine.index()
        assert set(states(again).values()) <= {"unchanged", "skipped"} and again.embedded_chunks == 0
