"""A query that is just a term ("mitosis", "Zellatmung", "slicing"): the passage answer leads with the block that
says what the term is (issue 17 classes of misses on a student's vault).

A student typing a term a note names (its title, a heading, a bold term) asks what it is: the block defining it
leads, as for "What is X?", and a passage naming it word for word is no quoted question. So does one asking to
have it explained ("Explain X", "Describe X", "Erkläre X", "Beschreibe X", "Was versteht man unter X?"): the words
asking say how to answer, not what about, and a block that happens to say "describes" is no better for it. A term
found only in a heading is answered by the section's opening text, not by an aside further down that an embedding
model, reading the block without its heading, finds nearer.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from answer_support import collect, final, make_vault, vault_settings, write_vault
from cognivault.answer.pipeline import stream_answer
from cognivault.answer.request import AskRequest
from cognivault.answer.sessions import SessionStore
from cognivault.engine import Engine
from cognivault.models.extractive_chat import ExtractiveChat

NOTES = {
    "Bio/Mitosis.md": """# Mitosis

## Why it matters

Mitosis allows growth, repair of tissues and asexual reproduction. Uncontrolled mitosis can lead to cancer.

## In short

Mitosis is the division of a cell nucleus into two genetically identical nuclei, part of the cell cycle.
""",
    "Geschichte/Inflation.md": """---
lang: de
---
# Inflation

## Hyperinflation

Im Herbst 1923 stiegen die Preise während der Hyperinflation stündlich, Löhne wurden täglich ausgezahlt.

Eine **Hyperinflation** ist eine Inflation, bei der die Preise um mehr als 50 Prozent im Monat steigen.
""",
    "History/French Revolution.md": """# French Revolution

The French Revolution (1789–1799) ended the absolute monarchy in France.

## The Reign of Terror

The **Reign of Terror** was a period of mass executions led by the Committee of Public Safety under
Maximilien Robespierre. It ended with Robespierre's own execution on 28 July 1794.
""",
    "CS/Python lists.md": """# Python lists

A **list** is a mutable, ordered sequence of items, written with square brackets: `[1, 2, 3]`.

## Slicing

`xs[1:3]` returns the items at index 1 and 2. Negative indices count from the end: `xs[-1]` is the last item.

> [!warning] Mutable default arguments
> Never use a list as a default argument (`def f(xs=[])`): the same list is shared between calls.
""",
}


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Any:
    vault, settings = make_vault(tmp_path_factory.mktemp("terms"), NOTES)
    with Engine(vault, settings, embedder=None, writable=False) as opened:
        yield opened


def ask(engine: Any, question: str, embedder: Any = None) -> Any:
    return collect(stream_answer(engine, AskRequest(question, use_cache=False), ExtractiveChat(embedder),
                                 SessionStore(None), cache=None))


def lead(answer: str) -> str:
    """The answer's first quote, without the section title leading it."""
    return answer.split("[S", 1)[0].lstrip("*# \n").split("\n\n")[-1]


@pytest.mark.parametrize(("query", "definition"), [
    ("mitosis", "Mitosis is the division of a cell nucleus"),
    ("Hyperinflation", "Eine **Hyperinflation** ist eine Inflation"),
    ("Reign of Terror", "The **Reign of Terror** was a period")])
async def test_a_term_alone_is_answered_by_what_defines_it(engine: Any, query: str, definition: str) -> None:
    # Every block names the term; the one saying what it is leads, as asked "What is X?". The passage naming
    # "Reign of Terror" was left out: it says the query word for word, as a quoted question would.
    data = final(await ask(engine, query))["data"]
    assert data["answered"] and lead(data["answer"]).startswith(definition), data["answer"]


@pytest.mark.parametrize(("query", "definition"), [
    ("Explain mitosis", "Mitosis is the division of a cell nucleus"),
    ("Explain the Reign of Terror", "The **Reign of Terror** was a period"),
    ("Please explain mitosis.", "Mitosis is the division of a cell nucleus"),
    ("Erkläre Hyperinflation", "Eine **Hyperinflation** ist eine Inflation"),
    ("Erkläre mir die Hyperinflation", "Eine **Hyperinflation** ist eine Inflation"),
    ("Was versteht man unter einer Hyperinflation?", "Eine **Hyperinflation** ist eine Inflation"),
    ("Was bedeutet Hyperinflation?", "Eine **Hyperinflation** ist eine Inflation"),
    # the asking word is no topic the vault must have ("describe" is in no note), nor "the term" part of a name
    ("Describe mitosis", "Mitosis is the division of a cell nucleus"),
    ("Explain the term mitosis", "Mitosis is the division of a cell nucleus"),
    ("Beschreibe die Hyperinflation", "Eine **Hyperinflation** ist eine Inflation"),
    ("Erkläre den Begriff Hyperinflation", "Eine **Hyperinflation** ist eine Inflation")])
async def test_asked_to_explain_a_term_the_answer_leads_with_what_defines_it(engine: Any, query: str,
                                                                             definition: str) -> None:
    data = final(await ask(engine, query))["data"]
    assert data["answered"] and lead(data["answer"]).startswith(definition), data["answer"]


DESCRIBING = {
    "Bio/Mitosis.md": NOTES["Bio/Mitosis.md"] + """
## Further reading

Chapter 4 of the textbook describes how mitosis was first observed under the microscope.
""",
    "Geschichte/Inflation.md": NOTES["Geschichte/Inflation.md"] + """
## Quellen

Das Schulbuch beschreibt die Hyperinflation anhand von Briefmarken aus dem Jahr 1923.
""",
}


@pytest.mark.parametrize(("query", "definition"), [
    ("Describe mitosis", "Mitosis is the division of a cell nucleus"),
    ("Beschreibe die Hyperinflation", "Eine **Hyperinflation** ist eine Inflation")])
async def test_the_word_asking_for_a_description_is_not_what_the_answer_is_about(tmp_path: Path, query: str,
                                                                                 definition: str) -> None:
    # "describes", "beschreibt" are in the vault: read as a topic word, the block saying it would state more of
    # the question than the definition does.
    vault, settings = make_vault(tmp_path, DESCRIBING)
    with Engine(vault, settings, embedder=None, writable=False) as opened:
        data = final(await ask(opened, query))["data"]
    assert data["answered"] and lead(data["answer"]).startswith(definition), data["answer"]


DEFINING = {
    "Plugins/Backlinks.md": """# Backlinks

With the Backlinks plugin, you can see all the backlinks for the active note in the sidebar.

A backlink for a note is a link from another note to that note.
""",
    "Erweiterungen/Rückverweise.md": """---
lang: de
---
# Rückverweise

Mit der Rückverweise-Erweiterung kannst du alle Rückverweise für die aktive Notiz anzeigen.

Ein Rückverweis für eine Notiz ist ein Link von einer anderen Notiz zu dieser Notiz.
""",
    "Editing/Views.md": """# Views and editing modes

## Live Preview

To switch to Live Preview, click the status icon and select Live Preview in the menu.

*Live Preview* shows formatted text inline while hiding most Markdown syntax.
""",
    "Plugins/Page preview.md": """# Page preview

The settings of the page preview plugin are under Core plugins in the settings window.

Page preview is a core plugin that shows a page when you hover the cursor over an internal link.
""",
}


@pytest.mark.parametrize(("query", "definition"), [
    ("backlinks", "A backlink for a note is a link"),  # what it is of: "for a note"
    ("Rückverweise", "Ein Rückverweis für eine Notiz ist ein Link"),  # in another form than the query's
    ("Live Preview", "Live Preview* shows formatted text"),  # set off in italics (lead() drops the first "*")
    ("Explain the page preview plugin", "Page preview is a core plugin")])  # "plugin" said after the subject
async def test_a_definition_in_its_common_forms_leads(tmp_path: Path, query: str, definition: str) -> None:
    vault, settings = make_vault(tmp_path, DEFINING)
    with Engine(vault, settings, embedder=None, writable=False) as opened:
        data = final(await ask(opened, query))["data"]
    assert data["answered"] and lead(data["answer"]).startswith(definition), data["answer"]


class AsideMinded:
    """An embedding model that reads a callout as the block nearest any question, and the other blocks as too
    far to quote (as all-MiniLM found the callout under "Slicing" nearer "slicing" than the paragraph on
    ``xs[1:3]``, which never says "slicing")."""

    model_id = "test:aside-minded"
    dimension = 2
    languages = frozenset({"en"})

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return np.array([[1.0, 0.0] if "[!" in text else [0.5, 0.866] for text in texts], dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return np.array([1.0, 0.0], dtype=np.float32)


async def test_a_term_only_a_heading_says_is_answered_by_the_sections_opening(tmp_path: Path) -> None:
    vault = write_vault(tmp_path / "vault", {"CS/Python lists.md": NOTES["CS/Python lists.md"]})
    with Engine(vault, vault_settings(tmp_path / "index"), embedder=AsideMinded()) as engine:
        engine.index()
        data = final(await ask(engine, "slicing", engine.embedder))["data"]
    assert data["answered"] and lead(data["answer"]).startswith("`xs[1:3]` returns the items"), data["answer"]


GLOSSARY = {"Chem/Glossar Elektrochemie.md": """# Glossar Elektrochemie

- **Anode**: Elektrode, an der die Oxidation stattfindet.
- **Kathode**: Elektrode, an der die Reduktion stattfindet.
- **Salzbrücke** (salt bridge): verbindet die beiden Halbzellen und gleicht Ladungen aus.
- **Elektrolyt**: Lösung, die Ionen enthält und Strom leitet.
- **Redoxpotential**: Maß für die Neigung eines Stoffes, Elektronen aufzunehmen.
"""}


@pytest.mark.parametrize(("question", "entry"), [
    ("Was ist eine Salzbrücke?", "**Salzbrücke** (salt bridge): verbindet"),
    ("What is a salt bridge?", "**Salzbrücke** (salt bridge): verbindet"),  # named by its alias after the bold term
    ("Was passiert an der Kathode?", "**Kathode**: Elektrode, an der die Reduktion"),
])
async def test_a_glossary_entry_answers_alone(tmp_path: Path, question: str, entry: str) -> None:
    # The entry on what is asked is the answer; before, the whole short glossary was quoted (all five entries).
    vault, settings = make_vault(tmp_path, GLOSSARY)
    with Engine(vault, settings, embedder=None, writable=False) as opened:
        data = final(await ask(opened, question))["data"]
    quoted = data["answer"].split("[S1]")[0]
    assert data["answered"] and entry in quoted and "Redoxpotential" not in quoted, data["answer"]


async def test_a_question_on_the_whole_glossary_still_gets_it_whole(tmp_path: Path) -> None:
    vault, settings = make_vault(tmp_path, GLOSSARY)
    with Engine(vault, settings, embedder=None, writable=False) as opened:
        data = final(await ask(opened, "Welche Begriffe gibt es in der Elektrochemie?"))["data"]
    assert all(term in data["answer"] for term in ("Anode", "Kathode", "Salzbrücke", "Redoxpotential"))


async def test_a_procedure_the_lead_leads_to_is_quoted_with_all_its_steps(tmp_path: Path) -> None:
    # "Der Weg eines CO₂-Moleküls:" and its three steps: before, only step 1 was quoted (the whole list did not fit
    # beside the paragraph after it), a list cut after its first step.
    note = (Path(__file__).resolve().parents[1] / "examples" / "vault" / "Deutsch" /
            "Gasaustausch im Blatt.md").read_text("utf-8")
    vault, settings = make_vault(tmp_path, {"Deutsch/Gasaustausch im Blatt.md": note})
    with Engine(vault, settings, embedder=None, writable=False) as opened:
        data = final(await ask(opened, "Wie gelangt CO2 in das Blatt?"))["data"]
    answer = data["answer"]
    assert data["answered"] and "1. Aus der Luft" in answer, answer
    assert "2. Dort löst es sich" in answer and "3. Es diffundiert" in answer, answer
