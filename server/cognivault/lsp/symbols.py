"""``textDocument/documentSymbol``: the heading outline of a note (nested by level)."""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types

from cognivault.lsp.model import Document
from cognivault.lsp.server import CogniVaultServer, Context

SYMBOL_KIND = {1: types.SymbolKind.Module, 2: types.SymbolKind.Class, 3: types.SymbolKind.Method}


def document_symbols(ctx: Context, doc: Document) -> list[types.DocumentSymbol]:
    """Headings as a tree: each heading's range is its whole section."""
    headings = doc.note.headings
    last_line = max(len(doc.lines) - 1, 0)
    roots: list[types.DocumentSymbol] = []
    stack: list[tuple[int, types.DocumentSymbol]] = []
    for index, heading in enumerate(headings):
        end = last_line
        for later in headings[index + 1:]:
            if later.level <= heading.level:
                end = later.line - 2
                break
        end = max(end, heading.line - 1 + (heading.end_line - heading.line if heading.end_line else 0))
        line = heading.line - 1
        text = doc.lines[line] if line < len(doc.lines) else ""
        start_col = text.find(heading.text) if heading.text else -1
        selection = (ctx.codec.range(doc.lines, line, start_col, start_col + len(heading.text))
                     if start_col >= 0 else ctx.codec.line_range(doc.lines, line))
        symbol = types.DocumentSymbol(
            name=heading.text or "(untitled)", detail="#" * heading.level,
            kind=SYMBOL_KIND.get(heading.level, types.SymbolKind.String),
            range=ctx.codec.line_range(doc.lines, line, max(end, line)), selection_range=selection,
            children=[])
        while stack and stack[-1][0] >= heading.level:
            stack.pop()
        if stack:
            stack[-1][1].children.append(symbol)  # type: ignore[union-attr]
        else:
            roots.append(symbol)
        stack.append((heading.level, symbol))
    return roots


def flat_symbols(ctx: Context, doc: Document) -> list[types.SymbolInformation]:
    """For clients without hierarchical symbol support."""
    found: list[types.SymbolInformation] = []

    def walk(symbols: Sequence[types.DocumentSymbol], container: str | None) -> None:
        for symbol in symbols:
            found.append(types.SymbolInformation(
                name=symbol.name, kind=symbol.kind, container_name=container,
                location=types.Location(uri=doc.uri, range=symbol.selection_range)))
            walk(symbol.children or [], symbol.name)

    walk(document_symbols(ctx, doc), None)
    return found


def register(server: CogniVaultServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    async def document_symbol(ls: CogniVaultServer, params: types.DocumentSymbolParams):
        hierarchical = ls.capability("text_document.document_symbol.hierarchical_document_symbol_support", False)
        return await ls.run_feature(document_symbols if hierarchical else flat_symbols, params.text_document.uri)
