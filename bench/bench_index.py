"""Indexing speed on the help vault: cold build, one-note edit, restart on an unchanged vault.

Prints one JSON document. Targets (issue: core engine): embedding >= 80% of
the cold wall time; re-index after one edit < 1 s plus the embedding of its
changed chunks; restart with no embedding, ready in < 2 s. With the German
meaning side on (``embedding.multilingual``, its extra installed) the cold build
reports the time until the index is searchable (``usable_s``: the main pass)
and until the German side is filled after it (``wall_s``); run with
``COGNIVAULT_EMBEDDING_MULTILINGUAL=false`` for the figures without it.

    .venv/bin/python bench/bench_index.py
"""

from __future__ import annotations

import argparse
import time

from _common import HELP_VAULT, WORK, TimedEmbedder, copy_vault, emit, isolate_cache


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edit-note", default="en/Linking notes and files/Embed files.md")
    parser.add_argument("--reuse-index", action="store_true",
                        help="keep the index of the last run: measures only the edit and the restart")
    args = parser.parse_args()
    isolate_cache("index", fresh=not args.reuse_index)
    vault = copy_vault([HELP_VAULT], WORK / "help-vault-copy", fresh=not args.reuse_index)

    from cognivault.config import load_settings
    from cognivault.engine import Engine
    from cognivault.models.registry import make_embedding_provider

    settings = load_settings(vault)
    provider = make_embedding_provider(settings)
    provider.embed_documents(["warm up the model so loading is not counted as indexing"])

    timed = TimedEmbedder(provider)
    started = time.perf_counter()
    engine = Engine(vault, settings, embedder=timed)
    cold = engine.index()
    cold_wall = time.perf_counter() - started
    cold_usable = cold_wall - cold.timings.get("multilingual", 0.0)  # the German side fills after: not counted
    cold_embed = timed.seconds
    totals = cold.totals()

    note = vault / args.edit_note
    if args.reuse_index:
        # A long-running engine (language server, companion) has its language model and term cache
        # warm; one untimed edit puts this fresh process in the same state as after a cold build.
        note.write_text(note.read_text("utf-8") + "\n\nWarm-up line.\n", "utf-8")
        engine.index()
    text = note.read_text("utf-8")
    note.write_text(text + f"\n\n## Benchmark edit {time.time():.0f}\n\nThis paragraph was added by the "
                    "indexing benchmark to measure how fast a single edited note is re-indexed and searchable "
                    "again.\n", "utf-8")
    timed.seconds, timed.texts = 0.0, 0
    started = time.perf_counter()
    edit = engine.index()
    edit_wall = time.perf_counter() - started
    edit_embed = timed.seconds
    edited_chunks = edit.embedded_chunks
    engine.close()

    timed.seconds, timed.texts = 0.0, 0
    started = time.perf_counter()
    engine = Engine(vault, settings, embedder=timed)
    restart = engine.index()
    restart_wall = time.perf_counter() - started
    consistency = engine.status(per_file=False)["consistency"]
    engine.close()

    emit({
        "benchmark": "index",
        "vault": str(HELP_VAULT),
        "embedding_model": provider.model_id,
        "files": totals,
        "cold": {"wall_s": round(cold_wall, 3), "usable_s": round(cold_usable, 3),
                 "multilingual_chunks": cold.multilingual_chunks, "embed_s": round(cold_embed, 3),
                 "embed_fraction": round(cold_embed / cold_usable, 4), "chunks_embedded": cold.embedded_chunks,
                 "timings": {k: round(v, 3) for k, v in cold.timings.items()}},
        "edit_one_note": {"wall_s": round(edit_wall, 3), "embed_s": round(edit_embed, 3),
                          "overhead_s": round(edit_wall - edit_embed, 3), "chunks_embedded": edited_chunks,
                          "multilingual_chunks": edit.multilingual_chunks,
                          "multilingual_s": round(edit.timings.get("multilingual", 0), 3)},
        "restart_unchanged": {"wall_s": round(restart_wall, 3), "chunks_embedded": restart.embedded_chunks,
                              "multilingual_chunks": restart.multilingual_chunks,
                              "embed_s": round(timed.seconds, 3)},
        "consistency": consistency,
        "targets": {"embed_fraction>=0.8": cold_embed / cold_usable >= 0.8,
                    "edit_overhead<1s": edit_wall - edit_embed < 1.0,
                    "restart<2s_no_embedding": restart_wall < 2.0 and restart.embedded_chunks == 0},
    })


if __name__ == "__main__":
    main()
