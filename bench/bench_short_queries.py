"""Short queries (1-3 words, English and German, some asking in the other language than the note):
Recall@5 per mode, and hybrid never empty where meaning search alone finds a relevant note.

The queries are ``bench/short_queries.jsonl`` (written by reading the help vault;
``kind`` is ``same`` when the relevant note is in the query's language, ``cross``
when it is in the other one). Runs on ``../shared/eval/help-vault`` with the
embedded model. Prints one JSON document: per mode the overall, per-language
and per-kind Recall@5 (``evaluate``), and ``hybrid_empty_where_dense_finds``,
the queries whose dense top 10 holds a relevant note but whose hybrid answer
is empty (the target: none).

    .venv/bin/python bench/bench_short_queries.py [--per-question]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from _common import HELP_VAULT, emit, isolate_cache

SHORT_QUERIES = Path(__file__).with_name("short_queries.jsonl")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-question", action="store_true")
    args = parser.parse_args()
    isolate_cache("eval", fresh=False)  # the same index as bench_eval.py

    from cognivault.engine import Engine
    from cognivault.evaluation import evaluate, load_questions

    questions = load_questions(SHORT_QUERIES)
    with Engine(HELP_VAULT) as engine:
        engine.index()
        report = evaluate(engine, questions, include_questions=True)
        empty, languages = [], {}
        for question in questions:
            dense = [r.path for r in engine.search(question.question, k=10, mode="dense", per_note=True).results]
            hybrid = engine.search(question.question, k=10, mode="hybrid", per_note=True)
            languages[question.id] = hybrid.language
            if set(dense) & set(question.grades) and not hybrid.results:
                empty.append(question.id)
    recall = {mode: {"overall": summary["overall"]["recall@5"],
                     "by_lang": {lang: figures["recall@5"] for lang, figures in summary["by_lang"].items()},
                     "by_kind": {kind: figures["recall@5"] for kind, figures in summary["by_kind"].items()}}
              for mode, summary in report["modes"].items()}
    result = {"benchmark": "short_queries", "queries": len(questions),
              "embedding_model": report["embedding_model"], "recall@5": recall,
              "hybrid_empty_where_dense_finds": empty,
              "query_languages": dict(sorted({lang or "none": sum(1 for v in languages.values() if v == lang)
                                              for lang in set(languages.values())}.items())),
              "targets": {"hybrid_never_empty_where_dense_finds": not empty}}
    if args.per_question:
        result["per_question"] = {mode: summary["per_question"] for mode, summary in report["modes"].items()}
    emit(result)


if __name__ == "__main__":
    main()
