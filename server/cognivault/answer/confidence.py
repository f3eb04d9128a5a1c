"""How sure an answer may sound, decided by a rule before the model writes a word.

The question's key concepts are its stemmed key terms, each weighted by how
rare it is in the vault (IDF). ``coverage`` is the weighted share of them
found anywhere in the evidence pack, ``best`` the share found in its single
best passage (concepts that appear together matter more than scattered
words). Words that stand side by side in the question also count as one
concept of their own ("Apple Watch"), found only where a passage has them side
by side too.

When the engine has an embedding model that knows the question's language,
meaning counts too: a passage whose cosine to the question is ``c`` has the
semantic coverage ``s = (c - SEMANTIC_FLOOR) / (SEMANTIC_FULL - SEMANTIC_FLOOR)``
(clipped to 0..1), and a share covers ``max(words, (1 - SEMANTIC_WEIGHT) *
words + SEMANTIC_WEIGHT * s)``: a paraphrase ("keep my notes the same on my
phone" for a passage on syncing devices) is not judged by its words alone,
while meaning alone, which is close for any question on the vault's topic,
cannot carry a pack: without words it reaches 0.25 at most, and ``high``
still needs about three quarters of the key terms found as words. Still a rule on
fixed numbers, never the model's opinion. The label:

- ``high``: coverage >= 0.8 and best >= 0.6 (the pack plainly covers the question);
- ``medium``: coverage >= 0.5 and best >= 0.35;
- ``low``: anything less, an empty pack, a question with no key terms, or a question about
  something the vault never mentions: at least ``OFF_TOPIC_SHARE`` of its weight is in words no
  note uses in any form (``EvidencePack.unknown_share``), unless passages in another language mean what it asks
  (``answer.across``: then it is answered, ``medium`` at most, by meaning alone).

An empty or weak pack is therefore never ``high``, whatever its meaning.
``supported`` (not off-topic, and at least ``SUPPORT_FLOOR`` of the question
found as words: meaning alone never is, but for a question asked across languages) is what the
extractive answerer needs to answer at all: it refuses only what the vault
does not cover, while the label says how sure the answer may sound. ``covered``, ``missing`` and the reason name the
question's concepts by the user's own words (``EvidencePack.word_of``), not
by index stems.

Once the answer is written, :func:`cap_by_citations` judges it by what it
actually cites: the same rule over the cited passages only (an answer that
cites nothing is ``low``), each read under its note's title, aliases and headings (the note also called
"Newtonsche Gesetze" names the subject of its passage on the 3rd law); a subset of the pack never covers more, so
this never raises the label. A passage answer also knows what its quotes state
(``QuoteMeasures``): ``answer_share``, the question's weight found in the quoted
blocks and their headings; ``lead_share``, in the lead quote alone;
``kind_stated``, whether the kind of answer the question asks for ("how many":
a number) is quoted next to what it asks about (``answer_kind``). An answer is
``high`` only where ``HIGH_RULE`` holds: the quotes state most of the question
and the first quote half of it, and one quoted block (by its own text, ``block_share``) three quarters of
what it asks (an answer pieced together from blocks that each state a little is less often complete; thresholds
chosen on the tune halves of both dev vaults, help docs and student notes: ``bench/bench_answer_quality.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from cognivault.answer.evidence import FALLBACK_ANALYZER, Evidence, EvidencePack, text_terms
from cognivault.index.analysis import words

HIGH_COVERAGE, HIGH_BEST = 0.8, 0.6
MEDIUM_COVERAGE, MEDIUM_BEST = 0.5, 0.35
SUPPORT_FLOOR = 0.2
OFF_TOPIC_SHARE = 0.45
PHRASE_FACTOR = 1.0
SEMANTIC_FLOOR, SEMANTIC_FULL = 0.3, 0.8
SEMANTIC_WEIGHT = 0.25


@dataclass(slots=True)
class Confidence:
    label: str  # high | medium | low
    reason: str
    coverage: float = 0.0
    best: float = 0.0
    covered: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    keyword_coverage: float = 0.0
    similarity: float | None = None  # the best passage's cosine to the question (None: not measured)
    unknown_share: float = 0.0  # of the question's weight, in words the vault never uses
    answer_share: float | None = None  # of the question's weight, stated by a passage answer's quotes
    lead_share: float | None = None  # of the question's weight, stated by its lead quote alone
    kind_stated: bool | None = None  # the kind of answer asked for ("how many": a number) is quoted
    block_share: float | None = None  # of the question's weight, stated together by its best quoted block alone
    kind_refused: bool = False  # refused because no passage gives that kind of answer (whatever the thresholds)
    across: float | None = None  # asked across languages: the meant passages' best cosine (``answer.across``)

    @property
    def off_topic(self) -> bool:
        return self.unknown_share >= OFF_TOPIC_SHARE and self.across is None

    @property
    def supported(self) -> bool:
        return (self.keyword_coverage >= SUPPORT_FLOOR or self.across is not None) and not self.off_topic

    def to_dict(self) -> dict[str, Any]:
        return {"label": self.label, "reason": self.reason, "coverage": round(self.coverage, 3),
                "best": round(self.best, 3), "keyword_coverage": round(self.keyword_coverage, 3),
                "similarity": None if self.similarity is None else round(self.similarity, 3),
                "unknown_share": round(self.unknown_share, 3),
                "answer_share": None if self.answer_share is None else round(self.answer_share, 3),
                "lead_share": None if self.lead_share is None else round(self.lead_share, 3),
                "block_share": None if self.block_share is None else round(self.block_share, 3),
                "kind_stated": self.kind_stated, "kind_refused": self.kind_refused,
                "covered": self.covered, "missing": self.missing}


@dataclass(frozen=True, slots=True)
class QuoteMeasures:
    """What a passage answer's quotes state of the question (``extractive.passage_answer``)."""

    share: float = 0.0  # of the question's weight, in the quoted blocks and their headings
    lead_share: float = 0.0  # in the lead quote alone
    kind_stated: bool | None = None  # the kind of answer asked for, given near its focus (None: no kind asked)
    refusal: str = ""  # why nothing is quoted, in the user's words ("" when quoted, or for the usual reason)
    doubt: str = ""  # what the quotes lack though they answer ("the passages give no number for control"): low
    # in the one quoted block stating most of it, by its own text and section headings (not its note's title, unless
    # the question names its section: its headings, title and aliases included, name all it asks about)
    block_share: float = 0.0


@dataclass(frozen=True, slots=True)
class HighRule:
    """When an answer that cites passages covering the question may sound sure: thresholds on its measures."""

    answer: float = 0.0  # the least ``answer_share``
    lead: float = 0.0  # the least ``lead_share``
    block: float = 0.0  # the least ``block_share``

    def holds(self, measures: Mapping[str, Any]) -> bool:
        """Whether ``measures`` (``Confidence.to_dict`` of the cited passages) earn ``high``."""
        return (measures.get("coverage", 0.0) >= HIGH_COVERAGE and measures.get("best", 0.0) >= HIGH_BEST
                and (measures.get("answer_share") or 0.0) >= self.answer
                and (measures.get("lead_share") or 0.0) >= self.lead
                and (measures.get("block_share") or 0.0) >= self.block)


# bench/bench_answer_quality.py: chosen on both vaults' tune halves; ``block``: a quarter of what is asked may be
# missing from the block stating most of it ("E[X] = np" of a binomial distribution asked for its variance is not)
HIGH_RULE = HighRule(answer=0.775, lead=0.5, block=0.75)


def semantic_share(similarity: float | None) -> float:
    """How much of the question a passage covers by meaning (0 without a measured similarity)."""
    if similarity is None:
        return 0.0
    return min(1.0, max(0.0, (similarity - SEMANTIC_FLOOR) / (SEMANTIC_FULL - SEMANTIC_FLOOR)))


def _with_meaning(words: float, meaning: float) -> float:
    return max(words, (1.0 - SEMANTIC_WEIGHT) * words + SEMANTIC_WEIGHT * meaning)


def assess(pack: EvidencePack, terms: list[str] | None = None, weights: dict[str, float] | None = None
           ) -> Confidence:
    """The confidence label for ``pack`` against the question's key ``terms`` (default: the pack's own)."""
    terms = list(pack.question_terms if terms is None else terms)
    weights = dict(pack.term_weights if weights is None else weights)
    if not pack.items:
        reason = "no passage in the vault (or in this scope) matches the question"
        if pack.unknown:
            reason += "; the vault never mentions: " + ", ".join(pack.unknown[:5])
        return Confidence("low", reason, missing=[pack.word_of(t) for t in terms], unknown_share=pack.unknown_share)
    if not terms:
        return Confidence("low", "the question has no key words to check the passages against")
    weight = {t: max(weights.get(t, 1.0), 0.05) for t in terms}
    # Words side by side in the question are a concept of their own ("Apple Watch" is not "Apple" + "watch").
    # Only a phrase that no passage has side by side counts (as a missing concept): finding it adds nothing.
    phrases = [p for p in pack.question_phrases if p[0] in weight and p[1] in weight]
    absent = [p for p in phrases if not any(pack.side_by_side(p, item.pairs) for item in pack.items)]
    total = sum(weight.values()) + sum(min(weight[a], weight[b]) * PHRASE_FACTOR for a, b in absent)
    union: set[str] = set()
    best = 0.0
    meaning = 0.0
    for item in pack.items:
        present = {t for t in terms if t in item.terms}
        union |= present
        share = sum(weight[t] for t in present) / total
        by_meaning = semantic_share(item.similarity)
        meaning = max(meaning, by_meaning)
        best = max(best, _with_meaning(share, by_meaning))
    keyword_coverage = sum(weight[t] for t in union) / total
    coverage = _with_meaning(keyword_coverage, meaning)
    similarities = [item.similarity for item in pack.items if item.similarity is not None]
    similarity = max(similarities) if similarities else None
    covered = [pack.word_of(t) for t in terms if t in union]
    missing = [pack.word_of(t) for t in sorted((t for t in terms if t not in union), key=lambda t: -weight[t])]
    missing += [" ".join(pack.word_of(t) for t in p) for p in absent]
    what = "key terms" if coverage == keyword_coverage else "key terms and meaning"
    if pack.unknown_share >= OFF_TOPIC_SHARE and pack.across is None:
        never = ("the vault never mentions: " + ", ".join(pack.unknown[:5])) if pack.unknown \
            else "the vault uses none of the question's words"
        return Confidence("low", never, coverage, best, covered, missing, keyword_coverage, similarity,
                          pack.unknown_share)
    bridged = [concept for concept in pack.concepts.values() if concept.bridged]
    if pack.across is not None:  # its words are not the vault's: passages of another language mean it
        reason = f"a passage in another language means what the question asks ({pack.across.best:.2f} similar)"
        label = "medium" if coverage >= MEDIUM_COVERAGE and best >= MEDIUM_BEST else "low"
    elif bridged:  # its words are read as the vault's of another language: as sure as a translation, no more
        reason = "the question's words read as the vault's in another language: " + \
            ", ".join(f"{concept.word} as {concept.bridged}" for concept in bridged[:5])
        label = "medium" if coverage >= MEDIUM_COVERAGE and best >= MEDIUM_BEST else "low"
    elif coverage >= HIGH_COVERAGE and best >= HIGH_BEST:
        label = "high"
        reason = f"the passages cover the question's {what} ({coverage:.0%}), mostly in one place"
    elif coverage >= MEDIUM_COVERAGE and best >= MEDIUM_BEST:
        label = "medium"
        reason = f"the passages cover part of the question ({coverage:.0%} of its {what})"
    else:
        label = "low"
        reason = f"the passages barely match the question ({coverage:.0%} of its {what})"
    if missing:
        reason += "; not found: " + ", ".join(missing[:5])
    return Confidence(label, reason, coverage, best, covered, missing, keyword_coverage, similarity,
                      pack.unknown_share, across=pack.across.best if pack.across is not None else None)


_RANK = {"low": 0, "medium": 1, "high": 2}


def cap_by_citations(confidence: Confidence, pack: EvidencePack, cited: list[str],
                     quoted: QuoteMeasures | None = None) -> Confidence:
    """``confidence`` lowered to what the cited passages alone support (``low`` when nothing is cited).

    ``quoted``: what a passage answer's quotes state; it is ``high`` only where ``HIGH_RULE`` holds for them.
    """
    if not cited:
        reason = "the answer cites none of the passages" if quoted is None else \
            quoted.refusal or f"the best passages state only {quoted.share:.0%} of the question"
        return _stating(replace(confidence, label="low", reason=reason, covered=[]), quoted)
    labels = set(cited)
    narrowed = EvidencePack(items=[_under_its_names(item, pack) for item in pack.items if item.label in labels],
                            question_terms=pack.question_terms, term_weights=pack.term_weights,
                            question_phrases=pack.question_phrases, concepts=pack.concepts,
                            unknown_share=pack.unknown_share, unknown=pack.unknown, across=pack.across)
    by_citations = _stating(assess(narrowed), quoted)
    if _RANK[by_citations.label] > _RANK[confidence.label]:  # a subset never covers more; kept for safety
        by_citations.label = confidence.label
    if len(labels) < len(pack.items):
        by_citations.reason = "by what the answer cites: " + by_citations.reason
    if quoted is not None and quoted.doubt:
        by_citations.label = "low"
        by_citations.reason += f"; {quoted.doubt}"
    if quoted is not None and by_citations.label == "high" and not HIGH_RULE.holds(by_citations.to_dict()):
        by_citations.label = "medium"
        if quoted.share < HIGH_RULE.answer:
            by_citations.reason += f"; the quoted passages state {quoted.share:.0%} of the question"
        elif quoted.lead_share < HIGH_RULE.lead:
            by_citations.reason += f"; its first quote states {quoted.lead_share:.0%} of the question"
        else:
            by_citations.reason += f"; no quoted block states more than {quoted.block_share:.0%} of what it asks"
    return by_citations


def _under_its_names(item: Evidence, pack: EvidencePack) -> Evidence:
    """``item`` with the question's concepts its note's aliases name: a passage is read under its note's names, as
    under its title and headings ("equal areas in equal times" of the note also called "Kepler's laws" answers what
    Kepler's second law says, though its own text never names Kepler)."""
    if not item.aliases:
        return item
    said = "\n".join(item.aliases)
    named = pack.concepts_in(text_terms(FALLBACK_ANALYZER, said, item.lang), frozenset(words(said)))
    return replace(item, terms=item.terms | named) if named - item.terms else item


def _stating(confidence: Confidence, quoted: QuoteMeasures | None) -> Confidence:
    """``confidence`` with what a passage answer's quotes state."""
    if quoted is not None:
        confidence.answer_share, confidence.lead_share = quoted.share, quoted.lead_share
        confidence.block_share = quoted.block_share
        confidence.kind_stated, confidence.kind_refused = quoted.kind_stated, bool(quoted.refusal)
    return confidence
