"""Wikilink resolution: a resolver derived for a few changed notes resolves exactly as one built anew."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from cognivault.vault.links import LinkResolver

NAMES = st.sampled_from(["a", "b", "Note", "note", "c d", "Über"])
PATHS = st.lists(st.builds(lambda folder, name, ext: f"{folder}{name}{ext}",
                           st.sampled_from(["", "x/", "x/y/", "y/"]), NAMES, st.sampled_from([".md", ".md", ".png"])),
                 max_size=12, unique=True)
ALIASES = st.lists(st.sampled_from(["a", "B", "note", "Alias", "c d"]), max_size=3)


def test_a_resolver_finds_notes_by_path_suffix_name_and_alias() -> None:
    resolver = LinkResolver(["x/Note.md", "y/Note.md", "x/y/Other.md", "pic.png"], {"x/y/Other.md": ["Alias"]})
    assert resolver.resolve("Note", "x/Start.md") == "x/Note.md"  # the closest of two
    assert resolver.resolve("y/Note") == "y/Note.md"
    assert resolver.resolve("alias") == "x/y/Other.md"
    assert resolver.resolve("pic.png") == "pic.png"
    assert resolver.resolve("missing") is None


@settings(max_examples=300, deadline=None)
@given(paths=PATHS, data=st.data())
def test_with_notes_resolves_as_a_resolver_built_anew(paths: list[str], data: st.DataObject) -> None:
    notes = [p for p in paths if p.endswith(".md")]
    aliases = {p: data.draw(ALIASES) for p in notes}
    changed_paths = data.draw(st.lists(st.sampled_from([*notes, "z/New.md", "Fresh.md"]), unique=True, max_size=4))
    changes = {p: data.draw(ALIASES) for p in changed_paths}
    base = LinkResolver(paths, aliases)
    derived = base.with_notes(changes, {p: aliases[p] for p in changes if p in aliases})
    rebuilt = LinkResolver({*paths, *changes}, {**aliases, **changes})
    targets = ["a", "b", "note", "Note.md", "x/note", "y/note", "alias", "c d", "B", "new", "fresh", "über", "pic"]
    for source in [None, *notes, "x/y/Deep.md"]:
        for target in targets:
            assert derived.resolve(target, source) == rebuilt.resolve(target, source), (target, source)
    # the resolver it came from is left as it was
    original = LinkResolver(paths, aliases)
    for target in targets:
        assert base.resolve(target, "x/Start.md") == original.resolve(target, "x/Start.md")
