"""Related notes and search while the index is being built: answers from what is there, with the
pass's progress, never an error."""

from __future__ import annotations

from pathlib import Path

from cognivault.config import Settings
from cognivault.engine import Engine
from cognivault.index.pipeline import Progress

NOTES = {
    "Cells.md": "# Cells\n\nMitochondria produce ATP. The membrane controls what enters the cell.\n",
    "Energy.md": "# Energy\n\nATP carries energy inside the cell; mitochondria make most of it.\n",
    "Plants.md": "# Plants\n\nChloroplasts capture light. See [[Cells]].\n",
}


def _vault(tmp_path: Path) -> tuple[Path, Settings]:
    vault = tmp_path / "vault"
    vault.mkdir()
    for name, text in NOTES.items():
        (vault / name).write_text(text, "utf-8")
    settings = Settings()
    settings.index.index_dir = str(tmp_path / "index")
    return vault, settings


def test_search_and_related_during_the_first_pass_report_progress(tmp_path: Path) -> None:
    vault, settings = _vault(tmp_path)
    seen: list[tuple[str, dict[str, object], dict[str, object] | None]] = []
    with Engine(vault, settings, embedder=None) as engine:
        def during(event: Progress) -> None:
            response = engine.search("mitochondria ATP", k=5).to_dict()
            related = [note.path for note in engine.related("Plants.md", include_linked=True)]
            seen.append((event.stage, response, {"related": related, "indexing": engine.indexing()}))

        assert engine.indexing() is None
        engine.index(during)
        assert seen and all(response["indexing"] == extra["indexing"] for _, response, extra in seen)
        assert all(isinstance(extra["indexing"], dict) and {"done", "total"} <= set(extra["indexing"])
                   for _, _, extra in seen)
        # Once the pass is over: no progress, and the note's related notes come from the index.
        after = engine.search("mitochondria ATP", k=5).to_dict()
        assert "indexing" not in after and after["results"]
        assert engine.indexing() is None
        assert "Cells.md" in [note.path for note in engine.related("Plants.md", include_linked=True)]


def test_related_of_a_note_written_after_the_pass_is_read_from_disk(tmp_path: Path) -> None:
    vault, settings = _vault(tmp_path)
    with Engine(vault, settings, embedder=None) as engine:
        engine.index()
        (vault / "New.md").write_text("# Mitochondria\n\nThey produce ATP. [[Energy]]\n", "utf-8")
        for name in ("New.md", str(vault / "New.md")):  # as a vault path, and as the editor's absolute path
            related = {note.path: note.reasons for note in engine.related(name, include_linked=True)}
            assert "Energy.md" in related and "linked from this note" in related["Energy.md"], name
            assert "Cells.md" in related  # by its key words
