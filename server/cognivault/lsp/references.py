"""``textDocument/references``: backlinks.

- On a heading line: every link to that heading (``[[Note#Heading]]``, and
  ``[[#Heading]]`` inside the note).
- On a line that ends with a block id: every link to that block.
- On a link: the references of what it points at (the note, heading or block).
- On a tag: every occurrence of the tag in the vault.
- Anywhere else: every link to the current note.
"""

from __future__ import annotations

from lsprotocol import types

from cognivault.graph import LinkRef, find_heading
from cognivault.lsp import common
from cognivault.lsp.model import Document
from cognivault.lsp.server import CogniVaultServer, Context


def _location(ctx: Context, link: LinkRef) -> types.Location | None:
    doc = ctx.view.document(link.src)
    if doc is None:
        return None
    return types.Location(uri=ctx.view.uri(link.src), range=common.link_range(ctx, doc, link))


def links_to(ctx: Context, path: str, heading: str | None = None, block: str | None = None) -> list[LinkRef]:
    """Links pointing at note ``path`` (narrowed to a heading or block when given)."""
    found = ctx.view.backlinks(path)
    if heading is not None:
        note = ctx.view.note(path)
        wanted = find_heading(note.headings, heading) if note else None
        if wanted is None:
            return []
        found = [link for link in found if link.heading and note is not None
                 and find_heading(note.headings, link.heading) == wanted]
    elif block is not None:
        found = [link for link in found if link.block and link.block.casefold() == block.casefold()]
    return found


def references(ctx: Context, doc: Document, position: types.Position,
               context: types.ReferenceContext | None = None) -> list[types.Location]:
    line, column = common.cursor(ctx, doc, position)
    path = doc.path
    heading_text: str | None = None
    block_id: str | None = None
    link = common.link_at(doc, line, column)
    if link is not None:
        target = common.resolve(ctx, path, link, doc)
        if target.path is None:
            return []
        path = target.path
        heading_text = target.heading.text if target.heading else None
        block_id = target.block.id if target.block else None
    else:
        tag = common.tag_at(doc, line, column)
        if tag is not None and tag.line > 0:
            return _tag_locations(ctx, tag.tag)
        heading = common.heading_at(doc, line)
        block = common.block_at(doc, line)
        if heading is not None:
            heading_text = heading.text
        elif block is not None:
            block_id = block.id
    if path is None:
        return []
    locations = [loc for link_ in links_to(ctx, path, heading_text, block_id)
                 if (loc := _location(ctx, link_)) is not None]
    if context is not None and context.include_declaration and link is None and path == doc.path:
        if heading_text is not None:
            heading = common.heading_at(doc, line)
            if heading is not None:
                locations.insert(0, types.Location(uri=doc.uri, range=ctx.codec.line_range(doc.lines, line)))
    return locations


def note_references(ctx: Context, doc: Document) -> list[types.Location]:
    """Every link to ``doc``'s note from other notes (the code lens' "N backlinks")."""
    if doc.path is None:
        return []
    return [loc for link in links_to(ctx, doc.path) if link.src != doc.path
            and (loc := _location(ctx, link)) is not None]


def _tag_locations(ctx: Context, tag: str) -> list[types.Location]:
    wanted = tag.casefold()
    found = []
    for ref in ctx.view.tag_occurrences():
        folded = ref.tag.casefold()
        if ref.line <= 0 or not (folded == wanted or folded.startswith(wanted + "/")):
            continue
        doc = ctx.view.document(ref.path)
        if doc is None:
            continue
        found.append(types.Location(uri=ctx.view.uri(ref.path),
                                    range=ctx.codec.range(doc.lines, ref.line - 1, ref.start_col, ref.end_col)))
    return sorted(found, key=lambda loc: (loc.uri, loc.range.start.line, loc.range.start.character))


def register(server: CogniVaultServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_REFERENCES)
    async def on_references(ls: CogniVaultServer, params: types.ReferenceParams):
        return await ls.run_feature(references, params.text_document.uri, params.position, params.context)
