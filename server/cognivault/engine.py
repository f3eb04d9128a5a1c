"""The engine every front end calls: index a vault, search it, find related notes, report status.

It imports neither pygls nor aiohttp; the CLI, the language server and the
companion are thin layers over it. Search needs no model: without an
embedder it answers from the keyword index alone and says so.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, NamedTuple, Protocol, TypeVar

import numpy as np

from cognivault.config import Settings, load_settings
from cognivault.errors import CogniVaultError
from cognivault.graph import MARKDOWN_SUFFIXES, Snapshot
from cognivault.index.catalog import Catalog, ChunkRecord, FileRecord
from cognivault.index.generated import GeneratedNotes, study_prefix
from cognivault.index.hubs import HubNotes, asks_logistics, below_subject_notes
from cognivault.index.hybrid import FusedHit, FusionWeights, fuse_rankings, reciprocal_rank_fusion
from cognivault.index.lexical import QueryReading
from cognivault.index.multilingual import ACROSS_WEIGHT, MultilingualEncoder, MultilingualSide, across_languages
from cognivault.index.multilingual import WEIGHT as MULTILINGUAL_WEIGHT
from cognivault.index.multilingual import installed as multilingual_installed
from cognivault.index.multilingual import wanted as multilingual_wanted
from cognivault.index.named_note import as_note_name, open_with_named_note
from cognivault.index.pipeline import (
    EMBED_BATCH,
    OUTDATED,
    Indexer,
    IndexReport,
    Progress,
    ProgressCallback,
    breadcrumb,
    vector_of_note,
)
from cognivault.index.query_language import QueryLanguage, query_language
from cognivault.index.scope import Scope, query_tags, tagged_paths
from cognivault.index.snippets import make_snippet
from cognivault.index.store import IndexStore
from cognivault.index.word_bridge import WordBridge, bridged_reading
from cognivault.models.base import EmbeddingProvider, ModelUnavailable
from cognivault.paths import index_dir_for
from cognivault.vault.links import LinkResolver
from cognivault.vault.scan import IGNORE_FILE, VaultFile, file_kind, is_indexable, load_ignore_spec

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

log = logging.getLogger(__name__)

SEARCH_MODES = ("hybrid", "lexical", "dense")
ONLY_COMMON_WORDS = "the query holds only common words or punctuation: add a word that names what you are looking for"
CANDIDATES = 100

Built = TypeVar("Built")


class PerGeneration(Generic[Built]):
    """A value read from the catalog, kept until the catalog's generation changes (any committed write)."""

    def __init__(self, read: Callable[[Catalog], Built]) -> None:
        self._read = read
        self._kept: tuple[int, Built] | None = None

    def get(self, catalog: Catalog) -> Built:
        generation = catalog.generation()
        kept = self._kept
        if kept is not None and kept[0] == generation:
            return kept[1]
        value = self._read(catalog)
        self._kept = (generation, value)
        return value


class EngineError(CogniVaultError, ValueError):
    """A request the engine cannot serve (bad mode, unknown note, ...); the message says why."""

    code = "bad_request"


@dataclass(slots=True)
class SearchResult:
    chunk_id: str
    path: str
    title: str
    breadcrumb: str  # "Note > Section > Subsection", the title said once
    heading_path: list[str]
    line_start: int
    line_end: int
    locator: str
    score: float
    snippet: str
    highlights: list[tuple[int, int]]
    lexical_rank: int | None = None
    dense_rank: int | None = None

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


@dataclass(slots=True)
class SearchResponse:
    query: str
    mode: str
    language: str | None
    results: list[SearchResult]
    notes: list[str] = field(default_factory=list)  # e.g. "dense search unavailable: ..."
    elapsed_ms: float = 0.0
    indexing: dict[str, int] | None = None  # {"done", "total"} while an index pass runs

    def to_dict(self) -> dict[str, object]:
        answer: dict[str, object] = {
            "query": self.query, "mode": self.mode, "language": self.language,
            "results": [r.to_dict() for r in self.results], "notes": self.notes,
            "elapsed_ms": round(self.elapsed_ms, 2)}
        if self.indexing is not None:
            answer["indexing"] = self.indexing
        return answer


@dataclass(slots=True)
class RelatedNote:
    path: str
    title: str
    score: float
    reasons: list[str]

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class Reshape:
    """A note that changed what links reach in it (see _shape) but stayed a note at its path: the
    aliases it was and is linked by (its path links to it throughout)."""

    aliases_before: tuple[str, ...]
    aliases_after: tuple[str, ...]


@dataclass(slots=True)
class FileUpdates:
    """What :meth:`Engine.read_files` (and :meth:`Engine.update_files`) did."""

    updated: list[str] = field(default_factory=list)  # notes read again (new or changed)
    reshaped: list[str] = field(default_factory=list)  # of those, notes whose link targets changed (see _shape)
    reshapes: dict[str, Reshape] = field(default_factory=dict)  # of those, the ones that were notes before
    removed: list[str] = field(default_factory=list)  # files gone from disk, now gone from the index
    outdated: list[str] = field(default_factory=list)  # changed again before they were stored: left as they were
    failed: dict[str, str] = field(default_factory=dict)  # path -> why it could not be read (left as it was)
    whole_pass_needed: bool = False  # what changed needs an (incremental) pass over the whole vault
    full_pass: IndexReport | None = None  # that pass, when update_files ran it


class LiveWrites(Protocol):
    """What a live vault (:class:`cognivault.live.LiveVault`) asks of the engine's writes: its copy
    of the note graph patched around them instead of reloaded, and a pause between their steps
    while requests run (so they are not slowed down by the writes)."""

    def updating(self) -> AbstractContextManager[None]:
        """Entered around the writes of one update: readers keep the copy they have meanwhile."""

    def patch(self, engine: Engine, paths: set[str], before: int) -> None:
        """Still inside :meth:`updating`: ``paths`` were written, from catalog generation ``before`` on."""

    def pause(self) -> None:
        """Between two steps of a write."""

    def outdated(self, path: str) -> bool:
        """Between reading a changed note and storing it: whether it changed again meanwhile (then it
        is not stored: the newer change's update follows)."""


class _Unobserved:
    """Writes nobody watches (the CLI): nothing to patch, no pauses."""

    def updating(self) -> AbstractContextManager[None]:
        return nullcontext()

    def patch(self, engine: Engine, paths: set[str], before: int) -> None:
        pass

    def pause(self) -> None:
        pass

    def outdated(self, path: str) -> bool:
        return False


@dataclass(frozen=True, slots=True)
class NoteNeighbours:
    """A note's place in the vault's graph, as :meth:`Engine.related_to` weighs it."""

    outgoing: frozenset[str]  # notes it links to
    incoming: frozenset[str]  # notes that link to it
    tags: frozenset[str]  # casefolded
    keywords: str  # title and headings: the query when the note has no vector yet
    tags_of: Callable[[str], Iterable[str]]  # another note's tags


def note_keywords(title: str, headings: Iterable[str]) -> str:
    """A note's key words, the query of its related notes while it has no vector: title and headings."""
    return " ".join([title, *headings])


class LinkGraph:
    """Every note's resolved links both ways, its tags and its keywords: what related notes weigh,
    read from the note graph (:class:`cognivault.graph.Snapshot`) of one catalog generation."""

    def __init__(self, snapshot: Snapshot) -> None:
        self.generation = snapshot.generation
        self.outgoing: dict[str, set[str]] = defaultdict(set)
        self.incoming: dict[str, set[str]] = defaultdict(set)
        for link, target in snapshot.resolved().items():
            if target is not None and target != link.src:
                self.outgoing[link.src].add(target)
                self.incoming[target].add(link.src)
        self.tags: dict[str, tuple[str, ...]] = {path: note.tags for path, note in snapshot.notes.items()}
        self.keywords: dict[str, str] = {path: note_keywords(note.title, [h.text for h in note.headings])
                                         for path, note in snapshot.notes.items()}

    def neighbours(self, path: str) -> NoteNeighbours:
        return NoteNeighbours(frozenset(self.outgoing.get(path, ())), frozenset(self.incoming.get(path, ())),
                              frozenset(t.casefold() for t in self.tags.get(path, ())),
                              self.keywords.get(path, ""), lambda other: self.tags.get(other, ()))


class _Shape(NamedTuple):
    """What other notes' links can reach in a note: its title, aliases, headings and blocks."""

    title: str
    aliases: tuple[str, ...]
    headings: tuple[tuple[str, tuple[str, ...]], ...]
    blocks: tuple[str, ...]


def _shape(catalog: Catalog, path: str) -> _Shape | str | None:
    """``path``'s shape; "file" for a file indexed as no note, None when the index lacks it."""
    row = catalog.note_row(path)
    if row is None:
        return None if catalog.file(path) is None else "file"
    return _Shape(row["title"], tuple(str(a) for a in row["aliases"]),
                  tuple((h[1], tuple(h[3])) for h in row["headings"]), tuple(b[0] for b in row["blocks"]))


def _unchanged(previous: FileRecord | None, absolute: Path) -> bool:
    """Whether the indexed note ``previous`` still has the bytes of the file (a touch, a no-op save)."""
    if previous is None or previous.state != "indexed" or previous.size != absolute.stat().st_size:
        return False
    return previous.sha256 == hashlib.sha256(absolute.read_bytes()).hexdigest()


class Engine:
    """One vault's index and the operations on it. Thread-safe for concurrent searches."""

    def __init__(self, vault: Path, settings: Settings | None = None,
                 embedder: EmbeddingProvider | None | str = "auto", *, writable: bool = True,
                 weights: FusionWeights | None = None,
                 multilingual: MultilingualEncoder | None | str = "auto") -> None:
        self.vault = Path(vault).expanduser().resolve()
        if not self.vault.is_dir():
            raise EngineError(f"vault folder not found: {self.vault}")
        self.settings = settings or load_settings(self.vault)
        self.weights = weights or FusionWeights()
        self.embedder_error: str | None = None
        self._embedder = self._make_embedder(embedder)
        model_id = self._embedder.model_id if self._embedder else "none"
        dimension = self._embedder.dimension if self._embedder else 1
        self.index_dir = index_dir_for(self.vault, self.settings)
        self.store = IndexStore(self.index_dir, model_id, dimension, writable=writable)
        self.store.load_derived()
        self.multilingual = self._make_multilingual(multilingual)
        self.word_bridge = self._make_word_bridge(multilingual)
        self._index_lock = threading.Lock()
        self._indexer: Indexer | None = None
        self._languages: frozenset[str] | None = None
        self._graph: LinkGraph | None = None
        self._graph_lock = threading.Lock()
        self._generated = PerGeneration(self._read_generated_notes)
        self._resolver = PerGeneration(self._read_resolver)
        self._hubs = HubNotes()
        self._progress: Progress | None = None  # the running index pass's last step
        self.live: LiveWrites = _Unobserved()  # set by the live vault that keeps this engine current

    def _make_embedder(self, embedder: EmbeddingProvider | None | str) -> EmbeddingProvider | None:
        if embedder != "auto":
            return embedder if not isinstance(embedder, str) else None
        if self.keyword_only:
            return None  # chosen, not a failure: nothing to report
        from cognivault.models.registry import make_embedding_provider

        try:
            return make_embedding_provider(self.settings)
        except ModelUnavailable as exc:
            self.embedder_error = str(exc)
            log.warning("no embedding model: %s; search runs on keywords only", exc)
            return None

    def _make_multilingual(self, encoder: MultilingualEncoder | None | str) -> MultilingualSide | None:
        """The German meaning side: "auto" has it beside a meaning model when ``embedding.multilingual``
        is on and its extra is installed (see :mod:`cognivault.index.multilingual`)."""
        if encoder == "auto":
            on = self.settings.embedding.multilingual and self._embedder is not None and multilingual_installed()
            encoder = MultilingualEncoder() if on else None
        return MultilingualSide(self.store, encoder) if isinstance(encoder, MultilingualEncoder) else None

    def _make_word_bridge(self, encoder: MultilingualEncoder | None | str) -> WordBridge | None:
        """The word bridge (:mod:`cognivault.index.word_bridge`): with ``embedding.multilingual`` on and its extra
        installed, with or without a meaning model (keyword search reads a question across languages by it)."""
        if self.multilingual is not None:
            encoder = self.multilingual.encoder
        elif encoder == "auto":
            encoder = MultilingualEncoder() if self.settings.embedding.multilingual and multilingual_installed() \
                else None
        return WordBridge(self.store, encoder) if isinstance(encoder, MultilingualEncoder) else None

    @property
    def keyword_only(self) -> bool:
        """``embedding.provider = none``: no model is loaded, search runs on keywords."""
        return self.settings.embedding.provider == "none"

    @property
    def embedder(self) -> EmbeddingProvider | None:
        return self._embedder

    def close(self) -> None:
        try:
            if self._indexer is not None:
                self._indexer.stop()
        finally:
            self.store.close()

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- indexing ---------------------------------------------------------
    def _require_writer(self) -> None:
        if not self.store.writable:
            from cognivault.index.store import IndexBusy

            raise IndexBusy(self.store.busy or "another CogniVault process is writing this index; "
                            "it keeps it up to date")

    def index(self, progress: ProgressCallback | None = None) -> IndexReport:
        """Bring the index up to date with the vault (incremental by content); :attr:`live` pauses
        it between files while requests run."""
        self._require_writer()

        def track(event: Progress) -> None:
            self._progress = event
            if progress is not None:
                progress(event)

        with self._index_lock:
            indexer = self._indexer = Indexer(self.vault, self.settings, self.store, self._embedder, self.live.pause)
            self._progress = Progress("scan", 0, 0)
            try:
                report = indexer.run(track)
                self.store.catalog.set_meta("embedding_model", report.embedding_model)
                self._languages = None
                side = self.multilingual
                if side is not None and not report.interrupted:
                    # The main index is saved and searchable: German search is keywords alone until this ends.
                    started = time.perf_counter()
                    report.multilingual_chunks = side.fill(track, indexer.pause, lambda: indexer.stopping)
                    report.interrupted = indexer.stopping
                    report.timings["multilingual"] = time.perf_counter() - started
            finally:
                self._indexer = None
                self._progress = None
            if self.embedder_error:
                report.messages.append(f"no embeddings: {self.embedder_error}")
        if self.word_bridge is not None and not report.interrupted:
            # outside the index lock: edits are read meanwhile (search bridges words once their vectors are there)
            started = time.perf_counter()
            self.word_bridge.prepare()
            report.timings["word_bridge"] = time.perf_counter() - started
        return report

    def update_files(self, paths: Iterable[str], *, texts: Mapping[str, str] | None = None) -> FileUpdates:
        """The files at these vault paths changed (written, created or deleted; a rename is its old
        and its new path), on disk or in an editor: bring just them up to date, embeddings included,
        and run the incremental whole pass when one of them needs it (see :meth:`read_files`)."""
        updates = self.read_files(paths, texts=texts)
        if updates.updated:
            self.embed_files(updates.updated)
        if updates.whole_pass_needed:
            updates.full_pass = self.index()
        return updates

    def read_files(self, paths: Iterable[str], *, texts: Mapping[str, str] | None = None) -> FileUpdates:
        """Read these changed files again: what :meth:`update_files` does first, alone.

        Notes are read again and deleted files forgotten, their keyword entries patched at once; a
        note whose bytes did not change is left alone (so the answer cache survives a touch).
        ``texts``: editors' unsaved buffers of Markdown notes, indexed as they are (never skipped as
        unchanged; a buffer outlives its file's deletion). New passages get no vector here (keyword
        search has them at once; a passage whose text has a cached vector gets it): the caller
        embeds them with :meth:`embed_files` (the live vault does when the user pauses, so the model
        does not compete with requests while they type). :attr:`live` patches its note graph around
        the writes and pauses between their steps.

        What one file cannot settle needs an incremental whole pass, which the caller runs
        (``whole_pass_needed``): an attachment on disk (read in the isolated extractor of a pass; a
        deleted one is simply forgotten), a folder (added or moved in), a path gone from disk with
        indexed files under it (a folder removed or moved away), or a changed ``.cognivaultignore``.

        Holds the index lock as :meth:`index` does.
        """
        self._require_writer()
        updates = FileUpdates()
        paths = sorted(set(paths))
        with self._index_lock:
            spec = load_ignore_spec(self.vault)
            updates.whole_pass_needed = any(self._needs_whole_pass(path, spec) for path in paths)
            if not updates.whole_pass_needed:
                self._update_each(paths, texts or {}, spec, updates)
        return updates

    def _update_each(self, paths: list[str], texts: Mapping[str, str], spec: GitIgnoreSpec,
                     updates: FileUpdates) -> None:
        store, live = self.store, self.live
        indexer = self._indexer = Indexer(self.vault, self.settings, store, self._embedder, live.pause,
                                          live.outdated)
        try:
            with live.updating():
                generation = store.catalog.generation()
                for path in paths:
                    kind = file_kind(path)
                    if kind is not None and is_indexable(self.vault, path, store.folder, spec):
                        # An attachment's buffer is not what gets indexed: its file is, in a pass.
                        self._update_one(indexer, VaultFile(path, self.vault / path, kind),
                                         texts.get(path) if kind == "markdown" else None, updates)
                        indexer.pause()
                changed = set(updates.updated) | set(updates.removed)
                if changed:
                    live.patch(self, changed, generation)
            if changed:
                indexer.pause()
                store.update_lexical(changed, generation)  # only these notes' chunks: searchable at once
                self._languages = None
                indexer.add_stored_vectors(updates.updated)  # cached vectors cost nothing to add
        finally:
            self._indexer = None

    def embed_files(self, paths: Iterable[str], *, batch_size: int = EMBED_BATCH,
                    stop: Callable[[], bool] | None = None) -> int:
        """Embed the passages of these notes that have no vector yet (left so by
        :meth:`read_files`), ``batch_size`` at a time, until ``stop()`` says so; returns
        the vectors computed. Holds the index lock as :meth:`read_files` does."""
        self._require_writer()
        with self._index_lock:
            indexer = self._indexer = Indexer(self.vault, self.settings, self.store, self._embedder)
            try:
                computed = indexer.embed_paths(sorted(set(paths)), batch_size=batch_size, stop=stop)
                side = self.multilingual
                if side is not None and not (stop is not None and stop()):
                    side.fill(paths=sorted(set(paths)), batch_size=batch_size,
                              stopped=lambda: indexer.stopping or (stop is not None and stop()))
                return computed
            finally:
                self._indexer = None

    def _update_one(self, indexer: Indexer, vault_file: VaultFile, text: str | None,
                    updates: FileUpdates) -> None:
        path, absolute = vault_file.path, vault_file.absolute
        catalog = self.store.catalog
        previous = catalog.file(path)
        try:
            if text is None and not absolute.is_file():
                if previous is not None:
                    indexer.remove_paths([path])
                    updates.removed.append(path)
            elif vault_file.kind == "markdown" and (text is not None or not _unchanged(previous, absolute)):
                before = _shape(catalog, path)
                if indexer.index_markdown(vault_file, text=text).state == OUTDATED:
                    updates.outdated.append(path)
                    return
                updates.updated.append(path)
                after = _shape(catalog, path)
                if after != before:
                    updates.reshaped.append(path)
                    if isinstance(before, _Shape) and isinstance(after, _Shape):
                        updates.reshapes[path] = Reshape(before.aliases, after.aliases)
        except OSError as exc:  # gone or unreadable mid-way: its next event settles it
            log.warning("could not read %s: %s", path, exc)
            updates.failed[path] = str(exc)

    def _needs_whole_pass(self, path: str, spec: GitIgnoreSpec) -> bool:
        if path == IGNORE_FILE:
            return True
        absolute = self.vault / path
        if absolute.is_dir():
            return is_indexable(self.vault, path, self.store.folder, spec)  # a folder added or moved in
        catalog = self.store.catalog
        if not absolute.exists():
            # A folder removed or moved away, when the index has files under it (a file is forgotten here).
            return catalog.file(path) is None and any(f.path.startswith(path + "/") for f in catalog.files())
        kind = file_kind(path)  # an attachment is read in the isolated extractor of a pass
        return kind not in (None, "markdown") and is_indexable(self.vault, path, self.store.folder, spec)

    def take_over_writing(self) -> bool:
        """Read-only so far: become this index's writer if the process that wrote it has gone.

        True when this call made it the writer; the caller then runs :meth:`index` (edits made
        while nobody wrote are picked up by that pass) and keeps the index up to date from here on.
        """
        if not self.store.try_become_writer():
            return False
        self._languages = None
        return True

    def indexing(self) -> dict[str, int] | None:
        """``{"done": n, "total": m}`` (files read, then passages embedded) while an index pass runs, else None."""
        event = self._progress
        return None if event is None else {"done": event.done, "total": event.total}

    def stop_indexing(self) -> None:
        if self._indexer is not None:
            self._indexer.stop()

    # -- searching --------------------------------------------------------
    def vault_languages(self) -> frozenset[str]:
        if self._languages is None:
            self._languages = self.store.reader().languages()
        return self._languages

    def query_language(self, query: str) -> QueryLanguage:
        """The language ``query`` is read as, among the vault's (see :mod:`cognivault.index.query_language`)."""
        return query_language(query, self.store.lexical, self.vault_languages())

    def main_language(self) -> str | None:
        """The language most of the vault's passages are written in."""
        lexical = self.store.lexical
        return lexical.main_languages[0] if lexical is not None and lexical.main_languages else None

    def dense_weight(self, lang: str | None, keyword_hits: bool = True) -> float:
        """The say of meaning search in a hybrid ranking for a query in ``lang``; full when no passage
        holds the query's words (``keyword_hits`` False): meaning search is then all there is.

        A query with no clear language (None) may be in any of the vault's main languages: where the
        model knows them all it gets their weight, else ``FusionWeights.dense_unclear_language`` (a side
        that cannot help one of them must not decide a query that may be in it)."""
        if not keyword_hits:
            return 1.0
        known = self._embedder.languages if self._embedder is not None else None
        lexical = self.store.lexical
        languages = [lang] if lang else (lexical.main_languages if lexical is not None else [])
        if known is None or all(language in known for language in languages):
            return self.weights.dense_known_language
        return self.weights.dense_other_language if lang else self.weights.dense_unclear_language

    def search(self, query: str, k: int = 10, mode: str = "hybrid", scope: Scope | None = None,
               per_note: bool = False, query_vector: np.ndarray | None = None) -> SearchResponse:
        """Top ``k`` passages (or notes, with ``per_note``) for ``query``.

        ``query_vector`` skips embedding the query (a caller that already has it).
        """
        started = time.perf_counter()
        query = query.strip()
        if not query:
            raise EngineError("the query is empty")
        if mode not in SEARCH_MODES:
            raise EngineError(f"unknown search mode {mode!r}: use one of {', '.join(SEARCH_MODES)}")
        if k < 1:
            raise EngineError("k must be at least 1")
        store = self.store
        lexical = store.lexical
        notes: list[str] = []
        catalog = store.reader()
        asked = query
        query, tags = query_tags(query, lambda tag: bool(catalog.paths_with_tag(tag)))
        lang = self.query_language(query).lang
        if mode != "dense" and lexical is not None and len(lexical) and not lexical.query_terms(query, lang) \
                and not self.resolver().named(as_note_name(query)):  # a note may be called "The Who"
            # "the", "Was ist das?", "???": meaning search alone would return whatever lies nearest to nothing
            return SearchResponse(asked, mode, lang, [], [ONLY_COMMON_WORDS], (time.perf_counter() - started) * 1000,
                                  self.indexing())
        allowed_paths = scope.resolve(catalog, lexical.paths if lexical else [],
                                      self.generated_notes().paths) if scope else None
        if tags:
            tagged = tagged_paths(catalog, tags)
            allowed_paths = tagged if allowed_paths is None else allowed_paths & tagged
            notes.append("only notes tagged " + ", ".join(f"#{tag}" for tag in tags))
        keyword_hits: list[tuple[str, float]] = []
        ranked_dense: list[str] = []
        depth = max(CANDIDATES, k * 5)
        reading = asked_reading = None
        if mode in ("hybrid", "lexical") and lexical is not None:
            reading = asked_reading = lexical.read_query(query, lang)
            if self.word_bridge is not None and across_languages(reading.unknown_share):
                # asked across languages: also by the vault's words its unknown words are bridged to
                reading = bridged_reading(self.word_bridge, lexical, query, lang, reading)
            keyword_hits = [(hit.chunk_id, hit.score) for hit in lexical.search(query, lang, depth, allowed_paths,
                                                                              reading=reading)]
        ranked_lexical = [chunk_id for chunk_id, _ in keyword_hits]
        ranked_multilingual: list[str] = []
        ranked_across: list[str] = []
        side = self.multilingual if mode == "hybrid" and per_note and lexical is not None else None
        if side is not None and asked_reading is not None and across_languages(asked_reading.unknown_share):
            ranked_across = side.search(query, depth, self._allowed_ids(allowed_paths))
        # With no keyword hit meaning search is all there is, unless the multilingual side ranked the query: then a
        # model that cannot read the query's language gets no say ("Was ist eine Korallenbleiche?" on an English
        # note was ranked by the English-only model beside it, which put a German note on the thyroid first).
        dense_weight = self.dense_weight(lang, bool(ranked_lexical or ranked_across)) if mode == "hybrid" else 1.0
        if mode == "dense" or (mode == "hybrid" and dense_weight > 0):
            ranked_dense, note = self._dense_ranking(query, depth, allowed_paths, query_vector)
            if note:
                notes.append(note)
        if side is not None and lexical is not None and not ranked_across \
                and multilingual_wanted(lang, dense_weight, keyword_hits, lexical.path_of):
            ranked_multilingual = side.search(query, depth, self._allowed_ids(allowed_paths))
        if mode == "hybrid":
            fused = fuse_rankings(ranked_lexical, ranked_dense, self.weights, dense_weight,
                                  lexical.path_of if per_note and lexical is not None else None,
                                  reading.unknown_share if reading is not None else 0.0,
                                  ranked_multilingual, MULTILINGUAL_WEIGHT, ranked_across, ACROSS_WEIGHT)
        else:
            fused = reciprocal_rank_fusion(ranked_lexical, ranked_dense, 1.0, 1.0, self.weights.rrf_k)
        if lexical is not None:
            generated = self.generated_notes()
            fused = generated.below_sources(fused, lambda hit: lexical.path_of(hit.chunk_id))
            fused = generated.one_passage_each(fused, lambda hit: lexical.path_of(hit.chunk_id))
            if reading is not None:
                fused = self._hubs_below_subject_notes(fused, query, lang, reading)
            fused = self._open_with_named_note(fused, query, allowed_paths)
        results = self._results(fused, query, lang, k, per_note)
        if not results:
            notes = self._why_nothing_was_found(notes, scope, allowed_paths)
        return SearchResponse(asked, mode, lang, results, notes, (time.perf_counter() - started) * 1000,
                              self.indexing())

    def _why_nothing_was_found(self, notes: list[str], scope: Scope | None, allowed_paths: set[str] | None
                               ) -> list[str]:
        """The notes of a search that found nothing, saying why when it is not the query's words:
        nothing indexed yet (not "meaning search is not ready"), or a scope no note is in."""
        lexical = self.store.lexical
        if self.indexing() is None and (lexical is None or len(lexical) == 0):
            return ["nothing is indexed in this vault yet: run `cognivault index` first"]
        if allowed_paths is not None and not allowed_paths and scope is not None:
            return [*notes, f"no note is in the scope {scope}"]
        return notes

    def _hubs_below_subject_notes(self, fused: list[FusedHit], query: str, lang: str | None,
                                  reading: QueryReading) -> list[FusedHit]:
        """A hub's passages rank below the first other note holding the query's subject words (see :mod:`hubs`)."""
        lexical = self.store.lexical
        if lexical is None or asks_logistics(query, [lang] if lang else lexical.main_languages):
            return fused
        catalog = self.store.reader()
        subject = [term for term in reading.terms if term not in reading.frame_terms]
        return below_subject_notes(fused, lexical.path_of, lambda path: self._hubs.is_hub(catalog, path),
                                   lambda chunk_id: lexical.holds_any(chunk_id, subject))

    def _open_with_named_note(self, fused: list[FusedHit], query: str, allowed_paths: set[str] | None
                              ) -> list[FusedHit]:
        """A query that is a note's name puts that note's opening passage first (see :mod:`named_note`)."""
        name = as_note_name(query)
        lexical = self.store.lexical
        if not name or lexical is None:
            return fused
        generated = self.generated_notes().paths
        named = [path for path in self.resolver().named(name)
                 if path not in generated and (allowed_paths is None or path in allowed_paths)]
        catalog = self.store.reader()
        return open_with_named_note(fused, named, lexical.path_of,
                                    lambda path: next((c.id for c in catalog.chunks_of(path)), None))

    def _dense_ranking(self, query: str, depth: int, allowed_paths: set[str] | None,
                       vector: np.ndarray | None = None) -> tuple[list[str], str | None]:
        if self._embedder is None:
            if self.keyword_only:
                return [], "meaning-based search is off (embedding.provider = none); showing keyword results"
            return [], f"meaning-based search unavailable ({self.embedder_error or 'no embedding model'}); " \
                       "showing keyword results"
        dense = self.store.dense
        if dense is None or len(dense) == 0:
            return [], "no passages are embedded yet; showing keyword results"
        try:
            if vector is None:
                vector = self._embedder.embed_query(query)
        except ModelUnavailable as exc:
            return [], f"meaning-based search unavailable ({exc}); showing keyword results"
        allowed_ids = self._allowed_ids(allowed_paths)
        with self.store.lock:
            hits = dense.search(vector, depth, allowed_ids)
        return [hit.chunk_id for hit in hits], None

    def _allowed_ids(self, allowed_paths: set[str] | None) -> set[str] | None:
        """The chunk ids of a search's scope (None: no scope)."""
        if allowed_paths is None:
            return None
        return {cid for cid, path, _ in self.store.reader().chunk_ids_and_hashes() if path in allowed_paths}

    def _results(self, fused: list[FusedHit], query: str, lang: str | None, k: int, per_note: bool
                 ) -> list[SearchResult]:
        lexical = self.store.lexical
        picked = []
        seen_paths: set[str] = set()
        # Read chunk rows a batch at a time: k of them are usually enough (per note needs more).
        batch = max(k * 4, 40) if per_note else k + 5
        for first in range(0, len(fused), batch):
            window = fused[first:first + batch]
            records = self.store.reader().chunks([hit.chunk_id for hit in window])
            for hit in window:
                record = records.get(hit.chunk_id)
                if record is None:
                    continue
                if per_note:
                    if record.path in seen_paths:
                        continue
                    seen_paths.add(record.path)
                picked.append((hit, record))
                if len(picked) >= k:
                    break
            if len(picked) >= k:
                break
        titles = self._titles({record.path for _, record in picked})
        query_terms = set(lexical.query_terms(query, lang)) if lexical else set()
        results = []
        for hit, record in picked:
            headings = record.heading_path if record.path.lower().endswith(MARKDOWN_SUFFIXES) else None
            snippet = make_snippet(record.text, query_terms, lexical.analyzer, record.lang,
                                   markdown_headings=headings) if lexical else None
            results.append(SearchResult(
                chunk_id=record.id, path=record.path, title=titles.get(record.path, record.path),
                breadcrumb=breadcrumb(titles.get(record.path, record.path), record.heading_path),
                heading_path=list(record.heading_path), line_start=record.line_start,
                line_end=record.line_end, locator=record.locator, score=round(hit.score, 6),
                snippet=snippet.text if snippet else record.text[:240],
                highlights=snippet.highlights if snippet else [],
                lexical_rank=hit.lexical_rank, dense_rank=hit.dense_rank))
        return results

    def chunk_paths(self, chunk_ids: list[str]) -> dict[str, str]:
        """The note path of each chunk id: from the keyword index in memory where it has the chunk,
        from the catalog for the rest (reading hundreds of chunk rows, texts and all, just for their
        paths was most of a related-notes request on a large vault)."""
        lexical = self.store.lexical
        found = {cid: p for cid in chunk_ids if lexical is not None and (p := lexical.path_of(cid)) is not None}
        missing = [cid for cid in chunk_ids if cid not in found]
        if missing:
            found.update((cid, record.path) for cid, record in self.store.reader().chunks(missing).items())
        return found

    def _titles(self, paths: set[str]) -> dict[str, str]:
        return self.store.reader().titles(sorted(paths))

    def chunk(self, chunk_id: str) -> ChunkRecord | None:
        return self.store.reader().chunks([chunk_id]).get(chunk_id)

    # -- related notes ----------------------------------------------------
    def resolver(self) -> LinkResolver:
        """How links (and names) find notes, built once per catalog generation."""
        return self._resolver.get(self.store.reader())

    @staticmethod
    def _read_resolver(catalog: Catalog) -> LinkResolver:
        return LinkResolver([f.path for f in catalog.files() if f.state == "indexed"],
                            {path: aliases for path, _, aliases, _ in catalog.notes()})

    def note_path(self, name: str) -> str:
        """The vault path of a note given as a path or a name; EngineError when there is none.

        A path on disk inside the vault also works: absolute, with ``~``, or relative to the current
        folder (what a shell completes: ``notes/Biology/Cells.md`` run beside the vault ``notes``).
        """
        candidate = self._vault_relative(name)
        if self.store.reader().file(candidate) is not None:
            return candidate
        resolved = self.resolver().resolve(candidate)
        if resolved is None:
            raise EngineError(f"no indexed note matches {name!r}")
        return resolved

    def _vault_relative(self, name: str) -> str:
        """``name`` as a vault path when it is a path on disk inside the vault, else stripped of a leading "/"."""
        candidate = name.strip()
        try:
            written = Path(candidate).expanduser()
            on_disk = written.resolve()
            if (written.is_absolute() or on_disk.exists()) and on_disk.is_relative_to(self.vault):
                candidate = on_disk.relative_to(self.vault).as_posix()
        except (OSError, ValueError, RuntimeError):
            pass
        return candidate.lstrip("/")

    def generated_notes(self) -> GeneratedNotes:
        """The vault's generated study notes and their sources, read once per catalog generation."""
        return self._generated.get(self.store.reader())

    def _read_generated_notes(self, catalog: Catalog) -> GeneratedNotes:
        candidates = catalog.frontmatter_of_generated(study_prefix(self.settings.study.folder))
        resolver = self.resolver() if candidates else None
        return GeneratedNotes.build(candidates, self.settings.study.folder,
                                    lambda target, source: resolver.resolve(target, source)
                                    if resolver is not None else None)

    def link_graph(self) -> LinkGraph:
        """The vault's link graph at the catalog's current generation (built once per generation)."""
        generation = self.store.reader().generation()
        with self._graph_lock:
            if self._graph is None or self._graph.generation != generation:
                self._graph = LinkGraph(Snapshot.load(self.store.reader()))
            return self._graph

    def related(self, note: str, k: int = 10, include_linked: bool = False,
                include_generated: bool = False) -> list[RelatedNote]:
        """Notes closest in meaning to ``note`` plus its link neighbours, best first; generated
        study notes left out unless ``include_generated``. A note on disk that is not indexed yet
        (the first pass has not reached it, it was just written) is read now and answered by its
        key words and links."""
        if k < 1:
            raise EngineError("k must be at least 1")
        try:
            path = self.note_path(note)
            neighbours = self.link_graph().neighbours(path)
        except EngineError:
            path = self._vault_relative(note)
            absolute = self.vault / path
            if file_kind(path) != "markdown" or not absolute.is_file() or \
                    not absolute.resolve().is_relative_to(self.vault):
                raise
            neighbours = self.neighbours_of_text(path, absolute.read_text("utf-8", errors="replace"))
        return self.related_to(path, neighbours, k, include_linked, include_generated)

    def neighbours_of_text(self, path: str, text: str) -> NoteNeighbours:
        """The graph data of a note read from ``text`` (a note the index does not have yet): its links
        resolved against the index, the notes already linking to it, its tags and key words."""
        from cognivault.vault.markdown import parse_note

        parsed = parse_note(text, path)
        resolver = self.resolver()
        graph = self.link_graph()
        outgoing = {target for link in parsed.links if link.target
                    and (target := resolver.resolve(link.target, path)) is not None and target != path}
        return NoteNeighbours(frozenset(outgoing), frozenset(graph.incoming.get(path, ())),
                              frozenset(t.casefold() for t in parsed.tags),
                              note_keywords(parsed.title, [h.text for h in parsed.headings]),
                              lambda other: graph.tags.get(other, ()))

    def related_to(self, path: str, neighbours: NoteNeighbours, k: int = 10,
                   include_linked: bool = False, include_generated: bool = False) -> list[RelatedNote]:
        """The ranking of :meth:`related` for ``path`` with its graph given (the language server
        passes its own, already resolved, with the editor's view of the vault)."""
        scores: dict[str, float] = defaultdict(float)
        reasons: dict[str, list[str]] = defaultdict(list)
        centroid = vector_of_note(self.store, path)
        if centroid is not None and self.store.dense is not None:
            with self.store.lock:
                hits = self.store.dense.search(centroid, 400)
            best = {hit.chunk_id: hit.score for hit in hits}
            per_note: dict[str, float] = {}
            for chunk_id, other in self.chunk_paths(list(best)).items():
                if other != path:
                    per_note[other] = max(per_note.get(other, -1.0), best[chunk_id])
            for other, score in per_note.items():
                scores[other] += score
                reasons[other].append(f"similar in meaning ({score:.2f})")
        elif neighbours.keywords.strip():
            for result in self.search(neighbours.keywords, k=k * 3, mode="lexical", per_note=True).results:
                if result.path != path:
                    scores[result.path] += 0.5
                    reasons[result.path].append("shares key words")
        for neighbour in neighbours.outgoing | neighbours.incoming:
            scores[neighbour] += 0.1
            reasons[neighbour].append("links here" if neighbour in neighbours.incoming else "linked from this note")
        if neighbours.tags:
            for other in list(scores):
                shared = sorted(neighbours.tags & {t.casefold() for t in neighbours.tags_of(other)})
                if shared:
                    scores[other] += 0.05 * len(shared)
                    reasons[other].append("shared tags: " + ", ".join(shared))
        if not include_linked:
            for linked in neighbours.outgoing:
                scores.pop(linked, None)
        if not include_generated:
            for generated in self.generated_notes().paths & scores.keys():
                scores.pop(generated)
        ranked = sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:k]
        titles = self._titles({p for p, _ in ranked})
        return [RelatedNote(p, titles.get(p, p), round(s, 4), reasons[p]) for p, s in ranked]

    # -- status -----------------------------------------------------------
    def _multilingual_status(self, chunks: int) -> dict[str, object]:
        """The German meaning side: off, or its passages embedded and whether search uses it yet."""
        side = self.multilingual
        if side is None:
            return {"on": False}
        return {"on": True, "done": self.store.catalog.embedded_chunk_count(side.encoder.model_id),
                "total": chunks, "filled": side.filled}

    def status(self, per_file: bool = True) -> dict[str, object]:
        catalog = self.store.catalog
        files = catalog.files()
        counts: dict[str, int] = defaultdict(int)
        for record in files:
            counts[record.state] += 1
        consistency = self.store.consistency()
        chunks, embedded = consistency["catalog_chunks"], consistency["embedded_chunks"]
        assert isinstance(chunks, int) and isinstance(embedded, int)
        lexical = self.store.lexical
        status: dict[str, object] = {
            "vault": str(self.vault),
            "index_dir": str(self.index_dir),
            "writable": self.store.writable,
            "writer_pid": self.store.writer.holder() or None,  # this process's pid when writable
            "embedding": {
                "provider": self.settings.embedding.provider,
                "model_id": self._embedder.model_id if self._embedder else None,
                "recorded_model_id": catalog.get_meta("embedding_model"),
                "error": self.embedder_error,
                "models_in_cache": catalog.embedding_models(),
            },
            "files": {"total": len(files), **counts},
            "stages": {
                "extracted": {"done": counts.get("indexed", 0), "total": len(files)},
                "lexical": {"chunks": len(lexical) if lexical else 0, "total": chunks,
                            "up_to_date": bool(lexical and lexical.generation == catalog.generation())},
                "embedded": {"done": embedded, "total": chunks,
                             "coverage": round(embedded / chunks, 4) if chunks else 1.0},
                "multilingual": self._multilingual_status(chunks),
            },
            "consistency": consistency,
            "messages": list(self.store.messages),
        }
        if per_file:
            status["per_file"] = [
                {"path": r.path, "kind": r.kind, "state": r.state, "reason": r.reason,
                 "chunks": r.chunk_count, "lang": r.lang} for r in files]
        return status


def open_engine(vault: Path, overrides: dict[str, Any] | None = None, *,
                writable: bool = True, embedder: EmbeddingProvider | str | None = "auto") -> Engine:
    """The engine of ``vault`` with its settings (``overrides`` on top), as the commands open it.

    Raises ConfigError or EngineError (both :class:`CogniVaultError`: one line for the user).
    """
    return Engine(vault, load_settings(vault, overrides), embedder=embedder, writable=writable)


def open_engine_or_keywords(vault: Path, *, writable: bool = True, keyword_only: bool = False) -> Engine:
    """:func:`open_engine`, searching on keywords alone when ``keyword_only`` or when this install has no
    embedding backend (importing it fails)."""
    if keyword_only:
        return open_engine(vault, writable=writable, embedder=None)
    try:
        return open_engine(vault, writable=writable)
    except ImportError:
        return open_engine(vault, writable=writable, embedder=None)
