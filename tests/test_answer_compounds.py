"""German compounds in questions, read by the answer as the search reads them (issue 25).

A compound the question writes whole and the note apart ("Transformgrenze": "transformen Plattengrenze";
"Magmakammer": "Magma in einer Kammer"; "Informationsasymmetrie": the English note's "information asymmetry")
stands for its two parts, which one note holds; a word the note writes only joined to the question's next word
("Kohlenstoff-Kreislauf": "Kohlenstoffkreislauf"), or with the word of its genitive ("Falle der Liquidität":
"Liquiditätsfalle"), is that joined word. A compound with a part no note has
("Schlammvulkan") is still what the vault does not say, and a compound read as its parts weighs as one word where
the question's other words are weighed against it ("Herzschrittmacher aus Metall").
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from cognivault.answer.evidence import question_concepts, question_language
from cognivault.answer.extractive import answer_extractively
from cognivault.engine import Engine
from cognivault.index.analysis import consonant_skeleton

NOTES = {
    "Geologie/Vulkane.md": "# Vulkane\n\n## Plattengrenzen\n\n"
                           "An einer divergenten Plattengrenze entfernen sich zwei Platten voneinander.\n"
                           "An einer transformen Plattengrenze gleiten zwei Platten seitlich aneinander vorbei; "
                           "typisch sind starke Erdbeben.\n\n"
                           "## Magma\n\nUnter dem Vulkan sammelt sich Magma in einer Kammer in wenigen Kilometern "
                           "Tiefe. Steigt der Druck der Gase, kommt es zum Ausbruch.\n",
    "Oekologie/Stoffkreisläufe.md": "# Stoffkreisläufe\n\n## Kohlenstoffkreislauf\n\n"
                                    "Pflanzen binden Kohlenstoffdioxid durch Fotosynthese; Atmung und Zersetzung "
                                    "geben es wieder ab.\n",
    "Economics/Market failure.md": "# Market failure\n\n## Information asymmetry\n\n"
                                   "When one side of a trade knows more than the other, markets can break down: "
                                   "buyers of used cars pay only for average quality.\n",
    "Geschichte/Reformation.md": "# Reformation\n\nLuther schlug 1517 seine Thesen an. Die Bauern erhoben sich "
                                 "1525 gegen ihre Herren.\n",
}


def test_a_compound_the_note_writes_apart_is_answered_from_its_parts(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    engine = indexed_notes(NOTES)
    border = answer_extractively(engine, "Was passiert an einer Transformgrenze?")
    assert border.answered and "seitlich aneinander vorbei" in border.text
    chamber = answer_extractively(engine, "Was ist eine Magmakammer?")
    assert chamber.answered and "in einer Kammer" in chamber.text


def test_a_german_compound_the_english_note_writes_apart_is_answered(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    engine = indexed_notes(NOTES)
    answer = answer_extractively(engine, "Was ist Informationsasymmetrie?")
    assert answer.answered and "average quality" in answer.text


def test_a_hyphenated_compound_the_note_writes_whole_is_answered(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    engine = indexed_notes(NOTES)
    answer = answer_extractively(engine, "Was ist der Kohlenstoff-Kreislauf?")
    assert answer.answered and "Fotosynthese" in answer.text


def test_a_compound_asked_with_its_genitive_finds_the_note_writing_it_whole(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    engine = indexed_notes({**NOTES, "Economics/Macro glossary.md": "# Macro glossary\n\n- **Liquidity trap** "
                            "(Liquiditätsfalle): at interest rates near zero, more money no longer lowers rates.\n"})
    answer = answer_extractively(engine, "Was ist eine Falle der Liquidität?")
    assert answer.answered and "interest rates near zero" in answer.text


def test_a_compound_with_a_part_no_note_has_is_refused(indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    engine = indexed_notes(NOTES)
    answer = answer_extractively(engine, "Was ist ein Schlammvulkan?")
    assert not answer.answered and "Vault" in answer.text


def test_a_compound_read_as_its_parts_weighs_as_one_word(indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    # more notes than the other tests: a word of one note weighs near what a word of none does
    others = {f"Chemie/Element {number}.md": f"# Element {number}\n\nDas Element {number} reagiert mit Sauerstoff.\n"
              for number in range(16)}
    engine = indexed_notes({**NOTES, **others, "Anatomie/Herz.md": "# Herz\n\n## Erregungsleitung\n\nDer Sinusknoten "
                            "ist der primäre Schrittmacher des Herz, 60–80 Schläge pro Minute.\n"})
    assert answer_extractively(engine, "Was ist ein Herzschrittmacher?").answered
    refused = answer_extractively(engine, "Was ist ein Herzschrittmacher aus Metall?")
    assert not refused.answered and "Metall" in refused.text  # its two parts do not outweigh the word asked


def test_a_verb_is_not_split_into_parts_two_notes_hold(indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    engine = indexed_notes(NOTES)
    question = "Was passiert, wenn Vulkane ausbrechen und die Platten vorbeigleiten?"
    concepts = {concept.word: concept for concept in question_concepts(engine, question,
                                                                       question_language(engine, question))}
    assert "vorbeigleiten" in concepts and not any(concept.whole for concept in concepts.values())


VACCINES = {
    "Immunologie/Impfungen.md": "# Impfungen\n\nEine Impfung trainiert das adaptive Immunsystem mit einem Antigen.\n\n"
                                "## Einflussfaktoren (klausurrelevant?)\n\n"
                                "1. Alter der geimpften Person\n2. Immunstatus, z.B. nach Transplantation\n"
                                "3. Adjuvanzien verstärken die Reaktion\n4. Impfschema und Auffrischungen\n",
    "Marketing/Preispolitik.md": "# Preispolitik\n\n## Kostenorientierte Preisbildung\n\nGrundlage ist die "
                                 "Kostenfunktion: Fixkosten (Miete) und variable Stückkosten (Material).\n",
    "Geschichte/Ur- und Frühgeschichte.md": "# Frühgeschichte\n\nDie Vorgeschichte endet mit der Schrift. Eine "
                                            "Wandschicht aus Lehm schützte die Häuser.\n",
    "Immunology/Complement.md": "---\nlang: en\n---\n# Innate immunity\n\n## The complement system\n\nThe "
                                "complement system is a cascade of plasma proteins that marks pathogens.\n",
    "Linguistik/Kommunikation.md": "# Kommunikation\n\n## Kommunikationsmodell\n\nIm Kommunikationsmodell von "
                                   "Shannon und Weaver kodiert ein Sender eine Nachricht für einen Empfänger.\n\n"
                                   "## Antigenpräsentation\n\nDendritische Zellen zeigen Bruchstücke von Erregern "
                                   "auf MHC-Molekülen.\n",
    "Geschichte/Kaiserzeit.md": "# Kaiserzeit\n\n## Reformen des Augustus\n\nAugustus gründete die "
                                "Prätorianergarde als Leibwache in Rom.\n",
    "Marketing/Pricing.md": "---\nlang: en\n---\n# Pricing\n\n## Price discrimination\n\nPrice discrimination "
                            "means charging different customers different prices for the same product.\n",
}


@pytest.mark.parametrize(("question", "quoted"), [
    ("Welche Faktoren beeinflussen eine Impfung?", "Adjuvanzien"),  # "Einflussfaktoren"
    ("Welche Kosten muss man bei der Preisbildung berücksichtigen?", "Stückkosten"),  # "Kostenfunktion"
    ("Wie funktioniert das Komplementsystem?", "cascade of plasma proteins"),  # "complement system"
    ("What is the communication model?", "Sender"),  # "Kommunikationsmodell"
    ("Was versteht man unter Preisdiskriminierung?", "different prices for the same product"),  # "price discr…"
    ("What is antigen presentation?", "MHC-Molekülen"),  # "Antigenpräsentation"
    ("What is the Praetorian Guard?", "Leibwache"),  # "Prätorian|er|garde": a name, though one word
])
def test_a_word_inside_a_compound_or_a_compound_of_other_words_is_found(
        indexed_notes: Callable[[dict[str, str]], Engine], question: str, quoted: str) -> None:
    answer = answer_extractively(indexed_notes(VACCINES), question)
    assert answer.answered and quoted in answer.text


def test_a_compound_holding_the_word_in_a_note_on_something_else_is_no_reading_of_it(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    engine = indexed_notes(VACCINES)
    concepts = {concept.word: concept for concept in question_concepts(engine, "Welche Schichten hat eine Impfung?",
                                                                          "de")}
    assert "vorgeschicht" not in concepts["schichten"].terms and "wandschicht" not in concepts["schichten"].terms
    assert not answer_extractively(engine, "Welche Faktoren beeinflussen den Wechselkurs des Euro?").answered


def test_words_of_two_languages_spelled_alike_share_their_consonants() -> None:
    assert consonant_skeleton("preisdiskriminierung") == consonant_skeleton("price") + consonant_skeleton("discrimin")
    assert consonant_skeleton("objektpermanenz") == consonant_skeleton("object") + consonant_skeleton("permanence")


def test_a_number_of_the_question_does_not_choose_the_compound_holding_its_word(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    """A compound holding the question's word is read as it where a note holds it with the question's other things;
    a number is no such thing ("Darf ein 15-Jähriger von seinem Taschengeld …?" of a glossary's
    "Taschengeldparagraph", while another note says "15"): the compound stays its reading."""
    engine = indexed_notes({
        "Jura/Verwaltungsakt.md": "# Verwaltungsakt\n\n**Bekanntgabefiktion**: ein VA gilt am 4. Tag nach Aufgabe zur "
                                  "Post als bekanntgegeben.\n",
        "Küche/Brot.md": "# Brot\n\nDen Laib nach dem Backen 15 min auskühlen lassen.\n"})
    question = "Was bedeutet die Fiktion für 15-Jährige?"
    concepts = {concept.word: concept for concept in question_concepts(engine, question, "de")}
    assert any(term.startswith("bekanntgabefikt") for term in concepts["fiktion"].terms)
