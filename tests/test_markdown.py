"""Parsing Obsidian-flavoured Markdown notes (cognivault.vault.markdown)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cognivault.vault.markdown import normalize_text, parse_note
from cognivault.vault.types import Link, ParsedNote


def lines_of(text: str) -> list[str]:
    return normalize_text(text).split("\n")


def span(text: str, line: int, start: int, end: int) -> str:
    return lines_of(text)[line - 1][start:end]


def link_spans(text: str, note: ParsedNote) -> list[str]:
    return [span(text, link.line, link.start_col, link.end_col) for link in note.links]


def targets(note: ParsedNote) -> list[str]:
    return [link.target for link in note.links]


# ---------------------------------------------------------------------------
# frontmatter, title, line counts


def test_frontmatter_fields() -> None:
    text = (
        "---\n"
        "title: Cell biology\n"
        "tags: [biology, '#Lernen/Biologie', 123]\n"
        "aliases: [Cells, Zellbiologie]\n"
        "language: de\n"
        "---\n"
        "Body #Biology #extra\n"
    )
    note = parse_note(text, "Science/cells.md")
    assert note.title == "Cell biology"
    assert note.frontmatter["title"] == "Cell biology"
    assert note.aliases == ["Cells", "Zellbiologie"]
    assert note.lang == "de"
    assert note.body_start_line == 7
    # frontmatter tags first, line 0; a bare number is not a tag; case-insensitive unique, first spelling
    assert [(t.tag, t.line) for t in note.tag_refs] == [
        ("biology", 0), ("Lernen/Biologie", 0), ("Biology", 7), ("extra", 7)]
    assert note.tags == ["biology", "Lernen/Biologie", "extra"]


@pytest.mark.parametrize("value, expected", [
    ("tags: a, b", ["a", "b"]),
    ("tags: '#a #b/c'", ["a", "b/c"]),
    ("tags:\n  - one\n  - '#two'", ["one", "two"]),
    ("tag: single", ["single"]),
    ("tags:", []),
    ("tags: 2024", []),
])
def test_frontmatter_tag_shapes(value: str, expected: list[str]) -> None:
    note = parse_note(f"---\n{value}\n---\ntext\n", "n.md")
    assert note.tags == expected
    assert all(ref.line == 0 for ref in note.tag_refs)


def test_alias_string_and_lang_key() -> None:
    note = parse_note("---\naliases: One, Two\nlang: fr\n---\n", "n.md")
    assert note.aliases == ["One", "Two"]
    assert note.lang == "fr"


@pytest.mark.parametrize("yaml_text", [
    "title: [unclosed",
    "- just\n- a list",
    "plain string",
    ": : :",
    "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
    "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
    "e: [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]",
    "x: " + "[" * 5000 + "]" * 5000,
    "\t- bad indentation: [",
])
def test_bad_frontmatter_is_an_empty_mapping(yaml_text: str) -> None:
    note = parse_note(f"---\n{yaml_text}\n---\n# Heading\n", "Folder/My note.md")
    assert note.frontmatter == {}
    assert note.title == "My note"
    assert note.body_start_line == yaml_text.count("\n") + 4
    assert [h.text for h in note.headings] == ["Heading"]


def test_unclosed_frontmatter_is_body() -> None:
    note = parse_note("---\ntitle: x\n# Heading\n", "n.md")
    assert note.frontmatter == {}
    assert note.body_start_line == 1
    assert [h.line for h in note.headings] == [3]


def test_title_falls_back_to_stem() -> None:
    assert parse_note("text", "a/b/Some note.v2.md").title == "Some note.v2"
    assert parse_note("---\ntitle: ''\n---\n", "x/Y.md").title == "Y"


@pytest.mark.parametrize("text, count", [
    ("", 0), ("one", 1), ("one\n", 1), ("one\ntwo", 2), ("one\r\ntwo\r\n", 2), ("a\n\n", 2), ("\n", 1),
])
def test_line_count(text: str, count: int) -> None:
    assert parse_note(text, "n.md").line_count == count


# ---------------------------------------------------------------------------
# headings


def test_heading_paths_pop_correctly() -> None:
    text = "# A\n## B\n### C\n## D\n#### E\n# F\n"
    paths = [h.path for h in parse_note(text, "n.md").headings]
    assert paths == [("A",), ("A", "B"), ("A", "B", "C"), ("A", "D"), ("A", "D", "E"), ("F",)]


def test_setext_headings_and_markup_stripped() -> None:
    text = "Title line\n==========\n\nSub *part* `x`\n---\n\n## **Bold** [[Note|shown]] [md](u.md) ##\n"
    note = parse_note(text, "n.md")
    assert [(h.level, h.text, h.line, h.end_line) for h in note.headings] == [
        (1, "Title line", 1, 2), (2, "Sub part x", 4, 5), (2, "Bold shown md", 7, 7)]


def test_not_headings() -> None:
    text = "#tag at line start\n\n```\n# in code\n```\n\n    # indented code\n\n%%\n# in comment\n%%\n"
    note = parse_note(text, "n.md")
    assert note.headings == []
    assert note.tags == ["tag"]


def test_heading_lines_after_frontmatter_and_crlf() -> None:
    text = "---\r\na: 1\r\n---\r\n\r\n# One\r\ntext\r\n## Two\r\n"
    note = parse_note(text, "n.md")
    assert [(h.text, h.line) for h in note.headings] == [("One", 5), ("Two", 7)]


# ---------------------------------------------------------------------------
# wikilinks


def test_wikilink_forms_with_exact_columns() -> None:
    text = (
        "See [[Note]], [[Note|alias]], [[Note#Heading]], [[Note#Heading#Sub]],\n"
        "and [[Note#^block-1]], [[#Local]], ![[image.png|100]], ![[Doc#^b|x]].\n"
    )
    note = parse_note(text, "n.md")
    assert link_spans(text, note) == [
        "[[Note]]", "[[Note|alias]]", "[[Note#Heading]]", "[[Note#Heading#Sub]]",
        "[[Note#^block-1]]", "[[#Local]]", "![[image.png|100]]", "![[Doc#^b|x]]"]
    assert [(link.target, link.heading, link.block, link.alias, link.embed) for link in note.links] == [
        ("Note", None, None, None, False),
        ("Note", None, None, "alias", False),
        ("Note", "Heading", None, None, False),
        ("Note", "Heading#Sub", None, None, False),
        ("Note", None, "block-1", None, False),
        ("", "Local", None, None, False),
        ("image.png", None, None, "100", True),
        ("Doc", None, "b", "x", True),
    ]
    assert note.links[0] == Link("Note", None, None, None, False, 1, 4, 12)


def test_columns_are_code_points_in_containers() -> None:
    text = (
        "> 🎉 Ünïcode [[Zielnotiz]] ok\n"
        "\n"
        "- item\n"
        "  - 日本語 ![[Bild.png]]\n"
        "\n"
        "1. first line\n"
        "   second line [[Second]]\n"
        "\n"
        "\tcontinued [[Tabbed]] (a tab-indented paragraph of item 1)\n\n"
        "| a | [[Cell\\|shown]] |\n"
        "|---|---|\n"
        "| [[Row]] | #celltag |\n"
    )
    note = parse_note(text, "n.md")
    assert link_spans(text, note) == [
        "[[Zielnotiz]]", "![[Bild.png]]", "[[Second]]", "[[Tabbed]]", "[[Cell\\|shown]]", "[[Row]]"]
    assert note.links[0].start_col == 12
    assert note.links[3].start_col == 11
    assert note.links[4].target == "Cell" and note.links[4].alias == "shown"
    assert [(t.tag, span(text, t.line, t.start_col, t.end_col)) for t in note.tag_refs] == [
        ("celltag", "#celltag")]


def test_links_hidden_by_code_comments_html_and_escapes() -> None:
    text = (
        "```md\n[[Fenced]] #fenced\n```\n\n"
        "    [[Indented]] #indented\n\n"
        "Use `[[Inline]] #inline` and ``a ` [[Double]]`` here.\n"
        "Inline %%[[Commented]] #commented%% comment.\n"
        "\\[[Escaped]] and \\#escaped\n\n"
        "%%\n[[BlockComment]]\n\n#blockcomment\n%%\n\n"
        "<div>\n[[InHtml]] #html\n</div>\n\n"
        "Real [[Visible]] <span title='[[Attr]]'>x</span> <https://x.org/[[a]]>\n"
    )
    note = parse_note(text, "n.md")
    assert targets(note) == ["Visible"]
    assert note.tags == []
    assert len(note.comments) == 2


def test_unclosed_and_degenerate_brackets() -> None:
    text = "[[unclosed and [[Closed]] then [[]] and [[ ]] and [[a\nb]] and [[[Triple]]]"
    note = parse_note(text, "n.md")
    assert targets(note) == ["Closed", "Triple"]
    assert link_spans(text, note) == ["[[Closed]]", "[[Triple]]"]


def test_markdown_links_to_notes() -> None:
    text = ("[Some text](Folder/Note%20name.md) [s](Other.md#Part%20two) [b](x.md#^blk) "
            "[web](https://example.com/a.md) [img](pic.png) ![emb](<With space.md>)\n")
    note = parse_note(text, "n.md")
    assert [(link.target, link.heading, link.block, link.alias, link.embed) for link in note.links] == [
        ("Folder/Note name", None, None, "Some text", False),
        ("Other", "Part two", None, "s", False),
        ("x", None, "blk", "b", False),
        ("With space", None, None, "emb", True),
    ]
    assert link_spans(text, note)[0] == "[Some text](Folder/Note%20name.md)"
    assert link_spans(text, note)[3] == "![emb](<With space.md>)"


def test_frontmatter_property_links() -> None:
    text = '---\nrelated: "[[Other note]]"\nlist:\n  - "[[A|alias]]"\n---\nbody\n'
    note = parse_note(text, "n.md")
    assert [(link.target, link.alias, link.line) for link in note.links] == [
        ("Other note", None, 2), ("A", "alias", 4)]
    assert link_spans(text, note) == ["[[Other note]]", "[[A|alias]]"]


# ---------------------------------------------------------------------------
# tags


def test_tags() -> None:
    text = (
        "#start and #tag, #a/b #tag-with_dash #Lernen/Biologie #日本語 (#paren) **#bold**\n"
        "Not: #123 #- page#anchor https://x.org/#frag `#code` x#y &#35; [a](#local)\n"
        "## Heading with #headtag\n"
    )
    note = parse_note(text, "n.md")
    assert note.tags == ["start", "tag", "a/b", "tag-with_dash", "Lernen/Biologie", "日本語", "paren",
                         "bold", "headtag"]
    for ref in note.tag_refs:
        assert span(text, ref.line, ref.start_col, ref.end_col) == "#" + ref.tag


def test_tags_unique_case_insensitively_keeping_first_spelling() -> None:
    note = parse_note("#Study #study #STUDY #other\n", "n.md")
    assert note.tags == ["Study", "other"]
    assert [t.tag for t in note.tag_refs] == ["Study", "study", "STUDY", "other"]


# ---------------------------------------------------------------------------
# block ids and callouts


def test_block_ids() -> None:
    text = (
        "A paragraph ^para-1\n\n"
        "- item one ^item-1\n- item two\n\n"
        "| a | b |\n|---|---|\n| 1 | 2 |\n\n^table-id\n\n"
        "Text\n^next-line\n\n"
        "![[pic.png]]^after-embed\n\n"
        "Not ^mid paragraph\nend\n\n"
        "x^notid and `code ^inline`\n\n"
        "```\ncode ^fenced\n```\n"
    )
    note = parse_note(text, "n.md")
    assert [b.id for b in note.blocks] == ["para-1", "item-1", "table-id", "next-line", "after-embed"]
    for block in note.blocks:
        assert lines_of(text)[block.line - 1][block.start_col:] == "^" + block.id


def test_callouts() -> None:
    text = (
        "> [!TIP]- Drag and drop [[embed]]\n> body\n\n"
        "> [!info]+\n> body\n\n"
        "> [!my-type] Title\n\n"
        "> plain quote\n> [!not] a callout\n\n"
        "> [!outer]\n> > [!inner] Nested\n"
    )
    note = parse_note(text, "n.md")
    assert [(c.kind, c.title, c.line, c.foldable) for c in note.callouts] == [
        ("tip", "Drag and drop embed", 1, "-"),
        ("info", "Info", 4, "+"),
        ("my-type", "Title", 7, ""),
        ("outer", "Outer", 12, ""),
        ("inner", "Nested", 13, ""),
    ]
    assert targets(note) == ["embed"]


def test_comment_spans() -> None:
    text = "a %%one%% b %%two%%\n\n%%\nblock\n%%\n\n%% single line %%\n\nnever closed: [[A]]\n%%\nrest [[B]]\n"
    note = parse_note(text, "n.md")
    assert note.comments == [(1, 2, 1, 9), (1, 12, 1, 19), (3, 0, 5, 2), (7, 0, 7, 17)]
    assert targets(note) == ["A", "B"]  # a "%%" that nothing closes is plain text, as in Obsidian


def test_comments_pair_across_blocks_like_obsidian() -> None:
    text = (
        "Intro %%\n\n"               # opens a comment that closes three blocks later
        "# Hidden heading\n\n"
        "- hidden [[Hidden]] #hidden ^hid\n"
        "%% shown [[Shown]] #shown\n\n"
        "```\n%% in code, not a closer\n```\n\n"
        "- item %%\n- hidden too\n\nafter%% visible [[Visible]]\n"
    )
    note = parse_note(text, "n.md")
    assert note.headings == []
    assert targets(note) == ["Shown", "Visible"]
    assert note.tags == ["shown"] and note.blocks == []
    assert note.comments == [(1, 6, 6, 2), (12, 7, 15, 7)]
    assert link_spans(text, note) == ["[[Shown]]", "[[Visible]]"]


# ---------------------------------------------------------------------------
# robustness


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=st.sampled_from(list("ab #[]!|^%`>-*_=\\\n\t<>()/.:123🎉ü")) | st.characters(),
               max_size=400))
def test_parse_never_raises_and_positions_are_consistent(text: str) -> None:
    note = parse_note(text, "n.md")
    lines = lines_of(text)
    assert note.line_count <= len(lines)
    for link in note.links:
        line = lines[link.line - 1]
        assert 0 <= link.start_col < link.end_col <= len(line)
        piece = line[link.start_col:link.end_col]
        assert piece.startswith(("[", "![")) and piece.endswith(("]]", ")"))
    for ref in note.tag_refs:
        if ref.line:
            assert lines[ref.line - 1][ref.start_col:ref.end_col] == "#" + ref.tag
    for block in note.blocks:
        assert lines[block.line - 1][block.start_col:].startswith("^" + block.id)
    for heading in note.headings:
        assert 1 <= heading.line <= heading.end_line <= len(lines)


@given(st.text(max_size=300), st.text(max_size=50))
@settings(max_examples=100, deadline=None)
def test_parse_never_raises_with_frontmatter(yaml_text: str, body: str) -> None:
    note = parse_note(f"---\n{yaml_text}\n---\n{body}", "n.md")
    assert isinstance(note.frontmatter, dict)


def test_huge_single_line_note_finishes_quickly() -> None:
    prose = ("Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor "
             "incididunt ut labore et dolore magna aliqua. ") * 8
    piece = prose + "See [[Link]] and #tag and `code`. "
    huge = (piece * (10_000_000 // len(piece) + 1))[:10_000_000]
    started = time.perf_counter()
    note = parse_note(huge, "big.md")
    assert note.line_count == 1 and len(note.links) > 5_000 and note.tags == ["tag"]
    # Bounds a blow-up only (~1 s on a quiet machine; quadratic work on 10 MB would take hours):
    # how fast hostile files are read is measured by bench/bench_hostile_files.py.
    assert time.perf_counter() - started < 120


@pytest.mark.parametrize("text", [
    "- " * 10_000 + "x",
    "> " * 10_000 + "x",
    "1. " * 10_000 + "x",
    "> - " * 5_000 + "x",
    "\n".join("  " * i + "- x [[L]]" for i in range(1_000)),
    "[" * 100_000 + "]" * 100_000,
    "![[" * 50_000,
    "*a " * 100_000,
    "`a " * 50_000 + "``" * 50_000,
    "[a](" * 100_000,
    "[a](b '" * 50_000,
    "%" * 100_001,
    "#a " * 50_000,
    "x <?" * 50_000,
    "x <!--" * 50_000,
    "x <a href='" * 50_000,
    "x %%\n\n- y %%\n" * 5_000,
], ids=["dashes", "quotes", "ordered", "mixed", "indented", "brackets", "embeds", "stars", "backticks",
        "destinations", "titles", "percent", "tags", "processing", "html-comments", "attributes",
        "cross-block-comments"])
def test_deep_nesting_and_hostile_inline_finish_quickly(text: str) -> None:
    started = time.perf_counter()
    note = parse_note(text, "deep.md")
    assert note.line_count >= 1
    assert time.perf_counter() - started < 60  # a blow-up only: well under a second on a quiet machine


# ---------------------------------------------------------------------------
# the shared help vault (read-only)


def test_help_vault_parses(help_vault: Path) -> None:
    files = sorted(help_vault.rglob("*.md"))
    assert len(files) > 300
    total_headings = 0
    for file in files:
        text = file.read_text(encoding="utf-8")
        note = parse_note(text, file.relative_to(help_vault).as_posix())
        total_headings += len(note.headings)
        lines = lines_of(text)
        for link in note.links:
            piece = lines[link.line - 1][link.start_col:link.end_col]
            assert piece.startswith(("[[", "![[", "[", "![")), (file, link)
        for ref in note.tag_refs:
            if ref.line:
                assert lines[ref.line - 1][ref.start_col:ref.end_col] == "#" + ref.tag
    assert total_headings > 1000

    embed = parse_note((help_vault / "en/Linking notes and files/Embed files.md").read_text(encoding="utf-8"),
                       "en/Linking notes and files/Embed files.md")
    assert embed.title == "Embed files"
    assert "How to/Embed files" in embed.aliases
    assert any(link.embed for link in embed.links) and any(not link.embed for link in embed.links)
    assert [c.kind for c in embed.callouts] == ["tip", "info"]
    assert "Embed a note in another note" in [h.text for h in embed.headings]
    # the examples inside ```md fences are not links
    assert "My note" not in targets(embed) and "Document.pdf" not in targets(embed)
    assert ("Search", "Embed search results in a note") in [(link.target, link.heading) for link in embed.links]
