"""Generated study notes rank below the notes they were made from.

A quiz, a deck of flashcards or a workshop outline repeats its sources' words,
so keyword and meaning search alike put it next to (or above) the note it was
made from, and ``[[`` completion and related notes fill up with copies. A
generated note is one whose frontmatter has the ``cognivault`` key (every
note CogniVault writes has it) or that lies in the study folder; its sources
are the ``source_notes`` links of its frontmatter. Search keeps generated
notes but never ranks one above a note it was made from
(:meth:`GeneratedNotes.below_sources`), and shows one passage of each before
the user's own passages run out (:meth:`GeneratedNotes.one_passage_each`: a
quiz is a dozen short passages that all repeat the same words); related notes and link completion leave
them out; ``study:only`` limits a search to them (see :mod:`cognivault.index.scope`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from cognivault.vault.markdown import split_href

GENERATED_KEY = "cognivault"  # frontmatter key of every note CogniVault writes
SOURCES_KEY = "source_notes"  # its list of "[[source]]" links
_LINK = re.compile(r"^\s*!?\[\[([^\]|#]+)(?:[#|][^\]]*)?\]\]\s*$")
_MARKDOWN_LINK = re.compile(r"^\s*\[[^\[\]\n]*\]\((?P<href>[^()\s<>]+)\)\s*$")  # a name no wikilink can hold

Item = TypeVar("Item")


def study_prefix(folder: str) -> str:
    """``"Study"`` -> ``"Study/"``: the path prefix of the study folder ("" for none)."""
    folder = folder.strip().strip("/")
    return f"{folder}/" if folder else ""


def is_generated(path: str, frontmatter: Mapping[str, Any] | None, study_folder: str) -> bool:
    """Whether the note at ``path`` was generated (frontmatter key or study folder)."""
    prefix = study_prefix(study_folder)
    return bool(frontmatter and GENERATED_KEY in frontmatter) or bool(prefix and path.startswith(prefix))


def _target(value: str) -> str:
    """``"[[Cells#Membrane]]"`` -> ``"Cells"``; ``"[Notes draft](Notes%20%5Bdraft%5D.md)"`` -> ``"Notes [draft]"``."""
    wikilink = _LINK.match(value)
    if wikilink:
        return wikilink.group(1).strip()
    markdown = _MARKDOWN_LINK.match(value)
    if markdown:
        path, _ = split_href(markdown["href"])
        return path[:-3] if path.lower().endswith(".md") else path
    return value.strip()


def source_targets(frontmatter: Mapping[str, Any] | None) -> list[str]:
    """The link targets of a generated note's ``source_notes`` (``"[[Cells#Membrane]]"`` -> ``"Cells"``)."""
    raw = (frontmatter or {}).get(SOURCES_KEY)
    values = raw if isinstance(raw, list) else [raw] if isinstance(raw, str) else []
    targets = []
    for value in values:
        if not isinstance(value, str):
            continue
        target = _target(value)
        if target:
            targets.append(target)
    return targets


@dataclass(frozen=True, slots=True)
class GeneratedNotes:
    """The vault's generated notes and the notes each was made from."""

    sources: Mapping[str, frozenset[str]] = field(default_factory=dict)  # generated path -> source paths

    def __contains__(self, path: object) -> bool:
        return path in self.sources

    def __len__(self) -> int:
        return len(self.sources)

    @property
    def paths(self) -> frozenset[str]:
        return frozenset(self.sources)

    @classmethod
    def build(cls, notes: Iterable[tuple[str, Mapping[str, Any] | None]], study_folder: str,
              resolve: Callable[[str, str], str | None]) -> GeneratedNotes:
        """From (path, frontmatter) of candidate notes; ``resolve(target, source)`` finds a link's note."""
        sources: dict[str, frozenset[str]] = {}
        for path, frontmatter in notes:
            if is_generated(path, frontmatter, study_folder):
                found = (resolve(target, path) for target in source_targets(frontmatter))
                sources[path] = frozenset(p for p in found if p is not None and p != path)
        return cls(sources)

    def below_sources(self, items: Sequence[Item], path_of: Callable[[Item], str | None]) -> list[Item]:
        """``items`` (best first) with every item of a generated note moved, when needed, to just after
        the first item of the last of its sources among ``items``; the order is kept otherwise."""
        if not self.sources:
            return list(items)
        paths = [path_of(item) for item in items]
        present = set(paths)
        waiting_for = {path: set(self.sources[path] & present) for path in present
                       if path is not None and path in self.sources}
        if not any(waiting_for.values()):
            return list(items)
        ordered: list[Item] = []
        held: dict[str, list[Item]] = {}
        seen: set[str] = set()

        def emit(item: Item, path: str | None) -> None:
            ordered.append(item)
            if path is None or path in seen:
                return
            seen.add(path)
            for generated, missing in waiting_for.items():
                if path in missing:
                    missing.discard(path)
                    if not missing:
                        for waiting in held.pop(generated, []):
                            emit(waiting, generated)

        for item, path in zip(items, paths, strict=True):
            if path is not None and waiting_for.get(path):
                held.setdefault(path, []).append(item)
            else:
                emit(item, path)
        for waiting_items in held.values():  # a cycle of sources: keep them, in order
            ordered.extend(waiting_items)
        return ordered

    def one_passage_each(self, items: Sequence[Item], path_of: Callable[[Item], str | None]) -> list[Item]:
        """``items`` (best first) with each generated note's first item kept where it ranks and its
        other items moved just below the last item of a note that is not generated (order kept
        otherwise): a search for a quiz's topic shows the quiz once, then the user's notes."""
        if not self.sources:
            return list(items)
        paths = [path_of(item) for item in items]
        last_own = max((index for index, path in enumerate(paths) if path not in self.sources), default=-1)
        kept: list[Item] = []
        moved: list[Item] = []
        shown: set[str] = set()
        for item, path in zip(items[:last_own + 1], paths[:last_own + 1], strict=True):
            if path in self.sources and path in shown:
                moved.append(item)
                continue
            if path is not None:
                shown.add(path)
            kept.append(item)
        return kept + moved + list(items[last_own + 1:])
