"""``textDocument/definition``: wikilinks, embeds, heading and block links, citations.

A note link jumps to the top of the note, a heading link to the heading line,
a block link to the paragraph the block id ends, an attachment embed to the
file; a citation to the cited passage's exact line range.
"""

from __future__ import annotations

from lsprotocol import types

from cognivault.lsp import common
from cognivault.lsp.model import Document
from cognivault.lsp.server import CogniVaultServer, Context


def definition(ctx: Context, doc: Document, position: types.Position) -> list[types.Location] | None:
    from cognivault.lsp import citations

    line, column = common.cursor(ctx, doc, position)
    cited = citations.definition(ctx, doc, line, column)
    if cited is not None:
        return cited
    link = common.link_at(doc, line, column)
    if link is None:
        return None
    target = common.resolve(ctx, doc.path, link, doc)
    if target.path is None and not link.target:  # [[#Heading]] in a buffer outside the vault
        if target.heading is not None:
            return [types.Location(uri=doc.uri, range=ctx.codec.line_range(doc.lines, target.heading.line - 1))]
        return None
    if target.path == doc.path and doc.path is not None and (target.heading or target.block):
        # Same note: positions from the buffer as typed.
        if target.heading is not None:
            return [types.Location(uri=doc.uri, range=ctx.codec.line_range(doc.lines, target.heading.line - 1))]
        assert target.block is not None
        first, last = common.block_span(doc.lines, target.block)
        return [types.Location(uri=doc.uri, range=ctx.codec.line_range(doc.lines, first - 1, last - 1))]
    found = common.target_range(ctx, target)
    if found is None:
        return None
    uri, range_ = found
    return [types.Location(uri=uri, range=range_)]


def register(server: CogniVaultServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    async def goto_definition(ls: CogniVaultServer, params: types.DefinitionParams):
        return await ls.run_feature(definition, params.text_document.uri, params.position)
