"""Query latency at scale: help-vault + help-vault-more (~59k chunks), lexical and hybrid.

The query's own embedding is excluded (vectors are computed before timing);
everything else a search does is timed: language guess, BM25, FAISS, fusion,
fetching passages and building snippets. Prints one JSON document. Targets:
lexical p95 <= 5 ms, hybrid p95 <= 25 ms.

The first run builds the big index (long: every chunk is embedded) and keeps
it in $COGNIVAULT_BENCH_DIR (default /tmp/cognivault-bench); later runs reuse it.

    .venv/bin/python bench/bench_query.py [--small] [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from _common import HELP_VAULT, MORE_VAULT, QUESTIONS, SHARED_EVAL, WORK, copy_vault, emit, isolate_cache, percentiles


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="help-vault only (346 notes)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--fresh", action="store_true", help="rebuild the index from scratch")
    args = parser.parse_args()
    name = "small" if args.small else "large"
    isolate_cache(f"query-{name}", fresh=args.fresh)
    sources = [HELP_VAULT] if args.small else [HELP_VAULT, MORE_VAULT]
    vault = copy_vault(sources, WORK / f"vault-{name}", fresh=args.fresh)

    from cognivault.engine import Engine

    engine = Engine(vault)
    started = time.perf_counter()
    report = engine.index(lambda p: print(f"\r{p.stage} {p.done}/{p.total}", end="", file=sys.stderr)
                          if p.done % 500 == 0 else None)
    index_seconds = time.perf_counter() - started
    print(file=sys.stderr)

    questions = [json.loads(line)["question"] for line in QUESTIONS.read_text("utf-8").splitlines() if line]
    unanswerable = SHARED_EVAL / "questions-unanswerable.jsonl"
    questions += [json.loads(line)["question"] for line in unanswerable.read_text("utf-8").splitlines() if line]
    assert engine.embedder is not None, "the benchmark needs an embedding model"
    vectors = [engine.embedder.embed_query(q) for q in questions]
    for question, vector in zip(questions, vectors, strict=True):  # warm caches (stemmer, language model)
        engine.search(question, mode="hybrid", query_vector=vector)

    timings: dict[str, list[float]] = {"lexical": [], "hybrid": [], "dense": []}
    for _ in range(args.repeat):
        for question, vector in zip(questions, vectors, strict=True):
            for mode in timings:
                started = time.perf_counter()
                engine.search(question, k=10, mode=mode, query_vector=vector)
                timings[mode].append((time.perf_counter() - started) * 1000)
    status = engine.status(per_file=False)
    engine.close()
    result = {
        "benchmark": "query",
        "vault": "help-vault" if args.small else "help-vault + help-vault-more",
        "chunks": status["consistency"]["catalog_chunks"],
        "vectors": status["consistency"]["dense_vectors"],
        "embedding_model": status["embedding"]["model_id"],
        "index_seconds_this_run": round(index_seconds, 1),
        "embedded_this_run": report.embedded_chunks,
        "excludes": "the query's own embedding",
        **{mode: percentiles(samples) for mode, samples in timings.items()},
    }
    result["targets"] = {"lexical_p95<=5ms": result["lexical"]["p95_ms"] <= 5.0,
                         "hybrid_p95<=25ms": result["hybrid"]["p95_ms"] <= 25.0}
    emit(result)


if __name__ == "__main__":
    main()
