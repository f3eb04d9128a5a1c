"""``textDocument/codeLens``: "N related notes" and "N backlinks" at the top of a note.

The related-notes lens runs ``cognivault.showRelated`` with the list as its
argument: a client may show it itself (the VS Code extension does); sent to
the server, the command offers the notes in a ``window/showMessageRequest``
and opens the chosen one with ``window/showDocument``, so any editor gets the list.
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from cognivault.lsp.model import Document
from cognivault.lsp.server import CogniVaultServer, Context

SHOW_RELATED = "cognivault.showRelated"
SHOW_REFERENCES = "cognivault.showReferences"
RELATED_K = 10


def _top_line(doc: Document) -> int:
    """The title heading's line when the note starts with one, else the first body line (0-based)."""
    for heading in doc.note.headings:
        return heading.line - 1
    return max(0, min(doc.note.body_start_line - 1, len(doc.lines) - 1))


def code_lenses(ctx: Context, doc: Document) -> list[types.CodeLens]:
    if doc.path is None or not ctx.options.code_lens:
        return []
    from cognivault.lsp.custom import related_notes

    line = _top_line(doc)
    where = types.Range(start=types.Position(line=line, character=0), end=types.Position(line=line, character=0))
    lenses = []
    try:
        found = related_notes(ctx, doc.path, k=RELATED_K)
    except Exception:  # noqa: BLE001 - not indexed yet: no lens rather than an error
        found = None
    if found is not None:
        notes = [{"uri": ctx.view.uri(n.path), "path": n.path, "title": n.title, "score": n.score,
                  "reasons": list(n.reasons)} for n in found]
        count = len(notes)
        title = f"{count} related note" + ("" if count == 1 else "s")
        lenses.append(types.CodeLens(range=where, command=types.Command(
            title=title, command=SHOW_RELATED, arguments=[{"uri": doc.uri, "notes": notes}])))
    backlinks = ctx.view.backlinks(doc.path)
    others = [b for b in backlinks if b.src != doc.path]
    if others:
        title = f"{len(others)} backlink" + ("" if len(others) == 1 else "s")
        lenses.append(types.CodeLens(range=where, command=types.Command(
            title=title, command=SHOW_REFERENCES, arguments=[{"uri": doc.uri}])))
    return lenses


def register(server: CogniVaultServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=False))
    async def on_code_lens(ls: CogniVaultServer, params: types.CodeLensParams):
        return await ls.run_feature(code_lenses, params.text_document.uri)

    @server.command(SHOW_RELATED)
    async def show_related(ls: CogniVaultServer, *arguments: Any) -> Any:
        args = arguments[0] if arguments else {}
        if hasattr(args, "_asdict"):
            args = args._asdict()
        notes = list(args.get("notes") or []) if isinstance(args, dict) else []
        notes = [n._asdict() if hasattr(n, "_asdict") else n for n in notes]
        if not notes or not ls.capability("window.show_document.support", False):
            return {"notes": notes}

        async def offer() -> None:
            titles = [types.MessageActionItem(title=str(n.get("title"))) for n in notes[:10]]
            choice = await ls.window_show_message_request_async(types.ShowMessageRequestParams(
                type=types.MessageType.Info, message="Related notes", actions=titles))
            if choice is None:
                return
            for note in notes:
                if note.get("title") == choice.title:
                    await ls.window_show_document_async(types.ShowDocumentParams(uri=note["uri"], take_focus=True))
                    return

        ls.live.spawn(offer())
        return {"notes": notes}

    @server.command(SHOW_REFERENCES)
    async def show_references(ls: CogniVaultServer, *arguments: Any) -> Any:
        from pygls.exceptions import JsonRpcInvalidParams

        from cognivault.lsp.references import note_references

        args = arguments[0] if arguments else {}
        if hasattr(args, "_asdict"):
            args = args._asdict()
        if not isinstance(args, dict) or not isinstance(args.get("uri"), str):
            raise JsonRpcInvalidParams(message="expected {uri}")
        return await ls.run_feature(note_references, args["uri"])
