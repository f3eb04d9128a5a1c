"""``workspace/symbol``: notes and headings by name and by meaning, fast enough to type through.

Two rankings are fused (reciprocal rank fusion): names (note titles, file
names, aliases and headings matched as prefix, word prefix, substring or
subsequence) and the vault search (hybrid with an embedding model, keywords
otherwise) whose passages map to their note or heading. Ranges cover whole
lines, so no file needs reading to convert columns.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import Any

from lsprotocol import types

from cognivault.graph import insert_sorted
from cognivault.lsp.server import CogniVaultServer, Context

MAX_RESULTS = 100
SEARCH_DEPTH = 30
MIN_SEARCH_CHARS = 3
RRF_K = 20
SHORT_QUERY = 3
FUZZY_HEADINGS_UP_TO = 20_000
REJOIN_AFTER = 200  # notes edited since the names were joined before they are joined again

Entry = tuple[str, str, int, float]  # case-folded name, path, heading line or -1 for the note, weight



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


def _search(ctx: Context, query: str) -> list[Any]:
    """Passages matching ``query``: hybrid with an embedding model, else BM25 without snippets."""
    try:
        if ctx.engine.embedder is not None:
            return list(ctx.engine.search(query, k=SEARCH_DEPTH, mode="hybrid").results)
        from cognivault.lsp.common import keyword_hits

        ids = [chunk for chunk, _path, _score in keyword_hits(ctx, query, SEARCH_DEPTH)]
        records = ctx.engine.store.reader().chunks(ids)
        return [records[i] for i in ids if i in records]
    except Exception:  # noqa: BLE001 - names alone still answer
        return []


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


def _entries(ctx: Context) -> list[Entry]:
    """(case-folded name, path, heading line or -1 for the note, weight), once per snapshot."""
    def build(snapshot: Any) -> list[Entry]:
        entries = [e for path, note in snapshot.notes.items() for e in _note_entries(path, note)]
        entries.sort()  # by name: a short query is a prefix range (bisect)
        return entries

    def update(snapshot: Any, earlier: list[Any], changed: frozenset[str]) -> list[Any]:
        entries = [e for e in earlier if e[1] not in changed]
        return insert_sorted(entries, [e for path in changed if path in snapshot.notes
                                       for e in _note_entries(path, snapshot.notes[path])])

    return ctx.view.snapshot.derive("symbols", build, update)


@dataclass(frozen=True, slots=True)
class _Names:
    """All names joined into one text, for ``str.find``; notes edited since it was joined are
    ``stale`` there and their current entries are in ``fresh``, searched one by one."""

    text: str
    starts: list[int]  # where each entry of ``entries`` begins in ``text``
    entries: list[Entry]
    stale: frozenset[str] = frozenset()
    fresh: tuple[Entry, ...] = ()


def _joined(entries: list[Entry]) -> _Names:
    starts, position = [], 0
    for name, *_ in entries:
        starts.append(position)
        position += len(name) + 1
    return _Names("\n".join(name.replace("\n", " ") for name, *_ in entries), starts, entries)


def _names(ctx: Context, entries: list[Entry]) -> _Names:
    """The names of ``entries`` joined for :func:`_containing`, once per snapshot; an edit adds its
    note's entries to search apart, not a new join."""
    def update(snapshot: Any, earlier: list[_Names], changed: frozenset[str]) -> list[_Names]:
        names = earlier[0]
        stale = names.stale | changed
        if len(stale) > REJOIN_AFTER:
            return [_joined(entries)]
        fresh = tuple(e for e in names.fresh if e[1] not in changed)
        fresh += tuple(e for path in changed if path in snapshot.notes
                       for e in _note_entries(path, snapshot.notes[path]))
        return [_Names(names.text, names.starts, names.entries, stale, fresh)]

    return ctx.view.snapshot.derive("symbol-names", lambda _snapshot: [_joined(entries)], update)[0]


def _containing(ctx: Context, entries: list[Entry], wanted: str) -> list[Entry]:
    """The entries whose name holds ``wanted`` (no line breaks), in ``entries``' order, found by
    ``str.find`` over all names joined once (on a large vault a Python loop over every name took
    most of a request)."""
    names = _names(ctx, entries)
    found = [e for e in names.fresh if wanted in e[0]]
    at = names.text.find(wanted)
    while at != -1:
        index = bisect.bisect_right(names.starts, at) - 1
        if names.entries[index][1] not in names.stale:
            found.append(names.entries[index])
        at = names.text.find(wanted, names.starts[index + 1]) if index + 1 < len(names.starts) else -1
    return sorted(found) if names.fresh else found


def _note_entries(path: str, note: Any) -> list[Entry]:
    stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    found = [(note.title.casefold(), path, -1, 1.0)]
    if stem.casefold() != note.title.casefold():
        found.append((stem.casefold(), path, -1, 1.0))
    found.extend((alias.casefold(), path, -1, 0.95) for alias in note.aliases)
    found.extend((heading.text.casefold(), path, heading.line, 0.0) for heading in note.headings)
    return found


def prepare(ctx: Context) -> None:
    """Build this snapshot's symbol indexes ahead of the first request (after the first pass, after
    each edit's re-index)."""
    _names(ctx, _entries(ctx))


def workspace_symbols(ctx: Context, query: str) -> list[types.SymbolInformation]:
    view = ctx.view
    wanted = " ".join(query.split()).casefold()
    entries = indexed = _entries(ctx)
    extra = [e for path, doc in view.open_docs.items() if path not in view.snapshot.notes
             for e in _note_entries(path, doc.info())]  # notes that exist only in a buffer so far
    if extra and len(wanted) >= SHORT_QUERY:
        entries = entries + extra
    if wanted and len(wanted) < SHORT_QUERY:  # one or two letters typed: names starting with them
        start = bisect.bisect_left(entries, (wanted,))
        end = bisect.bisect_left(entries, (wanted + "\U0010ffff",))
        hits = entries[start:end] + [e for e in extra if e[0].startswith(wanted)]
    elif wanted:
        hits = _containing(ctx, indexed, wanted) + [e for e in extra if wanted in e[0]]
        if len(hits) < MAX_RESULTS and len(wanted) >= 2:  # fuzzy: the letters in order
            from cognivault.lsp.completion import fuzzy

            pattern = fuzzy(wanted)
            seen = {(e[1], e[2]) for e in hits}
            every = len(entries) <= FUZZY_HEADINGS_UP_TO  # large vaults: note names only
            hits += [e for e in entries if (every or e[2] < 0) and (e[1], e[2]) not in seen
                     and pattern.search(e[0])]
    else:
        hits = [e for e in entries if e[2] < 0 and e[3] == 1.0]
    best: dict[tuple[str, int], float] = {}
    for folded, path, line, weight in hits:
        score = _name_score(wanted, folded) * (weight or 1.0) + (0.5 if line < 0 else 0.0)
        if score > best.get((path, line), 0.0):
            best[(path, line)] = score
    by_name = sorted(((score, key) for key, score in best.items()), key=lambda item: (-item[0], item[1]))
    ranked_names = [key for _, key in by_name[: MAX_RESULTS * 2]]
    ranked_search: list[tuple[str, int]] = []
    if len(wanted) >= MIN_SEARCH_CHARS:
        terms = [t for t in wanted.split() if len(t) > 2]
        for result in _search(ctx, query):
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
            found = next((h for h in note.headings if h.line == line), None) if note else None
            if found is None:
                continue
            kind = types.SymbolKind.String
            name = found.text
            parents = list(found.path[:-1])
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
