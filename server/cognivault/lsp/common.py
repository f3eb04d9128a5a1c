"""Shared pieces of the feature modules: what is under the cursor, where a link points, ranges."""

from __future__ import annotations

from dataclasses import dataclass

from lsprotocol import types

from cognivault.graph import BlockInfo, HeadingInfo, LinkRef, NoteInfo, find_heading
from cognivault.lsp.model import Document
from cognivault.lsp.server import Context
from cognivault.vault.types import Heading, Link, TagRef

MAX_PREVIEW_LINES = 12
MAX_PREVIEW_CHARS = 1200


def cursor(ctx: Context, doc: Document, position: types.Position) -> tuple[int, int]:
    """(0-based line, code-point column) of an LSP position in ``doc``."""
    return ctx.codec.offset(doc.lines, position)


def link_at(doc: Document, line: int, column: int) -> Link | None:
    """The wikilink, embed or note link under (0-based ``line``, code-point ``column``)."""
    for link in doc.note.links:
        if link.line == line + 1 and link.start_col <= column < link.end_col:
            return link
    for link in doc.note.links:  # the cursor right after "]]" still means the link
        if link.line == line + 1 and column == link.end_col:
            return link
    return None


def tag_at(doc: Document, line: int, column: int) -> TagRef | None:
    for ref in doc.note.tag_refs:
        if ref.line == line + 1 and ref.start_col <= column <= ref.end_col:
            return ref
    return None


def heading_at(doc: Document, line: int) -> Heading | None:
    for heading in doc.note.headings:
        if heading.line == line + 1:
            return heading
    return None


def block_at(doc: Document, line: int) -> BlockInfo | None:
    for block in doc.note.blocks:
        if block.line == line + 1:
            return BlockInfo(block.id, block.line, block.start_col)
    return None


@dataclass(slots=True)
class Target:
    """Where a link points: the file, and the heading or block when it names one."""

    path: str | None  # None: no such note or file
    note: NoteInfo | None
    heading: HeadingInfo | None = None
    block: BlockInfo | None = None
    problem: str | None = None  # why it does not resolve ("no heading 'X' in Note")
    kind: str | None = None  # unresolved-note | missing-heading | missing-block


def link_ref(doc: Document, link: Link) -> LinkRef:
    return LinkRef(doc.path or "", link.target, link.heading, link.block, link.alias, link.embed,
                   link.line, link.start_col, link.end_col)


def resolve(ctx: Context, source: str | None, link: Link | LinkRef, source_doc: Document | None = None
            ) -> Target:
    """Resolve ``link`` written in note ``source``."""
    if not link.target:
        path = source
    else:
        path = ctx.view.resolve(link.target, source)
    if path is None:
        if not link.target and source_doc is not None:
            own = source_doc.info()
            return _anchor(Target(None, own), link, own, label="this note")
        return Target(None, None, problem=f"no note or file named '{link.target}'", kind="unresolved-note")
    note = ctx.view.note(path)
    if source_doc is not None and path == source_doc.path:
        note = source_doc.info()
    target = Target(path, note)
    return _anchor(target, link, note, label=ctx.view.title(path) if path else "this note")


def _anchor(target: Target, link: Link | LinkRef, note: NoteInfo | None, label: str) -> Target:
    if link.heading:
        heading = find_heading(note.headings, link.heading) if note else None
        if heading is None:
            target.problem = f"no heading '{link.heading}' in {label}"
            target.kind = "missing-heading"
        target.heading = heading
    elif link.block:
        block = next((b for b in note.blocks if b.id == link.block), None) if note else None
        if block is None:
            block = next((b for b in note.blocks if b.id.casefold() == link.block.casefold()), None) \
                if note else None
        if block is None:
            target.problem = f"no block '^{link.block}' in {label}"
            target.kind = "missing-block"
        target.block = block
    return target


_LIST_ITEM = ("- ", "* ", "+ ")


def _is_item(text: str) -> bool:
    stripped = text.lstrip()
    if stripped.startswith(_LIST_ITEM):
        return True
    digits = len(stripped) - len(stripped.lstrip("0123456789"))
    return 0 < digits and stripped[digits:digits + 2] in (". ", ") ")


def block_span(lines: list[str], block: BlockInfo) -> tuple[int, int]:
    """1-based first and last line of the paragraph or list item a block id ends."""

    def line(number: int) -> str:
        return lines[number - 1] if 0 < number <= len(lines) else ""

    first = block.line
    if line(first).strip().startswith("^") and first > 1 and line(first - 1).strip():
        first -= 1  # the id alone on the line after the paragraph
    if _is_item(line(first)):
        return first, block.line
    while first > 1:
        previous = line(first - 1)
        if not previous.strip() or previous.lstrip().startswith("#"):
            break
        first -= 1
        if _is_item(previous):
            break
    return first, block.line


def target_range(ctx: Context, target: Target) -> tuple[str, types.Range] | None:
    """The uri and exact range a resolved link jumps to."""
    if target.path is None:
        return None
    uri = ctx.view.uri(target.path)
    doc = ctx.view.document(target.path) if ctx.view.kind(target.path) in ("markdown", None) else None
    lines = doc.lines if doc is not None else [""]
    if target.heading is not None:
        line = target.heading.line - 1
        return uri, ctx.codec.line_range(lines, line)
    if target.block is not None:
        first, last = block_span(lines, target.block)
        return uri, ctx.codec.line_range(lines, first - 1, last - 1)
    return uri, types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0))


def preview(lines: list[str], first: int, last: int, body_start: int = 1) -> str:
    """Lines ``first``..``last`` (1-based) trimmed for a hover, frontmatter skipped."""
    first = max(first, body_start)
    chosen: list[str] = []
    size = 0
    for number in range(first, min(last, len(lines)) + 1):
        text = lines[number - 1]
        if not chosen and not text.strip():
            continue
        chosen.append(text)
        size += len(text) + 1
        if len(chosen) >= MAX_PREVIEW_LINES or size >= MAX_PREVIEW_CHARS:
            if number < last:
                chosen.append("…")
            break
    while chosen and not chosen[-1].strip():
        chosen.pop()
    return "\n".join(chosen)


def link_range(ctx: Context, doc: Document, link: Link | LinkRef) -> types.Range:
    return ctx.codec.range(doc.lines, link.line - 1, link.start_col, link.end_col)


def target_span(line_text: str, link: Link | LinkRef) -> tuple[int, int] | None:
    """Code-point columns of the target name inside a link's source text (``[[Target#H|a]]``)."""
    raw = line_text[link.start_col:link.end_col]
    offset = link.start_col
    if raw.startswith("!"):
        raw, offset = raw[1:], offset + 1
    if raw.startswith("[["):
        inner_start = offset + 2
        inner = raw[2:-2] if raw.endswith("]]") else raw[2:]
        end = len(inner)
        for stop in ("|", "#"):
            index = inner.find(stop)
            if index != -1:
                end = min(end, index)
        name = inner[:end]
        stripped_start = len(name) - len(name.lstrip())
        return inner_start + stripped_start, inner_start + len(name.rstrip())
    if raw.startswith("["):  # [label](target.md#heading)
        marker = raw.find("](")
        if marker == -1:
            return None
        dest_start = marker + 2
        dest = raw[dest_start:-1] if raw.endswith(")") else raw[dest_start:]
        if dest.startswith("<"):
            dest_start += 1
            dest = dest[1:].split(">", 1)[0]
        end = len(dest)
        for stop in ("#", " "):
            index = dest.find(stop)
            if index != -1:
                end = min(end, index)
        return offset + dest_start, offset + dest_start + end
    return None


def heading_span(line_text: str, link: Link | LinkRef) -> tuple[int, int] | None:
    """Code-point columns of the heading part of ``[[Target#Heading|alias]]``."""
    raw = line_text[link.start_col:link.end_col]
    offset = link.start_col
    if raw.startswith("!"):
        raw, offset = raw[1:], offset + 1
    if not raw.startswith("[[") or not link.heading:
        return None
    inner = raw[2:-2] if raw.endswith("]]") else raw[2:]
    hash_index = inner.find("#")
    if hash_index == -1:
        return None
    bar = inner.find("|", hash_index)
    end = bar if bar != -1 else len(inner)
    if end > 0 and bar != -1 and inner[end - 1] == "\\":
        end -= 1
    part = inner[hash_index + 1:end]
    start = hash_index + 1 + (len(part) - len(part.lstrip()))
    stop = hash_index + 1 + len(part.rstrip())
    return offset + 2 + start, offset + 2 + stop


def keyword_hits(ctx: Context, query: str, depth: int) -> list[tuple[str, str, float]]:
    """(chunk id, path, score) of the best keyword matches, straight from BM25.

    What ``Engine.search`` does minus the passages and snippets a result list needs: completion
    ranking and workspace symbols only want to know *which* notes and sections match.
    """
    engine = ctx.engine
    lexical = engine.store.lexical
    if lexical is None or not query.strip():
        return []
    lang = engine.query_language(query).lang
    return [(hit.chunk_id, hit.path, hit.score) for hit in lexical.search(query, lang, depth, read_slips=False)]
