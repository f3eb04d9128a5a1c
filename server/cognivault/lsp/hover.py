"""``textDocument/hover``: what a link points at, how many notes carry a tag, what a citation cites.

- On a wikilink or embed: the target note's title, its first lines (or the
  linked heading's section, or the linked block's paragraph) and how many
  links point at it. An unresolved link says so.
- On a tag: how many notes carry it (sub-tags included) and a few of them.
- On a citation in a generated note: the cited passage (``citations`` module).
"""

from __future__ import annotations

from lsprotocol import types

from cognivault.graph import heading_section
from cognivault.lsp import common
from cognivault.lsp.model import Document
from cognivault.lsp.server import CogniVaultServer, Context

MAX_TAG_NOTES = 8


def _markup(ctx: Context, value: str) -> types.MarkupContent:
    formats = ctx.capability("text_document.hover.content_format", None) or [types.MarkupKind.Markdown]
    kind = types.MarkupKind.Markdown if types.MarkupKind.Markdown in formats else types.MarkupKind.PlainText
    return types.MarkupContent(kind=kind, value=value)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def hover(ctx: Context, doc: Document, position: types.Position) -> types.Hover | None:
    from cognivault.lsp import citations

    line, column = common.cursor(ctx, doc, position)
    cited = citations.hover(ctx, doc, line, column)
    if cited is not None:
        return cited
    link = common.link_at(doc, line, column)
    if link is not None:
        return _link_hover(ctx, doc, link)
    tag = common.tag_at(doc, line, column)
    if tag is not None and tag.line > 0:
        return _tag_hover(ctx, doc, tag, line)
    return None


def _link_hover(ctx: Context, doc: Document, link) -> types.Hover:
    target = common.resolve(ctx, doc.path, link, doc)
    where = common.link_range(ctx, doc, link)
    if target.path is None and target.note is None:
        text = f"**{link.target}**: no note or file with this name yet (a quick fix can create it)"
        return types.Hover(contents=_markup(ctx, text), range=where)
    path = target.path
    same = path is None or path == doc.path
    title = ctx.view.title(path) if path else (doc.note.title or "this note")
    kind = ctx.view.kind(path) if path else "markdown"
    parts = [f"**{title}**" + (f"  \n`{path}`" if path and path != title else "")]
    if kind not in ("markdown", None):
        parts.append(f"attachment ({kind})")
    else:
        source = doc if same else ctx.view.document(path)  # type: ignore[arg-type]
        lines = source.lines if source is not None else []
        note = target.note
        body_start = source.body_start_line if source is not None else 1
        if target.problem:
            parts.append(f"⚠ {target.problem}")
        if target.heading is not None and note is not None:
            shown = source.info() if source is not None and same else note
            first, last = heading_section(shown.headings, target.heading, shown.line_count)
            parts.append(common.preview(lines, first, last))
        elif target.block is not None:
            first, last = common.block_span(lines, target.block)
            parts.append(common.preview(lines, first, last))
        elif not target.problem:
            first = body_start
            while first <= len(lines) and not lines[first - 1].strip():
                first += 1
            if first <= len(lines) and lines[first - 1].lstrip("#").strip() == title \
                    and lines[first - 1].startswith("#"):
                first += 1  # the title heading repeats the title shown above
            parts.append(common.preview(lines, first, len(lines), body_start))
    if path:
        backlinks = ctx.view.backlinks(path)
        if target.heading is not None:
            count = sum(1 for b in backlinks if b.heading and _same_heading(ctx, path, b.heading, target.heading))
            parts.append(f"{_plural(len(backlinks), 'backlink')} to this note, {count} to this heading")
        elif target.block is not None:
            count = sum(1 for b in backlinks if b.block and b.block.casefold() == target.block.id.casefold())
            parts.append(f"{_plural(len(backlinks), 'backlink')} to this note, {count} to this block")
        else:
            parts.append(_plural(len(backlinks), "backlink"))
    value = "\n\n---\n\n".join(p for p in parts if p)
    return types.Hover(contents=_markup(ctx, value), range=where)


def _same_heading(ctx: Context, path: str, written: str, heading) -> bool:
    from cognivault.graph import find_heading

    note = ctx.view.note(path)
    return note is not None and find_heading(note.headings, written) == heading


def _tag_hover(ctx: Context, doc: Document, tag, line: int) -> types.Hover:
    notes = sorted(ctx.view.tag_notes(tag.tag), key=lambda p: ctx.view.title(p).casefold())
    lines = [f"**#{tag.tag}**: {_plural(len(notes), 'note')}"]
    for path in notes[:MAX_TAG_NOTES]:
        lines.append(f"- {ctx.view.title(path)}")
    if len(notes) > MAX_TAG_NOTES:
        lines.append(f"- … and {len(notes) - MAX_TAG_NOTES} more")
    where = ctx.codec.range(doc.lines, line, tag.start_col, tag.end_col)
    return types.Hover(contents=_markup(ctx, "\n".join(lines)), range=where)


def register(server: CogniVaultServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def on_hover(ls: CogniVaultServer, params: types.HoverParams):
        return await ls.run_feature(hover, params.text_document.uri, params.position)
