"""workspace/symbol's name search over all names joined once per snapshot finds what a scan of every name finds."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st


@settings(max_examples=200, deadline=None)
@given(names=st.lists(st.text(alphabet="abcé \n-", max_size=8), max_size=30),
       wanted=st.text(alphabet="abcé -", min_size=1, max_size=3))
def test_the_joined_name_search_finds_what_a_scan_of_every_name_finds(names: list[str], wanted: str) -> None:
    from types import SimpleNamespace

    from cognivault.graph import Snapshot
    from cognivault.lsp.workspace_symbols import _containing

    entries = sorted((name, f"note{n}.md", -1, 1.0) for n, name in enumerate(names))
    ctx = SimpleNamespace(view=SimpleNamespace(snapshot=Snapshot.empty()))
    expected = [e for e in entries if wanted in e[0].replace("\n", " ")]
    assert _containing(ctx, entries, wanted) == expected  # type: ignore[arg-type]
