"""Cutting notes and prose into passages (cognivault.vault.chunking)."""

from __future__ import annotations

import re
import time
from collections import Counter
from itertools import pairwise
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cognivault.vault.chunking import MIN_CHARS, chunk_note, split_prose, split_spans
from cognivault.vault.markdown import normalize_text, parse_note
from cognivault.vault.types import ChunkDraft

FILLER = ("Mitochondria convert nutrients into usable energy for the cell through respiration. "
          "This paragraph is long enough to stand alone as its own passage in the index.")


def chunks_of(text: str, path: str = "Note.md", **kwargs: int) -> list[ChunkDraft]:
    return chunk_note(text, parse_note(text, path), path, **kwargs)


def anchors(chunks: list[ChunkDraft]) -> dict[tuple[str, ...], list[str]]:
    out: dict[tuple[str, ...], list[str]] = {}
    for chunk in chunks:
        out.setdefault(chunk.heading_path, []).append(chunk.anchor)
    return out


def source_range(text: str, chunk: ChunkDraft) -> str:
    return "\n".join(normalize_text(text).split("\n")[chunk.line_start - 1:chunk.line_end])


# ---------------------------------------------------------------------------
# split_prose


def test_split_prose_short_and_empty() -> None:
    assert split_prose("") == []
    assert split_prose(" \n\t ") == []
    assert split_prose("  one short text \n") == ["one short text"]


def test_split_prose_prefers_paragraphs_then_sentences() -> None:
    paragraphs = [f"Paragraph {i}. " + "word " * 60 for i in range(6)]
    text = "\n\n".join(p.strip() for p in paragraphs)
    parts = split_prose(text, chunk_chars=700, overlap=0)
    assert len(parts) > 1
    for part in parts:
        assert part.startswith("Paragraph") and part.endswith("word")

    sentences = " ".join(f"Sentence number {i} has several plain words in it." for i in range(60))
    parts = split_prose(sentences, chunk_chars=300, overlap=0)
    assert all(part.endswith(".") and part.startswith("Sentence") for part in parts)
    assert all(len(part) <= 300 for part in parts)


def test_split_prose_overlap_repeats_context_at_word_starts() -> None:
    text = " ".join(f"w{i:04d}" for i in range(2000))
    parts = split_prose(text, chunk_chars=500, overlap=100)
    words = text.split()
    for before, after in pairwise(parts):
        first = after.split()[0]
        assert first in before.split()  # the next part starts inside the previous one
        assert 50 <= len(before) - before.index(first) <= 100
    assert all(set(part.split()) <= set(words) for part in parts)  # no word was cut
    assert all(len(part) <= 500 for part in parts)


def test_split_prose_cuts_only_words_longer_than_a_chunk() -> None:
    long_word = "x" * 2500
    parts = split_prose(f"start {long_word} end", chunk_chars=1000, overlap=100)
    assert parts[0] == "start" and parts[-1].endswith(" end")
    assert "".join(part.removesuffix(" end") for part in parts[1:]) == long_word
    assert all(len(part) <= 1000 for part in parts)

    near = "y" * 950  # shorter than a chunk: kept whole even when the overlap budget is smaller
    parts = split_prose(("word " * 250) + near + " tail " * 30, chunk_chars=1000, overlap=100)
    assert any(near in part for part in parts)


def test_split_prose_keeps_small_tails_with_the_previous_part() -> None:
    text = "a" * 10 + " " + ("word " * 199) + "end."
    parts = split_prose(text, chunk_chars=1000, overlap=0)
    assert len(parts) == 1 or all(len(part) >= MIN_CHARS for part in parts)


def test_split_prose_cjk_sentences() -> None:
    text = "这是一个句子。" * 400
    parts = split_prose(text, chunk_chars=300, overlap=30)
    assert all(len(part) <= 300 for part in parts)
    assert all(part.endswith("。") for part in parts)


WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=12)
SEPARATOR = st.sampled_from([" ", " ", " ", "\n", "\n\n", ". ", "! ", "\t"])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(WORD, SEPARATOR), max_size=400), st.integers(40, 1200), st.integers(0, 300))
def test_split_prose_properties(pieces: list[tuple[str, str]], chunk_chars: int, overlap: int) -> None:
    text = "".join(word + sep for word, sep in pieces)
    spans = split_spans(text, chunk_chars, overlap)
    parts = split_prose(text, chunk_chars, overlap)
    assert parts == [text[s:e] for s, e in spans]
    covered = [False] * len(text)
    previous = (-1, -1)
    for start, end in spans:
        part = text[start:end]
        assert part and part == part.strip()
        assert len(part) <= chunk_chars + min(MIN_CHARS, chunk_chars // 4)
        assert start > previous[0] and end > previous[1]  # moving forward
        # never mid-word: words are at most 12 characters, chunks at least 40
        assert start == 0 or not text[start - 1].isalpha()
        assert end == len(text) or not text[end].isalpha()
        previous = (start, end)
        for index in range(start, end):
            covered[index] = True
    assert all(covered[i] for i, ch in enumerate(text) if not ch.isspace())


# ---------------------------------------------------------------------------
# notes: sections, text, lines


def test_sections_text_lines_and_anchors() -> None:
    text = (
        "---\ntags: [x]\n---\n"
        f"Preamble. {FILLER}\n\n"
        f"# Cells\n\n{FILLER}\n\n"
        "## Parts\n\n"
        f"{FILLER}\n"
        "```python\nprint('code is indexed')  # %% not a comment\n```\n"
        "%% a hidden comment %%\n\n"
        "| a | b |\n|---|---|\n| 1 | 2 |\n"
    )
    chunks = chunks_of(text)
    assert [c.heading_path for c in chunks] == [(), ("Cells",), ("Cells", "Parts")]
    assert [(c.line_start, c.line_end) for c in chunks] == [(4, 4), (8, 8), (12, 20)]
    assert [c.anchor for c in chunks] == ["\x1e0\x1e0", "Cells\x1e0\x1e0", "Cells\x1fParts\x1e0\x1e0"]
    parts = chunks[2].text
    assert "print('code is indexed')  # %% not a comment" in parts
    assert "| a | b |\n|---|---|\n| 1 | 2 |" in parts
    assert "hidden" not in parts and "## Parts" not in parts
    assert "tags" not in chunks[0].text
    assert all(not c.structured and c.lang is None for c in chunks)


def test_comments_never_reach_chunks() -> None:
    text = (
        f"{FILLER} %%inline secret%% after\n\n"
        "%%\nblock secret\n\nstill secret\n%%\n\n"
        "Opened mid-paragraph %%\n\nsecret paragraph\n\n## Secret heading\n%% closed later.\n\n"
        f"# Heading\n{FILLER}\n%% never closed, so plain text\n{FILLER}\n"
    )
    chunks = chunks_of(text)
    joined = "\n".join(c.text for c in chunks)
    assert "secret" not in joined.lower()
    assert f"{FILLER} after" in joined
    assert "Opened mid-paragraph\n\nclosed later." in joined
    assert "%% never closed, so plain text" in joined  # nothing is hidden by a stray "%%"
    assert [c.heading_path for c in chunks] == [(), ("Heading",)]


def test_first_chunk_carries_description_and_aliases() -> None:
    text = ("---\naliases: [Powerhouse, Mito]\ndescription: Where cells make energy.\n---\n"
            f"# Mitochondria\n{FILLER}\n# Other\n{FILLER}\n")
    chunks = chunks_of(text)
    assert chunks[0].text.splitlines()[0] == "Where cells make energy. (aliases: Powerhouse, Mito)"
    assert chunks[0].line_start == 3  # the description line
    assert "Powerhouse" not in chunks[1].text

    only_aliases = chunks_of("---\naliases: Solo\n---\nshort\n")
    # the lead line is a paragraph of its own, not run into the note's first one when quoted
    assert len(only_aliases) == 1 and only_aliases[0].text == "Aliases: Solo\n\nshort"


def test_heading_only_note_is_findable() -> None:
    chunks = chunks_of("# Quantum entanglement\n")
    assert [(c.text, c.heading_path, c.line_start) for c in chunks] == [
        ("# Quantum entanglement", ("Quantum entanglement",), 1)]


def test_lang_and_empty_notes() -> None:
    assert chunks_of("") == []
    assert chunks_of("---\nlang: de\n---\n\n  \n") == []
    assert chunks_of("%% only a comment %%\n") == []
    assert {c.lang for c in chunks_of(f"---\nlang: de\n---\n{FILLER}\n")} == {"de"}


def test_short_note_is_one_chunk_with_all_its_text() -> None:
    text = "# Title\nOne line.\n## Sub\nTwo.\n"
    chunks = chunks_of(text)
    assert len(chunks) == 1
    assert chunks[0].text == "# Title\nOne line.\n## Sub\nTwo."
    assert chunks[0].heading_path == ("Title", "Sub")
    assert (chunks[0].line_start, chunks[0].line_end) == (1, 4)


def test_small_sections_merge_forward_into_sibling_or_child() -> None:
    text = (
        "# Topic\n\n"           # empty: carried into its child
        "## Setup\nShort.\n\n"   # small: carried into its sibling
        f"## Usage\n{FILLER}\n\n"
        f"## Details\n{FILLER}\n"
    )
    chunks = chunks_of(text)
    assert [c.heading_path for c in chunks] == [("Topic", "Usage"), ("Topic", "Details")]
    assert chunks[0].text == f"# Topic\n\n## Setup\nShort.\n\n## Usage\n{FILLER}"
    assert chunks[0].line_start == 1 and chunks[0].anchor == "Topic\x1fUsage\x1e0\x1e0"
    assert "## Details" not in chunks[1].text  # a chunk that took in nothing starts with its own text


def test_a_chunk_that_took_in_small_sections_reads_as_the_note_does() -> None:
    """Its own heading stands between the carried text and its own (else its text reads as the last
    carried section's), for a carried opening, sibling or parent; the lead line is no section."""
    text = (
        "---\ndescription: How to sync.\n---\n"
        "Intro line.\n\n"            # a small opening, carried into the first section
        "# Sync\n\n"                 # empty, carried into its child
        "## Pause\nPress pause.\n\n"  # small, carried into its sibling
        f"## Resume\n\n{FILLER}\n\n"
        f"## Conflicts\n{FILLER}\n"
    )
    chunks = chunks_of(text)
    assert [c.heading_path for c in chunks] == [("Sync", "Resume"), ("Sync", "Conflicts")]
    assert chunks[0].text == (f"How to sync.\n\nIntro line.\n\n# Sync\n\n## Pause\nPress pause.\n\n"
                              f"## Resume\n\n{FILLER}")
    assert (chunks[0].line_start, chunks[0].line_end) == (2, 13)
    lead_only = chunks_of(f"---\ndescription: How to sync.\n---\n# Sync\n{FILLER}\n")
    assert [c.text for c in lead_only] == [f"How to sync.\n\n{FILLER}"]


def test_small_section_before_a_shallower_heading_joins_the_previous_chunk() -> None:
    text = (
        f"# A\n{FILLER}\n"
        "### A deep\nTiny.\n"
        f"# B\n{FILLER}\n"
        "## B end\nLast words.\n"
    )
    chunks = chunks_of(text)
    assert [c.heading_path for c in chunks] == [("A",), ("B",)]
    assert chunks[0].text.endswith("### A deep\nTiny.")
    assert chunks[1].text.endswith("## B end\nLast words.")
    assert (chunks[0].line_end, chunks[1].line_end) == (4, 8)


def test_repeated_heading_paths_count_occurrences() -> None:
    text = f"# Example\n{FILLER}\n# Example\n{FILLER}\n# Other\n{FILLER}\n# Example\n{FILLER}\n"
    assert anchors(chunks_of(text)) == {
        ("Example",): ["Example\x1e0\x1e0", "Example\x1e1\x1e0", "Example\x1e2\x1e0"],
        ("Other",): ["Other\x1e0\x1e0"],
    }


def test_long_section_parts_have_accurate_lines() -> None:
    lines = [f"Line {i} says something about topic {i % 7}, and it goes on a little." for i in range(80)]
    text = "# Long\n" + "\n".join(lines) + "\n"
    chunks = chunks_of(text, chunk_chars=600, overlap=120)
    assert len(chunks) > 5
    assert [c.anchor for c in chunks] == [f"Long\x1e0\x1e{i}" for i in range(len(chunks))]
    for chunk in chunks:
        assert len(chunk.text) <= 600 + MIN_CHARS
        assert chunk.text in source_range(text, chunk)
        first, last = chunk.text.splitlines()[0], chunk.text.splitlines()[-1]
        assert first in normalize_text(text).split("\n")[chunk.line_start - 1]
        assert last in normalize_text(text).split("\n")[chunk.line_end - 1]
    assert any(a.line_end >= b.line_start for a, b in pairwise(chunks))  # overlap shares lines


def test_anchors_are_stable_when_another_section_changes() -> None:
    sections = {name: f"## {name}\n{FILLER}\n" for name in ("Alpha", "Beta", "Gamma", "Delta")}
    base = "# Root\n" + "".join(sections.values())
    before = anchors(chunks_of(base))

    edited = base.replace(sections["Beta"], "## Beta\n" + (FILLER + " More text.\n") * 15)
    after = anchors(chunks_of(edited, chunk_chars=500))
    for name in ("Alpha", "Gamma", "Delta"):
        assert after[("Root", name)] == before[("Root", name)]
    assert len(after[("Root", "Beta")]) > 1

    inserted = base.replace(sections["Gamma"], f"## New\n{FILLER}\n## Alpha\n{FILLER}\n" + sections["Gamma"])
    after = anchors(chunks_of(inserted))
    assert after[("Root", "New")] == ["Root\x1fNew\x1e0\x1e0"]
    for name in ("Beta", "Gamma", "Delta"):
        assert after[("Root", name)] == before[("Root", name)]
    assert after[("Root", "Alpha")] == before[("Root", "Alpha")] + ["Root\x1fAlpha\x1e1\x1e0"]

    shrunk = base.replace(sections["Gamma"], "## Gamma\nnow tiny\n")
    after = anchors(chunks_of(shrunk))
    assert ("Root", "Gamma") not in after
    for name in ("Alpha", "Beta", "Delta"):
        assert after[("Root", name)] == before[("Root", name)]


def test_crlf_and_bom_keep_line_numbers() -> None:
    text = "\ufeff# One\r\n" + FILLER + "\r\n\r\n# Two\r\n" + FILLER + "\r\n"
    chunks = chunks_of(text)
    assert [(c.line_start, c.line_end) for c in chunks] == [(2, 2), (5, 5)]
    assert "\r" not in "".join(c.text for c in chunks)


def test_huge_single_line_note_chunks_quickly() -> None:
    sentence = "Cells divide by mitosis and meiosis, and the cycle repeats in every tissue. " * 10
    sentence += "See [[Cell cycle]] for #biology details. "
    huge = (sentence * (10_000_000 // len(sentence) + 1))[:10_000_000]
    started = time.perf_counter()
    chunks = chunks_of(huge)
    assert len(chunks) > 9_000
    assert {(c.line_start, c.line_end) for c in chunks} == {(1, 1)}
    # Bounds a blow-up only (~1.5 s on a quiet machine; quadratic work on 10 MB would take hours):
    # how fast hostile files are read is measured by bench/bench_hostile_files.py.
    assert time.perf_counter() - started < 120


# ---------------------------------------------------------------------------
# properties

ANY_TEXT = st.lists(st.sampled_from(list("ab #[]!|^%`>-*=\\\n\t:") + ["\n\n", "# ", "%%", "---\n", "word "])
                    | st.characters(), max_size=300).map("".join)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ANY_TEXT, st.integers(50, 1200), st.integers(0, 300))
def test_chunk_note_never_raises_and_stays_inside_the_note(text: str, chunk_chars: int, overlap: int) -> None:
    note = parse_note(text, "n.md")
    chunks = chunk_note(text, note, "n.md", chunk_chars=chunk_chars, overlap=overlap)
    seen = set()
    for chunk in chunks:
        assert chunk.text and chunk.text == chunk.text.strip()
        assert 1 <= chunk.line_start <= chunk.line_end <= max(note.line_count, 1)
        assert chunk.anchor not in seen
        seen.add(chunk.anchor)
    if normalize_text(text).strip() and not note.comments and note.body_start_line == 1:
        assert chunks  # some text (even only headings) always gives a chunk


BODY_WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=2, max_size=10)
HEAD_WORD = st.text(alphabet="0123456789", min_size=1, max_size=6).map(lambda digits: "h" + digits)
SECRET = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=3, max_size=8)


@st.composite
def notes(draw: st.DrawFn) -> tuple[str, list[str], list[str], list[str]]:
    """A note made of headings, paragraphs, lists, code and comments, and its words by kind."""
    body: list[str] = []
    heads: list[str] = []
    secrets: list[str] = []
    blocks: list[str] = []
    if draw(st.booleans()):
        fm = draw(st.lists(SECRET, min_size=1, max_size=3))
        secrets += fm
        blocks.append("---\nkey: " + " ".join(fm) + "\n---")
    for _ in range(draw(st.integers(0, 14))):
        kind = draw(st.sampled_from(["heading", "para", "para", "list", "code", "comment", "inline"]))
        if kind == "heading":
            words = draw(st.lists(HEAD_WORD, min_size=1, max_size=3))
            heads += words
            blocks.append("#" * draw(st.integers(1, 4)) + " " + " ".join(words))
        elif kind in ("para", "list", "code"):
            lines = draw(st.lists(st.lists(BODY_WORD, min_size=1, max_size=25), min_size=1, max_size=5))
            body += [w for line in lines for w in line]
            prefix = "- " if kind == "list" else ""
            block = "\n".join(prefix + " ".join(line) for line in lines)
            blocks.append(f"```\n{block}\n```" if kind == "code" else block)
        elif kind == "comment":
            words = draw(st.lists(SECRET, min_size=1, max_size=6))
            secrets += words
            blocks.append("%%\n" + " ".join(words) + "\n%%")
        else:
            before = draw(st.lists(BODY_WORD, min_size=1, max_size=8))
            after = draw(st.lists(BODY_WORD, min_size=1, max_size=8))
            hidden = draw(st.lists(SECRET, min_size=1, max_size=4))
            body += before + after
            secrets += hidden
            blocks.append(" ".join(before) + " %%" + " ".join(hidden) + "%% " + " ".join(after))
    return "\n\n".join(blocks) + "\n", body, heads, secrets


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(notes(), st.integers(60, 1000), st.integers(0, 200))
def test_every_body_word_lands_in_a_chunk_and_no_comment_does(
        note_parts: tuple[str, list[str], list[str], list[str]], chunk_chars: int, overlap: int) -> None:
    text, body, heads, secrets = note_parts
    note = parse_note(text, "n.md")
    chunks = chunk_note(text, note, "n.md", chunk_chars=chunk_chars, overlap=overlap)
    chunk_words = Counter(w for c in chunks for w in re.findall(r"[A-Za-z0-9]+", c.text))
    # nothing is dropped: every occurrence of a body word is in some chunk (overlap may repeat it)
    assert not Counter(body) - chunk_words
    path_words = {w for c in chunks for part in c.heading_path for w in part.split()}
    assert set(heads) <= path_words | set(chunk_words)
    assert not set(secrets) & set(chunk_words)
    for chunk in chunks:
        assert 1 <= chunk.line_start <= chunk.line_end <= note.line_count
        assert len(chunk.text) <= chunk_chars + MIN_CHARS


# ---------------------------------------------------------------------------
# the shared help vault


def test_help_vault_chunks(help_vault: Path) -> None:  # its speed: bench/bench_index.py
    total = 0
    for file in sorted(help_vault.rglob("*.md")):
        text = file.read_text(encoding="utf-8")
        path = file.relative_to(help_vault).as_posix()
        note = parse_note(text, path)
        chunks = chunk_note(text, note, path)
        assert chunks or not text.strip(), path
        assert len({c.anchor for c in chunks}) == len(chunks)
        for chunk in chunks:
            assert 1 <= chunk.line_start <= chunk.line_end <= note.line_count
            assert len(chunk.text) >= MIN_CHARS or len(chunks) == 1
        total += len(chunks)
    assert total > 1000
