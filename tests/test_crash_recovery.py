"""Crashes and damaged index files: nothing lost, nothing doubled, same results, never a crash loop.

kill -9 at random moments of a real `cognivault index`:

The indexer runs as a subprocess on a copy of the help vault (its screenshots
are left out through .cognivaultignore: OCR would only make the run longer,
not different) with a fake Ollama as embedding model, slowed so that kills land
in every phase. After 20 seeded kills and a final clean finish, the catalog,
BM25 and FAISS must agree, every chunk must be there once, search must answer
as a clean build does, and no passage may have been embedded again beyond the
batch that was in flight at each kill.

Damaged index files: each of the catalog (SQLite), the FAISS file, its stamp
and the BM25 folder, overwritten with garbage or cut in half, is detected on
the next open, moved aside with a ``.corrupt`` suffix and rebuilt, with a
message; search then answers as before, and the open after that is clean.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from cognivault.config import load_settings
from cognivault.engine import Engine
from cognivault.index.pipeline import EMBED_BATCH
from cognivault.index.store import CATALOG_FILE, LEXICAL_DIR
from fake_ollama import FakeOllama, fake_ollama, fake_ollama_in_thread  # noqa: F401 - fixture

KILLS = 20
QUERIES = ["embed a note in another note", "sync conflicts between devices", "Tastenkombination rückgängig",
           "canvas cards", "publish custom domain"]


def _run_index(vault: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "cognivault.cli", "index", "--vault", str(vault), "--json"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


@pytest.mark.slow
def test_twenty_kills_lose_nothing(help_vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    vault = tmp_path / "vault"
    shutil.copytree(help_vault, vault)
    (vault / ".cognivaultignore").write_text("*.png\n*.jpg\n*.jpeg\n*.ogg\n", "utf-8")
    rng = random.Random(20261129)
    with fake_ollama_in_thread(embed_delay_s=0.05) as fake:
        env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "crash-cache"),
               "COGNIVAULT_EMBEDDING_PROVIDER": "ollama", "COGNIVAULT_MODELS_OLLAMA_HOST": fake.url}
        kills = 0
        deadline = time.monotonic() + 240
        while kills < KILLS and time.monotonic() < deadline:
            process = _run_index(vault, env)
            time.sleep(rng.uniform(0.5, 4.0))
            if process.poll() is not None:
                break  # it finished before this kill: the index is complete
            process.send_signal(signal.SIGKILL)
            process.wait(10)
            kills += 1
        assert kills >= 5, "the run finished too fast to be interrupted"
        final = _run_index(vault, env)
        _, errors = final.communicate(timeout=600)
        assert final.returncode == 0, errors.decode()[-2000:]

        sent = Counter(text for request in fake.embeddings() for text in request["input"])
        settings = load_settings(vault, {"models": {"ollama_host": fake.url},
                                         "embedding": {"provider": "ollama"}})
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "crash-cache"))
        with Engine(vault, settings, writable=False) as crashed:
            status = crashed.status(per_file=False)
            catalog_ids = [row[0] for row in crashed.store.catalog.chunk_ids_and_hashes()]
            lexical_ids = list(crashed.store.lexical.chunk_ids)
            dense_ids = sorted(crashed.store.dense.chunk_of.values())
            crashed_results = {q: [(r.chunk_id, round(r.score, 6)) for r in crashed.search(q, k=10).results]
                               for q in QUERIES}
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "clean-cache"))
        with Engine(vault, settings) as clean:
            clean.index()
            clean_results = {q: [(r.chunk_id, round(r.score, 6)) for r in clean.search(q, k=10).results]
                             for q in QUERIES}
            clean_chunks = clean.store.catalog.chunk_count()

    assert status["consistency"]["agree"], status["consistency"]
    assert len(catalog_ids) == len(set(catalog_ids)) == clean_chunks
    assert sorted(catalog_ids) == sorted(lexical_ids) == dense_ids
    assert crashed_results == clean_results
    repeated = sum(count - 1 for count in sent.values() if count > 1)
    assert repeated <= kills * EMBED_BATCH, f"{repeated} passages embedded again after {kills} kills"


def _garbage(path: Path) -> None:
    path.write_bytes(b"\x00not an index\xff" * 64)


def _halve(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[:len(data) // 2])


# (what to damage, how, the file or folder that must be moved aside)
DAMAGES = {
    "catalog-garbage": (CATALOG_FILE, _garbage, CATALOG_FILE),
    "catalog-truncated": (CATALOG_FILE, _halve, CATALOG_FILE),
    "faiss-garbage": ("dense", _garbage, "dense"),
    "faiss-truncated": ("dense", _halve, "dense"),
    "faiss-stamp-garbage": ("dense-stamp", _garbage, "dense"),
    "bm25-truncated": (f"{LEXICAL_DIR}/rows.npz", _halve, LEXICAL_DIR),
    "bm25-vocab-garbage": (f"{LEXICAL_DIR}/vocab.json", _garbage, LEXICAL_DIR),
}


@pytest.mark.parametrize("damage", sorted(DAMAGES))
def test_a_damaged_index_file_is_moved_aside_and_rebuilt(damage: str, example_vault: Path,
                                                         fake_ollama: FakeOllama) -> None:
    for attachment in (example_vault / "attachments").iterdir():
        attachment.unlink()  # notes only: this is about the index files, not about extraction
    settings = load_settings(example_vault, {"models": {"ollama_host": fake_ollama.url},
                                             "embedding": {"provider": "ollama"}})

    def results(engine: Engine) -> dict[str, list[str]]:
        return {q: [r.chunk_id for r in engine.search(q, k=5).results] for q in ("Calvin cycle stroma",
                                                                               "chlorophyll pigments")}

    with Engine(example_vault, settings) as engine:
        engine.index()
        before = results(engine)
        index_dir = Path(engine.index_dir)
        dense_path = engine.store.dense_path
    target, harm, moved = DAMAGES[damage]
    files = {"dense": dense_path, "dense-stamp": dense_path.with_suffix(".json")}
    harm(files.get(target, index_dir / target))
    if target == CATALOG_FILE:  # what a crash leaves: no journal to repair the damage from
        for suffix in ("-wal", "-shm"):
            (index_dir / (CATALOG_FILE + suffix)).unlink(missing_ok=True)

    with Engine(example_vault, settings) as engine:
        assert engine.store.messages and ".corrupt" in engine.store.messages[0], engine.store.messages
        engine.index()
        assert results(engine) == before
        assert engine.status()["consistency"]["agree"]
    moved_path = files.get(moved, index_dir / moved)
    assert moved_path.with_name(moved_path.name + ".corrupt").exists()
    with Engine(example_vault, settings) as engine:  # rebuilt once: the next open is clean
        assert engine.store.messages == []
        assert results(engine) == before
