"""Property tests of the Markdown parser and chunker together (issue 7, hostile input).

For any text: parsing and chunking never raise, and every chunk's line range
lies inside the note. For generated notes (headings, paragraphs, lists,
quotes, inline and multi-line ``%% comments %%``, frontmatter): every word
outside comments and frontmatter is in some chunk, and for body lines in a
chunk whose line range holds that line; nothing of a comment is.
"""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cognivault.vault.chunking import chunk_note
from cognivault.vault.markdown import normalize_text, parse_note
from cognivault.vault.types import ChunkDraft

MARKDOWN_ALPHABET = list("ab #[]!|^%`>-*_=\\\n\t<>()/.:123🎉ü\r\ufeff\x00") + ["---\n", "%%", "```\n", "- ", "# "]


def _chunks(text: str, chunk_chars: int = 1000, overlap: int = 100) -> list[ChunkDraft]:
    return chunk_note(text, parse_note(text, "Note.md"), "Note.md", chunk_chars=chunk_chars, overlap=overlap)


def _line_count(text: str) -> int:
    text = normalize_text(text)
    return len(text.split("\n")) - (1 if text.endswith("\n") else 0)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(MARKDOWN_ALPHABET) | st.characters(), max_size=600),
       st.integers(40, 1200), st.integers(0, 300))
def test_any_text_chunks_without_error_and_ranges_stay_inside(pieces: list[str], chunk_chars: int,
                                                             overlap: int) -> None:
    text = "".join(pieces)
    lines = _line_count(text)
    for chunk in _chunks(text, chunk_chars, overlap):
        assert chunk.text.strip()
        assert 1 <= chunk.line_start <= chunk.line_end <= lines, (chunk, lines)


# -- generated notes ------------------------------------------------------------------------------

WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=2, max_size=10)
HIDDEN = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=2, max_size=10)  # only ever inside comments
WORDS = st.lists(WORD, min_size=1, max_size=30).map(" ".join)


@st.composite
def _line(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["para", "para", "para", "heading", "list", "quote", "blank", "inline-comment",
                                 "comment-block"]))
    if kind == "heading":
        return "#" * draw(st.integers(1, 6)) + " " + draw(WORDS)
    if kind == "list":
        return "  " * draw(st.integers(0, 3)) + draw(st.sampled_from(["- ", "* ", "1. "])) + draw(WORDS)
    if kind == "quote":
        return "> " + draw(WORDS)
    if kind == "blank":
        return ""
    hidden = " ".join(draw(st.lists(HIDDEN, min_size=1, max_size=5)))
    if kind == "inline-comment":
        return f"{draw(WORDS)} %% {hidden} %% {draw(WORDS)}"
    if kind == "comment-block":
        return f"%%\n{hidden}\n\n{hidden}\n%%"
    return draw(WORDS)


@st.composite
def _note(draw: st.DrawFn) -> str:
    frontmatter = draw(st.sampled_from(["", "---\ntags: [topic]\nlang: en\n---\n"]))
    return frontmatter + "\n".join(draw(st.lists(_line(), max_size=60))) + "\n"


def _visible_words(text: str) -> list[tuple[int, str, bool]]:
    """(line number, word, is a heading line) for every word outside the frontmatter and comments."""
    lines = text.split("\n")
    start = 0
    if lines[0] == "---":
        start = lines.index("---", 1) + 1
    body = "\n".join(lines[start:])
    visible = re.sub(r"%%.*?%%", lambda m: re.sub(r"[^\n]", " ", m[0]), body, flags=re.S)
    out = []
    for number, line in enumerate(visible.split("\n"), start=start + 1):
        heading = line.startswith("#")
        out.extend((number, word, heading) for word in re.findall(r"[a-z]+", line))
    return out


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_note(), st.integers(150, 1200), st.integers(0, 120))
def test_every_visible_word_is_in_a_chunk_covering_its_line(text: str, chunk_chars: int, overlap: int) -> None:
    chunks = _chunks(text, chunk_chars, overlap)
    lines = _line_count(text)
    for chunk in chunks:
        assert 1 <= chunk.line_start <= chunk.line_end <= lines
        assert not re.search(r"[A-Z]{2}", chunk.text), f"comment text leaked into {chunk.text!r}"
    for number, word, heading in _visible_words(text):
        if heading:  # a heading travels in the heading path, or as a Markdown line in merged text
            assert any(word in " ".join(c.heading_path).split() or re.search(rf"\b{word}\b", c.text)
                       for c in chunks), (number, word)
        else:
            assert any(c.line_start <= number <= c.line_end and re.search(rf"\b{word}\b", c.text)
                       for c in chunks), (number, word, [(c.line_start, c.line_end, c.text) for c in chunks])
