"""The same files rank the same however their index was built: clean, incremental, or resumed after kill -9.

Issue 28: the embedded model's dynamic int8 scaled activations by the whole batch, so a chunk's vector
depended on which texts it was embedded with, and equal scores came back in the order vectors or rows
happened to be stored. Here one small vault (with a long note cut into windows and a note copied into
two folders, whose passages tie exactly) is indexed three ways with the real embedded model:

- clean: the final files, indexed once;
- incremental: an earlier state indexed, then notes edited, added and deleted, then indexed again;
- resumed: a real ``cognivault index`` child killed with SIGKILL once it has stored some vectors and
  not all, then finished.

Every stored vector, and the top 10 (ids and scores) of 20 queries in hybrid, keyword and meaning
search, must be identical. Unit tests pin the tie keys of each ranking.
"""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from answer_support import vault_settings
from cognivault.engine import Engine
from cognivault.index.dense import DenseIndex
from cognivault.index.store import CATALOG_FILE

TOPICS = {
    "Biology": ["enzymes", "proteins", "the cell membrane", "mitochondria", "ATP", "photosynthesis",
                "chlorophyll", "ribosomes", "DNA replication", "osmosis", "antibodies", "hormones"],
    "History": ["the printing press", "trade routes", "the Roman senate", "medieval guilds", "the steam engine",
                "colonial ports", "city walls", "tax records", "the silk road", "monasteries"],
    "Computing": ["hash tables", "binary search", "the call stack", "garbage collection", "TCP handshakes",
                  "cache lines", "compilers", "recursion", "database indexes", "thread pools"],
    "Cooking": ["sourdough starter", "caramelised onions", "emulsions", "braising", "fermentation",
                "knife skills", "stock", "roux", "pastry dough", "brine"],
}
VERBS = ["depends on", "speeds up", "is limited by", "protects", "replaced", "was shaped by", "feeds",
         "competes with", "is measured against", "slowly changes"]
ENDINGS = ["under pressure", "over many years", "when it is warm", "in small steps", "without anyone noticing",
           "at the end of each cycle", "for most students", "in every textbook example"]


def _sentence(rng: random.Random, words: list[str]) -> str:
    first, second = rng.sample(words, 2)
    return f"{first.capitalize()} {rng.choice(VERBS)} {second} {rng.choice(ENDINGS)}."


def _note(rng: random.Random, topic: str, number: int, sections: int = 5, long_section: bool = False) -> str:
    words = TOPICS[topic]
    parts = [f"# {topic} notes {number}\n"]
    for index in range(sections):
        heading = " and ".join(rng.sample(words, 2))
        count = 60 if long_section and index == 0 else rng.randint(3, 7)  # 60 sentences: several windows
        parts.append(f"## {heading.capitalize()}\n\n" + " ".join(_sentence(rng, words) for _ in range(count)))
    return "\n\n".join(parts) + "\n"


def final_notes() -> dict[str, str]:
    rng = random.Random(28)
    notes = {f"{topic}/{topic} {number}.md": _note(rng, topic, number, long_section=number == 1)
             for topic in TOPICS for number in range(1, 6)}
    glossary = _note(rng, "Computing", 99, sections=3)
    notes["Shared/a/Glossary.md"] = notes["Shared/b/Glossary.md"] = glossary  # passages that tie exactly
    return notes


def earlier_notes() -> dict[str, str]:
    """An earlier state: five notes read differently, two not written yet, one since deleted."""
    rng = random.Random(1)
    notes = dict(final_notes())
    for path in ["Biology/Biology 2.md", "History/History 3.md", "Computing/Computing 1.md",
                 "Cooking/Cooking 4.md", "Shared/a/Glossary.md"]:
        notes[path] = _note(rng, path.split("/")[0] if not path.startswith("Shared") else "Computing", 7)
    del notes["Cooking/Cooking 5.md"], notes["Shared/b/Glossary.md"]
    notes["History/Old draft.md"] = _note(rng, "History", 42)
    return notes


def queries() -> list[str]:
    rng = random.Random(20)
    picked = []
    for topic, words in TOPICS.items():
        for _ in range(5):
            first, second = rng.sample(words, 2)
            picked.append(f"how {first} {rng.choice(VERBS)} {second}" if len(picked) % 2 else f"{first} {topic}")
    return picked


def write_notes(vault: Path, notes: dict[str, str]) -> None:
    for existing in vault.rglob("*.md"):
        if existing.relative_to(vault).as_posix() not in notes:
            existing.unlink()
    for relative, text in notes.items():
        path = vault / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text("utf-8") != text:
            path.write_text(text, "utf-8")


def _stored_vectors(index_dir: Path) -> dict[str, bytes]:
    with sqlite3.connect(f"file:{index_dir / CATALOG_FILE}?mode=ro", uri=True) as db:
        return dict(db.execute("SELECT content_hash, vector FROM embeddings"))


def _vector_count(index_dir: Path) -> int:
    try:
        with sqlite3.connect(f"file:{index_dir / CATALOG_FILE}?mode=ro", uri=True, timeout=5) as db:
            return int(db.execute("SELECT count(*) FROM embeddings").fetchone()[0])
    except sqlite3.DatabaseError:  # not created yet, or its tables not yet
        return 0


def _rankings(engine: Engine) -> dict[tuple[str, str], list[tuple[str, float]]]:
    return {(mode, query): [(hit.chunk_id, hit.score) for hit in engine.search(query, k=10, mode=mode).results]
            for query in queries() for mode in ("hybrid", "lexical", "dense")}


def _kill_mid_index(vault: Path, index_dir: Path, model_cache: Path) -> int:
    """Run ``cognivault index`` in a child and SIGKILL it once it has stored some vectors; returns how many."""
    env = {**os.environ, "COGNIVAULT_INDEX_INDEX_DIR": str(index_dir), "COGNIVAULT_MODEL_CACHE": str(model_cache),
           "COGNIVAULT_EMBEDDING_PROVIDER": "embedded"}
    child = subprocess.Popen([sys.executable, "-m", "cognivault.cli", "index", "--vault", str(vault), "--json"],
                             env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 600  # bounds a hang only: the kill waits for a state, not a time
        while child.poll() is None and time.monotonic() < deadline and _vector_count(index_dir) == 0:
            time.sleep(0.02)
        if child.poll() is None:
            child.send_signal(signal.SIGKILL)
        child.wait(30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(30)
        if child.stderr is not None:
            child.stderr.close()
    assert child.returncode == -signal.SIGKILL, "the index finished before it could be killed"
    return _vector_count(index_dir)


@pytest.mark.slow
def test_clean_incremental_and_resumed_builds_rank_identically(
        tmp_path: Path, embedded_model_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from cognivault.models.embedded import MODEL_CACHE_ENV

    monkeypatch.setenv(MODEL_CACHE_ENV, str(embedded_model_cache))
    notes = final_notes()

    write_notes(tmp_path / "clean", notes)
    with Engine(tmp_path / "clean", vault_settings(tmp_path / "clean-index")) as clean:
        clean.index()
        chunks = clean.store.catalog.chunk_count()
        expected = _rankings(clean)

    write_notes(tmp_path / "incremental", earlier_notes())
    with Engine(tmp_path / "incremental", vault_settings(tmp_path / "incremental-index")) as incremental:
        incremental.index()
        write_notes(tmp_path / "incremental", notes)
        incremental.index()
        assert incremental.store.catalog.chunk_count() == chunks
        incremental_rankings = _rankings(incremental)

    write_notes(tmp_path / "resumed", notes)
    stored_at_kill = _kill_mid_index(tmp_path / "resumed", tmp_path / "resumed-index", embedded_model_cache)
    with Engine(tmp_path / "resumed", vault_settings(tmp_path / "resumed-index")) as resumed:
        resumed.index()
        assert resumed.store.catalog.chunk_count() == chunks
        resumed_rankings = _rankings(resumed)

    clean_vectors = _stored_vectors(tmp_path / "clean-index")
    assert 0 < stored_at_kill < len(clean_vectors), "the kill did not land mid-index"
    for other in ("incremental-index", "resumed-index"):
        stored = _stored_vectors(tmp_path / other)
        differing = [h for h, vector in clean_vectors.items() if stored.get(h) != vector]
        assert not differing, f"{other}: {len(differing)} of {len(clean_vectors)} vectors differ from the clean build"
    assert incremental_rankings == expected
    assert resumed_rankings == expected
    assert sum(bool(ranking) for ranking in expected.values()) >= 50  # agreeing on nothing would prove nothing


# -- tie keys ----------------------------------------------------------------------------------------


def test_dense_ties_rank_by_chunk_id_not_by_storage_order() -> None:
    vectors = np.eye(4, dtype=np.float32)[[0, 0, 0, 1, 2]]  # three identical vectors
    chunk_ids = ["00000000000000a0", "00000000000000b0", "00000000000000c0", "0000000000000010",
                 "0000000000000020"]
    rankings = []
    for order in ([0, 1, 2, 3, 4], [2, 1, 0, 4, 3], [3, 2, 4, 0, 1]):
        index = DenseIndex("test-model", 4)
        index.add((chunk_ids[i], vectors[i]) for i in order)
        rankings.append([(hit.chunk_id, hit.score) for hit in index.search(vectors[0], 2)])
    assert rankings[0] == [("00000000000000a0", 1.0), ("00000000000000b0", 1.0)]
    assert rankings[1] == rankings[0] and rankings[2] == rankings[0]


def test_keyword_ties_rank_by_path_whatever_the_order_files_were_indexed_in(tmp_path: Path) -> None:
    same = "# Glossary\n\nA hash table maps keys to values through a hash function.\n"
    write_notes(tmp_path / "vault", {"c/Glossary.md": same, "Other.md": "# Other\n\nOnly about chairs.\n"})
    settings = vault_settings(tmp_path / "index")
    with Engine(tmp_path / "vault", settings, embedder=None) as engine:
        engine.index()
        write_notes(tmp_path / "vault", {"c/Glossary.md": same, "a/Glossary.md": same, "b/Glossary.md": same,
                                         "Other.md": "# Other\n\nOnly about chairs.\n"})
        engine.index()  # rows of a/ and b/ come after c/'s
        lexical = engine.store.lexical
        assert lexical is not None
        hits = lexical.search("hash table", "en", 2)
    assert [hit.path for hit in hits] == ["a/Glossary.md", "b/Glossary.md"]
    assert hits[0].score == hits[1].score
