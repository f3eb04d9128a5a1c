"""Indexing a vault: scan, read, chunk, catalog, then embed only what is new.

Notes are read in-process (fast, and the lexical index is rebuilt as soon as
they are in); attachments are read in an isolated worker while the main
thread embeds, so embedding starts at once and the CPU never idles. Work is
committed file by file and batch by batch: an interrupted run loses nothing
already done, and the next run resumes where it stopped. Unchanged files are
skipped, except notes cut by another version of the chunker
(``vault.chunking.CHUNKER_VERSION``), which are cut again, and attachments read
by another version of their format's extractor (``EXTRACTOR_VERSIONS``), which
are read again; their unchanged passages keep their vectors.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from cognivault.config import Settings
from cognivault.index.analysis import detect_language, passage_language, words
from cognivault.index.catalog import ChunkRecord, FileRecord
from cognivault.index.isolation import AttachmentResult, IsolatedExtractor
from cognivault.index.lexical import join_words
from cognivault.index.store import IndexStore
from cognivault.models.base import EmbeddingProvider
from cognivault.vault.chunking import CHUNKER_VERSION, chunk_note
from cognivault.vault.extractors import EXTRACTOR_VERSIONS, availability
from cognivault.vault.markdown import parse_note
from cognivault.vault.scan import VaultFile, open_vault_file, scan_vault
from cognivault.vault.types import ChunkDraft, Extraction, ParsedNote

log = logging.getLogger(__name__)

MIN_PROSE_CHARS = 100
MIN_STRUCTURED_CHARS = 20
EMBED_BATCH = 64
CHUNKER_META = "note_chunker_version"  # the catalog's record of the chunker its notes' passages came from
EXTRACTOR_META = "extractor_version:"  # + a format: the catalog's record of the extractor its files' text came from

_TOO_SHORT = "its readable text is too short to index"
_NO_TEXT = "no readable text was found in it"
_TEXTLESS = (_TOO_SHORT, _NO_TEXT)  # verdicts on a file's content: final while the file is unchanged

@dataclass(slots=True)
class FileReport:
    path: str
    kind: str
    state: str  # indexed | unchanged | skipped | failed | deleted
    reason: str | None = None
    chunks: int = 0


@dataclass(slots=True)
class IndexReport:
    vault: str
    index_dir: str
    embedding_model: str
    files: list[FileReport] = field(default_factory=list)
    embedded_chunks: int = 0  # vectors computed in this run
    multilingual_chunks: int = 0  # vectors computed for the German meaning side (index/multilingual.py)
    reused_chunks: int = 0  # chunks whose vector came from the cache
    unsupported_files: int = 0
    ignored_files: int = 0
    timings: dict[str, float] = field(default_factory=dict)
    consistency: dict[str, object] = field(default_factory=dict)
    messages: list[str] = field(default_factory=list)
    interrupted: bool = False

    def totals(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for report in self.files:
            counts[report.state] = counts.get(report.state, 0) + 1
        counts["chunks"] = sum(r.chunks for r in self.files if r.state in ("indexed", "unchanged"))
        return counts

    def to_dict(self) -> dict[str, object]:
        data = asdict(self)
        data["totals"] = self.totals()
        return data


@dataclass(frozen=True, slots=True)
class Progress:
    stage: str  # scan | read | embed | finish
    done: int
    total: int
    current: str = ""


ProgressCallback = Callable[[Progress], None]


def breadcrumb(title: str | None, heading_path: Sequence[str]) -> str:
    """``Note > Section > Subsection``; a top heading that repeats the title is said once."""
    headings = list(heading_path)
    if title and headings and headings[0].casefold() == title.casefold():
        headings = headings[1:]
    return " > ".join([title or "", *headings]).strip(" >")


def embedding_input(title: str | None, heading_path: Sequence[str], text: str) -> str:
    """What is embedded (and hashed) for a chunk: its breadcrumb line, then its text."""
    crumb = breadcrumb(title, heading_path)
    return f"{crumb}\n{text}" if crumb else text


def chunk_id(path: str, anchor: str) -> str:
    return hashlib.sha256(f"{path}\x00{anchor}".encode()).hexdigest()[:16]


def _sha256_file(vault_file: VaultFile) -> str:
    digest = hashlib.sha256()
    with open_vault_file(vault_file) as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def make_chunk_records(path: str, title: str, lang: str | None,
                       drafts: Sequence[ChunkDraft]) -> list[ChunkRecord]:
    records: list[ChunkRecord] = []
    seen: dict[str, int] = {}
    for draft in drafts:
        anchor = draft.anchor
        if anchor in seen:  # a reader produced the same anchor twice: keep both, distinctly
            seen[anchor] += 1
            anchor = f"{anchor}\x1d{seen[anchor]}"
        else:
            seen[anchor] = 0
        text_input = embedding_input(title, draft.heading_path, draft.text)
        records.append(ChunkRecord(
            id=chunk_id(path, anchor), path=path, ord=len(records), heading_path=tuple(draft.heading_path),
            line_start=draft.line_start, line_end=draft.line_end, locator=draft.locator, text=draft.text,
            content_hash=hashlib.sha256(text_input.encode()).hexdigest(),
            lang=passage_language(draft.lang, draft.text, lang),
            words=join_words(words(breadcrumb(title, draft.heading_path)), words(draft.text))))
    return records


def _keep(draft: ChunkDraft) -> bool:
    minimum = MIN_STRUCTURED_CHARS if draft.structured else MIN_PROSE_CHARS
    return len(draft.text.strip()) >= minimum


def _file_language(note_lang: str | None, drafts: Sequence[ChunkDraft]) -> str | None:
    sample = "\n".join(d.text for d in drafts)[:1500]
    return passage_language(note_lang, sample, None) or detect_language(sample)


def _reader_versions() -> dict[str, tuple[str, str, str | None]]:
    """Per kind of file: its catalog meta key, the version of its reader (the chunker for notes, else
    the format's extractor), and the version to assume when none is recorded (None: outdated)."""
    versions: dict[str, tuple[str, str, str | None]] = {"markdown": (CHUNKER_META, str(CHUNKER_VERSION), None)}
    for kind, version in EXTRACTOR_VERSIONS.items():
        versions[kind] = (EXTRACTOR_META + kind, str(version), "1")
    return versions


OUTDATED = "outdated"  # a note's state when it changed again between being read and stored (not stored)


class Indexer:
    """Brings a vault's index up to date. ``stop()`` (from another thread) ends a run early, cleanly."""

    def __init__(self, vault: Path, settings: Settings, store: IndexStore,
                 embedder: EmbeddingProvider | None, pause: Callable[[], object] | None = None,
                 outdated: Callable[[str], bool] | None = None) -> None:
        self.vault = vault.resolve()
        self.settings = settings
        self.store = store
        self.embedder = embedder
        # Called between the steps of storing a note and between the files and stages of a pass
        # (none holds a lock or a transaction): the live vault waits there while requests run.
        self.pause = pause or (lambda: None)
        # Asked after a note is read, before it is stored: True when it changed again meanwhile.
        self.outdated = outdated or (lambda path: False)
        self._stopping = False
        self._extractor: IsolatedExtractor | None = None
        self.embed_seconds = 0.0  # inside the model: the embedding rate apart from reading attachments

    @property
    def stopping(self) -> bool:
        """Whether :meth:`stop` was called."""
        return self._stopping

    def stop(self) -> None:
        self._stopping = True
        if self._extractor is not None:
            self._extractor.stop()

    # -- one file ---------------------------------------------------------
    def index_markdown(self, vault_file: VaultFile, text: str | None = None,
                       digest: str | None = None) -> FileReport:
        """Read, parse and store one note (``text`` given: an editor's unsaved buffer)."""
        stat = vault_file.absolute.stat() if vault_file.absolute.exists() else None
        if text is None:
            size_mb = stat.st_size / 1024**2 if stat is not None else 0.0
            if size_mb > self.settings.index.max_file_mb:
                return self._record_failure(
                    vault_file, f"note is {size_mb:.1f} MB, over the {self.settings.index.max_file_mb:g} MB "
                                "limit (index.max_file_mb)", None, stat)
            with open_vault_file(vault_file) as handle:
                raw = handle.read()
            digest = hashlib.sha256(raw).hexdigest()
            if b"\x00" in raw[:8192]:
                return self._record_failure(vault_file, "binary data in a Markdown file", digest, stat)
            text = raw.decode("utf-8", errors="replace")
        elif digest is None:
            digest = hashlib.sha256(text.encode()).hexdigest()
        note = parse_note(text, vault_file.path)
        drafts = chunk_note(text, note, vault_file.path, chunk_chars=self.settings.index.chunk_chars,
                            overlap=self.settings.index.chunk_overlap)
        lang = _file_language(note.lang, drafts)
        self.pause()
        if self.outdated(vault_file.path):
            return FileReport(vault_file.path, vault_file.kind, OUTDATED, "changed again before it was stored")
        return self._store_file(vault_file, digest, stat, note.title, lang, drafts, note)

    def _store_file(self, vault_file: VaultFile, digest: str, stat: object, title: str,
                    lang: str | None, drafts: Sequence[ChunkDraft], note: ParsedNote | None) -> FileReport:
        records = make_chunk_records(vault_file.path, title, lang, drafts)
        old = {c.id: c.content_hash for c in self.store.catalog.chunks_of(vault_file.path)}
        record = FileRecord(vault_file.path, vault_file.kind, digest, getattr(stat, "st_size", 0),
                            getattr(stat, "st_mtime_ns", 0), "indexed", None, title, lang, len(records),
                            time.time())
        self.store.catalog.replace_file(record, records, note)
        new = {c.id: c.content_hash for c in records}
        stale = [cid for cid, content in old.items() if new.get(cid) != content]
        if stale:
            self.pause()
            self.store.remove_vectors(stale)
        return FileReport(vault_file.path, vault_file.kind, "indexed", None, len(records))

    def _record_failure(self, vault_file: VaultFile, reason: str, digest: str | None,
                        stat: object, state: str = "failed") -> FileReport:
        old_ids = [c.id for c in self.store.catalog.chunks_of(vault_file.path)]
        self.store.catalog.mark_file(vault_file.path, vault_file.kind, state, reason, digest,
                                     getattr(stat, "st_size", 0), getattr(stat, "st_mtime_ns", 0))
        if old_ids:
            self.store.remove_vectors(old_ids)
        return FileReport(vault_file.path, vault_file.kind, state, reason)

    def _store_attachment(self, vault_file: VaultFile, digest: str, result: AttachmentResult) -> FileReport:
        stat = vault_file.absolute.stat() if vault_file.absolute.exists() else None
        if result.state != "indexed" or result.extraction is None:
            return self._record_failure(vault_file, result.reason or "unknown error", digest, stat,
                                        state=result.state)
        extraction: Extraction = result.extraction
        drafts = [d for d in extraction.chunks if _keep(d)]
        if not drafts:  # nothing searchable came out of it: say so rather than "indexed, 0 chunks"
            found = sum(len(d.text.strip()) for d in extraction.chunks)
            reason = (f"{_TOO_SHORT} ({found} characters)" if found else _NO_TEXT)
            return self._record_failure(vault_file, reason, digest, stat, state="skipped")
        title = Path(vault_file.path).name
        return self._store_file(vault_file, digest, stat, title, _file_language(None, drafts), drafts, None)

    def remove_paths(self, paths: Sequence[str]) -> list[FileReport]:
        reports = []
        for path in paths:
            old_ids = [c.id for c in self.store.catalog.chunks_of(path)]
            record = self.store.catalog.file(path)
            self.store.catalog.delete_files([path])
            if old_ids:
                self.store.remove_vectors(old_ids)
            reports.append(FileReport(path, record.kind if record else "?", "deleted"))
        return reports

    # -- embedding --------------------------------------------------------
    def embed_pending(self, progress: ProgressCallback | None = None,
                      between_batches: Callable[[], None] | None = None, done_before: int = 0) -> tuple[int, int]:
        """Embed chunks that have no vector for the current model; add all missing vectors to FAISS.

        Progress counts on from ``done_before`` (chunks this pass embedded already). Returns
        (vectors computed, chunks served from the cache).
        """
        if self.embedder is None or self.store.dense is None:
            return 0, 0
        model_id = self.embedder.model_id
        computed = 0
        done_total = done_before
        while not self._stopping:
            pending = self.store.catalog.missing_embeddings(model_id)
            if not pending:
                break
            pending.sort(key=lambda item: len(item[3]))
            total = done_total + len(pending)
            for start in range(0, len(pending), EMBED_BATCH):
                if self._stopping:
                    break
                batch = pending[start:start + EMBED_BATCH]
                self._embed_batch(batch)
                computed += len(batch)
                done_total += len(batch)
                if progress:
                    progress(Progress("embed", done_total, total))
                if between_batches:
                    between_batches()
        reused = self._add_missing_vectors()
        return computed, reused

    def embed_paths(self, paths: Sequence[str], batch_size: int = EMBED_BATCH,
                    stop: Callable[[], bool] | None = None) -> int:
        """Embed the chunks of just these files that have no vector yet and make all their vectors
        searchable; returns the vectors computed. ``stop()`` is asked after each batch: True ends
        the work early (the rest stays for a later call).

        For per-file updates: unlike :meth:`embed_pending` it never scans the whole catalog or
        reconciles the whole FAISS index (each of those takes hundreds of milliseconds on a vault
        of 50k chunks, with the GIL or the index lock held).
        """
        if self.embedder is None or self.store.dense is None or not paths:
            return 0
        pending = sorted(self.store.catalog.missing_embeddings(self.embedder.model_id, paths),
                         key=lambda item: len(item[3]))
        computed = 0
        for start in range(0, len(pending), batch_size):
            if self._stopping or computed and stop is not None and stop():
                break
            batch = pending[start:start + batch_size]
            self._embed_batch(batch)
            computed += len(batch)
        self.add_stored_vectors(paths)
        return computed

    def add_stored_vectors(self, paths: Sequence[str]) -> None:
        """Make the chunks of these files searchable by meaning when their text has a vector already
        (the cache: an undo, a passage moved between notes), without computing any."""
        if self.embedder is None or self.store.dense is None:
            return
        catalog, dense = self.store.catalog, self.store.dense
        missing = [c.id for path in paths for c in catalog.chunks_of(path) if not dense.contains(c.id)]
        if missing:
            found = list(catalog.embedded_chunks(self.embedder.model_id, missing))
            with self.store.lock:
                dense.add((chunk_id, vector) for chunk_id, vector in found if not dense.contains(chunk_id))

    def _embed_batch(self, batch: Sequence[tuple[str, str | None, tuple[str, ...], str]]) -> None:
        """Embed rows of :meth:`Catalog.missing_embeddings`, cache the vectors and add them to FAISS."""
        assert self.embedder is not None
        started = time.perf_counter()
        vectors = self.embedder.embed_documents(
            [embedding_input(title, heading, text) for _, title, heading, text in batch])
        self.embed_seconds += time.perf_counter() - started
        by_hash = {item[0]: vectors[i] for i, item in enumerate(batch)}
        self.store.catalog.store_embeddings(self.embedder.model_id, list(by_hash.items()))
        self._add_vectors(by_hash)

    def _add_vectors(self, by_hash: dict[str, np.ndarray]) -> None:
        """Make freshly embedded chunks searchable at once (progressive dense results)."""
        assert self.store.dense is not None
        found = self.store.catalog.chunk_ids_for_hashes(list(by_hash))
        with self.store.lock:
            dense = self.store.dense
            dense.add((chunk_id, by_hash[content_hash]) for chunk_id, content_hash in found
                      if not dense.contains(chunk_id))

    def _add_missing_vectors(self) -> int:
        assert self.store.dense is not None
        with self.store.lock:
            added, _ = self.store.dense.reconcile(self.store.catalog)
        return added

    # -- a whole run --------------------------------------------------------
    def _read_by_other_versions(self, known: Iterable[FileRecord]) -> set[str]:
        """The kinds of files (``markdown`` for notes, else an attachment format) whose indexed passages
        came from another version of their reader: a pass reads every file of these kinds again. A kind
        with no file indexed yet is marked as read by this version at once, so an interrupted first
        pass resumes where it stopped."""
        catalog = self.store.catalog
        indexed = {record.kind for record in known}
        outdated: set[str] = set()
        for kind, (key, version, unrecorded) in _reader_versions().items():
            if catalog.get_meta(key, unrecorded) == version:
                continue
            if kind in indexed:
                outdated.add(kind)
            else:
                catalog.set_meta(key, version)
        return outdated

    def _mark_read_by_this_version(self, kinds: Iterable[str]) -> None:
        versions = _reader_versions()
        for kind in kinds:
            key, version, _ = versions[kind]
            self.store.catalog.set_meta(key, version)

    def run(self, progress: ProgressCallback | None = None) -> IndexReport:
        started = time.perf_counter()
        store = self.store
        report = IndexReport(str(self.vault), str(store.folder),
                             self.embedder.model_id if self.embedder else "none")
        report.messages.extend(store.messages)
        if store.lexical is None or store.dense is None:
            store.load_derived()
        scan = scan_vault(self.vault, extra_ignored=(store.folder,))
        report.unsupported_files, report.ignored_files = scan.unsupported, scan.ignored
        report.timings["scan"] = time.perf_counter() - started
        known = {record.path: record for record in store.catalog.files()}
        present = {f.path for f in scan.files}
        unseen = tuple(folder + "/" for folder in scan.unreadable_dirs)  # kept as indexed: not deleted
        report.files.extend(self.remove_paths([p for p in known if p not in present and not p.startswith(unseen)]))
        report.files.extend(FileReport(problem.path, problem.kind, "skipped", problem.reason)
                            for problem in scan.problems)

        usable = availability(self.settings.index)
        reread = self._read_by_other_versions(known.values())
        attachments: list[tuple[VaultFile, str]] = []
        total = len(scan.files)
        read_started = time.perf_counter()
        for number, vault_file in enumerate(scan.files, start=1):
            if self._stopping:
                report.interrupted = True
                break
            self.pause()  # a request (a question just after start-up) goes first
            if progress:  # attachments sent to the extractor count once their text comes back (collect)
                progress(Progress("read", number - len(attachments), total, vault_file.path))
            try:
                digest = _sha256_file(vault_file)
            except OSError as exc:
                report.files.append(self._record_failure(vault_file, f"cannot read: {exc}", None, None))
                continue
            previous = known.get(vault_file.path)
            # A file skipped for want of a tool is read again once the tool is there; one whose text
            # was too short is not (an unchanged screenshot was OCR'd again on every run).
            if previous is not None and previous.sha256 == digest and not (
                    previous.state == "skipped" and usable.get(vault_file.kind) is None
                    and not (previous.reason or "").startswith(_TEXTLESS)) and vault_file.kind not in reread:
                report.files.append(FileReport(vault_file.path, vault_file.kind,
                                               "unchanged" if previous.state == "indexed" else previous.state,
                                               previous.reason, previous.chunk_count))
                continue
            if vault_file.kind != "markdown":
                attachments.append((vault_file, digest))
                continue
            try:
                report.files.append(self.index_markdown(vault_file))
            except OSError as exc:
                report.files.append(self._record_failure(vault_file, f"cannot read: {exc}", digest, None))
        report.timings["read_notes"] = time.perf_counter() - read_started
        if "markdown" in reread and not report.interrupted:
            self._mark_read_by_this_version(["markdown"])

        self.pause()
        lexical_started = time.perf_counter()
        # A whole pass compares every chunk (and re-derives the German compound lexicon, which
        # per-file updates leave as it is): searchable by keywords from here on.
        store.update_lexical()
        report.timings["lexical"] = time.perf_counter() - lexical_started

        by_path = {vault_file.path: (vault_file, digest) for vault_file, digest in attachments}
        extractor = self._extractor = IsolatedExtractor(self.settings.index)
        waiting = extractor.submit_all((f.path, f) for f, _ in attachments)

        def collect(block: bool = False) -> None:
            nonlocal waiting
            while waiting:
                try:
                    result = extractor.results.get(timeout=0.5) if block else extractor.results.get_nowait()
                except Exception:  # queue.Empty
                    if block and not self._stopping:
                        continue
                    return
                waiting -= 1
                vault_file, digest = by_path[result.path]
                if progress:
                    progress(Progress("read", total - waiting, total, result.path))
                report.files.append(self._store_attachment(vault_file, digest, result))

        embed_started = time.perf_counter()
        try:
            computed, reused = self.embed_pending(progress, between_batches=collect)
            collect(block=True)
            more_computed, more_reused = self.embed_pending(progress, done_before=computed)
        finally:
            extractor.stop()
        report.embedded_chunks = computed + more_computed
        report.reused_chunks = reused + more_reused
        report.timings["embed_and_attachments"] = time.perf_counter() - embed_started
        report.timings["embed"] = self.embed_seconds
        report.interrupted = report.interrupted or self._stopping
        if not report.interrupted:  # every attachment of an outdated format was read again
            self._mark_read_by_this_version(reread - {"markdown"})

        self.pause()
        finish_started = time.perf_counter()
        store.update_lexical()
        store.save_lexical()
        store.save_dense()
        report.timings["finish"] = time.perf_counter() - finish_started
        report.consistency = store.consistency()
        report.timings["total"] = time.perf_counter() - started
        if progress:
            progress(Progress("finish", total, total))
        return report


def vector_of_note(store: IndexStore, path: str) -> np.ndarray | None:
    """The normalized centroid of a note's chunk vectors (None when none is embedded yet)."""
    if store.dense is None:
        return None
    ids = [c.id for c in store.catalog.chunks_of(path)]
    with store.lock:
        vectors = store.dense.vectors_of(ids)
    if len(vectors) == 0:
        return None
    centroid = vectors.mean(axis=0)
    norm = float(np.linalg.norm(centroid))
    return centroid / norm if norm > 0 else None
