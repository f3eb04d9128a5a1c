"""The CLI for people: examples and help for every option, the doctor table, index progress with rate
and time left, and the review's single-key grades with each grade's next interval shown first."""

from __future__ import annotations

import argparse
import io
import json
import os
import pty
import re
import subprocess
import sys
import termios
import threading
import time
from pathlib import Path

from cognivault.cli import build_parser, main
from cognivault.doctor import format_report
from cognivault.progress_line import progress_text
from cognivault.study.review import ReviewDeck, run_terminal_review
from cognivault.study.terminal import grade_prompt, interval_label, read_choice


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]  # noqa: SLF001
    return dict(sub.choices)


def test_every_option_of_every_command_has_help() -> None:
    undocumented = [
        f"{name} {action.option_strings or action.dest}"
        for name, command in _subcommands(build_parser()).items()
        for action in command._actions  # noqa: SLF001
        if not isinstance(action, argparse._HelpAction) and not action.help  # noqa: SLF001
    ]
    assert undocumented == []


def test_top_level_help_has_examples_that_parse() -> None:
    parser = build_parser()
    text = parser.format_help()
    assert "examples:" in text
    examples = re.findall(r"^  (cognivault [^\n]*?)(?:  +\S.*)?$", text.split("examples:")[1], re.MULTILINE)
    assert len(examples) >= 6
    for example in examples:
        words = [w.strip('"') for w in re.findall(r'"[^"]*"|\S+', example)][1:]
        parser.parse_args([w.replace("~", "/tmp") for w in words])  # every example is a valid command line


def test_doctor_prints_a_table_and_json_keeps_the_data(tmp_path: Path) -> None:
    report = {"extras": {"embedded": "installed", "audio": "missing (faster_whisper): pip install '.[audio]'"},
              "models": {"ollama": {"reachable": False, "fix": "ollama serve"}, "embedded": {"missing": []}}}
    table = format_report(report)
    assert table.splitlines() == [
        "EXTRAS",
        "  embedded  installed",
        "  audio     missing (faster_whisper): pip install '.[audio]'",
        "",
        "MODELS",
        "  ollama.reachable  no",
        "  ollama.fix        ollama serve",
        "  embedded.missing  -",
    ]
    run = [sys.executable, "-m", "cognivault.cli", "doctor", "--vault", str(tmp_path)]
    text = subprocess.run(run, capture_output=True, text=True, timeout=120, check=True).stdout
    assert "{" not in text and "EXTRAS" in text and re.search(r"^  embedded +\S", text, re.MULTILINE)
    data = json.loads(subprocess.run([*run, "--json"], capture_output=True, text=True, timeout=120,
                                     check=True).stdout)
    assert set(data) >= {"cognivault", "extras", "models", "formats"}


def test_progress_line_has_rate_and_time_left() -> None:
    assert progress_text("read", 120, 400, 4.0, "Notes/a.md") == \
        "reading   [#######-----------------] 120/400 files  30/s  0:09 left  Notes/a.md"
    assert progress_text("embed", 30, 4000, 60.0).endswith("30/min  2:12:20 left")
    assert progress_text("finish", 400, 400, 9.0) == "done      [########################] 400/400 files"
    assert "left" not in progress_text("read", 0, 400, 0.0)


def _wait_for_cbreak(descriptor: int) -> None:
    """Until the reader has switched the terminal out of line mode (keys typed before that wait for Enter)."""
    while termios.tcgetattr(descriptor)[3] & termios.ICANON:
        time.sleep(0.01)


def test_a_grade_is_one_key_press_on_a_terminal() -> None:
    leader, follower = pty.openpty()
    try:
        with os.fdopen(follower, "r", closefd=False) as terminal:
            out = io.StringIO()
            result: list[str | None] = []
            reader = threading.Thread(target=lambda: result.append(read_choice(terminal, out, "> ", "1234sq")))
            reader.start()
            _wait_for_cbreak(follower)
            os.write(leader, b"x3")  # no Enter: an unknown key is ignored, "3" answers
            reader.join(30)
            assert result == ["3"] and out.getvalue() == "> 3\n"
            assert termios.tcgetattr(follower)[3] & termios.ICANON  # the terminal's mode is restored
            reader = threading.Thread(target=lambda: result.append(read_choice(terminal, out, "> ", "sq")))
            reader.start()
            _wait_for_cbreak(follower)
            os.write(leader, b"\r")
            reader.join(30)
            assert result[-1] == ""  # Enter
    finally:
        os.close(leader)
        os.close(follower)


def test_each_grade_shows_its_next_interval_before_grading(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    (vault / "Study").mkdir(parents=True)
    (vault / "Study" / "Deck.md").write_text("#flashcards/deck\n\nWhat is ATP?::The cell's energy currency\n",
                                             "utf-8")
    deck = ReviewDeck(vault)
    stdout = io.StringIO()
    summary = run_terminal_review(deck, deck.due(), io.StringIO("\n3\n"), stdout)
    assert summary["reviewed"] == 1
    out = stdout.getvalue()
    shown = re.search(r"1 again · (.+?)   2 hard · (.+?)   3 good · (.+?)   4 easy · (.+?)  \(s skip", out)
    assert shown, out
    graded = re.search(r"→ good: next review \S+ \(in (\d+) days?\)", out)
    assert graded and shown[3] == interval_label(int(graded[1]))  # the preview was the real outcome
    assert shown.start() < graded.start()


def test_interval_labels_read_like_the_plugin() -> None:
    assert [interval_label(d) for d in (1, 3, 45, 800)] == ["1 day", "3 days", "1.5 months", "2.2 years"]
    assert grade_prompt(lambda rating: rating * 2).startswith("1 again · 2 days   2 hard · 4 days")


def test_index_progress_counts_up_to_a_total_that_does_not_move(tmp_path: Path) -> None:
    import docx

    from answer_support import WordHashEmbedder
    from cognivault.config import load_settings
    from cognivault.engine import Engine

    vault = tmp_path / "vault"
    (vault / "Notes").mkdir(parents=True)
    for number in range(3):
        (vault / "Notes" / f"Note {number}.md").write_text(f"# Note {number}\n\nPlants make sugar from light.\n",
                                                           "utf-8")
    for name in ("Leaf", "Root"):  # read by the extractor process, counted when each comes back
        document = docx.Document()
        document.add_paragraph(f"The {name.lower()} of a plant: chlorophyll absorbs red and blue light.")
        document.save(vault / "Notes" / f"{name}.docx")
    settings = load_settings(vault, {"index": {"index_dir": str(tmp_path / "index")}}, environ={})
    events = []
    with Engine(vault, settings, embedder=WordHashEmbedder()) as engine:  # type: ignore[arg-type]
        engine.index(events.append)
    reads = [(e.done, e.total) for e in events if e.stage == "read"]
    assert {total for _, total in reads} == {5} and reads[-1] == (5, 5)
    assert [done for done, _ in reads] == sorted(done for done, _ in reads)  # never counts back
    embeds = [(e.done, e.total) for e in events if e.stage == "embed"]
    assert embeds and [done for done, _ in embeds] == sorted({done for done, _ in embeds})
    assert embeds[-1][0] == embeds[-1][1] and all(done <= total for done, total in embeds)


def test_output_into_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    """`cognivault status --json | head -1`: the reader leaves early; no 'Broken pipe' error line."""
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Cells.md").write_text("# Cells\n\nMitochondria make ATP.\n", "utf-8")
    assert main(["index", "--vault", str(vault), "--provider", "none"]) == 0
    for command in (["status", "--json"], ["search", "--mode", "lexical", "mitochondria"]):
        read_end, write_end = os.pipe()
        os.close(read_end)  # closed before the command writes a byte: every write meets a gone reader
        try:
            done = subprocess.run([sys.executable, "-m", "cognivault.cli", *command, "--vault", str(vault)],
                                  stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=120)
        finally:
            os.close(write_end)
        assert done.returncode == 141 and done.stderr == "", (command, done.stderr)
