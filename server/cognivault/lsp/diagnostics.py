"""``textDocument/publishDiagnostics``: broken links and embeds, missing headings and blocks, stale citations.

Computed for open documents from their unsaved text, debounced after edits
and re-run when the index changes (a note created elsewhere heals a link).
Each diagnostic carries ``data`` the quick fixes read: ``{"kind": ...,
"target": ..., "heading": ..., "block": ..., "path": ...}``.
"""

from __future__ import annotations

import logging
from typing import Any

from lsprotocol import types

from cognivault.lsp import common
from cognivault.lsp.model import Document
from cognivault.lsp.server import CogniVaultServer, Context

log = logging.getLogger(__name__)

SOURCE = "cognivault"


def diagnostics(ctx: Context, doc: Document) -> list[types.Diagnostic]:
    from cognivault.lsp import citations

    found: list[types.Diagnostic] = []
    cited = citations.spans(doc)
    for link in doc.note.links:
        if any(line == link.line and start <= link.start_col < end for line, start, end in cited):
            continue  # a citation's link: checked by chunk id below
        target = common.resolve(ctx, doc.path, link, doc)
        if target.problem is None:
            continue
        what = "embed" if link.embed else "link"
        if target.kind == "unresolved-note":
            message = f"Broken {what}: {target.problem}"
        else:
            message = f"Broken {what}: {target.problem}"
        found.append(types.Diagnostic(
            range=common.link_range(ctx, doc, link), message=message,
            severity=types.DiagnosticSeverity.Warning, source=SOURCE, code=target.kind,
            data={"kind": target.kind, "target": link.target, "heading": link.heading, "block": link.block,
                  "path": target.path, "embed": link.embed}))
    found.extend(citations.diagnostics(ctx, doc))
    return found


def diagnostics_of(ctx: Context, uris: list[str], linking_from: list[str] | None = None,
                   names: frozenset[str] = frozenset()) -> dict[str, list[types.Diagnostic]]:
    """Diagnostics of ``uris``, and of the documents of ``linking_from`` with a link looked up by one
    of ``names``, from one context (one snapshot, one view)."""
    found: dict[str, list[types.Diagnostic]] = {}
    chosen = set(uris)
    for uri in [*uris, *(linking_from or ())]:
        doc = ctx.document(uri)
        if doc is None or (uri not in chosen and not doc.link_names() & names):
            continue
        if ctx.server is not None and found:
            ctx.server.live.yield_to_requests()  # after an edit this can be every open document
        try:
            found[uri] = diagnostics(ctx, doc)
        except Exception as exc:  # noqa: BLE001 - one bad document must not stop the others
            log.warning("diagnostics for %s failed: %s", uri, exc)
    return found


async def publish_pending(server: CogniVaultServer) -> None:
    """Publish fresh diagnostics for the documents that wait for them."""
    uris, names = server.take_diagnostics_work()
    if not server.options.diagnostics or server.engine is None:
        return
    texts = server.open_texts()
    wanted = [uri for uri in (texts if uris is None else uris) if uri in texts]
    chosen = set(wanted)
    others = [uri for uri in texts if uri not in chosen] if names and uris is not None else []
    if not wanted and not others:
        return
    found = await server.run_feature(diagnostics_of, None, wanted, others, names, background=True)
    texts = server.open_texts()
    for uri, items in found.items():
        if uri not in texts:  # closed meanwhile
            continue
        server.published[uri] = len(items)
        server.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
            uri=uri, diagnostics=items, version=texts[uri][1]))


def register(server: CogniVaultServer) -> None:
    # Diagnostics are pushed (see publish_all, scheduled by the lifecycle module).
    del server


def data_of(diagnostic: types.Diagnostic) -> dict[str, Any]:
    data = diagnostic.data
    if isinstance(data, dict):
        return data
    if data is not None and hasattr(data, "__dict__"):
        return dict(vars(data))
    return {}
