"""Citations in generated notes: hover, definition, diagnostics and a quick fix.

The syntax is ``vault_schema/citation.md``, parsed by ``cognivault.study.citations``::

    [[Photosynthesis#Calvin cycle|Photosynthesis › Calvin cycle]]<!--cv:cite id=63e8b4962cfd15c8 h=fe49eb37-->

- Hover (on the link or the marker): the cited passage with its file, heading
  and line range, and a warning when the source changed since the note was
  generated (the marker's hash differs from the chunk's content hash) or no
  longer exists.
- Definition: the passage's exact line range, found by chunk id (so it works
  after the heading was renamed), else the link target.
- Diagnostics: "the cited passage changed" / "no longer exists"; the quick
  fix "mark as reviewed" stores the current hash in the marker.
"""

from __future__ import annotations

import logging
from typing import Any

from lsprotocol import types

from cognivault.lsp.model import Document

log = logging.getLogger(__name__)

SOURCE = "cognivault"
MAX_PASSAGE_LINES = 14


def _module() -> Any:
    """``cognivault.study.citations``, imported on first use (the server imports it once warm)."""
    from cognivault.study import citations

    return citations


def citations_of(doc: Document) -> list[Any]:
    text = "\n".join(doc.lines)
    if "cv:cite" not in text:
        return []
    return _module().parse_citations(text)


def citation_at(doc: Document, line: int, column: int) -> Any:
    for citation in citations_of(doc):
        if citation.line == line + 1 and citation.start_col <= column <= citation.end_col:
            return citation
    return None


def _chunks(ctx: Any, ids: list[str]) -> dict[str, Any]:
    try:
        return ctx.engine.store.reader().chunks(ids)
    except Exception as exc:  # noqa: BLE001 - the catalog is being rebuilt: no citation info
        log.info("chunk lookup failed: %s", exc)
        return {}


def _status(citation: Any, chunk: Any) -> str:
    return _module().citation_status(citation, chunk)


def _passage_range(ctx: Any, chunk: Any) -> tuple[str, types.Range] | None:
    uri = ctx.view.uri(chunk.path)
    if chunk.line_start <= 0:
        return uri, types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0))
    doc = ctx.view.document(chunk.path) if ctx.view.kind(chunk.path) == "markdown" else None
    lines = doc.lines if doc is not None else []
    return uri, ctx.codec.line_range(lines, chunk.line_start - 1, max(chunk.line_end, chunk.line_start) - 1)


def _fallback(ctx: Any, doc: Document, citation: Any) -> list[types.Location] | None:
    from cognivault.graph import LinkRef
    from cognivault.lsp import common

    link = LinkRef(doc.path or "", citation.target, citation.heading, None, citation.label, False,
                   citation.line, citation.start_col, citation.end_col)
    target = common.resolve(ctx, doc.path, link, doc)
    found = common.target_range(ctx, target)
    return [types.Location(uri=found[0], range=found[1])] if found else None


def definition(ctx: Any, doc: Document, line: int, column: int) -> list[types.Location] | None:
    citation = citation_at(doc, line, column)
    if citation is None:
        return None
    chunk = _chunks(ctx, [citation.chunk_id]).get(citation.chunk_id)
    if chunk is None:
        return _fallback(ctx, doc, citation)
    found = _passage_range(ctx, chunk)
    return [types.Location(uri=found[0], range=found[1])] if found else None


def hover(ctx: Any, doc: Document, line: int, column: int) -> types.Hover | None:
    citation = citation_at(doc, line, column)
    if citation is None:
        return None
    where = ctx.codec.range(doc.lines, line, citation.start_col, citation.end_col)
    chunk = _chunks(ctx, [citation.chunk_id]).get(citation.chunk_id)
    if chunk is None:
        value = (f"**Cited passage** `{citation.chunk_id}`\n\n⚠ The source passage no longer exists "
                 f"(it was in `{citation.target}`" + (f" › {citation.heading}" if citation.heading else "") + ").")
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=value), range=where)
    crumb = " › ".join(h for h in chunk.heading_path if h)
    lines_label = f"lines {chunk.line_start}–{chunk.line_end}" if chunk.line_start else (chunk.locator or "")
    header = f"**Cited passage**: `{chunk.path}`" + (f" {lines_label}" if lines_label else "")
    parts = [header + (f"  \n{crumb}" if crumb else "")]
    text = chunk.text
    source = ctx.view.document(chunk.path) if ctx.view.kind(chunk.path) == "markdown" and chunk.line_start else None
    if source is not None:
        text = "\n".join(source.lines[chunk.line_start - 1:chunk.line_end])
    quoted = "\n".join(f"> {row}" if row.strip() else ">" for row in text.split("\n")[:MAX_PASSAGE_LINES])
    if len(text.split("\n")) > MAX_PASSAGE_LINES:
        quoted += "\n> …"
    parts.append(quoted)
    if _status(citation, chunk) == "changed":
        parts.append("⚠ The source passage changed since this note was generated.")
    value = "\n\n".join(parts)
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=value), range=where)


def diagnostics(ctx: Any, doc: Document) -> list[types.Diagnostic]:
    found_citations = citations_of(doc)
    if not found_citations:
        return []
    chunks = _chunks(ctx, sorted({c.chunk_id for c in found_citations}))
    found = []
    for citation in found_citations:
        chunk = chunks.get(citation.chunk_id)
        status = _status(citation, chunk)
        if status == "ok":
            continue
        where = ctx.codec.range(doc.lines, citation.line - 1, citation.start_col, citation.end_col)
        if status == "changed":
            message = "The cited passage changed since this note was generated; check that the note still holds"
            code = "citation-changed"
            severity = types.DiagnosticSeverity.Information
        else:
            message = "The cited passage no longer exists in the vault"
            code = "citation-missing"
            severity = types.DiagnosticSeverity.Warning
        found.append(types.Diagnostic(
            range=where, message=message, severity=severity, source=SOURCE, code=code,
            data={"kind": code, "chunk": citation.chunk_id,
                  "hash": chunk.content_hash[:len(citation.hash_prefix)] if chunk is not None else None}))
    return found


def spans(doc: Document) -> list[tuple[int, int, int]]:
    """(1-based line, start, end) of every citation: their links are checked by id, not by name."""
    return [(c.line, c.start_col, c.end_col) for c in citations_of(doc)]


def mark_reviewed(ctx: Any, doc: Document, diagnostic: types.Diagnostic, data: dict[str, Any]
                  ) -> types.CodeAction | None:
    """Quick fix for a changed passage: store the current hash in the marker."""
    new_hash = data.get("hash")
    if not isinstance(new_hash, str):
        return None
    line, column = ctx.codec.offset(doc.lines, diagnostic.range.start)
    citation = citation_at(doc, line, column)
    if citation is None:
        return None
    text = doc.lines[line]
    marker = f"h={citation.hash_prefix}-->"
    index = text.find(marker, citation.start_col, citation.end_col)
    if index < 0:
        return None
    start = index + 2
    edit = types.TextEdit(range=ctx.codec.range(doc.lines, line, start, start + len(citation.hash_prefix)),
                          new_text=new_hash)
    return types.CodeAction(
        title="Mark the citation as reviewed (the note still holds)", kind=types.CodeActionKind.QuickFix,
        diagnostics=[diagnostic],
        edit=types.WorkspaceEdit(changes={doc.uri: [edit]}))
