"""An acronym the vault spells out matches its words (issue 25): "the Council of the EU" and the heading "Council of
the European Union"."""

from __future__ import annotations

from pathlib import Path

from answer_support import make_vault
from cognivault.answer.acronyms import abbreviated, acronyms_written, spelled_out
from cognivault.answer.retrieval import build_pack
from cognivault.engine import Engine


def test_an_acronym_and_its_tails_are_spelled_out_as_the_text_says() -> None:
    found = spelled_out(["5. Court of Justice of the European Union (CJEU)", "WHO = World Health Organization",
                         "Ich nutze das (OK) nicht", "the Treaty (TEU)"])
    assert found["cjeu"] == ("court", "justice", "european", "union")
    assert found["eu"] == ("european", "union")
    assert found["who"] == ("world", "health", "organization")
    assert "ok" not in found and "teu" not in found  # no words to stand for, or too few


def test_the_acronyms_a_question_writes_are_its_words_in_capitals() -> None:
    assert acronyms_written("Wie viele Schichten hat das OSI-Modell der EU und SN2?") == {"osi", "eu", "sn2"}
    assert acronyms_written("What is A or Is in the Oslo notes?") == set()  # one capital, or a capitalised word


def test_a_question_naming_an_acronym_finds_the_passage_naming_it_in_full(tmp_path: Path) -> None:
    notes = {"Institutions.md": "# Institutions\n\n## Courts\n\nThe Court of Justice of the European Union (CJEU) "
             "rules on law.\n\n## Council of the European Union\n\nMinisters of the member states legislate here.\n",
             "Health.md": "# Health\n\nThe World Health Organization (WHO) sets health rules. Its council meets "
             "twice.\n\n## Regional council\n\nThe regional council of the WHO meets in Europe.\n"}
    vault, settings = make_vault(tmp_path, notes)
    with Engine(vault, settings, embedder=None, writable=False) as engine:
        pack, _ = build_pack(engine, "What does the Council of the EU do?")
    eu = next(concept for concept in pack.concepts.values() if concept.word == "eu")
    assert eu.found_in(set(), {"council", "of", "the", "european", "union"})
    assert not eu.found_in(set(), {"regional", "council", "european"})


def test_a_text_spelling_an_acronym_out_has_the_questions_phrase_with_it() -> None:
    # "Council of the EU": side by side in "Council of the European Union", not in "the Union of European councils"
    acronyms = {"eu": ("european", "union")}
    assert abbreviated("The Council of the European Union holds ministers.", acronyms) == \
        "The Council of the eu holds ministers."
    assert abbreviated("the Union of European councils", acronyms) == "the Union of European councils"
