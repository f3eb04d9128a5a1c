"""The flashcard parser follows the obsidian-spaced-repetition plugin's documented syntax."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cognivault.study.cards import (
    ParserOptions,
    Schedule,
    format_schedule_comment,
    parse_cards,
    parse_schedule_comment,
    with_schedule,
)

TAG = "#flashcards\n"


def cards_of(text: str, **options: object):  # type: ignore[no-untyped-def]
    return parse_cards(text, "note.md", ParserOptions(**options)).flashcards  # type: ignore[arg-type]


def sides(text: str, **options: object) -> list[tuple[str, str]]:
    return [(c.front, c.back) for f in cards_of(text, **options) for c in f.cards]


# -- the documented card types ------------------------------------------------
def test_single_line_basic() -> None:
    assert sides(TAG + "the question goes on this side::answer goes here!\n") == [
        ("the question goes on this side", "answer goes here!")]


def test_single_line_bidirectional_makes_two_siblings() -> None:
    found = cards_of(TAG + "info 1:::info 2\n")
    assert [f.kind for f in found] == ["reversed"]
    assert [(c.front, c.back) for c in found[0].cards] == [("info 1", "info 2"), ("info 2", "info 1")]
    assert [c.id.rsplit("-", 1)[1] for c in found[0].cards] == ["0", "1"]


def test_multi_line_basic() -> None:
    text = TAG + "\nAs per the definition\nof \"multiline\" the prompt\ncan be on multiple lines\n?\n" \
                 "same goes for\nthe answer\n"
    assert sides(text) == [('As per the definition\nof "multiline" the prompt\ncan be on multiple lines',
                            "same goes for\nthe answer")]


def test_multi_line_bidirectional() -> None:
    text = TAG + "\ninfo 1A\ninfo 1B\ninfo 1C\n?? \ninfo 2A\ninfo 2B\n"
    assert sides(text) == [("info 1A\ninfo 1B\ninfo 1C", "info 2A\ninfo 2B"),
                           ("info 2A\ninfo 2B", "info 1A\ninfo 1B\ninfo 1C")]


def test_blank_line_ends_multi_line_card() -> None:
    text = TAG + "\nfront\n?\nback\n\nnot part of the card\n"
    assert sides(text) == [("front", "back")]


def test_multi_line_sides_must_touch_the_separator() -> None:
    text = TAG + "\nparagraph one\n\nfront\n?\nback\n"
    assert sides(text) == [("front", "back")]


def test_cloze_one_card_per_deletion() -> None:
    text = TAG + "\nThe first female ==prime minister== of Australia was ==Julia Gillard==\n"
    assert sides(text) == [
        ("The first female [...] of Australia was Julia Gillard",
         "The first female prime minister of Australia was Julia Gillard"),
        ("The first female prime minister of Australia was [...]",
         "The first female prime minister of Australia was Julia Gillard")]


def test_cloze_hint() -> None:
    text = TAG + "\nThis ==note== doesn't need to have ==number==^[hint] on clozes\n"
    assert [front for front, _ in sides(text)] == ["This [...] doesn't need to have number on clozes",
                                                   "This note doesn't need to have [hint] on clozes"]
    assert {back for _, back in sides(text)} == {"This note doesn't need to have number on clozes"}


def test_classic_cloze_groups_by_number() -> None:
    text = TAG + ("\nThis is a ==cloze==^[a hint][^1]. This is ==too, but without hint==[^2]. "
                  "And this one is asked ==together with the first cloze==[^1].\n")
    fronts = [front for front, _ in sides(text)]
    assert fronts == ["This is a [a hint]. This is too, but without hint. And this one is asked [...].",
                      "This is a cloze. This is [...]. And this one is asked together with the first cloze."]


def test_generalized_overlapping_cloze() -> None:
    text = TAG + "\n==Context==[^hs] and ==item 1==[^as] and ==item 2==[^ha]\n"
    assert sides(text) == [("[...] and [...] and [...]", "[...] and item 1 and [...]"),
                           ("Context and item 1 and [...]", "Context and item 1 and item 2")]


def test_bold_and_curly_clozes_only_when_enabled() -> None:
    text = TAG + "\nThe **mitochondrion** makes {{ATP}}.\n"
    assert sides(text) == []
    assert sides(text, bold_clozes=True) == [("The [...] makes {{ATP}}.", "The mitochondrion makes {{ATP}}.")]
    assert len(sides(text, bold_clozes=True, curly_clozes=True)) == 2


def test_single_line_separator_wins_over_cloze() -> None:
    assert sides(TAG + "What is ==x==?::y\n") == [("What is ==x==?", "y")]


def test_reversed_separator_is_tested_first() -> None:
    assert [f.kind for f in cards_of(TAG + "a:::b\n")] == ["reversed"]


@pytest.mark.parametrize("line,expected", [
    # the plugin's own cases (its tests/unit/parser.test.ts): a separator in inline code is no separator
    ("`Inlineq::InlineA`", []),
    ("my inline question containing `some inline code` in it::and this is answer possibly containing `inline` code.",
     [("my inline question containing `some inline code` in it",
       "and this is answer possibly containing `inline` code.")]),
    # its first occurrence decides (plugin: hasInlineMarker): in code, the line is no card at all
    ("What does `std::vector` hold?::A growable array", []),
    ("Which operator?::`a::b` and `c:::d`", [("Which operator?", "`a::b` and `c:::d`")]),
    ("a:::b `x::y`", [("a", "b `x::y`"), ("b `x::y`", "a")]),
])
def test_separators_inside_code_spans_are_read_as_the_plugin_reads_them(
        line: str, expected: list[tuple[str, str]]) -> None:
    assert sides(TAG + line + "\n") == expected


def test_custom_separators_and_end_marker() -> None:
    text = TAG + "\nfront\n;;\nback\n\nmore back\n+++\nq%%a\n"
    found = sides(text, multi_line=";;", end_marker="+++", single_line="%%", single_line_reversed="%%%")
    assert found == [("front", "back\n\nmore back"), ("q", "a")]


# -- decks ---------------------------------------------------------------------
def test_notes_without_flashcard_tag_have_no_cards() -> None:
    assert cards_of("Question::Answer\n") == []
    assert len(cards_of("Question::Answer\n", require_tag=False)) == 1


def test_deck_from_tags_and_question_specific_tags() -> None:
    text = ("#flashcards/deckA\nQuestion1 (in deckA)::Answer1\nQuestion2 (also in deckA)::Answer2\n\n"
            "#flashcards/deckB Question4 (in deckB)::Answer4\n\nQuestion6 (in deckA)::Answer6\n\n"
            "#flashcards/deckC\nQuestion7::Answer7\n")
    found = cards_of(text)
    assert [(f.cards[0].front, f.decks) for f in found] == [
        ("Question1 (in deckA)", ["deckA"]), ("Question2 (also in deckA)", ["deckA"]),
        ("Question4 (in deckB)", ["deckB"]), ("Question6 (in deckA)", ["deckA"]), ("Question7", ["deckC"])]


def test_card_in_several_decks_and_frontmatter_deck() -> None:
    text = "#flashcards/language/words #flashcards/trivia\nA group of cats is called a::clowder\n"
    assert cards_of(text)[0].decks == ["language/words", "trivia"]
    text = "---\ntags: [flashcards/biology, other]\n---\nQ::A\n"
    assert cards_of(text)[0].decks == ["biology"]
    assert cards_of("---\ntags: flashcards\n---\nQ::A\n")[0].decks == ["default"]


def test_frontmatter_code_and_comments_are_not_cards() -> None:
    text = ("---\ntitle: a::b\ntags: [flashcards]\n---\n```\nx::y\n```\n\n<!-- hidden::card -->\n"
            "<!--\nalso::hidden\n-->\nreal::card\n")
    assert sides(text) == [("real", "card")]


def test_heading_context_is_recorded() -> None:
    text = TAG + "# Biology\n## Cells\nQ::A\n# Chemistry\nR::B\n"
    assert [f.heading_path for f in cards_of(text)] == [("Biology", "Cells"), ("Chemistry",)]


# -- schedules -------------------------------------------------------------------
def test_schedule_comment_next_line_same_line_multi_and_legacy() -> None:
    text = (TAG + "Q1::A1\n<!--SR:!2024-08-16,51,230-->\nQ2::A2 <!--SR:!2024-08-17,3,250-->\n"
            "L:::R\n<!--SR:!2024-01-02,4,270!2000-01-01,1,250-->\nOld::Card\n<!--SR:2021-08-20,13,290-->\n")
    found = cards_of(text)
    assert found[0].cards[0].schedule == Schedule(date(2024, 8, 16), 51, 230)
    assert found[0].comment_line == 2
    assert found[1].cards[0].schedule == Schedule(date(2024, 8, 17), 3, 250)
    assert found[1].comment_line is None and found[1].cards[0].back == "A2"
    assert found[2].cards[0].schedule == Schedule(date(2024, 1, 2), 4, 270)
    assert found[2].cards[1].schedule is None  # the plugin's placeholder means "new"
    assert found[3].cards[0].schedule == Schedule(date(2021, 8, 20), 13, 290)


def test_cloze_schedules_follow_sibling_order() -> None:
    text = TAG + "\nA ==b== c ==d==\n<!--SR:!2024-01-01,2,250!2024-02-02,5,270-->\n"
    schedules = [c.schedule for c in cards_of(text)[0].cards]
    assert schedules == [Schedule(date(2024, 1, 1), 2, 250), Schedule(date(2024, 2, 2), 5, 270)]


def test_ids_survive_schedule_changes_and_unrelated_edits() -> None:
    text = TAG + "Q::A\n\nA ==b== c ==d==\n"
    before = [c.id for f in cards_of(text) for c in f.cards]
    flashcard = cards_of(text)[1]
    updated = with_schedule(text, flashcard, 1, Schedule(date(2025, 1, 1), 3, 250))
    updated = "Some new intro line\n\n" + updated
    after = [c.id for f in cards_of(updated) for c in f.cards]
    assert before == after
    assert len(set(before)) == 3


def test_duplicate_cards_get_distinct_ids() -> None:
    ids = [f.cards[0].id for f in cards_of(TAG + "Q::A\nQ::A\n")]
    assert len(set(ids)) == 2


def test_new_comment_goes_on_next_line_and_only_it_changes() -> None:
    text = TAG + "intro\n\nQ::A\nnext line\n"
    flashcard = cards_of(text)[0]
    updated = with_schedule(text, flashcard, 0, Schedule(date(2025, 3, 1), 3, 260))
    assert updated == TAG + "intro\n\nQ::A\n<!--SR:!2025-03-01,3,260-->\nnext line\n"
    again = with_schedule(updated, cards_of(updated)[0], 0, Schedule(date(2025, 3, 9), 8, 262))
    assert again == updated.replace("!2025-03-01,3,260", "!2025-03-09,8,262")


def test_sibling_update_fills_placeholders_and_keeps_crlf() -> None:
    text = (TAG + "A ==b== c ==d== e ==f==\n").replace("\n", "\r\n")
    flashcard = cards_of(text)[0]
    updated = with_schedule(text, flashcard, 1, Schedule(date(2025, 3, 1), 3, 260))
    assert updated.endswith("\r\n<!--SR:!2000-01-01,1,250!2025-03-01,3,260!2000-01-01,1,250-->\r\n")
    assert "\n" not in updated.replace("\r\n", "")


def test_same_line_comment_is_rewritten_in_place() -> None:
    text = TAG + "Q::A <!--SR:!2024-08-17,3,250-->\nafter\n"
    updated = with_schedule(text, cards_of(text)[0], 0, Schedule(date(2025, 1, 1), 9, 240))
    assert updated == TAG + "Q::A <!--SR:!2025-01-01,9,240-->\nafter\n"


def test_multiline_comment_after_last_line() -> None:
    text = TAG + "\nfront\n?\nback 1\nback 2\n\nother\n"
    updated = with_schedule(text, cards_of(text)[0], 0, Schedule(date(2025, 1, 1), 1, 250))
    assert updated == TAG + "\nfront\n?\nback 1\nback 2\n<!--SR:!2025-01-01,1,250-->\n\nother\n"
    assert sides(updated) == [("front", "back 1\nback 2")]
    assert cards_of(updated)[0].cards[0].schedule == Schedule(date(2025, 1, 1), 1, 250)


@given(st.lists(st.tuples(st.dates(min_value=date(2001, 1, 1), max_value=date(2200, 1, 1)),
                          st.integers(0, 40000), st.integers(100, 500)), min_size=1, max_size=6))
@settings(max_examples=60, deadline=None)
def test_schedule_comment_round_trip(values: list[tuple[date, int, int]]) -> None:
    schedules = [Schedule(*v) for v in values]
    comment = format_schedule_comment(schedules)
    assert parse_schedule_comment(comment[len("<!--SR:"):-len("-->")]) == schedules


@pytest.mark.parametrize("line", ["https://example.org", "a : b", "time 10:30"])
def test_lines_without_the_separator_are_not_cards(line: str) -> None:
    assert sides(TAG + line + "\n") == []
