"""Flashcards in the obsidian-spaced-repetition plugin's syntax: parse, identify, rewrite schedules.

The plugin's documented syntax (defaults), which this module follows so that
a note written or reviewed by CogniVault stays a valid deck for the plugin:

- ``Question::Answer`` on one line is a basic card; ``A:::B`` is bidirectional
  (two sibling cards, A→B and B→A). ``:::`` is tested before ``::``; a
  separator whose first occurrence on the line sits in an inline code span
  does not count (`` `a::b` `` is no card), and a card splits at the first one.
- Multi-line cards: the lines of a paragraph above a line holding only ``?``
  are the front, the lines below it (up to a blank line) the back; ``??``
  makes the card bidirectional. Both sides must "touch" the separator.
- Clozes: a paragraph with ``==deletion==`` makes one sibling card per
  deletion (each hides one deletion and shows the others). A hint may follow a
  deletion as ``==x==^[hint]``; classic clozes group deletions by a number
  ``==x==[^1]``; the generalised form ``==x==[^ash]`` gives per-card actions
  (a = ask, h = hide, s = show). ``**bold**`` and ``{{curly}}`` clozes are
  plugin options that are off by default (``ParserOptions``).
- A blank line ends a multi-line or cloze card (the default end marker).
- Decks come from tags ``#flashcards`` or ``#flashcards/<deck>``: the first one
  in the note (frontmatter or body) is the note's deck; a line holding only
  tags switches the deck for the cards below it; tags at the start of a
  card's first line apply to that card only. A note without any flashcard tag
  has no cards for the plugin (``require_tag``).
- Lines in fenced code blocks belong to the card text but never start one;
  HTML comments other than ``<!--SR:...-->`` are skipped; the frontmatter is
  not card text.
- The schedule lives in an HTML comment right after the card, on the line
  after its last line (or at the end of that line):
  ``<!--SR:!2024-08-16,51,230-->`` = due date, interval in days, ease × 100.
  Sibling cards share one comment, one ``!date,interval,ease`` group each, in
  sibling order; a sibling never reviewed carries the plugin's placeholder
  ``!2000-01-01,1,250``. The legacy single form ``<!--SR:2021-08-20,13,290-->``
  is read too. A plugin set to FSRS writes a group
  ``!fsrs,<due>,<interval>,<stability>,<difficulty>,<state>,<reps>,<lapses>,<steps>,<last review>``
  per sibling instead (``!fsrs,-,0,0,0,0,0,0,0,-`` for one never reviewed);
  both forms are read, and a card is written back in the form it had.

Every card gets a stable id that does not change when its schedule comment
changes or lines are added elsewhere in the note: a hash of the note path and
the card's text without the comment, plus the sibling number.
"""

from __future__ import annotations

import hashlib
import math
import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime

from cognivault.vault.markdown import (
    HTML_COMMENT_RE,
    TAG_NAME_PATTERN,
    frontmatter_tags,
    load_frontmatter,
    split_frontmatter,
    tag_names,
)

DUMMY_DUE = date(2000, 1, 1)  # the plugin's marker for a sibling that was never reviewed
BASE_EASE = 250  # the plugin's default base ease
NEW_INTERVAL = 1

CARD_KINDS = ("basic", "reversed", "multiline", "multiline_reversed", "cloze")

_SR_COMMENT_RE = re.compile(r"<!--SR:(?P<body>[^>]*)-->")
_SM2_GROUP_RE = re.compile(r"(\d{4}-\d{2}-\d{2}),(\d+),(\d+)")
FSRS_PREFIX = "fsrs"
FSRS_EASE_MIN, FSRS_EASE_MAX = 130, 370  # the plugin's ease scale for an FSRS difficulty (10 .. 1)
_LEGACY_SCHEDULE_RE = re.compile(r"^(\d{4}-\d{2}-\d{2}),(\d+),(\d+)$")
_TAG_ONLY_LINE_RE = re.compile(rf"^\s*(#{TAG_NAME_PATTERN}\s*)+$")
_LEADING_TAGS_RE = re.compile(rf"^\s*((?:#{TAG_NAME_PATTERN}\s+)+)")
_LINE_BREAK_RE = re.compile(r"(\r\n|\r|\n)")
_FENCE_RE = re.compile(r"^\s*(`{3,}|~{3,})")


@dataclass(frozen=True, slots=True)
class FsrsState:
    """The plugin's FSRS group ``!fsrs,due,interval,stability,difficulty,state,reps,lapses,steps,last``.

    The plugin (``RepItemScheduleInfoFsrs.formatCardScheduleForHtmlComment``) writes the due
    time and the last review as ISO timestamps (``-`` for none), the interval in days (a
    fraction for a short-term step), then the ts-fsrs card fields in that order; ``state`` is
    ts-fsrs's (0 new, 1 learning, 2 review, 3 relearning). Fields after the tenth (newer
    plugin versions add markers such as ``suspended``) are kept as they are.
    """

    due_at: datetime | None  # None: the placeholder of a sibling never reviewed (``!fsrs,-,0,...``)
    interval: float
    stability: float
    difficulty: float
    state: int
    reps: int
    lapses: int
    learning_steps: int
    last_review: datetime | None
    extra: tuple[str, ...] = ()

    def format(self) -> str:
        fields = [FSRS_PREFIX, _timestamp(self.due_at), _number(self.interval), _number(self.stability),
                  _number(self.difficulty), str(self.state), str(self.reps), str(self.lapses),
                  str(self.learning_steps), _timestamp(self.last_review), *self.extra]
        return "!" + ",".join(fields)


FSRS_NEW = FsrsState(None, 0, 0, 0, 0, 0, 0, 0, None)  # the plugin's FSRS placeholder for a sibling


def _number(value: float) -> str:
    """A number as JavaScript prints it (``9``, ``8.29``): the plugin wrote it so."""
    value = round(float(value), 8)
    return str(int(value)) if value.is_integer() else repr(value)


def _timestamp(moment: datetime | None) -> str:
    if moment is None:
        return "-"
    utc = moment.astimezone(UTC)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"


def _parse_timestamp(text: str) -> datetime | None:
    if text.strip() == "-":
        return None
    moment = datetime.fromisoformat(text.strip())
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class Schedule:
    """One sibling's group: ``!YYYY-MM-DD,interval,ease`` (SM-2), or the FSRS group in ``fsrs``.

    For an FSRS group, ``due`` is the local calendar day of its due time, ``interval`` its
    interval in whole days and ``ease`` the plugin's ease for its difficulty, so that due
    lists and statistics read both formats alike.
    """

    due: date
    interval: int
    ease: int
    fsrs: FsrsState | None = None

    @property
    def is_new(self) -> bool:
        return self.due == DUMMY_DUE

    def format(self) -> str:
        if self.fsrs is not None:
            return self.fsrs.format()
        return f"!{self.due.isoformat()},{self.interval},{self.ease}"

    @classmethod
    def new(cls, base_ease: int = BASE_EASE, fsrs: bool = False) -> Schedule:
        return cls(DUMMY_DUE, NEW_INTERVAL, base_ease, FSRS_NEW if fsrs else None)

    @classmethod
    def of_fsrs(cls, state: FsrsState) -> Schedule:
        if state.due_at is None:
            return cls(DUMMY_DUE, NEW_INTERVAL, BASE_EASE, state)
        difficulty = min(10.0, max(1.0, state.difficulty))
        ease = round(FSRS_EASE_MIN + (10 - difficulty) / 9 * (FSRS_EASE_MAX - FSRS_EASE_MIN))
        return cls(state.due_at.astimezone().date(), max(1, round(state.interval)), ease, state)


def _fsrs_group(segment: str) -> Schedule | None:
    fields = segment.split(",")
    if len(fields) < 10:
        return None
    try:
        state = FsrsState(_parse_timestamp(fields[1]), float(fields[2]), float(fields[3]), float(fields[4]),
                          int(fields[5]), int(fields[6]), int(fields[7]), int(fields[8]),
                          _parse_timestamp(fields[9]), tuple(fields[10:]))
    except (ValueError, OverflowError):
        return None
    if not all(math.isfinite(v) for v in (state.interval, state.stability, state.difficulty)):
        return None
    return Schedule.of_fsrs(state)


def parse_schedule_comment(body: str) -> list[Schedule]:
    """The schedules inside ``<!--SR:...-->`` (``body`` is what stands between ``SR:`` and ``-->``)."""
    body = body.strip()
    found = []
    for segment in body.split("!")[1:]:
        segment = segment.strip()
        if segment.startswith(FSRS_PREFIX + ","):
            schedule = _fsrs_group(segment)
            if schedule is not None:
                found.append(schedule)
            continue
        match = _SM2_GROUP_RE.match(segment)
        if match:
            try:
                found.append(Schedule(date.fromisoformat(match[1]), int(match[2]), int(match[3])))
            except (ValueError, OverflowError):
                continue
    if not found:
        legacy = _LEGACY_SCHEDULE_RE.match(body)
        if legacy:
            try:
                found.append(Schedule(date.fromisoformat(legacy[1]), int(legacy[2]), int(legacy[3])))
            except ValueError:
                pass
    return found


def format_schedule_comment(schedules: list[Schedule]) -> str:
    return "<!--SR:" + "".join(s.format() for s in schedules) + "-->"


@dataclass(frozen=True, slots=True)
class ParserOptions:
    single_line: str = "::"
    single_line_reversed: str = ":::"
    multi_line: str = "?"
    multi_line_reversed: str = "??"
    end_marker: str = ""  # "" = a blank line ends multi-line and cloze cards
    highlight_clozes: bool = True
    bold_clozes: bool = False
    curly_clozes: bool = False
    flashcard_tags: tuple[str, ...] = ("flashcards",)
    require_tag: bool = True


DEFAULT_OPTIONS = ParserOptions()


@dataclass(slots=True)
class Card:
    """One reviewable side: a sibling of a flashcard text."""

    id: str
    sibling: int
    front: str
    back: str
    schedule: Schedule | None  # None: never reviewed

    def to_dict(self) -> dict[str, object]:
        return {"id": self.id, "sibling": self.sibling, "front": self.front, "back": self.back,
                "due": self.schedule.due.isoformat() if self.schedule else None,
                "interval": self.schedule.interval if self.schedule else None,
                "ease": self.schedule.ease if self.schedule else None}


@dataclass(slots=True)
class Flashcard:
    """A flashcard text in a note (the plugin's "question"): one or more sibling cards.

    Line numbers are 0-based indexes into the note's lines (``text.split("\\n")``).
    """

    kind: str
    path: str
    text: str  # card text without the schedule comment
    first_line: int
    last_line: int  # last line of card text (a schedule comment on its own line comes after)
    comment_line: int | None  # line holding the schedule comment, if any
    schedules: list[Schedule]
    decks: list[str]
    heading_path: tuple[str, ...]
    key: str = ""
    cards: list[Card] = field(default_factory=list)

    @property
    def uses_fsrs(self) -> bool:
        """Whether the card's comment is in the plugin's FSRS form (its new siblings are graded so too)."""
        return any(schedule.fsrs is not None for schedule in self.schedules)

    def to_dict(self) -> dict[str, object]:
        return {"kind": self.kind, "path": self.path, "key": self.key, "text": self.text,
                "line_start": self.first_line + 1, "line_end": self.last_line + 1,
                "decks": self.decks, "heading_path": list(self.heading_path),
                "cards": [c.to_dict() for c in self.cards]}


@dataclass(slots=True)
class NoteCards:
    path: str
    flashcards: list[Flashcard]
    is_flashcard_note: bool

    def card(self, card_id: str) -> tuple[Flashcard, Card] | None:
        for flashcard in self.flashcards:
            for card in flashcard.cards:
                if card.id == card_id:
                    return flashcard, card
        return None

    def all_cards(self) -> list[tuple[Flashcard, Card]]:
        return [(f, c) for f in self.flashcards for c in f.cards]


# -- display helpers ---------------------------------------------------------
def strip_comments(text: str) -> str:
    """Card text as a person reads it: no HTML comments (citation markers, schedules)."""
    cleaned = HTML_COMMENT_RE.sub("", text)
    return "\n".join(line.rstrip() for line in cleaned.split("\n")).strip()


def deck_name(tag: str, flashcard_tags: tuple[str, ...] = ("flashcards",)) -> str:
    """``flashcards/biology/cells`` → ``biology/cells``; the bare tag → ``default``."""
    for base in flashcard_tags:
        if tag.casefold() == base.casefold():
            return "default"
        if tag.casefold().startswith(base.casefold() + "/"):
            return tag[len(base) + 1:]
    return tag


def _is_flashcard_tag(tag: str, options: ParserOptions) -> bool:
    lowered = tag.casefold()
    return any(lowered == t.casefold() or lowered.startswith(t.casefold() + "/") for t in options.flashcard_tags)


# -- clozes ------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class _Deletion:
    start: int
    end: int
    answer: str
    hint: str | None
    seq: str | None


def _cloze_patterns(options: ParserOptions) -> list[re.Pattern[str]]:
    tail = r"(?:\^\[(?P<hint>[^\]\n]*)\])?(?:\[\^(?P<seq>\d+|[ash]+)\])?"
    patterns = []
    if options.highlight_clozes:
        patterns.append(re.compile(r"==(?P<answer>[^\n]+?)==" + tail))
    if options.bold_clozes:
        patterns.append(re.compile(r"\*\*(?P<answer>[^\n]+?)\*\*" + tail))
    if options.curly_clozes:
        patterns.append(re.compile(r"\{\{(?P<answer>[^{}\n]+?)\}\}" + tail))
    return patterns


def deletions_of(text: str, options: ParserOptions = DEFAULT_OPTIONS) -> list[_Deletion]:
    """The cloze deletions of a card text, in text order."""
    found: list[_Deletion] = []
    taken: list[tuple[int, int]] = []
    for pattern in _cloze_patterns(options):
        for match in pattern.finditer(text):
            if any(s < match.end() and match.start() < e for s, e in taken):
                continue
            taken.append((match.start(), match.end()))
            found.append(_Deletion(match.start(), match.end(), match["answer"], match["hint"], match["seq"]))
    found.sort(key=lambda d: d.start)
    return found


def has_cloze(line: str, options: ParserOptions = DEFAULT_OPTIONS) -> bool:
    return any(p.search(line) for p in _cloze_patterns(options))


def _cloze_actions(deletions: list[_Deletion]) -> list[list[str]]:
    """Per sibling card, what it does with each deletion: "ask", "hide" or "show"."""
    numbered = [d for d in deletions if d.seq and d.seq.isdigit()]
    lettered = [d for d in deletions if d.seq and not d.seq.isdigit()]
    # Each card: per deletion, what the front and the back show ("ask", "hide", "show").
    actions: list[list[str]] = []
    if lettered:
        count = max(len(d.seq or "") for d in lettered)
        for index in range(count):
            row = []
            for d in deletions:
                code = (d.seq or "")[index] if d.seq and not d.seq.isdigit() and index < len(d.seq) else "s"
                row.append({"a": "ask", "h": "hide", "s": "show"}[code])
            actions.append(row)
    elif numbered:
        groups = sorted({int(d.seq) for d in numbered if d.seq})
        for number in groups:
            actions.append(["ask" if d.seq and d.seq.isdigit() and int(d.seq) == number else "show"
                            for d in deletions])
        for position, d in enumerate(deletions):  # deletions without a number: one card each
            if not d.seq:
                actions.append(["ask" if i == position else "show" for i in range(len(deletions))])
    else:
        for position in range(len(deletions)):
            actions.append(["ask" if i == position else "show" for i in range(len(deletions))])
    return actions


def cloze_numbers(deletions: list[_Deletion]) -> list[list[int]]:
    """Per deletion, the 1-based sibling cards that ask it (empty: no card asks it)."""
    actions = _cloze_actions(deletions)
    return [[card + 1 for card, row in enumerate(actions) if row[index] == "ask"] for index in range(len(deletions))]


def _cloze_sides(text: str, deletions: list[_Deletion]) -> list[tuple[str, str]]:
    """(front, back) of every sibling card of a cloze text."""
    sides = []
    for row in _cloze_actions(deletions):
        front_parts: list[str] = []
        back_parts: list[str] = []
        cursor = 0
        for d, action in zip(deletions, row, strict=True):
            front_parts.append(text[cursor:d.start])
            back_parts.append(text[cursor:d.start])
            if action == "ask":
                front_parts.append(f"[{d.hint}]" if d.hint else "[...]")
                back_parts.append(d.answer)
            elif action == "hide":
                front_parts.append("[...]")
                back_parts.append("[...]")
            else:
                front_parts.append(d.answer)
                back_parts.append(d.answer)
            cursor = d.end
        front_parts.append(text[cursor:])
        back_parts.append(text[cursor:])
        sides.append((strip_comments("".join(front_parts)), strip_comments("".join(back_parts))))
    return sides


# -- parsing -----------------------------------------------------------------
def _inside_code(line: str, index: int, length: int) -> bool:
    """The plugin's test for a separator inside an inline code span: an odd number of backticks on each side."""
    return line.count("`", 0, index) % 2 == 1 and line.count("`", index + length) % 2 == 1


def inline_separator(line: str, options: ParserOptions = DEFAULT_OPTIONS) -> str | None:
    """The separator that makes ``line`` a single-line card, as the plugin decides it (``parse`` in its
    ``src/parser.ts``), or None.

    The longer separator (``:::``) is tried first; a separator counts when its *first* occurrence on the line is
    not inside an inline code span (judged by counting backticks, as the plugin does). So a ``::`` in code never
    makes a card, and a line whose first ``::`` is in code is no card even with another ``::`` after the code.
    The card is split at that first occurrence."""
    for separator in sorted((options.single_line, options.single_line_reversed), key=len, reverse=True):
        index = line.find(separator) if separator else -1
        if index >= 0 and not _inside_code(line, index, len(separator)):
            return separator
    return None


def card_key(path: str, text: str) -> str:
    normalized = re.sub(r"\s+", " ", strip_comments(text)).strip()
    return hashlib.sha256(f"{path}\x00{normalized}".encode()).hexdigest()[:12]


def _split_schedule(lines: list[str]) -> tuple[list[str], list[Schedule], int | None]:
    """Remove the schedule comment from a card's lines: (text lines, schedules, index of comment line)."""
    for index in range(len(lines) - 1, -1, -1):
        match = _SR_COMMENT_RE.search(lines[index])
        if not match:
            continue
        schedules = parse_schedule_comment(match["body"])
        rest = (lines[index][:match.start()] + lines[index][match.end():]).rstrip()
        out = list(lines)
        if rest.strip():
            out[index] = rest
            return out, schedules, None  # same-line comment: no separate comment line
        del out[index]
        return out, schedules, index
    return list(lines), [], None


def parse_cards(text: str, path: str = "", options: ParserOptions = DEFAULT_OPTIONS) -> NoteCards:
    """Every flashcard in a note's text, with its siblings, schedules, decks and stable ids."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    fm_lines, body_start = split_frontmatter(lines)
    frontmatter = load_frontmatter("\n".join(fm_lines)) if fm_lines is not None else {}
    fm_tags = [t for t in frontmatter_tags(frontmatter) if _is_flashcard_tag(t, options)]
    body_tags: list[str] = []
    in_fence: str | None = None
    for line in lines[body_start:]:
        fence = _FENCE_RE.match(line)
        if fence:
            in_fence = None if in_fence and line.strip().startswith(in_fence) else (in_fence or fence[1])
            continue
        if in_fence:
            continue
        body_tags.extend(t for t in tag_names(line) if _is_flashcard_tag(t, options))
    note_tags = fm_tags or body_tags[:1]
    is_flashcard_note = bool(fm_tags or body_tags) or not options.require_tag
    current_decks = [deck_name(t, options.flashcard_tags) for t in note_tags[:1]] or ["default"]

    flashcards: list[Flashcard] = []
    headings: list[tuple[int, str]] = []
    buffer: list[tuple[int, str]] = []  # (line index, line) of the paragraph being read
    kind: str | None = None
    buffer_decks: list[str] | None = None

    def heading_path() -> tuple[str, ...]:
        return tuple(h for _, h in headings)

    def push(numbered: list[tuple[int, str]], card_kind: str, decks: list[str]) -> None:
        card_lines = [text_ for _, text_ in numbered]
        text_lines, schedules, comment_offset = _split_schedule(card_lines)
        numbers = [number for number, _ in numbered]
        comment_line = numbers[comment_offset] if comment_offset is not None else None
        kept = [n for i, n in enumerate(numbers) if i != comment_offset]
        while text_lines and not text_lines[-1].strip():
            text_lines.pop()
            kept.pop()
        if not text_lines:
            return
        flashcards.append(Flashcard(card_kind, path, "\n".join(text_lines), kept[0], kept[-1], comment_line,
                                    schedules, list(decks), heading_path()))

    def flush() -> None:
        nonlocal buffer, kind, buffer_decks
        if kind and buffer:
            push(buffer, kind, buffer_decks or current_decks)
        buffer, kind, buffer_decks = [], None, None

    index = body_start
    while index < len(lines):
        line = lines[index]
        stripped = line.strip()
        # HTML comments other than schedules: skipped (a multi-line one up to its end).
        if stripped.startswith("<!--") and not stripped.startswith("<!--SR:"):
            if "-->" not in stripped:
                while index + 1 < len(lines) and "-->" not in lines[index + 1]:
                    index += 1
                index += 1
            index += 1
            continue
        if not stripped:
            if not options.end_marker.strip() or not kind:
                flush()  # a blank line ends a card (default) and any plain paragraph
            else:
                buffer.append((index, line))  # a custom end marker lets cards hold blank lines
            index += 1
            continue
        if options.end_marker.strip() and stripped == options.end_marker.strip() and kind:
            flush()
            index += 1
            continue
        heading = re.match(r"^(#{1,6})\s+(.*?)\s*#*\s*$", line)
        if heading and not kind:
            level = len(heading[1])
            headings[:] = [(lvl, name) for lvl, name in headings if lvl < level] + [(level, heading[2])]
            buffer, buffer_decks = [], None
            index += 1
            continue
        if not buffer and _TAG_ONLY_LINE_RE.match(line):
            tags = [t for t in tag_names(line) if _is_flashcard_tag(t, options)]
            if tags:
                current_decks = [deck_name(t, options.flashcard_tags) for t in tags]
                index += 1
                continue
        if not buffer:
            buffer_decks = _leading_decks(line, options)
        fence = _FENCE_RE.match(line)
        if fence:
            buffer.append((index, line))
            closing = fence[1]
            while index + 1 < len(lines):
                index += 1
                buffer.append((index, lines[index]))
                if lines[index].strip().startswith(closing):
                    break
            index += 1
            continue
        check = HTML_COMMENT_RE.sub("", line)
        separator = inline_separator(line, options)
        if separator is not None:
            card_kind = "reversed" if separator == options.single_line_reversed else "basic"
            card_lines = [(index, line)]
            if index + 1 < len(lines) and lines[index + 1].strip().startswith("<!--SR:"):
                card_lines.append((index + 1, lines[index + 1]))
                index += 1
            push(card_lines, card_kind, _leading_decks(line, options) or current_decks)
            buffer, kind, buffer_decks = [], None, None
            index += 1
            continue
        buffer.append((index, line))
        if stripped == options.multi_line_reversed and len(buffer) > 1:
            kind = "multiline_reversed"
        elif stripped == options.multi_line and len(buffer) > 1:
            kind = "multiline"
        elif kind is None and has_cloze(check, options):
            kind = "cloze"
        index += 1
    flush()

    if not is_flashcard_note:
        flashcards = []
    _assign_cards(flashcards, options)
    return NoteCards(path, flashcards, is_flashcard_note)


def _leading_decks(line: str, options: ParserOptions) -> list[str] | None:
    """Decks named by flashcard tags at the start of a card's first line (that card only)."""
    leading = _LEADING_TAGS_RE.match(line)
    if not leading:
        return None
    tags = [t for t in tag_names(leading[1]) if _is_flashcard_tag(t, options)]
    return [deck_name(t, options.flashcard_tags) for t in tags] or None


def _strip_leading_tags(text: str, options: ParserOptions) -> str:
    leading = _LEADING_TAGS_RE.match(text)
    if leading and any(_is_flashcard_tag(t, options) for t in tag_names(leading[1])):
        return text[leading.end():]
    return text


def _assign_cards(flashcards: list[Flashcard], options: ParserOptions) -> None:
    seen: dict[str, int] = {}
    for flashcard in flashcards:
        key = card_key(flashcard.path, flashcard.text)
        if key in seen:
            seen[key] += 1
            key = f"{key}~{seen[key]}"
        else:
            seen[key] = 0
        flashcard.key = key
        text = _strip_leading_tags(flashcard.text, options)
        sides: list[tuple[str, str]]
        if flashcard.kind in ("basic", "reversed"):
            separator = options.single_line_reversed if flashcard.kind == "reversed" else options.single_line
            front, _, back = text.partition(separator)
            front, back = strip_comments(front), strip_comments(back)
            sides = [(front, back)] if flashcard.kind == "basic" else [(front, back), (back, front)]
        elif flashcard.kind in ("multiline", "multiline_reversed"):
            separator = options.multi_line_reversed if flashcard.kind == "multiline_reversed" else options.multi_line
            text_lines = text.split("\n")
            split_at = next(i for i, line in enumerate(text_lines) if line.strip() == separator)
            front = strip_comments("\n".join(text_lines[:split_at]))
            back = strip_comments("\n".join(text_lines[split_at + 1:]))
            sides = [(front, back)] if flashcard.kind == "multiline" else [(front, back), (back, front)]
        else:
            sides = _cloze_sides(text, deletions_of(text, options))
        flashcard.cards = [
            Card(f"{key}-{number}", number, front, back,
                 flashcard.schedules[number] if number < len(flashcard.schedules)
                 and not flashcard.schedules[number].is_new else None)
            for number, (front, back) in enumerate(sides)]


# -- rewriting one card's schedule ------------------------------------------
def with_schedule(text: str, flashcard: Flashcard, sibling: int, schedule: Schedule,
                  base_ease: int = BASE_EASE) -> str:
    """``text`` with only ``flashcard``'s schedule comment changed so sibling ``sibling`` has ``schedule``.

    Siblings without a schedule get the plugin's new-card placeholder. The
    comment goes where it already is (own line or end of the last line);
    a new one goes on the line after the card's last line, as the plugin
    writes it. Every line keeps its own ending (LF or CRLF, also mixed in one note); a new
    comment line ends as the card's last line does.
    """
    parts = _LINE_BREAK_RE.split(text)  # the parser's lines (CRLF, CR and LF all end one), with their endings
    lines, ends = parts[0::2], [*parts[1::2], ""]
    schedules = list(flashcard.schedules)
    count = max(len(flashcard.cards), sibling + 1)
    while len(schedules) < count:
        schedules.append(Schedule.new(base_ease, fsrs=schedule.fsrs is not None))
    schedules[sibling] = schedule
    comment = format_schedule_comment(schedules[:count])
    if flashcard.comment_line is not None:
        line = lines[flashcard.comment_line]
        match = _SR_COMMENT_RE.search(line)
        if match is None:  # the caller's parse is stale
            raise ValueError("the schedule comment is not where the card says it is")
        lines[flashcard.comment_line] = line[:match.start()] + comment + line[match.end():]
    else:
        last = lines[flashcard.last_line]
        match = _SR_COMMENT_RE.search(last)
        if match:  # same-line comment
            lines[flashcard.last_line] = last[:match.start()] + comment + last[match.end():]
        else:
            at = flashcard.last_line
            lines.insert(at + 1, comment)
            ends.insert(at + 1, ends[at])  # the comment ends as the card's last line did...
            ends[at] = ends[at] or ("\r\n" if "\r\n" in text else "\n")  # ...which now needs an ending
    return "".join(line + end for line, end in zip(lines, ends, strict=True))
