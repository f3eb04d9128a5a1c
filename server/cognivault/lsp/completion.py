"""``textDocument/completion``: notes after ``[[``, then headings and blocks; tags after ``#``.

After ``[[`` (or ``![[``) every note is offered by file name, its aliases too,
ranked by how related it is to the paragraph being written: the paragraph's
text (without the link being typed, so it stays the same while the link's
target is typed) is searched, hybrid when an embedding model runs, keywords
otherwise, and the notes it finds come first. ``[[Note#`` offers Note's
headings, ``[[Note#^`` its block ids, ``[[#`` the current note's headings.
After ``#`` in text: the vault's tags, most used first. Previews come with
``completionItem/resolve``.

Embedding the paragraph takes longer than a keystroke may, so it happens before
the request when it can: ``SPECULATE_AFTER_MS`` after the last edit of an open
document the paragraph at that edit is embedded on a background thread (newer
edits supersede it) and its vector cached by model and text
(:mod:`cognivault.lsp.paragraph_vectors`), then the vault is ranked for it
(cached per index snapshot); a user who writes, pauses and types ``[[`` gets
the full ranking at once, without a search of the vault in the request, and so
does every keystroke of the link target. When the vector is not ready, a request waits at most
``EMBED_BUDGET_MS`` for an embedding already under way, then ranks with a
stand-in: the stored vector of the indexed passage holding the cursor's line,
else keywords alone; only then is the paragraph embedded (in the background,
not competing with the answer). Such a result is marked ``isIncomplete``, so
the editor asks again on the next keystroke and gets the full ranking once the
vector is there.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import numpy as np
from lsprotocol import types
from rapidfuzz import process
from rapidfuzz.distance import OSA

from cognivault.graph import insert_sorted
from cognivault.index.generated import is_generated
from cognivault.lsp import common
from cognivault.lsp.documents import parse_text
from cognivault.lsp.model import Document
from cognivault.lsp.paragraph_vectors import vectors_of
from cognivault.lsp.positions import split_lines
from cognivault.lsp.server import CogniVaultServer, Context
from cognivault.vault.markdown import TAG_OPENERS, WIKILINK_RE

TRIGGER_CHARACTERS = ["[", "#", "^"]
RELATED_DEPTH = 30
MIN_QUERY_WORDS = 3
EMBED_BUDGET_MS = 15  # longest a request waits for a paragraph vector already being embedded
SPECULATE_AFTER_MS = 150  # pause in typing after which the paragraph at the last edit is embedded

_TAG_PREFIX = re.compile(r"(?:^|(?<=[\s" + re.escape(TAG_OPENERS) + r"]))#([^\s#\[\](){}<>,;:!?\"'`|]*)$")
_MARKUP = re.compile(r"[#*_`>~=\[\]()|^-]+")

Ranking = dict[str, tuple[int, float]]  # note path -> (rank, score)
# How a typed name matches a note, best first; related notes come first within a tier.
MATCH_TIERS = ("prefix of its name, title or an alias", "start of a word in them", "inside them",
               "prefix with a typing error", "letters in order")

_ranking_cache: OrderedDict[tuple[Any, ...], Ranking] = OrderedDict()
_rankings_under_way: dict[tuple[Any, ...], threading.Event] = {}
_ranking_lock = threading.Lock()
RANKING_WAIT_S = 1.0  # the longest a ranking waits for the same ranking under way on another thread


@dataclass(slots=True)
class Trigger:
    kind: str  # note | heading | block | tag
    start: int  # code-point column where the replaced text starts
    partial: str  # typed so far
    note: str = ""  # for heading/block: the note part as written
    link_start: int = 0  # column of "[["
    embed: bool = False


def trigger_at(line_text: str, column: int) -> Trigger | None:
    prefix = line_text[:column]
    open_at = prefix.rfind("[[")
    if open_at != -1 and "]]" not in prefix[open_at:]:
        inner_start = open_at + 2
        inner = prefix[inner_start:]
        embed = open_at > 0 and prefix[open_at - 1] == "!"
        if "|" in inner:
            return None  # typing the alias
        if "#" in inner:
            note, _, rest = inner.partition("#")
            if rest.startswith("^"):
                return Trigger("block", inner_start + len(note) + 2, rest[1:], note, open_at, embed)
            if "#" in rest:  # nested heading path "A#B": complete the last part
                rest = rest.rsplit("#", 1)[1]
            return Trigger("heading", column - len(rest), rest, note, open_at, embed)
        return Trigger("note", inner_start, inner, "", open_at, embed)
    match = _TAG_PREFIX.search(prefix)
    if match is not None:
        partial = match.group(1)
        hashes = match.start()
        if hashes == len(prefix) - len(partial) - 1 and prefix[:hashes].strip() == "" and not partial:
            return None  # "#" at the start of a line: a heading is being written
        return Trigger("tag", column - len(partial), partial)
    return None


def paragraph_text(lines: list[str], line: int, trigger: Trigger | None) -> str:
    """The paragraph around ``line``, link syntax reduced to its words, the link being typed left out."""
    first = line
    while first > 0 and lines[first - 1].strip() and not lines[first - 1].lstrip().startswith("#"):
        first -= 1
    last = line
    while last + 1 < len(lines) and lines[last + 1].strip() and not lines[last + 1].lstrip().startswith("#"):
        last += 1
    parts = []
    for number in range(first, last + 1):
        text = lines[number]
        if number == line and trigger is not None:
            text = text[:trigger.link_start] + " " + text[trigger.start + len(trigger.partial):]
        parts.append(text)
    text = "\n".join(parts)
    text = WIKILINK_RE.sub(_link_words, text)
    return " ".join(_MARKUP.sub(" ", text).split())


def _link_words(link: re.Match[str]) -> str:
    """A wikilink as words for the query: its target and its alias (not its heading)."""
    ref, _, alias = link["inside"].partition("|")
    return f" {ref.partition('#')[0]} {alias} "


def _section_query(doc: Document, line: int) -> str:
    words = [doc.note.title]
    for heading in doc.note.headings:
        if heading.line - 1 <= line:
            words = [doc.note.title, *heading.path]
    return " ".join(words)


def ranking_query(doc: Document, line: int, trigger: Trigger | None) -> str:
    """What the notes are ranked against: the paragraph (without the link being typed), and when it
    is short, the note's title and the headings above."""
    query = paragraph_text(doc.lines, line, trigger)
    if len(query.split()) < MIN_QUERY_WORDS:
        query = f"{query} {_section_query(doc, line)}".strip()
    return query


def relatedness(ctx: Context, doc: Document, line: int, trigger: Trigger) -> tuple[Ranking, bool]:
    """Note path -> (rank, score) by relatedness to the paragraph at ``line``, and whether that is the
    full ranking (False: a stand-in while the paragraph's vector is being embedded)."""
    query = ranking_query(doc, line, trigger)
    if not query:
        return {}, True
    embedder = ctx.engine.embedder
    vector, complete = None, True
    if embedder is not None and ctx.engine.store.dense:
        vector, complete = vectors_of(ctx.server).ready(embedder, query, EMBED_BUDGET_MS / 1000)
        if not complete:
            vector = _passage_vector(ctx, doc, line)
    ranking = _ranking(ctx, query, vector, "lexical" if vector is None else "paragraph" if complete else "passage")
    if not complete:
        vectors_of(ctx.server).embedding(embedder, query)  # for the next keystroke
    return ranking, complete


def _ranking(ctx: Context, query: str, vector: np.ndarray | None, source: str) -> Ranking:
    key = (str(ctx.vault), query, source, ctx.view.snapshot.generation)
    with _ranking_lock:
        if key in _ranking_cache:
            _ranking_cache.move_to_end(key)
            return _ranking_cache[key]
        under_way = _rankings_under_way.get(key)
        if under_way is None:
            _rankings_under_way[key] = threading.Event()
    if under_way is not None:  # e.g. ranked ahead of the [[ just now: wait rather than search twice at once
        under_way.wait(RANKING_WAIT_S)
        with _ranking_lock:
            if key in _ranking_cache:
                return _ranking_cache[key]
    try:
        if vector is None:  # BM25 alone: no passages or snippets to build
            ranking: Ranking = {}
            for _chunk, path, score in common.keyword_hits(ctx, query, RELATED_DEPTH * 8):
                if path not in ranking:
                    ranking[path] = (len(ranking), score)
                    if len(ranking) >= RELATED_DEPTH:
                        break
        else:
            ranking = _hybrid_ranking(ctx, query, vector)
    except Exception:  # noqa: BLE001 - ranking is a bonus: fall back to names
        ranking = {}
    with _ranking_lock:
        _ranking_cache[key] = ranking
        while len(_ranking_cache) > 64:
            _ranking_cache.popitem(last=False)
        if under_way is None:
            _rankings_under_way.pop(key).set()
    return ranking


def _hybrid_ranking(ctx: Context, query: str, vector: np.ndarray) -> Ranking:
    """Notes in the order ``Engine.search(mode="hybrid", per_note=True)`` gives them, without the
    passages and snippets a result list needs (they cost more than the search itself)."""
    from cognivault.engine import CANDIDATES
    from cognivault.index.hybrid import fuse_rankings

    engine = ctx.engine
    store = engine.store
    depth = max(CANDIDATES, RELATED_DEPTH * 5)
    lang = engine.query_language(query).lang
    lexical = store.lexical.search(query, lang, depth, read_slips=False) if store.lexical is not None else []
    paths = {hit.chunk_id: hit.path for hit in lexical}
    dense: list[str] = []
    dense_weight = engine.dense_weight(lang, bool(lexical))
    if dense_weight > 0:
        with store.lock:
            dense = [hit.chunk_id for hit in store.dense.search(vector, depth)]
    paths.update(engine.chunk_paths([chunk_id for chunk_id in dense if chunk_id not in paths]))  # fusion ranks notes
    fused = fuse_rankings([hit.chunk_id for hit in lexical], dense, engine.weights, dense_weight, paths.get)
    ranking: Ranking = {}
    for hit in fused:
        path = paths.get(hit.chunk_id)
        if path is not None and path not in ranking:
            ranking[path] = (len(ranking), hit.score)
            if len(ranking) >= RELATED_DEPTH:
                break
    return ranking


def _passage_vector(ctx: Context, doc: Document, line: int) -> np.ndarray | None:
    """The stored vector of the indexed passage holding ``line`` of ``doc`` (None when not indexed)."""
    dense = ctx.engine.store.dense
    if doc.path is None or dense is None:
        return None
    for chunk in ctx.engine.store.reader().chunks_of(doc.path):
        if chunk.line_start <= line + 1 <= chunk.line_end:
            with ctx.engine.store.lock:
                stored = dense.vectors_of([chunk.id])
            return stored[0] if len(stored) else None
    return None


def paragraph_edited(ls: CogniVaultServer, params: types.DidChangeTextDocumentParams) -> None:
    """After ``SPECULATE_AFTER_MS`` without edits to the document, embed the paragraph at its last edit."""
    engine = ls.engine
    change = params.content_changes[-1] if params.content_changes else None
    if engine is None or engine.embedder is None or not isinstance(change, types.TextDocumentContentChangePartial):
        return  # a whole-document replacement does not say where the user writes
    uri = params.text_document.uri

    async def schedule() -> None:
        entry = ls.open_texts().get(uri)  # the text as it is now, read on the event loop
        if entry is not None:
            text, version, path = entry
            vectors_of(ls).speculate(uri, lambda: _paragraph_at_edit(ls, uri, text, version, path, change),
                                     then=lambda query, vector: _rank_ahead(ls, query, vector))

    ls.live.debounce(f"paragraph:{uri}", SPECULATE_AFTER_MS, schedule)


def _rank_ahead(ls: CogniVaultServer, query: str, vector: np.ndarray) -> None:
    """The vault ranked for the paragraph at the last edit, as :func:`relatedness` will ask for it
    (cached per snapshot): searching a large vault takes longer than a keystroke may."""
    engine = ls.engine
    if engine is not None and engine.store.dense:
        ctx, _ = ls.build_context(engine, {})
        _ranking(ctx, query, vector, "paragraph")


def _paragraph_at_edit(ls: CogniVaultServer, uri: str, text: str, version: int | None, path: str,
                       change: types.TextDocumentContentChangePartial) -> tuple[Any, str] | None:
    engine = ls.engine
    if engine is None or engine.embedder is None:
        return None
    doc = Document(uri, path or None, text, split_lines(text), version, parse_text, True)
    inserted = change.text.split("\n")
    line = change.range.start.line + len(inserted) - 1
    if line >= len(doc.lines):
        return None
    if len(inserted) > 1:
        column = len(inserted[-1])
    else:
        column = ls.codec.from_client(doc.lines[line], change.range.start.character) + len(change.text)
    trigger = trigger_at(doc.lines[line], column)
    query = ranking_query(doc, line, trigger if trigger is not None and trigger.kind == "note" else None)
    return (engine.embedder, query) if query else None


def fuzzy(partial: str) -> re.Pattern[str]:
    """Matches text holding the letters of ``partial`` in order (C-speed, for large vaults).

    Each letter is taken at its first occurrence after the previous one, without backtracking
    (possessive ``[^x]*+``): a lazy ``.*?`` pattern backtracked through every way to place the
    letters in a long name (84 ms for an 11-letter word over 5,900 notes, now a few)."""
    if not partial:
        return re.compile("")
    parts = [re.escape(partial[0])]
    for char in partial[1:]:
        parts.append(f"[^{re.escape(char)}]*+{re.escape(char)}")
    return re.compile("".join(parts), re.DOTALL)


def typos_allowed(partial: str) -> int:
    """Typing errors tolerated in a name typed so far: none in short ones, one from 4 letters, two from 8."""
    return 0 if len(partial) < 4 else 1 if len(partial) < 8 else 2


def matching_tiers(entries: list[_Entry], wanted: str, limit: int) -> dict[str, int]:
    """path -> how well a note's name, title or aliases match ``wanted`` (casefolded), lower is
    better (see ``MATCH_TIERS``); notes that do not match at all are left out. Fuzzy matches are
    looked for only while the better tiers give fewer than ``limit`` notes, and generated study
    notes are offered only when one of their names starts with what was typed."""
    if not wanted:
        return {e.path: 0 for e in entries if not e.generated}
    tiers: dict[str, int] = {}
    starts = ("\x00" + wanted, "/" + wanted)
    words = tuple(separator + wanted for separator in " -_(")
    for entry in [e for e in entries if wanted in e.haystack]:  # C-speed filter first: few are left
        hay = entry.haystack
        if hay.startswith(wanted) or any(s in hay for s in starts):
            tiers[entry.path] = 0
        elif not entry.generated:
            tiers[entry.path] = 1 if any(w in hay for w in words) else 2
    if len(tiers) < limit:
        typos = typos_allowed(wanted)
        if typos:
            tiers.update((path, 3) for path in _near_prefix(entries, wanted, typos) if path not in tiers)
        pattern = fuzzy(wanted)
        tiers.update((e.path, 4) for e in entries
                     if e.path not in tiers and not e.generated and pattern.search(e.haystack))
    return tiers


_pieces_cache: list[Any] = [None, None]  # [entries, (first letter -> (names, paths))], the last list seen


def _names_by_first_letter(entries: list[_Entry]) -> dict[str, tuple[list[str], list[str]]]:
    """Every name, title and alias of ``entries`` (and a path name's last part), grouped by first
    letter; kept for the last list of entries asked about (one per snapshot)."""
    if _pieces_cache[0] is entries:
        return _pieces_cache[1]
    grouped: dict[str, tuple[list[str], list[str]]] = {}
    for entry in entries:
        if entry.generated:
            continue
        for name in entry.haystack.split("\x00"):
            for piece in {name, name.rsplit("/", 1)[-1]}:
                if piece:
                    names, paths = grouped.setdefault(piece[0], ([], []))
                    names.append(piece)
                    paths.append(entry.path)
    _pieces_cache[:] = [entries, grouped]
    return grouped


def _near_prefix(entries: list[_Entry], wanted: str, typos: int) -> set[str]:
    """Paths of the entries with a name, title or alias (or its last path part) that starts with
    ``wanted`` give or take ``typos`` typing errors after the first letter (a wrong, missing, extra
    or swapped letter)."""
    names, paths = _names_by_first_letter(entries).get(wanted[0], ([], []))
    found: set[str] = set()
    width = len(wanted)
    for cut in (width - 1, width, width + 1):  # an extra, a wrong or swapped, a missing letter
        heads = [name[:cut] for name in names]
        for _head, _distance, index in process.extract(wanted, heads, scorer=OSA.distance,
                                                       score_cutoff=typos, limit=None):
            found.add(paths[index])
    return found


def best_matches(entries: list[_Entry], tiers: dict[str, int], ranking: Ranking, limit: int,
                 skip: str | None) -> tuple[list[_Entry], int]:
    """The ``limit`` best of the ``entries`` that match (``tiers``, see :func:`matching_tiers`), and
    how many match: by tier, generated study notes after all others; within a tier the notes
    related to the paragraph first, by ``ranking``, then the rest in the order ``entries`` come in
    (:func:`_shorter_first`). One pass without sort keys: after a bare ``[[`` every note matches."""
    levels = 2 * len(MATCH_TIERS)
    related: list[list[tuple[int, _Entry]]] = [[] for _ in range(levels)]
    others: list[list[_Entry]] = [[] for _ in range(levels)]
    matched = 0
    for entry in entries:
        tier = tiers.get(entry.path)
        if tier is None or entry.path == skip:
            continue
        matched += 1
        if entry.generated:
            tier += len(MATCH_TIERS)
        rank = ranking.get(entry.path)
        if rank is not None:
            related[tier].append((rank[0], entry))
        elif len(others[tier]) < limit:
            others[tier].append(entry)
    chosen: list[_Entry] = []
    for tier in range(levels):
        chosen += [entry for _rank, entry in sorted(related[tier], key=lambda pair: pair[0])]
        chosen += others[tier]
        if len(chosen) >= limit:
            break
    return chosen[:limit], matched


_lookup_cache: list[Any] = [None]  # (entries, (path -> entry, how many are not generated)), the last list seen


def _lookup(entries: list[_Entry]) -> tuple[dict[str, _Entry], int]:
    cached = _lookup_cache[0]
    if cached is not None and cached[0] is entries:
        return cached[1]
    found = ({entry.path: entry for entry in entries}, sum(not entry.generated for entry in entries))
    _lookup_cache[0] = (entries, found)
    return found


def every_note(entries: list[_Entry], ranking: Ranking, limit: int, skip: str | None) -> tuple[list[_Entry], int]:
    """:func:`best_matches` after a bare ``[[``, where every note but generated ones matches: the related
    notes by rank, then the others in the order ``entries`` come in, without a pass over the vault
    (one took 10-25 ms of a request on a 5,900-note vault under load)."""
    by_path, ordinary = _lookup(entries)
    related = sorted((rank, path) for path, (rank, _score) in ranking.items()
                     if path != skip and path in by_path and not by_path[path].generated)
    chosen = [by_path[path] for _rank, path in related]
    for entry in entries:
        if len(chosen) >= limit:
            break
        if not entry.generated and entry.path != skip and entry.path not in ranking:
            chosen.append(entry)
    skipped = skip is not None and skip in by_path and not by_path[skip].generated
    return chosen[:limit], ordinary - skipped


def completion(ctx: Context, doc: Document, position: types.Position) -> types.CompletionList | None:
    line, column = common.cursor(ctx, doc, position)
    line_text = doc.lines[line] if line < len(doc.lines) else ""
    trigger = trigger_at(line_text, column)
    if trigger is None:
        return None
    replace = ctx.codec.range(doc.lines, line, trigger.start, column)
    rest = line_text[column:]
    if trigger.kind == "note":
        return _notes(ctx, doc, line, trigger, replace, closing="" if rest.startswith(("]]", "#", "|")) else "]]")
    if trigger.kind == "heading":
        return _headings(ctx, doc, trigger, replace, closing="" if rest.startswith(("]]", "|")) else "]]")
    if trigger.kind == "block":
        return _blocks(ctx, doc, trigger, replace, closing="" if rest.startswith(("]]", "|")) else "]]")
    return _tags(ctx, trigger, replace)


def _item(ctx: Context, label: str, insert: str, replace: types.Range, **extra: Any) -> types.CompletionItem:
    return types.CompletionItem(label=label, text_edit=types.TextEdit(range=replace, new_text=insert), **extra)


@dataclass(frozen=True, slots=True)
class _Entry:
    path: str
    name: str  # link name from the vault root
    title: str
    aliases: tuple[str, ...]
    haystack: str  # name, title and aliases, case-folded, for filtering by what was typed
    markdown: bool
    generated: bool = False  # a generated study note: offered only when its name is being typed


def _haystack(name: str, title: str, aliases: tuple[str, ...]) -> str:
    return "\x00".join([name, title, *aliases]).casefold()


def _shorter_first(entry: _Entry) -> tuple[int, str, str]:
    """The order of notes that match equally well: shorter link names first, then alphabetical."""
    return len(entry.name), entry.name.casefold(), entry.path


def _entries(ctx: Context, embed: bool) -> list[_Entry]:
    """Every note (and, for embeds, attachment) in :func:`_shorter_first` order: built once per
    snapshot, and after an edit updated for the edited note only."""
    study_folder = ctx.engine.settings.study.folder

    def entry(snapshot: Any, path: str) -> _Entry | None:
        kind = snapshot.files.get(path)
        if kind is None or not (embed or kind == "markdown"):
            return None
        note = snapshot.notes.get(path)
        name = snapshot.link_name(path)
        title = note.title if note else name
        aliases = note.aliases if note else ()
        return _Entry(path, name, title, aliases, _haystack(name, title, aliases), kind == "markdown",
                      is_generated(path, note.frontmatter if note else None, study_folder))

    def build(snapshot: Any) -> list[_Entry]:
        return sorted((e for p in snapshot.files if (e := entry(snapshot, p)) is not None), key=_shorter_first)

    def update(snapshot: Any, earlier: list[_Entry], changed: frozenset[str]) -> list[_Entry]:
        kept = [e for e in earlier if e.path not in changed]
        return insert_sorted(kept, [e for p in changed if (e := entry(snapshot, p)) is not None], _shorter_first)

    return ctx.view.snapshot.derive("completion-embed" if embed else "completion", build, update)


def prepare(ctx: Context) -> None:
    """Build this snapshot's list of link targets ahead of the first ``[[`` (after the first pass,
    after each edit's re-index)."""
    _entries(ctx, False)


def _notes(ctx: Context, doc: Document, line: int, trigger: Trigger, replace: types.Range,
           closing: str) -> types.CompletionList:
    view = ctx.view
    entries = _entries(ctx, trigger.embed)
    study_folder = ctx.engine.settings.study.folder
    unindexed = []  # notes that exist only in a buffer so far
    for path, other in view.open_docs.items():
        if path not in view.snapshot.files and path.lower().endswith((".md", ".markdown")):
            info = other.info()
            name = view.link_name(path, doc.path)
            unindexed.append(_Entry(path, name, info.title, info.aliases, _haystack(name, info.title, info.aliases),
                                    True, is_generated(path, info.frontmatter, study_folder)))
    if unindexed:
        entries = insert_sorted(list(entries), unindexed, _shorter_first)
    limit = ctx.options.completion_max_items
    wanted = trigger.partial.strip().casefold()
    ranking, complete = relatedness(ctx, doc, line, trigger)
    if wanted:
        chosen_entries, matched = best_matches(entries, matching_tiers(entries, wanted, limit), ranking, limit,
                                               skip=doc.path)
    else:
        chosen_entries, matched = every_note(entries, ranking, limit, skip=doc.path)
    incomplete = matched > len(chosen_entries) or not complete
    items = []
    for position, entry in enumerate(chosen_entries):
        rank = ranking.get(entry.path)
        name = view.link_name(entry.path, doc.path)  # shortest unambiguous from this note
        detail = entry.title if entry.title != name else entry.path
        if rank is not None:
            detail = f"{detail} · related"
        kind = types.CompletionItemKind.File if entry.markdown else types.CompletionItemKind.Reference
        items.append(_item(ctx, name, name + closing, replace, kind=kind, detail=detail,
                           sort_text=f"{position:05d}",
                           filter_text=f"{name} {entry.title}" if entry.title != name else None,
                           preselect=True if rank is not None and rank[0] == 0 else None,
                           data={"path": entry.path}))
        for alias in entry.aliases:
            items.append(_item(ctx, alias, f"{name}|{alias}{closing}", replace,
                               kind=types.CompletionItemKind.Reference, detail=f"alias of {entry.title}",
                               sort_text=f"{position:05d}a", filter_text=alias, data={"path": entry.path}))
    return types.CompletionList(is_incomplete=incomplete, items=items)


def _target_note(ctx: Context, doc: Document, written: str) -> tuple[str | None, Any]:
    if not written.strip():
        return doc.path, doc.info()
    path = ctx.view.resolve(written.strip(), doc.path)
    if path is None:
        return None, None
    if path == doc.path:
        return path, doc.info()
    return path, ctx.view.note(path)


def _headings(ctx: Context, doc: Document, trigger: Trigger, replace: types.Range,
              closing: str) -> types.CompletionList:
    _path, note = _target_note(ctx, doc, trigger.note)
    items = []
    if note is not None:
        for order, heading in enumerate(note.headings):
            items.append(_item(ctx, heading.text, heading.text + closing, replace,
                               kind=types.CompletionItemKind.Reference, detail="#" * heading.level,
                               sort_text=f"{order:05d}", filter_text=heading.text,
                               label_details=types.CompletionItemLabelDetails(
                                   description=" > ".join(heading.path[:-1]) or None)))
    return types.CompletionList(is_incomplete=False, items=items)


def _blocks(ctx: Context, doc: Document, trigger: Trigger, replace: types.Range,
            closing: str) -> types.CompletionList:
    path, note = _target_note(ctx, doc, trigger.note)
    items = []
    if note is not None:
        source = doc if path == doc.path else (ctx.view.document(path) if path else None)
        for order, block in enumerate(note.blocks):
            text = ""
            if source is not None and 0 < block.line <= len(source.lines):
                first, last = common.block_span(source.lines, block)
                text = common.preview(source.lines, first, last)
            items.append(_item(ctx, block.id, block.id + closing, replace,
                               kind=types.CompletionItemKind.Reference,
                               detail=text.splitlines()[0][:80] if text else None,
                               documentation=text or None, sort_text=f"{order:05d}", filter_text=block.id))
    return types.CompletionList(is_incomplete=False, items=items)


def _tags(ctx: Context, trigger: Trigger, replace: types.Range) -> types.CompletionList:
    counts = ctx.view.tag_counts()
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0].casefold()))
    items = [_item(ctx, tag, tag, replace, kind=types.CompletionItemKind.Keyword,
                   detail=f"{count} note" + ("" if count == 1 else "s"), sort_text=f"{order:05d}", filter_text=tag)
             for order, (tag, count) in enumerate(ranked)]
    return types.CompletionList(is_incomplete=False, items=items)


def resolve_item(ctx: Context, item: types.CompletionItem) -> types.CompletionItem:
    """Add the note's first lines as documentation."""
    data = item.data if isinstance(item.data, dict) else (vars(item.data) if item.data is not None and
                                                          hasattr(item.data, "__dict__") else {})
    path = data.get("path") if isinstance(data, dict) else None
    if not isinstance(path, str) or item.documentation:
        return item
    if ctx.view.kind(path) != "markdown":
        item.documentation = f"attachment `{path}`"
        return item
    doc = ctx.view.document(path)
    if doc is None:
        return item
    text = common.preview(doc.lines, 1, len(doc.lines), doc.body_start_line)
    item.documentation = types.MarkupContent(kind=types.MarkupKind.Markdown, value=f"`{path}`\n\n{text}")
    return item


def register(server: CogniVaultServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_COMPLETION,
                    types.CompletionOptions(trigger_characters=TRIGGER_CHARACTERS, resolve_provider=True))
    async def on_completion(ls: CogniVaultServer, params: types.CompletionParams):
        return await ls.run_feature(completion, params.text_document.uri, params.position)

    @server.feature(types.COMPLETION_ITEM_RESOLVE)
    async def on_resolve(ls: CogniVaultServer, item: types.CompletionItem):
        return await ls.run_feature(resolve_item, None, item)
