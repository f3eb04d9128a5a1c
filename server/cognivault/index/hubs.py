"""A hub does not answer a question on a subject: the note that treats the subject does.

A hub (a semester plan, an index note: a list of links, dates and tags, as :func:`cognivault.vault.reading.note_shape`
tells) names every subject of the vault in its links, often in a short section under a heading that says the
subject again ("## Sprachen – Spanisch A2: [[Vokabeln L5]] …"), so keywords rank it above the note a link of it
points to. In a search, a hub's passages that rank above the first passage of another note holding the question's
subject words (not only its frame, see :mod:`cognivault.index.question_frame`) move to just below it. A question
about the student's own planning ("When is the exam?", "Wann ist die Klausur?": a word of course logistics) is what a
hub answers, and keeps its ranking.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import replace

from cognivault.index.analysis import is_stopword, words
from cognivault.index.catalog import Catalog
from cognivault.index.hybrid import FusedHit
from cognivault.vault.reading import is_bookkeeping_term, is_label, note_shape, sectioned_text

MIN_LOGISTICS_CHARS = 3


class HubNotes:
    """Which notes are hubs, judged once per version of a note (by its file's digest)."""

    def __init__(self) -> None:
        self._judged: dict[str, tuple[str | None, bool]] = {}
        self._lock = threading.Lock()

    def is_hub(self, catalog: Catalog, path: str) -> bool:
        record = catalog.file(path)
        digest = record.sha256 if record is not None else None
        with self._lock:
            judged = self._judged.get(path)
        if judged is not None and judged[0] == digest:
            return judged[1]
        hub = note_shape(sectioned_text((chunk.heading_path, chunk.text) for chunk in catalog.chunks_of(path))).hub
        with self._lock:
            self._judged[path] = (digest, hub)
        return hub


def asks_logistics(query: str, languages: Sequence[str | None]) -> bool:
    """Whether ``query`` asks about the student's own planning: it holds a word of course logistics ("exam",
    "Klausur", "Vorlesung"), not a short one (a weekday's "Mo", "Do", the "ab" of "läuft ab") nor a stopword of
    ``languages`` ("so" is also Sunday's)."""
    return any(is_bookkeeping_term(word) and not is_label(word)
               and not any(is_stopword(word, lang) for lang in languages)
               for word in words(query) if word.isalpha() and len(word) >= MIN_LOGISTICS_CHARS)


def below_subject_notes(fused: Sequence[FusedHit], path_of: Callable[[str], str | None],
                        is_hub: Callable[[str], bool], holds_subject: Callable[[str], bool]) -> list[FusedHit]:
    """``fused`` (best first) with the hub passages that rank above the first passage of another note holding a
    subject word put just below that passage (their scores lowered to its score); unchanged when a hub is not
    first or no other note holds a subject word."""
    hubs: list[FusedHit] = []
    for at, hit in enumerate(fused):
        path = path_of(hit.chunk_id)
        if path is not None and is_hub(path):
            hubs.append(hit)
        elif holds_subject(hit.chunk_id):
            if not hubs:
                return list(fused)
            moved = {id(hub) for hub in hubs}
            before = [other for other in fused[:at] if id(other) not in moved]
            lowered = [replace(hub, score=min(hub.score, hit.score)) for hub in hubs]
            return [*before, hit, *lowered, *fused[at + 1:]]
        elif not hubs:
            return list(fused)  # the first passage is no hub
    return list(fused)
