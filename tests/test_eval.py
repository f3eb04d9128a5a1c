"""Evaluation metrics by hand, and a smoke run on the shared dev question set."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest

from cognivault.engine import Engine
from cognivault.evaluation import QuestionFileError, evaluate, load_questions, ndcg, recall, reciprocal_rank


def test_ndcg_by_hand() -> None:
    grades = {"a": 2, "b": 1}
    assert ndcg(["a", "b"], grades) == pytest.approx(1.0)
    swapped = (1 / math.log2(2) + 3 / math.log2(3)) / (3 / math.log2(2) + 1 / math.log2(3))
    assert ndcg(["b", "a"], grades) == pytest.approx(swapped)
    assert ndcg(["x", "y"], grades) == 0.0
    assert ndcg(["x"] * 10 + ["a"], grades) == 0.0  # beyond depth 10


def test_recall_and_mrr_by_hand() -> None:
    grades = {"a": 2, "b": 1, "c": 1}
    assert recall(["a", "x", "b", "y", "z", "c"], grades) == pytest.approx(2 / 3)
    assert reciprocal_rank(["x", "y", "b"], grades) == pytest.approx(1 / 3)
    assert reciprocal_rank(["x"] * 10 + ["a"], grades) == 0.0


def test_bad_question_file_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text('{"id": "1", "question": "q", "relevant": ["a.md"]}\n{"id": 2}\n', "utf-8")
    with pytest.raises(QuestionFileError, match=":2:"):
        load_questions(path)


@pytest.fixture(scope="module")
def help_notes(help_vault: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The help vault's notes (no attachments: OCR is not what this measures)."""
    source = help_vault
    target = tmp_path_factory.mktemp("help") / "vault"
    for note in source.rglob("*.md"):
        destination = target / note.relative_to(source)
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(note, destination)
    return target


def test_lexical_eval_smoke_on_dev_set(help_notes: Path, help_vault: Path) -> None:
    questions = load_questions(help_vault.parent / "questions-dev.jsonl")
    with Engine(help_notes, embedder=None) as engine:
        engine.index()
        report = evaluate(engine, questions, ["lexical"], include_questions=True)
    lexical = report["modes"]["lexical"]
    assert lexical["overall"]["n"] == len(questions) == 62
    assert set(lexical["by_lang"]) == {"en", "de"}
    assert set(lexical["by_kind"]) == {"paraphrase", "lexical", "conceptual", "multi"}
    # A regression guard well above the measured BM25 starting point (0.718).
    assert lexical["overall"]["ndcg@10"] >= 0.76
    assert lexical["by_kind"]["lexical"]["ndcg@10"] >= 0.85
    json.dumps(report)  # the CLI prints it as JSON
