"""What a generator works from: passages of the index within the requested scope.

A request names a note (optionally a selection or a line range in it), a
scope (folders, tags, files, properties), a free topic, or a topic within a
scope. Notes inside the study folder (CogniVault's own output) are never
sources unless asked for by name.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

from cognivault.errors import CogniVaultError
from cognivault.index.analysis import normalize_language
from cognivault.index.scope import Scope
from cognivault.study.citations import CitedPassage, one_line

if TYPE_CHECKING:
    from cognivault.engine import Engine

MAX_SOURCES = 24
MAX_SOURCE_CHARS = 1500
MAX_TOTAL_CHARS = 14000
MAX_NEIGHBOUR_NOTES = 40  # notes whose terms may serve as a quiz's wrong options


class GenerationError(CogniVaultError, ValueError):
    """A generation request that cannot be served; the message says what to change."""

    def __init__(self, message: str, code: str = "generation_failed") -> None:
        super().__init__(message, code)


@dataclass(slots=True)
class StudyRequest:
    note: str | None = None
    scope: Scope = field(default_factory=Scope)
    topic: str | None = None
    selection: str | None = None  # selected text inside ``note``
    lines: tuple[int, int] | None = None  # 1-based inclusive line range inside ``note``
    count: int | None = None
    deck: str | None = None
    title: str | None = None

    def describe(self, note_path: str | None = None) -> dict[str, Any]:
        return {"note": note_path or self.note, "folders": list(self.scope.folders), "tags": list(self.scope.tags),
                "files": list(self.scope.files), "topic": self.topic,
                "selection": bool(self.selection or self.lines)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> StudyRequest:
        scope_data = data.get("scope") or {}
        scope = Scope.from_dict(scope_data) if isinstance(scope_data, dict) else Scope.parse(list(scope_data))
        lines = data.get("lines")
        return cls(note=data.get("note") or None, scope=scope, topic=(data.get("topic") or None),
                   selection=data.get("selection") or None,
                   lines=(int(lines[0]), int(lines[1])) if isinstance(lines, (list, tuple)) and len(lines) == 2
                   else None,
                   count=int(data["count"]) if data.get("count") is not None else None,
                   deck=data.get("deck") or None, title=data.get("title") or None)


@dataclass(frozen=True, slots=True)
class Source(CitedPassage):
    """A passage handed to a generator, numbered from 1 in prompt order."""

    number: int = 0
    text: str = ""
    lang: str | None = None
    continues_section: bool = False  # a later part of a long section: it starts mid-section, maybe mid-sentence
    opens_note: bool = False  # the note's first passage: the only one the frontmatter's description line heads

    @property
    def label(self) -> str:
        crumb = " › ".join([self.title, *[h for h in self.heading_path[1:] if h]]) if self.heading_path \
            else self.title
        return crumb


@dataclass(slots=True)
class SourceSet:
    sources: list[Source]
    title: str  # what the material is about (note title, topic, folder names)
    note_path: str | None
    language: str
    # Only the extractive path reads these (a model's prompt holds ``sources`` alone):
    whole: list[Source] = field(default_factory=list)  # a note's every passage, uncut (a note request)
    outlines: dict[str, list[tuple[int, str]]] = field(default_factory=dict)  # per note: (level, heading)
    neighbours: list[Source] = field(default_factory=list)  # passages of nearby notes, for wrong quiz options

    def __post_init__(self) -> None:
        self.title = one_line(self.title)  # every generated note's title and headings are made from it

    @property
    def material(self) -> list[Source]:
        """What the extractive path studies: the note's every passage when there is one note, else the sources."""
        return self.whole or self.sources

    def by_number(self, number: Any) -> Source | None:
        if isinstance(number, bool):
            return None
        if isinstance(number, str) and number.strip().lstrip("[S").rstrip("]").isdigit():
            number = int(number.strip().lstrip("[S").rstrip("]"))
        if isinstance(number, float) and number.is_integer():
            number = int(number)
        if isinstance(number, int) and 1 <= number <= len(self.sources):
            return self.sources[number - 1]
        return None

    def notes(self) -> list[str]:
        return list(OrderedDict.fromkeys(s.path for s in self.sources))

    def prompt_block(self, labels: str = "number") -> str:
        """The passages for a prompt: ``[1] Title › Heading (path)`` then the text."""
        parts = []
        for source in self.sources:
            tag = f"[S{source.number}]" if labels == "S" else f"[{source.number}]"
            parts.append(f"{tag} {source.label} ({source.path})\n{source.text.strip()}")
        return "\n\n".join(parts)


def _title_of(engine: Engine, path: str) -> str:
    record = engine.store.catalog.file(path)
    return one_line(record.title if record is not None and record.title else PurePosixPath(path).stem)


def _in_study_folder(engine: Engine, path: str) -> bool:
    folder = engine.settings.study.folder.strip("/")
    return bool(folder) and (path == folder or path.startswith(folder + "/"))


def _section_continuations(chunks: list[Any]) -> set[str]:
    """Ids of the chunks (one note's, in order) that continue a section cut into parts: each part after the first
    repeats the end of the part before it, so it overlaps that part's lines under the same headings, which
    two different sections never do."""
    continuing: set[str] = set()
    previous = None
    for chunk in chunks:
        if previous is not None and previous.heading_path == chunk.heading_path \
                and chunk.line_start <= previous.line_end:
            continuing.add(chunk.id)
        previous = chunk
    return continuing


def _make_sources(engine: Engine, records: list[Any], *, budget: bool = True) -> list[Source]:
    """Numbered passages; with ``budget``, cut to what a model's prompt holds."""
    titles: dict[str, str] = {}
    continuations: dict[str, set[str]] = {}
    openings: dict[str, str] = {}  # per note: its first chunk's id
    sources: list[Source] = []
    total = 0
    for record in records:
        if budget and (len(sources) >= MAX_SOURCES or total >= MAX_TOTAL_CHARS):
            break
        if not record.text.strip():
            continue
        if record.path not in titles:
            titles[record.path] = _title_of(engine, record.path)
            chunks = list(engine.store.catalog.chunks_of(record.path))
            continuations[record.path] = _section_continuations(chunks)
            openings[record.path] = chunks[0].id if chunks else ""
        text = record.text if len(record.text) <= MAX_SOURCE_CHARS or not budget \
            else record.text[:MAX_SOURCE_CHARS] + " …"
        total += len(text)
        sources.append(Source(record.id, record.path, titles[record.path], tuple(record.heading_path),
                              record.content_hash, record.line_start, record.line_end, len(sources) + 1, text,
                              # an index built before "de/en" was read as two languages holds it as one
                              normalize_language(record.lang), record.id in continuations[record.path],
                              record.id == openings[record.path]))
    return sources


def _round_robin(groups: list[list[Any]], limit: int) -> list[Any]:
    """Take chunks from each note in turn so a large scope is covered evenly, then restore note order."""
    picked: list[tuple[int, int, Any]] = []
    depth = 0
    while len(picked) < limit and any(depth < len(g) for g in groups):
        for index, group in enumerate(groups):
            if depth < len(group) and len(picked) < limit:
                picked.append((index, depth, group[depth]))
        depth += 1
    picked.sort(key=lambda item: (item[0], item[1]))
    return [item[2] for item in picked]


def _language(sources: list[Source]) -> str:
    counts: dict[str, int] = {}
    for source in sources:
        if source.lang:
            counts[source.lang] = counts.get(source.lang, 0) + len(source.text)
    return max(counts, key=counts.__getitem__) if counts else "en"


def gather_sources(engine: Engine, request: StudyRequest, max_sources: int = MAX_SOURCES) -> SourceSet:
    """The passages for ``request``; GenerationError when the scope holds nothing."""
    from cognivault.engine import EngineError

    catalog = engine.store.catalog
    if request.note:
        try:
            path = engine.note_path(request.note)
        except EngineError as exc:
            raise GenerationError(str(exc), "unknown_note") from exc
        chunks = catalog.chunks_of(path)
        if request.lines:
            first, last = request.lines
            chunks = [c for c in chunks if c.line_start <= last and c.line_end >= first] or chunks
        elif request.selection:
            wanted = set(re.findall(r"\w{3,}", request.selection.casefold()))
            scored = [(len(wanted & set(re.findall(r"\w{3,}", c.text.casefold()))), c) for c in chunks]
            best = max((s for s, _ in scored), default=0)
            if best:
                chunks = [c for s, c in scored if s >= max(1, best // 2)]
        if request.topic and len(chunks) > max_sources:
            hits = engine.search(request.topic, k=max_sources, mode="hybrid", scope=Scope(files=[path]))
            keep = {r.chunk_id for r in hits.results}
            chunks = [c for c in chunks if c.id in keep] or chunks
        sources = _make_sources(engine, chunks[:max_sources])
        title = request.title or _title_of(engine, path)
        if not sources:
            raise GenerationError(f"{path} has no text to study from", "empty_scope")
        whole = _make_sources(engine, chunks, budget=False)
        return _with_surroundings(engine, SourceSet(sources, title, path, _language(sources), whole=whole))

    scope = request.scope
    if not scope.is_empty():
        all_paths = [f.path for f in catalog.files() if f.state == "indexed"]
        allowed = scope.resolve(catalog, all_paths) or set()
        explicit = {p.casefold() for p in scope.files}
        allowed = {p for p in allowed if not _in_study_folder(engine, p) or p.casefold() in explicit}
        if not allowed:
            raise GenerationError("nothing in the vault matches this scope; check the folder, tag or file names",
                                  "empty_scope")
        if request.topic:
            hits = engine.search(request.topic, k=max_sources, mode="hybrid", scope=Scope(files=sorted(allowed)))
            records = [engine.chunk(r.chunk_id) for r in hits.results]
            chunks = [r for r in records if r is not None]
        else:
            groups = [catalog.chunks_of(path) for path in sorted(allowed)]
            chunks = _round_robin([g for g in groups if g], max_sources)
        title = request.title or request.topic or _scope_title(scope)
    elif request.topic:
        hits = engine.search(request.topic, k=max_sources * 2, mode="hybrid")
        records = [engine.chunk(r.chunk_id) for r in hits.results]
        chunks = [r for r in records if r is not None and not _in_study_folder(engine, r.path)][:max_sources]
        title = request.title or request.topic
    else:
        raise GenerationError("say what to study from: a note, a scope (folder, tag, file) or a topic",
                              "no_scope")
    sources = _make_sources(engine, chunks)
    if not sources:
        raise GenerationError("nothing in the vault matches; try another topic or a wider scope", "empty_scope")
    return _with_surroundings(engine, SourceSet(sources, title, None, _language(sources)))


def _with_surroundings(engine: Engine, sources: SourceSet) -> SourceSet:
    """Add the notes' heading outlines and the passages of nearby notes (same language): the notes they link to
    or are linked from first (within the studied notes' top folders: a hub or a note of another subject linking
    them is no source of wrong options), then the notes of their folders; a small folder adds its parent folder's other
    notes, unless the parent is the vault itself (a vault's top folders are its subjects: a history note's quiz
    offers no term of a biology note as a wrong option)."""
    catalog = engine.store.catalog
    studied = sources.notes()
    for path in studied:
        row = catalog.note_row(path)
        sources.outlines[path] = [(int(h[0]), one_line(str(h[1]))) for h in (row or {}).get("headings") or []]
    graph = engine.link_graph()
    linked: set[str] = set()
    for path in studied:
        links = graph.neighbours(path)
        linked |= links.outgoing | links.incoming
    notes = [f.path for f in catalog.files() if f.state == "indexed" and f.path not in studied
             and f.path.endswith(".md") and not _in_study_folder(engine, f.path)]
    folders = {PurePosixPath(path).parent for path in studied}
    subjects = {_subject(path) for path in studied}
    # a link across subjects (anatomy → pharmacology, a hub → everything) does not make the other note's terms
    # plausible wrong options: linked notes count within the studied notes' top folders
    nearby = [path for path in notes if (path in linked and _subject(path) in subjects)
              or PurePosixPath(path).parent in folders]
    if len(nearby) < MAX_NEIGHBOUR_NOTES // 2:
        parents = {folder.parent for folder in folders} - {PurePosixPath(".")}
        taken = set(nearby)
        nearby += [path for path in notes if path not in taken and parents & set(PurePosixPath(path).parents)]
    nearby.sort(key=lambda path: (path not in linked, path))
    records = [c for path in nearby[:MAX_NEIGHBOUR_NOTES] for c in catalog.chunks_of(path)
               if (c.lang or sources.language) == sources.language]
    sources.neighbours = _make_sources(engine, records, budget=False)
    return sources


def _subject(path: str) -> str:
    """A note's subject as its vault shows it: its top folder ("" for a note at the vault's root)."""
    parts = PurePosixPath(path).parts
    return parts[0] if len(parts) > 1 else ""


def _scope_title(scope: Scope) -> str:
    parts = [PurePosixPath(f).name for f in scope.folders] + [f"#{t}" for t in scope.tags] \
        + [PurePosixPath(f).stem for f in scope.files] + [k if v is None else f"{k}={v}" for k, v in scope.properties]
    return ", ".join(parts) or "Vault"
