"""FSRS through the plugin's comment format, safe schedule rewrites, concurrent reviews, the terminal flow."""

from __future__ import annotations

import io
import re
import subprocess
import sys
import threading
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cognivault.study.cards import Schedule, parse_cards
from cognivault.study.progress import ProgressStore
from cognivault.study.review import CardNotFound, ReviewConflict, ReviewDeck, run_terminal_review
from cognivault.study.scheduler import CardScheduler, difficulty_from_ease, ease_from_difficulty
from cognivault.study.terminal import interval_label

NOW = datetime(2025, 3, 10, 9, 0, tzinfo=UTC)
PLUGIN_SCHEDULE_RE = re.compile(r"!([\d-]+),(\d+),(\d+)")  # the plugin's MULTI_SCHEDULING_EXTRACTOR


def make_vault(tmp_path: Path, body: str) -> Path:
    vault = tmp_path / "vault"
    (vault / "Study").mkdir(parents=True)
    (vault / "Study" / "Deck.md").write_text(body, "utf-8")
    return vault


# -- FSRS <-> comment ---------------------------------------------------------------
@given(st.floats(1.0, 10.0))
@settings(max_examples=100, deadline=None)
def test_difficulty_survives_the_ease_field(difficulty: float) -> None:
    ease = ease_from_difficulty(difficulty)
    assert 130 <= ease <= 350
    assert abs(difficulty_from_ease(ease) - difficulty) <= 9 / 220 / 2 + 1e-9


def test_plugin_base_ease_is_average_difficulty() -> None:
    assert 4.5 < difficulty_from_ease(250) < 5.5
    assert difficulty_from_ease(500) == 1.0 and difficulty_from_ease(100) == 10.0


def test_fsrs_round_trip_through_the_comment() -> None:
    scheduler = CardScheduler()
    first = scheduler.review(None, 3, NOW)
    assert first.schedule.due == NOW.astimezone().date() + timedelta(days=first.schedule.interval)
    restored = scheduler.to_fsrs(first.schedule, NOW)
    assert abs(restored.stability - first.stability) <= 0.5  # interval is S rounded to days (r = 0.9)
    assert abs(restored.difficulty - first.difficulty) <= 0.03
    # reviewing on the due day from the stored comment continues the same FSRS history
    later = datetime.combine(first.schedule.due, NOW.timetz())
    second = scheduler.review(first.schedule, 3, later)
    assert second.schedule.interval > first.schedule.interval
    assert 0.85 < second.retrievability < 0.95  # due day = recall probability near the 0.9 target


def test_plugin_written_schedule_is_continued_by_fsrs() -> None:
    plugin = Schedule(date(2025, 3, 10), 51, 230)  # as the plugin wrote it after its own review
    result = CardScheduler().review(plugin, 3, NOW)
    assert result.schedule.interval > 51
    assert result.previous == plugin
    lapse = CardScheduler().review(plugin, 1, NOW)
    assert lapse.schedule.interval < 51 and lapse.schedule.ease < 230


def test_placeholder_schedule_is_a_new_card() -> None:
    fresh = CardScheduler().review(None, 3, NOW).schedule
    assert CardScheduler().review(Schedule.new(), 3, NOW).schedule == fresh


# -- grading rewrites one comment ---------------------------------------------------
BODY = ("---\ntags: [flashcards/bio]\n---\n# Cells\n\nWhat makes ATP?::Mitochondria\n\n"
        "Left:::Right\n\nThe ==nucleus== holds ==DNA==.\n<!--SR:!2025-03-01,4,250!2000-01-01,1,250-->\n\n"
        "Front\n?\nBack\n")


def test_grade_rewrites_only_that_cards_comment(tmp_path: Path) -> None:
    vault = make_vault(tmp_path, BODY)
    deck = ReviewDeck(vault, progress=ProgressStore(vault, tz=UTC))
    due = deck.due(today=date(2025, 3, 10))
    assert [c.front for c in due][:1] == ["The [...] holds DNA."]  # the overdue one first, then new cards
    assert len(due) == 6
    target = next(c for c in due if c.front == "The nucleus holds [...].")
    outcome = deck.grade(target.id, "good", now=NOW)
    after = (vault / "Study" / "Deck.md").read_text("utf-8")
    before_lines, after_lines = BODY.split("\n"), after.split("\n")
    changed = [(a, b) for a, b in zip(before_lines, after_lines, strict=False) if a != b]
    assert len(before_lines) == len(after_lines) and len(changed) == 1
    old, new = changed[0]
    assert old == "<!--SR:!2025-03-01,4,250!2000-01-01,1,250-->"
    assert new.startswith("<!--SR:!2025-03-01,4,250!") and new.endswith("-->")
    assert [m.groups() for m in PLUGIN_SCHEDULE_RE.finditer(new)][1] == (outcome.due, str(outcome.interval),
                                                                           str(outcome.ease))
    events = deck.progress.events()  # type: ignore[union-attr]
    assert [e.kind for e in events] == ["review"] and events[0].data["rating"] == 3


def test_grade_inserts_comment_for_a_new_card(tmp_path: Path) -> None:
    vault = make_vault(tmp_path, BODY)
    deck = ReviewDeck(vault)
    card = next(c for c in deck.due(today=date(2025, 3, 10)) if c.front == "What makes ATP?")
    outcome = deck.grade(card.id, 4, now=NOW)
    text = (vault / "Study" / "Deck.md").read_text("utf-8")
    assert f"What makes ATP?::Mitochondria\n<!--SR:!{outcome.due},{outcome.interval},{outcome.ease}-->\n" in text
    assert card.id not in {c.id for c in deck.due(today=date(2025, 3, 10))}
    assert card.id in {c.id for c in deck.due(today=date.fromisoformat(outcome.due))}


def test_a_users_edit_between_read_and_write_is_kept(tmp_path: Path) -> None:
    vault = make_vault(tmp_path, BODY)
    note = vault / "Study" / "Deck.md"
    deck = ReviewDeck(vault)
    card = next(c for c in deck.due(today=date(2025, 3, 10)) if c.front == "Front")

    def user_types(attempt: int) -> None:
        if attempt == 1:  # the user saves the note while the review is being written
            note.write_text(note.read_text("utf-8") + "\nA line the user just typed.\n", "utf-8")

    deck.before_replace = user_types
    outcome = deck.grade(card.id, 3, now=NOW)
    text = note.read_text("utf-8")
    assert outcome.attempts == 2
    assert "A line the user just typed." in text
    assert f"Back\n<!--SR:!{outcome.due},{outcome.interval},{outcome.ease}-->" in text


def test_edited_card_is_refused_and_the_note_left_alone(tmp_path: Path) -> None:
    vault = make_vault(tmp_path, BODY)
    note = vault / "Study" / "Deck.md"
    deck = ReviewDeck(vault)
    card = next(c for c in deck.due(today=date(2025, 3, 10)) if c.front == "What makes ATP?")
    edited = BODY.replace("What makes ATP?", "Which organelle makes ATP?")
    note.write_text(edited, "utf-8")
    with pytest.raises(CardNotFound):
        deck.grade(card.id, 3, now=NOW)
    assert note.read_text("utf-8") == edited


def test_a_note_that_never_stops_changing_is_not_written(tmp_path: Path) -> None:
    vault = make_vault(tmp_path, BODY)
    note = vault / "Study" / "Deck.md"
    deck = ReviewDeck(vault)
    card = deck.due(today=date(2025, 3, 10))[0]
    deck.before_replace = lambda attempt: note.write_text(note.read_text("utf-8") + f"\nedit {attempt}\n", "utf-8")
    with pytest.raises(ReviewConflict):
        deck.grade(card.id, 3, now=NOW)
    assert "<!--SR:!2025-03-01,4,250!2000-01-01,1,250-->" in note.read_text("utf-8")
    assert not list(note.parent.glob(".*.tmp"))


def many_cards(count: int) -> str:
    return "#flashcards/many\n\n" + "\n".join(f"Question {i}::Answer {i}" for i in range(count)) + "\n"


def test_concurrent_grades_from_threads_all_land(tmp_path: Path) -> None:
    vault = make_vault(tmp_path, many_cards(12))
    cards = ReviewDeck(vault).due(today=date(2025, 3, 10))
    errors: list[BaseException] = []

    def grade(card_id: str) -> None:
        try:
            ReviewDeck(vault).grade(card_id, 3, now=NOW)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=grade, args=(c.id,)) for c in cards]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    parsed = parse_cards((vault / "Study" / "Deck.md").read_text("utf-8"), "Study/Deck.md")
    assert all(f.cards[0].schedule is not None for f in parsed.flashcards)
    assert len(parsed.flashcards) == 12


GRADER = """
import sys
from datetime import datetime, timezone
from cognivault.study.review import ReviewDeck
deck = ReviewDeck(sys.argv[1])
for card_id in sys.argv[2:]:
    deck.grade(card_id, 3, now=datetime(2025, 3, 10, 9, tzinfo=timezone.utc))
"""


def test_concurrent_grades_from_two_processes_all_land(tmp_path: Path) -> None:
    vault = make_vault(tmp_path, many_cards(10))
    ids = [c.id for c in ReviewDeck(vault).due(today=date(2025, 3, 10))]
    procs = [subprocess.Popen([sys.executable, "-c", GRADER, str(vault), *ids[i::2]]) for i in range(2)]
    assert [p.wait(timeout=60) for p in procs] == [0, 0]
    parsed = parse_cards((vault / "Study" / "Deck.md").read_text("utf-8"), "Study/Deck.md")
    assert sum(1 for f in parsed.flashcards if f.cards[0].schedule is not None) == 10


# -- the terminal flow ------------------------------------------------------------------
def test_terminal_review_reads_grades_from_stdin(tmp_path: Path) -> None:
    vault = make_vault(tmp_path, many_cards(3))
    deck = ReviewDeck(vault, progress=ProgressStore(vault, tz=UTC))
    cards = deck.due(today=date(2025, 3, 10))
    stdin = io.StringIO("\n3\n\nx\n1\n\n4\n\n3\n")  # good; bad input then again; easy; the again card: good
    stdout = io.StringIO()
    summary = run_terminal_review(deck, cards, stdin, stdout)
    out = stdout.getvalue()
    assert "Question 0" in out and "Answer 0" in out and "Please type 1, 2, 3 or 4." in out
    assert summary["reviewed"] == 4 and summary["again"] == 1 and summary["good"] == 2
    assert out.count("Question 1") == 2  # the card graded Again came back
    assert len(deck.progress.events()) == 4  # type: ignore[union-attr]


def test_terminal_review_quits_cleanly_on_eof_and_q(tmp_path: Path) -> None:
    vault = make_vault(tmp_path, many_cards(3))
    deck = ReviewDeck(vault)
    summary = run_terminal_review(deck, deck.due(), io.StringIO("\n3\nq\n"), io.StringIO())
    assert summary == {"reviewed": 1, "good": 1, "quit": 1}
    summary = run_terminal_review(deck, deck.due(), io.StringIO(""), io.StringIO())
    assert summary == {"quit": 1}



def review_in_terminal(tmp_path: Path, body: str, keys: str, **options: int) -> tuple[str, dict[str, int], Path]:
    """(the transcript, the summary, the vault) of a terminal review of a one-note vault typed as ``keys``."""
    vault = make_vault(tmp_path, body)
    deck = ReviewDeck(vault)
    stdout = io.StringIO()
    summary = run_terminal_review(deck, deck.due(), io.StringIO(keys), stdout, **options)
    return stdout.getvalue(), summary, vault


def test_again_says_the_card_comes_back_this_session_and_its_next_review_comes_from_the_relearning_grade(
        tmp_path: Path) -> None:
    """Issue 17: "again" said "next review tomorrow (in 1 day)" while the card came back in the same session."""
    out, summary, vault = review_in_terminal(tmp_path, many_cards(1), "\n1\n\n3\n")
    first, second = out.split("Question 0")[1:]
    assert "1 again · this session" in first  # the button says where the card goes, as Anki's "<10m" does
    again_line = re.findall(r"→ again.*", first)[0]
    assert "comes back later in this session" in again_line and "in 1 day" not in again_line
    assert "(again)" in first.rsplit("[", 1)[1]  # the card shows again, not as "(new)"
    good_line = re.findall(r"→ good.*", second)[0]
    comment = PLUGIN_SCHEDULE_RE.search((vault / "Study" / "Deck.md").read_text("utf-8"))
    assert comment and f"next review {comment[1]} (in {interval_label(int(comment[2]))})" in good_line
    assert summary["reviewed"] == 2 and "Reviewed 1 card (2 grades)." in out


def test_again_past_the_sessions_limit_gives_the_saved_date(tmp_path: Path) -> None:
    out, _, _ = review_in_terminal(tmp_path, many_cards(1), "\n1\n\n1\n", max_again=1)
    assert out.count("Question 0") == 2 and out.count("comes back later in this session") == 1
    last = out.split("Question 0")[2]
    assert "1 again · 1 day" in last and re.search(r"→ again: next review \S+ \(in 1 day\)", last)
    assert "did not come back" not in out


def test_stopping_before_an_again_card_comes_back_says_when_it_is_due(tmp_path: Path) -> None:
    out, _, vault = review_in_terminal(tmp_path, many_cards(2), "\n1\n\n3\nq\n")
    comment = PLUGIN_SCHEDULE_RE.search((vault / "Study" / "Deck.md").read_text("utf-8"))
    assert comment and out.endswith(
        f"Reviewed 2 cards.\n1 card you marked again did not come back before the end: due {comment[1]}.\n")


def test_the_answer_names_the_passage_the_card_was_made_from(tmp_path: Path) -> None:
    cite = "<!--cv:cite id=0123456789abcdef h=0123abcd-->"
    body = ("#flashcards\n\nWhat are grana?::Stacks of thylakoids. "
            f"[[Cells/Chloroplast#Structure|Chloroplast › Structure]]{cite}\n\n"
            f"What is ATP?::Energy. [[Cells/Mitochondrion#Role]]{cite}\n\nWhat is DNA?::Genes\n")
    out, _, _ = review_in_terminal(tmp_path, body, "\n3\n\n3\n\n3\n")
    assert "  Stacks of thylakoids.\n  Source: Chloroplast › Structure\n" in out
    assert "  Energy.\n  Source: Mitochondrion › Role\n" in out
    assert "  Genes\n\n" in out and out.count("Source:") == 2


def test_a_cloze_answer_marks_what_the_front_asked(tmp_path: Path) -> None:
    body = "#flashcards\n\nATP is made by ==ATP synthase== in the ==inner membrane== of [[Mitochondrion]].\n"
    out, _, _ = review_in_terminal(tmp_path, body, "\n3\n\n3\n")
    assert "  ATP is made by ==ATP synthase== in the inner membrane of [[Mitochondrion]].\n" in out
    assert "  ATP is made by ATP synthase in the ==inner membrane== of [[Mitochondrion]].\n" in out


# -- issue 13: the plugin's FSRS comments ----------------------------------------------------
FSRS_COMMENT = "!fsrs,2026-11-20T00:00:00.000Z,9,8.29,1,2,1,0,0,2026-11-11T10:00:00.000Z"
FSRS_BODY = f"#flashcards\n\nWhat is FSRS?::A scheduler\n<!--SR:{FSRS_COMMENT}-->\n"


def test_an_fsrs_comment_is_read_as_a_scheduled_card_not_a_new_one(tmp_path: Path) -> None:
    vault = make_vault(tmp_path, FSRS_BODY)
    deck = ReviewDeck(vault)
    [card] = deck.cards()
    assert not card.is_new and card.due == "2026-11-20" and card.interval == 9
    assert deck.due(today=date(2026, 11, 19)) == []  # scheduled, not due yet: not listed as new
    assert [c.id for c in deck.due(today=date(2026, 11, 20))] == [card.id]
    assert deck.stats(today=date(2026, 11, 19))["new"] == 0


def test_grading_an_fsrs_card_keeps_it_fsrs_from_its_own_memory_state(tmp_path: Path) -> None:
    vault = make_vault(tmp_path, FSRS_BODY)
    note = vault / "Study" / "Deck.md"
    deck = ReviewDeck(vault)
    [card] = deck.cards()
    now = datetime(2026, 11, 20, 8, 0, tzinfo=UTC)
    outcome = deck.grade(card.id, 3, now=now)
    comment = re.search(r"<!--SR:(.*?)-->", note.read_text("utf-8"))[1]
    fields = comment.split(",")
    assert fields[0] == "!fsrs" and len(fields) == 10, comment  # FSRS stays FSRS: no SM-2 group
    assert fields[1].endswith("Z") and fields[9] == "2026-11-20T08:00:00.000Z"
    assert int(fields[5]) == 2 and int(fields[6]) == 2 and int(fields[7]) == 0  # review state, reps 1 -> 2
    # FSRS went on from the plugin's stability 8.29 and difficulty 1 (not from an SM-2 translation):
    # a "good" after the full interval makes the stability grow, the difficulty stays near the floor.
    assert float(fields[3]) > 8.29 and float(fields[4]) < 2
    assert outcome.stability == pytest.approx(float(fields[3]), abs=1e-4)
    assert date.fromisoformat(outcome.due) == now.date() + timedelta(days=int(fields[2]))
    assert deck.cards()[0].due == outcome.due


def test_fsrs_and_sm2_groups_of_one_card_are_each_kept_in_their_form(tmp_path: Path) -> None:
    body = ("#flashcards\n\nFront:::Back\n"
            f"<!--SR:{FSRS_COMMENT}!2025-03-01,4,250-->\n")
    vault = make_vault(tmp_path, body)
    note = vault / "Study" / "Deck.md"
    deck = ReviewDeck(vault)
    first, second = deck.cards()
    assert first.due == "2026-11-20" and second.due == "2025-03-01"
    deck.grade(second.id, 3, now=NOW)
    groups = re.search(r"<!--SR:(.*?)-->", note.read_text("utf-8"))[1].split("!")[1:]
    assert groups[0] == FSRS_COMMENT[1:]  # untouched sibling: byte for byte
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2},\d+,\d+", groups[1])  # the SM-2 sibling stays SM-2


def test_a_new_sibling_of_an_fsrs_card_is_graded_into_fsrs(tmp_path: Path) -> None:
    body = "#flashcards\n\nFront:::Back\n<!--SR:!fsrs,-,0,0,0,0,0,0,0,-!fsrs,-,0,0,0,0,0,0,0,--->\n"
    vault = make_vault(tmp_path, body)
    deck = ReviewDeck(vault)
    first, second = deck.cards()
    assert first.is_new and second.is_new
    deck.grade(first.id, 4, now=NOW)
    groups = re.search(r"<!--SR:(.*?)-->", (vault / "Study" / "Deck.md").read_text("utf-8"))[1].split("!")[1:]
    assert groups[0].startswith("fsrs,2025-") and groups[1] == "fsrs,-,0,0,0,0,0,0,0,-"


def test_a_suspended_placeholder_stays_suspended_when_graded(tmp_path: Path) -> None:
    """Issue 28: the plugin's placeholder of a card never reviewed lost its ``,suspended`` marker when graded."""
    body = "#flashcards\n\nFront::Back\n<!--SR:!fsrs,-,0,0,0,0,0,0,0,-,suspended-->\n"
    vault = make_vault(tmp_path, body)
    deck = ReviewDeck(vault)
    (card,) = deck.cards()
    assert card.is_new
    deck.grade(card.id, 3, now=NOW)
    (group,) = re.search(r"<!--SR:(.*?)-->", (vault / "Study" / "Deck.md").read_text("utf-8"))[1].split("!")[1:]
    assert group.startswith("fsrs,2025-") and group.endswith(",suspended")


@given(st.builds(
    lambda due, interval, stability, difficulty, state, reps, lapses, last: (
        f"!fsrs,{due},{interval},{stability},{difficulty},{state},{reps},{lapses},0,{last}"),
    st.sampled_from(["-", "2026-11-20T00:00:00.000Z", "2024-02-29T23:59:59.999Z"]),
    st.integers(0, 36500), st.sampled_from(["0", "8.29", "1049.13725568", "0.1"]),
    st.sampled_from(["1", "5.5", "10", "3.14159265"]), st.integers(0, 3), st.integers(0, 999),
    st.integers(0, 99), st.sampled_from(["-", "2026-11-11T10:00:00.000Z"])))
@settings(max_examples=200, deadline=None)
def test_an_fsrs_group_reads_back_as_written(group: str) -> None:
    from cognivault.study.cards import format_schedule_comment, parse_schedule_comment

    [schedule] = parse_schedule_comment(group)
    assert schedule.fsrs is not None
    assert format_schedule_comment([schedule]) == f"<!--SR:{group}-->"
