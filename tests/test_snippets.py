"""Search-result snippets read like the note: no Markdown marks, the heading path left to the title,
the window opening at a sentence, the passage as written when the query looks for syntax."""

from __future__ import annotations

import re
from collections.abc import Callable

from cognivault.engine import Engine
from cognivault.index.analysis import Analyzer
from cognivault.index.snippets import make_snippet
from cognivault.vault.markdown import reading_text

PASSAGE = """# Pigments

## Carotenoids

**Carotenoids** absorb blue-green light and pass it on to [[Chlorophyll|chlorophyll a]]. They
protect the *photosystems* by getting rid of excess energy as heat. ^carotenoid-role

### In autumn

- When chlorophyll is broken down, their ==yellow== colours become visible <br> %%check this%%
- See [[Leaves#Autumn colours]], [[Photosynthesis#^oxygen-source]] and [[#^carotenoid-role]].

> [!tip]- Remember
> Orange carrots owe their colour to **carotenes
> and xanthophylls**.

Embed the chart with `![[Spectrum.png]]`.

```python
colours = ["**not bold**", "[[not a link]]"]
```
"""


def test_a_passage_reads_as_a_reader_sees_it() -> None:
    text = reading_text(PASSAGE, ["Pigments", "Carotenoids"])
    assert text == (
        "Carotenoids absorb blue-green light and pass it on to chlorophyll a. They protect the "
        "photosystems by getting rid of excess energy as heat. In autumn: When chlorophyll is broken "
        "down, their yellow colours become visible See Leaves > Autumn colours, Photosynthesis and "
        "^carotenoid-role. Remember: Orange carrots owe their colour to "
        'carotenes and xanthophylls. Embed the chart with `![[Spectrum.png]]`. '
        '`colours = ["**not bold**", "[[not a link]]"]`')
    # A heading that is not in the result's heading path is kept, as a label.
    assert reading_text("## Carotenoids\n\nThey absorb light.", []) == "Carotenoids: They absorb light."


def test_a_snippet_shows_no_markdown_and_marks_the_query_words() -> None:
    analyzer = Analyzer()
    terms = set(analyzer.terms(["carotenes"], "en"))
    snippet = make_snippet(PASSAGE, terms, analyzer, "en", markdown_headings=["Pigments", "Carotenoids"])
    for mark in ("**", "[[", "^carotenoid", "##", "%%", "<br>", "[!tip]", "=="):
        assert mark not in re.sub(r"`[^`]*`", "", snippet.text)  # code shows as written, between backticks
    assert [snippet.text[start:end] for start, end in snippet.highlights] == ["carotenes"]


def test_a_query_for_markdown_syntax_sees_the_passage_as_written() -> None:
    analyzer = Analyzer()
    terms = set(analyzer.terms(["%%"], "en"))
    assert terms == {"%%"}
    snippet = make_snippet(PASSAGE, terms, analyzer, "en", markdown_headings=["Pigments", "Carotenoids"])
    assert "%%check this%%" in snippet.text
    assert [snippet.text[start:end] for start, end in snippet.highlights] == ["%%", "%%"]


def test_a_cut_snippet_opens_at_the_sentence_of_its_best_match() -> None:
    analyzer = Analyzer()
    sentences = ["Leaves are green because chlorophyll reflects green light and absorbs the rest."] + [
        f"Sentence {n} about something else entirely, with enough words to fill the window." for n in range(6)] + [
        "Carotenoids (carotenes and xanthophylls) absorb blue-green light and pass it on to chlorophyll."]
    text = " ".join(sentences)
    snippet = make_snippet(text, set(analyzer.terms(["chlorophyll", "xanthophylls"], "en")), analyzer, "en")
    assert snippet.text.startswith("…Carotenoids (carotenes"), snippet.text
    start, end = snippet.highlights[0]
    assert snippet.text[start:end] == "xanthophylls"


def test_search_results_of_notes_read_plainly_and_attachments_stay_as_extracted(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    engine = indexed_notes({"Pigments.md": PASSAGE,
                            "formula.txt": "Carotenoids: 2 * carotenes ** 2 # not a heading\n"})
    results = engine.search("carotenoids absorb blue-green light", k=5, mode="lexical").results
    note = next(r for r in results if r.path == "Pigments.md")
    assert note.snippet.startswith("Carotenoids absorb blue-green light and pass it on to chlorophyll a.")
    assert note.snippet[note.highlights[0][0]:note.highlights[0][1]] == "Carotenoids"
    extracted = [r for r in results if r.path == "formula.txt"]
    assert all("**" in r.snippet for r in extracted)


def test_a_first_passage_opens_with_the_note_not_its_aliases(indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    # The aliases are indexed with the first passage (a note is found by them) but are no text of the note.
    engine = indexed_notes({"Home.md": "---\naliases: [Start, Overview]\n---\nThis vault is a study topic on how "
                                       "plants turn light into chemical energy.\n",
                            "Photosynthesis.md": "---\naliases: Photosynthesis overview\ndescription: How plants make "
                                                 "sugar.\n---\nPhotosynthesis turns light into chemical energy.\n"})
    snippets = {r.path: r.snippet for r in engine.search("light chemical energy", k=5, mode="lexical").results}
    assert snippets["Home.md"].startswith("This vault is a study topic")
    assert snippets["Photosynthesis.md"].startswith("How plants make sugar. Photosynthesis turns light")
