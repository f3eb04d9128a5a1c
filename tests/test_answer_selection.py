"""Which passages a passage answer draws on and which of their blocks it quotes (issue 17 classes of misses).

Each test pins one class of failure the extractive answerer had on the help vault: a note's other
passages in the pack count for each of its passages, a link alone is no answer, what follows a chosen
block under its heading completes it, a code span's backticks do not double a symbol run, the passage
after the best one enters the pack, and a cached answer never outlives the code that wrote it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from answer_support import make_vault
from cognivault.answer import cache
from cognivault.answer.evidence import FALLBACK_ANALYZER, Evidence, question_concepts, text_terms, unknown_words
from cognivault.answer.extractive import choose_units, units_of
from cognivault.answer.retrieval import build_pack
from cognivault.engine import Engine


def passage(label: str, path: str, text: str, heading: str = "") -> Evidence:
    return Evidence(label, label, path, Path(path).stem, [heading] if heading else [], 1, 3, "", text, "", 0.0,
                    lang="en", terms=text_terms(FALLBACK_ANALYZER, f"{heading}\n{text}", "en"))


def stems(words: str) -> list[str]:
    return sorted(text_terms(FALLBACK_ANALYZER, words, "en"))


def test_a_passage_is_judged_with_the_other_passages_of_its_note() -> None:
    # The gallery passage and the importer's first passage say as much of the question; the importer's
    # note also covers the rest of it (moving journal entries), so the importer's passage answers.
    gallery = passage("S1", "Gallery.md", "Photos of the import screen are shown in the gallery.")
    importer = passage("S2", "Help.md", "Photos are not imported: the importer ignores them.")
    moving = passage("S3", "Help.md", "Move your journal entries to Markdown files in one go.")
    terms = stems("photos import journal move")
    chosen = choose_units([gallery, importer, moving], terms, {t: 1.0 for t in terms}, FALLBACK_ANALYZER,
                          "Are the photos kept when I import and move my journal?")
    assert chosen[0].label == "S2"


def test_a_link_alone_is_not_quoted_as_an_answer() -> None:
    item = passage("S1", "Variables.md", "There are two types of variables you can use:\n\n"
                   "- [[Variables#Prompt variables|Prompt variables]]\n"
                   "- [[Variables#Preset variables|Preset variables]]")
    units = units_of(item, 0)
    assert not [unit for unit in units if unit.kind == "item"]  # "Prompt variables" alone says nothing
    assert [unit.kind for unit in units if "Prompt variables" in unit.text] == ["list"]  # the whole list may


def test_the_block_after_each_chosen_block_completes_it() -> None:
    steps = passage("S1", "Quick action.md", "1. Open the settings.\n2. Choose the command to run.\n\n"
                    "When you now pull down from the top of the screen, the quick action runs.", "Customize")
    about = passage("S2", "Mobile.md", "On mobile you can define an action that runs when you pull down from "
                    "the top of the screen.\n\nBy default the quick action opens the command palette.", "Quick action")
    terms = stems("pull down top screen")
    chosen = choose_units([steps, about], terms, {t: 1.0 for t in terms}, FALLBACK_ANALYZER,
                          "What happens when I pull down from the top of the screen?")
    assert chosen[0].label == "S1"  # the best block, then the other note's, each with what follows it
    assert any("command palette" in unit.text for unit in chosen)


def test_a_code_spans_backticks_do_not_make_a_symbol_run_two_concepts(tmp_path: Path) -> None:
    vault, settings = make_vault(tmp_path, {"Bear.md": "# Bear\n\nConverts `::highlight::` to `==highlight==`.\n"})
    with Engine(vault, settings, embedder=None, writable=False) as engine:
        concepts = question_concepts(engine, "How do I turn Bear's `::highlight::` markup into highlights?", "en")
    symbols = [c.key for c in concepts if not any(ch.isalnum() for ch in c.key)]
    assert len(symbols) == 1


GIFT_NOTES = {
    "Credit.md": """# Credit

## Gifting

You can give a present of credit to a friend for their first year. Credit pays for any add-on service,
and whoever gets it chooses what to spend it on.

## Send it

Open Billing and choose Send credit, then share the redeem link with whoever gets it. The link works
once and stays valid for a year after you send it.
""",
    "Presents.md": """# Presents

A present for a friend can be a year of reading.
""",
}


@pytest.fixture(scope="module")
def gift_engine(tmp_path_factory: pytest.TempPathFactory) -> Any:
    vault, settings = make_vault(tmp_path_factory.mktemp("gifts"), GIFT_NOTES)
    with Engine(vault, settings, embedder=None, writable=False) as opened:
        yield opened


def test_the_passage_after_the_best_one_is_in_the_pack(gift_engine: Any) -> None:
    pack, _ = build_pack(gift_engine, "How do I give a present to a friend?")
    assert pack.items[0].heading_path[-1:] == ["Gifting"]
    assert pack.items[1].heading_path[-1:] == ["Send it"]  # no word of the question, but it says how
    assert "Send credit" in pack.all_text()


def test_a_cached_answer_is_keyed_on_the_answering_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "answer"
    package.mkdir()
    (package / "extractive.py").write_text("BUDGET = 700\n", "utf-8")
    before = cache.source_digest(package)
    (package / "extractive.py").write_text("BUDGET = 900\n", "utf-8")
    assert cache.source_digest(package) != before
    # the note reader and the analyzer decide what an answer quotes too: the whole package keys it
    assert cache.ANSWER_CODE == cache.source_digest(Path(cache.__file__).resolve().parent.parent)
    key = cache.cache_key("How do I embed a note?", None, "", 3, "extractive", "extractive")
    monkeypatch.setattr(cache, "ANSWER_CODE", "another build of the answerer")
    assert cache.cache_key("How do I embed a note?", None, "", 3, "extractive", "extractive") != key


@pytest.mark.parametrize("code", [
    "```python\nconn, addr = server.accept()  # blocks until the handshake is done\n```",
    "```js\n// the handshake is done here\nconst socket = await server.accept();\n```",
])
def test_a_code_block_sharing_a_word_only_in_a_comment_does_not_lead(code: str) -> None:
    # "TCP handshake": the echo server's comment says "handshake"; the steps of the handshake answer.
    item = passage("S1", "Sockets.md", f"A TCP server in code:\n\n{code}\n\n"
                   "The TCP handshake: the client sends SYN, the server SYN-ACK, the client ACK.")
    terms = stems("tcp handshake")
    chosen = choose_units([item], terms, {t: 1.0 for t in terms}, FALLBACK_ANALYZER, "TCP handshake")
    assert "SYN-ACK" in chosen[0].text



@pytest.mark.parametrize("start", ["  - monsoon dry, blows from land to sea", "  1. the monsoon turns, the dry season"])
def test_a_passage_beginning_inside_a_list_item_quotes_whole_items_first(start: str) -> None:
    # Chunks overlap: a passage may begin in the nested lines of an item whose first line is in the passage before.
    item = passage("S1", "Climate.md", f"the continent\n{start}\n- Monsoon: a wind that turns every half year\n"
                   "- other monsoon regions: West Africa, East Asia")
    terms = stems("monsoon")
    chosen = choose_units([item], terms, {t: 1.0 for t in terms}, FALLBACK_ANALYZER, "Monsoon")
    assert chosen and not [unit for unit in chosen if start.strip() in unit.text]


def test_the_rest_of_a_cut_item_is_quoted_where_nothing_else_answers() -> None:
    item = passage("S1", "Painting.md", "Rome, papal patronage\n  - Leonardo\n    - *Mona Lisa* → sfumato = soft "
                   "transitions without hard outlines\n- **Mannerism**: elongated figures, unnatural colours")
    terms = stems("sfumato")
    chosen = choose_units([item], terms, {t: 1.0 for t in terms}, FALLBACK_ANALYZER, "sfumato")
    assert "soft transitions" in chosen[0].text


def test_the_end_of_a_cut_items_first_line_is_no_neighbour() -> None:
    item = passage("S1", "Painting.md", "– Rome, papal patronage and large commissions\n  - Leonardo\n"
                   "    - *Mona Lisa* → sfumato = soft transitions without hard outlines\n"
                   "- **Mannerism**: elongated figures")
    terms = stems("sfumato")
    chosen = choose_units([item], terms, {t: 1.0 for t in terms}, FALLBACK_ANALYZER, "sfumato")
    assert chosen and not [unit for unit in chosen if "Rome" in unit.text]


@pytest.mark.parametrize(("question", "quoted"), [
    ("What does 'Soll an Haben' mean when you write a booking entry?", {"soll", "haben"}),
    ("Wer hat gesagt: „Ich bin ein Berliner“?", {"ich", "bin", "ein"}),
])
def test_the_words_a_question_quotes_are_asked_about_though_stopwords(tmp_path: Path, question: str,
                                                                      quoted: set[str]) -> None:
    notes = {"Buchung.md": "# Buchungssätze\n\nGrundregel: **Soll an Haben** – zuerst das Soll-Konto, dann das "
             "Haben-Konto.\n", "Rede.md": "# Rede\n\nKennedy sagte 1963: „Ich bin ein Berliner“.\n"}
    vault, settings = make_vault(tmp_path, notes)
    with Engine(vault, settings, embedder=None, writable=False) as engine:
        lang = "en" if question.startswith("What") else "de"
        concepts = question_concepts(engine, question, lang)
        unknown = unknown_words(engine, concepts, {}, lang)
    assert quoted <= {concept.word for concept in concepts}
    # the index keeps no stopword, so it cannot tell the vault never says them: they make no question off-topic
    if lang == "de":
        assert unknown.share == 0.0


@pytest.mark.parametrize(("question", "lang", "frame"), [
    ("What is an example of photosynthesis?", "en", "example"),
    ("Was heißt Photosynthese auf Spanisch?", "de", "spanisch"),
])
def test_a_word_framing_the_question_is_never_what_the_vault_lacks(tmp_path: Path, question: str, lang: str,
                                                                   frame: str) -> None:
    # the frame words of index/question_frame: the vault need not say them to answer ("doesn't say anything about
    # “example”" would refuse a question the note answers)
    notes = {"Plants.md": "# Plants\n\nPhotosynthesis turns light into sugar. Die Photosynthese braucht Licht.\n"}
    vault, settings = make_vault(tmp_path, notes)
    with Engine(vault, settings, embedder=None, writable=False) as engine:
        concepts = question_concepts(engine, question, lang)
        unknown = unknown_words(engine, concepts, {}, lang)
    assert frame not in unknown.words and unknown.share == 0.0
