"""Mind maps: a Mermaid ``mindmap`` block (Obsidian renders it) plus an outline whose every node links back.

The outline is the map's source of truth for tools: nested list items, each a
citation (``vault_schema/citation.md``) whose label is the node's text.
``parse_mindmap`` reads it back into a tree for the dashboard's viewer.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cognivault.study.citations import cite, link, parse_citations
from cognivault.study.common import (
    Composed,
    Draft,
    GeneratorSpec,
    Progress,
    model_items,
    prompt_values,
    study_folder,
    unreadable,
)
from cognivault.study.extract import Fact, all_facts, bare_name, blocks_of, plain
from cognivault.study.jsonparse import JSONParseError
from cognivault.study.list_wording import when
from cognivault.study.sources import Source, SourceSet, StudyRequest
from cognivault.vault.markdown import body_of, read_frontmatter

if TYPE_CHECKING:
    from cognivault.models.chat import ChatProvider

DEFAULT_BRANCHES = 6
MAX_BRANCHES = 12
MAX_CHILDREN = 6
MAX_DEPTH = 3
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"central": {"type": "string"}, "branches": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
    "required": ["central", "branches"],
    "$defs": {"node": {"type": "object", "properties": {
        "label": {"type": "string"}, "source": {"type": "integer"},
        "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}, "required": ["label"]}},
}
_MERMAID_UNSAFE = re.compile(r"[()\[\]{}\"`<>]|::")
# Mermaid decodes its entity codes (#35;, #quot;) in labels, and its mindmap lexer reads a node line that
# starts with %% as a comment (the node vanishes) and one that starts with "mindmap" as the keyword (a parse
# error). Such text is written with entity codes, which Mermaid shows as the characters they stand for.
_MERMAID_ENTITY = re.compile(r"#(?=\w+;)")
_MERMAID_NODE_START = re.compile(r"%%|mindmap\b", re.IGNORECASE)


@dataclass(slots=True)
class Node:
    label: str
    source: Source | None
    children: list[Node] = field(default_factory=list)
    target: str | None = None  # when read back: the linked note
    heading: str | None = None
    chunk_id: str | None = None

    def count(self) -> int:
        return 1 + sum(child.count() for child in self.children)

    def to_dict(self) -> dict[str, Any]:
        return {"label": self.label, "target": self.target or (self.source.path if self.source else None),
                "heading": self.heading, "chunk_id": self.chunk_id or (self.source.chunk_id if self.source else None),
                "children": [child.to_dict() for child in self.children]}


def _label(value: Any, limit: int = 80) -> str:
    if not isinstance(value, str):
        return ""
    text = " ".join(value.replace("\n", " ").split()).strip(" -*#")
    return text[:limit].rstrip()


def check_node(raw: Any, sources: SourceSet, inherited: Source | None, depth: int) -> tuple[Node | None, int]:
    """A validated node (children checked recursively) and how many nodes below it were dropped."""
    if not isinstance(raw, dict):
        return None, 1
    label = _label(raw.get("label"))
    if not label:
        return None, 1
    source = sources.by_number(raw.get("source")) or inherited
    if source is None:
        return None, 1
    node = Node(label, source)
    dropped = 0
    children = raw.get("children") or []
    if depth < MAX_DEPTH and isinstance(children, list):
        for child_raw in children:
            child, child_dropped = check_node(child_raw, sources, source, depth + 1)
            dropped += child_dropped
            if child is not None:
                if len(node.children) < MAX_CHILDREN:
                    node.children.append(child)
                else:
                    dropped += child.count()
    elif isinstance(children, list):
        dropped += len(children)
    return node, dropped


LEAVES = 3  # key terms under one heading
LEAF_CHARS = 60


def _shown(text: str) -> str:
    return plain(text).replace("`", "").casefold()


def _occurrences(passages: list[Source]) -> tuple[dict[tuple[str, str], int], dict[tuple[str, int], Source]]:
    """Which occurrence of its heading's text each passage's sections are (the note's 2nd "Example" is 2), and the
    passage each occurrence starts in: sections that share a title keep their own key terms and links. A passage
    that continues a long section is the same occurrence as the passage before it."""
    seen: Counter[str] = Counter()
    occurrence: dict[tuple[str, str], int] = {}
    starts: dict[tuple[str, int], Source] = {}
    for source in passages:
        blocks = blocks_of(source)
        opening = _shown(blocks[0].heading) if blocks and blocks[0].kind != "heading" else ""
        headings = [_shown(b.heading) for b in blocks if b.kind == "heading"]
        if opening and source.continues_section and seen[opening]:
            occurrence[(source.chunk_id, opening)] = seen[opening]
        elif opening:
            headings.insert(0, opening)
        for text in headings:
            seen[text] += 1
            occurrence[(source.chunk_id, text)] = seen[text]
            starts.setdefault((text, seen[text]), source)
    return occurrence, starts


def _shortened(text: str, limit: int = LEAF_CHARS) -> str:
    """``text`` cut at a word to ``limit`` characters, "…" saying so."""
    if len(text) <= limit:
        return text
    cut = text[:limit - 1].rsplit(" ", 1)[0]
    if cut.count("(") > cut.count(")"):  # not half a remark: "goods (substitutes and…"
        cut = cut[:cut.rindex("(")]
    return cut.rstrip(" ,;:") + "…"


def _leaf_labels(fact: Fact, found: list[Node]) -> list[str]:
    """What a fact puts under its heading: its term; a date with what happened then ("1769" alone says nothing); a
    section's plain list its items, when no term of the section is on the map (a list of terms gives its terms)."""
    if fact.kind == "heading":
        return [] if found else [_shortened(plain(item)) for item in fact.list_items]
    term = plain(fact.term)
    if fact.kind == "item" and when(term, fact.german) is not None:
        return [_shortened(f"{term}: {plain(fact.definition).rstrip('.')}")]
    return [_label(term, LEAF_CHARS)]


def _note_tree(title: str, outline: list[tuple[int, str]], passages: list[Source], facts: list[Fact]) -> list[Node]:
    """The note's heading tree over the passages (its title heading left out), each heading with its key terms
    as leaves: the terms of that very section (the n-th heading of a text holds the n-th such section's)."""
    occurrence, starts = _occurrences(passages)

    def source_for(heading: str, number: int) -> Source:
        return starts.get((_shown(heading), number)) \
            or next((s for s in passages if heading in s.heading_path), None) \
            or next((s for s in passages if re.search(rf"(?m)^#+\s+{re.escape(heading)}\s*$", s.text)), passages[0])

    def leaves(context: str, number: int, taken: set[str]) -> list[Node]:
        found: list[Node] = []
        for fact in facts:
            if fact.kind in ("faq", "step", "code", "example") or _shown(fact.context) != context \
                    or (context and occurrence.get((fact.source.chunk_id, context), 1) != number):
                continue
            for label in _leaf_labels(fact, found):
                if not label or bare_name(label) in taken:
                    continue
                taken.add(bare_name(label))
                found.append(Node(label, fact.source))
                if len(found) >= LEAVES:
                    return found
        return found

    # the headings of the passages studied: the whole tree for a note, a selection's part of it
    present = {_shown(h) for s in passages for h in s.heading_path} \
        | {_shown(b.heading) for s in passages for b in blocks_of(s) if b.kind == "heading"}
    headings = [(level, text) for level, text in outline if text.strip() and _shown(text) in present]
    if headings and headings[0][0] == 1 and headings[0][1].casefold() == title.casefold():
        headings = headings[1:]
    taken = {bare_name(title)} | {bare_name(text) for _, text in headings}
    top: list[Node] = leaves("", 0, taken)
    stack: list[tuple[int, Node]] = []
    numbers: Counter[str] = Counter()
    for level, text in headings:
        numbers[_shown(text)] += 1
        node = Node(_label(text), source_for(text, numbers[_shown(text)]), heading=text)
        while stack and stack[-1][0] >= level:
            stack.pop()
        (stack[-1][1].children if stack else top).append(node)
        stack.append((level, node))
        node.children.extend(leaves(_shown(text), numbers[_shown(text)], taken))
    return top


def extractive_map(sources: SourceSet, branches: int) -> Node:
    """Root = the note (or the scope, a branch per note); below it each note's heading tree with key terms.

    The offline map follows the notes' structure, so every heading is on it; ``branches`` limits the notes of
    a scope, never a note's sections."""
    material = sources.material
    notes: dict[str, list[Source]] = {}
    for source in material:
        notes.setdefault(source.path, []).append(source)
    facts = all_facts(material, sources.language, placed=False)  # each heading of the tree holds its own facts

    def tree(path: str, passages: list[Source]) -> list[Node]:
        return _note_tree(passages[0].title, sources.outlines.get(path, []), passages,
                          [f for f in facts if f.source.path == path])

    if len(notes) == 1:
        path, passages = next(iter(notes.items()))
        root = Node(sources.title, passages[0], heading="")
        root.children = tree(path, passages)
        return root
    named = [s for s in material if s.title.casefold() == sources.title.casefold()]
    root = Node(sources.title, named[0] if named else None, heading="")
    for path, passages in list(notes.items())[:branches]:
        branch = Node(passages[0].title, passages[0], heading="")
        branch.children = tree(path, passages)
        root.children.append(branch)
    return root


def _mermaid_label(text: str) -> str:
    label = _MERMAID_ENTITY.sub("#35;", " ".join(_MERMAID_UNSAFE.sub(" ", text).split()) or "…")
    if _MERMAID_NODE_START.match(label):
        label = f"#{ord(label[0])};{label[1:]}"
    return label


def render_mermaid(root: Node) -> str:
    lines = ["```mermaid", "mindmap", f"  root(({_mermaid_label(root.label)}))"]

    def walk(node: Node, depth: int) -> None:
        for child in node.children:
            lines.append("  " * (depth + 1) + _mermaid_label(child.label))
            walk(child, depth + 1)

    walk(root, 1)
    lines.append("```")
    return "\n".join(lines)


def render_outline(root: Node) -> str:
    lines: list[str] = []

    def item(node: Node, depth: int) -> None:
        if node.source is None:
            text = f"**{node.label}**"
        else:
            text = cite(node.source, node.label, heading=node.heading)
        lines.append("  " * depth + f"- {text}")
        for child in node.children:
            item(child, depth + 1)

    item(root, 0)
    return "\n".join(lines)


def render_body(title: str, root: Node, sources: SourceSet) -> str:
    german = sources.language == "de"
    origin = ", ".join(link(p) for p in dict.fromkeys(s.path for s in sources.sources))
    intro = (f"Mindmap aus {origin}. Jeder Knoten der Gliederung verweist auf seine Quelle; das Dashboard zeigt "
             "die Karte interaktiv." if german else
             f"Mind map of {origin}. Every node in the outline links to its source; the dashboard shows the map "
             "interactively.")
    outline = "Gliederung" if german else "Outline"
    return f"# {title}\n\n{intro}\n\n{render_mermaid(root)}\n\n## {outline}\n\n{render_outline(root)}\n"


_ITEM_RE = re.compile(r"^(?P<indent>\s*)[-*]\s+(?P<text>.+)$")


def parse_mindmap(text: str) -> dict[str, Any]:
    """The tree in a mind-map note's outline: ``{"title", "root": {label, target, heading, chunk_id, children}}``."""
    frontmatter = read_frontmatter(text)
    body = body_of(text)
    lines = body.split("\n")
    start = next((i for i, line in enumerate(lines) if re.match(r"^##\s+(Outline|Gliederung)\s*$", line)), None)
    roots: list[Node] = []
    stack: list[tuple[int, Node]] = []
    if start is not None:
        for line in lines[start + 1:]:
            if line.startswith("#"):
                break
            match = _ITEM_RE.match(line)
            if not match:
                continue
            depth = len(match["indent"].replace("\t", "  ")) // 2
            citation = next(iter(parse_citations(match["text"])), None)
            if citation:
                node = Node(citation.label or citation.heading or citation.target, None,
                            target=citation.target, heading=citation.heading, chunk_id=citation.chunk_id)
            else:
                node = Node(match["text"].strip(), None)
            while stack and stack[-1][0] >= depth:
                stack.pop()
            if stack:
                stack[-1][1].children.append(node)
            else:
                roots.append(node)
            stack.append((depth, node))
    root = roots[0] if len(roots) == 1 else Node(str(frontmatter.get("title") or "Mind map"), None, roots)
    return {"title": frontmatter.get("title") or root.label, "root": root.to_dict()}


async def _from_model(provider: ChatProvider, vault: Path, sources: SourceSet, branches: int,
                      progress: Progress) -> Draft[Node]:
    try:
        parsed, raw_branches = await model_items(provider, vault, "mindmap", prompt_values(sources, branches), SCHEMA,
                                                 ("branches", "children", "nodes"), max_tokens=1800)
    except JSONParseError as exc:
        raise unreadable("mind map", exc) from exc
    central = _label(parsed.get("central")) if isinstance(parsed, dict) else ""
    root = Node(central or sources.title, sources.sources[0])
    dropped = cut = 0
    for raw in raw_branches:
        node, below = check_node(raw, sources, None, 1)
        dropped += below
        if node is None:
            continue
        if len(root.children) < branches:
            root.children.append(node)
        else:
            cut += 1
    return Draft(root.children, dropped, cut, root)


def _extract(sources: SourceSet, branches: int) -> Draft[Node]:
    root = extractive_map(sources, branches)
    return Draft(root.children, data=root)


def _compose(engine: Any, request: StudyRequest, sources: SourceSet, draft: Draft[Node], branches: int) -> Composed:
    root: Node = draft.data
    title = f"Mind map - {sources.title}" if sources.language != "de" else f"Mindmap - {sources.title}"
    used_ids: dict[str, Source] = {}

    def collect(node: Node) -> None:
        if node.source is not None:
            used_ids.setdefault(node.source.chunk_id, node.source)
        for child in node.children:
            collect(child)

    collect(root)
    return Composed(title, render_body(title, root, sources), sorted(used_ids.values(), key=lambda s: s.number),
                    study_folder(engine.vault, engine.settings), extra={"nodes": root.count()})


MINDMAP = GeneratorSpec(
    kind="mindmap", default_count=DEFAULT_BRANCHES, max_count=MAX_BRANCHES, extract=_extract,
    extract_message=lambda sources, branches: "building the map from headings and key phrases",
    from_model=_from_model, model_request="a map with {count} branches", compose=_compose,
    nothing="mind-map branches", malformed="nodes")
generate_mindmap = MINDMAP.run
