"""``workspace/symbol``: notes and headings by name and by meaning, fast enough to type through.

Two rankings are fused (reciprocal rank fusion): names (note titles, file
names, aliases and headings matched as prefix, word prefix, substring or
subsequence) and the vault search (hybrid with an embedding model, keywords
otherwise) whose passages map to their note or heading. Ranges cover whole
lines, so no file needs reading to convert columns.
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from cognivault.lsp.server import CogniVaultServer, Context

MAX_RESULTS = 100
SEARCH_DEPTH = 30
MIN_SEARCH_CHARS = 3
RRF_K = 20



def _name_score(query: str, name: str) -> float:
    """Higher is better; 0 means no match."""
    if not query:
        return 0.1
    folded = name.casefold()
    if folded == query:
        return 5.0
    if folded.startswith(query):
        return 4.0 + len(query) / max(len(folded), 1)
    words = folded.split()
    if any(word.startswith(query) for word in words):
        return 3.0
    if query in folded:
        return 2.0
    position = 0
    for char in folded:
        if position < len(query) and char == query[position]:
            position += 1
    if position == len(query) and len(query) >= 2:
        return 1.0
    return 0.0


def _whole_line(line: int) -> types.Range:
    return types.Range(start=types.Position(line=line, character=0), end=types.Position(line=line + 1, character=0))


def _best_heading(view: Any, result: Any, note: Any, terms: list[str], line: int) -> int:
    """A passage can span several short sections: the one whose text holds most query words."""
    inside = [h for h in note.headings if result.line_start <= h.line <= result.line_end and h.line != line]
    if not inside or not terms:
        return line
    doc = view.document(result.path)
    if doc is None:
        return line
    headings = list(note.headings)
    best, best_hits = line, -1
    for heading in ([h for h in headings if h.line == line] + inside):
        end = next((h.line - 1 for h in headings if h.line > heading.line), result.line_end)
        text = " ".join(doc.lines[heading.line - 1:min(end, result.line_end)]).casefold()
        hits = sum(text.count(term) for term in terms)
        if hits > best_hits:
            best, best_hits = heading.line, hits
    return best


def workspace_symbols(ctx: Context, query: str) -> list[types.SymbolInformation]:
    view = ctx.view
    wanted = " ".join(query.split()).casefold()
    by_name: list[tuple[float, tuple[str, int]]] = []
    for path in view.note_paths():
        note = view.note(path)
        if note is None:
            continue
        stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        score = max([_name_score(wanted, note.title), _name_score(wanted, stem),
                     *(_name_score(wanted, a) * 0.95 for a in note.aliases)])
        if score > 0:
            by_name.append((score + 0.5, (path, -1)))
        if wanted:
            for heading in note.headings:
                score = _name_score(wanted, heading.text)
                if score > 0:
                    by_name.append((score, (path, heading.line)))
    by_name.sort(key=lambda item: (-item[0], item[1]))
    ranked_names = [key for _, key in by_name[: MAX_RESULTS * 2]]
    ranked_search: list[tuple[str, int]] = []
    if len(wanted) >= MIN_SEARCH_CHARS:
        mode = "hybrid" if ctx.engine.embedder is not None else "lexical"
        try:
            response = ctx.engine.search(query, k=SEARCH_DEPTH, mode=mode)
        except Exception:  # noqa: BLE001 - names alone still answer
            response = None
        terms = [t for t in wanted.split() if len(t) > 2]
        for result in response.results if response is not None else []:
            note = view.note(result.path)
            line = -1
            if note is not None and result.heading_path:
                for heading in note.headings:
                    if tuple(heading.path) == tuple(result.heading_path):
                        line = heading.line
                        break
                line = _best_heading(view, result, note, terms, line)
            key = (result.path, line)
            if key not in ranked_search:
                ranked_search.append(key)
    scores: dict[tuple[str, int], float] = {}
    for ranking, weight in ((ranked_names, 1.0), (ranked_search, 0.8)):
        for rank, key in enumerate(ranking):
            scores[key] = scores.get(key, 0.0) + weight / (RRF_K + rank + 1)
    ordered = sorted(scores, key=lambda key: (-scores[key], key))[:MAX_RESULTS]
    symbols = []
    for path, line in ordered:
        note = view.note(path)
        uri = view.uri(path)
        if line < 0:
            kind = types.SymbolKind.File
            name = note.title if note else path
            container = path
            location = types.Location(uri=uri, range=_whole_line(0))
        else:
            heading = next((h for h in note.headings if h.line == line), None) if note else None
            if heading is None:
                continue
            kind = types.SymbolKind.String
            name = heading.text
            parents = list(heading.path[:-1])
            if note is not None and (not parents or parents[0] != note.title):
                parents.insert(0, note.title)
            container = " > ".join(parents) or path
            location = types.Location(uri=uri, range=_whole_line(line - 1))
        symbols.append(types.SymbolInformation(name=name, kind=kind, location=location, container_name=container))
    return symbols


def register(server: CogniVaultServer) -> None:
    @server.feature(types.WORKSPACE_SYMBOL)
    async def on_symbol(ls: CogniVaultServer, params: types.WorkspaceSymbolParams) -> Any:
        return await ls.run_feature(workspace_symbols, None, params.query or "")
