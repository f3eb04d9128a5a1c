"""A search that names a note opens with that note.

Typing "canvas" or "Graph view" into search, or asking it, is how people open a note by name (Obsidian's
quick switcher works so): the named note's opening passage comes first, not whichever of its sections
repeats the word most (for "canvas" that was "Navigate the canvas", and the answer built on it never said
what a canvas is). A name is what a link would find: the file name, a path ending, or an alias. When
several notes bear the name (the same note in two languages), the one the ranking already puts highest
wins, so the query's language decides as it does for any search.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from cognivault.index.hybrid import FusedHit

MAX_NAME_WORDS = 6  # longer queries are questions or phrases, not a note's name
_WRAPPERS = "\"'“”„«»[]`"


def as_note_name(query: str) -> str:
    """The note name a query may be: without surrounding quotes, ``[[ ]]`` or a final ``?``/``.``/``!``;
    "" when it is too long to be a name."""
    name = query.strip().rstrip("?!.").strip().strip(_WRAPPERS).strip()
    return name if name and len(name.split()) <= MAX_NAME_WORDS else ""


def open_with_named_note(fused: Sequence[FusedHit], named: Sequence[str], path_of: Callable[[str], str | None],
                         opening_of: Callable[[str], str | None]) -> list[FusedHit]:
    """``fused`` (best first) with the opening passage of the note among ``named`` that ranks highest put
    first (added when the ranking did not hold it); unchanged when no named note is in reach.

    ``named`` are the notes the query names, already limited to the search's scope; ``path_of`` gives a
    passage's note, ``opening_of`` a note's first passage."""
    if not named:
        return list(fused)
    wanted = set(named)
    best = next((path for path in (path_of(hit.chunk_id) for hit in fused) if path in wanted), None)
    path = best if best is not None else (named[0] if len(named) == 1 else None)
    opening = opening_of(path) if path is not None else None
    if opening is None:
        return list(fused)
    rest = [hit for hit in fused if hit.chunk_id != opening]
    held = next((hit for hit in fused if hit.chunk_id == opening), None)
    top_score = fused[0].score if fused else 0.0
    first = replace(held, score=max(held.score, top_score)) if held is not None \
        else FusedHit(opening, top_score, None, None)
    return [first, *rest]
