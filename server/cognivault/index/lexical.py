"""BM25 keyword search over every chunk, fast enough to type through (bm25s sparse scores).

Built from the words the catalog stores per chunk (breadcrumb words and body
words apart), so a rebuild never re-reads files. The breadcrumb (note title
and heading path) counts ``BREADCRUMB_WEIGHT`` times: a note titled like the
question is usually the answer. Saved with the catalog generation it was
built from; a stale or unreadable copy is rebuilt from the catalog.
"""

from __future__ import annotations

import json
import logging
import shutil
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import bm25s
import numpy as np

from cognivault.atomic import atomic_write_text
from cognivault.index.analysis import ANALYZER_VERSION, Analyzer, words
from cognivault.index.catalog import Catalog

log = logging.getLogger(__name__)
logging.getLogger("bm25s").setLevel(logging.WARNING)  # it logs every build at DEBUG to the root handler

BREADCRUMB_SEPARATOR = "\x1e"
BREADCRUMB_WEIGHT = 1
# Lucene's defaults; on the dev set they beat bm25s's k1=1.5 (nDCG@10 0.800 vs 0.788).
BM25_K1 = 1.2
BM25_B = 0.75
OTHER_LANGUAGE_FACTOR = 0.8
FORMAT_VERSION = 2


def _format_stamp() -> str:
    """Everything that changes the built index: a saved index with another stamp is rebuilt."""
    return f"{FORMAT_VERSION}:k1={BM25_K1}:b={BM25_B}:breadcrumb={BREADCRUMB_WEIGHT}:{ANALYZER_VERSION}"


def join_words(breadcrumb_words: list[str], body_words: list[str]) -> str:
    """The catalog's ``words`` column: breadcrumb words, a separator, body words."""
    return f"{' '.join(breadcrumb_words)} {BREADCRUMB_SEPARATOR} {' '.join(body_words)}"


def _split_words(stored: str) -> tuple[list[str], list[str]]:
    head, _, body = stored.partition(BREADCRUMB_SEPARATOR)
    return head.split(), body.split()


class CorruptIndex(RuntimeError):
    """A derived index file exists but cannot be read; it is moved aside and rebuilt."""


@dataclass(slots=True)
class LexicalHit:
    row: int
    score: float


class LexicalIndex:
    """BM25 over the catalog's chunks; rows are positions in ``chunk_ids``."""

    def __init__(self, retriever: bm25s.BM25 | None, chunk_ids: list[str], paths: list[str],
                 languages: list[str | None], analyzer: Analyzer, generation: int) -> None:
        self.retriever = retriever
        self.chunk_ids = chunk_ids
        self.paths = paths
        self.languages = languages
        self.analyzer = analyzer
        self.generation = generation
        self.chunk_terms: dict[str, tuple[str, list[str]]] = {}  # filled by build(), reused by the next
        self.row_of = {chunk_id: row for row, chunk_id in enumerate(chunk_ids)}
        self.language_array = np.array([lang or "" for lang in languages])
        counts = Counter(lang for lang in languages if lang)
        self.main_languages = [lang for lang, _ in counts.most_common(3)]

    def __len__(self) -> int:
        return len(self.chunk_ids)

    # -- building ---------------------------------------------------------
    @classmethod
    def build(cls, catalog: Catalog, previous: LexicalIndex | None = None) -> LexicalIndex:
        """Build from the catalog; ``previous`` lends its analyzer (and its stemming cache) when the
        compound lexicon is unchanged, which makes the rebuild after a small edit much cheaper."""
        generation = catalog.generation()
        rows = list(catalog.iter_chunk_words())
        german: Counter[str] = Counter()
        for _, _, lang, stored in rows:
            if lang == "de":
                german.update(stored.split())
        lexicon = Analyzer.build_lexicon(german)
        if previous is not None and previous.analyzer.compound_lexicon == lexicon:
            analyzer = previous.analyzer
        else:
            analyzer = Analyzer(lexicon)
        # Terms of a chunk whose words and analyzer are unchanged are taken from the previous build.
        known = previous.chunk_terms if previous is not None and analyzer is previous.analyzer else {}
        chunk_terms: dict[str, tuple[str, list[str]]] = {}
        corpus: list[list[str]] = []
        for chunk_id, _, lang, stored in rows:
            cached = known.get(chunk_id)
            if cached is not None and cached[0] == stored:
                terms = cached[1]
            else:
                head, body = _split_words(stored)
                terms = analyzer.terms(head, lang) * BREADCRUMB_WEIGHT + analyzer.terms(body, lang)
            chunk_terms[chunk_id] = (stored, terms)
            corpus.append(terms)
        retriever = None
        if corpus:
            retriever = bm25s.BM25(k1=BM25_K1, b=BM25_B)
            retriever.index(corpus, show_progress=False)
        built = cls(retriever, [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows],
                    analyzer, generation)
        built.chunk_terms = chunk_terms
        return built

    # -- persistence ------------------------------------------------------
    def save(self, folder: Path) -> None:
        """Write to ``folder`` via a sibling temp folder swapped in by rename."""
        staging = folder.with_name(folder.name + ".tmp")
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        if self.retriever is not None:
            self.retriever.save(str(staging / "bm25"))
        np.save(staging / "languages.npy", np.array([lang or "" for lang in self.languages]))
        atomic_write_text(staging / "rows.json", json.dumps({"ids": self.chunk_ids, "paths": self.paths}))
        atomic_write_text(staging / "lexicon.json", json.dumps(sorted(self.analyzer.compound_lexicon),
                                                               ensure_ascii=False))
        atomic_write_text(staging / "stamp.json", json.dumps(
            {"generation": self.generation, "format": _format_stamp(), "rows": len(self.chunk_ids)}))
        old = folder.with_name(folder.name + ".old")
        shutil.rmtree(old, ignore_errors=True)
        if folder.exists():
            folder.rename(old)
        staging.rename(folder)
        shutil.rmtree(old, ignore_errors=True)

    @classmethod
    def load(cls, folder: Path, expected_generation: int) -> LexicalIndex | None:
        """The saved index if it matches ``expected_generation``; None when absent or stale.

        Raises CorruptIndex when it is there but unreadable.
        """
        try:
            stamp = json.loads((folder / "stamp.json").read_text("utf-8"))
            if stamp.get("format") != _format_stamp() or stamp.get("generation") != expected_generation:
                return None
            rows = json.loads((folder / "rows.json").read_text("utf-8"))
            if len(rows["ids"]) != stamp["rows"]:
                raise ValueError("row count does not match the stamp")
            lexicon = json.loads((folder / "lexicon.json").read_text("utf-8"))
            languages = [lang or None for lang in np.load(folder / "languages.npy").tolist()]
            retriever = bm25s.BM25.load(str(folder / "bm25")) if rows["ids"] else None
        except FileNotFoundError:
            return None
        except Exception as exc:  # noqa: BLE001 - whatever the damage, the catalog can rebuild it
            raise CorruptIndex(f"lexical index at {folder} is unreadable ({exc})") from exc
        return cls(retriever, rows["ids"], rows["paths"], languages, Analyzer(lexicon), expected_generation)

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

    def search(self, query: str, lang: str | None, k: int, mask: np.ndarray | None = None
               ) -> list[LexicalHit]:
        """Top ``k`` rows by BM25; ``mask`` (bool per row) restricts to a scope."""
        if self.retriever is None:
            return []
        ids = self.retriever.get_tokens_ids(self.query_terms(query, lang))
        if not ids:
            return []
        scores = self.retriever.get_scores_from_ids(ids)
        if lang and lang in self.main_languages and OTHER_LANGUAGE_FACTOR != 1.0:
            # A question asked in German wants the German note before its English twin.
            scores = np.where(self.language_array == lang, scores, scores * OTHER_LANGUAGE_FACTOR)
        if mask is not None:
            scores = np.where(mask, scores, 0.0)
        k = min(k, len(scores))
        top = np.argpartition(-scores, k - 1)[:k] if k < len(scores) else np.arange(len(scores))
        top = top[np.argsort(-scores[top], kind="stable")]
        return [LexicalHit(int(row), float(scores[row])) for row in top if scores[row] > 0]
