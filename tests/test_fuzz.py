"""Property-based tests of the readers that face untrusted input (issue 13).

- the Markdown reader, through the indexer: any bytes under any file name (also
  names that are not UTF-8) are indexed or reported, never an exception;
- the card parser: for any note of card-like pieces, grading any card (into the
  SM-2 or the FSRS form) changes that card's schedule comment and nothing else;
- JSON request bodies: any bytes give a JSON value the engine can use or a 400
  ``invalid_json``/``invalid_request``, never another exception;
- LSP framing: any garbage between well-framed messages costs at most error
  replies, never one of the messages, and a frame of any claimed length is
  handled without reading past what it claims.

(The parse-and-chunk properties of the Markdown reader itself are in
test_chunk_properties.py and test_markdown.py.)
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
from datetime import UTC, date, datetime
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cognivault.companion.api import ApiError, parse_json_body
from cognivault.lsp import transport
from cognivault.study.cards import FSRS_NEW, FsrsState, Schedule, parse_cards, with_schedule
from cognivault.vault.scan import NOT_UTF8

# -- the Markdown reader, through the indexer -----------------------------------------------------
NAME_BYTES = st.lists(st.sampled_from([b"a", b"B", b" ", b"\xff", b"\xe9", b"\xc3\xa9", b"-", b"\xf0\x9f\x8e\x89"]),
                      min_size=1, max_size=8).map(b"".join)
NOTE_BYTES = st.lists(st.sampled_from([b"# Heading\n", b"word ", b"\xff\xfe", b"[[Link]] ", b"\n\n", b"- item\n",
                                       b"---\ntags: [x]\n---\n", b"\x00", b"%%c%%", b"```\n", b"\xed\xa0\x80"]),
                      max_size=60).map(b"".join)


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    from cognivault.config import load_settings
    from cognivault.engine import Engine

    vault = tmp_path_factory.mktemp("fuzz") / "vault"
    vault.mkdir()
    settings = load_settings(vault, {"index": {"index_dir": str(vault.parent / "index")}}, environ={})
    with Engine(vault, settings, embedder=None) as opened:
        yield opened


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=NAME_BYTES, content=NOTE_BYTES)
def test_any_note_under_any_name_is_indexed_or_reported(engine, name: bytes, content: bytes) -> None:  # type: ignore[no-untyped-def]
    import os

    path = engine.vault / os.fsdecode(name + b".md")
    path.write_bytes(content)
    try:
        report = engine.index()
    finally:
        path.unlink()
    shown = name.decode("utf-8", "replace") + ".md"
    entry = next(f for f in report.files if f.path == shown)
    if shown == os.fsdecode(name + b".md"):  # a UTF-8 name: read like any note
        assert entry.state in ("indexed", "failed"), entry
        assert entry.state == "indexed" or "binary" in (entry.reason or ""), entry
    else:
        assert (entry.state, entry.reason) == ("skipped", NOT_UTF8)
    json.dumps(report.to_dict(), ensure_ascii=False).encode("utf-8")  # the report prints as it is


# -- the card parser ------------------------------------------------------------------------------------
CARD_PIECES = ["Q::A\n", "Front:::Back\n", "front\n?\nback\n", "x\n??\ny\n", "a ==gap== b\n", "\n",
               "#flashcards/deck\n", "```\ncode::not\n```\n", "<!--SR:!2025-01-01,3,250-->\n",
               "<!--SR:!fsrs,2026-01-01T00:00:00.000Z,9,8.29,1,2,1,0,0,-->\n", "<!-- other -->\n", "plain text\n",
               "# Heading\n", "Q2::A2 <!--SR:!2024-02-02,1,230-->\n", "\r\n", "---\ntags: [flashcards]\n---\n"]
SCHEDULES = st.one_of(
    st.builds(Schedule, st.dates(date(2001, 1, 1), date(2200, 1, 1)), st.integers(1, 36500), st.integers(130, 500)),
    st.builds(lambda due, days, s, d: Schedule.of_fsrs(FsrsState(due, days, s, d, 2, 3, 0, 0, due)),
              st.datetimes(datetime(2001, 1, 1), datetime(2200, 1, 1), timezones=st.just(UTC)),
              st.integers(1, 36500), st.floats(0.1, 1e5), st.floats(1, 10)))


def _without_comments(text: str) -> str:
    """The note without its schedule comments (a comment's own line goes with it)."""
    text = re.sub(r"(?:^|(?<=[\r\n]))<!--SR:[^>]*-->(?:\r\n|\r|\n|$)", "", text)
    return re.sub(r"<!--SR:[^>]*-->", "", text).rstrip("\r\n")  # a last line may gain its line break


@settings(max_examples=300, deadline=None)
@given(pieces=st.lists(st.sampled_from(CARD_PIECES), max_size=14), pick=st.integers(0, 1000), schedule=SCHEDULES)
def test_grading_any_card_changes_its_comment_and_nothing_else(pieces: list[str], pick: int,
                                                                schedule: Schedule) -> None:
    text = "#flashcards\n" + "".join(pieces)
    note = parse_cards(text, "Deck.md")
    cards = [(flashcard, card) for flashcard in note.flashcards for card in flashcard.cards]
    if not cards:
        return
    flashcard, card = cards[pick % len(cards)]
    updated = with_schedule(text, flashcard, card.sibling, schedule)
    again = parse_cards(updated, "Deck.md")
    by_id = {c.id: c for f in again.flashcards for c in f.cards}
    assert set(by_id) == {c.id for _, c in cards}  # no card appeared, vanished or changed identity
    assert by_id[card.id].schedule is not None and by_id[card.id].schedule.format() == schedule.format()
    for _, other in cards:
        if other.id != card.id and other.schedule is not None:
            assert by_id[other.id].schedule == other.schedule
    assert _without_comments(updated) == _without_comments(text)  # the user's text is untouched


def test_the_fsrs_placeholder_formats_as_the_plugin_writes_it() -> None:
    assert FSRS_NEW.format() == "!fsrs,-,0,0,0,0,0,0,0,-"


# -- JSON bodies ------------------------------------------------------------------------------------------
JSON_PIECES = [b"{", b"}", b"[", b"]", b'"', b":", b",", b"1", b"-", b"e", b"9" * 50, b"1e999", b"NaN",
               b"Infinity", b"true", b"null", b'"\\ud800"', b'"\\udc00\\ud800"', b'"\\u00e9"', b"\\", b" ",
               b"\xff", b"\xc3", b'{"query": ', b'"x"', b"0.5", b"[" * 50]


@settings(max_examples=600, deadline=None)
@given(st.one_of(st.lists(st.sampled_from(JSON_PIECES), max_size=30).map(b"".join), st.binary(max_size=200),
                 st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
                              lambda inner: st.lists(inner, max_size=4)
                              | st.dictionaries(st.text(max_size=5), inner, max_size=4),
                              max_leaves=20).map(lambda value: json.dumps(value).encode())))
def test_any_body_is_a_usable_value_or_a_400(raw: bytes) -> None:
    try:
        value = parse_json_body(raw)
    except ApiError as exc:
        assert exc.status == 400 and exc.code == "invalid_json" and "\n" not in exc.message
        return
    json.dumps(value, ensure_ascii=False, allow_nan=False).encode("utf-8")  # usable: no NaN, no lone surrogate


# -- LSP framing ---------------------------------------------------------------------------------------------
class _Writer:
    def __init__(self) -> None:
        self.data = bytearray()

    def write(self, data: bytes) -> None:
        self.data += data


class _Protocol:
    def __init__(self) -> None:
        self.writer = _Writer()


def _frame(body: bytes, length: int | None = None) -> bytes:
    return f"Content-Length: {len(body) if length is None else length}\r\n\r\n".encode() + body


def _replies(data: bytes) -> list[dict[str, Any]]:
    replies = []
    while data:
        header, _, rest = data.partition(b"\r\n\r\n")
        length = int(header.split(b":")[1])
        replies.append(json.loads(rest[:length]))
        data = rest[length:]
    return replies


def _run(stream: bytes, monkeypatch: pytest.MonkeyPatch) -> tuple[list[bytes], list[dict[str, Any]], list]:
    handled: list[bytes] = []
    refused: list[tuple[str | None, str | None, int]] = []
    monkeypatch.setattr(transport, "handle_body", lambda protocol, body: handled.append(body))

    async def read_all() -> _Protocol:
        reader = asyncio.StreamReader(limit=transport.MAX_HEADER_BYTES)
        reader.feed_data(stream)
        reader.feed_eof()
        protocol = _Protocol()
        await transport.run_async(threading.Event(), reader, protocol,  # type: ignore[arg-type]
                                  lambda *args: refused.append(args))
        return protocol

    protocol = asyncio.run(read_all())
    return handled, _replies(bytes(protocol.writer.data)), refused


# Anything but a well-formed Content-Length header line (that would be a message of its own).
_VALID_HEADER = re.compile(rb"content-length:\s*\d{1,12}\s*\n")
GARBAGE = st.one_of(
    st.binary(max_size=300),
    st.lists(st.sampled_from([b"\r\n", b"\n", b"Content-Type: x\r\n", b"{", b"garbage", b" ", b"\xff", b":",
                              b"Content-Lengt", b"x" * 70_000, b"Content-Length: abc\r\n", b"Content-Length: \r\n",
                              b"Content-Length: 99999999999999\r\n", b"content-length:-1\r\n"]),
             max_size=6).map(b"".join)).filter(lambda junk: not _VALID_HEADER.search(junk.lower()))
BODIES = st.lists(st.integers(1, 10**6), min_size=1, max_size=5).map(
    lambda ids: [json.dumps({"jsonrpc": "2.0", "id": i, "method": "m"}).encode() for i in ids])


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(garbage=st.lists(GARBAGE, min_size=5, max_size=5), bodies=BODIES)
def test_garbage_between_messages_never_costs_a_message(monkeypatch: pytest.MonkeyPatch, garbage: list[bytes],
                                                        bodies: list[bytes]) -> None:
    stream = b"".join(junk + _frame(body) for junk, body in zip(garbage, bodies, strict=False))
    handled, replies, _ = _run(stream, monkeypatch)
    assert handled == bodies
    assert all(r["id"] is None and r["error"]["code"] in (-32700, -32600) for r in replies)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(claimed=st.integers(transport.MAX_MESSAGE_BYTES + 1, 10**12 - 1), body=st.binary(max_size=200).filter(
    lambda b: b"content-length:" not in b.lower()), after=BODIES)
def test_a_frame_claiming_any_length_over_the_limit_is_refused_and_the_next_read(
        monkeypatch: pytest.MonkeyPatch, claimed: int, body: bytes, after: list[bytes]) -> None:
    change = json.dumps({"jsonrpc": "2.0", "method": "textDocument/didChange",
                         "params": {"textDocument": {"uri": "file:///v/N.md"}}}).encode()
    stream = _frame(change + body, claimed) + b"".join(_frame(b) for b in after)
    handled, replies, refused = _run(stream, monkeypatch)
    assert handled == after
    assert [r["error"]["code"] for r in replies] == [-32600]
    assert refused == [("textDocument/didChange", "file:///v/N.md", claimed)]
