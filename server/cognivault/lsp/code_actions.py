"""``textDocument/codeAction``: quick fixes for broken links, links to related notes, study actions.

Quick fixes (for this server's diagnostics):
- unresolved link: create the note (a ``CreateFile`` plus its title heading);
- missing heading: change the link to the closest heading, or add the heading to the note;
- missing block: change the link to the closest block id.
Refactorings:
- insert a link to one of the most related notes not yet linked (at the cursor).
Commands:
- "Ask about this selection": an answer from the vault with its sources (``cognivault.ask``);
- "Generate flashcards / a quiz / a mind map / a workshop" from the note or the selection
  (``cognivault.generate``), one per study kind made from notes (``cognivault.study.kinds``).
"""

from __future__ import annotations

import difflib
import posixpath
import re
from typing import Any

from lsprotocol import types

from cognivault.atomic import atomic_create
from cognivault.lsp import common
from cognivault.lsp.diagnostics import SOURCE, data_of
from cognivault.lsp.model import Document
from cognivault.lsp.server import CogniVaultServer, Context, FeatureError
from cognivault.lsp.uris import vault_uri
from cognivault.study.kinds import NOTE_KINDS, STUDY_KINDS
from cognivault.vault.guard import clean_relative

INSERT_LINK_KIND = "refactor.rewrite.cognivault.link"
RELATED_ACTIONS = 3
ASK_COMMAND = "cognivault.ask"
GENERATE_COMMAND = "cognivault.generate"
CREATE_NOTE_COMMAND = "cognivault.createNote"
_UNSAFE_NAME = re.compile(r'[\\:*?"<>|\[\]#^]')


def note_path_for(target: str) -> str | None:
    """Where a note created for ``[[target]]`` goes: the path as written, else the vault root."""
    name = target.strip().strip("/")
    if not name or _UNSAFE_NAME.search(name) or any(part in ("", ".", "..") for part in name.split("/")):
        return None
    if not name.lower().endswith((".md", ".markdown")):
        name += ".md"
    return name


def _wants(only: list[str] | None, kind: str) -> bool:
    return not only or any(kind == k or kind.startswith(k + ".") for k in only)


def _workspace_edit(ctx: Context, changes: list[Any], plain: dict[str, list[types.TextEdit]]) -> types.WorkspaceEdit:
    if ctx.capability("workspace.workspace_edit.document_changes", False):
        return types.WorkspaceEdit(document_changes=changes)
    return types.WorkspaceEdit(changes=plain)


def _text_edit(ctx: Context, path: str | None, uri: str, edits: list[types.TextEdit]) -> types.TextDocumentEdit:
    doc = ctx.view.open_docs.get(path) if path else None
    return types.TextDocumentEdit(
        text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=doc.version if doc else None),
        edits=edits)


def code_actions(ctx: Context, doc: Document, range_: types.Range,
                 context: types.CodeActionContext) -> list[types.CodeAction]:
    only = [str(getattr(k, "value", k)) for k in (context.only or [])] or None
    actions: list[types.CodeAction] = []
    if _wants(only, types.CodeActionKind.QuickFix.value):
        for diagnostic in context.diagnostics:
            if diagnostic.source != SOURCE:
                continue
            actions.extend(_fixes(ctx, doc, diagnostic))
    if _wants(only, INSERT_LINK_KIND):
        actions.extend(_related_links(ctx, doc, range_))
    if _wants(only, "source.cognivault"):
        actions.extend(_study_actions(ctx, doc, range_))
    return actions


# -- quick fixes ---------------------------------------------------------------------
def _fixes(ctx: Context, doc: Document, diagnostic: types.Diagnostic) -> list[types.CodeAction]:
    data = data_of(diagnostic)
    kind = data.get("kind")
    if kind == "citation-changed":
        from cognivault.lsp import citations

        action = citations.mark_reviewed(ctx, doc, diagnostic, data)
        return [action] if action is not None else []
    line, start = ctx.codec.offset(doc.lines, diagnostic.range.start)
    link = common.link_at(doc, line, start)
    if link is None:
        return []
    if kind == "unresolved-note":
        action = _create_note(ctx, doc, link.target)
        if action is not None:
            action.diagnostics = [diagnostic]
            return [action]
        return []
    target = common.resolve(ctx, doc.path, link, doc)
    if target.path is None and link.target:
        return []
    note = target.note
    actions: list[types.CodeAction] = []
    line_text = doc.lines[line]
    if kind == "missing-heading" and note is not None and link.heading:
        span = common.heading_span(line_text, link)
        texts = [h.text for h in note.headings]
        for best in difflib.get_close_matches(link.heading.rsplit("#", 1)[-1], texts, n=2, cutoff=0.4):
            if span is not None:
                edit = types.TextEdit(range=ctx.codec.range(doc.lines, line, span[0], span[1]), new_text=best)
                actions.append(types.CodeAction(
                    title=f"Change to heading '{best}'", kind=types.CodeActionKind.QuickFix,
                    diagnostics=[diagnostic], is_preferred=not actions,
                    edit=_workspace_edit(ctx, [_text_edit(ctx, doc.path, doc.uri, [edit])], {doc.uri: [edit]})))
        if target.path is not None:
            target_doc = doc if target.path == doc.path else ctx.view.document(target.path)
            if target_doc is not None:
                last = len(target_doc.lines) - 1
                end_text = target_doc.lines[last] if target_doc.lines else ""
                prefix = "\n" if end_text.strip() else ""
                heading = link.heading.rsplit("#", 1)[-1].strip()
                edit = types.TextEdit(range=ctx.codec.range(target_doc.lines, last, len(end_text), len(end_text)),
                                      new_text=f"{prefix}\n## {heading}\n")
                uri = ctx.view.uri(target.path)
                actions.append(types.CodeAction(
                    title=f"Add heading '{heading}' to {ctx.view.title(target.path)}",
                    kind=types.CodeActionKind.QuickFix, diagnostics=[diagnostic],
                    edit=_workspace_edit(ctx, [_text_edit(ctx, target.path, uri, [edit])], {uri: [edit]})))
    if kind == "missing-block" and note is not None and link.block:
        ids = [b.id for b in note.blocks]
        raw = line_text[link.start_col:link.end_col]
        marker = raw.find("#^")
        candidates = difflib.get_close_matches(link.block, ids, n=2, cutoff=0.3) or (ids if len(ids) <= 3 else [])
        for best in candidates:
            if marker == -1:
                break
            begin = link.start_col + marker + 2
            edit = types.TextEdit(range=ctx.codec.range(doc.lines, line, begin, begin + len(link.block)),
                                  new_text=best)
            actions.append(types.CodeAction(
                title=f"Change to block '^{best}'", kind=types.CodeActionKind.QuickFix,
                diagnostics=[diagnostic], is_preferred=not actions,
                edit=_workspace_edit(ctx, [_text_edit(ctx, doc.path, doc.uri, [edit])], {doc.uri: [edit]})))
    return actions


def _create_note(ctx: Context, doc: Document, target: str) -> types.CodeAction | None:
    path = note_path_for(target)
    if path is None:
        return None
    if ctx.view.exists(path):
        return None
    title = posixpath.basename(path).rsplit(".", 1)[0]
    uri = vault_uri(ctx.vault, path)
    content = f"# {title}\n\n"
    operations = ctx.capability("workspace.workspace_edit.resource_operations", []) or []
    can_create = ctx.capability("workspace.workspace_edit.document_changes", False) and any(
        getattr(op, "value", op) == "create" for op in operations)
    if can_create:
        edit = types.WorkspaceEdit(document_changes=[
            types.CreateFile(uri=uri, options=types.CreateFileOptions(ignore_if_exists=True)),
            types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=None),
                edits=[types.TextEdit(range=types.Range(start=types.Position(line=0, character=0),
                                                        end=types.Position(line=0, character=0)),
                                      new_text=content)])])
        return types.CodeAction(title=f"Create note '{path}'", kind=types.CodeActionKind.QuickFix,
                                is_preferred=True, edit=edit)
    return types.CodeAction(title=f"Create note '{path}'", kind=types.CodeActionKind.QuickFix, is_preferred=True,
                            command=types.Command(title="Create note", command=CREATE_NOTE_COMMAND,
                                                  arguments=[{"path": path, "content": content}]))


def create_note(ctx: Context, args: dict[str, Any]) -> dict[str, Any]:
    """``cognivault.createNote``: write a new note (for clients that cannot create files in an edit)."""
    raw = args.get("path", "")
    clean_relative(raw, "path")  # absolute, ~/, .. (also percent-encoded as %2e%2e): refused, not made a folder
    path = note_path_for(str(raw))
    if path is None:
        raise FeatureError("not a valid note name")
    absolute = (ctx.vault / path).resolve()
    if not absolute.is_relative_to(ctx.vault.resolve()):
        raise FeatureError("the note must be inside the vault")
    content = args.get("content")
    text = content if isinstance(content, str) else f"# {absolute.stem}\n"
    if atomic_create([absolute], text.encode("utf-8")) is None:
        raise FeatureError(f"{path} exists already")
    return {"uri": vault_uri(ctx.vault, path), "path": path}


# -- related links ---------------------------------------------------------------------
def _related_links(ctx: Context, doc: Document, range_: types.Range) -> list[types.CodeAction]:
    if doc.path is None or ctx.view.kind(doc.path) is None:
        return []
    from cognivault.lsp.custom import related_notes

    try:
        found = related_notes(ctx, doc.path, k=RELATED_ACTIONS * 3)
    except Exception:  # noqa: BLE001 - a note not indexed yet has no neighbours
        return []
    linked = {ctx.view.resolve(link.target, doc.path) for link in doc.note.links}
    actions = []
    for note in found:
        if note.path in linked or note.path == doc.path:
            continue
        name = ctx.view.link_name(note.path, doc.path)
        edit = types.TextEdit(range=types.Range(start=range_.start, end=range_.start), new_text=f"[[{name}]]")
        reasons = "; ".join(note.reasons[:2])
        actions.append(types.CodeAction(
            title=f"Insert link to related note: {note.title}" + (f" ({reasons})" if reasons else ""),
            kind=INSERT_LINK_KIND,
            edit=_workspace_edit(ctx, [_text_edit(ctx, doc.path, doc.uri, [edit])], {doc.uri: [edit]})))
        if len(actions) >= RELATED_ACTIONS:
            break
    return actions


# -- answer and study ------------------------------------------------------------------------
def _selection(doc: Document, ctx: Context, range_: types.Range) -> str:
    start_line, start = ctx.codec.offset(doc.lines, range_.start)
    end_line, end = ctx.codec.offset(doc.lines, range_.end)
    if (start_line, start) == (end_line, end):
        return ""
    if start_line == end_line:
        return doc.lines[start_line][start:end]
    parts = [doc.lines[start_line][start:], *doc.lines[start_line + 1:end_line], doc.lines[end_line][:end]]
    return "\n".join(parts)


def _study_actions(ctx: Context, doc: Document, range_: types.Range) -> list[types.CodeAction]:
    actions = []
    selection = _selection(doc, ctx, range_).strip()
    if selection:
        actions.append(types.CodeAction(
            title="Ask CogniVault about this selection", kind="source.cognivault.ask",
            command=types.Command(title="Ask about this selection", command=ASK_COMMAND,
                                  arguments=[{"uri": doc.uri, "question": selection[:2000]}])))
    what = "this selection" if selection else "this note"
    for kind in NOTE_KINDS:
        label = STUDY_KINDS[kind].label
        actions.append(types.CodeAction(
            title=f"Generate {label} from {what}", kind=f"source.cognivault.generate.{kind}",
            command=types.Command(title=f"Generate {label}", command=GENERATE_COMMAND,
                                  arguments=[{"uri": doc.uri, "kind": kind, "path": doc.path,
                                              "selection": selection or None}])))
    return actions


def ask(ctx: Context, args: dict[str, Any]) -> dict[str, Any]:
    """``cognivault.ask``: an extractive answer (no model needed) with its sources."""
    from cognivault.answer.extractive import answer_extractively

    question = args.get("question")
    if not isinstance(question, str) or not question.strip():
        raise FeatureError("question: a non-empty string is required")
    answer = answer_extractively(ctx.engine, question.strip())
    data = answer.to_dict()
    data["sources"] = [{"label": c.label, "uri": ctx.view.uri(c.path), "path": c.path,
                        "lines": [c.line_start, c.line_end], "heading": " > ".join(c.heading_path)}
                       for c in answer.citations if c.label in answer.cited]
    return data


def _args(arguments: Any) -> dict[str, Any]:
    if isinstance(arguments, (list, tuple)) and arguments:
        arguments = arguments[0]
    if isinstance(arguments, dict):
        return arguments
    if arguments is not None and hasattr(arguments, "_asdict"):
        return dict(arguments._asdict())
    raise FeatureError("expected one object argument")


def register(server: CogniVaultServer) -> None:
    kinds: list[Any] = [types.CodeActionKind.QuickFix, INSERT_LINK_KIND, "source.cognivault"]

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(code_action_kinds=kinds))
    async def on_code_action(ls: CogniVaultServer, params: types.CodeActionParams):
        return await ls.run_feature(code_actions, params.text_document.uri, params.range, params.context)

    @server.command(CREATE_NOTE_COMMAND)
    async def on_create_note(ls: CogniVaultServer, *arguments: Any) -> Any:
        result = await ls.run_feature(create_note, None, _args(list(arguments)))
        ls.live.schedule_update(result["path"], delay_ms=0)
        if ls.capability("window.show_document.support", False):
            ls.live.spawn(ls.window_show_document_async(types.ShowDocumentParams(uri=result["uri"], take_focus=True)))
        return result

    @server.command(GENERATE_COMMAND)
    async def on_generate(ls: CogniVaultServer, *arguments: Any) -> Any:
        from cognivault.lsp.study import generate_note

        return await generate_note(ls, _args(list(arguments)))

    @server.command(ASK_COMMAND)
    async def on_ask(ls: CogniVaultServer, *arguments: Any) -> Any:
        from cognivault.lsp.study import answered

        result = await ls.run_feature(ask, None, _args(list(arguments)))
        await answered(ls, result)
        lines = [result["text"]]
        for source in result.get("sources", []):
            lines.append(f"[{source['label']}] {source['path']}:{source['lines'][0]}-{source['lines'][1]}")
        ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Info, message="\n".join(lines)))
        return result
