"""Search-result snippets: the part of a passage that best matches the query, with its matches marked.

A note's passage is shown as a reader sees it (:func:`reading_text`: no ``**``, ``##``, ``[[…|…]]``
or block ids, its heading path left to the result's title, the aliases of its lead line left out),
unless the query itself searches for Markdown syntax (``[[##``, ``%%``): then the passage is shown as
written.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from cognivault.index.analysis import SYMBOL_RUN, Analyzer
from cognivault.vault.chunking import LEAD_ALIASES_RE
from cognivault.vault.markdown import reading_text

_WORD = re.compile(r"\w+")
_SENTENCE_END = re.compile(r"[.!?…][\"'”’»)\]]*\s+")
SNIPPET_CHARS = 240


@dataclass(frozen=True, slots=True)
class Snippet:
    text: str
    highlights: list[tuple[int, int]]  # [start, end) offsets into ``text`` of matching words


def make_snippet(text: str, query_terms: set[str], analyzer: Analyzer, lang: str | None,
                 width: int = SNIPPET_CHARS, markdown_headings: Sequence[str] | None = None) -> Snippet:
    """The best window of ``text``; ``markdown_headings``: the passage is Markdown under these headings."""
    wants_syntax = any(_WORD.search(term) is None for term in query_terms)
    flat = " ".join(text.split())
    if markdown_headings is not None and not wants_syntax:
        flat = reading_text(LEAD_ALIASES_RE.sub("", text), markdown_headings) or flat
    found = [(m.start(), m.end(), m.group().casefold()) for m in _WORD.finditer(flat)]
    # Each distinct word is analysed once: passages repeat their words a lot.
    matching = {word for word in {w for _, _, w in found}
                if query_terms.intersection(analyzer.terms_of_word(word, lang))}
    if wants_syntax:
        found += [(m.start(), m.end(), m.group()) for m in SYMBOL_RUN.finditer(flat) if m.group() in query_terms]
        found.sort()
        matching |= query_terms
    matches = [(start, end) for start, end, word in found if word in matching]
    if len(flat) <= width:
        return Snippet(flat, matches)
    best_start, best_count = 0, -1
    for index, (start, _) in enumerate(matches):
        count = sum(1 for s, _ in matches[index:] if s < start + width)
        if count > best_count:
            best_start, best_count = start, count
    # Open at the sentence the best match is in when it begins near enough, else a little before the match.
    sentence = max((0, *(m.end() for m in _SENTENCE_END.finditer(flat, 0, best_start))))
    start = sentence if sentence >= best_start - width // 2 else best_start - width // 4
    if start > sentence:
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
