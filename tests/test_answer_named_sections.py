"""A question naming a section is answered by that section, sure where the section's headings name its subject, and
a near-miss (the topic is there, the asked fact is not) says what the vault does not say (issue 25: held-out answers
were collages of a section and blocks elsewhere sharing its words; a correct answer under a note whose alias names
the subject was labelled low; "how warm", "who discovered" were answered with whatever stood near).

- the lead's headings (note title, sections) name all the question asks about ("TCP three-way handshake" for "TCP
  handshake"): a block in another section or note saying nothing the lead does not is left out, and the answer may
  be sure though no block repeats the subject in its own text;
- asked what a term is and answered by its definition, a glossary's entry on another term mentioning it is left out;
- a cited passage is judged under its note's aliases too ("Newtonsche Gesetze" of the note "Newton's Laws");
- "how warm", "how deep", "how heavy", "wie alt", "what temperature" ask for a measured amount (a number with its unit),
  "who"/"wer" with a verb for a name; without one next to the subject the vault does not say, and says so.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from cognivault.answer.answer_kind import ExpectedAnswer, expected_answer, gives_answer
from cognivault.answer.confidence import Confidence, QuoteMeasures, cap_by_citations
from cognivault.answer.evidence import FALLBACK_ANALYZER, Concept, Evidence, EvidencePack
from cognivault.answer.extractive import answer_extractively, not_in_vault
from cognivault.engine import Engine

NOTES = {
    "Astronomy/Planetary motion.md": (
        "---\naliases: [Kepler's laws]\n---\n# Planetary motion\n\n"
        "Johannes Kepler derived three laws from Tycho Brahe's observations of Mars.\n\n"
        "## 1. First law – ellipses\n\nEvery planet moves on an ellipse with the Sun at one of the two foci.\n\n"
        "## 2. Second law – equal areas\n\n"
        "The line joining a planet and the Sun sweeps out equal areas in equal times.\n"
        "So the planet is fastest at perihelion and slowest at aphelion.\n\n"
        "## 3. Third law – periods\n\nThe square of the orbital period is proportional to the cube of the "
        "semi-major axis.\n\n"
        "## History\n\n- 1609: first and second law in *Astronomia nova*\n- 1619: third law in *Harmonices Mundi*\n"),
    "Netze/TCP.md": (
        "# TCP\n\n## TCP three-way handshake\n\n1. client → server: SYN\n2. server → client: SYN-ACK\n"
        "3. client → server: ACK\n\n## Comparison\n\nUDP needs no handshake, so a DNS lookup over UDP is faster "
        "than one over TCP.\n"),
    "Pharma/Glossar.md": (
        "---\nlang: de\n---\n# Glossar Pharmakologie\n\n"
        "**Halbwertszeit** – Zeit, in der die Konzentration eines Wirkstoffs im Plasma auf die Hälfte sinkt\n\n"
        "**Clearance** – Plasmavolumen, das pro Zeit vom Wirkstoff befreit wird; bestimmt mit dem Verteilungsvolumen "
        "die Halbwertszeit\n"),
    "Ozeanographie/Meeresströmungen.md": (
        "---\nlang: de\n---\n# Meeresströmungen\n\n## Golfstrom\n\n"
        "Der Golfstrom ist eine warme Oberflächenströmung aus dem Golf von Mexiko in den Nordatlantik. "
        "Er transportiert etwa 30 Sverdrup Wasser und sorgt für das milde Klima Westeuropas.\n\n"
        "## Stickstoff im Meer\n\nKnöllchenbakterien gibt es im Meer nicht; Cyanobakterien fixieren dort Stickstoff "
        "mit dem Enzym Nitrogenase.\n"),
}


def test_a_question_naming_a_section_is_answered_by_that_section_alone(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    engine = indexed_notes(NOTES)
    second = answer_extractively(engine, "What does Kepler's second law say?")
    assert second.answered and "equal areas in equal times" in second.text
    assert "Astronomia nova" not in second.text  # History names the second law too, and says nothing of it
    assert second.confidence == "high"  # the alias and the section's heading name what the quote is about
    handshake = answer_extractively(engine, "TCP handshake")
    assert handshake.answered and "SYN-ACK" in handshake.text and "DNS lookup" not in handshake.text


def test_a_definition_leads_without_another_terms_entry_naming_it(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    answer = answer_extractively(indexed_notes(NOTES), "Was ist die Halbwertszeit?")
    assert answer.answered and "auf die Hälfte sinkt" in answer.text
    assert "Clearance" not in answer.text


def test_a_cited_passage_is_judged_under_its_notes_aliases() -> None:
    pack = EvidencePack(question_terms=["newtonsch", "gesetz", "dritt"],
                        term_weights={"newtonsch": 2.0, "gesetz": 1.0, "dritt": 1.0},
                        concepts={"newtonsch": Concept("newtonsch", "newtonsche", frozenset({"newtonsch"})),
                                  "gesetz": Concept("gesetz", "gesetz", frozenset({"gesetz"})),
                                  "dritt": Concept("dritt", "dritte", frozenset({"dritt"}), frame=True)})
    pack.add(Evidence("", "c1", "Newton's Laws.md", "Newton's Laws of Motion", ["3rd law"], 1, 2, "",
                      "if A exerts a force on B, B exerts an equal and opposite force on A", "", 1.0,
                      terms=frozenset({"dritt"}), aliases=("Newton", "Newtonsche Gesetze")))
    whole = Confidence("high", "", 1.0, 1.0, keyword_coverage=1.0)
    capped = cap_by_citations(whole, pack, ["S1"], QuoteMeasures(1.0, 1.0, block_share=1.0))
    assert capped.label == "high", capped.reason
    without = EvidencePack(question_terms=pack.question_terms, term_weights=pack.term_weights, concepts=pack.concepts)
    without.add(Evidence("", "c1", "Newton's Laws.md", "Newton's Laws of Motion", ["3rd law"], 1, 2, "",
                         "if A exerts a force on B, B exerts an equal and opposite force on A", "", 1.0,
                         terms=frozenset({"dritt"})))
    assert cap_by_citations(whole, without, ["S1"], QuoteMeasures(1.0, 1.0, block_share=1.0)).label == "low"


@pytest.mark.parametrize(("question", "said"), [
    ("Wie warm ist der Golfstrom?", "keine Temperatur für „Golfstrom“"),
    ("Wer entdeckte die Knöllchenbakterien?", "keinen Namen für „Knöllchenbakterien“"),
])
def test_a_measure_or_name_the_notes_never_give_is_not_in_the_vault(
        indexed_notes: Callable[[dict[str, str]], Engine], question: str, said: str) -> None:
    answer = answer_extractively(indexed_notes(NOTES), question)
    assert not answer.answered and answer.text == not_in_vault("de", lacking=said)
    assert answer.text.startswith("Dazu steht nichts im Vault")


def test_an_amount_asked_for_is_answered_where_the_note_gives_it(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    answer = answer_extractively(indexed_notes(NOTES), "Wie viel Wasser transportiert der Golfstrom?")
    assert answer.answered and "30 Sverdrup" in answer.text


def _kind(kind: str, *words: str) -> ExpectedAnswer:
    return ExpectedAnswer(kind, "", tuple(Concept(word, word, frozenset({word})) for word in words))


@pytest.mark.parametrize(("kind", "text", "lang", "gives"), [
    ("temperature", "Caramelization starts at around 160 °C for sucrose.", "en", True),
    ("temperature", "The warm current gives Western Europe its mild climate.", "en", False),
    ("length", "Der Marianengraben ist etwa 11 km tief.", "de", True),
    ("length", "Der Marianengraben ist der tiefste Graben.", "de", False),
    ("mass", "An adult blue whale weighs up to 150 t.", "en", True),
    ("person", "der Kritiker Louis Leroy nannte die Gruppe spöttisch „Impressionisten“", "de", True),
    ("person", "Knöllchenbakterien leben mit dem Enzym **Nitrogenase** in Symbiose.", "de", False),
    ("person", "It was first described by Louis-Camille Maillard in 1912.", "en", True),
    ("person", "The reaction gives browned food its flavour.", "en", False),
    ("person", "Utilitarismus nach Mill (1806–1873): das größte Glück der größten Zahl", "de", True),
])
def test_what_gives_a_measure_or_a_name(kind: str, text: str, lang: str, gives: bool) -> None:
    assert gives_answer(_kind(kind), text, FALLBACK_ANALYZER, lang) is gives


@pytest.mark.parametrize(("question", "lang", "person"), [
    ("Who discovered penicillin?", "en", True),
    ("Wer hat den Begriff „Impressionisten“ geprägt?", "de", True),
    ("Wer gründete die Firma?", "de", True),
    ("Who sits in the Council of Ministers?", "en", False),  # a role answers: "one minister per member state"
    ("Wer entwickelt den Haushaltsplan?", "de", False),
    ("Welche Gründe nennt Luther?", "de", False),
])
def test_only_a_question_for_who_made_something_asks_for_a_name(question: str, lang: str, person: bool) -> None:
    expected = expected_answer(question, [], lang)
    assert (expected is not None and expected.kind == "person") is person


SIBLINGS = {
    "Photo/Camera support.md": "---\nlang: en\n---\n# Camera support\n\n## Tripod\n- three legs, very stable\n"
                               "- allows long exposures at night and sharp landscapes\n\n## Monopod\n- one leg\n"
                               "- advantages: much lighter than a tripod, quick to move\n"
                               "- not stable enough for exposures longer than about 1/15 s\n\n"
                               "## Gimbal\nMotorised, keeps video smooth while walking.\n",
    "Backen/Zutaten.md": "---\nlang: de\n---\n# Brotzutaten\n\n## Salz\n"
                         "- Aufgaben: Geschmack, stärkt das Klebergerüst, bremst die Hefe\n- ca. 2 % vom Mehl\n\n"
                         "## Hefe\n- lockert den Teig durch CO₂\n- bildet Aromastoffe\n"
                         "- arbeitet am besten bei 26–32 °C\n",
}


@pytest.mark.parametrize(("question", "said", "unsaid"), [
    ("What are the advantages of a tripod?", "very stable", "much lighter"),
    ("Welche Aufgaben hat die Hefe?", "lockert den Teig", "stärkt das Klebergerüst"),
])
def test_the_section_named_for_the_thing_asked_about_answers_not_its_sibling_saying_the_asking_word(
        indexed_notes: Callable[[dict[str, str]], Engine], question: str, said: str, unsaid: str) -> None:
    answer = answer_extractively(indexed_notes(SIBLINGS), question)
    assert answer.answered
    assert said in answer.text
    assert unsaid not in answer.text  # the monopod's advantages, the salt's tasks


DEEDS = {
    "Bienen/Drohnen und Arbeiterinnen.md": "---\nlang: de\n---\n# Kasten\n\n"
                                          "## Entwicklung\n"
                                          "- beide schlüpfen aus Waben im Brutnest\n"
                                          "- Arbeiterinnen entwickeln sich in 21 Tagen aus befruchteten Eiern\n"
                                          "- Drohnen entwickeln sich in 24 Tagen aus unbefruchteten Eiern\n\n"
                                          "## Drohnen\n- einzige Aufgabe: Begattung einer Königin\n"
                                          "- im Herbst aus dem Stock gedrängt\n",
    "Pilze/Speisepilze.md": "---\nlang: de\n---\n# Speisepilze\n\n## Anbau & Reifung\n"
                            "- Champignons reifen in 12 bis 14 Tagen auf Kompost\n"
                            "- Austernpilze reifen auf Stroh in etwa 3 Wochen\n\n"
                            "## Austernpilze\n- wachsen an Laubholz, fächerförmige Hüte\n"
                            "- vertragen Kälte, Ernte auch im Winter\n",
}


@pytest.mark.parametrize(("question", "said"), [
    ("Woraus entwickeln sich Drohnen?", "unbefruchteten Eiern"),
    ("Worauf reifen Austernpilze?", "auf Stroh"),
])
def test_a_section_named_for_the_deed_of_the_question_verb_is_what_it_asks(
        indexed_notes: Callable[[dict[str, str]], Engine], question: str, said: str) -> None:
    answer = answer_extractively(indexed_notes(DEEDS), question)
    assert answer.answered
    assert said in answer.text


LONG_LISTS = {
    "Segeln/SBF.md": "---\nlang: de\n---\n# Segelschein\n\n## Voraussetzungen für den SBF See\n"
                     "- Mindestalter 16 Jahre am Tag der Prüfung, bei Minderjährigen ist die schriftliche Zustimmung "
                     "der Eltern nötig\n"
                     "- ein ärztliches Zeugnis über ausreichendes Seh- und Hörvermögen, nicht älter als zwölf Monate "
                     "bei Antragstellung\n"
                     "- ein Führungszeugnis oder ein gültiger Führerschein als Nachweis der Zuverlässigkeit des "
                     "Bewerbers\n"
                     "- ein Lichtbild in Passbildgröße, aktuell und ohne Kopfbedeckung, für den Bootsführerschein\n"
                     "- die Anmeldung beim Prüfungsausschuss mindestens vier Wochen vor dem gewünschten "
                     "Prüfungstermin\n"
                     "- bestandene theoretische Prüfung vor der praktischen Prüfung auf dem Wasser, beide beim selben "
                     "Ausschuss\n\n## Prüfungsablauf\nErst Theorie (Fragebogen, 30 Fragen), dann Praxis.\n",
    "Photo/Night.md": "---\nlang: en\n---\n# Night photography\n\n## Checklist before a night shoot\n"
                      "- charge two spare batteries, because long exposures and the cold drain a battery much faster "
                      "than daytime shooting\n"
                      "- pack a sturdy tripod and a remote release or use the two-second self-timer so that pressing "
                      "the button does not shake the camera\n"
                      "- switch off image stabilisation on the lens when the camera sits on the tripod, otherwise it "
                      "may add blur of its own\n"
                      "- bring a headlamp with a red light mode so that your eyes stay adapted to the dark while you "
                      "change settings\n"
                      "- set manual focus on a bright star or a distant light in live view and tape the focus ring so "
                      "it does not move\n"
                      "- check the moon phase and the weather forecast, since a full moon or clouds wash out the stars "
                      "in the sky\n\n## Settings\nf/2.8, 20 s, ISO 3200 as a starting point.\n",
}


@pytest.mark.parametrize(("question", "first", "last"), [
    ("Welche Voraussetzungen gelten für den SBF See?", "Mindestalter 16", "bestandene theoretische Prüfung"),
    ("What is on the checklist before a night shoot?", "spare batteries", "moon phase"),
])
def test_a_long_list_under_the_heading_the_question_names_is_quoted_whole(
        indexed_notes: Callable[[dict[str, str]], Engine], question: str, first: str, last: str) -> None:
    # too long to be one unit, the list was quoted by three of its six items
    answer = answer_extractively(indexed_notes(LONG_LISTS), question)
    assert answer.answered
    assert first in answer.text and last in answer.text
    assert answer.text.count("\n- ") == 6  # its six items, each once
