"""Offline flashcards and quizzes on the student vault, scored as a student would: the reference cards a good
student made, and the defects one notices without reading every card.

For every note of ``student-vault/vault`` flashcards and a quiz are generated with the extractive provider (no
model) into a copy of the vault and read back as the plugin and the quiz scorer read them. Reported per half of the
notes (``note_halves``: ``tune`` to choose rules on, ``check`` to report) and overall:

- coverage: a reference card is covered when a generated card of the same note has its ``fact`` in its back
  (a cloze: its text), both normalised (NFC, casefold, whitespace); per note and per half;
- defect proxies, counted per card or question: items from the hub (``00 Semesterplan.md``: 0 expected),
  layout prompts ("say under", "begins like this"), formulas or code spans not byte-identical to the note,
  cut-off backs, labels asked as terms, bookkeeping quoted (date stamps, tag lines, timestamps), Markdown
  leaking (``**``, ``==``, table pipes, callout markers), duplicates within a note, validator rejects;
- notes that gave nothing, with the generator's reason.

``--dump FILE`` writes every note's cards and questions as text to read with the rubric (README of the vault).

    PYTHONPATH=server .venv/bin/python bench/bench_study_cards.py [--notes a.md b.md] [--dump FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import shutil
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import HALVES, STUDENT_CARDS, STUDENT_VAULT, WORK, emit, note_halves  # noqa: E402
from bench_generation import check_note  # noqa: E402
from cognivault.config import load_settings  # noqa: E402
from cognivault.engine import Engine  # noqa: E402
from cognivault.study.generate import run_generation  # noqa: E402
from cognivault.study.sources import GenerationError, StudyRequest  # noqa: E402
from cognivault.vault.reading import (  # noqa: E402
    TIMESTAMP_RE,
    atom_spans,
    is_label,
    is_stamp_line,
    is_tag_line,
    normal,
    note_shape,
)

KINDS = ("flashcards", "quiz")
LAYOUT_RE = re.compile(r"\bsay(?:s)? under\b|\bbegins like this\b|\bsagt\b.*\bunter\b|\bbeginnt so\b|"
                       r"\bwhich section\b|\bwelcher abschnitt\b|\bwhat is mentioned about\b|\bexplain the note\b|"
                       r"\bsay about\b|\bsagt\b.*\bzu\b", re.IGNORECASE)
# "What does “X” mean?", "Was bedeutet „X“?", "“X” – …?": the term a card asks about
_ASKED_TERM_RE = re.compile(r"[“„\"]([^”“\"]{1,40})[”“\"]")
_LEAK_RE = re.compile(r"\*\*|(?:^|\s)\|(?:\s|$)|\[!\w+\]|^>\s|\[\[")
_SENTENCE_END = tuple(".!?)]`$…\"”“'’»*")


def _text_atoms(text: str) -> list[str]:
    return [text[start:end] for start, end in atom_spans(text)]


def _sides(kind: str, item: str) -> tuple[str, str]:
    """(front, back) of a written card or question as the bench read it (a question's back: its options, one a
    line); the citation comment is not part of either."""
    item = re.sub(r"\s*<!--.*?-->", "", item)
    if kind == "flashcards":
        if "::" in item:
            front, _, back = item.partition("::")
            return front.strip(), back.strip()
        return item, item  # a cloze: its text is both the prompt and what it teaches
    question, *options = item.split(" | ")
    return question, "\n".join(options)


def defects(kind: str, item: str, note_text: str, hub: bool) -> list[str]:
    """The automatic defect proxies one card or question shows (see the module docstring)."""
    front, back = _sides(kind, item)
    found = []
    if hub:
        found.append("from_hub")
    if LAYOUT_RE.search(front):
        found.append("layout_prompt")
    atoms = _text_atoms(front) + _text_atoms(back)
    if any(atom not in note_text for atom in atoms) or (front + back).count("$") % 2:
        found.append("atom_not_verbatim")
    cut = (back if kind == "flashcards" else front).rstrip()
    if kind == "flashcards" and "::" in item and len(cut.split()) >= 6 and not cut.endswith(_SENTENCE_END):
        found.append("cut_off")
    elif cut.endswith((",", " –", " -", "→", " und", " and", " or", " oder")):
        found.append("cut_off")
    asked = _ASKED_TERM_RE.findall(front)
    if any(is_label(term) for term in asked) or re.match(r"^(?:What|Was)\b.{0,20}\b(?:Q|A|F)\b[”“]", front):
        found.append("label_as_term")
    if any(is_stamp_line(line) or is_tag_line(line) for line in (front, back)) or TIMESTAMP_RE.search(front + back) \
            or re.search(r"\b(?:Stand|last edited|letzte Änderung)\b", front + back, re.IGNORECASE):
        found.append("bookkeeping")
    if any(_LEAK_RE.search(re.sub(r"`[^`]*`|\$[^$]*\$", "", side)) for side in (front, *back.split("\n"))):
        found.append("markup_leak")
    return found


def _reference_cards() -> list[dict[str, Any]]:
    return [json.loads(line) for line in STUDENT_CARDS.read_text("utf-8").splitlines() if line.strip()]


def _copy_vault(target: Path) -> list[str]:
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(STUDENT_VAULT, target)
    return sorted(p.relative_to(target).as_posix() for p in target.rglob("*.md"))


def run(work: Path, notes: list[str] | None = None, dump: Path | None = None,
        count: int | None = None) -> dict[str, Any]:
    vault = work / "vault"
    paths = _copy_vault(vault)
    halves = note_halves(paths)
    if notes:
        paths = [p for p in paths if p in notes]
    settings = load_settings(vault, {"index": {"index_dir": str(work / "index")}}, environ={})
    engine = Engine(vault, settings, embedder=None)
    rows: list[dict[str, Any]] = []
    try:
        engine.index()
        for path in paths:
            note_text = (vault / path).read_text("utf-8")
            hub = note_shape(note_text).hub
            for kind in KINDS:
                row: dict[str, Any] = {"path": path, "kind": kind, "half": halves[path], "texts": [],
                                       "problems": [], "reason": ""}
                try:
                    result = asyncio.run(run_generation(kind, engine, StudyRequest(note=path, count=count), None))
                except GenerationError as exc:
                    row["reason"] = str(exc)
                else:
                    written = vault / result.path
                    row.update(check_note(kind, written.read_text("utf-8"), note_text, path, None))
                    written.unlink()  # the next notes are generated from the student's notes alone
                row["defects"] = [defects(kind, text, note_text, hub) for text in row["texts"]]
                seen: dict[str, int] = {}
                for index, text in enumerate(row["texts"]):
                    key = normal(_sides(kind, text)[1 if kind == "flashcards" else 0])
                    if key in seen:
                        row["defects"][index].append("duplicate")
                    seen[key] = index
                rows.append(row)
    finally:
        engine.close()
    references = [card for card in _reference_cards() if card["note"] in paths]
    backs: dict[str, list[str]] = {}
    for row in rows:
        if row["kind"] == "flashcards":
            backs[row["path"]] = [normal(_sides("flashcards", text)[1]) for text in row["texts"]]
    covered = [card for card in references if any(normal(card["fact"]) in back for back in backs.get(card["note"], []))]

    def figures(selected: list[dict[str, Any]], cards: list[dict[str, Any]]) -> dict[str, Any]:
        items = [d for row in selected for d in row["defects"]]
        tally: dict[str, int] = {}
        for found in items:
            for name in found:
                tally[name] = tally.get(name, 0) + 1
        hit = [card for card in cards if card in covered]
        return {"notes": len({row["path"] for row in selected}),
                "cards": sum(len(row["texts"]) for row in selected if row["kind"] == "flashcards"),
                "questions": sum(len(row["texts"]) for row in selected if row["kind"] == "quiz"),
                "items_with_proxy_defect": sum(bool(found) for found in items),
                "proxy_defects": dict(sorted(tally.items())),
                "validator_rejects": sum(bool(p) for row in selected for p in row["problems"]),
                "reference_cards": len(cards), "covered": len(hit),
                "coverage": round(len(hit) / len(cards), 3) if cards else None}

    report: dict[str, Any] = {"all": figures(rows, references)}
    for half in HALVES:
        report[half] = figures([r for r in rows if r["half"] == half], [c for c in references
                                                                          if halves[c["note"]] == half])
    report["coverage_by_note"] = {note: f"{sum(c['note'] == note for c in covered)}/"
                                        f"{sum(c['note'] == note for c in references)} ({halves[note]})"
                                  for note in sorted({c["note"] for c in references})}
    report["items_by_note"] = {row["path"]: {} for row in rows}
    for row in rows:
        report["items_by_note"][row["path"]][row["kind"]] = len(row["texts"]) if not row["reason"] \
            else f"0 ({row['reason'][:90]})"
    report["proxy_defect_examples"] = [{"path": row["path"], "kind": row["kind"], "defects": found, "item": text[:220]}
                                       for row in rows for found, text in zip(row["defects"], row["texts"],
                                                                               strict=True) if found][:25]
    if dump is not None:
        lines = []
        for row in rows:
            lines.append(f"\n=== {row['path']} [{row['half']}] {row['kind']}"
                         + (f": {row['reason']}" if row["reason"] else ""))
            for found, text in zip(row["defects"], row["texts"], strict=True):
                lines.append(f"- {text}" + (f"   <<{','.join(found)}>>" if found else ""))
            if row["kind"] == "flashcards":
                missed = [c for c in references if c["note"] == row["path"] and c not in covered]
                lines.extend(f"  MISSED: {c['front']} → {c['fact']}" for c in missed)
        dump.write_text("\n".join(lines) + "\n", "utf-8")
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--notes", nargs="*", help="vault paths under the student vault (default: every note)")
    parser.add_argument("--work", type=Path, default=WORK / "study-cards", help="where the vault copy and index go")
    parser.add_argument("--dump", type=Path, help="write every note's cards and questions here to read")
    parser.add_argument("--count", type=int, help="cards and questions asked for per note (default: the app's)")
    args = parser.parse_args()
    emit(run(args.work, args.notes, args.dump, args.count))


if __name__ == "__main__":
    main()
