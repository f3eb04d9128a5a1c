"""A passage that took in small sections is cited at the heading its quoted text stands under (issue 17).

The chunker folds a section under 100 characters into the next one (``vault.chunking``): the passage keeps the
heading path of the section that owns it. The small section's text is read under its own heading (not under the
owner's, whose words it would seem to state), and quoting it, the answer's source names that section, as a card of
the study side does (``study.extract.cited_under``); a line of bold text is a lead the quote shows, not a heading
a link could open, and text before any heading is the note's opening.
"""

from __future__ import annotations

from typing import Any

import pytest

from answer_support import collect, final, make_vault
from cognivault.answer.extractive import answer_extractively
from cognivault.answer.pipeline import stream_answer
from cognivault.answer.request import AskRequest
from cognivault.answer.sessions import SessionStore
from cognivault.engine import Engine
from cognivault.models.extractive_chat import ExtractiveChat

NOTES = {
    "CS/Python lists.md": """# Python lists

## Slicing

`xs[1:3]` returns the items at index 1 and 2 of a list.

## Complexity

Appending to a list takes constant time on average, while inserting at the front moves every item and takes
linear time. Looking up an item by its index takes constant time.

**Memory use**

A list stores references to its items, never the items themselves, and keeps spare room to grow into.
""",
    "Bio/Photosynthesis.md": """# Photosynthesis

## Equation

6 CO2 + 6 H2O → C6H12O6 + 6 O2

## Limiting factors

Light, temperature and the CO2 concentration limit the rate of photosynthesis. Above about 40 °C the rate
falls again as enzymes denature.
""",
    "Econ/Opportunity cost.md": """Opportunity cost is the value of the best alternative given up.

## Worked example

If you spend an evening studying instead of working a paid shift, the wage you would have earned that evening
is the opportunity cost of studying, whatever else the evening might have held.
""",
}


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Any:
    vault, settings = make_vault(tmp_path_factory.mktemp("folded"), NOTES)
    with Engine(vault, settings, embedder=None, writable=False) as opened:
        yield opened


async def sources(engine: Any, question: str) -> tuple[str, list[list[str]]]:
    envelopes = await collect(stream_answer(engine, AskRequest(question, use_cache=False), ExtractiveChat(None),
                                            SessionStore(None), cache=None))
    data = final(envelopes)["data"]
    metadata = [e["data"]["heading_path"] for e in envelopes if e["type"] == "metadata"]
    assert metadata == [s["heading_path"] for s in data["sources"]]  # the stream and the result agree
    return data["answer"], metadata


async def test_the_text_of_a_folded_small_section_is_cited_at_its_own_heading(engine: Any) -> None:
    answer, cited = await sources(engine, "What does xs[1:3] return?")
    assert "`xs[1:3]` returns the items" in answer and "Appending" not in answer, answer
    assert cited == [["Python lists", "Slicing"]]


async def test_the_owning_sections_text_keeps_its_heading_and_a_bold_line_is_no_heading(engine: Any) -> None:
    answer, cited = await sources(engine, "Does a list store references to its items?")
    assert "**Memory use**" in answer and "references to its items" in answer, answer
    assert cited == [["Python lists", "Complexity"]]


async def test_a_folded_opening_is_cited_as_the_note_not_as_the_section_after_it(engine: Any) -> None:
    answer, cited = await sources(engine, "What is opportunity cost?")
    assert answer.startswith("Opportunity cost is the value of the best alternative given up."), answer
    assert cited == [[]]


async def test_a_folded_small_section_is_not_read_under_the_heading_of_the_section_after_it(engine: Any) -> None:
    # Read under "Limiting factors", the equation would state the question's every word.
    answer, cited = await sources(engine, "Which factors limit photosynthesis?")
    assert "Light, temperature and the CO2 concentration" in answer and "C6H12O6" not in answer, answer
    assert cited == [["Photosynthesis", "Limiting factors"]]


def test_the_one_call_answer_cites_the_same_heading(engine: Any) -> None:
    answer = answer_extractively(engine, "What does xs[1:3] return?")
    cited = {citation.label: citation.heading_path for citation in answer.citations}
    assert answer.answered and [cited[label] for label in answer.cited] == [["Python lists", "Slicing"]]
