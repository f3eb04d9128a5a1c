"""Generated study notes rank below their sources: search keeps them under the notes they were made
from, related notes leave them out, ``study:only`` searches just them."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from cognivault.engine import Engine
from cognivault.index.generated import GeneratedNotes, is_generated, source_targets
from cognivault.index.scope import Scope, ScopeError

SOURCE = ("# Photosynthesis\n\nPlants turn light into chemical energy. The light reactions split water "
          "in the thylakoid membranes; the Calvin cycle fixes carbon dioxide in the stroma.\n")
OTHER = "# Cells\n\nCells hold chloroplasts, where photosynthesis happens. See [[Photosynthesis]].\n"
# A generated deck repeats its source's words, more densely than the source itself.
DECK = ("---\ncognivault: 1\ntype: flashcards\ntitle: Flashcards - Photosynthesis\n"
        "source_notes:\n  - \"[[Photosynthesis]]\"\n---\n# Flashcards - Photosynthesis\n\n"
        "Photosynthesis light reactions? :: thylakoid membranes, light reactions split water\n"
        "Photosynthesis Calvin cycle? :: stroma, Calvin cycle fixes carbon dioxide, photosynthesis\n")
LOOSE = "# Light quiz\n\nLight reactions, thylakoid, photosynthesis, light, light.\n"  # in the study folder


@pytest.fixture
def engine(indexed_notes: Callable[[dict[str, str]], Engine]) -> Engine:
    return indexed_notes({"Photosynthesis.md": SOURCE, "Cells.md": OTHER,
                          "Study/Flashcards - Photosynthesis.md": DECK, "Study/Light quiz.md": LOOSE})


def test_generated_notes_and_their_sources_are_known(engine: Engine) -> None:
    generated = engine.generated_notes()
    assert generated.paths == {"Study/Flashcards - Photosynthesis.md", "Study/Light quiz.md"}
    assert generated.sources["Study/Flashcards - Photosynthesis.md"] == {"Photosynthesis.md"}
    assert generated.sources["Study/Light quiz.md"] == frozenset()


def test_search_keeps_a_generated_note_below_its_source(engine: Engine) -> None:
    for query in ("photosynthesis light reactions thylakoid", "Calvin cycle stroma photosynthesis"):
        paths = [r.path for r in engine.search(query, k=10, mode="lexical", per_note=True).results]
        assert "Study/Flashcards - Photosynthesis.md" in paths  # kept in search
        assert paths.index("Photosynthesis.md") < paths.index("Study/Flashcards - Photosynthesis.md")
        passages = [r.path for r in engine.search(query, k=20, mode="lexical").results]
        assert passages.index("Photosynthesis.md") < passages.index("Study/Flashcards - Photosynthesis.md")


def test_related_notes_leave_generated_notes_out(engine: Engine) -> None:
    related = {note.path for note in engine.related("Photosynthesis.md")}
    assert related == {"Cells.md"}
    with_generated = {note.path for note in engine.related("Photosynthesis.md", include_generated=True)}
    assert with_generated == {"Cells.md", "Study/Flashcards - Photosynthesis.md", "Study/Light quiz.md"}


def test_study_scope_searches_only_generated_notes(engine: Engine) -> None:
    only = engine.search("photosynthesis light", k=10, scope=Scope.parse(["study:only"]), per_note=True)
    assert {r.path for r in only.results} == {"Study/Flashcards - Photosynthesis.md", "Study/Light quiz.md"}
    without = engine.search("photosynthesis light", k=10, scope=Scope.from_dict({"study": "exclude"}),
                            per_note=True)
    assert {r.path for r in without.results} == {"Photosynthesis.md", "Cells.md"}
    # Without the engine's list, the scope knows generated notes by their frontmatter.
    catalog = engine.store.reader()
    assert Scope.parse(["study:only"]).resolve(catalog, ["Cells.md", "Study/Flashcards - Photosynthesis.md"]) \
        == {"Study/Flashcards - Photosynthesis.md"}


@pytest.mark.parametrize("bad", ["study:maybe", "study:"])
def test_study_scope_values_are_checked(bad: str) -> None:
    with pytest.raises(ScopeError, match="scope"):
        Scope.parse([bad])


def test_frontmatter_and_folder_mark_generated_notes() -> None:
    assert is_generated("Notes/Deck.md", {"cognivault": 1}, "Study")
    assert is_generated("Study/Mine.md", {}, "Study/")
    assert not is_generated("Studying.md", {}, "Study")
    assert not is_generated("Study/Mine.md", {}, "")
    assert source_targets({"source_notes": ["[[Cells#Membrane]]", "[[Bio/Enzymes|Enzymes]]", "Plain", 3]}) \
        == ["Cells", "Bio/Enzymes", "Plain"]


def test_below_sources_moves_only_what_ranks_above_a_source() -> None:
    generated = GeneratedNotes({"G": frozenset({"A", "B"}), "H": frozenset({"G"}), "K": frozenset({"Z"})})
    ranked = ["G", "K", "A", "X", "H", "B", "G", "Y"]
    assert generated.below_sources(ranked, lambda p: p) == ["K", "A", "X", "B", "G", "H", "G", "Y"]
    assert generated.below_sources(["A", "G", "B"], lambda p: p) == ["A", "B", "G"]
    assert GeneratedNotes().below_sources(ranked, lambda p: p) == ranked
    cycle = GeneratedNotes({"P": frozenset({"Q"}), "Q": frozenset({"P"})})
    assert sorted(cycle.below_sources(["P", "Q", "R"], lambda p: p)) == ["P", "Q", "R"]


def test_one_passage_each_keeps_a_generated_note_from_crowding_the_users_notes() -> None:
    generated = GeneratedNotes({"G": frozenset({"A"}), "L": frozenset()})
    ranked = ["A", "G", "G", "L", "G", "B", "L", "C", "G"]
    assert generated.one_passage_each(ranked, lambda p: p) == ["A", "G", "L", "B", "C", "G", "G", "L", "G"]
    assert generated.one_passage_each(["G", "G", "L"], lambda p: p) == ["G", "G", "L"]  # study:only
    assert GeneratedNotes().one_passage_each(ranked, lambda p: p) == ranked


QUIZ = ("---\ncognivault: 1\ntype: quiz\ntitle: Quiz - Pigments\nsource_notes:\n  - \"[[Pigments]]\"\n---\n"
        "# Quiz - Pigments\n\n"
        + "".join(f"## Question {n}\n\nWhich pigment absorbs blue-green light, carotenoids or chlorophyll "
                  f"({n})?\n\n- A) carotenoids\n- B) chlorophyll\n\n" for n in range(1, 5)))
PIGMENTS = ("# Pigments\n\n## Carotenoids\n\nCarotenoids absorb blue-green light and pass it on.\n\n"
            "## Chlorophyll\n\nChlorophyll absorbs red and blue light, and carotenoids protect it.\n")
AUTUMN = "# Autumn leaves\n\nIn autumn chlorophyll breaks down and the carotenoids show.\n"


def test_a_quiz_shows_once_among_the_users_passages(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    engine = indexed_notes({"Pigments.md": PIGMENTS, "Autumn leaves.md": AUTUMN, "Study/Quiz - Pigments.md": QUIZ})
    paths = [r.path for r in engine.search("carotenoids", k=10, mode="lexical").results]
    assert paths.count("Study/Quiz - Pigments.md") == 4  # kept, all of it
    last_own = max(i for i, path in enumerate(paths) if not path.startswith("Study/"))
    assert paths[:last_own + 1].count("Study/Quiz - Pigments.md") == 1, paths
    only = [r.path for r in engine.search("carotenoids", k=10, scope=Scope.parse(["study:only"])).results]
    assert only == ["Study/Quiz - Pigments.md"] * 4
