"""Cards and quiz questions a student reads as defective on fresh notes: a definite noun that points back at its
paragraph asked as a term ("What is the enzyme?"), the values of one worked example ("df?::24"), a timeline's month
without its year ("Nov?"), code options of another sort than the key (an error message among method calls), a stem
naming the key's own part ("Klimaxgesellschaft" for "Klimaxstadium"), and what the student marked as not covered yet
(issue 25)."""

from __future__ import annotations

from pathlib import Path

from cognivault.study.quiz import _code_sort, parse_quiz
from cognivault.study.sources import GenerationError
from cognivault.study.validate import question_problems
from cognivault.vault.reading import identifies, is_todo, month_alone, names_no_subject, works_out
from test_study_extractive import cards_of, generate, indexed_vault

COMPLEMENT = """# Complement system

## Activation
The complement system is a cascade of plasma proteins that marks pathogens for destruction.

## C3 convertase
All three pathways meet at C3. The enzyme is the C3 convertase, which cleaves C3 into C3a and C3b.
The fragment is an opsonin that coats the bacterium. The receptor is CR1 on phagocytes.

## Membrane attack complex
The membrane attack complex is a pore of C5b to C9 in the membrane of gram-negative bacteria.
"""

ANTIBODIES = """# Antikörper

## Aufbau
Ein Antikörper besteht aus zwei schweren und zwei leichten Ketten.
Die Region ist das Fab-Fragment, das das Antigen bindet.

## Klassenwechsel
Der Klassenwechsel wird durch T-Helferzellen ausgelöst.
Das Enzym ist die AID (activation-induced cytidine deaminase).

## Begriffe
Die Biozönose ist die Lebensgemeinschaft aller Arten in einem Biotop.
Die **Kapazität** ist das Verhältnis von Ladung zu Spannung.
"""

DIVIDER = """# Voltage divider

## Idea
A voltage divider is two resistors in series that split an input voltage.
A **load resistor** in parallel to the lower resistor lowers the output voltage.

## Worked example
Given: 12 V across 4 kΩ and 2 kΩ
- total resistance: R = R1 + R2 = 6 kΩ
- current: I = U / R = 12 V / 6 kΩ = 2 mA
- output: 4 V
"""

MARKET = """# Marktgleichgewicht

## Definition
Im **Marktgleichgewicht** ist die angebotene Menge gleich der nachgefragten Menge.

## Rechenbeispiel
Nachfrage: x = 100 − 2p, Angebot: x = 3p − 50
- 100 − 2p = 3p − 50
- Gleichgewichtsmenge: x* = 100 − 60 = 40

## Höchstpreis
Ein **Höchstpreis** unter dem Gleichgewichtspreis führt zu einem Nachfrageüberhang.
"""

TELESCOPES = """# History of the telescope

## Timeline
- **1608**
  - Oct: Hans Lipperhey applies for a patent on a refracting telescope
- **1610**
  - Jan: Galileo discovers four moons of Jupiter
- 1668 – Newton builds the first reflecting telescope
"""

SPACEFLIGHT = """# Raumfahrt – Chronik

## Wettlauf ins All
**1957**
- Okt: Sputnik 1, erster künstlicher Satellit
- Nov: Sputnik 2 mit der Hündin Laika

**1961**
- Apr: Juri Gagarin umkreist als erster Mensch die Erde
"""

ARRAYS = """# Array-Methoden (JS)

## Umformen
- `map(fn)` gibt ein neues Array mit den Ergebnissen zurück
- `filter(fn)` behält die Elemente, für die `fn` true liefert
- `reduce(fn, start)` fasst das Array zu einem Wert zusammen

## Suchen
- `find(fn)` liefert das erste passende Element oder `undefined`
- `indexOf(x)` liefert den Index oder `-1`

## Fehler
Ein Aufruf auf `undefined` wirft `TypeError: Cannot read properties of undefined`.

## Mutation
`push` und `splice` verändern das Array selbst, `concat` und `slice` nicht.
"""

SUCCESSION = """# Sukzession

## Stadien
- **Pionierstadium**: erste Besiedlung durch Flechten und Moose auf nacktem Fels
- **Folgestadium**: Gräser und Sträucher verdrängen die Pioniere
- **Klimaxstadium**: stabiles Endstadium, Klimaxgesellschaft = Buchenwald in Mitteleuropa
"""

CAPACITOR = """# Kondensator

## Bauformen
- Elektrolytkondensator: hohe Kapazität, gepolt
- Keramikkondensator: klein, ungepolt
- Folienkondensator: Kunststofffolie als Dielektrikum, sehr langlebig
- fehlt noch: Superkondensator

## Klassenwechsel
Der Klassenwechsel wird durch T-Helferzellen ausgelöst.
- IL-4 bewirkt den Wechsel zu IgE
- Rolle von IFN-γ – fehlt noch
"""

ELASTICITY = """# Price elasticity of demand

## Definition
**Price elasticity** measures how strongly quantity demanded reacts to a price change.

## Determinants
- Substitutes: the more substitutes, the more elastic the demand
- Time horizon: demand is more elastic in the long run
- Cross-price elasticity: the reaction to another good's price (not covered yet)
- TODO: income elasticity – still missing
"""


def _cards(tmp_path: Path, notes: dict[str, str]) -> dict[str, list[tuple[str, str, str]]]:
    """Every note's cards (kind, front, back); none for a note that gives none."""
    found: dict[str, list[tuple[str, str, str]]] = {}
    with indexed_vault(tmp_path, notes) as engine:
        for path in notes:
            try:
                found[path] = cards_of(generate(engine, "flashcards", path)[1])
            except GenerationError:
                found[path] = []
    return found


def _questions(tmp_path: Path, notes: dict[str, str]) -> dict[str, list[tuple[str, list[str], str]]]:
    """Every note's quiz questions (stem, options, key); none for a note that gives none."""
    found: dict[str, list[tuple[str, list[str], str]]] = {}
    with indexed_vault(tmp_path, notes) as engine:
        for path in notes:
            try:
                quiz = generate(engine, "quiz", path)[1]
            except GenerationError:
                found[path] = []
                continue
            found[path] = [(q.question, q.options, q.options[q.correct_index]) for q in parse_quiz(quiz).questions]
    return found


def test_a_definite_noun_pointing_back_at_its_paragraph_is_not_asked(tmp_path: Path) -> None:
    cards = _cards(tmp_path, {"Immuno/Complement.md": COMPLEMENT, "Immuno/Antikoerper.md": ANTIBODIES})
    fronts = [front for path in cards for _, front, _ in cards[path]]
    for vague in ("the enzyme", "the receptor", "die region", "das enzym"):
        assert not any(vague in front.casefold() for front in fronts), (vague, fronts)
    # a term of the subject keeps its card: named in its section, under "Begriffe", or marked by the student
    assert any("complement system" in front for front in fronts), fronts
    assert any("Biozönose" in front for front in fronts), fronts
    assert any("Kapazität" in front for front in fronts), fronts
    assert names_no_subject("the enzyme", "Complement C3 convertase")
    assert names_no_subject("Die Zellen", "Antikörper Affinitätsreifung")
    assert not names_no_subject("Das Herz", "Herz Aufbau")  # the note's own subject
    assert not names_no_subject("Das GuV-Konto", "Bilanz")  # a term written as one
    assert not names_no_subject("The complement system", "")
    assert identifies("the C3 convertase, which cleaves C3") and identifies("die AID (activation-induced …)")
    assert not identifies("ein Organismus, der tote Biomasse abbaut")
    assert not identifies("die Lebensgemeinschaft aller Arten in einem Biotop")


def test_the_values_of_a_worked_example_give_no_card(tmp_path: Path) -> None:
    cards = _cards(tmp_path, {"Circuits/Voltage divider.md": DIVIDER, "Mikro/Marktgleichgewicht.md": MARKET})
    said = [f"{front} {back}" for path in cards for _, front, back in cards[path]]
    for value in ("6 kΩ", "2 mA", "3p − 50", "= 40"):
        assert not any(value in text for text in said), (value, said)
    assert any("load resistor" in text for text in said), said
    assert any("Höchstpreis" in text for text in said), said
    assert works_out("df = n − 1 = 24") and works_out("I = U / R = 12 V / 6 kΩ = 2 mA")
    assert works_out("100 − 2p = 3p − 50")
    assert not works_out("1 N = 1 kg·m/s²")  # a unit, no calculation
    assert not works_out("IP address + port = socket address")
    assert not works_out("$U = R \\cdot I = 12 \\cdot 2$")  # a formula is the note's as written


def test_a_month_without_its_year_is_not_asked(tmp_path: Path) -> None:
    cards = _cards(tmp_path, {"Astro/Telescopes.md": TELESCOPES, "Raumfahrt/Chronik.md": SPACEFLIGHT})
    fronts = [front for path in cards for _, front, _ in cards[path]]
    for month in ("Oct", "Jan", "Okt", "Nov", "Apr"):
        assert not any(front.rstrip("?“”„").endswith(month) for front in fronts), (month, fronts)
    assert any("1608" in front for front in fronts), fronts  # the year over its month still asks what happened
    questions = _questions(tmp_path / "quiz", {"Astro/Telescopes.md": TELESCOPES, "Raumfahrt/Chronik.md": SPACEFLIGHT})
    assert not any(key in ("Oct", "Jan", "Okt", "Nov", "Apr") for path in questions for _, _, key in questions[path])
    assert month_alone("Nov") and month_alone("Okt.") and month_alone("3. Oct")
    assert not month_alone("Nov 1923") and not month_alone("Sputnik")


def test_code_options_are_of_the_keys_sort(tmp_path: Path) -> None:
    questions = _questions(tmp_path, {"JS/Arrays.md": ARRAYS})["JS/Arrays.md"]
    assert questions
    for stem, options, key in questions:  # a method's signature among signatures, never beside a bare value
        assert all(option.endswith(")`") == key.endswith(")`") for option in options), (stem, options)
        assert {_code_sort(option) for option in options} == {_code_sort(key)}, (stem, options)
    assert _code_sort("`map(fn)`") == _code_sort("`Promise.all(iterable)`") == "call"
    assert _code_sort("`Uncaught (in promise)`") == _code_sort("`TypeError: x is undefined`") == "message"
    assert _code_sort("`undefined`") == _code_sort("`-1`") == "value"
    assert _code_sort("`await`") == "name"


def test_a_stem_naming_the_keys_own_part_is_no_question(tmp_path: Path) -> None:
    questions = _questions(tmp_path, {"Oeko/Sukzession.md": SUCCESSION})["Oeko/Sukzession.md"]
    assert questions  # the other stages are still asked
    assert not any(key == "Klimaxstadium" and "Klimax" in stem for stem, _, key in questions), questions
    stem = "Which layer is meant: “Rigid outer shell, broken into lithospheric plates”?"
    assert "answer_in_stem" in question_problems(stem, ["Lithosphere", "Asthenosphere", "Hydrosphere"], 0, "", "en")
    stem = "Which layer is meant: “Rigid outer shell, broken into plates”?"
    assert question_problems(stem, ["Lithosphere", "Asthenosphere", "Hydrosphere"], 0, "", "en") == []
    # a step is a sentence: one compound it shares with the step before gives nothing away
    stem = "Welcher Schritt folgt auf „Klicke auf Seiteneinstellungen ändern“?"
    steps = ["Klicke neben Passwörter auf Verwalten und dann auf Seiteneinstellungen speichern",
             "Öffne die Veröffentlichungseinstellungen im Menü", "Klicke auf das Kreuz neben dem Passwort"]
    assert "answer_in_stem" not in question_problems(stem, steps, 0, "", "de")


def test_what_the_student_has_not_covered_yet_gives_no_card(tmp_path: Path) -> None:
    cards = _cards(tmp_path, {"Circuits/Kondensator.md": CAPACITOR, "Mikro/Elasticity.md": ELASTICITY})
    said = [f"{front} {back}" for path in cards for _, front, back in cards[path]]
    for pending in ("Superkondensator", "IFN", "fehlt noch", "Cross-price", "income elasticity"):
        assert not any(pending.casefold() in text.casefold() for text in said), (pending, said)
    assert any("Folienkondensator" in text for text in said), said
    assert any("Time horizon" in text for text in said), said
    assert is_todo("fehlt noch: Superkondensator") and is_todo("Rolle von IFN-γ – fehlt noch")
    assert is_todo("Thevenin equivalent (not covered yet)") and not is_todo("Folienkondensator: sehr langlebig")
    assert not is_todo("**TODO-Elemente**: Konvertiert `{{[[TODO]]}}` zu `[ ]`")  # a feature named after to-dos


def test_a_list_of_properties_is_asked_plainly_not_as_a_meaning(tmp_path: Path) -> None:
    cards = _cards(tmp_path, {"Circuits/Kondensator.md": CAPACITOR})["Circuits/Kondensator.md"]
    fronts = [front for _, front, _ in cards]
    assert "Bauformen: Elektrolytkondensator?" in fronts, fronts
    assert not any("Was bedeutet „Keramikkondensator“" in front for front in fronts), fronts
    assert any("Folienkondensator" in front for front in fronts), fronts
