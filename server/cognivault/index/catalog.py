"""The SQLite catalog: the one source of truth about what is indexed.

It records every file (hash, state, reason), every chunk (text, heading path,
line range, content hash, analysed words), the note graph (links, tags,
headings, block ids, aliases) and an embedding cache keyed by (content hash,
embedding model id). FAISS and BM25 are derived from it and reconciled with it
on load, so a crash at any moment loses at most the file in flight.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cognivault.vault.types import ParsedNote

MIGRATIONS: tuple[str, ...] = (
    # 1: files, chunks, embeddings, note graph
    """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE files (
        path TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        sha256 TEXT,
        size INTEGER NOT NULL DEFAULT 0,
        mtime_ns INTEGER NOT NULL DEFAULT 0,
        state TEXT NOT NULL,
        reason TEXT,
        title TEXT,
        lang TEXT,
        chunk_count INTEGER NOT NULL DEFAULT 0,
        updated_at REAL NOT NULL
    );
    CREATE TABLE chunks (
        id TEXT PRIMARY KEY,
        path TEXT NOT NULL REFERENCES files(path) ON DELETE CASCADE,
        ord INTEGER NOT NULL,
        heading_path TEXT NOT NULL,
        line_start INTEGER NOT NULL,
        line_end INTEGER NOT NULL,
        locator TEXT NOT NULL DEFAULT '',
        text TEXT NOT NULL,
        content_hash TEXT NOT NULL,
        lang TEXT,
        words TEXT NOT NULL
    );
    CREATE INDEX chunks_by_path ON chunks(path, ord);
    CREATE INDEX chunks_by_hash ON chunks(content_hash);
    CREATE TABLE embeddings (
        content_hash TEXT NOT NULL,
        model_id TEXT NOT NULL,
        vector BLOB NOT NULL,
        PRIMARY KEY (content_hash, model_id)
    ) WITHOUT ROWID;
    CREATE TABLE notes (
        path TEXT PRIMARY KEY REFERENCES files(path) ON DELETE CASCADE,
        title TEXT NOT NULL,
        aliases TEXT NOT NULL,
        tags TEXT NOT NULL,
        frontmatter TEXT NOT NULL,
        headings TEXT NOT NULL,
        blocks TEXT NOT NULL,
        line_count INTEGER NOT NULL
    );
    CREATE TABLE links (
        src TEXT NOT NULL REFERENCES files(path) ON DELETE CASCADE,
        target TEXT NOT NULL,
        heading TEXT,
        block TEXT,
        alias TEXT,
        embed INTEGER NOT NULL,
        line INTEGER NOT NULL,
        start_col INTEGER NOT NULL,
        end_col INTEGER NOT NULL
    );
    CREATE INDEX links_by_src ON links(src);
    CREATE INDEX links_by_target ON links(target COLLATE NOCASE);
    CREATE TABLE tags (
        path TEXT NOT NULL REFERENCES files(path) ON DELETE CASCADE,
        tag TEXT NOT NULL,
        line INTEGER NOT NULL,
        start_col INTEGER NOT NULL,
        end_col INTEGER NOT NULL
    );
    CREATE INDEX tags_by_tag ON tags(tag COLLATE NOCASE);
    CREATE INDEX tags_by_path ON tags(path);
    """,
)

FILE_STATES = ("indexed", "skipped", "failed")


@dataclass(frozen=True, slots=True)
class ChunkRecord:
    id: str
    path: str
    ord: int
    heading_path: tuple[str, ...]
    line_start: int
    line_end: int
    locator: str
    text: str
    content_hash: str
    lang: str | None
    words: str


@dataclass(frozen=True, slots=True)
class FileRecord:
    path: str
    kind: str
    sha256: str | None
    size: int
    mtime_ns: int
    state: str
    reason: str | None
    title: str | None
    lang: str | None
    chunk_count: int
    updated_at: float


@dataclass(frozen=True, slots=True)
class LinkRow:
    """One wikilink, embed or note link as written in ``src`` (positions in code points)."""

    src: str
    target: str
    heading: str | None
    block: str | None
    alias: str | None
    embed: bool
    line: int  # 1-based
    start_col: int  # the whole link
    end_col: int


@dataclass(frozen=True, slots=True)
class TagRow:
    """One tag occurrence in a note."""

    path: str
    tag: str
    line: int  # 1-based; 0 = frontmatter
    start_col: int
    end_col: int


@dataclass(frozen=True, slots=True)
class NoteRecord:
    """A note's graph data as stored: headings as ``[level, text, line, path]``, blocks as
    ``[id, line, col]``."""

    path: str
    title: str
    aliases: list[str]
    tags: list[str]
    frontmatter: dict[str, Any]
    headings: list[list[Any]]
    blocks: list[list[Any]]
    line_count: int


_CHUNK_COLUMNS = "id, path, ord, heading_path, line_start, line_end, locator, text, content_hash, lang, words"
_FILE_COLUMNS = "path, kind, sha256, size, mtime_ns, state, reason, title, lang, chunk_count, updated_at"


def _in_clause(column: str, values: Sequence[str] | None) -> tuple[str, list[str]]:
    """`` AND column IN (?, ...)`` and its arguments; nothing when ``values`` is None (all rows)."""
    if values is None:
        return "", []
    return f" AND {column} IN ({','.join('?' * len(values))})", list(values)


def _like_prefix(prefix: str) -> str:
    """A LIKE pattern (with ESCAPE '\\') matching text that starts with ``prefix``."""
    return prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def _batches(values: Sequence[str] | None, size: int = 500) -> Iterator[Sequence[str] | None]:
    if values is None:
        yield None
        return
    for start in range(0, len(values), size):
        yield values[start:start + size]


def _chunk_from_row(row: Sequence[Any]) -> ChunkRecord:
    return ChunkRecord(row[0], row[1], row[2], tuple(json.loads(row[3])), row[4], row[5],
                       row[6], row[7], row[8], row[9], row[10])


class Catalog:
    """A connection to one vault's catalog. Not shared between threads: open one per thread."""

    def __init__(self, path: Path, *, readonly: bool = False) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        if readonly:
            self.db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30, check_same_thread=False)
        else:
            self.db = sqlite3.connect(path, timeout=30, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA foreign_keys=ON")
        self.db.execute("PRAGMA synchronous=NORMAL")
        if not readonly:
            self._migrate()

    def close(self) -> None:
        self.db.close()

    # -- schema -----------------------------------------------------------
    def _migrate(self) -> None:
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        for number, script in enumerate(MIGRATIONS[version:], start=version + 1):
            with self.db:
                self.db.executescript(f"BEGIN; {script}; PRAGMA user_version = {number}; COMMIT;")

    def check_integrity(self) -> str:
        return str(self.db.execute("PRAGMA quick_check").fetchone()[0])

    # -- meta -------------------------------------------------------------
    def get_meta(self, key: str, default: str | None = None) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else default

    def set_meta(self, key: str, value: str) -> None:
        with self.db:
            self.db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))

    def generation(self) -> int:
        """A counter bumped by every change to chunks: derived indexes compare against it."""
        return int(self.get_meta("generation", "0") or 0)

    def _bump_generation(self) -> None:
        self.db.execute(
            "INSERT INTO meta(key, value) VALUES ('generation', '1') "
            "ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1")

    # -- files ------------------------------------------------------------
    def files(self) -> list[FileRecord]:
        rows = self.db.execute(f"SELECT {_FILE_COLUMNS} FROM files ORDER BY path").fetchall()
        return [FileRecord(*row) for row in rows]

    def file(self, path: str) -> FileRecord | None:
        row = self.db.execute(f"SELECT {_FILE_COLUMNS} FROM files WHERE path = ?", (path,)).fetchone()
        return FileRecord(*row) if row else None

    def replace_file(self, record: FileRecord, chunks: Sequence[ChunkRecord],
                     note: ParsedNote | None) -> None:
        """Store a file's new state, chunks and note graph in one transaction."""
        with self.db:
            self.db.execute("DELETE FROM chunks WHERE path = ?", (record.path,))
            self.db.execute("DELETE FROM notes WHERE path = ?", (record.path,))
            self.db.execute("DELETE FROM links WHERE src = ?", (record.path,))
            self.db.execute("DELETE FROM tags WHERE path = ?", (record.path,))
            self.db.execute(f"INSERT OR REPLACE INTO files({_FILE_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                            (record.path, record.kind, record.sha256, record.size, record.mtime_ns,
                             record.state, record.reason, record.title, record.lang,
                             len(chunks), record.updated_at))
            self.db.executemany(
                f"INSERT INTO chunks({_CHUNK_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                [(c.id, c.path, c.ord, json.dumps(list(c.heading_path), ensure_ascii=False),
                  c.line_start, c.line_end, c.locator, c.text, c.content_hash, c.lang, c.words)
                 for c in chunks])
            if note is not None:
                self._insert_note(record.path, note)
            self._bump_generation()

    def _insert_note(self, path: str, note: ParsedNote) -> None:
        self.db.execute(
            "INSERT INTO notes(path, title, aliases, tags, frontmatter, headings, blocks, line_count) "
            "VALUES (?,?,?,?,?,?,?,?)",
            (path, note.title, json.dumps(note.aliases, ensure_ascii=False),
             json.dumps(note.tags, ensure_ascii=False),
             json.dumps(note.frontmatter, ensure_ascii=False, default=str),
             json.dumps([[h.level, h.text, h.line, list(h.path)] for h in note.headings], ensure_ascii=False),
             json.dumps([[b.id, b.line, b.start_col] for b in note.blocks], ensure_ascii=False),
             note.line_count))
        self.db.executemany(
            "INSERT INTO links(src, target, heading, block, alias, embed, line, start_col, end_col) "
            "VALUES (?,?,?,?,?,?,?,?,?)",
            [(path, link.target, link.heading, link.block, link.alias, int(link.embed), link.line,
              link.start_col, link.end_col) for link in note.links])
        self.db.executemany(
            "INSERT INTO tags(path, tag, line, start_col, end_col) VALUES (?,?,?,?,?)",
            [(path, ref.tag, ref.line, ref.start_col, ref.end_col) for ref in note.tag_refs])

    def mark_file(self, path: str, kind: str, state: str, reason: str | None,
                  sha256: str | None, size: int, mtime_ns: int) -> None:
        """Record a file that produced no chunks (skipped or failed), dropping any old chunks."""
        record = FileRecord(path, kind, sha256, size, mtime_ns, state, reason, None, None, 0, time.time())
        self.replace_file(record, [], None)

    def touch_file(self, path: str, size: int, mtime_ns: int) -> None:
        """The content is unchanged (same sha256) but size/mtime moved: remember them."""
        with self.db:
            self.db.execute("UPDATE files SET size = ?, mtime_ns = ? WHERE path = ?", (size, mtime_ns, path))

    def delete_files(self, paths: Iterable[str]) -> int:
        paths = list(paths)
        if not paths:
            return 0
        with self.db:
            self.db.executemany("DELETE FROM files WHERE path = ?", [(p,) for p in paths])
            self._bump_generation()
        return len(paths)

    # -- chunks -----------------------------------------------------------
    def chunk_count(self) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM chunks").fetchone()[0])

    def chunks(self, ids: Sequence[str]) -> dict[str, ChunkRecord]:
        found: dict[str, ChunkRecord] = {}
        for start in range(0, len(ids), 500):
            batch = list(ids[start:start + 500])
            marks = ",".join("?" * len(batch))
            for row in self.db.execute(f"SELECT {_CHUNK_COLUMNS} FROM chunks WHERE id IN ({marks})", batch):
                found[row[0]] = _chunk_from_row(row)
        return found

    def chunks_of(self, path: str) -> list[ChunkRecord]:
        rows = self.db.execute(f"SELECT {_CHUNK_COLUMNS} FROM chunks WHERE path = ? ORDER BY ord", (path,))
        return [_chunk_from_row(row) for row in rows]

    def iter_chunk_words(self) -> Iterator[tuple[str, str, str | None, str]]:
        """(id, path, lang, words) of every chunk in a stable order."""
        yield from self.db.execute("SELECT id, path, lang, words FROM chunks ORDER BY path, ord")

    def chunk_texts(self) -> Iterator[tuple[str | None, str]]:
        """(lang, text) of every chunk, its headings' words before its own (a heading is a chunk's words too)."""
        for lang, headings, text in self.db.execute("SELECT lang, heading_path, text FROM chunks"):
            yield lang, "\n".join([*json.loads(headings), text])

    def chunk_words_of(self, paths: Sequence[str]) -> list[tuple[str, str, str | None, str]]:
        """(id, path, lang, words) of the chunks of ``paths``, in order."""
        found: list[tuple[str, str, str | None, str]] = []
        for batch in _batches(list(paths)):
            clause, args = _in_clause("path", batch)
            found.extend(self.db.execute(
                f"SELECT id, path, lang, words FROM chunks WHERE 1{clause} ORDER BY path, ord", args))
        return found

    def chunk_ids_and_hashes(self) -> list[tuple[str, str, str]]:
        """(id, path, content_hash) of every chunk."""
        return list(self.db.execute("SELECT id, path, content_hash FROM chunks ORDER BY path, ord"))

    def chunk_ids_for_hashes(self, hashes: Sequence[str]) -> list[tuple[str, str]]:
        """(chunk id, content hash) of every chunk whose content hash is in ``hashes``."""
        found: list[tuple[str, str]] = []
        for start in range(0, len(hashes), 500):
            batch = list(hashes[start:start + 500])
            marks = ",".join("?" * len(batch))
            found.extend(self.db.execute(
                f"SELECT id, content_hash FROM chunks WHERE content_hash IN ({marks})", batch))
        return found

    # -- embeddings -------------------------------------------------------
    def missing_embeddings(self, model_id: str, paths: Sequence[str] | None = None
                           ) -> list[tuple[str, str | None, tuple[str, ...], str]]:
        """(content_hash, title, heading path, text) of chunks with no vector for ``model_id``
        (of the files at ``paths`` only, when given: no scan of every chunk).

        One row per distinct content hash: identical passages are embedded once.
        """
        query = ("SELECT c.content_hash, f.title, c.heading_path, c.text FROM chunks c "
                 "JOIN files f ON f.path = c.path "
                 "LEFT JOIN embeddings e ON e.content_hash = c.content_hash AND e.model_id = ? "
                 "WHERE e.content_hash IS NULL")
        if paths is None:
            rows = list(self.db.execute(f"{query} GROUP BY c.content_hash", (model_id,)))
        else:
            rows = []
            for start in range(0, len(paths), 500):
                batch = list(paths[start:start + 500])
                marks = ",".join("?" * len(batch))
                rows.extend(self.db.execute(f"{query} AND c.path IN ({marks}) GROUP BY c.content_hash",
                                            (model_id, *batch)))
            rows = list({row[0]: row for row in rows}.values())
        return [(row[0], row[1], tuple(json.loads(row[2])), row[3]) for row in rows]

    def store_embeddings(self, model_id: str, items: Sequence[tuple[str, np.ndarray]]) -> None:
        with self.db:
            self.db.executemany(
                "INSERT OR REPLACE INTO embeddings(content_hash, model_id, vector) VALUES (?,?,?)",
                [(content_hash, model_id, np.asarray(vector, dtype=np.float32).tobytes())
                 for content_hash, vector in items])

    def embedded_chunks(self, model_id: str, chunk_ids: Sequence[str] | None = None
                        ) -> Iterator[tuple[str, bytes]]:
        """(chunk id, vector bytes) of chunks that have a vector for ``model_id``."""
        query = ("SELECT c.id, e.vector FROM chunks c JOIN embeddings e "
                 "ON e.content_hash = c.content_hash AND e.model_id = ?")
        if chunk_ids is None:
            yield from self.db.execute(query, (model_id,))
            return
        for start in range(0, len(chunk_ids), 500):
            batch = list(chunk_ids[start:start + 500])
            marks = ",".join("?" * len(batch))
            yield from self.db.execute(f"{query} WHERE c.id IN ({marks})", (model_id, *batch))

    def embedded_chunk_count(self, model_id: str) -> int:
        return int(self.db.execute(
            "SELECT COUNT(*) FROM chunks c JOIN embeddings e ON e.content_hash = c.content_hash "
            "AND e.model_id = ?", (model_id,)).fetchone()[0])

    def embedding_models(self) -> dict[str, int]:
        return dict(self.db.execute("SELECT model_id, COUNT(*) FROM embeddings GROUP BY model_id"))

    # -- note graph -------------------------------------------------------
    def notes(self) -> list[tuple[str, str, list[str], list[str]]]:
        """(path, title, aliases, tags) of every note."""
        return [(row[0], row[1], json.loads(row[2]), json.loads(row[3]))
                for row in self.db.execute("SELECT path, title, aliases, tags FROM notes ORDER BY path")]

    def note_row(self, path: str) -> dict[str, Any] | None:
        row = self.db.execute(
            "SELECT title, aliases, tags, frontmatter, headings, blocks, line_count FROM notes WHERE path = ?",
            (path,)).fetchone()
        if row is None:
            return None
        return {"title": row[0], "aliases": json.loads(row[1]), "tags": json.loads(row[2]),
                "frontmatter": json.loads(row[3]), "headings": json.loads(row[4]),
                "blocks": json.loads(row[5]), "line_count": row[6]}

    def indexed_kinds(self, paths: Sequence[str] | None = None) -> dict[str, str]:
        """path -> kind of the indexed files among ``paths`` (all when None)."""
        found: dict[str, str] = {}
        for batch in _batches(paths):
            clause, args = _in_clause("path", batch)
            found.update(self.db.execute(f"SELECT path, kind FROM files WHERE state = 'indexed'{clause}", args))
        return found

    def titles(self, paths: Sequence[str]) -> dict[str, str]:
        """path -> title (the path when a file has none) of ``paths``."""
        found: dict[str, str] = {}
        for batch in _batches(list(paths)):
            clause, args = _in_clause("path", batch)
            found.update((path, title or path) for path, title in
                         self.db.execute(f"SELECT path, title FROM files WHERE 1{clause}", args))
        return found

    def languages(self) -> frozenset[str]:
        """The languages of the vault's files."""
        return frozenset(row[0] for row in self.db.execute("SELECT DISTINCT lang FROM files WHERE lang IS NOT NULL"))

    def note_records(self, paths: Sequence[str] | None = None) -> list[NoteRecord]:
        """The stored graph data of the notes among ``paths`` (all when None), by path."""
        found: list[NoteRecord] = []
        for batch in _batches(paths):
            clause, args = _in_clause("path", batch)
            for row in self.db.execute(
                    "SELECT path, title, aliases, tags, frontmatter, headings, blocks, line_count FROM notes "
                    f"WHERE 1{clause} ORDER BY path", args):
                try:
                    frontmatter = json.loads(row[4])
                except ValueError:
                    frontmatter = {}
                found.append(NoteRecord(row[0], row[1], json.loads(row[2]), json.loads(row[3]),
                                        frontmatter if isinstance(frontmatter, dict) else {},
                                        json.loads(row[5]), json.loads(row[6]), int(row[7])))
        return found

    def link_rows(self, sources: Sequence[str] | None = None) -> list[LinkRow]:
        """Every link written in ``sources`` (all notes when None), by source, line and column."""
        found: list[LinkRow] = []
        for batch in _batches(sources):
            clause, args = _in_clause("src", batch)
            found.extend(LinkRow(r[0], r[1], r[2], r[3], r[4], bool(r[5]), int(r[6]), int(r[7]), int(r[8]))
                         for r in self.db.execute(
                             "SELECT src, target, heading, block, alias, embed, line, start_col, end_col "
                             f"FROM links WHERE 1{clause} ORDER BY src, line, start_col", args))
        return found

    def tag_rows(self, paths: Sequence[str] | None = None) -> list[TagRow]:
        """Every tag occurrence in ``paths`` (all notes when None), by path and line."""
        found: list[TagRow] = []
        for batch in _batches(paths):
            clause, args = _in_clause("path", batch)
            found.extend(TagRow(r[0], r[1], int(r[2]), int(r[3]), int(r[4])) for r in self.db.execute(
                f"SELECT path, tag, line, start_col, end_col FROM tags WHERE 1{clause} ORDER BY path, line",
                args))
        return found

    def links(self) -> list[tuple[str, str, str | None, str | None, bool]]:
        """(src, target, heading, block, embed) of every link in the vault."""
        return [(r[0], r[1], r[2], r[3], bool(r[4]))
                for r in self.db.execute("SELECT src, target, heading, block, embed FROM links")]

    def paths_with_tag(self, tag: str) -> set[str]:
        """Notes carrying ``tag`` or one of its sub-tags (``a`` matches ``a`` and ``a/b``)."""
        tag = tag.lstrip("#")
        rows = self.db.execute(
            "SELECT DISTINCT path FROM tags WHERE tag = ? COLLATE NOCASE OR tag LIKE ? ESCAPE '\\'",
            (tag, _like_prefix(tag + "/")))
        return {row[0] for row in rows}

    def frontmatter_of_generated(self, study_prefix: str) -> list[tuple[str, dict[str, Any]]]:
        """(path, frontmatter) of the notes that may be generated study notes: a ``cognivault`` key in
        their frontmatter, or a path starting with ``study_prefix`` (a folder path ending in "/")."""
        found = []
        for path, raw in self.db.execute(
                "SELECT path, frontmatter FROM notes WHERE frontmatter LIKE '%\"cognivault\"%' "
                "OR (? != '' AND path LIKE ? ESCAPE '\\')", (study_prefix, _like_prefix(study_prefix))):
            try:
                data = json.loads(raw)
            except ValueError:
                data = {}
            found.append((path, data if isinstance(data, dict) else {}))
        return found

    def paths_with_property(self, key: str, value: str | None) -> set[str]:
        found = set()
        for path, frontmatter in self.db.execute("SELECT path, frontmatter FROM notes"):
            data = json.loads(frontmatter)
            if not isinstance(data, dict) or key not in data:
                continue
            if value is None:
                found.add(path)
                continue
            current = data[key]
            values = current if isinstance(current, list) else [current]
            if any(str(v).casefold() == value.casefold() for v in values):
                found.add(path)
        return found
