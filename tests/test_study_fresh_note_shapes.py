"""Flashcards on shapes of fresh student notes: a label over the term it defines or over a factor, a statement with a
question mark, tables with empty cells and grids of numbers, counted lists, marked key terms, exam tasks set as
orders, a bold term measured by a verb, and a lecturer counting a list off paragraph by paragraph (issue 25)."""

from __future__ import annotations

from pathlib import Path

from cognivault.study.spoken import counted_off
from cognivault.vault.reading import (
    described_in,
    is_aspect,
    names_factors,
    sets_a_task,
    states_not_asks,
    without_own_aside,
)
from test_study_extractive import cards_of, generate, indexed_vault

CONTRACT = """# Vertragsschluss

## Angebot
- Definition: empfangsbedürftige Willenserklärung, die alle wesentlichen Vertragsbestandteile enthält
- Abgrenzung: invitatio ad offerendum = Aufforderung zur Abgabe eines Angebots (z.B. Schaufensterauslage)

## Annahme
- Frist: § 147 BGB – unter Anwesenden sofort
- Verspätung: verspätete Annahme gilt als neuer Antrag (§ 150 I BGB)

## Markenwahrnehmung
- Abgrenzung: Marke vs. Produkt → Marke = Name, Zeichen oder Symbol, das Produkte eines Anbieters kennzeichnet
- Image: Gesamtheit der Vorstellungen über eine Marke

## Die 3 Voraussetzungen der Geschäftsfähigkeit
- volljährig (18 Jahre)
- nicht dauerhaft geisteskrank
- nicht unter Betreuung mit Einwilligungsvorbehalt

F: Definiere den Begriff Willenserklärung.
A: Äußerung eines Willens, der unmittelbar auf die Herbeiführung einer Rechtsfolge gerichtet ist.
"""

ELASTICITY = """# Preiselastizität

Die **Preiselastizität der Nachfrage** misst, um wie viel Prozent sich die nachgefragte Menge ändert, wenn der \
Preis um ein Prozent steigt.

## Fälle
| Wert | Bezeichnung | Bsp. |
|---|---|---|
| elastisch | stark | Restaurantbesuche |
| einheitselastisch | proportional | – |

## Einflussfaktoren
- Substitute: Je mehr Substitute, desto elastischer
- Zeithorizont: Langfristig elastischer als kurzfristig
- Anteil am Budget: Großer Anteil → elastischer

Die 3 Arten der Elastizität:
1. Preiselastizität
2. Einkommenselastizität
3. Kreuzpreiselastizität

F: Erkläre, warum Benzin kurzfristig unelastisch ist. (klausurrelevant? Tutor fragen)
A: Es gibt kurzfristig kaum Alternativen: Pendler müssen trotzdem tanken.
"""

GAMES = """# Prisoner's Dilemma

## Payoff matrix
| | B silent | B confesses |
|---|---|---|
| A silent | 1, 1 | 10, 0 |
| A confesses | 0, 10 | 5, 5 |

## Cursus honorum
| Office | Minimum age | Number |
|---|---|---|
| Quaestor | 30 | 20 |
| Aedile | 36 | – |

## Concepts
- ==Nash equilibrium==: no player can gain by changing their strategy alone
- ==does NOT cooperate== – the classic exam trap
- Pareto optimum: Is (confess, confess) efficient? → no, (silent, silent) is better for both
- Frage: ist jede Relation in 3NF auch in 2NF? → ja, jede höhere NF schließt die niedrigeren ein

## Haskell is purely functional?
Functions have no side effects, so the same input always gives the same output.

**Lazy evaluation is the default?**
Yes: expressions are only evaluated when their value is needed.

Q: Monads are only for IO?
A: No, `Maybe` and lists are monads too.

Q: Is `Maybe` a monad?
A: Yes, `Maybe` is a monad.

Q: Explain why repeated games allow cooperation. (ask tutor – exam?)
A: Players can punish defection in later rounds, so cooperation can pay off.

## The 5 good emperors
1. Nerva
2. Trajan
3. Hadrian
4. Antoninus Pius
5. Marcus Aurelius
"""

DURKHEIM = """# Lecture 04 – Durkheim on Suicide (Transcript)

[00:12:40] Now, Durkheim distinguishes four types of suicide, and these depend on two dimensions: integration and \
regulation.

[00:15:05] First, egoistic suicide: this happens when a person is too weakly integrated into society.

[00:18:20] Second, altruistic suicide. That's the opposite, when integration is too strong.

[00:21:45] Third, anomic suicide: it occurs when regulation is too weak.

[00:24:10] And fourth, fatalistic suicide, which is when regulation is too strong.

[00:27:30] Any questions? Yes — the question was whether anomie is the same as alienation. No, anomie means \
normlessness.
"""


def _cards(tmp_path: Path, path: str, text: str) -> list[tuple[str, str, str]]:
    with indexed_vault(tmp_path, {path: text}) as engine:
        return cards_of(generate(engine, "flashcards", path)[1])


def test_a_label_over_a_defined_term_asks_the_term_and_a_factor_is_asked_as_itself(tmp_path: Path) -> None:
    cards = _cards(tmp_path / "a", "Jura/Vertragsschluss.md", CONTRACT)
    assert ("qa", "Angebot: invitatio ad offerendum?",
            "Aufforderung zur Abgabe eines Angebots (z.B. Schaufensterauslage)") in cards, cards
    assert ("qa", "Markenwahrnehmung: Was bedeutet „Marke“?",
            "Name, Zeichen oder Symbol, das Produkte eines Anbieters kennzeichnet.") in cards, cards
    assert not [front for _, front, _ in cards if "Abgrenzung" in front]
    # a label its description names again is what holds for it, not a term defined
    assert "Vertragsschluss › Annahme: Verspätung?" in [front for _, front, _ in cards], cards
    cards = _cards(tmp_path / "b", "VWL/Preiselastizität.md", ELASTICITY)
    fronts = [front for _, front, _ in cards]
    assert "Preiselastizität › Einflussfaktoren: Zeithorizont?" in fronts, fronts
    assert not [front for front in fronts if "Was bedeutet" in front]  # a factor's back says how it acts
    assert names_factors("Einflussgrößen auf den Energiebedarf") and names_factors("Factors affecting demand")
    assert not names_factors("Theorien")
    assert is_aspect("Bedarf") and is_aspect("daily intake") and is_aspect("Abgrenzung")  # what a label asks about


def test_a_statement_with_a_question_mark_is_no_front_and_a_question_stays(tmp_path: Path) -> None:
    fronts = [front for _, front, _ in _cards(tmp_path, "Games.md", GAMES)]
    assert "Is `Maybe` a monad?" in fronts, fronts
    assert not [front for front in fronts if "purely functional" in front or "Lazy evaluation" in front
                or "Monads are" in front]
    assert states_not_asks("Schweigen ist Annahme?") and states_not_asks("Haskell is purely functional?")
    assert not states_not_asks("Ist Schweigen Annahme?") and not states_not_asks("In welcher Phase ist das Kind?")
    assert not states_not_asks("ACE inhibitors: can you give it in pregnancy?")
    assert not states_not_asks("Verkauf von Waren auf Ziel?")  # "Waren" are goods, no verb
    # no verb it knows, but answered yes or no: a statement all the same
    assert states_not_asks("Ballaststoffe liefern viel Energie?", "Nein, kaum – sie fördern die Verdauung.")
    assert not states_not_asks("Ist jede Relation in 3NF auch in 2NF?", "Ja, jede höhere NF …")
    # a question after a sentence setting it up asks in its last sentence; "Am I …?" asks
    assert not states_not_asks("I have enabled 2FA. Will I be logged out of my devices?", "No. Enabling 2FA …")
    assert not states_not_asks("Ich habe 2FA aktiviert. Werde ich abgemeldet?", "Nein. Das Aktivieren …")
    assert not states_not_asks("Am I required to purchase a license for every employee?", "No. Obsidian is free.")
    assert not states_not_asks("Verliere ich meine Daten?", "Nein, sie werden 30 Tage aufbewahrt.")  # verb first


def test_empty_cells_are_left_out_and_a_grid_of_numbers_gives_no_card(tmp_path: Path) -> None:
    cards = _cards(tmp_path / "a", "Games.md", GAMES)
    assert not [card for card in cards if "silent" in card[1] or "confesses" in card[1]], cards
    assert ("qa", "Cursus honorum: “Aedile” – Minimum age?", "36") in cards  # its header says what 36 is
    assert ("qa", "Cursus honorum: “Quaestor” – Minimum age, Number?", "Minimum age: 30; Number: 20") in cards
    cards = _cards(tmp_path / "b", "VWL/Preiselastizität.md", ELASTICITY)
    assert not [back for _, _, back in cards if back.rstrip().endswith((":", "–"))], cards
    assert ("qa", "Fälle: „einheitselastisch“ – Bezeichnung?", "proportional") in cards


def test_a_counted_heading_or_label_over_as_many_items_asks_for_them_whole(tmp_path: Path) -> None:
    cards = _cards(tmp_path / "a", "Jura/Vertragsschluss.md", CONTRACT)
    assert ("qa", "Vertragsschluss: Nenne die 3 Voraussetzungen der Geschäftsfähigkeit.",
            "Volljährig (18 Jahre); nicht dauerhaft geisteskrank; nicht unter Betreuung mit "
            "Einwilligungsvorbehalt.") in cards, cards
    cards = _cards(tmp_path / "b", "VWL/Preiselastizität.md", ELASTICITY)
    assert ("qa", "Preiselastizität: Nenne die 3 Arten der Elastizität.",
            "Preiselastizität; Einkommenselastizität; Kreuzpreiselastizität.") in cards, cards
    assert not [front for _, front, _ in cards if "direkt nach" in front]  # kinds of a thing come in no order
    fronts = [front for _, front, _ in _cards(tmp_path / "c", "Games.md", GAMES)]
    assert "Games: name the 5 good emperors." in fronts, fronts  # emperors are no steps
    assert not [front for front in fronts if "which steps" in front]


def test_a_marked_term_with_its_meaning_and_a_bold_term_a_verb_measures_are_cards(tmp_path: Path) -> None:
    cards = _cards(tmp_path / "a", "Games.md", GAMES)
    assert ("qa", "Concepts: what is “Nash equilibrium”?", "No player can gain by changing their strategy alone.") \
        in cards, cards
    assert not [front for _, front, _ in cards if "NOT cooperate?" in front]  # a remark after a dash is no meaning
    cards = _cards(tmp_path / "b", "VWL/Preiselastizität.md", ELASTICITY)
    assert ("qa", "Was misst die Preiselastizität der Nachfrage?", "Um wie viel Prozent sich die nachgefragte Menge "
            "ändert, wenn der Preis um ein Prozent steigt.") in cards, cards
    assert not [front for kind, front, _ in cards if kind == "cloze" and "Preiselastizität der Nachfrage" in front]
    found = described_in("The **Gini coefficient** measures how unequally income is distributed", "en")
    assert found is not None and (found.term, found.verb) == ("The Gini coefficient", "measures")
    assert described_in("Ein **Vertrag** kommt durch zwei Willenserklärungen zustande", "de") is None


def test_the_students_own_question_after_a_label_asks_and_the_arrow_answers(tmp_path: Path) -> None:
    cards = _cards(tmp_path, "Games.md", GAMES)
    assert ("qa", "Concepts › Pareto optimum: Is (confess, confess) efficient?",
            "No, (silent, silent) is better for both.") in cards, cards
    assert ("qa", "Ist jede Relation in 3NF auch in 2NF?", "Ja, jede höhere NF schließt die niedrigeren ein.") in cards
    assert not [back for _, _, back in cards if "? →" in back]


def test_an_exam_task_set_as_an_order_is_a_card_without_the_students_aside(tmp_path: Path) -> None:
    cards = _cards(tmp_path / "a", "VWL/Preiselastizität.md", ELASTICITY)
    assert ("qa", "Erkläre, warum Benzin kurzfristig unelastisch ist.",
            "Es gibt kurzfristig kaum Alternativen: Pendler müssen trotzdem tanken.") in cards, cards
    cards = _cards(tmp_path / "b", "Jura/Vertragsschluss.md", CONTRACT)
    assert ("qa", "Definiere den Begriff Willenserklärung.", "Äußerung eines Willens, der unmittelbar auf die "
            "Herbeiführung einer Rechtsfolge gerichtet ist.") in cards, cards
    fronts = [front for _, front, _ in _cards(tmp_path / "c", "Games.md", GAMES)]
    assert "Explain why repeated games allow cooperation." in fronts, fronts
    assert sets_a_task("Define Nash equilibrium.", "en") and not sets_a_task("Nash equilibrium.", "en")
    assert without_own_aside("Name the levels of a product. (Kotler – check slides)") == \
        "Name the levels of a product."
    assert without_own_aside("PAMPs sind Muster (z.B. LPS)") == "PAMPs sind Muster (z.B. LPS)"


def test_a_list_counted_and_then_said_paragraph_by_paragraph_is_one_card(tmp_path: Path) -> None:
    cards = _cards(tmp_path, "Soziologie/Lecture 04 - Durkheim (Transcript).md", DURKHEIM)
    assert ("qa", "Durkheim on Suicide: Durkheim distinguishes four types of suicide – which?",
            "Egoistic suicide; altruistic suicide; anomic suicide; fatalistic suicide.") in cards, cards
    assert not [front for _, front, _ in cards if "two dimensions" in front or "the question" in front]
    said = [["Weber unterscheidet drei Typen legitimer Herrschaft."], ["Erstens die legale Herrschaft: Sie beruht …"],
            ["Zweitens die traditionale Herrschaft."], ["Drittens die charismatische Herrschaft: Sie beruht …"]]
    found = counted_off(said, "Herrschaft", "de")
    assert found is not None
    assert found[1].text == "legale Herrschaft; traditionale Herrschaft; charismatische Herrschaft"
    assert counted_off(said[:3], "Herrschaft", "de") is None  # two said of three counted: no list
    assert counted_off([*said, ["Viertens die bürokratische Herrschaft."]], "Herrschaft", "de") is None



def test_a_numbered_list_its_heading_names_rules_or_factors_asks_no_step_after_another(tmp_path: Path) -> None:
    ownership = """# Rust ownership

## The three rules of ownership
1. Each value in Rust has a variable that is its owner.
2. There can only be one owner of a value at a time.
3. When the owner goes out of scope, the value is dropped.

## Borrowing a value step by step
1. Create the value and bind it to its owner.
2. Pass a reference with `&` to the function that reads it.
3. Use the owner again once the function returns.
"""
    fronts = [front for _, front, _ in _cards(tmp_path, "Rust/Ownership.md", ownership)]
    assert "“Ownership” › “Borrowing a value step by step”: which steps, in order?" in fronts, fronts
    assert not [front for front in fronts if "what comes right after" in front], fronts  # rules: counted, no order


def test_a_note_declared_in_two_languages_gets_cards_and_a_quiz_in_each(tmp_path: Path) -> None:
    """``lang: de/en`` in the frontmatter (a note that mixes its languages) once crashed generation with a
    KeyError; each passage is now read in the language it is written in."""
    note = ("---\nlang: de/en\n---\n# Stoffwechsel\n\n"
            "- **Glykolyse** ist der Abbau von Glucose zu Pyruvat im Zytoplasma.\n"
            "- **Citratzyklus**: läuft in der Mitochondrienmatrix ab und liefert NADH und FADH2.\n\n"
            "## Respiration\n\n"
            "The **electron transport chain** is the series of protein complexes in the inner mitochondrial "
            "membrane that pumps protons.\n")
    with indexed_vault(tmp_path, {"Stoffwechsel.md": note}) as engine:
        languages = {chunk.lang for chunk in engine.store.catalog.chunks_of("Stoffwechsel.md")}
        _, flashcards = generate(engine, "flashcards", "Stoffwechsel.md")
        quiz, _ = generate(engine, "quiz", "Stoffwechsel.md")
    assert languages == {"de", "en"}
    backs = " ".join(back or front for _, front, back in cards_of(flashcards))
    assert "Pyruvat" in backs and "pumps protons" in backs
    assert quiz.produced >= 1
