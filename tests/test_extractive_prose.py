"""Extractive answers quote what a note shows: hidden comments (citation markers, review schedules)
never reach a quoted unit, while a code block that shows a comment is quoted as written."""

from __future__ import annotations

from cognivault.answer.evidence import Evidence, tidy_spaces
from cognivault.answer.extractive import Quote, units_of

CITING = ("Chlorophyll in the thylakoid membranes absorbs red and blue light and reflects green light. "
          "[[Photosynthesis#Light reactions|Photosynthesis › Light reactions]]<!--cv:cite id=0123456789abcdef "
          "h=89abcdef-->\n\n- What holds the pigment?::The thylakoid membrane <!--SR:!2026-01-01,3,250-->\n\n"
          "```html\n<!-- a comment the note shows as code -->\n```\n")


def _passage(text: str) -> Evidence:
    return Evidence(label="S1", chunk_id="0123456789abcdef", path="Photosynthesis.md", title="Photosynthesis",
                    heading_path=["Light reactions"], line_start=1, line_end=8, locator="Photosynthesis.md#L1",
                    text=text, snippet=text[:80], score=1.0)


def test_comments_are_not_quoted_outside_code() -> None:
    units = units_of(_passage(CITING), 0)
    prose = [unit.text for unit in units if unit.kind != "code"]
    assert any(text.startswith("Chlorophyll in the thylakoid") for text in prose)
    assert any(text == "- What holds the pigment?::The thylakoid membrane" for text in prose)
    assert not any("<!--" in text or "cv:cite" in text or "SR:" in text for text in prose)
    code = [unit.text for unit in units if unit.kind == "code"]
    assert code == ["```html\n<!-- a comment the note shows as code -->\n```"]


def test_a_quoted_code_block_keeps_its_blanks_and_its_label_on_a_line_after_the_fence() -> None:
    code = "```python\ndef f(x):\n    return  x  # two blanks kept\n```"
    assert tidy_spaces(f"Some  prose.\n\n{code}\n~~~\n  a   b\n~~~") == f"Some prose.\n\n{code}\n~~~\n  a   b\n~~~"
    assert tidy_spaces("````\n```\nin  code\n````\nout  side") == "````\n```\nin  code\n````\nout side"
    assert Quote("S1", code).cited() == f"{code}\n[S1]"
    assert Quote("S2", "~~~\nx\n~~~").cited() == "~~~\nx\n~~~\n[S2]"
    assert Quote("S3", "Some prose.").cited() == "Some prose. [S3]"
