"""Resolving wikilink targets to vault files the way Obsidian does.

``[[Note]]`` finds a note by file name anywhere in the vault (the closest one
to the linking note when several share the name), ``[[Folder/Note]]`` by
path suffix, and ``[[image.png]]`` any attachment by its name. Aliases from
frontmatter resolve too. Matching ignores case, as Obsidian does.
"""

from __future__ import annotations

import posixpath
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence


def _strip_md(name: str) -> str:
    lowered = name.lower()
    for suffix in (".md", ".markdown"):
        if lowered.endswith(suffix):
            return name[: -len(suffix)]
    return name


def target_key(target: str) -> str:
    """The name a link target is looked up by, as written (see :meth:`LinkResolver.resolve`)."""
    return _strip_md(target.strip().lstrip("/")).lower()


def path_keys(path: str) -> set[str]:
    """The names that find ``path``: every path suffix ("c", "b/c", "a/b/c" for "a/b/c.md"), and the
    file name with its extension when that differs."""
    key = _strip_md(path).lower()
    parts = key.split("/")
    found = {"/".join(parts[start:]) for start in range(len(parts))}
    if key != path.lower():
        found.add(path.lower().rsplit("/", 1)[-1])
    return found


def alias_keys(aliases: Iterable[str]) -> set[str]:
    """The names that find a note with these aliases."""
    return {str(alias).lower() for alias in aliases}


class LinkResolver:
    def __init__(self, paths: Iterable[str], aliases: Mapping[str, Sequence[str]] | None = None) -> None:
        self.paths = sorted(paths)
        self._known: frozenset[str] | None = None
        self._by_key: dict[str, list[str]] = defaultdict(list)
        for path in self.paths:
            for key in path_keys(path):
                self._by_key[key].append(path)
        self._by_alias: dict[str, list[str]] = defaultdict(list)
        for path, names in (aliases or {}).items():
            for key in alias_keys(names):
                self._by_alias[key].append(path)

    def with_notes(self, aliases: Mapping[str, Sequence[str]], before: Mapping[str, Sequence[str]]) -> LinkResolver:
        """This resolver with the notes of ``aliases`` holding those aliases instead of the ones
        ``before`` says they hold here (a note it does not know is added): a copy sharing every
        lookup list that does not change, so a few edited notes cost those notes, not the vault."""
        if self._known is None:
            self._known = frozenset(self.paths)
        clone = object.__new__(LinkResolver)
        added = sorted(path for path in aliases if path not in self._known)
        clone.paths = sorted([*self.paths, *added]) if added else self.paths
        clone._known = self._known | frozenset(added) if added else self._known
        clone._by_key = dict(self._by_key) if added else self._by_key
        for path in added:
            for key in path_keys(path):
                clone._by_key[key] = [*clone._by_key.get(key, ()), path]
        clone._by_alias = dict(self._by_alias)
        for path, names in aliases.items():
            for key in alias_keys(before.get(path, ())):
                rest = [other for other in clone._by_alias.get(key, ()) if other != path]
                if rest:
                    clone._by_alias[key] = rest
                else:
                    clone._by_alias.pop(key, None)
            for key in alias_keys(names):
                clone._by_alias[key] = [*clone._by_alias.get(key, ()), path]
        return clone

    def named(self, name: str) -> list[str]:
        """Every note ``name`` is the name of (its file name, a path suffix or an alias), as a link would
        find it before choosing among them."""
        key = target_key(name)
        return sorted({*self._by_key.get(key, ()), *self._by_alias.get(key, ())}) if key else []

    def resolve(self, target: str, source: str | None = None) -> str | None:
        """The vault path ``target`` points to from note ``source``, or None when unresolved."""
        if not target:
            return source
        key = target_key(target)
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
