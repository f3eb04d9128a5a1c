"""Extractive answers quote what a note shows: hidden comments (citation markers, review schedules)
never reach a quoted sentence, not even a comment cut in half by the sentence trimming."""

from __future__ import annotations

from cognivault.answer.extractive import prose_of, split_sentences

CITING = ("Chlorophyll in the thylakoid membranes absorbs red and blue light and reflects green light. "
          "[[Photosynthesis#Light reactions|Photosynthesis › Light reactions]]<!--cv:cite id=0123456789abcdef "
          "h=89abcdef-->\nWhat holds the pigment?::The thylakoid membrane <!--SR:!2026-01-01,3,250-->\n")


def test_comments_are_not_prose() -> None:
    sentences = split_sentences(prose_of(CITING))
    assert " ".join(sentences) == (
        "Chlorophyll in the thylakoid membranes absorbs red and blue light and reflects green light. "
        "[[Photosynthesis#Light reactions|Photosynthesis › Light reactions]] What holds the pigment?::The "
        "thylakoid membrane")
    assert not any("<!--" in s or "cv:cite" in s or "SR:" in s for s in sentences)
