"""A search that names a note opens with that note's opening passage (real keyword index, real files)."""

from __future__ import annotations

import pytest

from cognivault.config import load_settings
from cognivault.engine import Engine
from cognivault.index.hybrid import FusedHit
from cognivault.index.named_note import as_note_name, open_with_named_note

CANVAS = """---
aliases: [Whiteboard]
---
Canvas is a core plugin for visual note-taking. It gives you infinite space to lay out notes and to connect
them to other notes, attachments and web pages, so that you see how your ideas relate.

## Navigate the canvas

Pan the canvas with the space bar, zoom the canvas with the wheel, and drag the canvas with the middle
mouse button: the canvas moves, the canvas cards stay where they are on the canvas.
"""
LEINWAND = """---
lang: de
---
Canvas ist eine Kernerweiterung für visuelle Notizen. Sie bietet unendlich viel Platz, um Notizen
anzuordnen und mit anderen Notizen, Anhängen und Webseiten zu verbinden, damit Zusammenhänge sichtbar werden.

## Die Ansicht bewegen

Die Ansicht verschiebst du mit der Leertaste, du zoomst mit dem Mausrad, und du ziehst die Ansicht
mit der mittleren Maustaste: die Ansicht bewegt sich, die Karten bleiben an ihrem Platz stehen.
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("named")
    vault = root / "vault"
    notes = {"en/Plugins/Canvas.md": CANVAS, "de/Erweiterungen/Leinwand.md": LEINWAND,
             "en/Getting started.md": "Open the canvas from the ribbon to start; every canvas is a file.\n"}
    for path, text in notes.items():
        (vault / path).parent.mkdir(parents=True, exist_ok=True)
        (vault / path).write_text(text, "utf-8")
    engine = Engine(vault, load_settings(vault, {"index": {"index_dir": str(root / "index")}}, environ={}),
                    embedder=None)
    engine.index()
    yield engine
    engine.close()


def opening(engine: Engine, path: str) -> str:
    return engine.store.reader().chunks_of(path)[0].id


@pytest.mark.parametrize("query", ["canvas", "Canvas?", "[[Canvas]]", "whiteboard"])
def test_a_query_naming_a_note_opens_with_its_first_passage(engine: Engine, query: str) -> None:
    results = engine.search(query, k=5, mode="lexical").results
    assert results[0].chunk_id == opening(engine, "en/Plugins/Canvas.md"), [r.path for r in results]
    assert len({r.chunk_id for r in results}) == len(results)


def test_a_query_that_is_no_name_ranks_as_usual(engine: Engine) -> None:
    german = engine.search("Ansicht bewegen mit der Leertaste", k=3, mode="lexical").results
    assert german[0].path == "de/Erweiterungen/Leinwand.md"
    assert german[0].chunk_id != opening(engine, "de/Erweiterungen/Leinwand.md")


def test_a_scope_without_the_named_note_is_respected(engine: Engine) -> None:
    from cognivault.index.scope import Scope

    results = engine.search("canvas", k=5, mode="lexical", scope=Scope(folders=["de"])).results
    assert results and all(r.path.startswith("de/") for r in results)
    leinwand = engine.search("Leinwand", k=5, mode="lexical", scope=Scope(folders=["de"])).results
    assert leinwand[0].chunk_id == opening(engine, "de/Erweiterungen/Leinwand.md")


def test_names_and_non_names() -> None:
    assert as_note_name("  “Graph view”? ") == "Graph view"
    assert as_note_name("how do I open the graph view of my whole vault please") == ""
    hits = [FusedHit("b2", 0.03, 1, None), FusedHit("x", 0.02, 2, None), FusedHit("a1", 0.01, 3, None)]
    path_of = {"b2": "b.md", "x": "x.md", "a1": "a.md", "b1": "b.md"}.get
    openings = {"a.md": "a1", "b.md": "b1"}.get
    moved = open_with_named_note(hits, ["a.md", "b.md"], path_of, openings)
    assert [h.chunk_id for h in moved] == ["b1", "b2", "x", "a1"]  # b ranks above a: b's opening first
    assert moved[0].score == 0.03
    assert open_with_named_note(hits, ["a.md"], path_of, openings)[0].chunk_id == "a1"
    assert open_with_named_note(hits, [], path_of, openings) == hits
