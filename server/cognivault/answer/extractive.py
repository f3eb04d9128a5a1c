"""Answers with no language model at all: the vault's own best sentences, each with its source.

Sentences of the evidence pack are scored by the weighted share of the
question's key terms they contain (stemmed, stopwords ignored, rare words
weighing more) and, when an embedding model that knows the question's
language is at hand, by their meaning's similarity to the question.

A sentence is quoted only when it is really about the question: it covers at
least ``MIN_SENTENCE_SHARE`` of the question's key concepts and at least
``RELATIVE_SHARE`` of what the best sentence covers, its passage covers the
question nearly as well as the best passage, its meaning is close enough to
the question's (``DENSE_FLOOR``, ``DENSE_SHARE`` of the best), and its score
is within ``SCORE_SHARE`` of the best sentence's. Questions and sentences that
merely quote the question ("ask something like ...") are not answers. When
fewer sentences pass, the answer is shorter: it is never padded.
Near-duplicates are dropped and the chosen sentences are given in evidence
order, each ending with its ``[Sn]`` label. When the pack does not support an
answer (see ``confidence.SUPPORT_FLOOR``) or no sentence passes, the answer
says the vault does not cover it instead of guessing. Deterministic.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from cognivault.answer.evidence import Evidence, text_terms

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-ZÄÖÜ0-9])|\n{2,}|\n(?=\s*[-*+] |\s*\d+\. |\|)")
_MARKUP = re.compile(r"\*\*|__|(?<!\w)[*_](?=\w)|(?<=\w)[*_](?!\w)|`")
_WIKILINK = re.compile(r"!?\[\[([^\]|#]*)(?:#[^\]|]*)?(?:\|([^\]]*))?\]\]")
_HEADING_MARK = re.compile(r"^#{1,6}\s+")
_LIST_MARK = re.compile(r"^(?:\d{1,3}[.)]|[-*+])\s+")
_BLOCK_ID = re.compile(r"\s\^[A-Za-z0-9-]+\s*$")
_CALLOUT = re.compile(r"\[!\w+\][+-]?\s*")
_ALIASES = re.compile(r"^aliases:.*$|\(aliases: [^)]*\)", re.IGNORECASE)

NOT_IN_VAULT = "The vault doesn't say: none of the indexed notes covers this question."
NOT_IN_VAULT_DE = "Dazu steht nichts im Vault: keine der indizierten Notizen behandelt diese Frage."
MIN_SENTENCE_SHARE = 0.1
RELATIVE_SHARE = 0.4
SCORE_SHARE = 0.5
OTHER_NOTE_SHARE = 0.8
DENSE_FLOOR = 0.2
DENSE_SHARE = 0.6
MAX_EMBEDDED_SENTENCES = 24
CONTEXT_SHARE = 0.75
_WORDS = re.compile(r"\w+")


def not_in_vault(lang: str | None) -> str:
    """The honest "the vault doesn't say" answer in the question's language."""
    return NOT_IN_VAULT_DE if lang == "de" else NOT_IN_VAULT


_QUOTE = re.compile(r"(?m)^[ \t]*>[ \t]?")
_CALLOUT_TITLE = re.compile(r"(?m)^[ \t]*\[!\w+\][+-]?[^\n]*(?:\n|$)")
_HEADING_LINE = re.compile(r"(?m)^[ \t]*#{1,6}[ \t][^\n]*(?:\n|$)")
# Hidden in the rendered note (citation markers, review schedules): never quoted. Removed before
# sentences are split, whose trimming of trailing "->" would otherwise leave "<!--cv:cite id=…".
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)


def prose_of(text: str) -> str:
    """Passage text without comments, quote markers, callout titles and heading lines (they are not sentences)."""
    text = _HTML_COMMENT.sub("", text)
    text = _QUOTE.sub("", text)
    text = _CALLOUT_TITLE.sub("\n", text)
    return _HEADING_LINE.sub("\n", text)


def split_sentences(text: str) -> list[str]:
    pieces = (piece.strip(" \t\n-*+>|") for piece in _SENTENCE_END.split(text))
    return [" ".join(piece.split()) for piece in pieces if len(piece.split()) >= 4]


def _readable(sentence: str) -> str:
    sentence = _ALIASES.sub("", sentence.strip())
    sentence = _CALLOUT.sub("", sentence)
    sentence = _WIKILINK.sub(lambda m: (m.group(2) or m.group(1) or "").strip(), sentence)
    sentence = _HEADING_MARK.sub("", sentence)
    sentence = _LIST_MARK.sub("", sentence)
    sentence = _BLOCK_ID.sub("", sentence)
    sentence = _MARKUP.sub("", sentence)
    sentence = sentence.replace("[", "(").replace("]", ")")  # never a fake citation or link
    return " ".join(sentence.split())


@dataclass(slots=True)
class Pick:
    label: str
    sentence: str
    score: float
    position: int
    order: int
    share: float = 0.0  # of the question's key concepts, by weight


def choose_sentences(items: Sequence[Evidence], terms: Sequence[str], weights: dict[str, float],
                     analyzer: Any, max_sentences: int = 4, question_vector: Any = None,
                     embedder: Any = None, question: str = "") -> list[Pick]:
    """The sentences of ``items`` that answer the question, in evidence order (empty: nothing relevant)."""
    weight = {t: max(weights.get(t, 1.0), 0.05) for t in terms}
    total = sum(weight.values())
    if not total:
        return []
    asked = _WORDS.findall(question.casefold())
    candidates: list[Pick] = []
    contexts = [sum(weight[t] for t in weight if t in item.terms) / total for item in items]
    best_context = max(contexts, default=0.0)
    for position, item in enumerate(items):
        # A sentence counts for itself and, less, for the passage around it (its note and section);
        # passages that cover much less of the question than the best one are not quoted at all.
        context = contexts[position]
        if context < best_context * CONTEXT_SHARE:
            continue
        for order, raw in enumerate(split_sentences(prose_of(item.text))):
            sentence = _readable(raw)
            if len(sentence) < 12 or sentence.endswith("?") or _quotes(sentence, asked):
                continue
            present = text_terms(analyzer, sentence, item.lang) & weight.keys()
            share = sum(weight[t] for t in present) / total
            if share < MIN_SENTENCE_SHARE:
                continue
            candidates.append(Pick(item.label, sentence, 0.7 * share + 0.3 * context, position, order, share))
    if not candidates:
        return []
    best_share = max(pick.share for pick in candidates)
    candidates = [pick for pick in candidates if pick.share >= best_share * RELATIVE_SHARE]
    if embedder is not None and question_vector is not None:
        candidates = _by_meaning(candidates, question_vector, embedder)
        if not candidates:
            return []
    best = max(pick.score for pick in candidates)
    candidates.sort(key=lambda p: (-p.score, p.position, p.order))
    # The lead note: the passage that covers the question best (the earlier, better-ranked one on a tie).
    lead = items[max(range(len(items)), key=lambda i: (contexts[i], -i))].path
    chosen: list[Pick] = []
    seen: list[set[str]] = []
    for pick in candidates:
        if pick.score < best * SCORE_SHARE:
            break
        if items[pick.position].path != lead and pick.share < best_share * OTHER_NOTE_SHARE:
            continue  # another note must earn its place: it is where weak, off-topic sentences come from
        words = set(pick.sentence.casefold().split())
        if any(len(words & other) / max(len(words | other), 1) > 0.7 for other in seen):
            continue
        seen.append(words)
        chosen.append(pick)
        if len(chosen) >= max_sentences:
            break
    chosen.sort(key=lambda p: (p.position, p.order))
    return chosen


def _quotes(sentence: str, asked: list[str]) -> bool:
    """Whether ``sentence`` contains the question word for word (an example of asking it, not an answer)."""
    if len(asked) < 3:
        return False
    said = _WORDS.findall(sentence.casefold())
    return any(said[i:i + len(asked)] == asked for i in range(len(said) - len(asked) + 1))


def _by_meaning(candidates: list[Pick], question_vector: Any, embedder: Any) -> list[Pick]:
    """The best candidates re-ranked by meaning; those far from the question's meaning are dropped."""
    candidates = sorted(candidates, key=lambda p: -p.score)[:MAX_EMBEDDED_SENTENCES]  # embedding is not free
    try:
        vectors = embedder.embed_documents([pick.sentence for pick in candidates])
        similarity = [max(0.0, float(vector @ question_vector)) for vector in vectors]
    except Exception:  # noqa: BLE001 - meaning is a bonus; terms alone still answer
        return candidates
    floor = max(DENSE_FLOOR, max(similarity) * DENSE_SHARE)
    kept = []
    for pick, close in zip(candidates, similarity, strict=True):
        if close >= floor:
            pick.score = 0.6 * pick.score + 0.4 * close
            kept.append(pick)
    return kept


def compose(picks: Sequence[Pick]) -> str:
    """The answer text: each chosen sentence followed by its label."""
    parts = []
    for pick in picks:
        sentence = pick.sentence.rstrip()
        if sentence and sentence[-1] not in ".!?:":
            sentence += "."
        parts.append(f"{sentence} [{pick.label}]")
    return " ".join(parts)


# -- the simple, synchronous API (kept for callers outside the streaming pipeline) ----------------


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
    confidence: str = "low"

    def to_dict(self) -> dict[str, object]:
        return {"question": self.question, "text": self.text, "answered": self.answered,
                "confidence": self.confidence, "cited": self.cited,
                "citations": [c.to_dict() for c in self.citations]}


def answer_extractively(engine: Any, question: str, k: int = 5, max_sentences: int = 4,
                        scope: Any = None) -> ExtractiveAnswer:
    """A complete extractive answer in one call (blocking; the streaming pipeline is ``stream_answer``)."""
    from cognivault.answer.confidence import assess
    from cognivault.answer.evidence import analyzer_of
    from cognivault.answer.retrieval import build_pack

    pack, lang = build_pack(engine, question, question, scope=scope, max_items=k)
    confidence = assess(pack)
    citations = [Citation(i.label, i.chunk_id, i.path, i.heading_path, i.line_start, i.line_end, i.locator,
                          i.snippet, i.score) for i in pack.items]
    picks = choose_sentences(pack.items, pack.question_terms, pack.term_weights, analyzer_of(engine),
                             max_sentences, pack.question_vector, engine.embedder,
                             question) if confidence.supported else []
    if not picks:
        return ExtractiveAnswer(question, not_in_vault(lang), citations, [], False, confidence.label)
    cited = list(dict.fromkeys(pick.label for pick in picks))
    return ExtractiveAnswer(question, compose(picks), citations, cited, True, confidence.label)
