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


def test_cross_validation_reports_held_out_figures_and_breaks_ties_by_grid_order(tmp_path: Path) -> None:
    from cognivault.evaluation import EvalSet, Question, cross_validate
    from cognivault.index.hybrid import FusionWeights

    vault = tmp_path / "vault"
    vault.mkdir()
    notes = {"Cells.md": "# Cells\n\nMitochondria produce ATP.\n", "Plants.md": "# Plants\n\nLeaves capture light.\n",
             "Zelle.md": "---\nlang: de\n---\n# Zelle\n\nMitochondrien erzeugen ATP in der Zelle.\n",
             "Pflanze.md": "---\nlang: de\n---\n# Pflanze\n\nBlätter fangen das Licht ein.\n"}
    for name, text in notes.items():
        (vault / name).write_text(text, "utf-8")
    questions = [Question("en-1", "en", "lexical", "mitochondria ATP", {"Cells.md": 2}),
                 Question("en-2", "en", "lexical", "leaves light", {"Plants.md": 2}),
                 Question("de-1", "de", "lexical", "Mitochondrien Zelle", {"Zelle.md": 2}),
                 Question("de-2", "de", "lexical", "Blätter Licht", {"Pflanze.md": 1, "Plants.md": 1})]
    grid = [FusionWeights(), FusionWeights(rrf_k=5), FusionWeights(dense_known_language=2.0)]
    with Engine(vault, embedder=None) as engine:
        engine.index()
        before = engine.weights
        halves = {"en-1": "tune", "de-1": "tune", "en-2": "check", "de-2": "check"}
        report = cross_validate([EvalSet("notes", engine, questions, halves)], grid, folds=2, repeats=3)
        assert engine.weights is before
    # Keyword-only: every weighting ranks alike, so the held-out figure is the defaults' figure
    # and the defaults (first in the grid) are chosen in every fold and on the tuning half.
    cv, defaults = report["cross_validated"]["notes"], report["defaults"]
    assert cv == defaults["notes"]
    assert set(cv["by_lang"]) == {"en", "de"} and set(cv["by_kind"]) == {"lexical"} and cv["overall"]["n"] == 4
    assert report["chosen_in_folds"] == [{"weights": defaults["weights"], "times": 6}]
    assert 0 < cv["overall"]["ndcg@10"] <= 1
    assert set(cv["overall"]) == set(cv["by_lang"]["en"]) == {"n", "ndcg@10"}  # what cross-validation scores
    split = report["tune_check"]
    assert split["weights"] == defaults["weights"]
    assert split["tune"]["notes"]["overall"]["n"] == split["check"]["notes"]["overall"]["n"] == 2


def test_eval_reports_each_half(tmp_path: Path) -> None:
    from cognivault.evaluation import Question

    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Cells.md").write_text("# Cells\n\nMitochondria produce ATP.\n", "utf-8")
    (vault / "Plants.md").write_text("# Plants\n\nLeaves capture light.\n", "utf-8")
    questions = [Question("1", "en", "term", "mitochondria", {"Cells.md": 2}),
                 Question("2", "en", "term", "quasar", {"Plants.md": 2})]
    with Engine(vault, embedder=None) as engine:
        engine.index()
        report = evaluate(engine, questions, ["lexical"], halves={"1": "tune", "2": "check"})
    by_half = report["modes"]["lexical"]["by_half"]
    assert by_half["tune"]["overall"] == {"n": 1, "ndcg@10": 1.0, "recall@5": 1.0, "mrr": 1.0}
    assert by_half["check"]["by_kind"]["term"]["ndcg@10"] == 0.0
