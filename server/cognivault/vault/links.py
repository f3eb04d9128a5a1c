"""Resolving wikilink targets to vault files the way Obsidian does.

``[[Note]]`` finds a note by file name anywhere in the vault (the closest one
to the linking note when several share the name), ``[[Folder/Note]]`` by
path suffix, and ``[[image.png]]`` any attachment by its name. Aliases from
frontmatter resolve too. Matching ignores case, as Obsidian does.
"""

from __future__ import annotations

import posixpath
from collections import defaultdict
from collections.abc import Iterable


def _strip_md(name: str) -> str:
    lowered = name.lower()
    for suffix in (".md", ".markdown"):
        if lowered.endswith(suffix):
            return name[: -len(suffix)]
    return name


class LinkResolver:
    def __init__(self, paths: Iterable[str], aliases: dict[str, list[str]] | None = None) -> None:
        self.paths = sorted(paths)
        self._by_key: dict[str, list[str]] = defaultdict(list)
        for path in self.paths:
            key = _strip_md(path).lower()
            # Every path suffix is a key: "c", "b/c", "a/b/c" for "a/b/c.md".
            parts = key.split("/")
            for start in range(len(parts)):
                self._by_key["/".join(parts[start:])].append(path)
            if key != path.lower():
                self._by_key[path.lower().rsplit("/", 1)[-1]].append(path)
        self._by_alias: dict[str, list[str]] = defaultdict(list)
        for path, names in (aliases or {}).items():
            for alias in names:
                self._by_alias[str(alias).lower()].append(path)

    def resolve(self, target: str, source: str | None = None) -> str | None:
        """The vault path ``target`` points to from note ``source``, or None when unresolved."""
        if not target:
            return source
        key = _strip_md(target.strip().lstrip("/")).lower()
        candidates = self._by_key.get(key) or self._by_alias.get(key) or []
        if not candidates and source is not None:
            relative = posixpath.normpath(posixpath.join(posixpath.dirname(source), key))
            candidates = self._by_key.get(relative, [])
        if not candidates:
            return None
        if len(candidates) == 1 or source is None:
            return min(candidates, key=lambda p: (p.count("/"), p))
        source_dir = posixpath.dirname(source)

        def closeness(path: str) -> tuple[int, int, str]:
            common = posixpath.commonpath([source_dir, posixpath.dirname(path)]) if source_dir else ""
            return (-len(common.split("/")) if common else 0, path.count("/"), path)

        return min(candidates, key=closeness)
