"""Search-result snippets: the part of a passage that best matches the query, with its matches marked."""

from __future__ import annotations

import re
from dataclasses import dataclass

from cognivault.index.analysis import Analyzer

_WORD = re.compile(r"\w+")
SNIPPET_CHARS = 240


@dataclass(frozen=True, slots=True)
class Snippet:
    text: str
    highlights: list[tuple[int, int]]  # [start, end) offsets into ``text`` of matching words


def make_snippet(text: str, query_terms: set[str], analyzer: Analyzer, lang: str | None,
                 width: int = SNIPPET_CHARS) -> Snippet:
    flat = " ".join(text.split())
    found = [(m.start(), m.end(), m.group().casefold()) for m in _WORD.finditer(flat)]
    # Each distinct word is analysed once: passages repeat their words a lot.
    matching = {word for word in {w for _, _, w in found}
                if query_terms.intersection(analyzer.terms_of_word(word, lang))}
    matches = [(start, end) for start, end, word in found if word in matching]
    if len(flat) <= width:
        return Snippet(flat, matches)
    best_start, best_count = 0, -1
    for index, (start, _) in enumerate(matches):
        count = sum(1 for s, _ in matches[index:] if s < start + width)
        if count > best_count:
            best_start, best_count = start, count
    start = max(0, best_start - width // 4)
    if start > 0:
        space = flat.find(" ", start)
        start = space + 1 if 0 <= space < best_start else start
    end = min(len(flat), start + width)
    if end < len(flat):
        space = flat.rfind(" ", start, end)
        end = space if space > start else end
    prefix = "…" if start > 0 else ""
    suffix = "…" if end < len(flat) else ""
    shift = len(prefix) - start
    highlights = [(s + shift, e + shift) for s, e in matches if s >= start and e <= end]
    return Snippet(prefix + flat[start:end] + suffix, highlights)
