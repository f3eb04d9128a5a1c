"""A passage answer says what is asked and no more: no padding once it states the question, nothing twice, and its
sources numbered in the order it cites them (issue 25: a reviewer's classes of long or confusing answers)."""

from __future__ import annotations

from pathlib import Path

from cognivault.answer.evidence import FALLBACK_ANALYZER, Evidence, EvidencePack, text_terms
from cognivault.answer.extractive import PassageAnswer, Quote, compose, renumbered


def passage(label: str, path: str, text: str, heading: str = "") -> Evidence:
    return Evidence(label, label, path, Path(path).stem, [heading] if heading else [], 1, 3, "", text, "", 0.0,
                    lang="en", terms=text_terms(FALLBACK_ANALYZER, f"{heading}\n{text}", "en"))


def test_sources_are_numbered_in_the_order_the_answer_cites_them() -> None:
    pack = EvidencePack(items=[passage(f"S{n}", f"Note {n}.md", f"Text {n}.") for n in (1, 2, 3, 4)])
    chunks = {item.label: item.chunk_id for item in pack.items}
    answer = renumbered(pack, PassageAnswer([Quote("S3", "Text 3."), Quote("S4", "Text 4."), Quote("S3", "More.")]))
    assert [quote.label for quote in answer.quotes] == ["S1", "S2", "S1"]
    assert [item.label for item in pack.items] == ["S1", "S2", "S3", "S4"]
    # each label still names its passage: the cited ones first, the others after them in their order
    assert [pack.get(label).chunk_id for label in ("S1", "S2", "S3", "S4")] == \
        [chunks["S3"], chunks["S4"], chunks["S1"], chunks["S2"]]
    assert compose(answer.quotes).startswith("Text 3. [S1]")
