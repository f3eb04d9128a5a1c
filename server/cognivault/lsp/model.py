"""What the language server knows about the vault: the index's note graph plus open buffers.

The note graph is :class:`cognivault.graph.Snapshot`, the catalog's notes and
links read once per catalog generation. A :class:`VaultView` lays the editor's
open documents over it: an open document's unsaved text wins over what the
index last stored for that file. Both are immutable once built and safe to
share between worker threads.
"""

from __future__ import annotations

import logging
import posixpath
import threading
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from cognivault.graph import (
    MARKDOWN_SUFFIXES,
    LinkRef,
    NoteInfo,
    Snapshot,
    TagOccurrence,
    link_keys,
    links_of_parsed,
    shortest_name,
    tags_of_parsed,
)
from cognivault.lsp.uris import vault_uri
from cognivault.vault.links import LinkResolver
from cognivault.vault.markdown import note_aliases
from cognivault.vault.types import ParsedNote

log = logging.getLogger(__name__)


class Document:
    """One note's text as the features see it: the editor's buffer when open, else the file.

    ``note`` (the parse) is given, or made on first use by ``parse(text, path)``: a hover that
    only quotes a note's lines never pays for parsing it, nor does link completion in the note
    being typed (finding notes by name needs only its frontmatter's aliases).
    """

    __slots__ = ("uri", "path", "text", "lines", "version", "is_open", "_note", "_parse", "_info", "_links",
                 "_lock", "_targets", "_link_names", "_aliases")

    def __init__(self, uri: str, path: str | None, text: str, lines: list[str], version: int | None,
                 note: ParsedNote | Callable[[str, str], ParsedNote], is_open: bool) -> None:
        self.uri = uri
        self.path = path
        self.text = text
        self.lines = lines
        self.version = version
        self.is_open = is_open
        self._note: ParsedNote | None = None if callable(note) else note
        self._parse = note if callable(note) else None
        self._info: NoteInfo | None = None
        self._links: list[LinkRef] | None = None
        self._lock = threading.Lock()
        self._targets: tuple[LinkResolver, dict[str, list[LinkRef]]] | None = None
        self._link_names: frozenset[str] | None = None
        self._aliases: tuple[str, ...] | None = None

    @property
    def parsed(self) -> bool:
        return self._note is not None

    @property
    def note(self) -> ParsedNote:
        if self._note is None:
            with self._lock:
                if self._note is None:
                    assert self._parse is not None
                    self._note = self._parse(self.text, self.path or self.uri.rsplit("/", 1)[-1])
        return self._note

    @property
    def body_start_line(self) -> int:
        """The first line after the frontmatter (1-based), without parsing the note."""
        if self._note is not None:
            return self._note.body_start_line
        from cognivault.vault.markdown import split_frontmatter

        return split_frontmatter(self.lines)[1] + 1

    def aliases(self) -> tuple[str, ...]:
        """The note's aliases, from its parse when there is one, else from its frontmatter alone."""
        if self._note is not None:
            return self.info().aliases
        if self._aliases is None:
            self._aliases = tuple(note_aliases(self.text))
        return self._aliases

    def info(self) -> NoteInfo:
        if self._info is None:
            self._info = NoteInfo.from_parsed(self.path or "", self.note)
        return self._info

    def link_refs(self) -> list[LinkRef]:
        if self._links is None:
            self._links = links_of_parsed(self.path or "", self.note)
        return self._links

    def link_names(self) -> frozenset[str]:
        """The names this document's links look their targets up by (see :func:`link_keys`)."""
        if self._link_names is None:
            self._link_names = frozenset(key for link in self.link_refs() for key in link_keys(link))
        return self._link_names

    def targets(self, resolver: LinkResolver) -> dict[str, list[LinkRef]]:
        """This document's links by the path they resolve to (cached per resolver)."""
        cached = self._targets
        if cached is not None and cached[0] is resolver:
            return cached[1]
        found: dict[str, list[LinkRef]] = defaultdict(list)
        for link in self.link_refs():
            target = resolver.resolve(link.target, self.path)
            if target is not None:
                found[target].append(link)
        self._targets = (resolver, dict(found))
        return self._targets[1]


# -- the view features use ------------------------------------------------------
class VaultView:
    """A snapshot with the open documents laid over it (each one parsed when a request needs more of
    it than its aliases)."""

    def __init__(self, vault: Path, snapshot: Snapshot, open_docs: dict[str, Document],
                 read_document: Callable[[str], Document | None],
                 disk_resolver: Callable[[], LinkResolver | None] | None = None) -> None:
        self.vault = vault
        self._disk_resolver = disk_resolver
        self.snapshot = snapshot
        self.open_docs = {path: doc for path, doc in open_docs.items() if path is not None}
        self._read_document = read_document
        self.resolver = self._make_resolver()

    def _make_resolver(self) -> LinkResolver:
        """The snapshot's resolver, unless open buffers add notes or change aliases."""
        snap = self.snapshot
        self._aliases = {path: doc.aliases() for path, doc in self.open_docs.items()}
        changed = sorted((path, aliases) for path, aliases in self._aliases.items()
                         if path not in snap.files or snap.notes.get(path) is None
                         or snap.notes[path].aliases != aliases)
        self._signature = tuple(changed)
        if not changed:
            return snap.resolver
        return snap.alternate(self._signature, self._aliases)[0]

    # -- lookups --------------------------------------------------------------
    def uri(self, path: str) -> str:
        doc = self.open_docs.get(path)
        return doc.uri if doc is not None else vault_uri(self.vault, path)

    def note(self, path: str) -> NoteInfo | None:
        doc = self.open_docs.get(path)
        return doc.info() if doc is not None else self.snapshot.notes.get(path)

    def note_paths(self) -> list[str]:
        return sorted(set(self.snapshot.notes) | set(self.open_docs))

    def exists(self, path: str) -> bool:
        return path in self.snapshot.files or path in self.open_docs or (self.vault / path).is_file()

    def kind(self, path: str) -> str | None:
        """``markdown``, an attachment kind, or the suffix of a file the index does not read."""
        if path in self.open_docs:
            return "markdown"
        known = self.snapshot.files.get(path)
        if known is not None:
            return known
        if path.lower().endswith(MARKDOWN_SUFFIXES):
            return "markdown"
        suffix = posixpath.splitext(path)[1].lstrip(".").lower()
        return suffix or "file"

    def resolve(self, target: str, source: str | None) -> str | None:
        found = self.resolver.resolve(target, source)
        if found is None and target and self._disk_resolver is not None:
            disk = self._disk_resolver()  # files on disk the index does not hold (svg, zip, new notes)
            if disk is not None:
                found = disk.resolve(target, source)
        return found

    def links_of(self, path: str) -> list[LinkRef]:
        doc = self.open_docs.get(path)
        return doc.link_refs() if doc is not None else self.snapshot.links.get(path, [])

    def backlinks(self, path: str) -> list[LinkRef]:
        """Every link in the vault that points at ``path`` (open buffers as typed)."""
        if self.resolver is self.snapshot.resolver:
            backlinks = self.snapshot.backlinks()
        else:  # resolved once per snapshot and set of buffer-only names, then reused
            backlinks = self.snapshot.alternate(self._signature, self._aliases)[1]
        found = [link for link in backlinks.get(path, []) if link.src not in self.open_docs]
        for doc in self.open_docs.values():
            found.extend(doc.targets(self.resolver).get(path, ()))
        return sorted(set(found), key=lambda link: (link.src, link.line, link.start_col))

    def tag_occurrences(self) -> list[TagOccurrence]:
        found: list[TagOccurrence] = []
        for path, refs in self.snapshot.tags.items():
            if path not in self.open_docs:
                found.extend(refs)
        for path, doc in self.open_docs.items():
            found.extend(tags_of_parsed(path, doc.note))
        return found

    def tag_notes(self, tag: str) -> set[str]:
        """Notes carrying ``tag`` or a sub-tag of it (``a`` covers ``a/b``), case-insensitively."""
        wanted = tag.lstrip("#").casefold()
        found = set()
        for path in self.note_paths():
            note = self.note(path)
            if note is None:
                continue
            for other in note.tags:
                folded = other.casefold()
                if folded == wanted or folded.startswith(wanted + "/"):
                    found.add(path)
                    break
        return found

    def tag_counts(self) -> dict[str, int]:
        """Every tag (first-seen spelling) with the number of notes carrying it exactly."""
        spelling: dict[str, str] = {}
        counts: dict[str, set[str]] = defaultdict(set)
        for path in self.note_paths():
            note = self.note(path)
            if note is None:
                continue
            for tag in note.tags:
                folded = tag.casefold()
                spelling.setdefault(folded, tag)
                counts[folded].add(path)
        return {spelling[k]: len(v) for k, v in counts.items()}

    def document(self, path: str) -> Document | None:
        doc = self.open_docs.get(path)
        if doc is not None:
            return doc
        return self._read_document(path)

    def title(self, path: str) -> str:
        note = self.note(path)
        if note is not None and note.title:
            return note.title
        return posixpath.basename(path)

    def link_name(self, path: str, source: str | None = None) -> str:
        """The shortest name that links to ``path`` from ``source`` (Obsidian's default style)."""
        if self.resolver is self.snapshot.resolver:
            return self.snapshot.link_name(path, source)
        return shortest_name(self.resolver, path, source)
