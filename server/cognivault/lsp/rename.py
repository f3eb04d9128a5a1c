"""``textDocument/prepareRename`` + ``textDocument/rename`` (and ``workspace/willRenameFiles``).

- On a heading: rename the heading and every ``[[Note#Heading]]`` (and
  ``[[#Heading]]``) pointing at it.
- On a link's note name: rename that note's file and every link to it; links
  written through an alias stay as they are (the alias still resolves).
- On a link's heading part: rename that heading in the target note.
- A file renamed in the editor's explorer (``workspace/willRenameFiles``) gets
  its links updated the same way.

Everything is one ``WorkspaceEdit``: text edits first (on the old URIs), then
the ``RenameFile``. Links keep their style: a bare name stays a bare name, a
path stays a path, a Markdown link keeps its relative, percent-encoded form.
"""

from __future__ import annotations

import posixpath
import re
from collections import defaultdict
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, unquote

from lsprotocol import types

from cognivault.graph import HeadingInfo, LinkRef, find_heading
from cognivault.lsp import common
from cognivault.lsp.model import Document
from cognivault.lsp.server import CogniVaultServer, Context, FeatureError
from cognivault.lsp.uris import relative_path, vault_uri

_BAD_NOTE_NAME = re.compile(r'[\\:*?"<>|\[\]#^]')
_BAD_HEADING = re.compile(r"[\[\]|^#\n]")


@dataclass(slots=True)
class Subject:
    kind: str  # note | heading
    path: str  # the note renamed, or holding the heading
    range: types.Range  # what the client highlights
    placeholder: str
    heading: HeadingInfo | None = None


def _subject(ctx: Context, doc: Document, position: types.Position) -> Subject:
    line, column = common.cursor(ctx, doc, position)
    text = doc.lines[line] if line < len(doc.lines) else ""
    link = common.link_at(doc, line, column)
    if link is not None:
        heading_span = common.heading_span(text, link)
        if heading_span is not None and heading_span[0] <= column <= heading_span[1]:
            target = common.resolve(ctx, doc.path, link, doc)
            if target.heading is None or (target.path is None and doc.path is None):
                raise FeatureError(f"there is no heading '{link.heading}' to rename")
            return Subject("heading", target.path or doc.path or "",
                           ctx.codec.range(doc.lines, line, *heading_span), target.heading.text, target.heading)
        span = common.target_span(text, link)
        if span is None or not link.target:
            raise FeatureError("put the cursor on the note name or heading of the link")
        target = common.resolve(ctx, doc.path, link, doc)
        if target.path is None:
            raise FeatureError(f"'{link.target}' does not exist yet: nothing to rename")
        if ctx.view.kind(target.path) != "markdown":
            raise FeatureError("only notes and headings can be renamed here")
        written = text[span[0]:span[1]]
        return Subject("note", target.path, ctx.codec.range(doc.lines, line, *span),
                       unquote(written).rsplit("/", 1)[-1].removesuffix(".md"))
    heading = common.heading_at(doc, line)
    if heading is not None and doc.path is not None:
        start = text.find(heading.text) if heading.text else -1
        if start < 0:
            raise FeatureError("this heading cannot be renamed")
        info = HeadingInfo(heading.level, heading.text, heading.line, tuple(heading.path))
        return Subject("heading", doc.path, ctx.codec.range(doc.lines, line, start, start + len(heading.text)),
                       heading.text, info)
    raise FeatureError("rename works on a heading, or on a link to the note or heading to rename")


def prepare_rename(ctx: Context, doc: Document, position: types.Position) -> types.PrepareRenamePlaceholder:
    subject = _subject(ctx, doc, position)
    return types.PrepareRenamePlaceholder(range=subject.range, placeholder=subject.placeholder)


def rename(ctx: Context, doc: Document, position: types.Position, new_name: str) -> types.WorkspaceEdit:
    subject = _subject(ctx, doc, position)
    if subject.kind == "heading":
        assert subject.heading is not None
        return heading_rename_edit(ctx, subject.path, subject.heading, new_name)
    return note_rename_edit(ctx, subject.path, new_path_for(subject.path, new_name))


def new_path_for(old_path: str, new_name: str) -> str:
    name = new_name.strip().strip("/")
    if name.lower().endswith(".md"):
        name = name[:-3]
    if not name or _BAD_NOTE_NAME.search(name) or any(p in ("", ".", "..") for p in name.split("/")):
        raise FeatureError(f"'{new_name}' is not a valid note name")
    suffix = posixpath.splitext(old_path)[1] or ".md"
    if "/" in name:
        return name + suffix
    folder = posixpath.dirname(old_path)
    return posixpath.join(folder, name + suffix) if folder else name + suffix


# -- edits ----------------------------------------------------------------------------
class _Edits:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.by_path: dict[str, list[types.TextEdit]] = defaultdict(list)

    def add(self, path: str, doc: Document, line: int, start: int, end: int, text: str) -> None:
        self.by_path[path].append(types.TextEdit(range=self.ctx.codec.range(doc.lines, line, start, end),
                                                 new_text=text))

    def workspace_edit(self, rename: tuple[str, str] | None = None) -> types.WorkspaceEdit:
        ctx = self.ctx
        if ctx.capability("workspace.workspace_edit.document_changes", False):
            changes: list[Any] = []
            for path in sorted(self.by_path):
                doc = ctx.view.open_docs.get(path)
                changes.append(types.TextDocumentEdit(
                    text_document=types.OptionalVersionedTextDocumentIdentifier(
                        uri=ctx.view.uri(path), version=doc.version if doc else None),
                    edits=self.by_path[path]))
            if rename is not None:
                operations = ctx.capability("workspace.workspace_edit.resource_operations", []) or []
                if not any(getattr(op, "value", op) == "rename" for op in operations):
                    raise FeatureError("this editor cannot rename files through the language server")
                changes.append(types.RenameFile(old_uri=ctx.view.uri(rename[0]),
                                                new_uri=vault_uri(ctx.vault, rename[1]),
                                                options=types.RenameFileOptions(overwrite=False)))
            return types.WorkspaceEdit(document_changes=changes)
        if rename is not None:
            raise FeatureError("this editor cannot rename files through the language server")
        return types.WorkspaceEdit(changes={ctx.view.uri(p): e for p, e in self.by_path.items()})


def _links_to(ctx: Context, path: str) -> list[LinkRef]:
    return ctx.view.backlinks(path)


def heading_rename_edit(ctx: Context, path: str, heading: HeadingInfo, new_text: str) -> types.WorkspaceEdit:
    new_text = " ".join(new_text.split())
    if not new_text or _BAD_HEADING.search(new_text):
        raise FeatureError(f"'{new_text}' cannot be a heading that links reach ([, ], |, ^ and # are not allowed)")
    edits = _Edits(ctx)
    note_doc = ctx.view.document(path)
    if note_doc is None:
        raise FeatureError(f"cannot read {path}")
    text = note_doc.lines[heading.line - 1]
    start = text.find(heading.text)
    if start < 0:
        raise FeatureError("the heading moved; try again")
    edits.add(path, note_doc, heading.line - 1, start, start + len(heading.text), new_text)
    note = ctx.view.note(path)
    for link in _links_to(ctx, path):
        if not link.heading or note is None or find_heading(note.headings, link.heading) != heading:
            continue
        source = ctx.view.document(link.src)
        if source is None:
            continue
        line_text = source.lines[link.line - 1]
        span = common.heading_span(line_text, link)
        if span is None:
            span = _markdown_fragment_span(line_text, link)
            if span is None:
                continue
            encode = "%" in line_text[span[0]:span[1]] or " " in new_text
            edits.add(link.src, source, link.line - 1, span[0], span[1],
                      quote(new_text, safe="") if encode else new_text)
            continue
        written = line_text[span[0]:span[1]]
        if "#" in written:  # nested "A#B": the last part names the heading
            keep = written.rsplit("#", 1)[0] + "#"
            edits.add(link.src, source, link.line - 1, span[0] + len(keep), span[1], new_text)
        else:
            edits.add(link.src, source, link.line - 1, span[0], span[1], new_text)
    return edits.workspace_edit()


def _markdown_fragment_span(line_text: str, link: LinkRef) -> tuple[int, int] | None:
    raw = line_text[link.start_col:link.end_col]
    hash_index = raw.rfind("#")
    close = raw.rfind(")")
    if raw.startswith("[[") or hash_index == -1 or close < hash_index:
        return None
    return link.start_col + hash_index + 1, link.start_col + close


def note_rename_edit(ctx: Context, old_path: str, new_path: str) -> types.WorkspaceEdit:
    if new_path == old_path:
        raise FeatureError("the new name is the current name")
    if ctx.view.exists(new_path) and new_path.casefold() != old_path.casefold():
        raise FeatureError(f"{new_path} exists already")
    old_stem = old_path.rsplit(".", 1)[0]
    new_stem = new_path.rsplit(".", 1)[0]
    old_name = old_stem.rsplit("/", 1)[-1]
    new_name = new_stem.rsplit("/", 1)[-1]
    note = ctx.view.note(old_path)
    aliases = {a.casefold() for a in (note.aliases if note else ())}
    # Would the bare new name resolve elsewhere (another note with that name)? Then links use the path.
    clash = any(p != old_path and p.rsplit("/", 1)[-1].rsplit(".", 1)[0].casefold() == new_name.casefold()
                for p in ctx.view.note_paths())
    edits = _Edits(ctx)
    for link in _links_to(ctx, old_path):
        if not link.target:
            continue  # [[#Heading]] inside the note itself
        written_key = link.target.strip().removesuffix(".md").casefold()
        if written_key in aliases and written_key != old_name.casefold() and not written_key.endswith(
                "/" + old_name.casefold()):
            continue  # written through an alias: still resolves
        source = ctx.view.document(link.src)
        if source is None:
            continue
        line_text = source.lines[link.line - 1]
        span = common.target_span(line_text, link)
        if span is None:
            continue
        written = line_text[span[0]:span[1]]
        if line_text[link.start_col:].lstrip("!").startswith("[["):
            replacement = new_stem if ("/" in written or clash) else new_name
        else:
            replacement = _markdown_destination(written, link.src, old_path, new_path)
        edits.add(link.src, source, link.line - 1, span[0], span[1], replacement)
    return edits.workspace_edit(rename=(old_path, new_path))


def _markdown_destination(written: str, source: str, old_path: str, new_path: str) -> str:
    """The new destination of ``[label](written)``: relative stays relative, vault paths stay vault paths."""
    encoded = "%" in written
    plain = unquote(written)
    has_suffix = plain.lower().endswith(".md")
    candidate = plain if has_suffix else plain + ".md"
    folder = posixpath.dirname(source)
    relative = None if candidate.startswith("/") else posixpath.normpath(posixpath.join(folder, candidate))
    if folder and relative == old_path:
        target = posixpath.relpath(new_path, folder)
    else:
        target = ("/" if plain.startswith("/") else "") + new_path
    if not has_suffix:
        target = target.removesuffix(".md")
    return quote(target) if encoded or " " in target else target


def will_rename_files(ctx: Context, files: list[types.FileRename]) -> types.WorkspaceEdit | None:
    """Links to notes renamed or moved in the editor's file explorer."""
    merged = _Edits(ctx)
    for item in files:
        old_path = relative_path(ctx.vault, item.old_uri)
        new_path = relative_path(ctx.vault, item.new_uri)
        if old_path is None or new_path is None or ctx.view.kind(old_path) != "markdown":
            continue
        try:
            edit = note_rename_edit(ctx, old_path, new_path)
        except FeatureError:
            continue
        for change in edit.document_changes or []:
            if isinstance(change, types.TextDocumentEdit):
                path = relative_path(ctx.vault, change.text_document.uri)
                if path is not None:
                    merged.by_path[path].extend(change.edits)  # type: ignore[arg-type]
        for uri, text_edits in (edit.changes or {}).items():
            path = relative_path(ctx.vault, uri)
            if path is not None:
                merged.by_path[path].extend(text_edits)
    if not merged.by_path:
        return None
    return merged.workspace_edit()


def register(server: CogniVaultServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_PREPARE_RENAME)
    async def on_prepare(ls: CogniVaultServer, params: types.PrepareRenameParams):
        return await ls.run_feature(prepare_rename, params.text_document.uri, params.position)

    @server.feature(types.TEXT_DOCUMENT_RENAME, types.RenameOptions(prepare_provider=True))
    async def on_rename(ls: CogniVaultServer, params: types.RenameParams):
        return await ls.run_feature(rename, params.text_document.uri, params.position, params.new_name)

    @server.feature(types.WORKSPACE_WILL_RENAME_FILES, types.FileOperationRegistrationOptions(filters=[
        types.FileOperationFilter(pattern=types.FileOperationPattern(glob="**/*.{md,markdown}"))]))
    async def on_will_rename(ls: CogniVaultServer, params: types.RenameFilesParams):
        return await ls.run_feature(will_rename_files, None, list(params.files))
