"""Study notes from notes of awkward shapes (issue 17): sections that share a title keep their own key terms on
the mind map. Notes of our own, keyword-indexed for real, generated with no model."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from cognivault.engine import Engine
from cognivault.study.mindmap import parse_mindmap
from test_study_extractive import generate, indexed_vault

NOTES = {
    "Languages.md": """# Languages

Two languages, each with an example of its own.

## Python

Python is a programming language that reads like plain English.

### Example

A **list comprehension** builds a list in one line, and a **generator expression** yields items lazily.

## Rust

Rust is a systems language that checks memory safety when it compiles.

### Example

The **borrow checker** rejects two writers at once, and a **lifetime** says how long a reference lives.
""",
}


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    with indexed_vault(tmp_path_factory.mktemp("shapes"), NOTES) as engine:
        yield engine


def _find(node: dict[str, Any], label: str) -> list[dict[str, Any]]:
    return ([node] if node["label"] == label else []) + [n for c in node["children"] for n in _find(c, label)]


def test_sections_sharing_a_title_keep_their_own_key_terms(engine: Engine) -> None:
    root = parse_mindmap(generate(engine, "mindmap", "Languages.md")[1])["root"]
    python, rust = _find(root, "Python")[0], _find(root, "Rust")[0]
    examples = [_find(python, "Example"), _find(rust, "Example")]
    assert [len(found) for found in examples] == [1, 1]
    assert [[leaf["label"] for leaf in found[0]["children"]] for found in examples] == [
        ["list comprehension", "generator expression"], ["borrow checker", "lifetime"]]
    lines = NOTES["Languages.md"].splitlines()
    rust_example = engine.chunk(examples[1][0]["chunk_id"])
    assert rust_example is not None and rust_example.line_start > lines.index("## Rust")  # it links to its own
