"""Which of the vault's languages a query is written in: how search and answers read a question.

A character model alone (py3langid) misreads short queries: "Was produzieren
Mitochondrien?" comes out Dutch, a single word comes out as anything. So the
language is chosen among the vault's own languages (the per-file languages of
the catalog, frontmatter ``lang`` included), and only among those that hold a
real share of its passages (a few misdetected files do not make Dutch a
candidate), by *word evidence*: for each candidate, how many of the vault's
passages in that language hold each query word, as that language's stemmer
reads it (a stopword of the language counts as common in it). The language
whose vocabulary explains the words clearly best wins; when the words say
nothing clear (unknown words, words shared by both languages), a query of a
few words falls back to the character model restricted to the candidates, and
a shorter one has no clear language (``lang`` None): search then analyses it
as each main language and gives it the dense weight of the vault's main one.

:func:`query_language` is the one entry point: search, link completion and the
answer pipeline call it (through ``Engine.query_language`` when they hold an
engine).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cognivault.index.analysis import detect_language, words

if TYPE_CHECKING:
    from cognivault.index.lexical import LexicalIndex

MIN_SHARE = 0.02  # a language with fewer of the vault's passages is taken for misdetected files
CLEAR_RATIO = 4.0  # the best language must explain the words this many times better than the next
STOPWORD_SHARE = 0.5  # a stopword of a language is taken to occur in half of its passages
UNSEEN_PASSAGES = 0.1  # a word a language's passages never hold counts as in a tenth of one
EVIDENCE_WORDS = 16  # the first distinct words decide: enough for a question, cheap for a paragraph
MIN_WORDS_FOR_CHARACTERS = 3  # fewer words than this: the character model is a guess


@dataclass(frozen=True, slots=True)
class QueryLanguage:
    """The language a query is read as, and why."""

    lang: str | None  # ISO 639-1 code; None: no clear language
    evidence: str  # "words", "characters", "only language" or "none"
    candidates: tuple[str, ...]  # the vault's languages considered, most passages first

    def to_dict(self) -> dict[str, object]:
        return {"lang": self.lang, "evidence": self.evidence, "candidates": list(self.candidates)}


def candidate_languages(counts: dict[str, int]) -> tuple[str, ...]:
    """The languages holding at least ``MIN_SHARE`` of the passages, most passages first."""
    total = sum(counts.values())
    ranked = sorted(counts, key=lambda lang: (-counts[lang], lang))
    kept = tuple(lang for lang in ranked if counts[lang] >= MIN_SHARE * total)
    return kept or tuple(ranked[:1])


def query_language(query: str, lexical: LexicalIndex | None, languages: Iterable[str] = ()) -> QueryLanguage:
    """The language of ``query`` among the vault's languages (see the module docstring).

    ``lexical``: the vault's keyword index (its passages per language and their words);
    ``languages``: the vault's languages when there is no keyword index yet (each counts the same).
    """
    counts = lexical.language_counts() if lexical is not None else {}
    if not counts:
        counts = {lang: 1 for lang in languages if lang}
    candidates = candidate_languages(counts) if counts else ()
    if len(candidates) == 1:
        return QueryLanguage(candidates[0], "only language", candidates)
    query_words = list(dict.fromkeys(w for w in words(query) if not w.isdigit()))
    if lexical is not None and candidates:
        chosen = _by_words(query_words[:EVIDENCE_WORDS], lexical, candidates, counts)
        if chosen is not None:
            return QueryLanguage(chosen, "words", candidates)
    if len(query_words) >= MIN_WORDS_FOR_CHARACTERS:
        guess = detect_language(query, frozenset(candidates) or None)
        if guess is not None and (not candidates or guess in candidates):
            return QueryLanguage(guess, "characters", candidates)
    return QueryLanguage(None, "none", candidates)


def _by_words(query_words: list[str], lexical: LexicalIndex, candidates: tuple[str, ...],
              counts: dict[str, int]) -> str | None:
    """The candidate whose passages explain the words ``CLEAR_RATIO`` times better than any other
    (naive Bayes: each language's share of the passages times each word's share of its passages)."""
    total = sum(counts[lang] for lang in candidates)
    scores = {lang: math.log(counts[lang] / total) for lang in candidates}
    informative = 0
    for word in query_words:
        passages = lexical.word_language_frequencies(word, candidates)
        shares = {lang: STOPWORD_SHARE if found is None else found / counts[lang]
                  for lang, found in passages.items()}
        if max(shares.values()) <= 0:
            continue  # no passage of any language holds it: it says nothing
        informative += 1
        for lang, share in shares.items():
            scores[lang] += math.log(max(share, UNSEEN_PASSAGES / counts[lang]))
    if not informative:
        return None
    ranked = sorted(scores, key=lambda lang: -scores[lang])
    if scores[ranked[0]] - scores[ranked[1]] < math.log(CLEAR_RATIO):
        return None
    return ranked[0]
