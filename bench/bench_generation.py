"""The offline study notes over the help vault, checked as written: what a student would get with no model.

For every note (English and German; ``--notes`` for a few, ``--limit`` for the first N) flashcards, a
quiz and a mind map are generated with the extractive provider into a copy of the vault, read back
with the readers the plugin, the quiz scorer and the dashboard use (``parse_cards``, ``parse_quiz``,
``parse_mindmap``), and each item is checked by ``cognivault.study.validate`` against the note:

- per generator: notes, items written, items the validator rejects (by reason);
- flashcards / quiz: for notes with 3+ sections, how many reach 5 cards / 3 questions (targets);
- mind maps: share of the note's headings on the map (mean, min, notes under 90 %);
- quiz: how often each answer letter is right (max share, target <= 40 %).

Keyword index only (generation does not need vectors). Prints JSON; ``--items FILE`` also writes every note's
items and counts (JSON lines, one per note and generator) to read what a short note got.

    .venv/bin/python bench/bench_generation.py [--limit N] [--notes en/a.md de/b.md] [--items FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import HELP_VAULT, WORK, emit  # noqa: E402
from cognivault.config import load_settings  # noqa: E402
from cognivault.engine import Engine  # noqa: E402
from cognivault.study.cards import parse_cards  # noqa: E402
from cognivault.study.citations import parse_citations, without_cited_links  # noqa: E402
from cognivault.study.generate import run_generation  # noqa: E402
from cognivault.study.mindmap import parse_mindmap  # noqa: E402
from cognivault.study.quiz import LETTERS, parse_quiz  # noqa: E402
from cognivault.study.sources import GenerationError, StudyRequest  # noqa: E402
from cognivault.study.validate import (  # noqa: E402
    card_problems,
    cloze_problems,
    label_problems,
    question_problems,
    tally,
)
from cognivault.vault.markdown import parse_note  # noqa: E402

KINDS = ("flashcards", "quiz", "mindmap")
MIN_SECTIONS = 3
MIN_CARDS = 5
MIN_QUESTIONS = 3
MIN_COVERAGE = 0.9


def _copy_notes(source: Path, target: Path, notes: list[str] | None) -> list[str]:
    """The help vault's Markdown notes (or the named ones) copied into ``target``; their vault paths."""
    shutil.rmtree(target, ignore_errors=True)
    paths = notes or sorted(p.relative_to(source).as_posix() for lang in ("en", "de")
                            for p in (source / lang).rglob("*.md"))
    for path in paths:
        destination = target / path
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source / path, destination)
    return paths


def _sections(note_text: str, path: str) -> list[str]:
    """The note's headings below its title."""
    parsed = parse_note(note_text, path)
    headings = [h for h in parsed.headings if h.text.strip()]
    if headings and headings[0].level == 1 and headings[0].text.casefold() == parsed.title.casefold():
        headings = headings[1:]
    return [h.text for h in headings]


def _labels(node: dict[str, Any]) -> list[str]:
    return [node["label"]] + [label for child in node["children"] for label in _labels(child)]


def _normal(text: str) -> str:
    return " ".join(text.replace("`", "").split()).casefold()[:60]


def check_note(kind: str, written: str, note_text: str, path: str, lang: str | None = None) -> dict[str, Any]:
    """What one written study note holds and what the validator says about each item (``lang``: the note's)."""
    if kind == "flashcards":
        problems, texts = [], []
        for flashcard in parse_cards(written, "check.md").flashcards:
            text = without_cited_links(flashcard.text, parse_citations(flashcard.text)).strip()
            texts.append(text)
            if flashcard.kind == "cloze":
                problems.append(cloze_problems(text, note_text))
            else:
                front, _, back = text.partition("::")
                problems.append(card_problems(front.strip(), back.strip(), note_text))
        return {"items": len(problems), "problems": problems, "texts": texts}
    if kind == "quiz":
        quiz = parse_quiz(written)
        return {"items": len(quiz.questions),
                "problems": [question_problems(q.question, q.options, q.correct_index, note_text, lang)
                             for q in quiz.questions],
                "letters": [LETTERS[q.correct_index] for q in quiz.questions],
                "texts": [f"{q.question} | {' | '.join(q.options)}" for q in quiz.questions]}
    labels = _labels(parse_mindmap(written)["root"])
    on_map = {_normal(label) for label in labels}
    headings = _sections(note_text, path)
    covered = sum(_normal(h) in on_map for h in headings)
    return {"items": len(labels), "problems": [label_problems(label) for label in labels],
            "coverage": covered / len(headings) if headings else 1.0, "headings": len(headings), "texts": labels}


def _summary(rows: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    summary: dict[str, Any] = {
        "notes": len(rows),
        "notes_with_items": sum(r["items"] > 0 for r in rows),
        "items_written": sum(r["items"] for r in rows),
        "rejects": tally(p for r in rows for p in r["problems"]),
    }
    sectioned = [r for r in rows if r["sections"] >= MIN_SECTIONS]
    if kind in ("flashcards", "quiz"):
        floor = MIN_CARDS if kind == "flashcards" else MIN_QUESTIONS
        summary[f"notes_with_{MIN_SECTIONS}+_sections"] = len(sectioned)
        summary[f"of_them_with_{floor}+_items"] = sum(r["items"] >= floor for r in sectioned)
        summary["mean_items_3+_sections"] = round(sum(r["items"] for r in sectioned) / len(sectioned), 2) \
            if sectioned else 0.0
        summary["short_notes"] = [r["path"] for r in sectioned if r["items"] < floor][:15]
    if kind == "quiz":
        letters = [letter for r in rows for letter in r.get("letters", [])]
        counts = {letter: letters.count(letter) for letter in LETTERS[:4]}
        summary["answer_letters"] = counts
        summary["max_letter_share"] = round(max(counts.values()) / len(letters), 3) if letters else 0.0
        per_note = [max(r["letters"].count(x) for x in set(r["letters"])) / len(r["letters"])
                    for r in rows if len(r.get("letters", [])) >= 5]
        summary["worst_note_letter_share_5+_questions"] = round(max(per_note), 3) if per_note else 0.0
    if kind == "mindmap":
        mapped = [r for r in rows if r["headings"]]
        summary["heading_coverage_mean"] = round(sum(r["coverage"] for r in mapped) / len(mapped), 4) \
            if mapped else 1.0
        summary["heading_coverage_min"] = round(min((r["coverage"] for r in mapped), default=1.0), 4)
        summary["notes_under_90%"] = [r["path"] for r in mapped if r["coverage"] < MIN_COVERAGE][:15]
    return summary


def run(work: Path, notes: list[str] | None = None, limit: int | None = None,
        items: Path | None = None) -> dict[str, Any]:
    vault = work / "vault"
    paths = _copy_notes(HELP_VAULT, vault, notes)[:limit]
    settings = load_settings(vault, {"index": {"index_dir": str(work / "index")}}, environ={})
    engine = Engine(vault, settings, embedder=None)
    rows: dict[str, list[dict[str, Any]]] = {kind: [] for kind in KINDS}
    errors: dict[str, int] = {}
    try:
        engine.index()
        for path in paths:
            note_text = (vault / path).read_text("utf-8")
            sections = len(_sections(note_text, path))
            for kind in KINDS:
                row: dict[str, Any] = {"path": path, "lang": path.split("/", 1)[0], "sections": sections,
                                       "items": 0, "problems": [], "coverage": 0.0, "headings": sections}
                try:
                    result = asyncio.run(run_generation(kind, engine, StudyRequest(note=path), None))
                except GenerationError as exc:
                    errors[exc.code] = errors.get(exc.code, 0) + 1
                else:
                    written_path = vault / result.path
                    row.update(check_note(kind, written_path.read_text("utf-8"), note_text, path, row["lang"]))
                    written_path.unlink()  # the next notes are generated from the help vault alone
                rows[kind].append(row)
    finally:
        engine.close()
    if items is not None:
        items.write_text("".join(json.dumps({"kind": kind, **row}, ensure_ascii=False) + "\n"
                                 for kind in KINDS for row in rows[kind]), "utf-8")
    report: dict[str, Any] = {"notes": len(paths), "errors": errors}
    for kind in KINDS:
        report[kind] = _summary(rows[kind], kind)
        report[kind]["by_language"] = {lang: _summary([r for r in rows[kind] if r["lang"] == lang], kind)
                                       for lang in sorted({r["lang"] for r in rows[kind]})}
        for by_lang in report[kind]["by_language"].values():
            by_lang.pop("short_notes", None)
            by_lang.pop("notes_under_90%", None)
    report["rejected_examples"] = {kind: [{"path": r["path"], "problems": p, "item": text} for r in rows[kind]
                                          for p, text in zip(r["problems"], r.get("texts", []), strict=False) if p][:10]
                                   for kind in KINDS}
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--notes", nargs="*", help="vault paths under the help vault (default: every note)")
    parser.add_argument("--limit", type=int, help="only the first N notes")
    parser.add_argument("--work", type=Path, default=WORK / "generation", help="where the vault copy and index go")
    parser.add_argument("--items", type=Path, help="write every note's items and counts here (JSON lines)")
    args = parser.parse_args()
    emit(run(args.work, args.notes, args.limit, args.items))


if __name__ == "__main__":
    main()
