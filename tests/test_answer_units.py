"""Units of the answer pipeline: calculator, citation filter, confidence, packs, follow-ups, prompts, requests."""

from __future__ import annotations

import base64

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cognivault.answer.cache import CACHE_FILE, AnswerCache
from cognivault.answer.calculator import CalculatorError, calculate
from cognivault.answer.citations import LINK_REMOVED, CitationFilter
from cognivault.answer.confidence import assess
from cognivault.answer.evidence import Evidence, EvidencePack
from cognivault.answer.prompts import load_prompt, parse_template
from cognivault.answer.request import MAX_QUESTION_CHARS, AskError, AskRequest
from cognivault.answer.sessions import SessionError, SessionStore, Turn, resolve_follow_up, validate_session_id

# -- calculator -------------------------------------------------------------------------------------


@pytest.mark.parametrize("expression, value", [
    ("1 + 2 * 3", 7), ("(1 + 2) * 3", 9), ("2 ** 10", 1024), ("7 // 2", 3), ("7 % 3", 1), ("-3 + +4", 1),
    ("1.5 * 4", 6.0), ("2 ^ 3", 8), ("10 / 4", 2.5), ("12 × 3 ÷ 4", 9.0),
])
def test_calculator_computes_arithmetic(expression: str, value: float) -> None:
    assert calculate(expression) == value


@pytest.mark.parametrize("expression, message", [
    ("__import__('os').system('id')", "not allowed"),
    ("os", "names are not allowed"),
    ("x + 1", "names are not allowed"),
    ("(1).__class__", "not allowed"),
    ("[1, 2][0]", "not allowed"),
    ("'a' * 3", "only numbers"),
    ("lambda: 1", "not allowed"),
    ("9 ** 9 ** 9", "limited"),
    ("10 ** 5000", "limited"),
    ("99999 ** 999", "too large"),
    ("2 ** 999 * 2 ** 999 * 2 ** 999 * 2 ** 999 * 2 ** 999", "too large"),
    ("1 / 0", "division by zero"),
    ("1e308 * 10", "too large"),
    ("True + 1", "only numbers"),
    ("1 +", "not an arithmetic expression"),
    ("1" * 300, "limited to"),
    ("(" * 100 + "1" + ")" * 100, "limited to"),
    ("", "empty"),
])
def test_calculator_refuses_everything_else(expression: str, message: str) -> None:
    with pytest.raises(CalculatorError, match=message):
        calculate(expression)


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet="0123456789+-*/%().^ eE_xjab", max_size=40))
def test_calculator_never_raises_anything_but_its_error(expression: str) -> None:
    try:
        result = calculate(expression)
    except CalculatorError:
        return
    assert isinstance(result, int | float) and not isinstance(result, bool)


# -- citation filter ---------------------------------------------------------------------------------


def _filter() -> CitationFilter:
    return CitationFilter(lambda label: label if label in {"S1", "S2", "S3"} else None,
                          lambda target: "Notes/A.md" if target.casefold() in ("a", "notes/a.md") else None,
                          lambda url: url == "https://docs.example/page")


def _run(pieces: list[str]) -> tuple[list[tuple[str, str]], CitationFilter]:
    f = _filter()
    events: list[tuple[str, str]] = []
    for piece in pieces:
        events += f.feed(piece)
    events += f.flush()
    return events, f


SAMPLE = ("Cells make ATP [S1]. Also [S2, S3] and (S1) and [S4] and [s2][S2]. Read [[A]] or [[Hidden|that note]]; "
          "see [the docs](https://docs.example/page) and [bad](https://evil.example/x) or https://evil.example "
          "plus https://docs.example/page. ![pic](https://tracker.example/p.png) [not a cite] (parenthetical) "
          "[x](Notes/A.md) [y](../../etc/passwd) [z](javascript:alert(1)) [S1](javascript:x(2)) www.evil.example "
          "<https://evil.example/auto> and ../../private/diary.md or Notes/A.md end")


def test_citation_filter_keeps_pack_labels_and_checks_links() -> None:
    events, f = _run([SAMPLE])
    out = f.text
    assert "[S1]" in out and "[S2][S3]" in out and "[S4]" not in out
    assert "evil.example" not in out and "tracker.example" not in out and "etc/passwd" not in out
    assert "javascript" not in out and "www.evil" not in out
    assert "diary.md" not in out and " diary or Notes/A.md end" in out
    assert "[the docs](https://docs.example/page)" in out and "https://docs.example/page." in out
    assert "[[A]]" in out and "that note" in out and "[[Hidden" not in out
    assert "[x](Notes/A.md)" in out and "[not a cite]" in out and "(parenthetical)" in out
    assert LINK_REMOVED in out
    assert f.report.accepted == ["S1", "S2", "S3"]
    assert {d["label"] for d in f.report.dropped} == {"S4", "S2"}
    assert "](" not in out.replace("[the docs](", "").replace("[x](", "")
    # metadata for a label comes before the text that first cites it
    metadata_at = {value: i for i, (kind, value) in enumerate(events) if kind == "metadata"}
    for label, index in metadata_at.items():
        first_text = next(i for i, (kind, value) in enumerate(events) if kind == "text" and f"[{label}]" in value)
        assert index < first_text


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=len(SAMPLE) - 1), max_size=40))
def test_citation_filter_does_not_depend_on_how_the_stream_is_split(cuts: list[int]) -> None:
    points = sorted(set(cuts))
    pieces = [SAMPLE[a:b] for a, b in zip([0, *points], [*points, len(SAMPLE)], strict=True)]
    _, whole = _run([SAMPLE])
    _, split = _run(pieces)
    assert split.text == whole.text
    assert split.report == whole.report


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=300))
def test_citation_filter_survives_garbage(garbage: str) -> None:
    _, f = _run([garbage[i:i + 7] for i in range(0, len(garbage), 7)])
    assert "[S9" not in f.text or "[S9]" not in f.text
    for label in f.report.accepted:
        assert label in {"S1", "S2", "S3"}


def test_citation_filter_holds_back_partial_constructs() -> None:
    f = _filter()
    assert f.feed("Energy [S") == [("text", "Energy ")]
    assert f.feed("1") == []
    assert f.feed("] done ") == [("metadata", "S1"), ("text", "[S1] done ")]
    assert f.feed("visit htt") == [("text", "visit ")]
    assert f.feed("ps://evil.example/a") == []
    assert f.feed(" now") == [("text", f"{LINK_REMOVED} ")]  # the last word waits: it may become a path
    assert f.feed(" ../private/dia") == [("text", "now ")]
    assert f.feed("ry.md and Notes/A.md ") == [("text", "diary and Notes/A.md ")]
    assert f.flush() == []


# -- evidence pack and confidence ------------------------------------------------------------------


def _item(text: str, terms: set[str]) -> Evidence:
    return Evidence("", f"id-{text[:5]}", "a.md", "A", [], 1, 2, "", text, text, 1.0, terms=frozenset(terms))


def test_pack_has_hard_limits() -> None:
    pack = EvidencePack(max_items=3, token_budget=300, item_tokens=200, extra_items=1, extra_tokens=100)
    for n in range(6):
        pack.add(Evidence("", f"c{n}", "a.md", "A", [], 1, 2, "", "word " * 400, "", 1.0))
    assert len(pack) <= 3 and pack.tokens_used <= 300 + 10
    assert all(item.truncated for item in pack.items)
    assert [i.label for i in pack.items] == [f"S{n}" for n in range(1, len(pack) + 1)]
    extra = pack.add(Evidence("", "t1", "b.md", "B", [], 1, 2, "", "short tool passage " * 3, "", 0.0), from_tool=True)
    assert extra is not None and extra.label == f"S{len(pack)}"
    assert pack.add(Evidence("", "t2", "b.md", "B", [], 1, 2, "", "another", "", 0.0), from_tool=True) is None
    assert pack.add(Evidence("", "c0", "a.md", "A", [], 1, 2, "", "dup", "", 0.0)) is pack.items[0]


def test_confidence_rules() -> None:
    weights = {"calvin": 2.0, "cycl": 2.0, "produc": 1.0}
    terms = list(weights)
    empty = EvidencePack(question_terms=terms, term_weights=weights)
    assert assess(empty).label == "low"
    full = EvidencePack(question_terms=terms, term_weights=weights)
    full.add(_item("calvin cycle produces sugar", {"calvin", "cycl", "produc"}))
    assert assess(full).label == "high"
    scattered = EvidencePack(question_terms=terms, term_weights=weights)
    scattered.add(_item("calvin", {"calvin"}))
    scattered.add(_item("cycle", {"cycl"}))
    scattered.add(_item("produce", {"produc"}))
    assert assess(scattered).label == "medium"
    weak = EvidencePack(question_terms=terms, term_weights=weights)
    weak.add(_item("the cycle", {"cycl"}))
    result = assess(weak)
    # A weak pack is labelled low; it is refused only when the vault does not cover the question.
    assert result.label == "low" and result.missing[0] == "calvin" and result.supported
    off_topic = EvidencePack(question_terms=terms, term_weights=weights, unknown_share=0.8, unknown=["calvin"])
    off_topic.add(_item("the cycle", {"cycl"}))
    result = assess(off_topic)
    assert result.label == "low" and not result.supported and "never mentions: calvin" in result.reason
    no_terms = EvidencePack(question_terms=[], term_weights={})
    no_terms.add(_item("anything", {"anything"}))
    assert assess(no_terms).label == "low"
    assert assess(full).similarity is None and assess(full).keyword_coverage == assess(full).coverage


def _pack_with_meaning(terms: set[str], similarity: float | None) -> EvidencePack:
    weights = {"calvin": 2.0, "cycl": 2.0, "produc": 1.0}
    pack = EvidencePack(question_terms=list(weights), term_weights=weights)
    item = pack.add(_item("a passage that says it in other words", terms))
    assert item is not None
    item.similarity = similarity
    return pack


def test_confidence_counts_meaning_where_it_was_measured() -> None:
    words_only = assess(_pack_with_meaning({"calvin"}, None))
    assert words_only.label == "low" and words_only.coverage == pytest.approx(0.4)
    # The same words, and a passage whose meaning is close to the question's: a paraphrase, not a miss.
    paraphrase = assess(_pack_with_meaning({"calvin"}, 0.8))
    assert paraphrase.label == "medium" and paraphrase.supported
    assert paraphrase.keyword_coverage == pytest.approx(0.4) and paraphrase.coverage > 0.5
    assert paraphrase.similarity == pytest.approx(0.8) and "meaning" in paraphrase.reason
    assert assess(_pack_with_meaning({"calvin"}, 0.3)).coverage == pytest.approx(0.4)  # distant: words decide
    # Meaning never lowers what the words found.
    assert assess(_pack_with_meaning({"calvin", "cycl", "produc"}, 0.1)).label == "high"


@pytest.mark.parametrize("terms", [set(), {"produc"}, {"cycl"}, {"calvin", "produc"}])
def test_meaning_alone_never_makes_a_weak_pack_high(terms: set[str]) -> None:
    result = assess(_pack_with_meaning(terms, 0.99))
    assert result.label != "high"
    if not terms:
        assert result.label == "low" and not result.supported


# -- answer cache -------------------------------------------------------------------------------------


def test_answer_cache_file_is_bounded_and_survives_damage(tmp_path) -> None:  # noqa: ANN001
    path = tmp_path / "index" / CACHE_FILE
    cache = AnswerCache(size=3, path=path)
    for n in range(5):
        cache.put(f"k{n}", [{"type": "text", "data": {"text": f"answer {n}"}}], {"answer": f"answer {n}"}, 7)
    reopened = AnswerCache(path=path)
    assert [reopened.get(f"k{n}") is not None for n in range(5)] == [False, False, True, True, True]
    assert reopened.get("k4").done == {"answer": "answer 4"}  # type: ignore[union-attr]
    small = AnswerCache(path=tmp_path / "small.json", max_bytes=400)
    for n in range(5):
        small.put(f"k{n}", [], {"answer": "x" * 100}, 1)
    assert len(path.read_text("utf-8")) > 400 >= len((tmp_path / "small.json").read_text("utf-8"))
    path.write_text('{"format": 1, "entries": [{"key": "k1"', "utf-8")  # torn by something else
    damaged = AnswerCache(path=path)
    assert damaged.get("k4") is None
    damaged.put("k5", [], {"answer": "fresh"}, 8)
    assert AnswerCache(path=path).get("k5") is not None


# -- sessions and follow-ups -------------------------------------------------------------------------


def test_follow_up_resolution() -> None:
    previous = Turn("How do I sync my vault?", "…", resolved="How do I sync my vault?",
                    sources=[{"label": "S1", "chunk_id": "x", "path": "Sync.md"}])
    follow = resolve_follow_up("and on mobile?", previous)
    assert follow.follow_up and "sync my vault" in follow.query and follow.prior_paths == ["Sync.md"]
    assert resolve_follow_up("Und auf dem Handy?", previous).follow_up
    assert resolve_follow_up("does it cost money?", previous).follow_up
    independent = resolve_follow_up("What file formats can the canvas plugin export to?", previous)
    assert not independent.follow_up and independent.query == independent.question
    fresh = resolve_follow_up("New topic: what is a canvas?", previous)
    assert fresh.fresh and fresh.question == "what is a canvas?" and not fresh.follow_up
    assert resolve_follow_up("and on mobile?", previous, new_topic=True).fresh
    assert not resolve_follow_up("and on mobile?", None).follow_up


@pytest.mark.parametrize("bad", ["", "../etc", "a/b", "x" * 65, ".hidden", "a b"])
def test_session_ids_are_validated(bad: str) -> None:
    with pytest.raises(SessionError):
        validate_session_id(bad)


def test_session_history_budget_keeps_newest_turns(tmp_path) -> None:  # noqa: ANN001
    store = SessionStore(tmp_path, token_budget=40)
    for n in range(5):
        store.append("s", Turn(f"question number {n} " * 3, f"answer {n} [S1]"))
    messages, memory = store.history(store.get("s"))
    assert memory.turns == 5 and memory.turns_in_context == len(messages) // 2 >= 1
    assert memory.trimmed_turns == 5 - memory.turns_in_context and memory.tokens_used <= 40
    assert messages[-1].content == "answer 4" and "question number 4" in messages[-2].content
    with pytest.raises(SessionError):
        store.truncate_now("s", 6)
    with pytest.raises(SessionError):
        store.truncate_now("s", -1)
    assert len(store.truncate_now("s", 2).turns) == 2
    assert (tmp_path / "s.json").stat().st_mode & 0o777 == 0o600
    (tmp_path / "broken.json").write_text("{not json", "utf-8")
    assert SessionStore(tmp_path).get("broken").turns == []


# -- prompts and requests ------------------------------------------------------------------------------


def test_prompt_files_parse_and_render() -> None:
    for name in ("answer", "plan"):
        template = load_prompt(name)
        assert template.source.endswith(f"prompts/{name}.md")
        system, user = template.render({"evidence": "[S1] a.md\nText {with braces}", "question": "Why?",
                                        "confidence": "medium"})
        assert "[S1] a.md" in system and "{with braces}" in system and "Why?" in user
        assert "<!--" not in system and "{{" not in system + user
    with pytest.raises(ValueError, match="placeholder"):
        parse_template("answer", "## System\nnothing\n## User\n{{question}}", "x")


def test_ask_request_rules() -> None:
    assert AskRequest("  hi there  ").validated().question == "hi there"
    with pytest.raises(AskError) as error:
        AskRequest("y" * (MAX_QUESTION_CHARS + 1)).validated()
    assert error.value.status == 413
    parsed = AskRequest.from_json({"question": "What?", "scope": {"folders": ["Bio"]}, "session_id": "s-1",
                                   "attachments": [{"name": "n.txt", "data": base64.b64encode(b"hey").decode()}]})
    assert parsed.scope.folders == ["Bio"] and parsed.attachments[0].data == b"hey"
    for body, code in [({"question": "x", "bogus": 1}, "invalid_request"), ([], "invalid_request"),
                       ({"question": 5}, "invalid_question"), ({"question": "x", "session_id": "../x"},
                                                               "invalid_session"),
                       ({"question": "x", "attachments": [{"name": "a.txt", "data": "%%%"}]}, "invalid_attachment"),
                       ({"question": "x", "truncate_to": 1}, "invalid_turn"),
                       ({"question": "x", "scope": {"folders": 3}}, "invalid_scope"),
                       ({"question": "x", "max_sources": 99}, "invalid_request")]:
        with pytest.raises(AskError) as error:
            AskRequest.from_json(body)
        assert error.value.code == code, body
