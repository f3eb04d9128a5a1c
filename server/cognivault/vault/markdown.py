"""Reading one Obsidian-flavoured Markdown note into a :class:`ParsedNote`.

How a note is read:

- **Frontmatter** is the YAML between a ``---`` on line 1 and the next ``---``
  line. It is loaded with PyYAML's safe loader (libyaml when available); YAML that
  is invalid, not a mapping, too large or an alias bomb gives ``{}`` — never an
  exception. ``tags``/``tag``, ``aliases``/``alias``, ``title`` and
  ``lang``/``language`` are read from it; wikilinks in its string values are
  links too (Obsidian properties can link).
- **Block structure** comes from markdown-it-py (CommonMark with raw HTML,
  ``maxNesting`` :data:`MAX_NESTING` so hostile nesting cannot recurse deeply;
  deeper content is still chunked as text, only its links go unseen), extended with a
  block rule for Obsidian's multi-line ``%%`` comments. Fenced and indented
  code, HTML blocks and comments therefore never yield links, tags or block
  ids; tables are left as paragraphs, so a row is scanned like any text.
- **Inline syntax** — wikilinks, embeds, tags, block ids, inline comments,
  Markdown links to ``.md`` files — is found by a small scanner over the
  content of markdown-it's ``inline`` tokens (paragraphs and headings). It
  follows CommonMark for what hides that syntax: backslash escapes, code spans
  (a backtick run closed by a run of the same length), autolinks, inline HTML
  and link destinations. markdown-it's own inline phase is switched off: it
  costs as much as the block phase and builds tokens this module would throw
  away (it would roughly double the parse time of the 346-note help vault).
- **Positions** are mapped back from the inline content to the source: each
  content line of a paragraph is the tail of its source line (markdown-it
  only cuts container markers and indentation from the front), an ATX
  heading's content follows its ``#`` run. Lines are 1-based, columns are
  0-based code points, ends exclusive.

Obsidian rules implemented here:

- ``[[Note]]``, ``[[Note|alias]]``, ``[[Note#Heading]]``, ``[[Note#A#B]]``,
  ``[[Note#^block]]``, ``[[#Heading]]`` (target ``""``), ``![[...]]`` embeds
  (the span starts at the ``!``); ``\\|`` is accepted as the alias separator
  (how wikilinks are written inside tables). A wikilink stays on one line.
- ``#tag``, ``#a/b``, ``#tag-with_dash``, ``#Lernen/Biologie``: the ``#``
  must start the text or follow whitespace or an opening bracket, quote or
  emphasis marker (so ``page#anchor`` and ``https://x/#y`` are not tags); the
  name holds letters, digits, ``_``, ``-``, ``/`` and must not be a bare number.
- ``^block-id`` ends a paragraph or list item (after a space, or alone on the
  next line; directly after an embed's ``]]`` too, as Obsidian accepts).
- A callout is a blockquote whose first line is ``[!kind]``, optionally with
  ``+``/``-`` and a title; without a title Obsidian shows the kind, and so
  does :attr:`Callout.title`.
- ``%%`` comments: ``%%`` marks outside code pair up in document order, each
  pair hiding what lies between — inside a paragraph (``a %%b%% c``), as a
  block (``%%`` lines around any Markdown), or from mid-paragraph to a later
  block. A ``%%`` that nothing closes is plain text (never hides the rest of
  a note from search). Block comments are a markdown-it block rule; a comment
  that opens inside a block and closes in a later one is blanked (same
  length, so positions hold) and the body is read once more (only then).
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import unquote

import yaml
from markdown_it import MarkdownIt
from markdown_it.common.html_re import close_tag, open_tag
from markdown_it.common.utils import unescapeAll
from markdown_it.rules_block.state_block import StateBlock

from cognivault.vault.types import BlockId, Callout, Heading, Link, ParsedNote, TagRef

__all__ = ["parse_note", "normalize_text", "count_lines", "split_frontmatter", "load_frontmatter",
           "read_frontmatter", "body_of", "frontmatter_tags", "is_valid_tag", "tag_names", "TAG_NAME_PATTERN",
           "TAG_OPENERS", "WIKILINK_RE", "HTML_COMMENT_RE", "MarkdownBlock", "split_blocks", "block_tokens",
           "inline_pieces", "InlinePiece"]

MAX_FRONTMATTER_CHARS = 256 * 1024  # larger YAML is not read (the lines still are frontmatter)
MAX_YAML_NODES = 20_000  # a walk over more nodes than this (alias bombs) rejects the YAML
MAX_WIKILINK_CHARS = 1_000  # "[[...]]" with a longer inside is not a link
MAX_NESTING = 64  # markdown-it container depth (a list level is two): ~30 list levels, bounded recursion
MAX_DESTINATION_CHARS = 2_048  # Markdown link destinations longer than this are not followed
MAX_TITLE_CHARS = 512
MAX_HTML_CHARS = 4_096  # an inline HTML tag, comment or autolink longer than this is text

_NEWLINE_RE = re.compile(r"\r\n?")
_FENCE_LINE_RE = re.compile(r"---[ \t]*")
# An HTML comment in raw text (card schedules, citation markers, prompt notes); the note reader
# itself finds comments with its inline scanner and markdown-it's HTML blocks.
HTML_COMMENT_RE = re.compile(r"<!--.*?-->", re.DOTALL)
# A line of raw text that opens or closes a fenced code block (at any indentation): group 1 is its marker, which a
# closing line repeats (the same character, at least as many)
CODE_FENCE_RE = re.compile(r"[ \t]*(`{3,}|~{3,})")


# ---------------------------------------------------------------------------
# text and frontmatter


def normalize_text(text: str) -> str:
    """The text every position refers to: no BOM, ``\\n`` line ends, no NUL characters.

    Editors (and LSP clients) drop the BOM and count ``\\r\\n`` and ``\\r`` as
    one line break, so positions computed on this text match theirs.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = _NEWLINE_RE.sub("\n", text)
    if "\x00" in text:
        text = text.replace("\x00", "\ufffd")
    return text


def count_lines(text: str) -> int:
    """Lines as an editor counts them, not counting an empty last line after a final newline."""
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def split_frontmatter(lines: list[str]) -> tuple[list[str] | None, int]:
    """(frontmatter lines, index of the first body line) for a note's lines (0-based index)."""
    if len(lines) >= 2 and _FENCE_LINE_RE.fullmatch(lines[0]):
        for index in range(1, len(lines)):
            if _FENCE_LINE_RE.fullmatch(lines[index]):
                return lines[1:index], index + 1
    return None, 0


try:  # libyaml is ~10x faster; fall back to the pure-Python loader
    _YamlLoader: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on how PyYAML was built
    _YamlLoader = yaml.SafeLoader


def _yaml_size_ok(value: Any) -> bool:
    """Walk the loaded value (aliases expanded) and refuse anything over MAX_YAML_NODES."""
    budget = MAX_YAML_NODES
    stack = [value]
    while stack:
        item = stack.pop()
        budget -= 1
        if budget < 0:
            return False
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple, set)):
            stack.extend(item)
    return True


def load_frontmatter(source: str) -> dict[str, Any]:
    """The frontmatter mapping, or ``{}`` when it is empty, invalid, not a mapping or hostile."""
    if not source.strip() or len(source) > MAX_FRONTMATTER_CHARS:
        return {}
    try:
        data = yaml.load(source, Loader=_YamlLoader)  # noqa: S506 - a safe loader
    except Exception:  # invalid YAML, deep nesting (RecursionError), anything: no frontmatter
        return {}
    if not isinstance(data, dict) or not _yaml_size_ok(data):
        return {}
    return {str(key): value for key, value in data.items()}


def read_frontmatter(text: str) -> dict[str, Any]:
    """The frontmatter mapping of a whole note's text, read exactly as :func:`parse_note` reads it."""
    fm_lines, _ = split_frontmatter(normalize_text(text).split("\n"))
    return load_frontmatter("\n".join(fm_lines)) if fm_lines is not None else {}


def note_aliases(text: str) -> list[str]:
    """The aliases a note's frontmatter gives (as :func:`parse_note` reads them), without reading its
    body: what finding notes by name needs of a note being typed in."""
    return _frontmatter_aliases(read_frontmatter(text))


def body_of(text: str) -> str:
    """A note's text after its frontmatter (all of it when there is none), normalized as positions are."""
    lines = normalize_text(text).split("\n")
    return "\n".join(lines[split_frontmatter(lines)[1]:])


def _values(value: Any) -> list[str]:
    """Strings from a frontmatter value that may be a string, a number or a (nested) list."""
    out: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop(0)
        if item is None:
            continue
        if isinstance(item, (list, tuple)):
            stack[0:0] = list(item)
        elif isinstance(item, (dict, set)):
            continue
        else:
            out.append(str(item))
    return out


_TAG_SPLIT_RE = re.compile(r"[,\s]+")
TAG_NAME_PATTERN = r"[\w/-]+"  # the characters of a tag's name (see is_valid_tag for the rest of the rule)
_TAG_NAME_RE = re.compile(TAG_NAME_PATTERN)
TAG_OPENERS = "([{*_~\"'“‘«"  # what may stand right before a tag's "#" besides whitespace and a line start


def is_valid_tag(name: str) -> bool:
    """Obsidian's rule: letters, digits, ``_``, ``-``, ``/``; not a bare number; at least one letter or digit."""
    return _TAG_NAME_RE.fullmatch(name) is not None and _tag_body_ok(name)


def _tag_body_ok(name: str) -> bool:
    # ``name`` matched [\w/-]+: it holds a letter or digit unless it is only "_", "/" and "-"
    return not name.isdigit() and bool(name.strip("_/-"))


def frontmatter_tags(frontmatter: dict[str, Any]) -> list[str]:
    """Tags from ``tags``/``tag`` (a list or a comma- or space-separated string; ``#`` optional)."""
    tags: list[str] = []
    for key in ("tags", "tag"):
        for value in _values(frontmatter.get(key)):
            for name in _TAG_SPLIT_RE.split(value):
                name = name.strip().lstrip("#")
                if is_valid_tag(name):
                    tags.append(name)
    return tags


def _frontmatter_aliases(frontmatter: dict[str, Any]) -> list[str]:
    aliases: list[str] = []
    seen: set[str] = set()
    for key in ("aliases", "alias"):
        value = frontmatter.get(key)
        names = [part for part in str(value).split(",")] if isinstance(value, str) else _values(value)
        for name in names:
            name = name.strip()
            if name and name not in seen:
                seen.add(name)
                aliases.append(name)
    return aliases


def _frontmatter_lang(frontmatter: dict[str, Any]) -> str | None:
    for key in ("lang", "language"):
        value = frontmatter.get(key)
        if isinstance(value, (str, int, float)) and not isinstance(value, bool) and str(value).strip():
            return str(value).strip()
    return None


def _frontmatter_title(frontmatter: dict[str, Any], path: str) -> str:
    value = frontmatter.get("title")
    if isinstance(value, (str, int, float)) and not isinstance(value, bool) and str(value).strip():
        return str(value).strip()
    name = PurePosixPath(path.replace("\\", "/")).name
    stem = PurePosixPath(name).stem if name.lower().endswith((".md", ".markdown")) else name
    return stem or name


# A wikilink or embed in text that is not read as Markdown (frontmatter values, a model's answer);
# in a note's body the inline scanner finds them (it skips code, HTML and escapes first).
WIKILINK_RE = re.compile(rf"(?P<embed>!?)\[\[(?P<inside>[^\[\]\n]{{1,{MAX_WIKILINK_CHARS}}})\]\]")


def _frontmatter_links(lines: list[str]) -> list[Link]:
    links: list[Link] = []
    for index, line in enumerate(lines):
        if "[[" not in line:
            continue
        for match in WIKILINK_RE.finditer(line):
            link = _make_link(match["inside"], bool(match["embed"]), index + 2, match.start(), match.end())
            if link is not None:
                links.append(link)
    return links


# ---------------------------------------------------------------------------
# markdown-it: block comments


def _comment_block(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    """``%%`` at the start of a line opens a comment that runs to the next ``%%``."""
    if state.sCount[start_line] - state.blkIndent >= 4:
        return False
    src = state.src
    pos = state.bMarks[start_line] + state.tShift[start_line]
    maximum = state.eMarks[start_line]
    if pos + 2 > maximum or src[pos] != "%" or src[pos + 1] != "%":
        return False
    close = src.find("%%", pos + 2, maximum)
    if close >= 0:
        if src[close + 2:maximum].strip():
            return False  # "%%x%% more text": an inline comment in a paragraph
        last_line, end = start_line, close + 2
    else:
        last_line, end = -1, -1
        line = start_line + 1
        while line < end_line:
            begin, stop = state.bMarks[line] + state.tShift[line], state.eMarks[line]
            if begin < stop and state.sCount[line] < state.blkIndent:
                break  # the container (list item) ended: so does the comment
            close = src.find("%%", state.bMarks[line], stop)
            if close >= 0:
                if src[close + 2:stop].strip():
                    # text after the closer: a comment inside a paragraph; the inline scan and the
                    # document-order pairing read it with every "%%" of that line
                    return False
                last_line, end = line, close + 2
                break
            line += 1
        if last_line < 0:  # never closed (in this container): the paragraph rule decides
            return False
    if silent:
        return True
    state.line = last_line + 1
    token = state.push("obsidian_comment", "", 0)
    token.map = [start_line, state.line]
    token.meta = {"start": pos, "end": end}
    return True


def _make_parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": True, "maxNesting": MAX_NESTING})
    md.disable(["inline", "text_join"])  # inline syntax is scanned by _scan_inline
    md.block.ruler.before(
        "fence", "obsidian_comment", _comment_block,
        {"alt": ["paragraph", "reference", "blockquote", "list"]},
    )
    return md


_MD = _make_parser()


# ---------------------------------------------------------------------------
# inline scanning

_ASCII_PUNCT = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_SPECIAL_RE = re.compile(r"!\[|[\\`\[\]%#^<]")
_BACKTICKS_RE = re.compile(r"`+")
_BLOCK_ID_BODY_RE = re.compile(r"[A-Za-z0-9-]+")
_TAG_PREFIX = frozenset(TAG_OPENERS)
_ANGLE_RE = re.compile(
    r"<(?P<url>[A-Za-z][A-Za-z0-9+.\-]{1,31}:[^<>\x00-\x20]*)>"  # autolink
    r"|<(?P<mail>[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?"
    r"(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*)>"  # e-mail autolink
    rf"|{open_tag}|{close_tag}"  # inline HTML tags
)


def _match_end(pattern: re.Pattern[str], src: str, pos: int, limit: int) -> int:
    """End of ``pattern``'s match at ``pos``, for a pattern that always matches there."""
    match = pattern.match(src, pos, limit)
    return match.end() if match else pos


def _html_end(src: str, i: int, n: int, find: Any) -> int:
    """End of an HTML comment, processing instruction, CDATA or declaration at ``i``, else 0.

    These run to a fixed closer, found with the scan's forward-only ``find`` so a
    thousand unclosed ``<!--`` cost one search, not a thousand.
    """
    if not src.startswith(("<!", "<?"), i):
        return 0
    if src.startswith("<!--", i):
        if src.startswith("<!-->", i):
            return i + 5
        if src.startswith("<!--->", i):
            return i + 6
        close = find("-->", i + 4)
        return close + 3 if close >= 0 else 0
    if src[i + 1] == "?":
        close = find("?>", i + 2)
        return close + 2 if close >= 0 else 0
    if src.startswith("<![CDATA[", i):
        close = find("]]>", i + 9)
        return close + 3 if close >= 0 else 0
    if i + 2 < n and src[i + 2].isascii() and src[i + 2].isalpha():
        close = find(">", i + 2)
        return close + 1 if close >= 0 else 0
    return 0


class _Inline:
    """What the scanner found in one inline content string (offsets into that string)."""

    __slots__ = ("wikilinks", "mdlinks", "tags", "block_id", "comments", "replacements", "marks", "dangling")

    def __init__(self) -> None:
        self.wikilinks: list[tuple[int, int, str, bool]] = []  # start, end, inside, embed
        self.mdlinks: list[tuple[int, int, int, int, str, bool]] = []  # start, end, label span, href, image
        self.tags: list[tuple[int, int, str]] = []
        self.block_id: tuple[int, str] | None = None
        self.comments: list[tuple[int, int]] = []
        self.marks: list[int] = []  # every "%%" outside code, in order
        self.dangling = False  # some "%%" is not closed in this content (it may close in a later block)
        # (start, end, text) pieces replaced when the content is flattened to plain text
        self.replacements: list[tuple[int, int, str]] = []


_DESTINATION_RE = re.compile(
    r"<((?:[^<>\n\\]|\\.)*)>"  # <with spaces.md>
    r"|((?:[^\s()\\\x00-\x1f]|\\.|\((?:[^\s()\\\x00-\x1f]|\\.)*\))+)"  # one level of (parens)
)
_TITLE_RE = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|\((?:[^()\\]|\\.)*\)', re.S)
_SPACES_RE = re.compile(r"[ \t]*\n?[ \t]*")


def _link_tail(src: str, pos: int, limit: int) -> tuple[int, str] | None:
    """End and destination of ``(dest "title")`` starting after ``](``, or None.

    Regexes with bounded windows instead of markdown-it's character loops, so
    hostile input (``[a](`` a million times) stays linear.
    """
    pos = _match_end(_SPACES_RE, src, pos, limit)
    if pos < limit and src[pos] == ")":
        return pos + 1, ""
    dest = _DESTINATION_RE.match(src, pos, min(limit, pos + MAX_DESTINATION_CHARS))
    if dest is None:
        return None
    href = unescapeAll(dest.group(1) if dest.group(1) is not None else dest.group(2))
    pos = _match_end(_SPACES_RE, src, dest.end(), limit)
    if pos < limit and pos != dest.end() and src[pos] in "\"'(":
        title = _TITLE_RE.match(src, pos, min(limit, pos + MAX_TITLE_CHARS))
        if title is not None:
            pos = _match_end(_SPACES_RE, src, title.end(), limit)
    if pos < limit and src[pos] == ")":
        return pos + 1, href
    return None


def _code_text(code: str) -> str:
    code = code.replace("\n", " ")
    if len(code) >= 2 and code[0] == " " and code[-1] == " " and code.strip(" "):
        code = code[1:-1]
    return code


def _wikilink_display(inside: str) -> str:
    ref, _, alias = inside.replace("\\|", "|").partition("|")
    return (alias.strip() or ref.strip()) if alias else ref.strip()


def _scan_inline(src: str) -> _Inline:
    """Find Obsidian syntax in the content of one inline token, skipping code, HTML and URLs."""
    out = _Inline()
    n = len(src)
    pos = 0
    brackets: list[int] = []  # '[' / '![' that may open a Markdown link
    found: dict[str, int] = {}  # needle -> its next index (-1: none left); the scan only moves forward

    def find(needle: str, start: int) -> int:
        """src.find(needle, start) in amortized linear time over one forward scan."""
        index = found.get(needle, -2)
        if index == -1 or index >= start:
            return index
        index = found[needle] = src.find(needle, start)
        return index

    runs: dict[int, list[int]] | None = None  # backtick runs by length
    search = _SPECIAL_RE.search
    while pos < n:
        match = search(src, pos)
        if match is None:
            break
        i = match.start()
        ch = src[i]
        if ch == "\\":
            if i + 1 < n and src[i + 1] in _ASCII_PUNCT:
                out.replacements.append((i, i + 2, src[i + 1]))
                pos = i + 2
            else:
                pos = i + 1
        elif ch == "`":
            run_end = _match_end(_BACKTICKS_RE, src, i, len(src))
            length = run_end - i
            if runs is None:
                runs = {}
                for run in _BACKTICKS_RE.finditer(src):
                    runs.setdefault(run.end() - run.start(), []).append(run.start())
            starts = runs.get(length)
            k = bisect_right(starts, i) if starts else 0
            if starts and k < len(starts):
                close = starts[k]
                out.replacements.append((i, close + length, _code_text(src[run_end:close])))
                pos = close + length
            else:
                pos = run_end
        elif ch == "[" or ch == "!":
            inner = i + 2 if ch == "[" else i + 3
            if src.startswith("[[", inner - 2):
                close = find("]]", inner)
                if 0 <= close and close - inner <= MAX_WIKILINK_CHARS:
                    inside = src[inner:close]
                    if inside.strip() and "\n" not in inside and "[[" not in inside and inside[0] != "[":
                        out.wikilinks.append((i, close + 2, inside, ch == "!"))
                        out.replacements.append((i, close + 2, _wikilink_display(inside)))
                        pos = close + 2
                        continue
            brackets.append(i)
            pos = i + 1 if ch == "[" else i + 2
        elif ch == "]":
            pos = i + 1
            if brackets:
                opener = brackets.pop()
                if i + 1 < n and src[i + 1] == "(":
                    tail = _link_tail(src, i + 2, n)
                    if tail is not None:
                        end, href = tail
                        label_start = opener + (2 if src[opener] == "!" else 1)
                        out.mdlinks.append((opener, end, label_start, i, href, src[opener] == "!"))
                        out.replacements.append((opener, label_start, ""))
                        out.replacements.append((i, end, ""))
                        brackets.clear()
                        pos = end
        elif ch == "%":
            pos = i + 1
            if i + 1 < n and src[i + 1] == "%":
                next_comment = find("%%", i + 2)
                if next_comment >= 0:
                    out.marks.append(i)
                    out.marks.append(next_comment)
                    if out.comments and out.comments[-1][1] == i:  # "%%a%%%%b%%": one span
                        out.comments[-1] = (out.comments[-1][0], next_comment + 2)
                        out.replacements[-1] = (out.comments[-1][0], next_comment + 2, "")
                    else:
                        out.comments.append((i, next_comment + 2))
                        out.replacements.append((i, next_comment + 2, ""))
                    pos = next_comment + 2
                else:
                    out.marks.append(i)
                    out.dangling = True
                    pos = i + 2
        elif ch == "<":
            end = _html_end(src, i, n, find)
            if end > 0:
                out.replacements.append((i, end, ""))
                pos = end
                continue
            angle = _ANGLE_RE.match(src, i, min(n, i + MAX_HTML_CHARS))
            if angle is not None:
                out.replacements.append((i, angle.end(), angle.group("url") or angle.group("mail") or ""))
                pos = angle.end()
            else:
                pos = i + 1
        elif ch == "#":
            pos = i + 1
            if i == 0 or src[i - 1].isspace() or src[i - 1] in _TAG_PREFIX:
                body = _TAG_NAME_RE.match(src, i + 1)
                if body is not None:
                    name = body.group()
                    if _tag_body_ok(name):
                        out.tags.append((i, body.end(), name))
                        pos = body.end()
        else:  # "^"
            pos = i + 1
            if i == 0 or src[i - 1].isspace() or (i >= 2 and src[i - 2:i] == "]]"):
                body = _BLOCK_ID_BODY_RE.match(src, i + 1)
                if body is not None and body.end() == n:
                    out.block_id = (i, body.group())
                    pos = n
    return out


_EMPHASIS_RES = (
    re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*"),
    re.compile(r"(?<!\w)__(?=\S)(.+?)(?<=\S)__(?!\w)"),
    re.compile(r"\*(?=[^\s*])(.+?)(?<=[^\s*])\*"),
    re.compile(r"(?<!\w)_(?=[^\s_])(.+?)(?<=[^\s_])_(?!\w)"),
    re.compile(r"~~(?=\S)(.+?)(?<=\S)~~"),
    re.compile(r"==(?=\S)(.+?)(?<=\S)=="),
)
_MARKUP_CHARS = frozenset("*_~=")
_PLACEHOLDER_RE = re.compile("\ue000(\\d+)\ue001")


def _plain_text(src: str, scan: _Inline) -> str:
    """The content as a reader sees it: markup, comments and URLs gone, link texts kept."""
    pieces: list[str] = []
    protected: list[str] = []
    pos = 0
    for start, end, text in sorted(scan.replacements):
        if start < pos:
            continue  # nested in an earlier replacement
        pieces.append(src[pos:start])
        if end - start > 1 and src[start] == "`":  # code: shield it from emphasis stripping
            protected.append(text)
            text = f"\ue000{len(protected) - 1}\ue001"
        pieces.append(text)
        pos = end
    pieces.append(src[pos:])
    plain = "".join(pieces)
    if not _MARKUP_CHARS.isdisjoint(plain):
        for pattern in _EMPHASIS_RES:
            for _ in range(3):  # nested emphasis
                stripped = pattern.sub(r"\1", plain)
                if stripped == plain:
                    break
                plain = stripped
    if protected:
        plain = _PLACEHOLDER_RE.sub(lambda m: protected[int(m.group(1))], plain)
    return " ".join(plain.split())


# ---------------------------------------------------------------------------
# positions


class _Positions:
    """Maps offsets in an inline token's content to (1-based line, column) in the note."""

    __slots__ = ("content", "first_line", "lines", "atx", "_starts", "_bases")

    def __init__(self, content: str, first_line: int, lines: list[str], atx: bool) -> None:
        self.content = content
        self.first_line = first_line  # 0-based index into ``lines`` (the note's lines)
        self.lines = lines
        self.atx = atx
        self._starts: list[int] | None = None
        self._bases: dict[int, int] = {}

    def _base(self, k: int, piece: str) -> int:
        index = self.first_line + k
        line = self.lines[index] if 0 <= index < len(self.lines) else ""
        if self.atx:
            hashes = line.find("#")
            while 0 <= hashes < len(line) and line[hashes] == "#":
                hashes += 1
            found = line.find(piece, max(hashes, 0))
            return found if found >= 0 else max(line.find(piece), 0)
        if line.endswith(piece):
            return len(line) - len(piece)
        trimmed = line.rstrip(" \t\f\v")
        if trimmed.endswith(piece):
            return len(trimmed) - len(piece)
        bare = piece.lstrip(" ")  # a tab partly expanded to spaces by markdown-it
        if bare and (line.endswith(bare) or trimmed.endswith(bare)):
            tail = len(line) if line.endswith(bare) else len(trimmed)
            return tail - len(bare) - (len(piece) - len(bare))
        return max(line.find(piece), 0)

    def at(self, offset: int) -> tuple[int, int]:
        starts = self._starts
        if starts is None:
            starts = self._starts = self._line_starts()
        if len(starts) == 1:  # one-line content (most): no search
            base = self._bases.get(0)
            if base is None:
                base = self._bases[0] = self._base(0, self.content)
            return self.first_line + 1, max(base + offset, 0)
        k = bisect_right(starts, offset) - 1
        base = self._bases.get(k)
        if base is None:
            end = starts[k + 1] - 1 if k + 1 < len(starts) else len(self.content)
            base = self._bases[k] = self._base(k, self.content[starts[k]:end])
        return self.first_line + k + 1, max(base + offset - starts[k], 0)

    def _line_starts(self) -> list[int]:
        starts = [0]
        find = self.content.find
        nl = find("\n")
        while nl >= 0:
            starts.append(nl + 1)
            nl = find("\n", nl + 1)
        return starts


# ---------------------------------------------------------------------------
# links


def _make_link(inside: str, embed: bool, line: int, start: int, end: int) -> Link | None:
    ref, bar, alias = inside.partition("|")
    if bar and ref.endswith("\\"):
        ref = ref[:-1]  # "[[Note\|alias]]" as written in tables
    target, hash_, rest = ref.partition("#")
    heading: str | None = None
    block: str | None = None
    if hash_:
        rest = rest.strip()
        if rest.startswith("^"):
            block = rest[1:].strip() or None
        else:
            heading = rest or None
    target = target.strip()
    if not target and heading is None and block is None:
        return None  # "[[#]]", "[[|x]]"
    return Link(target=target, heading=heading, block=block, alias=(alias.strip() or None) if bar else None,
                embed=embed, line=line, start_col=start, end_col=end)


_SCHEME_RE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


def split_href(href: str) -> tuple[str, str]:
    """A Markdown link's destination (``Some%20note.md#Heading``) as a path and a fragment, percent-decoded."""
    path, _, fragment = href.partition("#")
    return unquote(path), unquote(fragment).strip()


def _markdown_link(href: str, label: str, embed: bool, line: int, start: int, end: int) -> Link | None:
    """A Link for ``[label](Some%20note.md#Heading)``; None for URLs and non-note files."""
    if not href or _SCHEME_RE.match(href) or href.startswith("//"):
        return None
    path, fragment = split_href(href)
    if not path.lower().endswith(".md"):
        return None
    heading: str | None = None
    block: str | None = None
    if fragment:
        if fragment.startswith("^"):
            block = fragment[1:] or None
        else:
            heading = fragment
    return Link(target=path[:-3], heading=heading, block=block, alias=label.strip() or None,
                embed=embed, line=line, start_col=start, end_col=end)


# ---------------------------------------------------------------------------
# the note

_CALLOUT_RE = re.compile(r"\[!([^\]\s]+)\]([+-]?)(.*)")


class _Body:
    """What the body of a note holds (one markdown-it pass)."""

    __slots__ = ("tag_refs", "links", "headings", "blocks", "callouts", "comments", "marks", "dangling")

    def __init__(self) -> None:
        self.tag_refs: list[TagRef] = []
        self.links: list[Link] = []
        self.headings: list[Heading] = []
        self.blocks: list[BlockId] = []
        self.callouts: list[Callout] = []
        self.comments: list[tuple[int, int, int, int]] = []
        self.marks: list[tuple[int, int]] = []  # (line, col) of every "%%" outside code
        self.dangling = False  # a "%%" was left open in its block


def parse_note(text: str, path: str) -> ParsedNote:
    """Everything the index and the language server need from one note; never raises on any text."""
    text = normalize_text(text)
    lines = text.split("\n")
    fm_lines, body_index = split_frontmatter(lines)
    frontmatter = load_frontmatter("\n".join(fm_lines)) if fm_lines is not None else {}

    tag_refs = [TagRef(tag=name, line=0, start_col=0, end_col=0) for name in frontmatter_tags(frontmatter)]
    links: list[Link] = _frontmatter_links(fm_lines) if fm_lines else []
    body = _Body()
    body_text = "\n".join(lines[body_index:]) if body_index else text
    if body_text.strip():
        body = _read_body(body_text, lines, body_index)
        if body.dangling:
            # Obsidian pairs "%%" marks across blocks ("text %%" ... "%%" three blocks later).
            # Pair every mark in document order, blank the comments (same length, so
            # positions hold) and read the body once more.
            paired = _pair_comments(body_text, body.marks, body_index)
            if paired is not None:
                body_text, spans = paired
                lines = lines[:body_index] + body_text.split("\n")
                body = _read_body(body_text, lines, body_index)
                body.comments = sorted(set(body.comments) | set(spans))

    tag_refs.extend(body.tag_refs)
    links.extend(body.links)
    tags: list[str] = []
    seen: set[str] = set()
    for ref in tag_refs:
        key = ref.tag.casefold()
        if key not in seen:
            seen.add(key)
            tags.append(ref.tag)

    return ParsedNote(
        title=_frontmatter_title(frontmatter, path),
        frontmatter=frontmatter,
        aliases=_frontmatter_aliases(frontmatter),
        tags=tags,
        tag_refs=tag_refs,
        links=links,
        headings=body.headings,
        blocks=body.blocks,
        callouts=body.callouts,
        lang=_frontmatter_lang(frontmatter),
        body_start_line=body_index + 1,
        line_count=count_lines(text),
        comments=body.comments,
    )


def _line_starts(text: str) -> list[int]:
    starts = [0]
    nl = text.find("\n")
    while nl >= 0:
        starts.append(nl + 1)
        nl = text.find("\n", nl + 1)
    return starts


_NOT_NEWLINE_RE = re.compile(r"[^\n]")


def _pair_comments(body_text: str, marks: list[tuple[int, int]],
                   offset: int) -> tuple[str, list[tuple[int, int, int, int]]] | None:
    """The body with the comments of paired ``%%`` marks blanked, and the comments' spans.

    Marks pair in document order (1st with 2nd, 3rd with 4th, ...); an odd last one is
    plain text. None when nothing pairs.
    """
    starts = _line_starts(body_text)
    offsets = []
    for line, col in sorted(set(marks)):
        index = line - offset - 1
        if 0 <= index < len(starts) and body_text.startswith("%%", starts[index] + col):
            offsets.append(starts[index] + col)
    pieces: list[str] = []
    spans: list[tuple[int, int, int, int]] = []
    pos = 0
    for opener, closer in zip(offsets[::2], offsets[1::2], strict=False):  # an odd last mark stays text
        end = closer + 2
        pieces.append(body_text[pos:opener])
        hidden = _NOT_NEWLINE_RE.sub(" ", body_text[opener:end])
        line_end = body_text.find("\n", end)
        if "\n" in hidden and body_text[end:line_end if line_end >= 0 else len(body_text)].strip():
            # text follows the closer on its line: fill the hidden start of that line with an
            # invisible non-space, or markdown-it would read that text as indented code
            head, _, tail = hidden.rpartition("\n")
            hidden = head + "\n" + "\u200b" * len(tail)
        pieces.append(hidden)
        first = bisect_right(starts, opener) - 1
        last = bisect_right(starts, closer) - 1
        spans.append((offset + first + 1, opener - starts[first], offset + last + 1, end - starts[last]))
        pos = end
    if not spans:
        return None
    pieces.append(body_text[pos:])
    return "".join(pieces), spans


def _read_body(body_text: str, lines: list[str], offset: int) -> _Body:
    body = _Body()
    tokens = _MD.parse(body_text)
    line_starts: list[int] | None = None  # offsets of body lines, built on the first block comment
    stack: list[tuple[int, str]] = []  # (level, text) of the enclosing headings
    heading_open = None
    for index, token in enumerate(tokens):
        kind = token.type
        if kind == "heading_open":
            heading_open = token
            continue
        if kind == "inline":
            content = token.content
            if not content or token.map is None:
                heading_open = None
                continue
            parent = tokens[index - 1].type if index else ""
            heading = heading_open if parent == "heading_open" else None
            atx = heading is not None and heading.markup.startswith("#")
            positions = _Positions(content, offset + token.map[0], lines, atx)
            scan = _scan_inline(content)
            _collect(scan, content, positions, body.links, body.tag_refs, body.comments)
            if scan.marks:
                body.marks.extend(positions.at(mark) for mark in scan.marks)
                body.dangling = body.dangling or scan.dangling
            if scan.block_id is not None and parent == "paragraph_open":
                line, col = positions.at(scan.block_id[0])
                body.blocks.append(BlockId(id=scan.block_id[1], line=line, start_col=col))
            if heading is not None:
                level = int(heading.tag[1:])
                title = _plain_text(content, scan) if scan.replacements or _has_markup(content) else \
                    " ".join(content.split())
                while stack and stack[-1][0] >= level:
                    stack.pop()
                stack.append((level, title))
                hmap = heading.map or token.map
                body.headings.append(Heading(level=level, text=title, line=offset + hmap[0] + 1,
                                             path=tuple(t for _, t in stack), end_line=offset + hmap[1]))
            heading_open = None
        elif kind == "blockquote_open":
            callout = _callout(tokens, index, lines, offset)
            if callout is not None:
                body.callouts.append(callout)
        elif kind == "obsidian_comment" and token.meta:
            if line_starts is None:
                line_starts = _line_starts(body_text)
            start, end = token.meta["start"], token.meta["end"]
            first = bisect_right(line_starts, start) - 1
            last = bisect_right(line_starts, max(end - 1, start)) - 1
            body.comments.append((offset + first + 1, start - line_starts[first],
                                  offset + last + 1, end - line_starts[last]))
            body.marks.append((offset + first + 1, start - line_starts[first]))
            body.marks.append((offset + last + 1, end - 2 - line_starts[last]))
    return body


@dataclass(frozen=True, slots=True)
class MarkdownBlock:
    """One block of a Markdown text as written: quoting ``text`` never cuts a construct in half.

    ``kind``: ``paragraph``, ``table`` (a paragraph of ``|`` rows with a delimiter row; CommonMark
    has no tables), ``heading``, ``code`` (fenced or indented; ``closed`` False for a fence the text
    ends inside), ``item`` (one top-level list item with everything nested in it; ``group`` numbers
    its list), ``quote`` (a blockquote or callout), ``html``, ``rule`` or ``comment``. Lines are
    0-based into the text, ``end`` exclusive.
    """

    kind: str
    start: int
    end: int
    text: str
    group: int = 0
    closed: bool = True


_BLOCK_KINDS = {"paragraph_open": "paragraph", "heading_open": "heading", "fence": "code", "code_block": "code",
                "blockquote_open": "quote", "html_block": "html", "hr": "rule", "obsidian_comment": "comment"}
_TABLE_DELIMITER_RE = re.compile(r"\s*\|?\s*:?-{1,}:?\s*(?:\|\s*:?-{1,}:?\s*)*\|?\s*")


def split_blocks(text: str) -> list[MarkdownBlock]:
    """The top-level blocks of ``text`` (no frontmatter handling: pass a body or a passage), in order."""
    lines = normalize_text(text).split("\n")
    blocks: list[MarkdownBlock] = []
    group = 0

    def add(kind: str, start: int, end: int, closed: bool = True) -> None:
        while end > start and not lines[end - 1].strip():
            end -= 1
        if end > start:
            blocks.append(MarkdownBlock(kind, start, end, "\n".join(lines[start:end]), group, closed))

    for token in _MD.parse("\n".join(lines)):
        if token.map is None:
            continue
        start, end = token.map
        if token.level == 1 and token.type == "list_item_open":
            add("item", start, end)
            continue
        if token.level != 0:
            continue
        if token.type in ("bullet_list_open", "ordered_list_open"):
            group += 1
            continue
        kind = _BLOCK_KINDS.get(token.type)
        if kind is None:
            continue
        if kind == "paragraph":
            rows = lines[start:end]
            if len(rows) >= 2 and all(row.lstrip().startswith("|") for row in rows) and \
                    _TABLE_DELIMITER_RE.fullmatch(rows[1]):
                kind = "table"
        closed = True
        if token.type == "fence":
            last = lines[end - 1].strip() if end - 1 > start else ""
            closed = last.startswith(token.markup) and not last.strip(token.markup[0])
        add(kind, start, end, closed)
    return blocks


def _has_markup(content: str) -> bool:
    return not _MARKUP_CHARS.isdisjoint(content)


def _collect(scan: _Inline, content: str, positions: _Positions, links: list[Link],
             tag_refs: list[TagRef], comments: list[tuple[int, int, int, int]]) -> None:
    found: list[tuple[int, Link]] = []
    for start, end, inside, embed in scan.wikilinks:
        line, col = positions.at(start)
        link = _make_link(inside, embed, line, col, col + end - start)  # a wikilink is on one line
        if link is not None:
            found.append((start, link))
    for start, end, label_start, label_end, href, image in scan.mdlinks:
        if not href or ".md" not in href.lower():
            continue
        line, col = positions.at(start)
        end_line, end_col = positions.at(end)
        label = _plain_text(content[label_start:label_end], _scan_inline(content[label_start:label_end]))
        link = _markdown_link(href, label, image, line, col, end_col if end_line == line else col + end - start)
        if link is not None:
            found.append((start, link))
    found.sort(key=lambda item: item[0])
    links.extend(link for _, link in found)
    at = positions.at
    append = tag_refs.append
    for start, end, name in scan.tags:
        line, col = at(start)
        append(TagRef(name, line, col, col + end - start))
    for start, end in scan.comments:
        line, col = positions.at(start)
        end_line, end_col = positions.at(end)
        comments.append((line, col, end_line, end_col))


def _callout(tokens: list[Any], index: int, lines: list[str], offset: int) -> Callout | None:
    if index + 2 >= len(tokens) or tokens[index + 1].type != "paragraph_open":
        return None
    inline = tokens[index + 2]
    if inline.type != "inline" or not inline.content.startswith("[!") or inline.map is None:
        return None
    first = inline.content.split("\n", 1)[0]
    match = _CALLOUT_RE.fullmatch(first)
    if match is None:
        return None
    kind = unicodedata.normalize("NFC", match.group(1)).lower()
    title = match.group(3).strip()
    if title:
        title = _plain_text(title, _scan_inline(title))
    return Callout(kind=kind, title=title or kind[:1].upper() + kind[1:], line=offset + inline.map[0] + 1,
                   foldable=match.group(2))


# ---------------------------------------------------------------------------
# the reader for other features (study notes): blocks and inline pieces


def block_tokens(body_text: str) -> list[Any]:
    """markdown-it block tokens of a note body, read exactly as the index reads it (inline tokens hold raw
    content: scan it with :func:`inline_pieces`)."""
    return _MD.parse(normalize_text(body_text))


@dataclass(frozen=True, slots=True)
class InlinePiece:
    """One piece of Obsidian or CommonMark inline syntax in an inline token's content."""

    kind: str  # code | wikilink | embed | mdlink | image | tag | html | autolink | comment | escape
    start: int
    end: int  # exclusive offsets into the content
    text: str  # what a reader sees: code's content, a link's display text, "" for html, embeds, comments


def inline_pieces(content: str) -> list[InlinePiece]:
    """Code spans, links, embeds, tags, inline HTML, autolinks, comments and escapes in ``content``, in order.

    The same scanner as the index: a link inside a code span is code, an HTML tag inside code is code."""
    scan = _scan_inline(content)
    pieces = [InlinePiece("embed" if embed else "wikilink", start, end, "" if embed else _wikilink_display(inside))
              for start, end, inside, embed in scan.wikilinks]
    pieces += [InlinePiece("image" if image else "mdlink", start, end,
                           "" if image else content[label_start:label_end])
               for start, end, label_start, label_end, _, image in scan.mdlinks]
    pieces += [InlinePiece("tag", start, end, content[start:end]) for start, end, _ in scan.tags]
    pieces += [InlinePiece("comment", start, end, "") for start, end in scan.comments]
    covered = {(p.start, p.end) for p in pieces}
    link_edges = {start for _, _, start, _, _, _ in scan.mdlinks} | {end for _, end, *_ in scan.mdlinks}
    for start, end, text in scan.replacements:
        if (start, end) in covered or end in link_edges or start in {p.start for p in pieces}:
            continue
        head = content[start]
        if head == "`":
            pieces.append(InlinePiece("code", start, end, text))
        elif head == "\\":
            pieces.append(InlinePiece("escape", start, end, text))
        elif head == "<":
            pieces.append(InlinePiece("autolink" if text else "html", start, end, text))
    pieces.sort(key=lambda piece: piece.start)
    return pieces


def tag_names(content: str) -> list[str]:
    """The tags (without ``#``) in a line or paragraph of body text, found as the index finds them:
    Obsidian's rule, none inside code spans, HTML, comments or links."""
    if "#" not in content:
        return []
    return [piece.text[1:] for piece in inline_pieces(content) if piece.kind == "tag"]



def reading_text(passage: str, shown_headings: Iterable[str] = ()) -> str:
    """A passage as a reader sees it, on one line: what a search result shows of it.

    Heading marks, emphasis, list bullets, quote marks, block ids, comments and HTML are gone;
    link texts and tags are kept, code too, between backticks. Headings in ``shown_headings`` (the heading path a result
    shows beside it) are left out; another heading, and a callout's title, keep their text
    followed by a colon, as labels of what comes next.
    """
    shown = set(shown_headings)
    pieces: list[str] = []
    heading_open = False
    for token in _MD.parse(normalize_text(passage)):
        if token.type == "heading_open":
            heading_open = True
        elif token.type in ("fence", "code_block"):
            pieces.append(_as_code(token.content))
        elif token.type == "inline":
            first_line, _, rest = token.content.partition("\n")
            callout = _CALLOUT_RE.fullmatch(first_line) if first_line.startswith("[!") else None
            if callout is not None:
                title = _plain_text(callout.group(3), _scan_inline(callout.group(3)))
                pieces.append(_as_label(title or callout.group(1)[:1].upper() + callout.group(1)[1:]))
                content = rest.replace("\n", " ")
            else:
                content = token.content.replace("\n", " ")  # emphasis may span a line break
            scan = _scan_inline(content)
            if scan.block_id is not None:
                content = content[:scan.block_id[0]]
                scan = _scan_inline(content)
            links = {(start, end): inside for start, end, inside, _ in scan.wikilinks}
            scan.replacements = [(start, end, _link_as_shown(links[start, end]) if (start, end) in links
                                  else _as_code(text) if content[start] == "`" and end - start > 1 else text)
                                 for start, end, text in scan.replacements]
            text = _plain_text(content, scan)
            if heading_open:
                heading_open = False
                if not text or text in shown:
                    continue
                text = _as_label(text)
            if text:
                pieces.append(text)
    return " ".join(" ".join(pieces).split())


def _link_as_shown(inside: str) -> str:
    """A wikilink as Obsidian's reading view shows it: its alias, else ``Note > Heading`` (block ids left out)."""
    ref, bar, alias = inside.replace("\\|", "|").partition("|")
    if bar and alias.strip():
        return alias.strip()
    parts = [part.strip() for part in ref.split("#")]
    return " > ".join(part for part in parts if part and not part.startswith("^")) or ref.strip().lstrip("#")


def _as_code(code: str) -> str:
    """Code on one line between backticks, as a snippet shows it (its ``**`` or ``[[`` are the code's own)."""
    return f"`{' '.join(code.split())}`" if code.strip() else ""


def _as_label(text: str) -> str:
    return text if text[-1:] in ".:;!?" else text + ":"
