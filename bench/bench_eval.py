"""Search quality on the shared dev question set: nDCG@10, Recall@5, MRR per mode, language and kind.

Prints one JSON document with the issue's targets checked: hybrid nDCG@10 >= 0.80
overall, >= 0.85 English, >= 0.78 German, and hybrid at least the better single
mode in every language.

    .venv/bin/python bench/bench_eval.py [--questions FILE]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from _common import HELP_VAULT, QUESTIONS, emit, isolate_cache


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=Path, default=QUESTIONS)
    parser.add_argument("--per-question", action="store_true")
    args = parser.parse_args()
    isolate_cache("eval", fresh=False)  # the help vault is read-only: indexing it in place is safe

    from cognivault.engine import Engine
    from cognivault.evaluation import evaluate, load_questions

    with Engine(HELP_VAULT) as engine:
        engine.index()
        report = evaluate(engine, load_questions(args.questions), include_questions=args.per_question)
    modes = report["modes"]
    hybrid = modes["hybrid"]
    languages = hybrid["by_lang"]
    report["targets"] = {
        "hybrid_overall>=0.80": hybrid["overall"]["ndcg@10"] >= 0.80,
        "hybrid_en>=0.85": languages.get("en", {}).get("ndcg@10", 0) >= 0.85,
        "hybrid_de>=0.78": languages.get("de", {}).get("ndcg@10", 0) >= 0.78,
        "hybrid>=best_single_per_lang": all(
            languages[lang]["ndcg@10"] >= max(modes["lexical"]["by_lang"][lang]["ndcg@10"],
                                              modes["dense"]["by_lang"][lang]["ndcg@10"])
            for lang in languages),
    }
    emit(report)


if __name__ == "__main__":
    main()
