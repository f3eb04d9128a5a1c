"""The reader process (:class:`cognivault.index.isolation.IsolatedExtractor`) running a call for a feature
that hands it user data (URL import): the value comes back, the function's own exception comes back as
itself, going over the memory limit and crashing are plain reasons, and a crashed reader is replaced.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from cognivault.config import IndexSettings
from cognivault.index import isolation
from cognivault.index.isolation import IsolatedExtractor
from cognivault.urlimport import ImportFailed
from cognivault.vault.types import ExtractionFailed
from crashing_reader import CRASH_MARKER, crashing_reader  # noqa: F401 - the fixture


@pytest.fixture
def reader() -> Iterator[IsolatedExtractor]:
    worker = IsolatedExtractor(IndexSettings())
    yield worker
    worker.close()


def test_a_call_returns_its_value_or_raises_its_own_exception(reader: IsolatedExtractor) -> None:
    assert reader.run(sorted, "cab") == ["a", "b", "c"]
    with pytest.raises(ValueError, match="invalid literal"):
        reader.run(int, "not a number")
    with pytest.raises(ImportFailed) as info:  # raised in the reader, with its attributes
        reader.run(_fail_import, "the page has no readable text")
    assert info.value.code == "import_empty" and info.value.message == "the page has no readable text"


def _fail_import(message: str) -> None:
    raise ImportFailed(message, "import_empty")


def test_going_over_the_memory_limit_is_a_reason_not_a_crash(reader: IsolatedExtractor) -> None:
    with pytest.raises(ExtractionFailed, match="ran out of the memory allowed for one file"):
        reader.run(bytearray, isolation.WORKER_MEMORY_BYTES + 1)
    assert reader.run(len, "the same reader goes on") == 23


def test_a_crashed_reader_says_how_it_ended_and_is_replaced(reader: IsolatedExtractor,
                                                            crashing_reader: None) -> None:  # noqa: F811
    with pytest.raises(ExtractionFailed, match=r"^the reader crashed \(signal 11\)$"):
        reader.run(len, CRASH_MARKER)
    assert reader.run(len, b"next") == 4
