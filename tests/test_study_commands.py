"""The study commands end to end through ``cognivault.cli.main``: generate, review, quiz, export anki, progress."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
import sys
from pathlib import Path

import pytest

from cognivault.cli import main
from cognivault.study.anki import anki_cloze_text, basic_file
from cognivault.study.review import ReviewDeck

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    target = tmp_path / "vault"
    for note in (REPO / "examples" / "vault").rglob("*.md"):
        destination = target / note.relative_to(REPO / "examples" / "vault")
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(note, destination)
    return target


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_generate_review_quiz_progress_export(vault: Path, capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    code, out, _ = run(capsys, "generate", "flashcards", "--vault", str(vault), "--note", "Chloroplast",
                       "--chat-provider", "extractive", "--count", "4", "--json")
    assert code == 0
    result = json.loads(out)
    assert result["kind"] == "flashcards" and result["produced"] == 4
    assert (vault / result["path"]).is_file()

    code, out, _ = run(capsys, "generate", "quiz", "--vault", str(vault), "--scope", "folder:Photosynthesis",
                       "--chat-provider", "extractive", "--count", "3")
    quiz_path = out.strip()
    assert code == 0 and quiz_path.startswith("Study/Quiz - ") and (vault / quiz_path).is_file()

    code, out, _ = run(capsys, "review", "--vault", str(vault), "--json")
    due = json.loads(out)["due"]
    assert code == 0 and len(due) >= 4 and all(card["is_new"] for card in due)
    assert all("<!--" not in card["back"] and "[[" not in card["back"] for card in due)
    assert all(card["sources"] for card in due)

    monkeypatch.setattr(sys, "stdin", io.StringIO("\n3\n\n2\nq\n"))
    code, out, _ = run(capsys, "review", "--vault", str(vault), "--limit", "3")
    assert code == 0 and "Reviewed 2 cards." in out and "next review" in out

    card = due[2]["id"]
    code, out, _ = run(capsys, "review", "--vault", str(vault), "--card", card, "--grade", "easy", "--json")
    assert code == 0 and json.loads(out)["card_id"] == card
    assert card not in {c.id for c in ReviewDeck(vault).due()}

    code, out, _ = run(capsys, "quiz", "--vault", str(vault), quiz_path, "--answers", "A,A,A", "--json")
    attempt = json.loads(out)
    assert code == 0 and attempt["total"] == 3 and 0 <= attempt["correct"] <= 3

    # "x" names no option: asked again, not scored as no answer; stdin ends early: unanswered count as wrong
    monkeypatch.setattr(sys, "stdin", io.StringIO("x\nB\nA\n"))
    code, out, _ = run(capsys, "quiz", "--vault", str(vault), quiz_path)
    assert code == 0 and "Score:" in out and "Your answer >" in out
    assert "Your answer >   Answer with a letter A–" in out
    assert re.search(r"^[✓✗] 1: you B,", out, re.MULTILINE) and re.search(r"^[✓✗] 2: you A,", out, re.MULTILINE)
    assert "Your answer > \n(input ended: 1 question left unanswered, scored as wrong)\n" in out

    code, out, _ = run(capsys, "progress", "--vault", str(vault), "--json")
    progress = json.loads(out)
    assert code == 0
    assert progress["counts"] == {"generate": 2, "review": 3, "quiz_attempt": 2}
    assert progress["current_streak"] == 1 and len(progress["heatmap"]) == 90
    badges = {b["id"]: b for b in progress["badges"]}
    assert len(badges) == 25
    assert badges["first-quiz"]["unlocked"] and badges["card-maker"]["unlocked"]
    assert badges["first-recall"]["unlocked"] and not badges["centurion"]["unlocked"]
    code, out, _ = run(capsys, "progress", "--vault", str(vault))
    assert code == 0 and "Badges:" in out and "Streak: 1 day now, longest 1 day\n" in out and "(s)" not in out
    row = next(line for line in out.splitlines() if line.startswith("Last 90 days: "))
    heatmap = row.removeprefix("Last 90 days: ")
    assert len(heatmap) == 90 and heatmap.strip() == heatmap and heatmap[-1] != "·"  # every day visible, today studied
    assert "Recent quizzes:" in out

    target = tmp_path / "anki.txt"
    code, out, _ = run(capsys, "export", "anki", "--vault", str(vault), "--out", str(target))
    assert code == 0
    generated = ReviewDeck(vault).cards()
    for path, notetype, expected in ((target, "Basic", len([c for c in generated if c.kind != "cloze"])),
                                     (tmp_path / "anki.cloze.txt", "Cloze",
                                      len({(c.path, c.line) for c in generated if c.kind == "cloze"}))):
        if not expected:
            assert not path.exists()
            continue
        text = path.read_text("utf-8")
        header = [line for line in text.splitlines() if line.startswith("#")]
        assert header[:3] == ["#separator:tab", "#html:true", f"#notetype:{notetype}"]
        assert any(line.startswith("#deck:CogniVault::") for line in header) and "#tags:cognivault" in header
        rows = list(csv.reader(io.StringIO("\n".join(line for line in text.splitlines() if not line.startswith("#"))),
                               delimiter="\t"))
        assert len(rows) == expected and all(len(row) == 3 for row in rows)
        assert not any("<!--" in cell or "[[" in cell or "==" in cell for row in rows for cell in row)
        assert f"{expected} {notetype} notes written to {path}" in out



def test_progress_of_a_vault_never_studied_says_how_to_start(vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "progress", "--vault", str(vault))
    assert code == 0 and out.startswith("No study activity yet.") and "cognivault review" in out
    assert "Last 90 days" not in out and "Streak" not in out and not any(
        line and not line.strip() for line in out.splitlines())  # no row of blanks
    assert "Badges: 0/25" in out




def test_nothing_to_review_says_whether_there_are_no_cards_or_when_the_next_ones_come(
        vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "review", "--vault", str(vault))
    assert code == 0 and out.startswith("No flashcards in this vault yet.") and "generate flashcards" in out
    assert "Well done" not in out
    (vault / "Deck.md").write_text("#flashcards\n\nWhat is ATP?::Energy\n\nWhat is DNA?::Genes\n", "utf-8")
    first = ReviewDeck(vault).cards(paths=["Deck.md"])[0].id
    assert run(capsys, "review", "--vault", str(vault), "--card", first, "--grade", "3")[0] == 0
    code, out, _ = run(capsys, "review", "--vault", str(vault), "--no-new")
    due = ReviewDeck(vault).cards(paths=["Deck.md"])[0].due
    assert code == 0 and out == (f"Nothing is due now.\nNext review: 1 card on {due}.\n"
                                 "1 new card waits: review without --no-new to start them.\n")

def test_less_than_a_minute_of_study_is_not_zero_minutes(vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from cognivault.study.progress import ProgressStore

    ProgressStore(vault).record("ask", duration_s=20)
    code, out, _ = run(capsys, "progress", "--vault", str(vault))
    assert code == 0 and out.startswith("Study time: under 1 min in total") and "Streak: 1 day now" in out

def test_grading_one_card_says_one_day_and_counts_cards_in_words(vault: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    (vault / "Deck.md").write_text("#flashcards\n\nWhat is ATP?::The cell's energy currency\n", "utf-8")
    code, out, _ = run(capsys, "review", "--vault", str(vault), "--note", "Deck.md", "--list")
    assert code == 0 and out.endswith("\n1 card due\n")
    card = ReviewDeck(vault).cards(paths=["Deck.md"])[0].id
    code, out, _ = run(capsys, "review", "--vault", str(vault), "--card", card, "--grade", "1")
    assert code == 0 and out.endswith("(in 1 day)\n")


def test_review_and_export_take_a_note_by_name_and_refuse_one_the_vault_lacks(
        vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (vault / "Study").mkdir(exist_ok=True)
    (vault / "Study" / "Deck.md").write_text("#flashcards\n\nWhat is ATP?::The cell's energy currency\n", "utf-8")
    for name in ("Study/Deck.md", "study/deck", "Deck", str(vault / "Study" / "Deck.md")):
        code, out, _ = run(capsys, "review", "--vault", str(vault), "--note", name, "--list")
        assert code == 0 and out.endswith("\n1 card due\n"), name
    code, out, err = run(capsys, "review", "--vault", str(vault), "--note", "Study/Dek.md")
    assert code == 2 and "Nothing is due" not in out and "no note 'Study/Dek.md' in the vault" in err
    code, _, err = run(capsys, "export", "anki", "--vault", str(vault), "--note", "Dek")
    assert code == 2 and "no note 'Dek' in the vault" in err

def test_anki_fields_with_tabs_and_quotes_are_quoted_and_line_breaks_are_br(vault: Path) -> None:
    note = vault / "Deck.md"
    note.write_text('#flashcards/lang\n\nLine one\nline "two"\n?\nA\tB\n', "utf-8")
    text = basic_file(ReviewDeck(vault).cards(paths=["Deck.md"]), None).text
    assert "#deck:CogniVault::lang\n" in text
    body = "\n".join(line for line in text.split("\n") if not line.startswith("#"))
    assert '"Line one<br>line ""two"""\t"A\tB"\tdeck::lang' in body


ANKI_DECK = """---
tags: [flashcards/bio]
---
# Cell parts

Stroma::The fluid around the thylakoids.

Light:::Energy
<!--SR:!2024-03-01,4,250!2024-03-02,5,250-->

The ==Calvin cycle== runs in the ==stroma==^[a place]. [[Cells#Parts|Cells › Parts]]<!--cv:cite id=0123456789abcdef h=89abcdef-->

Question on
two lines
?
A tab\there and a "quote"

#flashcards/bio/enzymes
==RuBisCO==[^1] binds ==CO2==[^1] to ==RuBP==.
<!--SR:!2024-03-01,1,230!2024-03-01,1,230-->
"""  # noqa: E501 - a card line with its full citation comment


def test_export_anki_writes_basic_and_cloze_notes_in_two_files(vault: Path, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    (vault / "Cells deck.md").write_text(ANKI_DECK, "utf-8")
    out = tmp_path / "cards.txt"
    code, stdout, _ = run(capsys, "export", "anki", "--vault", str(vault), "--note", "Cells deck.md",
                          "--out", str(out), "--json")
    assert code == 0
    assert json.loads(stdout) == {"notes": 6, "files": [
        {"path": str(out), "notetype": "Basic", "notes": 4},
        {"path": str(tmp_path / "cards.cloze.txt"), "notetype": "Cloze", "notes": 2}]}
    assert out.read_text("utf-8") == (
        "#separator:tab\n#html:true\n#notetype:Basic\n#deck:CogniVault::bio\n#tags:cognivault\n"
        "#columns:Front\tBack\tTags\n#tags column:3\n"
        "Stroma\tThe fluid around the thylakoids.\tdeck::bio\n"
        "Light\tEnergy\tdeck::bio\n"
        "Energy\tLight\tdeck::bio\n"
        'Question on<br>two lines\t"A tab\there and a ""quote"""\tdeck::bio\n')
    assert (tmp_path / "cards.cloze.txt").read_text("utf-8") == (
        "#separator:tab\n#html:true\n#notetype:Cloze\n#deck:CogniVault\n#tags:cognivault\n"
        "#columns:Text\tBack Extra\tTags\n#tags column:3\n"
        "The {{c1::Calvin cycle}} runs in the {{c2::stroma::a place}}.\t\tdeck::bio\n"
        "{{c1::RuBisCO}} binds {{c1::CO2}} to {{c2::RuBP}}.\t\tdeck::bio::enzymes\n")
    # one kind of card: standard output will do; both kinds need --out
    code, stdout, _ = run(capsys, "export", "anki", "--vault", str(vault), "--note", "Cells deck.md",
                          "--deck", "bio/enzymes")
    assert code == 0
    assert stdout.startswith("#separator:tab\n#html:true\n#notetype:Cloze\n#deck:CogniVault::bio::enzymes\n")
    code, _, err = run(capsys, "export", "anki", "--vault", str(vault), "--note", "Cells deck.md")
    assert code == 2 and "--out" in err


def test_anki_cloze_numbers_follow_the_plugins_siblings() -> None:
    assert anki_cloze_text("==a== and ==b==") == "{{c1::a}} and {{c2::b}}"
    assert anki_cloze_text("==a==[^2] ==b==[^1] ==c==") == "{{c2::a}} {{c1::b}} {{c3::c}}"
    # [^ash]: per card, a = ask, h = hide, s = show; a deletion asked on two cards gets both numbers
    assert anki_cloze_text("==a==[^as] ==b==[^sa] ==c==[^aa] ==d==[^hs]") == \
        "{{c1::a}} {{c2::b}} {{c1,2::c}} d"


def test_bad_requests_exit_with_2(vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "generate", "quiz", "--vault", str(vault))[0] == 2
    code, _, err = run(capsys, "generate", "quiz", "--vault", str(vault), "--note", "No such note",
                       "--chat-provider", "extractive")
    assert code == 2 and "no indexed note" in err
    assert run(capsys, "generate", "lesson", "--vault", str(vault))[0] == 2
    assert run(capsys, "quiz", "--vault", str(vault), "../outside.md")[0] == 2
    assert run(capsys, "review", "--vault", str(vault), "--card", "nope-0", "--grade", "3")[0] == 2
    assert run(capsys, "export", "anki", "--vault", str(tmp_empty(vault)))[0] == 2


def tmp_empty(vault: Path) -> Path:
    empty = vault.parent / "empty"
    empty.mkdir(exist_ok=True)
    return empty
