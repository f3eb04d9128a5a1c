"""Offline flashcards and quizzes on notes written the way students write them: a hub of links and dates, Q/A pairs,
vocabulary lines, formulas, labels, date stamps and tag lines (issue 25)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from cognivault.engine import Engine
from cognivault.study.extract import all_facts
from cognivault.study.list_wording import item_question
from cognivault.study.quiz import parse_quiz
from cognivault.study.sources import GenerationError, Source, StudyRequest, gather_sources
from cognivault.study.validate import question_problems
from cognivault.vault.reading import part_of
from test_study_extractive import cards_of, generate, indexed_vault

HUB = """---
tags: [hub]
---
# Semester plan

last edited: 09.01.2026

## Networks (Mon 10–12, room 3)
- 20.10. lecture 2 – [[Networks/OSI]]
- 03.11. lecture 4 – [[Networks/Exam prep]]
- [[Networks/Exam prep|Exam prep]] → exam: 10.02.2026

## Physics
- [[Physics/Energy]], [[Physics/Newton]]
- Exam 17.02.2026

## Old notes
- History: [[History/Reformation]], [[History/Revolution]]
- Geo: [[Geo/Climate]], [[Geo/Monsoon]]

#todo register for exams until 15.01.!!
"""

QA = """# Networks exam prep

collected from old exams. exam: 10.02.2026, 90 min

Q: How many layers does the OSI model have?
A: 7 – physical, data link, network, transport, session, presentation, application.

Q: What does ARP do?
A: It resolves an IP address to a MAC address within the local network.

Q: Why does DNS mostly use UDP?
A: Queries are small and a lookup has to be fast; a handshake would double the latency.

Q: What is a port?
A: A 16-bit number that identifies the process on a host.
"""

ENERGY = """---
lang: en
---
# Energy

Stand: 12.01.2025
#physics #uni/ws25

## Kinetic energy
$$E_k = \\frac{1}{2}mv^2$$
- **work-energy theorem**: net work = change in kinetic energy, $W_{net} = \\Delta E_k$

## Potential energy
- spring:
$$E_{sp} = \\frac{1}{2}kx^2$$
- ex.: $mgh = \\frac{1}{2}mv^2 \\Rightarrow v = \\sqrt{2gh}$

## Power
$$P = \\frac{W}{t} = F v$$
- unit: watt, 1 W = 1 J/s
"""

VOCABULARY = """---
lang: es
---
# Vokabeln Lektion 5

Format für Spaced Repetition: spanisch :: deutsch

## Im Restaurant
la carta :: die Speisekarte
la cuenta :: die Rechnung
la propina :: das Trinkgeld
el postre :: der Nachtisch
"""

MONSOON = """# Monsun

Monsun = großräumiges Windsystem mit halbjährlichem Richtungswechsel.

- Ursache: unterschiedliche Erwärmung von Land und Meer und die Verlagerung der ITC
- Bedeutung: ca. 70–80 % des Jahresniederschlags in Indien fallen im Sommermonsun
- Beispiel: Indien, Westafrika, Nordaustralien
"""

NOTES = {"00 Semester plan.md": HUB, "Networks/Exam prep.md": QA, "Networks/OSI.md": "# OSI\n\nSeven layers.\n",
         "Physics/Energy.md": ENERGY, "Spanisch/Vokabeln.md": VOCABULARY, "Geo/Monsoon.md": MONSOON}


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    with indexed_vault(tmp_path_factory.mktemp("student"), NOTES) as engine:
        yield engine


def test_a_hub_of_links_and_dates_gives_no_card_and_says_why(engine: Engine) -> None:
    for kind in ("flashcards", "quiz"):
        with pytest.raises(GenerationError) as raised:
            generate(engine, kind, "00 Semester plan.md")
        assert "nothing to ask" in str(raised.value) and "links" in str(raised.value)


def test_q_and_a_pairs_are_cards_with_their_whole_answer(engine: Engine) -> None:
    cards = cards_of(generate(engine, "flashcards", "Networks/Exam prep.md")[1])
    assert ("qa", "Why does DNS mostly use UDP?",
            "Queries are small and a lookup has to be fast; a handshake would double the latency.") in cards
    assert ("qa", "What is a port?", "A 16-bit number that identifies the process on a host.") in cards
    assert not [front for _, front, _ in cards if front in ("Q", "A") or "“Q”" in front or "“A”" in front]
    everything = " ".join(front + back for _, front, back in cards)
    assert "10.02.2026" not in everything and "90 min" not in everything  # course logistics are no card


def test_formulas_are_asked_byte_for_byte_and_labels_date_stamps_and_tags_are_no_cards(engine: Engine) -> None:
    cards = cards_of(generate(engine, "flashcards", "Physics/Energy.md", count=20)[1])
    sides = {(front, back) for kind, front, back in cards if kind == "qa"}
    assert ("Energy › Kinetic energy: formula?", "$$E_k = \\frac{1}{2}mv^2$$") in sides
    assert ("Potential energy › spring: formula?", "$$E_{sp} = \\frac{1}{2}kx^2$$") in sides
    assert ("Power: unit?", "Watt, 1 W = 1 J/s.") in sides  # an aspect of the section, not a term "unit"
    everything = " ".join(front + " " + back for _, front, back in cards)
    assert "“ex.”" not in everything and "ex.:" not in everything  # a label, not a term
    assert "Stand" not in everything and "#physics" not in everything and "12.01.2025" not in everything
    for _, front, back in cards:  # every formula on a card stands in the note as written
        for side in (front, back):
            for piece in side.split("$")[1::2]:
                assert piece in ENERGY, side
    quiz = parse_quiz(generate(engine, "quiz", "Physics/Energy.md", count=20)[1])
    for question in quiz.questions:
        assert all(option.count("$") % 2 == 0 for option in question.options), question


def test_vocabulary_lines_are_cards_word_to_translation(engine: Engine) -> None:
    cards = cards_of(generate(engine, "flashcards", "Spanisch/Vokabeln.md")[1])
    assert ("qa", "la cuenta", "die Rechnung") in cards and ("qa", "el postre", "der Nachtisch") in cards
    quiz = parse_quiz(generate(engine, "quiz", "Spanisch/Vokabeln.md")[1])
    cuenta = next(q for q in quiz.questions if q.question == "Was heißt „la cuenta“?")
    assert cuenta.options[cuenta.correct_index] == "die Rechnung"
    assert set(cuenta.options) <= {"die Speisekarte", "die Rechnung", "das Trinkgeld", "der Nachtisch"}


def test_an_aspect_label_is_asked_as_the_aspect_and_the_note_asks_in_its_own_language(engine: Engine) -> None:
    cards = cards_of(generate(engine, "flashcards", "Geo/Monsoon.md")[1])
    fronts = [front for _, front, _ in cards]
    assert "Monsun: Ursache?" in fronts and not [f for f in fronts if "Was bedeutet „Ursache“" in f]
    assert not [front for front in fronts if "What" in front]  # a German note asks in German


def test_no_card_or_question_asks_about_the_notes_layout(engine: Engine) -> None:
    for note in NOTES:
        for kind in ("flashcards", "quiz"):
            try:
                _, text = generate(engine, kind, note)
            except GenerationError:
                continue
            body = text.split("\n---\n", 1)[1]
            assert "say under" not in body and "begins like this" not in body and "Was sagt" not in body, body


def test_a_hubs_titles_are_no_wrong_options_in_another_subjects_quiz(engine: Engine) -> None:
    """The hub links every note, so it is a neighbour of each: its link titles ("Geo", "History") would be wrong
    options in every quiz; neither it nor a linked note of another subject gives any."""
    studied = gather_sources(engine, StudyRequest(note="Networks/Exam prep.md"))
    neighbours = {source.path for source in studied.neighbours}
    assert neighbours == {"Networks/OSI.md"}  # linked from the hub, the hub and other subjects are not its subject
    hub = gather_sources(engine, StudyRequest(note="00 Semester plan.md"))
    assert hub.material and all_facts(hub.material, "en") == []  # nor is any term of a hub, wherever it is


ART = """# Renaissance

## Phases
- **High Renaissance** (~1495–1520) – Rome
  - Raphael – School of Athens (1509–11, Vatican)
  - Bramante – plans for the new St Peter's

## Artists
- Claude Monet – series of haystacks and water lilies in changing light
- Edgar Degas – dancers and horse races

## Conduction
1. Sinus node (primary pacemaker)
2. AV node delays the excitation
3. His bundle
4. Purkinje fibres

## Compared
| | TCP | UDP |
|---|---|---|
| connection | connection-oriented | connectionless |
| header size | 20–60 bytes | 8 bytes |

## Uses of ser
- **D**escription – *Ella es alta.*
- **O**ccupation – *Soy estudiante.*
"""


def test_list_items_are_asked_by_what_the_list_holds_and_each_fact_once(tmp_path: Path) -> None:
    with indexed_vault(tmp_path, {"Art/Renaissance.md": ART}) as engine:
        cards = cards_of(generate(engine, "flashcards", "Art/Renaissance.md")[1])
    fronts = [front for _, front, _ in cards]
    assert not [front for front in fronts if "which phase" in front]  # an artist under a phase is no phase
    # the artists are asked whole; "which artist is this: …" for each of them would repeat that card's facts
    assert ("qa", "Renaissance: name the 2 artists.", "Claude Monet – series of haystacks and water lilies in "
                  "changing light; Edgar Degas – dancers and horse races.") in cards, cards
    assert not [front for front in fronts if "which artist is this" in front]
    assert ("qa", "Compared: “header size” – TCP, UDP?", "TCP: 20–60 bytes; UDP: 8 bytes") in cards  # a whole row
    assert sum("Conduction" in front for front in fronts) == 1, fronts  # the steps whole, not again one by one
    assert not [front for front in fronts if "Description" in front or "Occupation" in front]  # examples, no terms


LEDGER = """# Buchungssätze

Grundregel: **Soll an Haben** – zuerst das Soll-Konto, dann "an", dann das Haben-Konto.

## Bestandskonten
| | Soll | Haben |
|---|---|---|
| **Aktivkonto** (z.B. Bank, Kasse) | Anfangsbestand, Zugänge | Abgänge, Schlussbestand |
| **Passivkonto** (z.B. Darlehen) | Abgänge, Schlussbestand | Anfangsbestand, Zugänge |

## Beispiele
1. Kauf eines PCs für 1.190 € brutto per Banküberweisung
   - BGA 1.000 € / Vorsteuer 190 € **an** Bank 1.190 €
2. Verkauf von Waren auf Ziel, 2.000 € netto + 19 % USt
   - Forderungen 2.380 € **an** Umsatzerlöse 2.000 € / Umsatzsteuer 380 €
3. der Kunde bezahlt die Rechnung aus 2. per Überweisung
   - Bank 2.380 € **an** Forderungen 2.380 €
"""


def test_worked_tasks_a_rule_and_a_table_row_with_a_remark_are_cards(tmp_path: Path) -> None:
    with indexed_vault(tmp_path, {"BWL/Buchungssätze.md": LEDGER}) as engine:
        cards = cards_of(generate(engine, "flashcards", "BWL/Buchungssätze.md")[1])
    assert ("qa", "Buchungssätze: Kauf eines PCs für 1.190 € brutto per Banküberweisung?",
            "BGA 1.000 € / Vorsteuer 190 € an Bank 1.190 €.") in cards
    assert not [front for _, front, _ in cards if "aus 2." in front]  # a task leaning on another is no card
    assert ("qa", "Bestandskonten: „Aktivkonto“ – Soll, Haben?",
            "Soll: Anfangsbestand, Zugänge; Haben: Abgänge, Schlussbestand") in cards
    assert any(front == "Buchungssätze: Grundregel?" and back.startswith("Soll an Haben") for _, front, back in cards)


def test_a_label_is_asked_as_itself_and_a_term_by_its_meaning() -> None:
    asked = item_question("Rückfluss zum Herzen", "Muskelpumpe, Venenklappen", "Gefäßtypen", "Blutkreislauf", True)
    assert asked.front == "Gefäßtypen: Rückfluss zum Herzen?"
    assert item_question("4 Räume", "Vorhöfe und Kammern", "Aufbau", "Herz", True).front == "Aufbau: 4 Räume?"
    assert item_question("verallgemeinern", "Was wäre, wenn alle so handeln?", "Prüfverfahren", "Kant",
                         True).front == "Prüfverfahren: verallgemeinern?"
    assert item_question("Agonist", "Substanz, die an einen Rezeptor bindet", "Glossar", "Glossar",
                         True).front == "Glossar: Was bedeutet „Agonist“?"
    assert item_question("Quarte", '"O Tannenbaum"', "Merklieder", "Intervalle", True).front == "Merklieder: Quarte?"


def test_a_chain_of_equations_is_no_card(tmp_path: Path) -> None:
    note = "# Präpositionen\n\n## Dativ\n- zu + dem = zum, zu + der = zur, von + dem = vom\n- mit, nach, bei, seit\n"
    with indexed_vault(tmp_path, {"German/Präpositionen.md": note}) as engine:
        try:
            cards = cards_of(generate(engine, "flashcards", "German/Präpositionen.md")[1])
        except GenerationError:
            cards = []
    assert not [front for _, front, _ in cards if "zu + dem" in front], cards


def test_a_section_opening_that_names_its_section_is_a_cloze_and_a_students_question_tail_is_no_answer(
        tmp_path: Path) -> None:
    note = """# Fotosynthese

## Lichtsammelkomplexe

Lichtsammelkomplexe aus Chlorophyll a, Chlorophyll b und Carotinoiden fangen das Licht ein.

## Steam

- 1712 – Thomas Newcomen: atmospheric steam engine, pumps water out of mines, very inefficient → why?
- 1769 – James Watt: separate condenser, far less coal
- 1785 – Edmund Cartwright: power loom
"""
    with indexed_vault(tmp_path, {"Bio/Fotosynthese.md": note}) as engine:
        cards = cards_of(generate(engine, "flashcards", "Bio/Fotosynthese.md")[1])
    assert ("cloze", "==Lichtsammelkomplexe== aus Chlorophyll a, Chlorophyll b und Carotinoiden fangen das Licht "
            "ein.", "") in cards
    newcomen = [back for _, front, back in cards if "1712" in front]
    assert newcomen and not [back for back in newcomen if "why" in back], newcomen


def test_a_description_leaning_on_its_neighbours_or_the_students_chatter_is_no_card(tmp_path: Path) -> None:
    osi = """# OSI Model

## Encapsulation
- sender: each layer adds its own header in front of the data
- receiver: the other way round (decapsulation)
- RIGHT JOIN: the same from the right side (rarely used, just swap the tables)

## Chords
- diminished triad: minor third + minor third → B–D–F. ok makes sense
"""
    klima = """# Klimazonen

## Tageszeiten
- **Tageszeitenklima** = Temperaturunterschied zw. Tag und Nacht größer als zw. den Jahreszeiten
- **Jahreszeitenklima** = umgekehrt (bei uns)
- Pflichtangaben: Station, Höhe, Jahresniederschlag → in der Klausur gibts Punkte dafür!!
"""
    with indexed_vault(tmp_path, {"Netze/OSI Model.md": osi, "Geo/Klimazonen.md": klima}) as engine:
        cards = cards_of(generate(engine, "flashcards", "Netze/OSI Model.md")[1]) \
            + cards_of(generate(engine, "flashcards", "Geo/Klimazonen.md")[1])
    backs = [back for _, _, back in cards]
    leaning = ("the other way", "umgekehrt", "the same")
    assert not [back for back in backs if back.casefold().startswith(leaning)], cards
    assert not [back for back in backs if "makes sense" in back or "Punkte" in back], cards
    assert any(back.startswith("Minor third + minor third → B–D–F") for back in backs), cards  # the fact stays
    assert any(back.startswith("Station, Höhe, Jahresniederschlag") for back in backs), cards


def test_a_label_before_a_name_or_a_mnemonics_letter_is_not_asked_as_a_term(tmp_path: Path) -> None:
    note = """# EU Institutions

## President
- predecessors: Herman Van Rompuy (2009–2014), Donald Tusk (2014–2019), Charles Michel (2019–2024)
- term: 2.5 years, renewable once

## Commission
- administration: Directorates-General (DGs), about 32,000 staff
- others: Renew Europe, Greens/EFA, ECR
- competition policy: approves or blocks mergers, fines cartels, controls state aid

## Uses of estar
- **A**ction – progressive: *Estoy estudiando.* (estar + gerundio)
- **C**ondition – temporary state: *Estoy cansado.*
"""
    with indexed_vault(tmp_path, {"EU/EU Institutions.md": note}) as engine:
        cards = cards_of(generate(engine, "flashcards", "EU/EU Institutions.md")[1])
    fronts = [front for _, front, _ in cards]
    assert "President: predecessors?" in fronts and "Commission: administration?" in fronts, fronts
    assert "Commission: what is “competition policy”?" in fronts, fronts  # a term stays asked by its meaning
    assert not [front for front in fronts if "others" in front or "Action" in front or "Condition" in front], fronts


def test_a_list_whose_items_are_asked_one_by_one_is_not_asked_whole_again(tmp_path: Path) -> None:
    chemistry = """# Reaktionstypen

## Radikalische Substitution
Alkan + Halogen unter Licht:
1. Kettenstart: Spaltung des Halogens in zwei Radikale
2. Kettenfortpflanzung: ein Radikal reagiert mit dem Alkan weiter
3. Kettenabbruch: zwei Radikale reagieren miteinander
"""
    kant = """# Kategorischer Imperativ

## Prüfverfahren
1. Maxime formulieren
2. verallgemeinern: Was wäre, wenn alle so handeln würden?
3. prüfen: Widerspruch im Denken oder Widerspruch im Wollen
"""
    with indexed_vault(tmp_path, {"Chemie/Reaktionstypen.md": chemistry, "Philosophie/Kant.md": kant}) as engine:
        for note, item in (("Chemie/Reaktionstypen.md", "Kettenstart"), ("Philosophie/Kant.md", "verallgemeinern")):
            cards = cards_of(generate(engine, "flashcards", note)[1])
            carrying = [(front, back) for _, front, back in cards if item in front + back]
            assert len(carrying) == 1, carrying  # the item's own card, not the whole list again


AMOUNTS = """# Parlament

## Seats per member state
- 2024: Germany 96, France 81, Italy 76
- 2019: Germany 96, France 79, Italy 76

## Budget
- 2021–2027: ≈ €1.074 trillion + recovery fund
- 2014–2020: ≈ €1.08 trillion in 2018 prices

## Timeline
- 1979: the first direct election of the Parliament takes place
- 2009: the Treaty of Lisbon gives the Parliament more powers
"""

LABELLED = """# Impressionismus

Der Impressionismus ist eine Stilrichtung der Malerei, die in Frankreich entstand.

## Merkmale
- **Pleinairmalerei** – draußen malen statt im Atelier
- Ziel: den flüchtigen Augenblick, Licht und Atmosphäre einfangen
- Motive: Alltag, Freizeit, Landschaft, Großstadt
- **Farbige Schatten** – kein Schwarz für Schatten
- **Komplementärkontrast** – Farben nebeneinander gesetzt statt gemischt
"""


def test_dated_amounts_are_no_events_and_labels_no_answers(tmp_path: Path) -> None:
    """A year before amounts ("2024: Germany 96, France 81, …", "2021–2027: ≈ €1.074 trillion") dates figures: no
    "what happened in 2024?"; a year before a clause with a verb is an event and still is. A plain label before
    its colon ("Ziel: …", "Motive: …") is what the item is about, no answer to "which Merkmal is this?" (a list too
    long to be asked whole is asked item by item)."""
    with indexed_vault(tmp_path, {"EU/Parlament.md": AMOUNTS, "Kunst/Impressionismus.md": LABELLED}) as engine:
        cards = cards_of(generate(engine, "flashcards", "EU/Parlament.md", count=30)[1])
        art = cards_of(generate(engine, "flashcards", "Kunst/Impressionismus.md", count=30)[1])
    fronts = [front for _, front, _ in cards]
    assert not [front for front in fronts if "happened in 2024" in front or "happened in 2021" in front], fronts
    assert any(front.endswith("what happened in 1979?") for front in fronts), fronts
    assert any("Welches Merkmal ist gemeint" in front for _, front, _ in art), art  # the terms still are
    assert not [back for _, _, back in art if back in ("Ziel", "Motive")], art


def test_merged_statements_course_remarks_quoted_highlights_names_and_labelled_aspects(tmp_path: Path) -> None:
    music = """# Harmony

## Worked example
> C–E is a major third, E–G is a minor third → major triad.

The dominant is the fifth degree of a scale, the subdominant is the fourth degree.

## Phases of the Baroque
- **Early Baroque** (~1600–1650) – Italy, new genres
  - Monteverdi – the first great operas in Mantua
  - Schütz – brought the Italian style to Germany

## Vocabulary (from tutorial 4, 12.11.)
- ostinato = a pattern repeated over and over
- basso continuo = bass line with chords improvised above it

## Central banks
- primary objective: price stability, an inflation target of 2 %
- main tool: key interest rates and asset purchases
- blocking minority: at least 4 member states with more than 35 % of the population

## Famous works
- Vivaldi's cycle ==„The Four Seasons“ (1725)==, four violin concertos, each on a season of the year
"""
    with indexed_vault(tmp_path, {"Music/Harmony.md": music}) as engine:
        cards = cards_of(generate(engine, "flashcards", "Music/Harmony.md")[1])
    fronts = [front for _, front, _ in cards]
    backs = [back for _, _, back in cards]
    texts = [front for kind, front, _ in cards if kind == "cloze"]
    # two statements are two facts: a definition's back stops before the next "X is Y"
    assert not [back for back in backs if "subdominant is" in back or "E–G is" in back], cards
    assert not [front for front in fronts if "C–E" in front], fronts  # a worked example names no term
    # a heading's remark on where the text came from is no part of a question
    assert not [front for front in fronts if "tutorial" in front or "12.11." in front], fronts
    assert "Vocabulary: what is “ostinato”?" in fronts, fronts
    # a name in a list of a phase's people is no term to define
    assert not [front for front in fronts if "what is “Monteverdi”" in front], fronts
    # a label with words before its aspect noun is asked as that aspect; a term stays asked by its meaning
    assert "Central banks: primary objective?" in fronts and "Central banks: main tool?" in fronts, fronts
    assert "Central banks: what is “blocking minority”?" in fronts, fronts
    # a highlighted quotation keeps both of its quotation marks inside the cloze
    assert any("==„The Four Seasons“ (1725)==" in text for text in texts), texts


def test_without_a_model_every_fact_the_note_supports_is_a_card(tmp_path: Path) -> None:
    pairs = [f"- word{index} :: Wort{index}" for index in range(30)]
    note = "# Vocabulary\n\n" + "\n".join(pairs) + "\n"
    with indexed_vault(tmp_path, {"Spanish/Words.md": note}) as engine:
        result, text = generate(engine, "flashcards", "Spanish/Words.md")
        asked, asked_text = generate(engine, "flashcards", "Spanish/Words.md", count=5)
    assert len(cards_of(text)) == 30 and not result.warnings, result.warnings  # not cut at a fixed number
    assert len(cards_of(asked_text)) == 5  # a count asked for is kept


def test_table_rows_beside_list_items_remarks_ranked_labels_and_lines_going_on(tmp_path: Path) -> None:
    chemistry = """# Groups

| Group | Structure | Suffix | Example |
|---|---|---|---|
| Thiol | R–SH | -thiol | methanethiol |
| Nitrile | R–C≡N | -nitrile | ethanenitrile |

- thiol: the sulfur analogue of an alcohol (R–SH)
- nitrile: a carbon triple-bonded to a nitrogen
- order of priority (highest first): nitrile > thiol > alkene
- SYN flood = attacker sends SYNs but never the final ACK → DoS (defence: SYN cookies)

## Parties
- biggest group: EPP (centre-right), second: S&D
- Dürer (Nuremberg): travels to Italy twice, self-portraits, printmaking

## Procedure
1. **First reading**: the parliament adopts its position
2. **Second reading**: approves all amendments → adopted; otherwise →
3. **Conciliation**: both sides agree on a joint text
"""
    with indexed_vault(tmp_path, {"Chem/Groups.md": chemistry}) as engine:
        cards = cards_of(generate(engine, "flashcards", "Chem/Groups.md")[1])
        _, quiz = generate(engine, "quiz", "Chem/Groups.md")
    fronts = [front for _, front, _ in cards]
    backs = [back for _, _, back in cards]
    # a table's row and a list item on the same term are two cards
    assert any(front.startswith("Groups: “Thiol” –") for front in fronts), fronts
    assert "Groups: what is “thiol”?" in fronts, fronts
    # a label with a remark in parentheses is asked as itself, and is no quiz option among terms
    assert "Groups: order of priority (highest first)?" in fronts, fronts
    assert "order of priority" not in "\n".join(line for line in quiz.split("\n") if line.startswith("- ")), quiz
    # "(defence: SYN cookies)" is a remark, not the next entry of a chain
    assert any(back.endswith("(defence: SYN cookies)") for back in backs), backs
    assert "Parties: biggest group?" in fronts and "Parties: Dürer (Nuremberg)?" in fronts, fronts
    # a line going on in the next one is no card's back
    assert not [back for back in backs if back.rstrip(".").endswith("otherwise")], backs


def test_kinds_named_with_an_adjective_formulas_named_in_their_heading_cut_lists_and_italic_examples(
        tmp_path: Path) -> None:
    history = """# Steam Age

## Social consequences
- urbanisation: Leeds grew from c. 50,000 (1801) to over 170,000 (1851)
- new classes: industrial middle class (factory owners) vs. working class

## Why Britain first?
- Resources: lots of coal and iron ore
- Capital: profits from trade
- Markets: colonies + a growing population
- Transport: rivers, canals, coastal shipping, no internal tolls
- Labour: workers freed by the enclosures, cheap and plenty of them
- Ideas: a scientific culture and patents that protected inventors

## 2nd law – F = ma
$$\\vec{F}_{net} = m\\vec{a}$$

## Prepositions
- *Ich kaufe ein Geschenk für **meinen** Vater.*
"""
    with indexed_vault(tmp_path, {"History/Steam Age.md": history}) as engine:
        cards = cards_of(generate(engine, "flashcards", "History/Steam Age.md")[1])
    fronts = [front for _, front, _ in cards]
    backs = [back for _, _, back in cards]
    texts = [front for kind, front, _ in cards if kind == "cloze"]
    assert not [front for front in fronts if "what is “urbanisation”" in front or "what is “new classes”" in front]
    assert any("which consequence is this" in front for front in fronts), fronts
    assert not [back for back in backs if back.endswith("…")], backs  # a list asked in part
    assert not [front for front in fronts if "F = ma" in front], fronts  # the heading says the formula
    assert "Prepositions: Ich kaufe ein Geschenk für ==meinen== Vater." in texts, texts


def test_a_two_way_comparison_table_gives_cards_and_no_question_with_another_aspects_cells(tmp_path: Path) -> None:
    note = """# Mechanisms

## E1 vs. E2
| | E1 | E2 |
|---|---|---|
| steps | two steps, over a carbocation | one step, concerted |
| kinetics | first order | second order |
| substrate | tertiary > secondary | primary > secondary |
| base | weak base is enough | strong base needed |
"""
    with indexed_vault(tmp_path, {"Chem/Mechanisms.md": note}) as engine:
        cards = cards_of(generate(engine, "flashcards", "Chem/Mechanisms.md")[1])
        with pytest.raises(GenerationError):  # every question would offer another aspect's cell as a wrong option
            generate(engine, "quiz", "Chem/Mechanisms.md")
    assert ("qa", "E1 vs. E2: “kinetics” – E1, E2?", "E1: first order; E2: second order") in cards, cards


def test_repeated_section_names_list_item_clozes_and_counted_lists_say_what_they_are_about(tmp_path: Path) -> None:
    note = """# Courts

## Supreme Court
### Composition
- **nine justices**, appointed for life by the President
- term of office: for life, no retirement age

## Court of Appeals
### Composition
- **thirteen circuits**, each with its own judges
- term of office: for life, like all federal judges

## The three branches
1. Legislative
2. Executive
3. Judicial

## Court of Claims
### Structure
- seat: Washington, D.C., in the Howard T. Markey building
"""
    with indexed_vault(tmp_path, {"Law/Courts.md": note}) as engine:
        cards = cards_of(generate(engine, "flashcards", "Law/Courts.md")[1])
    fronts = [front for _, front, _ in cards]
    # a section named by an aspect alone ("Structure: seat?") names its subject too
    assert "Court of Claims › Structure: seat?" in fronts, fronts
    # "Composition: term of office?" would name no one court
    assert "Supreme Court › Composition: term of office?" in fronts, fronts
    assert "Court of Appeals › Composition: term of office?" in fronts, fronts
    # a list item's cloze is a fragment: its section says what it is about
    assert any(front.startswith("Supreme Court › Composition: ==nine justices==, appointed") for front in fronts)
    # a heading counting its list asks for the items by name, not as steps
    assert ("qa", "Courts: name the three branches.", "Legislative; Executive; Judicial.") in cards, cards
    assert not [front for front in fronts if "which steps" in front], fronts


def test_a_nested_item_names_its_parent_and_lines_leaning_back_or_going_on_are_no_cards(tmp_path: Path) -> None:
    note = """# Baroque

## Phases
- **Early Baroque** (~1600–1650) – Italy, new genres
  - Monteverdi – the first great operas in Mantua
  - Schütz – brought the Italian style to Germany

## Joins
A condition on the right table in the `WHERE` clause turns the LEFT JOIN into an INNER JOIN.
Put that condition into `ON` instead.

## Seats
- Parliament: Strasbourg (plenary), Brussels (committees)
- Council: Brussels (in April, June and October: Luxembourg)
- Central Bank: Frankfurt am Main
- Commission: Brussels

## Procedure
1. proposal by the commission, sent to both chambers
2. first reading: each chamber adopts its position
3. second reading: approves all amendments → adopted; otherwise →
4. conciliation: both sides agree on a joint text
"""
    with indexed_vault(tmp_path, {"Art/Baroque.md": note}) as engine:
        cards = cards_of(generate(engine, "flashcards", "Art/Baroque.md")[1])
        _, quiz = generate(engine, "quiz", "Art/Baroque.md")
    fronts = [front for _, front, _ in cards]
    backs = [back for _, _, back in cards]
    assert "Phases › Early Baroque: Monteverdi?" in fronts and "Seats: Parliament?" in fronts, fronts
    assert not [front for front in fronts if "that condition" in front], fronts
    assert not [text for text in fronts + backs if text.rstrip(".").endswith(("otherwise", "→"))], cards
    for block in quiz.split("## ")[1:]:  # "Brussels" beside "Brussels (in April …)": two right options
        options = [line[5:] for line in block.split("\n") if line.startswith("- ") and line[3:5] == ") "]
        assert not ("Brussels" in options and any(o.startswith("Brussels (") for o in options)), block


def test_a_transcripts_spoken_definitions_are_cards_without_the_speakers_openers(tmp_path: Path) -> None:
    note = ("# Lecture 3 – Kidney (Transcript)\n\n"
            "**[00:00]** Okay, good morning, let's start. So, quick recap — the glomerular filtration rate is plasma "
            "volume filtered per minute by both kidneys. Write that down.\n\n"
            "**[04:10]** Now — and this is a classic exam question — renin is basically an enzyme released by the "
            "juxtaglomerular cells. It is really important.\n\n"
            "**[09:30]** The loop of Henle is very long in desert animals.\n\n"
            "**[12:00]** And then the kidney is failing slowly, the nephrons die off. The patient is anaemic — the "
            "kidney makes less erythropoietin.\n")
    with indexed_vault(tmp_path, {"Med/Lecture 3.md": note}) as engine:
        cards = cards_of(generate(engine, "flashcards", "Med/Lecture 3.md")[1])
    assert ("qa", "What is the glomerular filtration rate?", "Plasma volume filtered per minute by both kidneys.") \
        in cards, cards
    assert ("qa", "What is renin?", "An enzyme released by the juxtaglomerular cells.") in cards, cards
    texts = " ".join(front + back for _, front, back in cards)
    assert "[0" not in texts and "Okay" not in texts and "exam question" not in texts, cards
    assert "desert" not in texts, cards  # "is very long": it says something about the loop, no definition
    # "is failing slowly", "is anaemic — …": how the kidney or the patient is, not what they are
    assert "failing" not in texts.casefold() and "anaemic" not in texts.casefold(), cards


def test_a_column_header_that_asks_already_is_asked_once(tmp_path: Path) -> None:
    note = """# Acts

| Act | Binding? | Addressed to |
|---|---|---|
| Regulation | yes | everyone |
| Opinion | no | |
"""
    with indexed_vault(tmp_path, {"Law/Acts.md": note}) as engine:
        fronts = [front for _, front, _ in cards_of(generate(engine, "flashcards", "Law/Acts.md")[1])]
    assert "Acts: “Opinion” – Binding?" in fronts and not [front for front in fronts if "??" in front], fronts


def test_an_abbreviation_is_no_wrong_option_beside_a_term(tmp_path: Path) -> None:
    accounts = """# Konten

- BGA = Betriebs- und Geschäftsausstattung
- aLuL = aus Lieferungen und Leistungen
- Aktivtausch = Aktivkonto an Aktivkonto, die Bilanzsumme bleibt gleich
- Passivtausch = Passivkonto an Passivkonto, die Bilanzsumme bleibt gleich

Das Privatkonto ist ein Unterkonto für die Entnahmen und Einlagen des Inhabers.
Das Erfolgskonto ist ein Unterkonto, das die Aufwendungen oder die Erträge sammelt.
"""
    balance = """# Bilanz

Das GuV-Konto ist ein Unterkonto des Eigenkapitalkontos.
Die Bilanz ist eine Gegenüberstellung von Vermögen und Kapital zu einem Stichtag.
Der Jahresabschluss ist die Bilanz mit der GuV am Ende des Geschäftsjahres.
"""
    with indexed_vault(tmp_path, {"BWL/Konten.md": accounts, "BWL/Bilanz.md": balance}) as engine:
        _, quiz = generate(engine, "quiz", "BWL/Bilanz.md")
    options = [line for line in quiz.split("\n") if line.startswith("- ") and line[3:5] == ") "]
    assert options and not [line for line in options if line.endswith((") BGA", ") aLuL"))], quiz


def test_a_line_cut_between_two_passages_gives_no_card() -> None:
    first = Source("c1", "History/Luther.md", "Luther", ("Luther", "Timeline"), "h1", line_start=3, line_end=6,
                   text="- 1517 – **Theses** against indulgences (31 Oct, Wittenberg)\n"
                        "- 1521 – **Diet of Worms**: Luther does not recant; the famous words were prob.",
                   lang="en")
    second = Source("c2", "History/Luther.md", "Luther", ("Luther", "Timeline"), "h2", line_start=5, line_end=8,
                    text="the famous words were prob. added later) → **Edict of Worms**: imperial ban\n"
                         "- 1525 – Luther marries Katharina von Bora", lang="en", continues_section=True)
    sentences_read = [fact.sentence for fact in all_facts([first, second], "en")]
    assert any("Theses" in sentence for sentence in sentences_read), sentences_read
    assert not [sentence for sentence in sentences_read if sentence.rstrip().endswith("prob.")], sentences_read


def test_a_short_timeline_restating_a_card_and_a_span_of_years_as_a_time(tmp_path: Path) -> None:
    note = """# Steam

## Textiles
- 1769: Richard Arkwright patents the water frame → 1771 Cromford Mill, the first spinning mill
- 1521/22: on the Wartburg, Luther translates the New Testament

## Timeline (short version)
- 1771: Cromford Mill
- 1785: power loom by Edmund Cartwright
"""
    with indexed_vault(tmp_path, {"History/Steam.md": note}) as engine:
        fronts = [front for _, front, _ in cards_of(generate(engine, "flashcards", "History/Steam.md")[1])]
    assert "Textiles: what happened in 1521/22?" in fronts, fronts
    assert "Timeline (short version): what happened in 1785?" in fronts, fronts
    assert "Timeline (short version): what happened in 1771?" not in fronts, fronts  # the 1769 card says it


def test_a_timeline_before_the_common_era_is_asked_by_its_dates(tmp_path: Path) -> None:
    # "776 v. Chr.", "c. 3100 BC", "30 BC": a date with its era (a short year says it) is a time to ask about; the
    # era's periods end no clause, and an ordinal opening the event ("1. Triumvirat", "2nd Punic War") is which one,
    # not an amount
    notes = {"Geschichte/Antike.md": """# Griechische Antike

## Zeitstrahl
- **776 v. Chr.** – erste Olympische Spiele in Olympia
- 490 v. Chr. – Schlacht bei Marathon
- 60 v. Chr. – 1. Triumvirat: Caesar, Pompeius, Crassus
""", "History/Egypt.md": """# Ancient Egypt

## Timeline
- **c. 3100 BC** – Narmer unifies Upper and Lower Egypt
- 1274 BC – Battle of Kadesh between Ramesses II and the Hittites
- 218–201 BC – 2nd Punic War, Hannibal crosses the Alps
- 30 BC – Cleopatra dies, Egypt becomes a Roman province
"""}
    with indexed_vault(tmp_path, notes) as engine:
        german = [front for _, front, _ in cards_of(generate(engine, "flashcards", "Geschichte/Antike.md")[1])]
        english = [front for _, front, _ in cards_of(generate(engine, "flashcards", "History/Egypt.md")[1])]
        quiz = parse_quiz(generate(engine, "quiz", "Geschichte/Antike.md")[1])
    assert {"Zeitstrahl: Was geschah 776 v. Chr.?", "Zeitstrahl: Was geschah 490 v. Chr.?",
            "Zeitstrahl: Was geschah 60 v. Chr.?"} <= set(german), german
    assert {"Timeline: what happened in c. 3100 BC?", "Timeline: what happened in 218–201 BC?",
            "Timeline: what happened in 30 BC?"} <= set(english), english
    dated = [question for question in quiz.questions if "776 v. Chr." in question.options]
    assert dated and all(question.question.startswith("Zeitstrahl: Wann war das") for question in dated), \
        [question.question for question in quiz.questions]


def test_a_label_pointing_back_is_no_card(tmp_path: Path) -> None:
    note = """# Councils

## Confusing names
- **European Council** = heads of state or government, sets the political direction
- **Council of Europe** = not an EU body at all, a separate organisation in Strasbourg
- same with the courts: CJEU (Luxembourg, EU law) vs. ECtHR (Strasbourg, human rights)

## Other bodies
- **European Investment Bank** (EIB), Luxembourg – the EU's bank, lends for projects in the member states
- **European Ombudsman** – complaints about maladministration, elected by the Parliament
"""
    with indexed_vault(tmp_path, {"EU/Councils.md": note}) as engine:
        fronts = [front for _, front, _ in cards_of(generate(engine, "flashcards", "EU/Councils.md")[1])]
    assert fronts and not [front for front in fronts if "same with" in front], fronts
    # a label of a term and its seat is no term: "European Investment Bank (EIB), Luxembourg?" asks nothing clear
    assert not [front for front in fronts if front.endswith("Luxembourg?")], fronts


def test_a_labelled_lists_question_names_its_label_and_offers_its_items(tmp_path: Path) -> None:
    note = """# Intervals

- tritone = 3 whole tones, splits the octave in the middle
- inversion = interval + inversion = 9 steps, major becomes minor
- Songs (first notes, upwards):
  - fourth: "Here Comes the Bride"
  - fifth: "Twinkle Twinkle Little Star"
  - octave: "Somewhere over the Rainbow"
  - major sixth: "My Bonnie Lies over the Ocean"
"""
    with indexed_vault(tmp_path, {"Music/Intervals.md": note}) as engine:
        _, quiz = generate(engine, "quiz", "Music/Intervals.md")
    asked = [block for block in quiz.split("## ")[1:] if "Twinkle" in block.split("\n- ")[0]]
    assert asked, quiz
    for block in asked:
        assert "Songs" in block.split("\n- ")[0], block  # the stem names the list the song is on
        assert "tritone" not in block and "inversion" not in block, block  # the song's interval among the songs'


def test_a_heading_that_counts_what_to_do_is_no_counted_list(tmp_path: Path) -> None:
    note = """# Canvas

## Zwei Karten verbinden
1. Bewege den Cursor über eine Kante einer Karte, bis ein Kreis erscheint.
2. Ziehe den Kreis zur Kante einer anderen Karte.

## Die 3 Hauptsätze
1. Energie bleibt erhalten.
2. Entropie nimmt nicht ab.
3. Der absolute Nullpunkt ist unerreichbar.
"""
    with indexed_vault(tmp_path, {"Tools/Canvas.md": note}) as engine:
        fronts = [front for _, front, _ in cards_of(generate(engine, "flashcards", "Tools/Canvas.md")[1])]
    assert "Canvas: Nenne die 3 Hauptsätze." in fronts, fronts
    assert not [front for front in fronts if front.startswith("Canvas: Nenne") and "Hauptsätze" not in front], fronts


def test_a_gap_takes_the_gloss_that_says_it_again(tmp_path: Path) -> None:
    note = """# Ethics

- The **greatest happiness principle** (Prinzip des Glücks) judges an act by its consequences for all.
- Every decision is weighed in a **felicific calculus** (hedonistisches Kalkül), seven criteria in all.
- A duty ethics judges the **maxim** behind an act, whatever comes of it later on.
- The **Court of Auditors** (ECA) checks the accounts of every body of the union.
- Bentham's **Panopticon** (recommended) was a prison plan where one guard could watch every cell.
- Open the **File Explorer** (Windows) and look for the folder where the essays are kept.
- Mark the folder **Always keep on this device** (OneDrive) so that the essays stay on the disk.
"""
    with indexed_vault(tmp_path, {"Ethics/Consequences.md": note}) as engine:
        clozes = [front for kind, front, _ in cards_of(generate(engine, "flashcards", "Ethics/Consequences.md")[1])
                  if kind == "cloze"]
        try:
            _, quiz = generate(engine, "quiz", "Ethics/Consequences.md")
        except GenerationError:
            quiz = ""
    text = " ".join(clozes)
    assert "==greatest happiness principle (Prinzip des Glücks)==" in text, clozes
    assert "==Court of Auditors (ECA)==" in text, clozes
    assert "==greatest happiness principle== (" not in text and "(Prinzip des Glücks)" not in quiz, quiz
    # a remark on the term, not the term again, stays outside its gap
    assert "(recommended)==" not in text and "==File Explorer== (Windows)" in text, clozes
    assert "(OneDrive)==" not in text, clozes


def test_a_back_stops_before_the_next_labelled_fact(tmp_path: Path) -> None:
    note = """# Parliaments

## Bundestag
- seat: Berlin, President **Julia Klöckner** (since 2025)
- biggest group: CDU/CSU (centre-right), second: AfD (far right)
- members: 630 since the reform, chosen every four years
"""
    with indexed_vault(tmp_path, {"Politics/Parliaments.md": note}) as engine:
        cards = cards_of(generate(engine, "flashcards", "Politics/Parliaments.md")[1])
    backs = {front: back for kind, front, back in cards if kind == "qa"}
    seat = [back for front, back in backs.items() if front.endswith("seat?")]
    group = [back for front, back in backs.items() if front.endswith("biggest group?")]
    assert seat == ["Berlin."] or seat == ["Berlin"], backs
    assert group and "AfD" not in group[0] and group[0].startswith("CDU/CSU (centre-right)"), backs
    assert any(back.startswith("630 since the reform") for back in backs.values()), backs


def test_a_gap_whose_case_shows_offers_no_option_in_another_case(tmp_path: Path) -> None:
    note = """# Rechnungswesen

## Bilanz
Die **Bilanz** stellt das Vermögen und das Kapital zu einem Stichtag gegenüber, als Bestandsgröße.

## Erfolgsrechnung
Die Erfolgsrechnung stellt Aufwendungen und Erträge eines **Geschäftsjahres** gegenüber, als Stromgröße.

## Kapital
Das **Eigenkapital** steht auf der Passivseite der Bilanz, gleich neben dem Fremdkapital.

## Inventur
Die **Inventur** ist die körperliche Bestandsaufnahme aller Vermögensteile zum Jahresende.

## Abschreibung
Die **Abschreibung** erfasst den Wertverlust der Anlagen über ihre Nutzungsdauer hinweg.
"""
    with indexed_vault(tmp_path, {"BWL/Rechnungswesen.md": note}) as engine:
        _, quiz = generate(engine, "quiz", "BWL/Rechnungswesen.md")
    assert "Bilanz" in quiz, quiz  # the other gaps are asked
    for question in parse_quiz(quiz).questions:
        if question.options[question.correct_index] == "Geschäftsjahres":
            assert all(option.endswith("s") for option in question.options), question


def test_a_wrong_option_keeps_the_case_of_its_notation(tmp_path: Path) -> None:
    note = """# Chords

## Triads
| Triad | Intervals from the root | Example |
|---|---|---|
| major | M3 + P5 | C–E–G |
| minor | m3 + P5 | C–Eb–G |
| diminished | m3 + d5 | B–D–F |
| augmented | M3 + A5 | C–E–G# |
"""
    with indexed_vault(tmp_path, {"Music/Chords.md": note}) as engine:
        _, quiz = generate(engine, "quiz", "Music/Chords.md")
    options = [option for question in parse_quiz(quiz).questions for option in question.options]
    assert "M3 + P5" in options, quiz
    assert not [option for option in options if option not in note], options  # "m3 + d5" never "M3 + d5"


def test_a_key_alone_in_its_form_or_named_by_its_short_name_in_the_stem_is_no_question() -> None:
    source = "Herzzeitvolumen (HZV), Systole, Diastole"
    assert question_problems("Welcher Begriff gehört zu „Schlagvolumen × Herzfrequenz“?",
                             ["Herzzeitvolumen (HZV)", "Systole", "Diastole"], 0, source, "de") == \
        ["answer_stands_out"]
    assert question_problems("Welcher Begriff gehört zu „Schlagvolumen × Herzfrequenz“?",
                             ["Systole", "Herzzeitvolumen (HZV)", "Diastole"], 0, source, "de") == []
    assert question_problems("Welcher Begriff wird hier beschrieben: „Ein Unterkonto des Eigenkapitalkontos“?",
                             ["das GuV-Konto", "Aktivtausch", "Passivtausch"], 0, "das GuV-Konto", "de") == \
        ["answer_stands_out"]
    assert question_problems("Which city goes with “Tropics”?", ["Cairo, Rome", "Manaus", "Oslo"], 0,
                             "Cairo, Rome", "en") == ["answer_stands_out"]
    assert question_problems("Which step comes right after “Intake”?",
                             ["Delay node → slows the signal so the atria contract first", "Bundle", "Fibres"], 0,
                             "Delay node → slows the signal so the atria contract first", "en") == \
        ["answer_stands_out"]
    assert question_problems("Which term goes with “Fictive volume the drug would fill; Vd = dose / c0”?",
                             ["volume of distribution (Vd)", "clearance (CL)", "prodrug"], 0,
                             "volume of distribution (Vd)", "en") == ["answer_in_stem"]


def test_a_quiz_offers_no_key_that_its_gloss_or_article_gives_away(tmp_path: Path) -> None:
    note = """# Astronomie

## Begriffe
- **Astronomische Einheit (AE)** – Mittlerer Abstand zwischen Erde und Sonne; 1 AE ≈ 150 Mio. km.
- **Lichtjahr** – Strecke, die das Licht in einem Jahr im Vakuum zurücklegt.
- **Parsec** – Entfernung, aus der eine AE unter einer Bogensekunde erscheint.
- **Rotverschiebung** – Verschiebung der Spektrallinien zu größeren Wellenlängen bei Entfernung der Quelle.
- **Das Sonnensystem** – Die Sonne mit allen Körpern, die sie auf ihren Bahnen umkreisen.
"""
    with indexed_vault(tmp_path, {"Physik/Astronomie.md": note}) as engine:
        _, quiz = generate(engine, "quiz", "Physik/Astronomie.md")
    questions = parse_quiz(quiz).questions
    assert questions, quiz
    for question in questions:
        key = question.options[question.correct_index]
        assert key not in ("Astronomische Einheit (AE)", "Das Sonnensystem"), question


def test_a_long_code_span_is_no_gap(tmp_path: Path) -> None:
    note = """# Normalisierung

## Ausgangslage
Vorher steht alles in einer Relation: `Auftrag(AuftragNr, Datum, KundeNr, KundeName, TeilNr, Teilname)`.
Mit `SELECT DISTINCT` entfernt man doppelte Zeilen aus dem Ergebnis einer Abfrage.
"""
    with indexed_vault(tmp_path, {"Datenbanken/Normalisierung.md": note}) as engine:
        texts = [text for _, text, _ in cards_of(generate(engine, "flashcards", "Datenbanken/Normalisierung.md")[1])]
    assert "Auftrag(" not in str(texts) and "SELECT DISTINCT" in str(texts), texts


def test_a_fact_carded_twice_is_one_card(tmp_path: Path) -> None:
    history = """# Railways

## Where they sit
| Institution | Seat |
|---|---|
| RHC | York |
| NRM | London |

## Railway Heritage Committee
- Seat: York (the old station hotel).

## Consequences
- **Railway Act 1844**: every company runs one cheap train a day on each line, at most a penny a mile.

## Timeline (short version)
- 1844 – Railway Act
- 1830 – Liverpool and Manchester Railway
"""
    with indexed_vault(tmp_path, {"History/Railways.md": history}) as engine:
        cards = cards_of(generate(engine, "flashcards", "History/Railways.md")[1])
    backs = [back.rstrip(".") for _, _, back in cards]
    assert [back for back in backs if back.startswith("York")] == ["York"], cards
    assert "Railway Act" not in backs, cards


def test_a_gap_after_an_article_offers_only_what_stood_after_that_article(tmp_path: Path) -> None:
    note = """# Optics

## Mirrors
Light falling on a mirror leaves it at a **reflection angle** equal to the angle of incidence.

## Lenses
A convex lens bends parallel rays so that they meet in a **focal point** behind the lens.

## Prisms
A prism splits white light into a **spectrum** of colours, violet bent most strongly.

## Fibres
Inside a glass fibre, light stays in the core by **total internal reflection** at its wall.

## Waves
Two waves meeting in step add up; out of step they cancel, which shows in the **same direction** only.

## Speed
Light slows down in glass because the glass has the **higher refractive index** of the two media.
"""
    with indexed_vault(tmp_path, {"Physics/Optics.md": note}) as engine:
        _, quiz = generate(engine, "quiz", "Physics/Optics.md")
    after_a = {"reflection angle", "focal point", "spectrum"}
    asked = [question for question in parse_quiz(quiz).questions
             if question.options[question.correct_index] in after_a]
    assert asked, quiz  # the gaps after "a" are asked, each among the others after "a"
    for question in asked:
        assert set(question.options) <= after_a, question  # never "total internal reflection", "same direction"


def test_a_label_stating_a_rule_is_no_term_to_ask(tmp_path: Path) -> None:
    note = """# Wetterkarten

## Wetterkarte lesen
- Isobaren: Linien gleichen Luftdrucks auf Meereshöhe
- immer angeben: Datum, Uhrzeit, Quelle der Karte
- Druck stets in Hektopascal: 1 hPa = 100 Pa

## Pressure
- isobar: a line joining places of equal pressure
- never skip: the date and the source of the chart
"""
    with indexed_vault(tmp_path, {"Geo/Wetterkarten.md": note}) as engine:
        _, cards = generate(engine, "flashcards", "Geo/Wetterkarten.md")
    fronts = [front for _, front, _ in cards_of(cards)]
    assert any("Isobaren" in front for front in fronts), fronts  # a term is still asked
    assert not [front for front in fronts if "immer" in front or "stets" in front or "never" in front], fronts


def test_a_question_callout_over_its_answer_is_a_card_without_the_course_aside(tmp_path: Path) -> None:
    note = """# Glaciers

## Movement
Glaciers flow downhill under their own weight, faster at the surface than at the bed.

> [!question] Why does a glacier flow faster in its middle?
> → the valley walls slow its edges by friction. ok got it

> [!question] Do glaciers still grow today?
> most of them shrink, a few in Norway grew until 2000 → ask in the tutorial

> [!faq]- Does a glacier erode the rock below it?
> Yes! It grinds its bed with the stones frozen into its ice.

> [!question] is this on the exam?
"""
    with indexed_vault(tmp_path, {"Geo/Glaciers.md": note}) as engine:
        _, cards = generate(engine, "flashcards", "Geo/Glaciers.md")
    found = {front: back for _, front, back in cards_of(cards)}
    assert found.get("Why does a glacier flow faster in its middle?") == \
        "The valley walls slow its edges by friction.", found
    assert found.get("Do glaciers still grow today?") == \
        "Most of them shrink, a few in Norway grew until 2000.", found
    assert found.get("Does a glacier erode the rock below it?") == \
        "Yes! It grinds its bed with the stones frozen into its ice.", found  # the short answer stays
    assert not [front for front in found if "exam" in front], found


def test_a_case_described_by_its_formula_is_asked_for_the_formula() -> None:
    asked = item_question("rolling friction", r"$F_R = \mu_r F_N$, much smaller than sliding", "Forces", "Mechanics",
                          False)
    assert asked.front == "Forces › rolling friction: formula?"
    asked = item_question("Hubarbeit", r"$W = m g h$ (konstantes g)", "Arbeit", "Mechanik", True)
    assert asked.front == "Arbeit › Hubarbeit: Formel?"
    # a value is no formula: "1 kWh: $3.6 \cdot 10^6$ J" asks for the value
    assert item_question("1 kWh", r"$3.6 \cdot 10^6$ J", "Power", "Energy", False).front == "Power: 1 kWh?"


def test_a_code_gap_after_an_article_still_takes_other_code(tmp_path: Path) -> None:
    note = """# Editor keys

## Commands
Run a command inside the editor with the `/` key, then type the command's name.

## Tags
Start a tag inside a line with a `#` character, followed by the tag's name.

## Lines
Draw a horizontal rule by typing `---` on a line of its own, between two paragraphs.

## Links
Open a link in a new tab while holding `Ctrl` and clicking the link itself.
"""
    with indexed_vault(tmp_path, {"Help/Editor keys.md": note}) as engine:
        _, quiz = generate(engine, "quiz", "Help/Editor keys.md")
    keys = [question for question in parse_quiz(quiz).questions if question.options[question.correct_index] == "`/`"]
    assert keys and len(keys[0].options) >= 3, quiz  # "the … key" takes `#`, `---`: the article is the key's


EIGEN = r"""# Eigenvalues

## Definitions
A vector $\vec{v} \neq \vec{0}$ is called an **eigenvector** of $A$ if $A\vec{v} = \lambda \vec{v}$ for some scalar $\lambda$.
- **algebraic multiplicity**: how often $\lambda$ is a root of $\chi_A$
- **geometric multiplicity**: the dimension of the eigenspace of $\lambda$
- **eigenvalue**: a root of $\chi_A$

## Computing eigenvalues
1. Set up $A - \lambda I$
2. Compute $\chi_A(\lambda) = \det(A - \lambda I)$
3. Find the roots of $\chi_A$ → these are the eigenvalues
4. For each root solve $(A - \lambda I)\vec{v} = \vec{0}$
"""  # noqa: E501 - a note's definition line, as a note has it

ABBILDUNGEN = r"""# Lineare Abbildungen

## Definitionen
Ein Vektor $v \neq 0$ ist ein Eigenvektor von $f$, wenn $f(v) = \lambda v$ für ein $\lambda \in K$ gilt.
Eine Abbildung $f: V \to W$ heißt **linear**, wenn $f(u + v) = f(u) + f(v)$ gilt.
Der **Kern** von $f$ ist die Menge aller $v$ mit $f(v) = 0$.

## Gauß-Algorithmus
1. ==Zeilen vertauschen==, sodass oben links kein Nulleintrag steht
2. ==Vielfache einer Zeile addieren==, bis unter dem Pivot nur Nullen stehen
3. ==Rückwärts einsetzen==, bis alle Unbekannten bestimmt sind
"""  # noqa: E501 - a note's definition line, as a note has it


def test_a_condition_after_the_verb_defines_the_word_before_it_not_the_subject(tmp_path: Path) -> None:
    """"A vector v≠0 is called an eigenvector of A if …", "Ein Vektor … ist ein Eigenvektor von f, wenn …" define the
    eigenvector: no card asks what a vector is or is called, the gap on the defined word stays (issue 25, fresh
    notes: "Definition: what is a vector v≠0?::An eigenvector of A … if.")."""
    with indexed_vault(tmp_path, {"Math/Eigenvalues.md": EIGEN, "Mathe/Abbildungen.md": ABBILDUNGEN}) as engine:
        english = cards_of(generate(engine, "flashcards", "Math/Eigenvalues.md")[1])
        german = cards_of(generate(engine, "flashcards", "Mathe/Abbildungen.md")[1])
    fronts = [front for _, front, _ in english + german]
    assert not [front for front in fronts if "vector" in front.casefold() and front.endswith("?")], fronts
    assert ("cloze", r"A vector $\vec{v} \neq \vec{0}$ is called an ==eigenvector== of $A$ if $A\vec{v} = \lambda "
                     r"\vec{v}$ for some scalar $\lambda$.", "") in english, english
    assert ("qa", "Definitionen: Was ist der Kern von $f$?", "Die Menge aller $v$ mit $f(v) = 0$") in german, german
    assert not [back for _, _, back in english + german if back.rstrip(".").endswith((" if", " wenn"))]


def test_a_list_asked_whole_is_not_asked_again_by_its_gaps_steps_or_formulas(tmp_path: Path) -> None:
    """A numbered list asked whole ("which steps, in order?") has no cloze on its items beside it, a numbered step
    "Set up $A - \\lambda I$" is no formula named "Set up", and a numbered list of mechanisms is no sequence: no
    "what comes right after" card beside its items' cards."""
    bacteria = """# Bakteriengenetik

## Horizontaler Gentransfer
Gene werden auch zwischen Zellen übertragen, die nicht Eltern und Nachkommen sind.
Drei Mechanismen:
1. **Transformation**: Aufnahme freier DNA aus der Umgebung
2. **Transduktion**: Übertragung von DNA durch Bakteriophagen
3. **Konjugation**: Übertragung eines Plasmids über einen Sexpilus
"""
    notes = {"Math/Eigenvalues.md": EIGEN, "Mathe/Abbildungen.md": ABBILDUNGEN, "Bio/Bakterien.md": bacteria}
    with indexed_vault(tmp_path, notes) as engine:
        cards = {note: cards_of(generate(engine, "flashcards", note)[1]) for note in notes}
    german = cards["Mathe/Abbildungen.md"]
    assert [front for _, front, _ in german if front.endswith("Welche Schritte, in welcher Reihenfolge?")], german
    assert not [front for kind, front, _ in german if kind == "cloze" and "Gauß-Algorithmus" in front], german
    english = [front for _, front, _ in cards["Math/Eigenvalues.md"]]
    assert not [front for front in english if "Set up" in front or "Compute:" in front], english
    assert "“Eigenvalues” › “Computing eigenvalues”: which steps, in order?" in english, english
    fronts = [front for _, front, _ in cards["Bio/Bakterien.md"]]
    assert "Horizontaler Gentransfer: Was bedeutet „Transduktion“?" in fronts, fronts
    assert not [front for front in fronts if "Was kommt direkt nach" in front], fronts


def test_a_gap_a_definition_card_answers_already_is_no_cloze(tmp_path: Path) -> None:
    note = """# Python generators

A **generator function** is a function that contains `yield`; calling it returns a generator object instead.
`next(gen)` runs the body of the generator until the next `yield` and returns its value.
"""
    with indexed_vault(tmp_path, {"Python/Generators.md": note}) as engine:
        cards = cards_of(generate(engine, "flashcards", "Python/Generators.md")[1])
    assert ("qa", "What is a generator function?", "A function that contains `yield`") in cards, cards
    assert not [front for kind, front, _ in cards if kind == "cloze" and "==`yield`==" in front], cards


def test_no_wrong_option_says_part_of_the_key_or_names_the_section_the_key_is_one_of(tmp_path: Path) -> None:
    """"`.then()`" beside "`.then/.catch/.finally`", "Ein Plasmid" beside "F-Plasmid", "A root of χ_A" beside "how
    often λ is a root of χ_A": one says part of the other, both may be right; "horizontaler Gentransfer" beside
    "Konjugation", listed under it, is right too. A gap in a list item takes the list's other gaps, never a term of
    another section ("Kern" for "Zeilen vertauschen")."""
    promises = """# JS Promises

## Consuming promises
Use `.then/.catch/.finally` to register callbacks for the value, for errors and for both cases.

## Chaining
Calling `.then()` on a promise returns a new promise, so calls can be chained one after another.

## async / await
The `await` keyword pauses the async function until the promise settles.
An `async` function always returns a promise, even when its body returns a plain value.
"""
    bacteria = """# Bakteriengenetik

## Horizontaler Gentransfer
- **Transformation**: Aufnahme freier DNA aus der Umgebung
- **Transduktion**: Übertragung von DNA durch Bakteriophagen
- **Konjugation**: Übertragung eines Plasmids über einen Sexpilus

## Plasmide
- **Ein Plasmid**: ein kleines, ringförmiges DNA-Molekül neben dem Chromosom
- **F-Plasmid**: trägt die Gene für den Sexpilus
- **R-Plasmid**: trägt Resistenzgene gegen Antibiotika

## Begriffe
Der **horizontale Gentransfer** ist die Übertragung von Genen zwischen Zellen, die nicht verwandt sind.
Ein **Operon** ist eine Gruppe von Genen, die von einem Promotor aus gemeinsam abgelesen werden.
"""
    notes = {"Web/Promises.md": promises, "Bio/Bakterien.md": bacteria, "Math/Eigenvalues.md": EIGEN,
             "Mathe/Abbildungen.md": ABBILDUNGEN}
    quizzes = {}
    with indexed_vault(tmp_path, notes) as engine:
        for note in notes:
            try:
                quizzes[note] = parse_quiz(generate(engine, "quiz", note)[1]).questions
            except GenerationError:
                quizzes[note] = []  # fewer options or no question rather than a bad one
    assert quizzes["Web/Promises.md"] and quizzes["Bio/Bakterien.md"], quizzes
    for questions in quizzes.values():
        for question in questions:
            pairs = [(a, b) for a in question.options for b in question.options if a != b]
            assert not [pair for pair in pairs if part_of(*pair)], question
            assert not {"Konjugation", "horizontale Gentransfer"} <= set(question.options), question
    gaps = [q for q in quizzes["Mathe/Abbildungen.md"] if "Gauß-Algorithmus" in q.question]
    for question in gaps:
        assert set(question.options) <= {"Zeilen vertauschen", "Vielfache einer Zeile addieren",
                                         "Rückwärts einsetzen"}, question


def test_items_under_a_heading_that_asks_and_a_students_bracketed_remark_are_no_terms_and_no_answer(
        tmp_path: Path) -> None:
    note = """# Lecture 04 - Congress of Vienna (Transcript)

[03:30] So the Concert of Europe is the system of regular congresses by which the great powers managed European affairs after 1815. [→ he will ask about this in the exam!]

[06:00] The balance of power is basically the idea that no state is strong enough to threaten all the others. [I think this is from Hume?]
"""  # noqa: E501 - a transcript's paragraphs, as a note has them
    generators = """# Generators

## When to use
- pipelines: `grep → filter → map` as chained generators
- large files: read a log file line by line without loading it
"""
    with indexed_vault(tmp_path, {"History/Vienna.md": note, "Python/Generators.md": generators}) as engine:
        spoken = cards_of(generate(engine, "flashcards", "History/Vienna.md")[1])
        listed = cards_of(generate(engine, "flashcards", "Python/Generators.md")[1])
    assert ("qa", "What is the Concert of Europe?", "The system of regular congresses by which the great powers "
                  "managed European affairs after 1815.") in spoken, spoken
    assert ("qa", "What is the balance of power?", "The idea that no state is strong enough to threaten all the "
                  "others.") in spoken, spoken
    assert not [back for _, _, back in spoken if "[" in back], spoken
    assert ("qa", "When to use: pipelines?", "`grep → filter → map` as chained generators.") in listed, listed
    assert not [front for _, front, _ in listed if "what is" in front], listed


def test_a_transcripts_defined_terms_are_each_others_options_and_a_role_filled_by_a_name_is_no_term(
        tmp_path: Path) -> None:
    """A lecture with no headings defines its terms in one section: each is a wrong option for the others (it had
    no quiz at all). "The key figure is Metternich, …" says who fills a role of nothing named: no "What is the key
    figure?" card and no such option."""
    note = """# Lecture 04 - Congress of Vienna (Transcript)

[01:00] Okay, so the balance of power is the idea that no single state is strong enough to threaten all the others.

[02:10] Legitimacy was the principle that the old dynasties had to be restored to their thrones.

[03:30] Compensation was the rule that a power losing land got territory somewhere else in return.

[04:00] The key figure is Metternich, the Austrian foreign minister, who chaired the congress.
"""
    with indexed_vault(tmp_path, {"History/Vienna.md": note}) as engine:
        cards = cards_of(generate(engine, "flashcards", "History/Vienna.md")[1])
        questions = parse_quiz(generate(engine, "quiz", "History/Vienna.md")[1]).questions
    assert ("qa", "What was legitimacy?", "The principle that the old dynasties had to be restored to their "
                  "thrones.") in cards, cards
    assert not [front for _, front, _ in cards if "key figure" in front], cards
    asked = {q.question: {o.casefold() for o in q.options} for q in questions}
    assert asked.get("Which term is described here: “The principle that the old dynasties had to be restored to "
                     "their thrones”?") == {"legitimacy", "the balance of power", "compensation"}, asked
    assert not [options for options in asked.values() if "the key figure" in options], asked


def test_a_gap_after_a_copula_offers_only_what_stood_after_a_copula(tmp_path: Path) -> None:
    """"A matrix $A$ is … if …" takes what a sentence says its subject is ("symmetric"), never a noun that stood
    after an article ("kernel"): the key would stand out by its form."""
    note = """# Matrices

## Diagonalisation
A matrix $A$ is **diagonalisable** if there is an invertible $S$ with $S^{-1} A S$ diagonal.

## Symmetry
A square matrix is **symmetric** if it equals its own transpose $A^T$ entry by entry.

## Orthogonality
A square matrix is **orthogonal** if its columns form an orthonormal basis of the space.

## Kernel
The set of all vectors mapped to zero is the **kernel** of the linear map $A$.
"""
    with indexed_vault(tmp_path, {"Math/Matrices.md": note}) as engine:
        questions = parse_quiz(generate(engine, "quiz", "Math/Matrices.md")[1]).questions
    after_is = {"diagonalisable", "symmetric", "orthogonal"}
    asked = [q for q in questions if q.options[q.correct_index] in after_is]
    assert asked, questions
    assert all(set(q.options) <= after_is for q in asked), asked


def test_a_back_opening_with_a_word_whose_case_is_its_own_keeps_it(tmp_path: Path) -> None:
    note = """# Acids and bases

## pH
- neutral: pH = 7 at 25 °C, neither acidic nor basic
- messenger: mRNA carries the code from the nucleus to the ribosome
- Enzyminduktion: z.B. Rifampicin induziert CYP3A4 → andere Stoffe werden schneller abgebaut
"""
    with indexed_vault(tmp_path, {"Chem/Acids.md": note}) as engine:
        cards = cards_of(generate(engine, "flashcards", "Chem/Acids.md")[1])
    backs = [back for _, _, back in cards]
    assert "pH = 7 at 25 °C, neither acidic nor basic." in backs, cards  # never "PH = 7 …"
    assert "MRNA carries the code from the nucleus to the ribosome." not in backs, cards
    assert "Z.B. Rifampicin induziert CYP3A4 → andere Stoffe werden schneller abgebaut." in backs, cards  # no name
