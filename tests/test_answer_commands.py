"""``cognivault ask``, ``eval-answers`` and ``transcribe`` through the real CLI entry point."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from answer_support import make_vault
from cognivault.cli import main


@pytest.fixture
def cli_vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    vault, settings = make_vault(tmp_path)
    monkeypatch.setenv("COGNIVAULT_INDEX_INDEX_DIR", settings.index.index_dir)
    return vault


def test_ask_ndjson_prints_the_stream(cli_vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["ask", "--vault", str(cli_vault), "--keywords-only", "--ndjson",
                 "When did the Western Roman Empire end?"])
    out = capsys.readouterr()
    assert code == 0
    envelopes = [json.loads(line) for line in out.out.splitlines()]
    assert envelopes[0]["type"] == "confidence" and envelopes[-1]["type"] == "done"
    assert "476" in envelopes[-1]["data"]["answer"] and envelopes[-1]["data"]["provider"] == "extractive"
    assert "note:" not in out.err  # --ndjson keeps stderr quiet


def test_ask_readable_with_numbered_sources_and_fallback_note(cli_vault: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["ask", "--vault", str(cli_vault), "--keywords-only", "How do I feed a sourdough starter?"])
    out = capsys.readouterr()
    assert code == 0
    assert "Sources:" in out.out and "1. [S1] Cooking/Sourdough bread.md:" in out.out
    assert "Confidence:" in out.out
    assert "ollama serve" in out.err  # auto fell back to the extractive answerer and said why


def test_ask_json_sessions_and_errors(cli_vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "--vault", str(cli_vault), "--keywords-only", "--json", "--session", "cli-1",
                 "--chat-provider", "extractive", "Who built the printing press?"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["session_id"] == "cli-1" and data["turn"] == 0 and data["confidence_detail"]["label"]
    assert (cli_vault / ".cognivault" / "sessions" / "cli-1.json").is_file()
    assert main(["ask", "--vault", str(cli_vault), "--keywords-only", "   "]) == 2
    assert "empty" in capsys.readouterr().err
    assert main(["ask", "--vault", str(cli_vault), "--keywords-only", "--chat-provider", "ollama",
                 "Who built the printing press?"]) == 1
    assert "ollama serve" in capsys.readouterr().err


def test_ask_with_an_attachment(cli_vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    handout = tmp_path / "handout.txt"
    handout.write_text("The printing press in Mainz used an oil-based ink that Gutenberg mixed himself "
                       "from soot, turpentine and walnut oil.", "utf-8")
    assert main(["ask", "--vault", str(cli_vault), "--keywords-only", "--ndjson", "--attach", str(handout),
                 "What was Gutenberg's ink made from?"]) == 0
    done = json.loads(capsys.readouterr().out.splitlines()[-1])["data"]
    assert any(s["source"] == "attachment" and s["path"] == "handout.txt" for s in done["sources"])
    assert main(["ask", "--vault", str(cli_vault), "--keywords-only", "--attach", str(tmp_path / "missing.pdf"),
                 "What?"]) == 2


def test_eval_answers_reports_json(cli_vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    questions = tmp_path / "q.jsonl"
    questions.write_text("\n".join(json.dumps(q) for q in [
        {"id": "q1", "lang": "en", "question": "When did the Western Roman Empire end?",
         "relevant": ["History/Roman Empire.md"]},
        {"id": "q2", "lang": "en", "question": "How long does sourdough dough rise before shaping?",
         "relevant": ["Cooking/Sourdough bread.md"]},
    ]) + "\n", "utf-8")
    unanswerable = tmp_path / "u.jsonl"
    unanswerable.write_text(json.dumps({"id": "u1", "kind": "off-topic",
                                        "question": "Who won the 2018 FIFA World Cup final?"}) + "\n", "utf-8")
    assert main(["eval-answers", "--vault", str(cli_vault), "--keywords-only", "--json", "--no-index",
                 "--questions", str(questions), "--unanswerable", str(unanswerable), "--per-question"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["provider"] == "extractive"
    assert report["answerable"]["cited_share"] == 1.0 and report["answerable"]["relevant_cited_share"] == 1.0
    assert report["answerable"]["citation_acceptance"] == 1.0
    assert report["unanswerable"]["honest_share"] == 1.0 and report["unanswerable"]["confidence"] == {"low": 1}
    assert len(report["per_question"]) == 3
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{nope\n", "utf-8")
    assert main(["eval-answers", "--vault", str(cli_vault), "--questions", str(bad)]) == 2


def test_transcribe_skips_cleanly_without_a_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    audio = tmp_path / "memo.wav"
    audio.write_bytes(b"RIFF\x24\x00\x00\x00WAVEfmt ")
    assert main(["transcribe", "--vault", str(tmp_path), str(audio)]) == 2
    err = capsys.readouterr().err
    assert "cannot transcribe here" in err and ("faster-whisper" in err or "whisper_model_dir" in err)
    assert main(["transcribe", "--vault", str(tmp_path), str(tmp_path / "none.wav")]) == 2
    text_file = tmp_path / "notes.txt"
    text_file.write_text("x", "utf-8")
    assert main(["transcribe", "--vault", str(tmp_path), str(text_file)]) == 2


EXAMPLE_CLIP = Path(__file__).resolve().parents[1] / "examples" / "vault" / "attachments" / "photosynthesis-summary.ogg"


@pytest.mark.slow
def test_transcribe_with_the_local_whisper_model(whisper_base_model: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    if not EXAMPLE_CLIP.is_file():
        pytest.skip(f"example clip missing: {EXAMPLE_CLIP}")
    vault = tmp_path / "vault"
    vault.mkdir()
    user_config = Path(os.environ["XDG_CONFIG_HOME"]) / "cognivault" / "config.toml"  # not the vault's: a
    user_config.parent.mkdir(parents=True, exist_ok=True)  # model folder is read from the user's own file only
    user_config.write_text(f'[index]\nwhisper_model_dir = "{whisper_base_model}"\n', "utf-8")
    assert main(["transcribe", "--vault", str(vault), "--json", str(EXAMPLE_CLIP)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["language"] == "en" and "oxygen" in result["text"].lower() and result["segments"]
