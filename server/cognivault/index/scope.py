"""Limiting a search to part of the vault: folders, tags (with sub-tags), files, frontmatter properties,
generated study notes.

Filters of the same kind widen the scope (``folder:A folder:B`` is either);
filters of different kinds narrow it (``folder:A tag:x`` is both).
Written on the command line as ``folder:"Obsidian Sync"``, ``tag:howto``,
``file:Plugins/Search.md``, ``property:status=done`` (or ``prop:status``),
``study:only`` (only generated study notes, see :mod:`cognivault.index.generated`)
or ``study:exclude`` (none of them).

A search query may name tags as Obsidian writes them (``#biology/cells membrane``):
:func:`query_tags` takes each tag a note carries out of the words and the search keeps
to the notes carrying one of them (sub-tags too), like ``tag:biology/cells``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field

from cognivault.errors import CogniVaultError
from cognivault.index.catalog import Catalog
from cognivault.index.generated import GeneratedNotes
from cognivault.vault.markdown import is_valid_tag

STUDY_VALUES = ("only", "exclude")


class ScopeError(CogniVaultError, ValueError):
    """A scope filter could not be understood."""

    code = "bad_scope"


@dataclass(slots=True)
class Scope:
    folders: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    properties: list[tuple[str, str | None]] = field(default_factory=list)
    study: str | None = None  # "only": generated study notes alone; "exclude": none of them

    def is_empty(self) -> bool:
        return not (self.folders or self.tags or self.files or self.properties or self.study)

    def describe(self) -> dict[str, object]:
        described: dict[str, object] = {
            "folders": self.folders, "tags": self.tags, "files": self.files,
            "properties": [f"{k}={v}" if v is not None else k for k, v in self.properties]}
        if self.study:
            described["study"] = self.study
        return described

    def __str__(self) -> str:
        """The filters as written on the command line: ``folder:"Obsidian Sync" tag:howto``."""
        def quoted(value: str) -> str:
            return f'"{value}"' if " " in value else value

        written = [f"folder:{quoted(f)}" for f in self.folders] + [f"tag:{quoted(t)}" for t in self.tags]
        written += [f"file:{quoted(f)}" for f in self.files]
        written += [f"property:{quoted(k if v is None else f'{k}={v}')}" for k, v in self.properties]
        written += [f"study:{self.study}"] if self.study else []
        return " ".join(written)

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
            elif kind == "study":
                scope.study = _study_value(value, raw)
            else:
                raise ScopeError(f"scope {raw!r}: unknown kind {kind!r} (folder, tag, file, property, study)")
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
        study = data.get("study")
        if study is not None and not isinstance(study, str):
            raise ScopeError("scope.study must be \"only\" or \"exclude\"")
        return cls([f.strip("/") for f in strings("folders")], [t.lstrip("#") for t in strings("tags")],
                   [f.lstrip("/") for f in strings("files")],
                   [(str(k), None if v is None else str(v)) for k, v in properties.items()],
                   _study_value(study, "scope.study") if study else None)

    def resolve(self, catalog: Catalog, all_paths: list[str], generated: Collection[str] | None = None
                ) -> set[str] | None:
        """The vault paths inside this scope, or None for the whole vault.

        ``generated``: the vault's generated study notes (``Engine.generated_notes``); without it a
        ``study`` filter knows them by their frontmatter alone.
        """
        if self.is_empty():
            return None
        allowed = set(all_paths)
        if self.study:
            if generated is None:
                generated = GeneratedNotes.build(catalog.frontmatter_of_generated(""), "",
                                                 lambda target, source: None).paths
            marked = set(generated)
            allowed = allowed & marked if self.study == "only" else allowed - marked
        if self.folders:
            prefixes = tuple(f"{folder}/" for folder in self.folders if folder)
            allowed = {p for p in allowed if not prefixes or p.startswith(prefixes)}
        if self.tags:
            allowed &= tagged_paths(catalog, self.tags)
        if self.files:
            wanted = {f.casefold() for f in self.files}
            wanted |= {f"{f}.md" for f in wanted if not f.endswith(".md")}
            allowed = {p for p in allowed if p.casefold() in wanted}
        for key, value in self.properties:
            allowed &= catalog.paths_with_property(key, value)
        return allowed


def tagged_paths(catalog: Catalog, tags: Iterable[str]) -> set[str]:
    """The notes carrying any of ``tags`` or one of their sub-tags."""
    tagged: set[str] = set()
    for tag in tags:
        tagged |= catalog.paths_with_tag(tag)
    return tagged


def query_tags(query: str, carried: Callable[[str], bool]) -> tuple[str, list[str]]:
    """The words of a search query and the tags it names: ``"#biology/cells membrane"`` ->
    ``("membrane", ["biology/cells"])``. Only a tag some note carries (``carried``) is taken: another
    ``#word`` stays a word. A query of tags alone keeps their words (``"biology cells"``) to rank the
    tagged notes' passages by."""
    tags: list[str] = []
    kept: list[str] = []
    for token in query.split():
        name = token[1:] if token.startswith("#") else ""
        if name and is_valid_tag(name) and carried(name):
            tags.append(name)
        else:
            kept.append(token)
    if not tags:
        return query, []
    return " ".join(kept) or " ".join(re.split(r"[/_-]+", " ".join(tags))), tags


def _study_value(value: str, raw: str) -> str:
    wanted = value.strip().lower()
    if wanted not in STUDY_VALUES:
        raise ScopeError(f"scope {raw!r}: study takes only or exclude (study:only, study:exclude)")
    return wanted
