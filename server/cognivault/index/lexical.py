"""BM25 keyword search over every chunk, fast enough to type through, and kept current edit by edit.

Built from the words the catalog stores per chunk (breadcrumb words and body
words apart), so neither a build nor an update re-reads files. The breadcrumb
(note title and heading path) counts ``BREADCRUMB_WEIGHT`` times: a note
titled like the question is usually the answer.

The index keeps raw term frequencies, not precomputed scores: a *main*
segment (compressed postings per term) plus a small *delta* of rows added
since, with replaced or deleted rows masked out. Document frequencies, the
live document count and the average length are kept up to date on every
change, and a query scores with the Lucene BM25 formula from those live
statistics, so an updated index ranks exactly as a clean rebuild of the same
catalog would (up to the order of equal scores). Compaction folds the delta
into the main segment once delta and dead rows pass ``COMPACT_SHARE`` of it;
it is array work, no re-analysis. One thing is frozen between full syncs: the
German compound lexicon (words seen twice in the vault), as Lucene freezes a
segment's analysis; :meth:`LexicalIndex.sync` (every full index pass, every
load) re-derives it and rebuilds when it moved.

Saved with the catalog generation it matches; a stale copy is brought up to
date from the catalog by per-chunk digests, an unreadable one is rebuilt.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import re
import shutil
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import islice, pairwise
from pathlib import Path
from typing import NamedTuple

import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import OSA

from cognivault.atomic import atomic_write_text
from cognivault.errors import CogniVaultError
from cognivault.index.analysis import (
    ANALYZER_VERSION,
    FUGEN,
    GENITIVE_ARTICLES,
    Analyzer,
    cognate_key,
    is_stopword,
    spelling_key,
    word_stem,
    words,
)
from cognivault.index.catalog import Catalog
from cognivault.index.question_frame import FRAME_WEIGHT, frame_words

log = logging.getLogger(__name__)

BREADCRUMB_SEPARATOR = "\x1e"
BREADCRUMB_WEIGHT = 1
# Lucene's defaults; on the dev set they beat k1=1.5 (nDCG@10 0.800 vs 0.788).
BM25_K1 = 1.2
BM25_B = 0.75
OTHER_LANGUAGE_FACTOR = 0.8
FORMAT_VERSION = 3
# Compact when rows added since the last compaction plus rows masked out exceed this share of the
# main segment (and at least COMPACT_MIN_ROWS): a query then spends little on the delta.
COMPACT_SHARE = 0.10
COMPACT_MIN_ROWS = 256
BUILD_BLOCK_ROWS = 2048
LANGUAGE_FREQUENCIES_KEPT = 100_000  # words whose per-language passage counts are remembered
# A query word no passage has, of this many letters or more, is read as the index word one typing slip
# away (two from TYPO_TWO_SLIPS letters), same first letter: "photosyntesis" finds "photosynthesis".
TYPO_MIN_CHARS = 6
TYPO_TWO_SLIPS = 10
# With other words no passage has in the query, a word is read as a slip only from this many letters on, and one slip
# away: a long word one letter off is a slip ("Mitochondiren"), a short one may be a word the vault lacks ("bread").
TYPO_AMONG_UNKNOWN_CHARS = 8
# The shortest part of a word the vault writes as two ("Web-Server" for "Webserver")
COMPOUND_PART_CHARS = 3
# A part of a question's compound the vault writes only inside compounds of its own ("Grenze" only in
# "Plattengrenze") is read from those of this many letters on, the rest of each compound this long at least.
PART_WITHIN_CHARS = 5
REST_WITHIN_CHARS = 4
COMPOUNDS_PER_PART = 20  # the most-held of them, when the vault has more
# The letters of a word that a stemmer may read as its ending: a slip in them can make it cut the word elsewhere
ENDING_CHARS = 4
_VOWELS = "aeiouyäöü"
OTHER_LANGUAGE_CHARS = 6  # a shorter word read as another language is too often another word ("gift", "haben")


def _format_stamp() -> str:
    """Everything that changes the built index: a saved index with another stamp is rebuilt."""
    return f"{FORMAT_VERSION}:k1={BM25_K1}:b={BM25_B}:breadcrumb={BREADCRUMB_WEIGHT}:{ANALYZER_VERSION}"


def join_words(breadcrumb_words: list[str], body_words: list[str]) -> str:
    """The catalog's ``words`` column: breadcrumb words, a separator, body words."""
    return f"{' '.join(breadcrumb_words)} {BREADCRUMB_SEPARATOR} {' '.join(body_words)}"


def _split_words(stored: str) -> tuple[list[str], list[str]]:
    head, _, body = stored.partition(BREADCRUMB_SEPARATOR)
    return head.split(), body.split()


def words_digest(lang: str | None, stored: str) -> int:
    """A stable 63-bit digest of what a chunk's terms are made from (language and words)."""
    raw = hashlib.blake2b(f"{lang or ''}\x1f{stored}".encode(), digest_size=8).digest()
    return int.from_bytes(raw, "little") >> 1


def _one_slip(word: str, fixed: int, letters: Sequence[str]) -> Iterable[str]:
    """``word`` with one typing slip undone after its first ``fixed`` letters: a letter typed twice or swapped with
    the next, or one of ``letters`` left out. Not a letter typed for another: that reads a compound's short last
    part as an ending ("Finanzamt" as "finanzant", which English stems "finanz")."""
    for at in range(max(fixed, 1), len(word) + 1):
        head, tail = word[:at], word[at:]
        if tail:
            yield head + tail[1:]
        if len(tail) > 1:
            yield head + tail[1] + tail[0] + tail[2:]
        yield from (head + letter + tail for letter in letters)


def _german_lexicon(rows: Iterable[tuple[str, str, str | None, str]]) -> frozenset[str]:
    german: Counter[str] = Counter()
    for _, _, lang, stored in rows:
        if lang == "de":
            german.update(stored.split())
    return Analyzer.build_lexicon(german)


def _concatenate(arrays: Sequence[np.ndarray], dtype: type) -> np.ndarray:
    """``np.concatenate`` ``BUILD_BLOCK_ROWS`` arrays at a time, yielding the GIL between blocks."""
    out: np.ndarray = np.empty(sum(len(a) for a in arrays), dtype)
    position = 0
    for start in range(0, len(arrays), BUILD_BLOCK_ROWS):
        block = np.concatenate(arrays[start:start + BUILD_BLOCK_ROWS])
        out[position:position + len(block)] = block
        position += len(block)
        time.sleep(0)
    return out


class CorruptIndex(CogniVaultError, RuntimeError):
    """A derived index file exists but cannot be read; it is moved aside and rebuilt."""

    code = "corrupt_index"
    status = 500
    exit_code = 1


@dataclass(frozen=True, slots=True)
class QueryReading:
    """How keyword search reads a query: its index terms (the terms of its words, then those its slips and
    spelling variants stand for), and ``unknown_share``, the share of its words (stopwords left out) that no
    passage holds in any spelling: where the words naming the subject are missing, keywords match only what
    is left (a question's frame: "mean", "difference", "year") and meaning search should decide.
    ``frame_terms``: the terms only the question's frame gives ("unterschied", the "spanisch" of "auf Spanisch"; see
    :mod:`cognivault.index.question_frame`), which weigh less than the terms of its subject."""

    terms: tuple[str, ...]
    unknown_share: float
    frame_terms: frozenset[str] = frozenset()


class _SpellingTables(NamedTuple):
    """The index's words looked up by spelling: by first letter (typing slips), by :func:`spelling_key`, by
    :func:`cognate_key`, and by their first and last ``PART_WITHIN_CHARS`` letters (compounds of a part)."""

    by_initial: dict[str, list[str]]
    by_key: dict[str, list[str]]
    by_cognate: dict[str, list[str]]
    by_head: dict[str, list[str]]
    by_tail: dict[str, list[str]]


_LETTERS = re.compile(r"[^\W\d_]+")  # a word of letters, as written


class CompoundPart(NamedTuple):
    """A part of a question's compound: its own index term, or its letters where the vault has it only inside
    compounds of its own (``name``), and the index terms that stand for it (``terms``)."""

    name: str
    terms: tuple[str, ...]


@dataclass(slots=True)
class LexicalHit:
    chunk_id: str
    path: str
    score: float


class _Postings:
    """Term id -> (rows, term frequencies) of the main segment, compressed column-wise."""

    __slots__ = ("indptr", "rows", "tfs")

    def __init__(self, indptr: np.ndarray, rows: np.ndarray, tfs: np.ndarray) -> None:
        self.indptr, self.rows, self.tfs = indptr, rows, tfs

    @classmethod
    def build(cls, row_terms: Sequence[np.ndarray], row_tfs: Sequence[np.ndarray], vocab_size: int
              ) -> _Postings:
        """A counting sort by term, ``BUILD_BLOCK_ROWS`` rows at a time, yielding the GIL between
        blocks: numpy holds it through each call, and one call over the whole vault would pause
        every request for tens of milliseconds."""
        blocks = range(0, len(row_terms), BUILD_BLOCK_ROWS)
        counts = np.zeros(vocab_size, np.int64)
        for start in blocks:
            terms = np.concatenate(row_terms[start:start + BUILD_BLOCK_ROWS])
            counts += np.bincount(terms, minlength=vocab_size)
            time.sleep(0)
        indptr = np.zeros(vocab_size + 1, np.int64)
        np.cumsum(counts, out=indptr[1:])
        rows_out = np.empty(int(indptr[-1]), np.int32)
        tfs_out = np.empty(int(indptr[-1]), np.float32)
        free = indptr[:-1].copy()  # the next free slot of each term
        for start in blocks:
            end = min(start + BUILD_BLOCK_ROWS, len(row_terms))
            terms = np.concatenate(row_terms[start:end])
            tfs = np.concatenate(row_tfs[start:end])
            lengths = np.fromiter((len(t) for t in row_terms[start:end]), np.int64, end - start)
            rows = np.repeat(np.arange(start, end, dtype=np.int32), lengths)
            order = np.argsort(terms, kind="stable")  # rows stay ascending within a term
            ordered = terms[order]
            rank = np.arange(len(ordered)) - np.searchsorted(ordered, ordered, "left")
            slots = free[ordered] + rank
            rows_out[slots] = rows[order]
            tfs_out[slots] = tfs[order]
            unique, block_counts = np.unique(ordered, return_counts=True)
            free[unique] += block_counts
            time.sleep(0)
        return cls(indptr, rows_out, tfs_out)

    @property
    def vocab_size(self) -> int:
        return len(self.indptr) - 1


class _Growable:
    """A 1-D numpy array with amortised appends (doc lengths, live flags, languages, frequencies)."""

    __slots__ = ("data", "size")

    def __init__(self, values: np.ndarray) -> None:
        self.data = values
        self.size = len(values)

    def append(self, value: float | int | bool) -> None:
        self.resize(self.size + 1)
        self.data[self.size - 1] = value

    def resize(self, size: int) -> None:
        """Grow to ``size`` entries (new ones zero)."""
        if size > len(self.data):
            grown = np.zeros(max(16, 2 * len(self.data), size), self.data.dtype)
            grown[: self.size] = self.data[: self.size]
            self.data = grown
        self.size = max(self.size, size)

    def view(self) -> np.ndarray:
        return self.data[: self.size]


class LexicalIndex:
    """BM25 over the catalog's chunks with live statistics; safe to search while another thread updates."""

    def __init__(self, analyzer: Analyzer, generation: int = 0) -> None:
        self.analyzer = analyzer
        self.generation = generation
        self._lock = threading.RLock()
        self.vocab: dict[str, int] = {}
        self._row_ids: list[str] = []
        self._row_paths: list[str] = []
        self._row_terms: list[np.ndarray] = []
        self._row_tfs: list[np.ndarray] = []
        self._digests: list[int] = []
        self._doc_len = _Growable(np.zeros(0, np.float32))
        self._alive = _Growable(np.zeros(0, np.bool_))
        self._lang = _Growable(np.zeros(0, np.int16))
        self._lang_codes: dict[str, int] = {"": 0}
        self._lang_counts: Counter[str] = Counter()
        self._df = _Growable(np.zeros(0, np.int64))
        self._row_of: dict[str, int] = {}
        self._rows_by_path: dict[str, list[int]] = defaultdict(list)
        self._total_len = 0.0
        self._main = _Postings(np.zeros(1, np.int64), np.zeros(0, np.int32), np.zeros(0, np.float32))
        self._main_rows = 0
        self._delta: dict[int, list[tuple[int, float]]] = defaultdict(list)
        self._delta_arrays: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # the delta per term, as arrays
        self._dead = 0
        self._live_cache: tuple[list[str], list[str]] | None = None
        self._version = 0  # bumped by every change: a compaction prepared meanwhile is dropped
        self.main_languages: list[str] = []
        self._language_frequencies: dict[tuple[str, tuple[str, ...]], dict[str, int | None]] = {}
        # (vocabulary size, its words looked up by spelling) for reading slips, variants and cognates
        self._spellings: tuple[int, _SpellingTables] = (
            0, _SpellingTables(defaultdict(list), defaultdict(list), defaultdict(list), defaultdict(list),
                               defaultdict(list)))

    def __len__(self) -> int:
        return len(self._row_of)

    # -- what is in it -------------------------------------------------------
    def _live(self) -> tuple[list[str], list[str]]:
        with self._lock:
            if self._live_cache is None:
                alive = self._alive.view()
                rows = np.flatnonzero(alive).tolist()
                self._live_cache = ([self._row_ids[r] for r in rows], [self._row_paths[r] for r in rows])
            return self._live_cache

    @property
    def chunk_ids(self) -> list[str]:
        """Ids of the chunks searched, in row order."""
        return self._live()[0]

    @property
    def paths(self) -> list[str]:
        """The path of each chunk in :attr:`chunk_ids`."""
        return self._live()[1]

    def document_frequency(self, term: str) -> int:
        """How many chunks hold index term ``term``."""
        with self._lock:
            number = self.vocab.get(term)
            return int(self._df.data[number]) if number is not None and number < self._df.size else 0

    def holds_any(self, chunk_id: str, terms: Iterable[str]) -> bool:
        """Whether the searched chunk ``chunk_id`` holds one of the index terms ``terms``."""
        with self._lock:
            row = self._row_of.get(chunk_id)
            return row is not None and self._rows_hold_any((row,), terms)

    def path_holds_any(self, path: str, terms: Iterable[str]) -> bool:
        """Whether a searched chunk of the file ``path`` holds one of the index terms ``terms``."""
        with self._lock:
            return self._rows_hold_any(self._rows_by_path.get(path, ()), terms)

    def _rows_hold_any(self, rows: Iterable[int], terms: Iterable[str]) -> bool:
        """Whether one of the rows ``rows`` holds one of the index terms ``terms`` (the caller holds the lock)."""
        wanted = [self.vocab[term] for term in terms if term in self.vocab]
        return bool(wanted) and any(bool(np.isin(self._row_terms[row], wanted).any()) for row in rows)

    def path_of(self, chunk_id: str) -> str | None:
        """The vault path of a searched chunk (None when it is not in the index)."""
        with self._lock:
            row = self._row_of.get(chunk_id)
            return self._row_paths[row] if row is not None else None

    def _spelling_tables(self) -> _SpellingTables:
        """The index's words looked up by spelling (:class:`_SpellingTables`), grown by the words added since the
        last look: the vocabulary only grows, and a live edit adds a few words to tables of a hundred thousand."""
        with self._lock:
            seen, tables = self._spellings
            if seen != len(self.vocab):
                for known in islice(self.vocab, seen, None):
                    if known.isalpha():
                        tables.by_initial[known[0]].append(known)
                        tables.by_key[spelling_key(known)].append(known)
                        if cognate := cognate_key(known):
                            tables.by_cognate[cognate].append(known)
                        if len(known) >= PART_WITHIN_CHARS + REST_WITHIN_CHARS:
                            tables.by_head[known[:PART_WITHIN_CHARS]].append(known)
                            tables.by_tail[known[-PART_WITHIN_CHARS:]].append(known)
                self._spellings = (len(self.vocab), tables)
            return tables

    def _most_held(self, term: str, candidates: Sequence[str]) -> str | None:
        """Of ``candidates`` for ``term``, a term no passage has, the one in the most passages; None if none is."""
        held = [(frequency, candidate) for candidate in candidates
                if candidate != term and (frequency := self.document_frequency(candidate))]
        return max(held)[1] if held else None

    def spelling_variant(self, term: str) -> str | None:
        """The index term that writes ``term``, a term no passage has, another accepted way (f/ph, t/th, ß/ss,
        ä/ae, a doubled letter: "delphin" -> "delfin"), the one in the most passages; None when there is none."""
        if not term.isalpha() or self.document_frequency(term):
            return None
        return self._most_held(term, self._spelling_tables().by_key.get(spelling_key(term), []))

    def cognate(self, term: str) -> str | None:
        """The index term that is ``term``, a term no passage has, as the vault's other language writes and stems
        the same learned word (English "mitosis" -> German "Mitose", "molecule" -> "Molekül", and back), the one
        in the most passages; None when there is none (see :func:`cognate_key`)."""
        key = cognate_key(term) if term.isalpha() and not self.document_frequency(term) else None
        return self._most_held(term, self._spelling_tables().by_cognate.get(key, [])) if key else None

    def nearest_term(self, term: str, slips: int | None = None, written: str = "") -> str | None:
        """The index term that ``term``, a term no passage has, most likely misspells: ``slips`` typing slips
        away at most (by default one, two for a long word), the same first letter, the fewest slips and then the
        most passages first; else, given the word as ``written``, one slip in its ending (:meth:`_slip_in_ending`).
        None for a term the index has, a short one, or one with no such neighbour ("quasar")."""
        if len(term) < TYPO_MIN_CHARS or not term.isalpha() or self.document_frequency(term):
            return None
        choices = self._spelling_tables().by_initial.get(term[0], [])
        if slips is None:
            slips = 1 if len(term) < TYPO_TWO_SLIPS else 2
        near = [(distance, -frequency, choice)
                for choice, distance, _ in process.extract(term, choices, scorer=OSA.distance, score_cutoff=slips,
                                                           limit=20)
                if (frequency := self.document_frequency(choice))]
        if near:
            return min(near)[2]
        return self._slip_in_ending(term, written, choices) if written.isalpha() else None

    def _slip_in_ending(self, term: str, written: str, choices: Sequence[str]) -> str | None:
        """The index term whose word ``written`` (index term ``term``) misspells by one slip in the letters a stemmer
        reads as its ending, which then cuts it elsewhere: "topologicl" is no "topolog" stem, "Präsidialkabinete"
        stems to "prasidialkabin" and "Präsidialkabinette" to "prasidialkabinett". Of the index terms that begin
        ``term`` or begin with it, up to ``ENDING_CHARS`` letters apart, one that a word one slip from ``written``
        in those last letters stems to, in a main language of the vault; the one in the most passages."""
        languages: list[str | None] = [*self.main_languages] or [None]
        held = sorted(((frequency, choice) for choice in choices
                       if choice != term and min(len(choice), len(term)) >= TYPO_MIN_CHARS - 1
                       and abs(len(choice) - len(term)) <= ENDING_CHARS
                       and (choice.startswith(term) or term.startswith(choice))
                       and (frequency := self.document_frequency(choice))), reverse=True)
        for _, choice in held:
            fixed = min(len(choice), len(term)) - 1  # the letters both share, but for the one a slip may change
            letters = sorted(set(choice) | set(_VOWELS))
            if any(word_stem(variant, language) == choice for variant in _one_slip(written, fixed, letters)
                   for language in languages):
                return choice
        return None

    def _unused(self, words_terms: Sequence[Sequence[str]]) -> list[int]:
        """The places in ``words_terms`` of the words no passage has in any of their terms (stopwords have none)."""
        return [at for at, terms in enumerate(words_terms) if terms and not any(self.document_frequency(t)
                                                                                 for t in terms)]

    def read_other_spellings(self, words_terms: Sequence[Sequence[str]]) -> list[tuple[int, str]]:
        """The index terms that a query's words no passage has write another way, as (the word's place in
        ``words_terms``, the term), given the index terms of each word: another accepted spelling ("Delphin" for
        "Delfin") or the same learned word in the vault's other language ("mitosis" for a German note's "Mitose"),
        wherever the word stands: neither is a guess at what the user meant, so a question naming something the
        vault lacks beside it reads them too."""
        read: list[tuple[int, str]] = []
        for at in self._unused(words_terms):
            found = next((found for reader in (self.spelling_variant, self.cognate) for term in words_terms[at]
                          if (found := reader(term))), None)
            if found is not None:
                read.append((at, found))
        return read

    def read_slips(self, words_terms: Sequence[Sequence[str]], written: Sequence[str] = ()
                   ) -> list[tuple[int, str]]:
        """The index terms a query's words no passage has stand for, as (the word's place in ``words_terms``, the
        term), given the index terms of each word (and each word as ``written``, for a slip in its ending):
        :meth:`read_other_spellings`, else a typing slip where the word is the query's one unknown word, or one
        slip off a word of ``TYPO_AMONG_UNKNOWN_CHARS`` letters or more among others: a short one among others
        ("a recipe for sourdough *bread*") is rather a word of a subject the vault lacks, and a near word
        ("break") would hide that."""
        unused = self._unused(words_terms)
        read = self.read_other_spellings(words_terms)
        spelt = {at for at, _ in read}
        for at in unused:
            terms = words_terms[at]
            as_written = written[at] if at < len(written) else ""
            if at in spelt:
                continue
            if len(unused) == 1:
                near = next((found for term in terms if (found := self.nearest_term(term, written=as_written))),
                            None)
            else:
                near = next((found for term in terms if len(term) >= TYPO_AMONG_UNKNOWN_CHARS
                             and (found := self.nearest_term(term, 1, as_written))), None)
            if near is not None:
                read.append((at, near))
        return sorted(read)

    def read_compounds(self, query_words: Sequence[str], lang: str | None,
                       words_terms: Sequence[Sequence[str]] | None = None) -> list[tuple[int, str]]:
        """The index terms that two neighbouring words of a query stand for where the vault writes them as one word
        ("Primär-Schlüssel" or "Primär Schlüssel" for "Primärschlüssel", "data base" for "database"), as (each
        word's place in ``query_words``, the term): only a joined word some passage holds is read. ``words_terms``:
        each word's index terms when the caller has them (none for a stopword)."""
        if words_terms is None:
            words_terms = [self.query_terms(word, lang) for word in query_words]
        read: list[tuple[int, str]] = []
        for place, ((first, first_terms), (second, second_terms)) in enumerate(pairwise(zip(query_words, words_terms,
                                                                                              strict=True))):
            if first.isalpha() and second.isalpha() and first_terms and second_terms:  # "hat das" is no "hatdas"
                term = self._known_term(first + second, lang)
                if term is not None and self._reaches_more(term, first_terms[0], second_terms[0]):
                    read += [(place, term), (place + 1, term)]
        return read

    def read_genitive_compounds(self, query_words: Sequence[str]) -> list[tuple[int, str]]:
        """The index term of the compound a German query's "X der/des Y" names where the vault writes it as one
        word and lacks X or Y alone ("Falle der Liquidität": "Liquiditätsfalle"), as (the place in ``query_words``
        of X and of Y, the term)."""
        read: list[tuple[int, str]] = []
        for place in range(len(query_words) - 2):
            head, article, owner = query_words[place:place + 3]
            if article not in GENITIVE_ARTICLES or not head.isalpha() or not owner.isalpha() or all(
                    any(self.document_frequency(term) for term in self.query_terms(word, "de"))
                    for word in (head, owner)):
                continue
            owners = dict.fromkeys([owner, owner[:-1] if owner.endswith("s") else owner,
                                    owner[:-2] if owner.endswith("es") else owner])
            term = next((found for stem in owners for joint in FUGEN
                         if (found := self._known_term(stem + joint + head, None)) is not None), None)
            if term is not None:
                read += [(place, term), (place + 2, term)]
        return read

    def _reaches_more(self, joined: str, first: str, second: str) -> bool:
        """Whether a passage holds the index term ``joined`` but not both ``first`` and ``second``: where the vault's
        compounds are split into their parts already ("Hilfedokumentation" is indexed with "Hilfe" and
        "Dokumentation"), the parts find them, and the joined word would only count them twice."""
        with self._lock:
            both = np.intersect1d(self._term_rows(first), self._term_rows(second))
            return bool(np.setdiff1d(self._term_rows(joined), both).size)

    def hyphenated_parts(self, word_terms: Sequence[str], lang: str | None, in_one_note: bool = False
                         ) -> tuple[str, ...]:
        """The index terms of two parts of a query word no passage holds, given its index terms, that passages hold
        side by side ("Web-Server" for "Webserver"): the cut that most passages hold both parts of, () when none
        does. Searched by, but the word stays one the vault lacks: a passage holding both is no proof that it
        writes them as one word ("Heapsort" is not read from a passage on heaps and sorting). ``in_one_note``:
        parts that one note holds, in any of its passages ("Plattenbewegung": "Platten" in one section of the
        note on plate tectonics, "Bewegung" in another)."""
        best: tuple[int, tuple[str, ...]] = (0, ())
        for word in word_terms:
            if not word.isalpha() or len(word) < 2 * COMPOUND_PART_CHARS or self.document_frequency(word):
                continue
            for cut in range(COMPOUND_PART_CHARS, len(word) - COMPOUND_PART_CHARS + 1):
                head, tail = self._known_term(word[:cut], lang), self._known_term(word[cut:], lang)
                if head is not None and tail is not None and head != tail \
                        and (together := self.holding_both(head, tail, in_one_note)) > best[0]:
                    best = (together, (head, tail))
        return best[1]

    def compounds_holding(self, part: str, at_end: bool) -> list[str]:
        """The index terms some passage holds that join ``part``, a word no passage has as a term, to a word before
        it (``at_end``: "plattengrenz" for "grenz") or after it ("nahrungsnetz" for "nahrungs"), the
        ``COMPOUNDS_PER_PART`` most held; [] for a part shorter than ``PART_WITHIN_CHARS`` letters."""
        if len(part) < PART_WITHIN_CHARS or not part.isalpha() or self.document_frequency(part):
            return []
        tables = self._spelling_tables()
        candidates = tables.by_tail.get(part[-PART_WITHIN_CHARS:], []) if at_end else \
            tables.by_head.get(part[:PART_WITHIN_CHARS], [])
        held = [(frequency, term) for term in candidates
                if len(term) - len(part) >= REST_WITHIN_CHARS and (term.endswith(part) if at_end else
                                                                   term.startswith(part))
                and (frequency := self.document_frequency(term))]
        return [term for _, term in sorted(held, reverse=True)[:COMPOUNDS_PER_PART]]

    def note_compound_parts(self, word_terms: Sequence[str]) -> tuple[CompoundPart, CompoundPart] | None:
        """Two parts of a question's word no passage holds (given its index terms) that one note holds, in any of
        the vault's main languages: the parts' own terms (``hyphenated_parts``, "Plattenbewegung": "Platten" and
        "Bewegung"), else a part the vault writes only inside compounds of its own stands for those
        (``compounds_holding``: "Transformgrenze" on a note of "transformen Plattengrenzen"; "Nahrungsstufen" on
        "Nahrungsnetz" and "Stufe"). None when no note holds two such parts."""
        parts = self.hyphenated_parts(word_terms, None, in_one_note=True)
        if parts:
            return CompoundPart(parts[0], (parts[0],)), CompoundPart(parts[1], (parts[1],))
        best: tuple[int, tuple[CompoundPart, CompoundPart] | None] = (0, None)
        for word in word_terms:
            if not word.isalpha() or len(word) < 2 * COMPOUND_PART_CHARS or self.document_frequency(word):
                continue
            for cut in range(COMPOUND_PART_CHARS, len(word) - COMPOUND_PART_CHARS + 1):
                head, tail = self._known_term(word[:cut], None), self._known_term(word[cut:], None)
                heads = (head,) if head is not None else tuple(self.compounds_holding(word[:cut], at_end=False))
                tails = (tail,) if tail is not None else tuple(self.compounds_holding(word[cut:], at_end=True))
                if heads and tails and set(heads).isdisjoint(tails) \
                        and (together := self._notes_holding_any(heads, tails)) > best[0]:
                    best = (together, (CompoundPart(head or word[:cut], heads),
                                       CompoundPart(tail or word[cut:], tails)))
        return best[1]

    def _notes_holding_any(self, first: Sequence[str], second: Sequence[str]) -> int:
        """How many notes hold one of the index terms ``first`` and one of ``second`` (in any of their passages)."""
        with self._lock:
            first_paths, second_paths = ({self._row_paths[row] for term in terms
                                          for row in self._term_rows(term).tolist()} for terms in (first, second))
            return len(first_paths & second_paths)

    def _read_as_other_language(self, placed: Sequence[tuple[str, Sequence[str]]], read: set[int]
                                ) -> list[tuple[int, str]]:
        """The index terms that a query's words no passage has in the query's language are as another main language
        of the vault stems them, as (the word's place in ``placed``, the term), given each word and its terms: an
        English question's "dominant" is a German note's "Dominante" (English stems it "domin", German "dominant"),
        "transform" its "transformen". Words of ``OTHER_LANGUAGE_CHARS`` letters or more, not yet ``read``."""
        found: list[tuple[int, str]] = []
        for at, (word, word_terms) in enumerate(placed):
            if at in read or len(word) < OTHER_LANGUAGE_CHARS or not word.isalpha() \
                    or any(self.document_frequency(term) for term in word_terms):
                continue
            term = self._known_term(word, None)
            if term is not None:
                found.append((at, term))
        return found

    def _known_term(self, word: str, lang: str | None) -> str | None:
        """The index term of the whole of ``word`` (not of a part a compound splits into) that some passage holds,
        read as ``lang`` or, with no guess, as each of the vault's main languages; None when none does."""
        for language in dict.fromkeys([lang] if lang else [*self.main_languages, None]):
            terms = self.analyzer.terms_of_word(word, language)
            if terms and self.document_frequency(terms[0]):
                return terms[0]
        return None

    def language_counts(self) -> dict[str, int]:
        """Passages per language (files whose language is unknown left out)."""
        with self._lock:
            return {lang: n for lang, n in self._lang_counts.items() if lang and n > 0}

    def word_language_frequencies(self, word: str, languages: tuple[str, ...]) -> dict[str, int | None]:
        """For each of ``languages``: how many of its passages hold ``word`` as that language's
        analyzer reads it (0 when it yields no term), None when the word is one of its stopwords.

        Remembered until the next compaction: the counts are evidence for guessing a query's
        language, which the edits in between (a few passages of a whole vault) cannot change, and
        working them out word by word in every language took more of a query's time on a large
        multilingual vault than the keyword search itself.
        """
        key = (word, languages)
        with self._lock:
            remembered = self._language_frequencies.get(key)
            if remembered is not None:
                return remembered
        by_term: dict[str, dict[str, int]] = {}
        found: dict[str, int | None] = {}
        for lang in languages:
            if is_stopword(word, lang):
                found[lang] = None
                continue
            terms = self.analyzer.terms_of_word(word, lang)
            if not terms:
                found[lang] = 0
                continue
            if terms[0] not in by_term:
                by_term[terms[0]] = self.language_frequencies(terms[0])
            found[lang] = by_term[terms[0]].get(lang, 0)
        with self._lock:
            if len(self._language_frequencies) >= LANGUAGE_FREQUENCIES_KEPT:
                self._language_frequencies.clear()
            self._language_frequencies[key] = found
        return found

    def language_frequencies(self, term: str) -> dict[str, int]:
        """How many passages of each language hold index term ``term`` (read from its postings)."""
        with self._lock:
            number = self.vocab.get(term)
            if number is None or number >= self._df.size or self._df.data[number] <= 0:
                return {}
            counts = np.bincount(self._lang.view()[self._live_rows(number)], minlength=len(self._lang_codes))
            names = self._lang_names()
            return {names[code]: int(n) for code, n in enumerate(counts.tolist()) if n and names[code]}

    def _live_rows(self, number: int) -> np.ndarray:
        """The live rows that hold the index term numbered ``number`` (the caller holds the lock)."""
        rows = [self._main.rows[self._main.indptr[number]:self._main.indptr[number + 1]]] \
            if number < self._main.vocab_size else []
        rows += [np.fromiter((r for r, _ in self._delta.get(number, ())), np.int64)]
        found: np.ndarray = np.concatenate(rows).astype(np.int64)
        alive: np.ndarray = found[self._alive.view()[found]]
        return alive

    def _term_rows(self, term: str) -> np.ndarray:
        """The live rows that hold index term ``term``, none when it is no index term (the caller holds the lock)."""
        number = self.vocab.get(term)
        return self._live_rows(number) if number is not None and number < self._df.size else np.zeros(0, np.int64)

    def holding_both(self, first: str, second: str, in_one_note: bool = False) -> int:
        """How many passages hold both index terms ``first`` and ``second``; ``in_one_note``: how many notes
        (each term in any of their passages)."""
        with self._lock:
            first_rows, second_rows = self._term_rows(first), self._term_rows(second)
            if not in_one_note:
                return len(np.intersect1d(first_rows, second_rows))
            first_paths, second_paths = ({self._row_paths[row] for row in rows.tolist()}
                                         for rows in (first_rows, second_rows))
            return len(first_paths & second_paths)

    @property
    def delta_share(self) -> float:
        """Rows added since the last compaction plus masked rows, as a share of the main segment."""
        return (len(self._row_ids) - self._main_rows + self._dead) / max(self._main_rows, 1)

    # -- changing -----------------------------------------------------------
    def _terms(self, stored: str, lang: str | None) -> list[str]:
        head, body = _split_words(stored)
        return self.analyzer.terms(head, lang) * BREADCRUMB_WEIGHT + self.analyzer.terms(body, lang)

    def _analyse(self, rows: Iterable[tuple[str, str, str | None, str]]
                 ) -> list[tuple[str, str, str, int, np.ndarray, np.ndarray, int]]:
        """Terms of new rows, worked out before the lock is taken (this is the slow part)."""
        prepared = []
        vocab = self.vocab
        for chunk_id, path, lang, stored in rows:
            counts = Counter(self._terms(stored, lang))
            ids = np.fromiter((vocab.setdefault(t, len(vocab)) for t in counts), np.int32, len(counts))
            tfs = np.fromiter(counts.values(), np.float32, len(counts))
            prepared.append((chunk_id, path, lang or "", words_digest(lang, stored), ids, tfs,
                             sum(counts.values())))
        return prepared

    def _remove_row(self, row: int) -> None:
        self._alive.data[row] = False
        self._df.data[self._row_terms[row]] -= 1
        self._total_len -= float(self._doc_len.data[row])
        self._lang_counts[self._lang_names()[int(self._lang.data[row])]] -= 1
        self._row_of.pop(self._row_ids[row], None)
        self._rows_by_path[self._row_paths[row]].remove(row)
        if not self._rows_by_path[self._row_paths[row]]:
            del self._rows_by_path[self._row_paths[row]]
        self._dead += 1

    def _lang_names(self) -> list[str]:
        names = [""] * len(self._lang_codes)
        for name, code in self._lang_codes.items():
            names[code] = name
        return names

    def _add_row(self, chunk_id: str, path: str, lang: str, digest: int, ids: np.ndarray,
                 tfs: np.ndarray, length: int, delta: bool = True) -> None:
        """Append a row; ``delta`` False only while bulk loading (a compaction follows)."""
        row = len(self._row_ids)
        self._row_ids.append(chunk_id)
        self._row_paths.append(path)
        self._row_terms.append(ids)
        self._row_tfs.append(tfs)
        self._digests.append(digest)
        self._doc_len.append(length)
        self._alive.append(True)
        self._lang.append(self._lang_codes.setdefault(lang, len(self._lang_codes)))
        self._lang_counts[lang] += 1
        self._df.resize(len(self.vocab))
        self._df.data[ids] += 1
        self._total_len += length
        self._row_of[chunk_id] = row
        self._rows_by_path[path].append(row)
        if delta:
            for term, tf in zip(ids.tolist(), tfs.tolist(), strict=True):
                self._delta[term].append((row, tf))
                self._delta_arrays.pop(term, None)

    def _apply(self, removed: Iterable[str], added: Iterable[tuple[str, str, str | None, str]],
               generation: int, bulk: bool = False) -> int:
        """Mask ``removed`` chunk ids and add ``added`` rows; returns how many rows changed.

        ``bulk``: a new index nobody searches yet, compacted right after.
        """
        prepared = self._analyse(added)  # outside the lock: searches go on meanwhile
        if bulk:
            for item in prepared:
                self._add_row(*item, delta=False)
            self.generation = generation
            self.compact()
            return len(prepared)
        with self._lock:
            changed = 0
            for chunk_id in removed:
                row = self._row_of.get(chunk_id)
                if row is not None:
                    self._remove_row(row)
                    changed += 1
            for item in prepared:
                old = self._row_of.get(item[0])
                if old is not None:
                    self._remove_row(old)
                self._add_row(*item)
                changed += 1
            self.generation = generation
            self._after_change()
        if self.delta_share > COMPACT_SHARE and \
                len(self._row_ids) - self._main_rows + self._dead >= COMPACT_MIN_ROWS:
            self.compact()
        return changed

    def _after_change(self) -> None:
        self._version += 1
        self._live_cache = None
        # Equal counts by name, not by which language's rows came first.
        counted = sorted(self._lang_counts.items(), key=lambda item: (-item[1], item[0] or ""))
        self.main_languages = [lang for lang, n in counted[:4] if lang and n > 0][:3]

    def update_paths(self, catalog: Catalog, paths: Iterable[str]) -> int:
        """Bring the chunks of ``paths`` up to date with the catalog (the cheap path after an edit).

        Only valid when every change since :attr:`generation` touched ``paths``; returns the rows changed.
        """
        paths = sorted(set(paths))
        current = {row[0]: row for row in catalog.chunk_words_of(paths)}
        generation = catalog.generation()
        with self._lock:
            known = {self._row_ids[r]: self._digests[r] for p in paths for r in self._rows_by_path.get(p, ())}
        removed = [cid for cid in known if cid not in current]
        added = [row for cid, row in current.items() if known.get(cid) != words_digest(row[2], row[3])]
        return self._apply(removed, added, generation)

    def sync(self, catalog: Catalog) -> bool:
        """Bring the whole index up to date with the catalog by per-chunk digests.

        Returns False (nothing changed) when the German compound lexicon moved: the caller rebuilds.
        """
        generation = catalog.generation()
        rows = list(catalog.iter_chunk_words())
        if _german_lexicon(rows) != self.analyzer.compound_lexicon:
            return False
        with self._lock:
            known = {self._row_ids[r]: self._digests[r] for r in self._row_of.values()}
        wanted = {row[0] for row in rows}
        removed = [cid for cid in known if cid not in wanted]
        added = [row for row in rows if known.get(row[0]) != words_digest(row[2], row[3])]
        self._apply(removed, added, generation)
        return True

    def compact(self) -> None:
        """Fold the delta into the main segment and drop masked rows (array work, no analysis)."""
        # Everything is prepared outside the lock (searches go on; this thread is the only writer)
        # and swapped in under it.
        version = self._version
        alive = np.flatnonzero(self._alive.view())
        keep = alive.tolist()
        row_terms = [self._row_terms[r] for r in keep]
        row_tfs = [self._row_tfs[r] for r in keep]
        main = _Postings.build(row_terms, row_tfs, len(self.vocab))
        row_ids = [self._row_ids[r] for r in keep]
        row_paths = [self._row_paths[r] for r in keep]
        digests = [self._digests[r] for r in keep]
        doc_len = _Growable(self._doc_len.view()[alive].copy())
        lang = _Growable(self._lang.view()[alive].copy())
        row_of = {cid: r for r, cid in enumerate(row_ids)}
        by_path: dict[str, list[int]] = defaultdict(list)
        for r, path in enumerate(row_paths):
            by_path[path].append(r)
        with self._lock:
            if version != self._version:
                return  # changed meanwhile: the next change compacts
            self._row_ids, self._row_paths, self._digests = row_ids, row_paths, digests
            self._row_terms, self._row_tfs = row_terms, row_tfs
            self._doc_len, self._lang = doc_len, lang
            self._alive = _Growable(np.ones(len(keep), np.bool_))
            self._row_of, self._rows_by_path = row_of, by_path
            self._main, self._main_rows = main, len(keep)
            self._delta = defaultdict(list)
            self._delta_arrays = {}
            self._dead = 0
            self._language_frequencies = {}
            self._after_change()

    # -- building -----------------------------------------------------------
    @classmethod
    def build(cls, catalog: Catalog, previous: LexicalIndex | None = None) -> LexicalIndex:
        """Build from the catalog; ``previous`` lends its analyzer (and its stemming cache) when the
        compound lexicon is unchanged, which makes a rebuild much cheaper."""
        generation = catalog.generation()
        rows = list(catalog.iter_chunk_words())
        lexicon = _german_lexicon(rows)
        if previous is not None and previous.analyzer.compound_lexicon == lexicon:
            analyzer = previous.analyzer
        else:
            analyzer = Analyzer(lexicon)
        built = cls(analyzer, generation)
        built._apply([], rows, generation, bulk=True)
        return built

    # -- persistence ------------------------------------------------------
    def save(self, folder: Path) -> None:
        """Write the live rows to ``folder`` via a sibling temp folder swapped in by rename."""
        with self._lock:
            rows = np.flatnonzero(self._alive.view()).tolist()
            ids = [self._row_ids[r] for r in rows]
            paths = [self._row_paths[r] for r in rows]
            names = self._lang_names()
            langs = [names[int(self._lang.data[r])] for r in rows]
            terms = [self._row_terms[r] for r in rows]
            tfs = [self._row_tfs[r] for r in rows]
            digests = np.array([self._digests[r] for r in rows], np.int64)
            vocab = sorted(self.vocab, key=self.vocab.__getitem__)
            generation = self.generation
        offsets = np.zeros(len(rows) + 1, np.int64)
        np.cumsum([len(t) for t in terms], out=offsets[1:])
        staging = folder.with_name(folder.name + ".tmp")
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        np.savez(staging / "rows.npz", offsets=offsets, digests=digests,
                 terms=_concatenate(terms, np.int32), tfs=_concatenate(tfs, np.float32))
        atomic_write_text(staging / "rows.json", json.dumps({"ids": ids, "paths": paths, "langs": langs},
                                                            ensure_ascii=False))
        atomic_write_text(staging / "vocab.json", json.dumps(vocab, ensure_ascii=False))
        atomic_write_text(staging / "lexicon.json", json.dumps(sorted(self.analyzer.compound_lexicon),
                                                               ensure_ascii=False))
        atomic_write_text(staging / "stamp.json", json.dumps(
            {"generation": generation, "format": _format_stamp(), "rows": len(ids)}))
        old = folder.with_name(folder.name + ".old")
        shutil.rmtree(old, ignore_errors=True)
        if folder.exists():
            folder.rename(old)
        staging.rename(folder)
        shutil.rmtree(old, ignore_errors=True)

    @classmethod
    def load(cls, folder: Path) -> LexicalIndex | None:
        """The saved index at the generation it was saved at (possibly behind the catalog: see
        :meth:`sync`); None when absent or of another format.

        Raises CorruptIndex when it is there but unreadable.
        """
        try:
            stamp = json.loads((folder / "stamp.json").read_text("utf-8"))
            if stamp.get("format") != _format_stamp():
                return None
            rows = json.loads((folder / "rows.json").read_text("utf-8"))
            vocab = json.loads((folder / "vocab.json").read_text("utf-8"))
            lexicon = json.loads((folder / "lexicon.json").read_text("utf-8"))
            with np.load(folder / "rows.npz") as arrays:
                offsets, digests = arrays["offsets"], arrays["digests"]
                terms, tfs = arrays["terms"], arrays["tfs"]
            count = len(rows["ids"])
            if not (count == stamp["rows"] == len(rows["paths"]) == len(rows["langs"]) == len(digests)
                    == len(offsets) - 1) or offsets[-1] != len(terms) != len(tfs) \
                    or (len(terms) and (terms.min() < 0 or terms.max() >= len(vocab))):
                raise ValueError("the saved arrays do not agree with each other")
        except FileNotFoundError:
            return None
        except Exception as exc:  # noqa: BLE001 - whatever the damage, the catalog can rebuild it
            raise CorruptIndex(f"lexical index at {folder} is unreadable ({exc})") from exc
        index = cls(Analyzer(lexicon), int(stamp["generation"]))
        index.vocab = {term: number for number, term in enumerate(vocab)}
        for row in range(count):
            start, end = int(offsets[row]), int(offsets[row + 1])
            row_tfs = tfs[start:end]
            index._add_row(rows["ids"][row], rows["paths"][row], rows["langs"][row], int(digests[row]),
                           terms[start:end], row_tfs, int(row_tfs.sum()), delta=False)
        index.compact()
        return index

    # -- searching --------------------------------------------------------
    def query_terms(self, query: str, lang: str | None) -> list[str]:
        """Index terms of ``query`` analysed as ``lang``; with no guess, as each of the vault's
        main languages (a one-word query cannot be told apart)."""
        query_words = words(query)
        languages = [lang] if lang else [*self.main_languages, None]
        terms: list[str] = []
        for language in dict.fromkeys(languages):
            terms += [t for t in self.analyzer.terms(query_words, language) if t not in terms]
        return terms

    def _scores(self, term_ids: list[int], weights: list[float]) -> np.ndarray:
        """BM25 (Lucene variant) of every row for the query terms, each term's part times its weight, from the
        live statistics."""
        size = len(self._row_ids)
        scores = np.zeros(size, np.float64)
        live = len(self._row_of)
        if not live:
            return scores
        average = self._total_len / live
        doc_len = self._doc_len.view()
        norm_factor = BM25_K1 * BM25_B / average if average > 0 else 0.0
        base = BM25_K1 * (1 - BM25_B)
        main = self._main
        for term, weight in zip(term_ids, weights, strict=True):
            if term >= self._df.size:
                continue  # a term the writer is adding right now
            df = int(self._df.data[term])
            if df <= 0:
                continue
            idf = weight * math.log(1 + (live - df + 0.5) / (df + 0.5))
            if term < main.vocab_size:
                start, end = main.indptr[term], main.indptr[term + 1]
                rows, tfs = main.rows[start:end], main.tfs[start:end]
                scores[rows] += idf * tfs / (base + norm_factor * doc_len[rows] + tfs)
            extra = self._delta_arrays.get(term)
            if extra is None and self._delta.get(term):
                entries = self._delta[term]
                extra = self._delta_arrays[term] = (
                    np.fromiter((r for r, _ in entries), np.int64, len(entries)),
                    np.fromiter((tf for _, tf in entries), np.float64, len(entries)))
            if extra is not None:
                rows, tfs = extra
                scores[rows] += idf * tfs / (base + norm_factor * doc_len[rows] + tfs)
        scores[~self._alive.view()] = 0.0
        return scores.astype(np.float32)

    def read_query(self, query: str, lang: str | None) -> QueryReading:
        """The index terms ``query`` is searched by (with those its misspelt words stand for, :meth:`read_slips`,
        and those its words the vault has only as another of its languages stems them) and the share of its words
        the vault lacks (see :class:`QueryReading`)."""
        terms = self.query_terms(query, lang)
        query_words = words(query)
        framing = frame_words(query_words, [lang] if lang else self.main_languages)
        by_word = [self.query_terms(word, lang) for word in query_words]
        placed = [(place, word_terms, frame) for place, (word_terms, frame) in enumerate(zip(by_word, framing,
                                                                                             strict=True))
                  if word_terms]
        read_words = [(word_terms, frame) for _, word_terms, frame in placed]
        words_terms = [word_terms for word_terms, _ in read_words]
        at_place = {place: at for at, (place, _, _) in enumerate(placed)}
        compounds = self.read_compounds(query_words, lang, by_word) + \
            (self.read_genitive_compounds(query_words) if lang == "de" else [])
        slips = [(at_place[place], term) for place, term in compounds if place in at_place]
        joined = {at for at, _ in slips}
        written = [query_words[place] for place, _, _ in placed]
        slips += [(at, term) for at, term in self.read_slips(words_terms, written) if at not in joined]
        if lang is not None:
            slips += self._read_as_other_language([(query_words[place], word_terms) for place, word_terms, _ in placed],
                                                  {at for at, _ in slips})
        terms += [term for term in dict.fromkeys(term for _, term in slips) if term not in terms]
        read = {at for at, _ in slips}
        nouns = {word.casefold() for word in _LETTERS.findall(query) if word[0].isupper()}
        unknown = sum(1 for at, word_terms in enumerate(words_terms)
                      if at not in read and not any(self.document_frequency(t) for t in word_terms))
        subject = {term for word_terms, frame in read_words if not frame for term in word_terms}
        subject |= {term for at, term in slips if not read_words[at][1]}
        for at, (word_terms, frame) in enumerate(read_words):
            if at not in read:
                parts = [part for part in self.hyphenated_parts(word_terms, lang) if part not in terms]
                if not parts and lang == "de" and query_words[placed[at][0]] in nouns:
                    # "Transformgrenze" on a note of "transformen Plattengrenzen" (a noun: a verb is no compound)
                    parts = [term for part in self.note_compound_parts(word_terms) or () for term in part.terms
                             if term not in terms]
                terms += parts
                subject |= set() if frame else set(parts)
        return QueryReading(tuple(terms), unknown / len(words_terms) if words_terms else 0.0,
                            frozenset(terms) - subject)

    def search(self, query: str, lang: str | None, k: int, allowed_paths: set[str] | None = None,
               read_slips: bool = True, reading: QueryReading | None = None) -> list[LexicalHit]:
        """Top ``k`` chunks by BM25; ``allowed_paths`` restricts to a scope. ``read_slips``: a misspelt word
        also finds the word it stands for (:meth:`read_query`); off for text being typed, where an unfinished
        word is no slip. ``reading``: the query's :meth:`read_query` when the caller has it already."""
        if reading is None and read_slips:
            reading = self.read_query(query, lang)
        terms = list(reading.terms) if reading is not None else self.query_terms(query, lang)
        frame = reading.frame_terms if reading is not None else frozenset()
        with self._lock:
            known = [t for t in terms if t in self.vocab]
            if not known or not self._row_of:
                return []
            scores = self._scores([self.vocab[t] for t in known], [FRAME_WEIGHT if t in frame else 1.0 for t in known])
            if lang and lang in self.main_languages and OTHER_LANGUAGE_FACTOR != 1.0:
                # A question asked in German wants the German note before its English twin.
                code = self._lang_codes.get(lang, -1)
                scores = np.where(self._lang.view() == code, scores, scores * np.float32(OTHER_LANGUAGE_FACTOR))
            if allowed_paths is not None:
                mask = np.zeros(len(scores), np.bool_)
                for path in allowed_paths:
                    mask[self._rows_by_path.get(path, [])] = True
                scores = np.where(mask, scores, 0.0)
            k = min(k, len(scores))
            top = np.argpartition(-scores, k - 1)[:k] if k < len(scores) else np.arange(len(scores))
            top = top[scores[top] > 0]
            if k < len(scores) and len(top):  # every row tied with the k-th: the sort below picks among them
                top = np.flatnonzero(scores >= scores[top].min())
            # Equal scores rank by path, then chunk id: row numbers follow the order files were
            # indexed in, which differs between a clean, an incremental and a resumed build.
            rows = sorted(top.tolist(), key=lambda row: (-scores[row], self._row_paths[row], self._row_ids[row]))
            return [LexicalHit(self._row_ids[row], self._row_paths[row], float(scores[row])) for row in rows[:k]]
