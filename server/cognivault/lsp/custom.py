"""CogniVault's own requests: ``cognivault/search``, ``cognivault/related``, ``cognivault/status``.

``cognivault/search`` ``{query, scope?, k?, mode?, perNote?}`` returns
``{query, mode, language, notes, elapsedMs, results: [{uri, path, title,
range, headingPath, snippet, highlights, score, chunkId, locator}]}``.
``scope`` is a list of filters as on the command line (``["folder:Biology",
"tag:exam"]``) or an object ``{folders, tags, files, properties}``. The request is checked by
``cognivault.search_request.SearchRequest`` (``k`` from 1 to 200), as the companion's search is.

``cognivault/related`` ``{uri, k?, includeLinked?}`` returns ``{uri, related:
[{uri, path, title, score, reasons, why}]}`` where ``why`` names the kinds of
evidence: ``semantic``, ``keywords``, ``linked``, ``shared tags``. Generated
study notes are left out. A note the index does not have yet (the first pass
has not reached it, it was just generated) is answered from its buffer or file
(key words and links) with ``noteIndexed: false``, never with an error.

Both answers carry ``indexing: {done, total}`` while an index pass runs (files
read, then passages embedded): results may be missing meanwhile.

``cognivault/status`` returns the index state (phase, per-stage progress of
the running pass, last summary), the embedding provider, counts per file
state, the failures with their reasons, and the server's own state.

``cognivault/reindex`` starts an incremental pass over the whole vault.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from cognivault.errors import is_text
from cognivault.lsp.server import CogniVaultServer, Context, FeatureError
from cognivault.lsp.uris import relative_path
from cognivault.search_request import MAX_K, SearchRequest

SEARCH = "cognivault/search"
RELATED = "cognivault/related"
STATUS = "cognivault/status"
REINDEX = "cognivault/reindex"

_related_cache: OrderedDict[tuple[Any, ...], list[Any]] = OrderedDict()
_related_lock = threading.Lock()


def to_plain(value: Any) -> Any:
    """pygls hands custom params over as namedtuples: back to dicts and lists. A string holding a lone
    surrogate (``"\\ud800"`` in the JSON) is no text: invalid params, before any feature sees it."""
    if isinstance(value, str):
        if not is_text(value):
            raise JsonRpcInvalidParams(message="params hold a string with an unpaired surrogate "
                                               "(\\ud800-\\udfff), which is not text")
        return value
    if hasattr(value, "_asdict"):
        return {k: to_plain(v) for k, v in value._asdict().items()}
    if isinstance(value, dict):
        return {k: to_plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_plain(v) for v in value]
    return value


def _get(params: Any, name: str, default: Any = None) -> Any:
    if isinstance(params, dict):
        return params.get(name, default)
    return getattr(params, name, default)


def result_range(ctx: Context, path: str, line_start: int, line_end: int) -> types.Range:
    if line_start <= 0:
        return types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0))
    doc = ctx.view.document(path) if ctx.view.kind(path) == "markdown" else None
    lines = doc.lines if doc is not None else []
    return ctx.codec.line_range(lines, line_start - 1, max(line_end, line_start) - 1)


def search(ctx: Context, params: Any) -> dict[str, Any]:
    scope = _get(params, "scope")
    request = SearchRequest.build(ctx.vault, _get(params, "query"), k=_get(params, "k", ctx.options.search_k),
                                  mode=_get(params, "mode", ctx.options.search_mode),
                                  scope=ctx.options.search_scope if scope is None else scope,
                                  per_note=_get(params, "perNote", False))
    response = request.run(ctx.engine)
    results = []
    for result in response.results:
        results.append({
            "uri": ctx.view.uri(result.path), "path": result.path, "title": result.title,
            "range": _range_dict(result_range(ctx, result.path, result.line_start, result.line_end)),
            "headingPath": list(result.heading_path), "snippet": result.snippet,
            "highlights": [list(h) for h in result.highlights], "score": result.score,
            "chunkId": result.chunk_id, "locator": result.locator,
            "lexicalRank": result.lexical_rank, "denseRank": result.dense_rank})
    answer: dict[str, Any] = {"query": response.query, "mode": response.mode, "language": response.language,
              "notes": list(response.notes), "elapsedMs": round(response.elapsed_ms, 2), "results": results}
    if response.indexing is not None:
        answer["indexing"] = response.indexing
    return answer


def _range_dict(range_: types.Range) -> dict[str, Any]:
    return {"start": {"line": range_.start.line, "character": range_.start.character},
            "end": {"line": range_.end.line, "character": range_.end.character}}


def why(reasons: list[str]) -> list[str]:
    kinds = []
    for reason in reasons:
        if reason.startswith("similar in meaning"):
            kind = "semantic"
        elif reason.startswith("shares key words"):
            kind = "keywords"
        elif reason.startswith(("links here", "linked from")):
            kind = "linked"
        elif reason.startswith("shared tags"):
            kind = "shared tags"
        else:
            kind = reason
        if kind not in kinds:
            kinds.append(kind)
    return kinds


def related_notes(ctx: Context, path: str, k: int = 10, include_linked: bool = False) -> list[Any]:
    """Notes related to ``path`` (``Engine.related_to``), cached per catalog generation.

    The link graph and tags come from the server's snapshot, where links are already resolved
    for this generation.
    """
    if path not in ctx.view.snapshot.files:
        return _related_unindexed(ctx, path, k, include_linked)
    key = (str(ctx.vault), path, k, include_linked, ctx.view.snapshot.generation)
    with _related_lock:
        if key in _related_cache:
            _related_cache.move_to_end(key)
            return _related_cache[key]
    found = _related(ctx, path, k, include_linked)
    with _related_lock:
        _related_cache[key] = found
        while len(_related_cache) > 128:
            _related_cache.popitem(last=False)
    return found


def _related(ctx: Context, path: str, k: int, include_linked: bool) -> list[Any]:
    from dataclasses import replace

    from cognivault.engine import NoteNeighbours

    view = ctx.view
    snapshot = view.snapshot
    note = snapshot.notes.get(path)
    resolved = snapshot.resolved()
    neighbours = NoteNeighbours(
        outgoing=frozenset(target for link in snapshot.links.get(path, [])
                           if (target := resolved.get(link)) is not None and target != path),
        incoming=frozenset(link.src for link in snapshot.backlinks().get(path, []) if link.src != path),
        tags=frozenset(t.casefold() for t in (note.tags if note else ())),
        keywords=" ".join([note.title] + [h.text for h in note.headings]) if note else "",
        tags_of=lambda other: other_note.tags if (other_note := snapshot.notes.get(other)) else ())
    found = ctx.engine.related_to(path, neighbours, k, include_linked)
    return [replace(item, title=view.title(item.path)) for item in found]


def _related_unindexed(ctx: Context, path: str, k: int, include_linked: bool) -> list[Any]:
    """Related notes of a note the index does not have yet, from its buffer or file (none when
    there is neither): its key words and links, no vector."""
    doc = ctx.view.document(path) if path.lower().endswith((".md", ".markdown")) else None
    if doc is None:
        return []
    return ctx.engine.related_to(path, ctx.engine.neighbours_of_text(path, doc.text), k, include_linked)


def related(ctx: Context, params: Any) -> dict[str, Any]:
    uri = _get(params, "uri")
    if not isinstance(uri, str):
        raise FeatureError("uri: the note's URI is required")
    path = relative_path(ctx.vault, uri)
    if path is None:
        raise FeatureError(f"{uri} is not in the vault")
    k = _get(params, "k", 10)
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
        raise FeatureError(f"k: expected an integer from 1 to {MAX_K}")
    found = related_notes(ctx, path, k, bool(_get(params, "includeLinked", False)))
    answer: dict[str, Any] = {"uri": uri, "path": path, "related": [
        {"uri": ctx.view.uri(note.path), "path": note.path, "title": note.title, "score": note.score,
         "reasons": list(note.reasons), "why": why(note.reasons)} for note in found]}
    if path not in ctx.view.snapshot.files:
        answer["noteIndexed"] = False
    progress = ctx.engine.indexing()
    if progress is not None:
        answer["indexing"] = progress
    return answer


def engine_status(ctx: Context) -> dict[str, Any]:
    status = ctx.engine.status(per_file=True)
    per_file = status.pop("per_file", [])
    status["failures"] = [row for row in per_file if row["state"] in ("failed", "skipped")]
    return status


def register(server: CogniVaultServer) -> None:
    @server.feature(SEARCH)
    async def on_search(ls: CogniVaultServer, params: Any) -> Any:
        params = to_plain(params)
        _require_object(params)
        return await ls.run_feature(search, None, params)

    @server.feature(RELATED)
    async def on_related(ls: CogniVaultServer, params: Any) -> Any:
        params = to_plain(params)
        _require_object(params)
        return await ls.run_feature(related, None, params)

    @server.feature(STATUS)
    async def on_status(ls: CogniVaultServer, params: Any) -> Any:
        state = ls.state.to_dict()
        state["writerIdle"] = ls.live.writer_idle
        state["updatesIdle"] = ls.live.updates_idle
        answer: dict[str, Any] = {
            "vault": str(ls.vault) if ls.vault else None,
            "indexing": state,
            "provider": {"embeddings": getattr(getattr(ls.engine, "embedder", None), "model_id", None),
                         "note": ls.embedding_note},
            "server": {"version": ls.version, "positionEncoding": ls.codec.encoding,
                       "openDocuments": len(ls.open_texts()), "unsavedDocuments": ls.live.unsaved_paths(),
                       "features": [name.rsplit(".", 1)[-1] for name in ls.feature_modules]},
            "error": ls.engine_error,
        }
        if ls.engine is not None:
            answer["index"] = await ls.run_feature(engine_status, None)
        return answer

    @server.feature(REINDEX)
    async def on_reindex(ls: CogniVaultServer, params: Any) -> Any:
        await ls.wait_engine()
        ls.live.spawn(ls.live.index_vault())
        return {"started": True}


def _require_object(params: Any) -> None:
    if not isinstance(params, dict):
        raise JsonRpcInvalidParams(message="params must be an object")
