"""kill -9 at random moments of a real `cognivault index`: nothing lost, nothing doubled, same results.

The indexer runs as a subprocess on a copy of the help vault (its screenshots
are left out through .cognivaultignore: OCR would only make the run longer,
not different) with a fake Ollama as embedding model, slowed so that kills land
in every phase. After 20 seeded kills and a final clean finish, the catalog,
BM25 and FAISS must agree, every chunk must be there once, search must answer
as a clean build does, and no passage may have been embedded again beyond the
batch that was in flight at each kill.
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
from fake_ollama import fake_ollama_in_thread

from cognivault.config import load_settings
from cognivault.engine import Engine
from cognivault.index.pipeline import EMBED_BATCH

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
