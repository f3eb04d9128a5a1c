"""A short word of the question read as the vault's other language spells the same word (issue 25): "Gen" is the
English note's "gene", "T-Zellen" its "T cells", an English question's "cell" a German note's "Zelle" (a final e more
or less, a German z or k for an English c), so such a question is answered instead of refused; a false friend spelled
alike ("Kurs" and "curse") is not read so and stays refused."""

from __future__ import annotations

from collections.abc import Callable

from cognivault.answer.evidence import short_cognate
from cognivault.answer.extractive import answer_extractively
from cognivault.engine import Engine

NOTES = {
    "Bio/T cells.md": "# T cells\n\nT cells mature in the thymus. Helper T cells activate B cells with cytokines.\n",
    "Bio/DNA.md": "# DNA\n\nA gene is a section of DNA that codes for a protein.\n",
    "Fantasy/Spells.md": "# Spells\n\nA curse is a spell that harms the one it is cast on.\n",
    "Geo/Flüsse.md": "# Flüsse\n\nDer Rhein fließt durch die Schweiz, Deutschland und die Niederlande in die "
                     "Nordsee.\n",
}


def test_a_short_word_of_the_other_language_is_answered(indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    engine = indexed_notes(NOTES)
    mature = answer_extractively(engine, "Wo reifen T-Zellen heran?")
    assert mature.answered and "thymus" in mature.text
    # asked for a number no passage gives: a word only spelled alike is too unsure a reading to quote what is near
    assert not answer_extractively(engine, "Wie groß sind T-Zellen?").answered
    gene = answer_extractively(engine, "Was ist ein Gen?")
    assert gene.answered and "section of DNA that codes for a protein" in gene.text
    engine.close()
    german = indexed_notes({"Bio/Zellkern.md": "# Zellkern\n\nDer Zellkern ist das größte Organell einer Zelle. Er "
                                               "enthält die Chromosomen.\n", "Geo/Flüsse.md": NOTES["Geo/Flüsse.md"]})
    organelle = answer_extractively(german, "Which is the largest organelle of a cell?")
    assert organelle.answered and "Zellkern" in organelle.text


def test_a_false_friend_is_not_read_as_the_other_language(indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    engine = indexed_notes(NOTES)
    lexical = engine.store.lexical
    assert lexical.document_frequency("curs")  # English "curse", as the German "Kurs" would be read without the list
    assert short_cognate(lexical, "kurs", {"kur", "kurs"}) is None
    assert not answer_extractively(engine, "Was ist ein Kurs?").answered
    # a word the vault has in no form and no other spelling of it stays what the vault lacks
    assert not answer_extractively(engine, "Was ist ein Zins?").answered


class _Terms:
    """An index's document frequencies, for a term table without an index."""

    def __init__(self, *terms: str) -> None:
        self.terms = set(terms)

    def document_frequency(self, term: str) -> int:
        return int(term in self.terms)


def test_a_short_cognate_differs_by_a_final_e_or_a_c_for_z_or_k() -> None:
    vocabulary = _Terms("cell", "gene", "zell", "code", "rat")
    assert short_cognate(vocabulary, "zellen", {"zell", "zellen"}) == "cell"
    assert short_cognate(_Terms("zell"), "cells", {"cell"}) == "zell"
    assert short_cognate(vocabulary, "gen", {"gen"}) == "gene"
    assert short_cognate(vocabulary, "kode", {"kod"}) == "code"
    assert short_cognate(vocabulary, "rate", {"rate"}) is None  # a false friend (German "Rat", the council)
    assert short_cognate(vocabulary, "gnu", {"gnu"}) is None  # nothing spelled alike in the vault
    assert short_cognate(vocabulary, "synthesis", {"synthesi"}) is None  # long enough for ``cognate_key``
