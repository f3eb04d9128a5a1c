"""Which of a question's words decide that the vault does not answer it (issue 25: answerable questions refused
on unseen vaults, while unanswerable ones stay refused).

- a span of time a note writes with its unit's symbol ("100 ns", "5 ms") or on the line under what it is of
  ("… beträgt meist\\nsieben Tage") answers "how long";
- a name or substance the vault has in no form that is part of what a number is asked of ("… nach
  *Nowgorod*?", "… of *lysozyme*"), not a kind of thing after an article ("eine *Reise*": the note says "Fahrt")
  nor the verb it asks with ("How long does X *require* …?"), keeps a passage giving the number of something
  else from answering;
- a word the vault may say only in its other language ("calculator" of a note writing "Rechner") does not make
  a name the answer states ("von Neumann") a mention in passing.
"""

from __future__ import annotations

from typing import Any

import pytest

from answer_support import ask_offline as ask
from answer_support import make_vault
from cognivault.answer.answer_kind import expected_answer, gives_answer
from cognivault.answer.evidence import FALLBACK_ANALYZER, Concept
from cognivault.engine import Engine

NOTES = {
    "Tech/Rechnerarchitektur.md": """---
lang: de
---
# Rechnerarchitektur

Ein Rechner nach von Neumann hat Steuerwerk, Rechenwerk, Speicher und Ein-/Ausgabe. Programme und Daten liegen
im selben Speicher.

## Cache

Der Cache ist ein kleiner, schneller Zwischenspeicher zwischen Prozessor und Arbeitsspeicher. Ein Treffer dauert
etwa 1 ns, ein Zugriff auf den Arbeitsspeicher rund 100 ns.

## Festplatte

Eine Festplatte braucht für einen Zugriff rund 5 ms, eine SSD etwa 0,1 ms.
""",
    "Hist/Hanse.md": """---
lang: de
---
# Die Hanse

Die Hanse war ein Bund norddeutscher Kaufleute und Städte vom 12. bis zum 17. Jahrhundert. Ihr Zentrum war Lübeck.

## Fahrten

Eine Fahrt mit der Kogge von Lübeck nach Bergen dauerte
etwa drei Wochen.
""",
    "Chem/Enzyme Kinetics.md": """# Enzyme Kinetics

The turnover number says how many substrate molecules one enzyme converts per second.

## Speed

A single catalytic cycle of carbonic anhydrase takes about 1 µs; a typical
enzyme reaction finishes within 10 ms.
""",
    "Tech/Typography.md": """# Typography

A serif is the small stroke at the end of a letter's main stroke. Serif faces are easier to read in print.

## Ink

Ink dries on coated paper in about
ten minutes, on uncoated paper faster.
""",
    "Hist/Silk Road.md": """# The Silk Road

The Silk Road was a network of trade routes linking China with the Mediterranean from about 130 BC.

## Goods

Silk, porcelain and tea went west; glass, wool and silver went east.
""",
    "Geo/Vulkanismus.md": """---
lang: de
---
# Vulkanismus

Ein Schildvulkan entsteht aus dünnflüssiger, basaltischer Lava, die weit fließt. Beispiel: Mauna Loa auf Hawaii.

Ein Schichtvulkan baut sich aus abwechselnden Lagen von Asche und zäher Lava auf; er bricht explosiv aus.
""",
    "Geo/Plattentektonik.md": """---
lang: de
---
# Plattentektonik

Die Lithosphäre ist in etwa sieben große und viele kleine Platten zerteilt.

## Antriebskräfte

- **Plattenzug (slab pull):** Die abtauchende, kalte und dichte Platte zieht den Rest der Platte in die
  Subduktionszone hinein.
- **Rückendruck (ridge push):** Am mittelozeanischen Rücken gleitet die junge Lithosphäre seitlich ab.
""",
}


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Any:
    vault, settings = make_vault(tmp_path_factory.mktemp("refusal-words"), NOTES)
    with Engine(vault, settings, embedder=None, writable=False) as opened:
        yield opened


def _duration(question: str, *words: str) -> Any:
    concepts = [Concept(word[:6], word, frozenset({word[:6]})) for word in words]
    expected = expected_answer(question, concepts, None)
    assert expected is not None and expected.kind == "duration"
    return expected


def test_a_span_of_time_written_with_its_units_symbol_is_one() -> None:
    expected = _duration("Wie lange dauert ein Zugriff auf den Arbeitsspeicher?", "zugriff", "arbeitsspeicher")
    assert gives_answer(expected, "Ein Zugriff auf den Arbeitsspeicher dauert rund 100 ns.", FALLBACK_ANALYZER, "de")
    assert gives_answer(expected, "Zugriff auf den Arbeitsspeicher: 0,1 ms", FALLBACK_ANALYZER, "de")
    # a symbol of another measure, or a letter without a number, is none
    assert not gives_answer(expected, "Ein Zugriff auf den Arbeitsspeicher geht über 10 cm Leitung.",
                            FALLBACK_ANALYZER, "de")
    assert not gives_answer(expected, "Zugriff auf den Arbeitsspeicher (s. Kapitel Cache)", FALLBACK_ANALYZER, "de")


def test_a_line_opening_in_lower_case_goes_on_with_the_sentence_above() -> None:
    expected = _duration("Wie lange beträgt die Vorwarnzeit?", "vorwarnzeit")
    assert gives_answer(expected, "Die Vorwarnzeit beträgt meist\nsieben Tage oder weniger.", FALLBACK_ANALYZER, "de")
    expected = _duration("How long does ink take to dry?", "ink", "dry")
    assert gives_answer(expected, "Ink dries on coated paper in about\nten minutes.", FALLBACK_ANALYZER, "en")
    # a line opening with a capital, or an item, is a statement of its own
    assert not gives_answer(expected, "Ink dries on coated paper.\nTen minutes for the varnish.",
                            FALLBACK_ANALYZER, "en")
    assert not gives_answer(expected, "Ink dries on coated paper\n- ten minutes for the varnish",
                            FALLBACK_ANALYZER, "en")


@pytest.mark.parametrize(("question", "stated"), [
    ("Wie lange dauert ein Zugriff auf den Arbeitsspeicher?", "rund 100 ns"),
    ("Wie lange braucht eine Festplatte für einen Zugriff?", "rund 5 ms"),
    ("Wie lange dauerte eine Fahrt von Lübeck nach Bergen?", "etwa drei Wochen"),
    ("How long does a single catalytic cycle of carbonic anhydrase take?", "about 1 µs"),
    ("How long does ink take to dry on coated paper?", "ten minutes"),
])
async def test_how_long_is_answered_by_the_span_of_time_the_note_gives(engine: Any, question: str,
                                                                       stated: str) -> None:
    done = await ask(engine, question)
    assert done["answered"] and stated in done["answer"], done["answer"]


@pytest.mark.parametrize(("question", "unheard"), [
    ("Wie lange dauerte eine Fahrt von Lübeck nach Nowgorod?", "Nowgorod"),
    ("How long does a catalytic cycle of lysozyme take?", "lysozyme"),
])
async def test_a_span_of_time_of_something_else_is_no_answer(engine: Any, question: str, unheard: str) -> None:
    # the passage gives a span of time next to the rest of the question, of a thing the question does not ask
    # about; the refusal names the word the vault never uses
    done = await ask(engine, question)
    assert not done["answered"] and f"“{unheard}”" in done["answer"], done["answer"]


@pytest.mark.parametrize("question", ["Wie lange dauerte eine Reise von Lübeck nach Bergen?",
                                      "Wie lange braucht eine Harddisk für einen Zugriff?"])
async def test_a_kind_of_thing_the_note_calls_otherwise_still_is_answered(engine: Any, question: str) -> None:
    # "eine Reise", "eine Harddisk": a word after an article names a kind of thing, which the note may call
    # otherwise ("Fahrt", "Festplatte"); the span of time it gives answers
    done = await ask(engine, question)
    assert done["answered"] and ("etwa drei Wochen" in done["answer"] or "rund 5 ms" in done["answer"])


async def test_the_verb_a_how_long_question_asks_with_is_no_thing_it_asks_about(engine: Any) -> None:
    # "require" is in no note; it is what the question asks with, after the cue and the subject, not what the span of
    # time is of
    done = await ask(engine, "How long does carbonic anhydrase require for a single catalytic cycle?")
    assert done["answered"] and "about 1 µs" in done["answer"], done["answer"]


async def test_an_everyday_word_of_an_amounts_question_is_no_thing_it_asks_about(engine: Any) -> None:
    # "makes" is in no note, but a word this common in its language names no thing the span could be of ("Nowgorod",
    # "lysozyme" do, above)
    done = await ask(engine, "How long does a catalytic cycle of carbonic anhydrase actually take when it gets going?")
    assert done["answered"] and "about 1 µs" in done["answer"], done["answer"]


async def test_a_word_said_in_the_other_language_leaves_the_name_the_answer(engine: Any) -> None:
    # "calculator" is in no note (the note says "Rechner"); "von Neumann" is, and its paragraph is the nearest the
    # notes come (before: "The vault doesn't say this about “Neumann”")
    done = await ask(engine, "What does a calculator after von Neumann have?")
    assert done["answered"] and "Ein Rechner nach von Neumann hat Steuerwerk" in done["answer"], done["answer"]
    # a name the vault never uses stays refused
    done = await ask(engine, "What does a calculator after Harvard have?")
    assert not done["answered"]
