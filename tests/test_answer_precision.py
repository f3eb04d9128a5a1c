"""A passage answer says what is asked and no more: no padding once it states the question, nothing twice, and its
sources numbered in the order it cites them (issue 25: a reviewer's classes of long or confusing answers)."""

from __future__ import annotations

from pathlib import Path

from cognivault.answer.evidence import FALLBACK_ANALYZER, Evidence, EvidencePack, text_terms
from cognivault.answer.extractive import PassageAnswer, Quote, Unit, choose_units, compose, quotes_of, renumbered


def passage(label: str, path: str, text: str, heading: str = "") -> Evidence:
    return Evidence(label, label, path, Path(path).stem, [heading] if heading else [], 1, 3, "", text, "", 0.0,
                    lang="en", terms=text_terms(FALLBACK_ANALYZER, f"{heading}\n{text}", "en"))


def chosen_texts(items: list[Evidence], words: str, question: str) -> list[str]:
    terms = sorted(text_terms(FALLBACK_ANALYZER, words, "en"))
    return [unit.text for unit in choose_units(items, terms, {t: 1.0 for t in terms}, FALLBACK_ANALYZER, question)]


def test_once_the_answer_states_the_question_a_block_saying_far_less_of_it_is_left_out() -> None:
    note = passage("S1", "Server.md", "The relay server writes every message to its log.\n\n"
                   "The relay server listens on port 8443 for all devices.", "Relay")
    texts = chosen_texts([note], "relay server port", "Which port does the relay server listen on?")
    assert texts == ["The relay server listens on port 8443 for all devices."]


def test_the_block_right_after_a_lead_that_only_restates_the_question_stays() -> None:
    note = passage("S1", "Errors.md", "On tablets the error reads as follows: `socket closed early`\n\n"
                   "It means the connection dropped; the app tries again in a minute.", "Network errors")
    texts = chosen_texts([note], "tablets error socket closed early",
                         "What does the tablets error `socket closed early` mean?")
    assert any("tries again" in text for text in texts)


def test_a_sentence_another_passage_already_quotes_in_its_paragraph_is_not_quoted_again() -> None:
    sentence = "Snapshots of every note are kept for ten days on the device."
    whole = passage("S1", "Recovery.md", f"{sentence} They are separate from the version history of sync.",
                    "Snapshots")
    alone = passage("S2", "Backups.md", sentence, "Snapshots")
    texts = chosen_texts([whole, alone], "snapshots note kept days",
                         "How many days are snapshots of a note kept?")
    assert sum(sentence in text for text in texts) == 1


def test_a_section_title_leads_the_answer_once() -> None:
    units = [Unit("S1", 0, 0, "paragraph", "A tritone spans six semitones.", section="Intervals", group=0),
             Unit("S2", 1, 0, "paragraph", "The tritone splits the octave in half.", section="Intervals", group=0),
             Unit("S1", 0, 5, "paragraph", "An interval is counted in steps.", section="Intervals", group=1)]
    text = compose(quotes_of(units))
    assert text.count("**Intervals**") == 1 and text.count("[S1]") == 2


def test_sources_are_numbered_in_the_order_the_answer_cites_them() -> None:
    pack = EvidencePack(items=[passage(f"S{n}", f"Note {n}.md", f"Text {n}.") for n in (1, 2, 3, 4)])
    chunks = {item.label: item.chunk_id for item in pack.items}
    answer = renumbered(pack, PassageAnswer([Quote("S3", "Text 3."), Quote("S4", "Text 4."), Quote("S3", "More.")]))
    assert [quote.label for quote in answer.quotes] == ["S1", "S2", "S1"]
    assert [item.label for item in pack.items] == ["S1", "S2", "S3", "S4"]
    # each label still names its passage: the cited ones first, the others after them in their order
    assert [pack.get(label).chunk_id for label in ("S1", "S2", "S3", "S4")] == \
        [chunks["S3"], chunks["S4"], chunks["S1"], chunks["S2"]]
    assert compose(answer.quotes).startswith("Text 3. [S1]")
