"""Answers to a question asking when a term applies quote the condition, not mentions of the term (issue 25).

"When is a lens called fast?", "Ab wann gilt ein Volk als stark?": the term is read out of the question (after
"called", "considered", "count … as", "spricht man von", "gilt … als"), and the line naming it with a condition (a
condition word, a comparison sign, a bounded number, or a number under the term as its label) leads; the note's
other lines on the term (what a fast lens is good for) are no answer to when it is called so.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from cognivault.answer.conditions import asked_condition, states_condition
from cognivault.answer.evidence import FALLBACK_ANALYZER
from cognivault.answer.extractive import answer_extractively
from cognivault.engine import Engine


@pytest.mark.parametrize(("question", "term"), [
    ("When is demand called elastic?", "elastic"),
    ("When can a food be called high in fibre?", "high in fibre"),
    ("When does an image count as overexposed?", "overexposed"),
    ("When is a volcano considered active?", "active"),
    ("Ab wann gilt ein Vulkan als aktiv?", "aktiv"),
    ("Wann spricht man von einem Supervulkan?", "Supervulkan"),
    ("Ab welcher Windstärke spricht man von Sturm?", "Sturm"),
    ("When was the Dom of Speyer built?", ""),
    ("What is a fast lens called?", ""),
    ("Wann liegt ein Diphthong vor?", ""),
])
def test_the_term_asked_about_is_read_out_of_the_question(question: str, term: str) -> None:
    assert asked_condition(question) == term


@pytest.mark.parametrize(("text", "term", "lang", "states"), [
    ("- fast: maximum aperture of f/2.8 or wider", "fast", "en", True),
    ("- high in fibre: at least 6 g fibre per 100 g", "high in fibre", "en", True),
    ("A wind is called a gale from force 8 upwards.", "gale", "en", True),
    ("- elastic: |e| > 1", "elastic", "en", True),
    ("Von Osteoporose spricht man, wenn der T-Wert bei −2,5 oder darunter liegt.", "Osteoporose", "de", True),
    ("- fast lenses let in more light → faster shutter speeds", "fast", "en", False),
    ("Foods high in fibre keep you full. Adults should eat about 30 g fibre per day.", "high in fibre", "en", False),
    ("Starke Völker überwintern besser.", "stark", "de", False),
])
def test_a_condition_is_a_line_naming_the_term_with_a_bound_or_an_if(text: str, term: str, lang: str,
                                                                    states: bool) -> None:
    assert states_condition(text, term, FALLBACK_ANALYZER, lang) is states


LENSES = {
    "Photo/Lenses.md": "---\nlang: en\n---\n# Lenses\n\n## Lens speed\n"
                       "- fast lenses let in more light → faster shutter speeds in low light\n"
                       "- a fast lens is heavier and more expensive than a slow lens\n"
                       "- fast lenses give a shallower depth of field, nice for portraits\n\n"
                       "## Glossary\n- focal length: distance from lens to sensor, in mm\n"
                       "- fast: maximum aperture of f/2.8 or wider\n- prime: fixed focal length\n",
}

FIBRE = {
    "Nutrition/Fibre.md": "---\nlang: en\n---\n# Dietary fibre\n\n## Why fibre matters\n"
                          "Foods high in fibre keep you full for longer. High-fibre foods lower LDL cholesterol. A "
                          "diet high in fibre lowers the risk of colon cancer. Adults should eat about 30 g fibre "
                          "per day.\n\n"
                          "## Label claims\n- source of fibre: at least 3 g fibre per 100 g\n"
                          "- high in fibre: at least 6 g fibre per 100 g\n- low fat: no more than 3 g fat per 100 g\n",
    "Nutrition/Protein.md": "---\nlang: en\n---\n# Protein\n\nProtein is built from amino acids. Nine of them are "
                            "essential and must come from food. Adults need about 0.8 g protein per kg body weight.\n",
    "Baking/Bread.md": "---\nlang: en\n---\n# Bread\n\nFlour, water, salt and yeast. The dough rises during bulk "
                       "fermentation and is baked at 230 °C.\n",
}

BEES = {
    "Imkern/Volk.md": "---\nlang: de\n---\n# Bienenvolk\n\n## Volksstärke\n"
                      "Starke Völker überwintern besser. Ein starkes Volk bringt mehr Honig, und starke Völker "
                      "schwärmen eher. Schwache Völker werden im Herbst vereinigt.\n\n"
                      "## Begriffe\n- Ableger: kleines Volk, aus einem Wirtschaftsvolk gebildet\n"
                      "- stark: ein Volk mit mindestens 10 besetzten Wabengassen im Frühjahr\n"
                      "- weiselrichtig: das Volk hat eine legende Königin\n",
}


def test_the_line_saying_when_a_lens_is_fast_answers_alone(indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    answer = answer_extractively(indexed_notes(LENSES), "When is a lens called fast?")
    assert answer.answered
    assert answer.text.index("f/2.8 or wider") < answer.text.index("[S")
    assert "heavier" not in answer.text  # what else the note says of fast lenses
    assert "prime" not in answer.text  # the glossary's next entry


def test_the_label_claim_answers_not_the_paragraph_on_high_fibre_foods(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    answer = answer_extractively(indexed_notes(FIBRE), "When can a food be called high in fibre?")
    assert answer.answered
    assert "at least 6 g fibre per 100 g" in answer.text
    assert "colon cancer" not in answer.text


def test_a_german_glossary_line_with_its_threshold_answers(indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    answer = answer_extractively(indexed_notes(BEES), "Wann gilt ein Bienenvolk als stark?")
    assert answer.answered
    assert "mindestens 10 besetzten Wabengassen" in answer.text
    assert "überwintern" not in answer.text
