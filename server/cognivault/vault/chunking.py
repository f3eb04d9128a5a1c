"""Cutting notes (and any prose) into passages for retrieval.

Markdown notes (:func:`chunk_note`)
-----------------------------------

A note is cut into **sections**: the text before the first heading (heading
path ``()``) and one section per heading, running to the next heading of any
level. A section's text is its source lines without the heading line(s) (the
heading travels in ``heading_path``; the indexer prepends the breadcrumb),
without frontmatter and without ``%% comments %%``, lightly normalized: lines
lose trailing whitespace, runs of blank lines become one, leading and trailing
blank lines go. Code, tables and list layout are kept as written.

The first chunk of a note starts with a line made of the frontmatter
``description``/``summary`` and the aliases, so a note is found by them.

**Small sections** (under :data:`MIN_CHARS` = 100 characters after that
normalization) never become a chunk of their own. The rule, applied in one
pass from the top of the note:

1. A small section is *carried forward* into the next section when that one is
   at the same or a deeper heading level (a sibling or a child; everything is
   deeper than the preamble), or when no chunk exists yet to take it.
2. Otherwise (the next section is shallower, or there is none) it is
   *appended to the previous chunk*.
3. Carried or appended text keeps its heading as a Markdown line
   (``"## Setup"``) so nothing is lost; a chunk that absorbed carried text
   starts at the carried text's first line, and its own heading line stands
   between the carried text and its own, as in the note (else its text would
   read as the carried section's).
4. The chunk keeps the heading path — and so the anchor — of the section that
   owns it: the one that was 100+ characters (or the last one, for a note
   made only of small sections, which becomes one chunk with all its text).

So an anchor belongs to a section of 100 or more characters and depends only
on that section's heading path and on how many earlier sections share that
path: editing one section never changes another section's anchor, and a
section inserted in the middle only shifts the occurrence numbers of later
sections with the *same* heading path. Nothing with text is dropped.

**Long sections** (over ``chunk_chars``) are cut by :func:`split_prose`; each
part carries the exact range of source lines its text came from (parts that
overlap may share lines).

``anchor`` = ``"\\x1f".join(heading_path) + "\\x1e{occurrence}\\x1e{part}"``.

Prose (:func:`split_prose`)
---------------------------

Shared with the PDF/DOCX/... extractors: cut near ``chunk_chars`` at the
last paragraph break in the second half of the window, else the last
sentence end, else the last line break, else the last space; a word is cut
only when it alone is longer than ``chunk_chars``. Each part after the first
repeats about ``overlap`` characters of the previous one, starting at a
sentence or word start. A tail shorter than ``min(100, chunk_chars // 4)``
stays with the part before it rather than standing alone.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Any

from cognivault.vault.markdown import normalize_text
from cognivault.vault.types import ChunkDraft, Heading, ParsedNote

__all__ = ["CHUNKER_VERSION", "LEAD_ALIASES_RE", "MIN_CHARS", "chunk_note", "split_prose", "split_spans", "make_anchor"]

MIN_CHARS = 100
# Raised whenever a change gives a note other passages: the index re-chunks every note chunked by
# another version (``index.pipeline``), even when the note itself did not change.
# 2: a chunk that took in small sections keeps its own heading line after them.
# 3: the frontmatter's lead line (description, aliases) is a paragraph of its own.
# 4: a passage's words read a symbol written in math as one word ("$pK_a$", "$k_\text{cat}$": ``index.analysis``).
CHUNKER_VERSION = 4

# The aliases part of a first passage's lead line (``_lead_line``): the note's other names, not its text.
LEAD_ALIASES_RE = re.compile(r"\s*\(aliases: [^)]*\)|^aliases:.*$", re.IGNORECASE | re.MULTILINE)
_SENTENCE_END_RE = re.compile(r"[.!?…][\"'”’»)\]]*(?=\s)|[。！？][」』”’)]*")
_SPACE_RE = re.compile(r"[ \t\n]")


# ---------------------------------------------------------------------------
# prose


def _skip_space(text: str, pos: int, end: int) -> int:
    while pos < end and text[pos].isspace():
        pos += 1
    return pos


def _trim_end(text: str, start: int, end: int) -> int:
    while end > start and text[end - 1].isspace():
        end -= 1
    return end


def _last_space(text: str, lo: int, hi: int) -> int:
    return max(text.rfind(" ", lo, hi), text.rfind("\t", lo, hi), text.rfind("\n", lo, hi))


def _find_cut(text: str, pos: int, budget: int, chunk_chars: int) -> int:
    """Where the segment starting at ``pos`` should end (exclusive); always > pos."""
    hi = pos + budget
    lo = pos + budget // 2
    cut = text.rfind("\n\n", lo, hi + 1)
    if cut > pos:
        return cut
    last = None
    for match in _SENTENCE_END_RE.finditer(text, lo, hi + 1):
        if match.end() <= hi:
            last = match
    if last is not None and last.end() > pos:
        return last.end()
    cut = text.rfind("\n", lo, hi + 1)
    if cut > pos:
        return cut
    cut = _last_space(text, lo, hi + 1)
    if cut > pos:
        return cut
    # no space in the second half: a long word; end before it, or after it when it fits
    # in a whole chunk, and cut it only when it is longer than that
    after = _SPACE_RE.search(text, hi + 1, pos + chunk_chars + 1)
    if after is not None and budget < chunk_chars:
        return after.start()
    cut = _last_space(text, pos + 1, lo)
    if cut > pos:
        return cut
    if after is not None:
        return after.start()
    return min(len(text), pos + chunk_chars)


def _overlap_start(text: str, seg_start: int, seg_end: int, floor: int, overlap: int,
                   chunk_chars: int) -> int:
    """Start of the part holding segment [seg_start, seg_end): up to ``overlap`` characters earlier.

    The part starts at a sentence start when one lies in the overlap window (not in its
    last quarter), else at the first word start in it; it never gets longer than
    ``chunk_chars`` and never starts at or before the previous part (``floor`` - 1).
    """
    target = max(seg_start - overlap, seg_end - chunk_chars, floor)
    if overlap <= 0 or target >= seg_start:
        return seg_start
    for match in _SENTENCE_END_RE.finditer(text, target, max(target, seg_start - overlap // 4)):
        start = _skip_space(text, match.end(), seg_start)
        if target <= start < seg_start - overlap // 4:
            return start
    space = _SPACE_RE.search(text, max(target - 1, 0), seg_start)
    if space is None:
        return seg_start
    start = _skip_space(text, space.start(), seg_start)
    return start if target <= start < seg_start else seg_start


def split_spans(text: str, chunk_chars: int = 1000, overlap: int = 100) -> list[tuple[int, int]]:
    """(start, end) offsets of the parts :func:`split_prose` returns, so callers can map them back."""
    n = len(text)
    chunk_chars = max(1, int(chunk_chars))
    overlap = max(0, min(int(overlap), chunk_chars // 4))
    min_tail = min(MIN_CHARS, chunk_chars // 4)
    start = _skip_space(text, 0, n)
    end = _trim_end(text, start, n)
    if start >= end:
        return []
    if end - start <= chunk_chars:
        return [(start, end)]

    segments: list[tuple[int, int]] = []
    pos = start
    while pos < end:
        budget = chunk_chars if not segments else chunk_chars - overlap
        if end - pos <= budget:
            segments.append((pos, end))
            break
        cut = _find_cut(text, pos, budget, chunk_chars)
        following = _skip_space(text, cut, end)
        if end - following < min_tail:
            segments.append((pos, end))
            break
        segments.append((pos, _trim_end(text, pos, cut)))
        pos = following

    spans: list[tuple[int, int]] = []
    previous_start = -1
    for index, (seg_start, seg_end) in enumerate(segments):
        part_start = seg_start
        if index:
            part_start = _overlap_start(text, seg_start, seg_end, previous_start + 1, overlap, chunk_chars)
        if seg_end > part_start:
            spans.append((part_start, seg_end))
            previous_start = part_start
    return spans


def split_prose(text: str, chunk_chars: int = 1000, overlap: int = 100) -> list[str]:
    """Cut prose into parts of about ``chunk_chars`` characters with ``overlap`` characters of context.

    Parts end at paragraph breaks, then sentence ends, line breaks or spaces
    (see the module docs); whitespace at their edges is stripped and text
    that is only whitespace gives ``[]``.
    """
    return [text[start:end] for start, end in split_spans(text, chunk_chars, overlap)]


# ---------------------------------------------------------------------------
# notes


def make_anchor(heading_path: tuple[str, ...], occurrence: int, part: int) -> str:
    return "\x1f".join(heading_path) + f"\x1e{occurrence}\x1e{part}"


@dataclass(slots=True)
class _Section:
    path: tuple[str, ...]
    level: int  # 0 for the text before the first heading
    occurrence: int
    heading: Heading | None
    lines: list[tuple[int, str]]  # (1-based line, text) without the heading line


@dataclass(slots=True)
class _Unit:
    path: tuple[str, ...]
    occurrence: int
    lines: list[tuple[int, str]] = field(default_factory=list)


def _comment_cuts(note: ParsedNote, line_count: int) -> dict[int, list[tuple[int, int | None]]]:
    """Per line, the column ranges that are comments (end None: to the end of the line)."""
    cuts: dict[int, list[tuple[int, int | None]]] = {}
    for span in getattr(note, "comments", None) or ():
        try:
            line, col, end_line, end_col = (int(v) for v in span)
        except (TypeError, ValueError):
            continue
        if line < 1 or end_line < line:
            continue
        if end_line == line:
            cuts.setdefault(line, []).append((col, end_col))
            continue
        cuts.setdefault(line, []).append((col, None))
        for middle in range(line + 1, min(end_line, line_count + 1)):
            cuts.setdefault(middle, []).append((0, None))
        cuts.setdefault(end_line, []).append((0, end_col))
    return cuts


def _cut_comments(text: str, ranges: list[tuple[int, int | None]]) -> str:
    """The line without its comment ranges; the spaces around a cut collapse to one
    (``"a %%x%% b"`` reads ``"a b"``, ``"%%x%% b"`` reads ``"b"``)."""
    out = ""
    pos = 0
    for start, end in sorted(ranges, key=lambda r: r[0]):
        if start > pos:
            out = _join_cut(out, text[pos:start], pos > 0)
        pos = max(pos, len(text) if end is None else end)
    return _join_cut(out, text[pos:], pos > 0)


def _join_cut(out: str, piece: str, after_cut: bool) -> str:
    if after_cut and (not out or out[-1] in " \t"):
        piece = piece.lstrip(" \t")
    return out + piece


def _lead_line(note: ParsedNote, fm_lines: list[str]) -> tuple[int, str] | None:
    """Frontmatter description/summary and aliases as one line, with the line it came from."""
    frontmatter: dict[str, Any] = note.frontmatter if isinstance(note.frontmatter, dict) else {}
    parts: list[str] = []
    key_found = None
    for key in ("description", "summary"):
        value = frontmatter.get(key)
        if isinstance(value, (list, tuple)):
            value = " ".join(str(v) for v in value if v is not None)
        if value is not None and not isinstance(value, dict) and " ".join(str(value).split()):
            parts.append(" ".join(str(value).split()))
            key_found = key_found or key
    aliases = [a for a in (note.aliases or []) if isinstance(a, str) and a.strip()]
    if aliases:
        parts.append("(aliases: " + ", ".join(aliases) + ")" if parts else "Aliases: " + ", ".join(aliases))
        key_found = key_found or "aliases"
    if not parts:
        return None
    line = 1
    for index, raw in enumerate(fm_lines):
        stripped = raw.lstrip()
        if key_found and (stripped.startswith(key_found + ":") or stripped.startswith(f'"{key_found}":')):
            line = index + 2
            break
    return line, " ".join(parts)


def _assemble(lines: list[tuple[int, str]]) -> tuple[str, list[int], list[int]]:
    """Normalized text of some source lines, with each kept line's offset and line number."""
    kept: list[tuple[int, str]] = []
    blank = True  # drop leading blank lines
    for number, raw in lines:
        line = raw.rstrip()
        if not line.strip():
            if not blank:
                kept.append((number, ""))
            blank = True
            continue
        kept.append((number, line))
        blank = False
    while kept and not kept[-1][1]:
        kept.pop()
    offsets: list[int] = []
    numbers: list[int] = []
    pos = 0
    for number, line in kept:
        offsets.append(pos)
        numbers.append(number)
        pos += len(line) + 1
    return "\n".join(line for _, line in kept), offsets, numbers


def _size(lines: list[tuple[int, str]]) -> int:
    """Length of the normalized text of these lines (what the 100-character rule measures)."""
    total = 0
    count = 0
    for _, raw in lines:
        line = raw.strip()
        if line:
            total += len(line)
            count += 1
    return total + max(count - 1, 0)


def _sections(note: ParsedNote, lines: list[str], body_start: int) -> list[_Section]:
    line_count = len(lines)
    cuts = _comment_cuts(note, line_count)

    def body(first: int, last: int) -> list[tuple[int, str]]:
        out = []
        for number in range(max(first, body_start), min(last, line_count) + 1):
            raw = lines[number - 1]
            if number in cuts:
                raw = _cut_comments(raw, cuts[number])
            out.append((number, raw))
        return out

    headings = sorted((h for h in note.headings if body_start <= h.line <= line_count), key=lambda h: h.line)
    sections: list[_Section] = []
    first_heading = headings[0].line if headings else line_count + 1
    preamble = body(body_start, first_heading - 1)
    if any(text.strip() for _, text in preamble):
        sections.append(_Section((), 0, 0, None, preamble))
    seen: dict[tuple[str, ...], int] = {}
    for index, heading in enumerate(headings):
        end = max(heading.line, heading.end_line or heading.line)
        following = headings[index + 1].line if index + 1 < len(headings) else line_count + 1
        path = tuple(heading.path) or (heading.text,)
        occurrence = seen.get(path, 0)
        seen[path] = occurrence + 1
        sections.append(_Section(path, max(int(heading.level), 1), occurrence, heading,
                                 body(end + 1, following - 1)))
    return sections


def _heading_line(section: _Section) -> list[tuple[int, str]]:
    if section.heading is None:
        return []
    return [(section.heading.line, "#" * min(section.level, 6) + " " + section.heading.text)]


def _joined(first: int, second: int) -> int:
    return first + second + (1 if first and second else 0)


def _units(sections: list[_Section], lead: tuple[int, str] | None) -> list[_Unit]:
    """Sections after the small-section rule (module docs), each becoming one or more chunks."""
    units: list[_Unit] = []
    # The lead line is a paragraph of its own: not run into the note's first paragraph when quoted.
    carried: list[tuple[int, str]] = [lead, (lead[0], "")] if lead else []
    carried_size = _size(carried)
    carried_sections = False  # ``carried`` holds small sections, not just the lead line
    for index, section in enumerate(sections):
        own_size = _joined(carried_size, _size(section.lines))
        following = sections[index + 1] if index + 1 < len(sections) else None
        if own_size >= MIN_CHARS or (following is None and not units):
            if carried_sections or not own_size:  # after carried sections, or a note of headings only
                carried.extend(_heading_line(section))
            carried.extend(section.lines)
            units.append(_Unit(section.path, section.occurrence, carried))
        elif following is not None and (following.level >= section.level or not units):
            heading = _heading_line(section)
            carried.extend(heading)
            carried.extend(section.lines)
            carried_size = _joined(_joined(carried_size, _size(heading)), _size(section.lines))
            carried_sections = True
            continue
        else:
            units[-1].lines.extend(carried)
            units[-1].lines.extend(_heading_line(section))
            units[-1].lines.extend(section.lines)
        carried, carried_size, carried_sections = [], 0, False
    if carried:
        if units:
            units[-1].lines.extend(carried)
        else:
            units.append(_Unit((), 0, carried))
    return units


def chunk_note(text: str, note: ParsedNote, path: str, *, chunk_chars: int = 1000,
               overlap: int = 100) -> list[ChunkDraft]:
    """The passages of one note, in order; see the module docs for the rules."""
    text = normalize_text(text)
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()  # the empty "line" after a final newline is not a line of the note
    body_start = max(1, int(note.body_start_line or 1))
    fm_lines = lines[1:body_start - 2] if body_start > 2 else []

    sections = _sections(note, lines, body_start)
    units = _units(sections, _lead_line(note, fm_lines))

    drafts: list[ChunkDraft] = []
    for unit in units:
        unit_text, offsets, numbers = _assemble(unit.lines)
        if not unit_text.strip():
            continue
        for part, (start, end) in enumerate(split_spans(unit_text, chunk_chars, overlap)):
            first = bisect_right(offsets, start) - 1
            last = bisect_right(offsets, end - 1) - 1
            covered = numbers[first:last + 1]
            drafts.append(ChunkDraft(
                text=unit_text[start:end],
                heading_path=unit.path,
                line_start=min(covered),
                line_end=max(covered),
                anchor=make_anchor(unit.path, unit.occurrence, part),
                structured=False,
                lang=note.lang,
            ))
    return drafts
