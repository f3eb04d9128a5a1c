"""Limiting a search to part of the vault: folders, tags (with sub-tags), files, frontmatter properties.

Filters of the same kind widen the scope (``folder:A folder:B`` is either);
filters of different kinds narrow it (``folder:A tag:x`` is both).
Written on the command line as ``folder:"Obsidian Sync"``, ``tag:howto``,
``file:Plugins/Search.md``, ``property:status=done`` (or ``prop:status``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cognivault.index.catalog import Catalog


class ScopeError(ValueError):
    """A scope filter could not be understood."""


@dataclass(slots=True)
class Scope:
    folders: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    properties: list[tuple[str, str | None]] = field(default_factory=list)

    def is_empty(self) -> bool:
        return not (self.folders or self.tags or self.files or self.properties)

    def describe(self) -> dict[str, object]:
        return {"folders": self.folders, "tags": self.tags, "files": self.files,
                "properties": [f"{k}={v}" if v is not None else k for k, v in self.properties]}

    @classmethod
    def parse(cls, filters: list[str] | None) -> Scope:
        scope = cls()
        for raw in filters or []:
            kind, sep, value = raw.partition(":")
            value = value.strip().strip('"').strip("'")
            if not sep or not value:
                raise ScopeError(f"scope {raw!r}: expected kind:value, e.g. folder:Notes, tag:howto, "
                                 "file:Plugins/Search.md, property:status=done")
            kind = kind.strip().lower()
            if kind == "folder":
                scope.folders.append(value.strip("/"))
            elif kind == "tag":
                scope.tags.append(value.lstrip("#"))
            elif kind in ("file", "note", "path"):
                scope.files.append(value.lstrip("/"))
            elif kind in ("property", "prop"):
                key, eq, wanted = value.partition("=")
                scope.properties.append((key.strip(), wanted.strip() if eq else None))
            else:
                raise ScopeError(f"scope {raw!r}: unknown kind {kind!r} (folder, tag, file, property)")
        return scope

    @classmethod
    def from_dict(cls, data: dict[str, object] | None) -> Scope:
        """From a JSON request: ``{"folders": [...], "tags": [...], "files": [...], "properties": {...}}``."""
        if not data:
            return cls()
        if not isinstance(data, dict):
            raise ScopeError("scope must be an object")

        def strings(key: str) -> list[str]:
            value = data.get(key, [])
            if isinstance(value, str):
                value = [value]
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ScopeError(f"scope.{key} must be a list of strings")
            return value

        properties = data.get("properties", {})
        if not isinstance(properties, dict):
            raise ScopeError("scope.properties must be an object")
        return cls([f.strip("/") for f in strings("folders")], [t.lstrip("#") for t in strings("tags")],
                   [f.lstrip("/") for f in strings("files")],
                   [(str(k), None if v is None else str(v)) for k, v in properties.items()])

    def resolve(self, catalog: Catalog, all_paths: list[str]) -> set[str] | None:
        """The vault paths inside this scope, or None for the whole vault."""
        if self.is_empty():
            return None
        allowed = set(all_paths)
        if self.folders:
            prefixes = tuple(f"{folder}/" for folder in self.folders if folder)
            allowed = {p for p in allowed if not prefixes or p.startswith(prefixes)}
        if self.tags:
            tagged: set[str] = set()
            for tag in self.tags:
                tagged |= catalog.paths_with_tag(tag)
            allowed &= tagged
        if self.files:
            wanted = {f.casefold() for f in self.files}
            wanted |= {f"{f}.md" for f in wanted if not f.endswith(".md")}
            allowed = {p for p in allowed if p.casefold() in wanted}
        for key, value in self.properties:
            allowed &= catalog.paths_with_property(key, value)
        return allowed
