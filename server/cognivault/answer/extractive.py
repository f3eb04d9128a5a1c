"""Answers with no language model at all: the vault's own best sentences, each with its source.

The evidence pack is the top passages of a hybrid search, labelled S1..Sn.
Sentences are scored by how many of the question's key terms they contain
(stemmed, stopwords ignored), near-duplicates are dropped, and the chosen
sentences are given in evidence order, each ending with its ``[Sn]`` label.
When no sentence shares a key term with the question, the answer says the
vault does not cover it instead of guessing. Deterministic.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

from cognivault.engine import Engine, SearchResult
from cognivault.index.scope import Scope

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-ZÄÖÜ0-9])|\n{2,}|\n(?=\s*[-*+] |\s*\d+\. |\|)")
NOT_IN_VAULT = "The vault doesn't say: none of the indexed notes covers this question."


@dataclass(slots=True)
class Citation:
    label: str
    chunk_id: str
    path: str
    heading_path: list[str]
    line_start: int
    line_end: int
    locator: str
    snippet: str
    score: float

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


@dataclass(slots=True)
class ExtractiveAnswer:
    question: str
    text: str
    citations: list[Citation]  # the whole evidence pack
    cited: list[str]  # labels used in ``text``
    answered: bool

    def to_dict(self) -> dict[str, object]:
        return {"question": self.question, "text": self.text, "answered": self.answered,
                "cited": self.cited, "citations": [c.to_dict() for c in self.citations]}


def split_sentences(text: str) -> list[str]:
    pieces = (piece.strip(" \t\n-*+>|") for piece in _SENTENCE_END.split(text))
    return [" ".join(piece.split()) for piece in pieces if len(piece.split()) >= 4]


def _citation(label: str, result: SearchResult) -> Citation:
    return Citation(label, result.chunk_id, result.path, result.heading_path, result.line_start,
                    result.line_end, result.locator, result.snippet, result.score)


def answer_extractively(engine: Engine, question: str, k: int = 5, max_sentences: int = 4,
                        scope: Scope | None = None) -> ExtractiveAnswer:
    response = engine.search(question, k=k, mode="hybrid", scope=scope)
    citations = [_citation(f"S{n}", result) for n, result in enumerate(response.results, start=1)]
    lexical = engine.store.lexical
    if lexical is None or not citations:
        return ExtractiveAnswer(question, NOT_IN_VAULT, citations, [], False)
    key_terms = set(lexical.query_terms(question, response.language))
    scored: list[tuple[float, int, int, str, str]] = []
    for position, (citation, result) in enumerate(zip(citations, response.results, strict=True)):
        record = engine.chunk(result.chunk_id)
        if record is None:
            continue
        for order, sentence in enumerate(split_sentences(record.text)):
            terms = set(lexical.analyzer.terms(
                [w.casefold() for w in re.findall(r"\w+", sentence)], record.lang))
            overlap = len(key_terms & terms)
            if overlap:
                # Coverage of the question first, then earlier evidence, then earlier sentences.
                scored.append((overlap / max(len(key_terms), 1), position, order, sentence, citation.label))
    scored.sort(key=lambda item: (-item[0], item[1], item[2]))
    chosen: list[tuple[int, int, str, str]] = []
    seen: list[set[str]] = []
    for _, position, order, sentence, label in scored:
        words = set(sentence.casefold().split())
        if any(len(words & other) / max(len(words | other), 1) > 0.7 for other in seen):
            continue
        seen.append(words)
        chosen.append((position, order, sentence, label))
        if len(chosen) >= max_sentences:
            break
    if not chosen:
        return ExtractiveAnswer(question, NOT_IN_VAULT, citations, [], False)
    chosen.sort()
    text = " ".join(f"{sentence.rstrip()} [{label}]" for _, _, sentence, label in chosen)
    cited = list(dict.fromkeys(label for *_, label in chosen))
    return ExtractiveAnswer(question, text, citations, cited, True)
