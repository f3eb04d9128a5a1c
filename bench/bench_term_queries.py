"""Asked for a term ("backlinks", "Explain workspaces", "Erkläre Arbeitsbereiche", "Was versteht man unter einem
Alias?"): does the answer lead with the passage that says what the term is?

The queries are ``bench/term_queries.jsonl`` (written by reading the help vault's notes, English and German):
``form`` is ``bare`` (a note's title, a heading or a term the note sets off) or ``explain`` ("Explain X",
"Describe X", "Define X", "Erkläre X", "Beschreibe X", "Was bedeutet X?", "Was versteht man unter X?"), ``notes``
the notes defining the term (its own note, the glossary where it has the term) and ``fact`` what a defining
passage states (alternatives). Each runs through the
whole answer pipeline with the extractive answerer (no model), on the index ``bench_answer_quality.py`` uses,
and one JSON document is printed: overall, per language and per form,

- ``leads_with_definition``: the share of answers whose first quote cites one of ``notes`` and states ``fact``;
- ``fact_in_lead``: the share whose first quote states ``fact`` (from whatever note);
- ``fact_stated``: the share stating ``fact`` anywhere in the answer;
- ``refused``: the count answered "the vault doesn't say".

Keyword retrieval unless ``--embedded``.

    .venv/bin/python bench/bench_term_queries.py [--embedded] [--per-question]
"""

from __future__ import annotations

import argparse
import asyncio
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

from _common import HELP_VAULT, emit, isolate_cache

TERM_QUERIES = Path(__file__).with_name("term_queries.jsonl")
_CITATION = re.compile(r"\[(S\d+)\]")


def first_quote(answer: str) -> tuple[str, str | None]:
    """The answer's first quote (up to its citation) and the label citing it."""
    cited = _CITATION.search(answer)
    return (answer[:cited.start()], cited.group(1)) if cited else (answer, None)


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    def share(key: str) -> float:
        return round(sum(row[key] for row in rows) / len(rows), 4)

    return {"queries": len(rows), "leads_with_definition": share("leads_with_definition"),
            "fact_in_lead": share("fact_in_lead"), "fact_stated": share("fact_stated"),
            "refused": sum(row["refused"] for row in rows)}


async def run(args: argparse.Namespace) -> dict[str, Any]:
    from cognivault.answer.evaluation import is_honest, load_jsonl, nuggets_stated, run_question
    from cognivault.engine import Engine
    from cognivault.models.chat import resolve_chat_provider

    queries = load_jsonl(TERM_QUERIES)
    rows = []
    with Engine(HELP_VAULT, embedder="auto" if args.embedded else None) as engine:
        engine.index()
        provider, _ = await resolve_chat_provider(engine.settings, "extractive", None, embedder=engine.embedder)
        try:
            for query in queries:
                done = await run_question(engine, provider, query["question"])
                answer = done.get("answer", "")
                lead, label = first_quote(answer)
                lead_path = next((source["path"] for source in done.get("sources", []) if source["label"] == label),
                                 None)
                in_lead = nuggets_stated(lead, [query["fact"]])[0]
                rows.append({"id": query["id"], "lang": query["lang"], "form": query["form"],
                             "question": query["question"], "refused": is_honest(done),
                             "leads_with_definition": in_lead and lead_path in query["notes"],
                             "fact_in_lead": in_lead, "fact_stated": nuggets_stated(answer, [query["fact"]])[0],
                             "confidence": done.get("confidence"), "lead_note": lead_path, "answer": answer})
        finally:
            await provider.aclose()
    groups: dict[str, dict[str, list[dict[str, Any]]]] = {"by_lang": defaultdict(list), "by_form": defaultdict(list)}
    for row in rows:
        groups["by_lang"][row["lang"]].append(row)
        groups["by_form"][row["form"]].append(row)
    result: dict[str, Any] = {"benchmark": "term_queries", "embedded": args.embedded, "overall": summary(rows)}
    result.update({name: {key: summary(members) for key, members in sorted(group.items())}
                   for name, group in groups.items()})
    if args.per_question:
        result["per_question"] = rows
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedded", action="store_true", help="also retrieve and re-rank by meaning")
    parser.add_argument("--per-question", action="store_true")
    args = parser.parse_args()
    isolate_cache("answers", fresh=False)  # the same index as bench_answer_quality.py
    emit(asyncio.run(run(args)))


if __name__ == "__main__":
    main()
