"""The vault's note graph: notes, headings, blocks, links and tags with their positions, links resolved.

A :class:`Snapshot` is read from the index's catalog once per catalog generation
(or patched note by note after an edit), so the language server's hover and
completion, and the engine's related notes (:class:`cognivault.engine.LinkGraph`),
answer from memory. A snapshot is immutable once built and safe to share between
threads; :class:`SnapshotCache` holds the current one for a live vault
(:mod:`cognivault.live`).
"""

from __future__ import annotations

import bisect
import contextlib
import logging
import posixpath
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from cognivault.index.catalog import Catalog, LinkRow, NoteRecord, TagRow
from cognivault.vault.links import LinkResolver, alias_keys, path_keys, target_key
from cognivault.vault.types import ParsedNote

log = logging.getLogger(__name__)

SNAPSHOT_STALENESS_WHILE_INDEXING_S = 1.0
MARKDOWN_SUFFIXES = (".md", ".markdown")


# -- shapes ------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class HeadingInfo:
    level: int
    text: str
    line: int  # 1-based
    path: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class BlockInfo:
    id: str
    line: int  # 1-based
    col: int


# The catalog's rows are the snapshot's links and tags as they are (immutable, hashable).
LinkRef = LinkRow
TagOccurrence = TagRow


@dataclass(frozen=True, slots=True)
class NoteInfo:
    path: str
    title: str
    aliases: tuple[str, ...]
    tags: tuple[str, ...]
    headings: tuple[HeadingInfo, ...]
    blocks: tuple[BlockInfo, ...]
    line_count: int
    frontmatter: dict = field(default_factory=dict, hash=False, compare=False)

    @classmethod
    def from_record(cls, record: NoteRecord) -> NoteInfo:
        return cls(record.path, record.title, tuple(str(a) for a in record.aliases), tuple(record.tags),
                   tuple(HeadingInfo(int(h[0]), str(h[1]), int(h[2]), tuple(h[3])) for h in record.headings),
                   tuple(BlockInfo(str(b[0]), int(b[1]), int(b[2])) for b in record.blocks),
                   record.line_count, record.frontmatter)

    @classmethod
    def from_parsed(cls, path: str, note: ParsedNote) -> NoteInfo:
        return cls(path, note.title, tuple(str(a) for a in note.aliases), tuple(note.tags),
                   tuple(HeadingInfo(h.level, h.text, h.line, tuple(h.path)) for h in note.headings),
                   tuple(BlockInfo(b.id, b.line, b.start_col) for b in note.blocks), note.line_count,
                   dict(note.frontmatter or {}))


def links_of_parsed(path: str, note: ParsedNote) -> list[LinkRef]:
    return [LinkRef(path, link.target, link.heading, link.block, link.alias, link.embed, link.line,
                    link.start_col, link.end_col) for link in note.links]


def tags_of_parsed(path: str, note: ParsedNote) -> list[TagOccurrence]:
    return [TagOccurrence(path, ref.tag, ref.line, ref.start_col, ref.end_col) for ref in note.tag_refs]


# -- the catalog's note graph ------------------------------------------------
def _heading_key(text: str) -> str:
    return " ".join(text.replace("#", " ").split()).casefold()


def find_heading(headings: Iterable[HeadingInfo], wanted: str) -> HeadingInfo | None:
    """The heading ``wanted`` names: exact text first, then ignoring case and spacing;
    ``A#B`` (nested, as Obsidian writes it) matches a heading B under A."""
    headings = list(headings)
    parts = [p for p in wanted.split("#") if p.strip()]
    if not parts:
        return None
    last = parts[-1].strip()
    for heading in headings:
        if heading.text == last and (len(parts) == 1 or _path_ends(heading.path, parts)):
            return heading
    key = _heading_key(last)
    for heading in headings:
        if _heading_key(heading.text) == key and (len(parts) == 1 or _path_ends(heading.path, parts)):
            return heading
    if len(parts) > 1:
        for heading in headings:
            if _heading_key(heading.text) == key:
                return heading
    return None


def _path_ends(path: tuple[str, ...], parts: list[str]) -> bool:
    keys = [_heading_key(p) for p in path]
    wanted = [_heading_key(p) for p in parts]
    if len(wanted) > len(keys):
        return False
    # Obsidian allows skipping levels: each wanted part must appear in order.
    position = 0
    for key in keys:
        if position < len(wanted) and key == wanted[position]:
            position += 1
    return position == len(wanted) and keys[-1] == wanted[-1]


def heading_section(headings: Iterable[HeadingInfo], heading: HeadingInfo, line_count: int) -> tuple[int, int]:
    """1-based first and last line of ``heading``'s section in a note of ``line_count`` lines: from the
    heading to before the next heading of its level or higher."""
    for other in headings:
        if other.line > heading.line and other.level <= heading.level:
            return heading.line, other.line - 1
    return heading.line, max(line_count, heading.line)


def link_keys(link: LinkRef) -> tuple[str, ...]:
    """The names a link is looked up by in a :class:`LinkResolver` (as written, and relative)."""
    key = target_key(link.target)
    if not link.target:
        return ()
    relative = posixpath.normpath(posixpath.join(posixpath.dirname(link.src), key)) if link.src else key
    return (key,) if relative == key else (key, relative)


def insert_sorted(kept: list[Any], fresh: Iterable[Any], key: Callable[[Any], Any] | None = None) -> list[Any]:
    """``kept`` (sorted by ``key``) with ``fresh`` inserted in order: after an edit a few insertions
    instead of sorting a vault-sized list again on the request that first needs it."""
    for item in fresh:
        bisect.insort(kept, item, key=key)
    return kept


def _move(backlinks: dict[str, list[LinkRef]], removed: dict[str, set[int]],
          added: dict[str, list[LinkRef]]) -> None:
    for target in removed.keys() | added.keys():
        gone = removed.get(target, set())
        kept = [b for b in backlinks.get(target, []) if id(b) not in gone]
        backlinks[target] = kept + added.get(target, [])


class Snapshot:
    """The index's note graph at one catalog generation, links resolved."""

    def __init__(self, generation: int, files: dict[str, str], notes: dict[str, NoteInfo],
                 links: dict[str, list[LinkRef]], tags: dict[str, list[TagOccurrence]],
                 resolver: LinkResolver | None = None) -> None:
        self.generation = generation
        self.files = files  # path -> kind, indexed files only
        self.notes = notes
        self.links = links  # by source path
        self.tags = tags  # by path
        self.resolver = resolver or LinkResolver(files, {p: list(n.aliases) for p, n in notes.items()})
        self.built_at = time.monotonic()
        self.names: dict[tuple[str, str | None], str] = {}  # link names, filled by VaultView.link_name
        self.extras: dict[str, Any] = {}  # per-snapshot indexes features build once (completion, symbols)
        # After a per-file patch: the snapshot before it and the paths that changed, so features can
        # update their indexes instead of rebuilding them (see ``derive``).
        self.previous: Snapshot | None = None
        self.changed: frozenset[str] = frozenset()
        self._backlinks: dict[str, list[LinkRef]] | None = None
        self._resolved: dict[LinkRef, str | None] | None = None
        self._alternates: dict[tuple[Any, ...], tuple[LinkResolver, dict[str, list[LinkRef]]]] = {}
        self._link_index: dict[str, list[LinkRef]] | None = None
        self._lock = threading.Lock()

    @classmethod
    def empty(cls) -> Snapshot:
        return cls(-1, {}, {}, {}, {})

    @staticmethod
    def _rows(catalog: Catalog, paths: list[str] | None
              ) -> tuple[dict[str, str], dict[str, NoteInfo], dict[str, list[LinkRef]], dict[str, list[TagOccurrence]]]:
        """Files, notes, links and tags of ``paths`` (all of them when None)."""
        files = catalog.indexed_kinds(paths)
        notes = {record.path: NoteInfo.from_record(record) for record in catalog.note_records(paths)}
        links: dict[str, list[LinkRef]] = defaultdict(list)
        for link in catalog.link_rows(paths):
            links[link.src].append(link)
        tags: dict[str, list[TagOccurrence]] = defaultdict(list)
        for tag in catalog.tag_rows(paths):
            tags[tag.path].append(tag)
        return files, notes, dict(links), dict(tags)

    @classmethod
    def load(cls, catalog: Catalog) -> Snapshot:
        """Read the graph from the catalog."""
        generation = catalog.generation()
        return cls(generation, *cls._rows(catalog, None))

    def patched(self, catalog: Catalog, paths: set[str]) -> Snapshot:
        """This snapshot with ``paths`` read again (one edited note costs one note, not the vault)."""
        generation = catalog.generation()
        wanted = sorted(paths)
        files, notes, links, tags = dict(self.files), dict(self.notes), dict(self.links), dict(self.tags)
        for path in wanted:
            files.pop(path, None)
            notes.pop(path, None)
            links.pop(path, None)
            tags.pop(path, None)
        new_files, new_notes, new_links, new_tags = self._rows(catalog, wanted)
        files.update(new_files)
        notes.update(new_notes)
        links.update(new_links)
        tags.update(new_tags)
        same_names = files.keys() == self.files.keys() and all(
            (notes[p].aliases if p in notes else None) == (self.notes[p].aliases if p in self.notes else None)
            for p in wanted)
        if same_names:
            resolver: LinkResolver | None = self.resolver
        elif all(path in files for path in wanted if path in self.files):  # notes came or aliases changed
            resolver = self.resolver.with_notes({p: notes[p].aliases if p in notes else ()
                                                 for p in wanted if p in files},
                                                {p: self.notes[p].aliases for p in wanted if p in self.notes})
        else:  # a file went: built anew
            resolver = None
        snapshot = Snapshot(generation, files, notes, links, tags, resolver)
        if same_names:
            snapshot.names = self.names  # link names depend on the resolver only
        self.previous = None  # keep one step of history, not a chain
        snapshot.previous, snapshot.changed = self, frozenset(wanted)
        if self._resolved is None or self._backlinks is None:
            return snapshot
        resolved = dict(self._resolved)
        backlinks = dict(self._backlinks)
        removed: dict[str, set[int]] = defaultdict(set)
        added: dict[str, list[LinkRef]] = defaultdict(list)
        for path in wanted:  # the changed notes' own links
            for link in self.links.get(path, []):
                target = resolved.pop(link, None)
                if target is not None:
                    removed[target].add(id(link))
            for link in links.get(path, []):
                target = snapshot.resolver.resolve(link.target, link.src)
                resolved[link] = target
                if target is not None:
                    added[target].append(link)
        if not same_names:  # names came, went or changed: links written with those names move
            affected: set[str] = set()
            for path in wanted:
                if (path in files) != (path in self.files):
                    affected |= path_keys(path)
                for note in (self.notes.get(path), notes.get(path)):
                    affected |= alias_keys(note.aliases if note else ())
            changed = set(wanted)
            index = self.link_index()
            for key in affected:
                for link in index.get(key, ()):
                    if link.src in changed or link not in resolved:
                        continue
                    old, new = resolved[link], snapshot.resolver.resolve(link.target, link.src)
                    if old != new:
                        resolved[link] = new
                        if old is not None:
                            removed[old].add(id(link))
                        if new is not None:
                            added[new].append(link)
        _move(backlinks, removed, added)
        snapshot._resolved, snapshot._backlinks = resolved, backlinks
        if self._link_index is not None:  # carry the name index over too
            index = dict(self._link_index)
            gone: dict[str, set[int]] = defaultdict(set)
            fresh: dict[str, list[LinkRef]] = defaultdict(list)
            for path in wanted:
                for link in self.links.get(path, []):
                    for key in link_keys(link):
                        gone[key].add(id(link))
                for link in links.get(path, []):
                    for key in link_keys(link):
                        fresh[key].append(link)
            _move(index, gone, fresh)
            snapshot._link_index = index
        return snapshot

    def link_index(self) -> dict[str, list[LinkRef]]:
        """Links by the names they are looked up by (see :func:`link_keys`), built once."""
        with self._lock:
            if self._link_index is None:
                index: dict[str, list[LinkRef]] = defaultdict(list)
                for links in self.links.values():
                    for link in links:
                        for key in link_keys(link):
                            index[key].append(link)
                self._link_index = dict(index)
            return self._link_index

    def resolved(self) -> dict[LinkRef, str | None]:
        with self._lock:
            if self._resolved is None:
                resolve = self.resolver.resolve
                self._resolved = {link: resolve(link.target, link.src)
                                  for links in self.links.values() for link in links}
            return self._resolved

    def link_name(self, path: str, source: str | None = None) -> str:
        """:func:`shortest_name` with this snapshot's resolver, cached (it only depends on the folder of
        ``source``)."""
        key = (path, posixpath.dirname(source) if source else None)
        name = self.names.get(key)
        if name is None:
            name = self.names[key] = shortest_name(self.resolver, path, source)
        return name

    def derive(self, key: str, build: Callable[[Snapshot], list[Any]],
               update: Callable[[Snapshot, list[Any], frozenset[str]], list[Any]]) -> list[Any]:
        """A per-snapshot index: built once, or updated from the previous snapshot's after a patch."""
        with self._lock:
            found = self.extras.get(key)
        if found is not None:
            return found
        previous = self.previous
        earlier = previous.extras.get(key) if previous is not None else None
        found = update(self, earlier, self.changed) if earlier is not None else build(self)
        with self._lock:
            self.extras.setdefault(key, found)
            return self.extras[key]

    def alternate(self, signature: tuple[Any, ...], overlay: Mapping[str, tuple[str, ...]]
                  ) -> tuple[LinkResolver, dict[str, list[LinkRef]]]:
        """A resolver (and the backlinks it gives) with notes or aliases that exist only in buffers
        (``overlay``: the buffers' notes and their aliases).

        Only links written with a name those buffers add, drop or change are resolved again.
        """
        with self._lock:
            cached = self._alternates.get(signature)
        if cached is not None:
            return cached
        resolver = self.resolver.with_notes(
            overlay, {p: self.notes[p].aliases for p in overlay if p in self.notes})
        affected: set[str] = set()
        for path, new_aliases in signature:
            if path not in self.files:
                affected |= path_keys(path)
            old = self.notes.get(path)
            affected |= alias_keys((*new_aliases, *(old.aliases if old else ())))
        resolved = self.resolved()
        backlinks = dict(self.backlinks())
        removed: dict[str, set[int]] = defaultdict(set)
        added: dict[str, list[LinkRef]] = defaultdict(list)
        seen: set[int] = set()
        index = self.link_index()
        for key in affected:
            for link in index.get(key, ()):
                if id(link) in seen:
                    continue
                seen.add(id(link))
                old_target, new_target = resolved.get(link), resolver.resolve(link.target, link.src)
                if old_target != new_target:
                    if old_target is not None:
                        removed[old_target].add(id(link))
                    if new_target is not None:
                        added[new_target].append(link)
        _move(backlinks, removed, added)
        result = (resolver, backlinks)
        with self._lock:
            if len(self._alternates) >= 4:
                self._alternates.pop(next(iter(self._alternates)))
            self._alternates[signature] = result
        return result

    def backlinks(self) -> dict[str, list[LinkRef]]:
        resolved = self.resolved()
        with self._lock:
            if self._backlinks is None:
                backlinks: dict[str, list[LinkRef]] = defaultdict(list)
                for link, target in resolved.items():
                    if target is not None:
                        backlinks[target].append(link)
                self._backlinks = dict(backlinks)
            return self._backlinks


def shortest_name(resolver: LinkResolver, path: str, source: str | None) -> str:
    """The shortest link target (file name, else a longer path suffix) that resolves to ``path``."""
    stem = path
    for suffix in MARKDOWN_SUFFIXES:
        if stem.lower().endswith(suffix):
            stem = stem[: -len(suffix)]
            break
    is_note = stem != path
    parts = (stem if is_note else path).split("/")
    for start in range(len(parts) - 1, -1, -1):
        name = "/".join(parts[start:])
        if resolver.resolve(name, source) == path:
            return name
    return stem if is_note else path


class SnapshotCache:
    """The current :class:`Snapshot`, reloaded when the catalog's generation moves."""

    def __init__(self) -> None:
        self._snapshot = Snapshot.empty()
        self._lock = threading.Lock()
        self._pending_lock = threading.Lock()
        self._updates = 0

    def updating(self) -> contextlib.AbstractContextManager[None]:
        """Around a per-file write: readers keep the current snapshot until :meth:`patch` ran."""
        cache = self

        class _Updating:
            def __enter__(self) -> None:
                with cache._pending_lock:
                    cache._updates += 1

            def __exit__(self, *exc: object) -> None:
                with cache._pending_lock:
                    cache._updates -= 1

        return _Updating()

    def patch(self, engine: Any, paths: set[str], before: int) -> None:
        """The writer changed ``paths`` (committed) starting from catalog generation ``before``:
        read just those into the snapshot when it was exactly at ``before``, else everything.

        Runs on the writer thread with the writer's own connection and without the lock, so
        readers are never held up: meanwhile they keep using the current snapshot.
        """
        current = self._snapshot
        if current.generation < 0:
            return  # nobody read one yet (the companion never does): the first reader loads it
        catalog = engine.store.catalog
        if current.generation != before:
            fresh = Snapshot.load(catalog)
        else:
            fresh = current.patched(catalog, paths)
        with self._lock:
            if self._snapshot is current or self._snapshot.generation <= fresh.generation:
                self._snapshot = fresh

    def get(self, engine: Any, indexing: bool) -> Snapshot:
        with self._lock:
            current = self._snapshot
            catalog = engine.store.reader()
            try:
                generation = catalog.generation()
            except Exception:  # noqa: BLE001 - a catalog being created: keep what we have
                return current
            if generation == current.generation or current.generation >= 0 and self._updates:
                return current  # a per-file write is in flight: the writer patches the snapshot
            if indexing and time.monotonic() - current.built_at < SNAPSHOT_STALENESS_WHILE_INDEXING_S \
                    and current.generation >= 0:
                return current
            snapshot = Snapshot.load(catalog)
            self._snapshot = snapshot
            return snapshot
