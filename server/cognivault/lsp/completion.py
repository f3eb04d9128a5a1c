"""``textDocument/completion``: notes after ``[[``, then headings and blocks; tags after ``#``.

After ``[[`` (or ``![[``) every note is offered by file name, its aliases too,
ranked by how related it is to the paragraph being written: the paragraph's
text is searched (hybrid when an embedding model runs, keywords otherwise)
and the notes it finds come first. ``[[Note#`` offers Note's headings,
``[[Note#^`` its block ids, ``[[#`` the current note's headings. After ``#``
in text: the vault's tags, most used first. Previews come with
``completionItem/resolve``.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from lsprotocol import types

from cognivault.lsp import common
from cognivault.lsp.model import Document
from cognivault.lsp.server import CogniVaultServer, Context

TRIGGER_CHARACTERS = ["[", "#", "^", "|"]
RELATED_DEPTH = 30
MIN_QUERY_WORDS = 3

_TAG_PREFIX = re.compile(r"(?:^|(?<=[\s(\[{\"'*_]))#([^\s#\[\](){}<>,;:!?\"'`|]*)$")
_WIKILINK_SYNTAX = re.compile(r"!?\[\[([^\]|#]*)(?:#[^\]|]*)?(?:\|([^\]]*))?\]\]")
_MARKUP = re.compile(r"[#*_`>~=\[\]()|^-]+")

_ranking_cache: OrderedDict[tuple[Any, ...], dict[str, tuple[int, float]]] = OrderedDict()
_ranking_lock = threading.Lock()


@dataclass(slots=True)
class Trigger:
    kind: str  # note | heading | block | tag
    start: int  # code-point column where the replaced text starts
    partial: str  # typed so far
    note: str = ""  # for heading/block: the note part as written
    link_start: int = 0  # column of "[["
    embed: bool = False


def trigger_at(line_text: str, column: int) -> Trigger | None:
    prefix = line_text[:column]
    open_at = prefix.rfind("[[")
    if open_at != -1 and "]]" not in prefix[open_at:]:
        inner_start = open_at + 2
        inner = prefix[inner_start:]
        embed = open_at > 0 and prefix[open_at - 1] == "!"
        if "|" in inner:
            return None  # typing the alias
        if "#" in inner:
            note, _, rest = inner.partition("#")
            if rest.startswith("^"):
                return Trigger("block", inner_start + len(note) + 2, rest[1:], note, open_at, embed)
            if "#" in rest:  # nested heading path "A#B": complete the last part
                rest = rest.rsplit("#", 1)[1]
            return Trigger("heading", column - len(rest), rest, note, open_at, embed)
        return Trigger("note", inner_start, inner, "", open_at, embed)
    match = _TAG_PREFIX.search(prefix)
    if match is not None:
        partial = match.group(1)
        hashes = match.start()
        if hashes == len(prefix) - len(partial) - 1 and prefix[:hashes].strip() == "" and not partial:
            return None  # "#" at the start of a line: a heading is being written
        return Trigger("tag", column - len(partial), partial)
    return None


def paragraph_text(doc: Document, line: int, trigger: Trigger) -> str:
    """The paragraph around ``line``, link syntax reduced to its words, the link being typed left out."""
    lines = doc.lines
    first = line
    while first > 0 and lines[first - 1].strip() and not lines[first - 1].lstrip().startswith("#"):
        first -= 1
    last = line
    while last + 1 < len(lines) and lines[last + 1].strip() and not lines[last + 1].lstrip().startswith("#"):
        last += 1
    parts = []
    for number in range(first, last + 1):
        text = lines[number]
        if number == line:
            text = text[:trigger.link_start] + " " + text[trigger.start + len(trigger.partial):]
        parts.append(text)
    text = "\n".join(parts)
    text = _WIKILINK_SYNTAX.sub(lambda m: " ".join(g for g in m.groups() if g), text)
    return " ".join(_MARKUP.sub(" ", text).split())


def _section_query(doc: Document, line: int) -> str:
    words = [doc.note.title]
    for heading in doc.note.headings:
        if heading.line - 1 <= line:
            words = [doc.note.title, *heading.path]
    return " ".join(words)


def relatedness(ctx: Context, doc: Document, line: int, trigger: Trigger) -> dict[str, tuple[int, float]]:
    """Note path -> (rank, score) by relatedness to the paragraph at ``line``."""
    query = paragraph_text(doc, line, trigger)
    if len(query.split()) < MIN_QUERY_WORDS:
        query = f"{query} {_section_query(doc, line)}".strip()
    if not query:
        return {}
    mode = "hybrid" if ctx.engine.embedder is not None else "lexical"
    key = (str(ctx.vault), query, mode, ctx.view.snapshot.generation)
    with _ranking_lock:
        if key in _ranking_cache:
            _ranking_cache.move_to_end(key)
            return _ranking_cache[key]
    try:
        response = ctx.engine.search(query, k=RELATED_DEPTH, mode=mode, per_note=True)
        ranking = {r.path: (rank, r.score) for rank, r in enumerate(response.results)}
    except Exception:  # noqa: BLE001 - ranking is a bonus: fall back to names
        ranking = {}
    with _ranking_lock:
        _ranking_cache[key] = ranking
        while len(_ranking_cache) > 64:
            _ranking_cache.popitem(last=False)
    return ranking


def _matches(partial: str, *names: str) -> bool:
    if not partial:
        return True
    wanted = partial.casefold()
    for name in names:
        folded = name.casefold()
        if wanted in folded:
            return True
        position = 0
        for char in folded:
            if position < len(wanted) and char == wanted[position]:
                position += 1
        if position == len(wanted):
            return True
    return False


def completion(ctx: Context, doc: Document, position: types.Position) -> types.CompletionList | None:
    line, column = common.cursor(ctx, doc, position)
    line_text = doc.lines[line] if line < len(doc.lines) else ""
    trigger = trigger_at(line_text, column)
    if trigger is None:
        return None
    replace = ctx.codec.range(doc.lines, line, trigger.start, column)
    rest = line_text[column:]
    if trigger.kind == "note":
        return _notes(ctx, doc, line, trigger, replace, closing="" if rest.startswith(("]]", "#", "|")) else "]]")
    if trigger.kind == "heading":
        return _headings(ctx, doc, trigger, replace, closing="" if rest.startswith(("]]", "|")) else "]]")
    if trigger.kind == "block":
        return _blocks(ctx, doc, trigger, replace, closing="" if rest.startswith(("]]", "|")) else "]]")
    return _tags(ctx, trigger, replace)


def _item(ctx: Context, label: str, insert: str, replace: types.Range, **extra: Any) -> types.CompletionItem:
    return types.CompletionItem(label=label, text_edit=types.TextEdit(range=replace, new_text=insert), **extra)


def _notes(ctx: Context, doc: Document, line: int, trigger: Trigger, replace: types.Range,
           closing: str) -> types.CompletionList:
    view = ctx.view
    paths = view.note_paths()
    if trigger.embed:  # attachments can be embedded too
        paths = sorted(set(paths) | {p for p, kind in view.snapshot.files.items() if kind != "markdown"})
    ranking = relatedness(ctx, doc, line, trigger)
    limit = ctx.options.completion_max_items
    incomplete = False
    candidates = []
    for path in paths:
        if path == doc.path:
            continue
        note = view.note(path)
        name = view.link_name(path, doc.path)
        title = note.title if note else name
        aliases = note.aliases if note else ()
        if len(paths) > limit and not _matches(trigger.partial, name, title, *aliases):
            continue
        candidates.append((path, name, title, aliases))
    candidates.sort(key=lambda c: (ranking.get(c[0], (10 ** 6, 0.0))[0], c[1].casefold()))
    if len(candidates) > limit:
        candidates = candidates[:limit]
        incomplete = True
    items = []
    for order, (path, name, title, aliases) in enumerate(candidates):
        rank = ranking.get(path)
        detail = title if title != name else path
        if rank is not None:
            detail = f"{detail} · related"
        kind = types.CompletionItemKind.File if view.kind(path) == "markdown" else types.CompletionItemKind.Reference
        items.append(_item(ctx, name, name + closing, replace, kind=kind, detail=detail,
                           sort_text=f"{order:05d}", filter_text=f"{name} {title}" if title != name else name,
                           preselect=True if rank is not None and rank[0] == 0 else None,
                           data={"path": path}))
        for alias in aliases:
            items.append(_item(ctx, alias, f"{name}|{alias}{closing}", replace,
                               kind=types.CompletionItemKind.Reference, detail=f"alias of {title}",
                               sort_text=f"{order:05d}a", filter_text=alias, data={"path": path}))
    return types.CompletionList(is_incomplete=incomplete, items=items)


def _target_note(ctx: Context, doc: Document, written: str) -> tuple[str | None, Any]:
    if not written.strip():
        return doc.path, doc.info()
    path = ctx.view.resolve(written.strip(), doc.path)
    if path is None:
        return None, None
    if path == doc.path:
        return path, doc.info()
    return path, ctx.view.note(path)


def _headings(ctx: Context, doc: Document, trigger: Trigger, replace: types.Range,
              closing: str) -> types.CompletionList:
    _path, note = _target_note(ctx, doc, trigger.note)
    items = []
    if note is not None:
        for order, heading in enumerate(note.headings):
            items.append(_item(ctx, heading.text, heading.text + closing, replace,
                               kind=types.CompletionItemKind.Reference, detail="#" * heading.level,
                               sort_text=f"{order:05d}", filter_text=heading.text,
                               label_details=types.CompletionItemLabelDetails(
                                   description=" > ".join(heading.path[:-1]) or None)))
    return types.CompletionList(is_incomplete=False, items=items)


def _blocks(ctx: Context, doc: Document, trigger: Trigger, replace: types.Range,
            closing: str) -> types.CompletionList:
    path, note = _target_note(ctx, doc, trigger.note)
    items = []
    if note is not None:
        source = doc if path == doc.path else (ctx.view.document(path) if path else None)
        for order, block in enumerate(note.blocks):
            text = ""
            if source is not None and 0 < block.line <= len(source.lines):
                first, last = common.block_span(source.lines, block)
                text = common.preview(source.lines, first, last)
            items.append(_item(ctx, block.id, block.id + closing, replace,
                               kind=types.CompletionItemKind.Reference, detail=text.splitlines()[0][:80] if text else None,
                               documentation=text or None, sort_text=f"{order:05d}", filter_text=block.id))
    return types.CompletionList(is_incomplete=False, items=items)


def _tags(ctx: Context, trigger: Trigger, replace: types.Range) -> types.CompletionList:
    counts = ctx.view.tag_counts()
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0].casefold()))
    items = [_item(ctx, tag, tag, replace, kind=types.CompletionItemKind.Keyword,
                   detail=f"{count} note" + ("" if count == 1 else "s"), sort_text=f"{order:05d}", filter_text=tag)
             for order, (tag, count) in enumerate(ranked)]
    return types.CompletionList(is_incomplete=False, items=items)


def resolve_item(ctx: Context, item: types.CompletionItem) -> types.CompletionItem:
    """Add the note's first lines as documentation."""
    data = item.data if isinstance(item.data, dict) else (vars(item.data) if item.data is not None and
                                                          hasattr(item.data, "__dict__") else {})
    path = data.get("path") if isinstance(data, dict) else None
    if not isinstance(path, str) or item.documentation:
        return item
    if ctx.view.kind(path) != "markdown":
        item.documentation = f"attachment `{path}`"
        return item
    doc = ctx.view.document(path)
    if doc is None:
        return item
    text = common.preview(doc.lines, 1, len(doc.lines), doc.note.body_start_line)
    item.documentation = types.MarkupContent(kind=types.MarkupKind.Markdown, value=f"`{path}`\n\n{text}")
    return item


def register(server: CogniVaultServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_COMPLETION,
                    types.CompletionOptions(trigger_characters=TRIGGER_CHARACTERS, resolve_provider=True))
    async def on_completion(ls: CogniVaultServer, params: types.CompletionParams):  # type: ignore[no-untyped-def]
        return await ls.run_feature(completion, params.text_document.uri, params.position)

    @server.feature(types.COMPLETION_ITEM_RESOLVE)
    async def on_resolve(ls: CogniVaultServer, item: types.CompletionItem):  # type: ignore[no-untyped-def]
        return await ls.run_feature(resolve_item, None, item)
