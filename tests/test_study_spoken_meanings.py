"""Cards a student can answer without the note: what a lecturer says a term means in speech ("A lahar, that means
…", "Also Fianchetto heißt, …"), no card on a pronoun ("Was ist Die?") or a pro-form ("the classic one"), labels
of a section's values asked as that section's ("Kohlenhydrate: Energie?"), and a short list's quiz question given
the terms the note's other lists define instead of being dropped (issue 25)."""

from __future__ import annotations

from pathlib import Path

from cognivault.study.quiz import parse_quiz
from cognivault.study.sources import GenerationError
from cognivault.vault.reading import names_by_pro_form, said_plainly, spoken_meaning
from test_study_extractive import cards_of, generate, indexed_vault

VOLCANOES = """# Lecture 4 – Volcanoes (Transcript)

**[00:00]** Alright, can everyone hear me? Good. Today we look at volcanoes.

**[07:45]** What we call viscosity is the resistance of a liquid to flow, so honey has a high viscosity.

**[12:30]** So a shield volcano is basically when runny lava flows out again and again and builds a wide dome. \
Mauna Loa on Hawaii is the classic one. A stratovolcano, on the other hand, that means a steep cone built from \
layers of lava and ash.

**[24:40]** And then there's lahars. A lahar, that means a mudflow of volcanic debris and water. We did it, that \
means we won the bet.

**[36:50]** Crater Lake in Oregon is one, it's filled with water now.
"""

BEES = """# VL 3 – Das Bienenvolk (Mitschrift)

**[02:40]** Es gibt genau eine Königin. Die ist also eigentlich eine Legemaschine, die regiert gar nichts.

**[21:05]** Also Schwärmen heißt, dass die alte Königin mit der Hälfte des Volkes den Stock verlässt.

**[27:20]** Trainer: Ein Ableger, das heißt ein kleines Volk aus ein paar Waben mit Brut und Bienen. Die Königin \
paart sich nur einmal, das heißt sie braucht viele Drohnen.
"""

NUTRIENTS = """# Makronährstoffe

## Kohlenhydrate
- Energie: 4 kcal/g
- **Glykämischer Index**: wie schnell ein Lebensmittel den Blutzucker steigen lässt

## Proteine
- Energie: 4 kcal/g
- **Essentielle Aminosäuren**: kann der Körper nicht selbst herstellen, es gibt 9 davon
- Empfehlung (DGE): 0,8 g pro kg Körpergewicht am Tag

## Fette
- Energie: 9 kcal/g
- **Transfette**: entstehen bei der industriellen Härtung und erhöhen das LDL

## Energiebilanz
- **Grundumsatz**: Energie, die der Körper in völliger Ruhe braucht
- Chartres: berühmt für seine Glasfenster und die Kathedrale
"""


def test_a_lecturers_spoken_meanings_are_read_in_each_language() -> None:
    def read(sentence: str, lang: str) -> tuple[str, str, str] | None:
        found = spoken_meaning(said_plainly(sentence, lang).rstrip("."), lang)
        return (found.term, found.verb, found.meaning) if found else None

    assert read("A lahar, that means a mudflow of volcanic debris and water.", "en") \
        == ("A lahar", "is", "a mudflow of volcanic debris and water")
    assert read("So tacking is basically when you turn the bow through the wind.", "en") \
        == ("Tacking", "is", "when you turn the bow through the wind")
    assert read("What we call viscosity is the resistance of a liquid to flow, so honey is thick.", "en") \
        == ("viscosity", "is", "the resistance of a liquid to flow")
    assert read("Also Fianchetto heißt, der Läufer wird auf g2 entwickelt.", "de") \
        == ("Fianchetto", "heißt", "der Läufer wird auf g2 entwickelt")
    assert read("Ein Ableger, das heißt ein kleines Volk aus ein paar Waben.", "de") \
        == ("Ein Ableger", "ist", "ein kleines Volk aus ein paar Waben")
    # a clause before "that means", "das heißt" is no term
    assert read("We did it, that means we won the bet.", "en") is None
    assert read("Die Königin paart sich nur einmal, das heißt sie braucht viele Drohnen.", "de") is None
    assert names_by_pro_form("the classic one", "en") and names_by_pro_form("one, it's filled with water", "en")
    assert not names_by_pro_form("one of the largest volcanoes on Earth", "en")


def test_spoken_meanings_are_cards_and_pro_forms_and_pronouns_none(tmp_path: Path) -> None:
    with indexed_vault(tmp_path, {"Geo/Volcanoes.md": VOLCANOES, "Imkerei/Bienenvolk.md": BEES}) as engine:
        english = cards_of(generate(engine, "flashcards", "Geo/Volcanoes.md")[1])
        german = cards_of(generate(engine, "flashcards", "Imkerei/Bienenvolk.md")[1])
    assert {("qa", "What is a lahar?", "A mudflow of volcanic debris and water."),
            ("qa", "What is a stratovolcano?", "A steep cone built from layers of lava and ash."),
            ("qa", "What is viscosity?", "The resistance of a liquid to flow."),
            ("qa", "What is a shield volcano?", "When runny lava flows out again and again and builds a wide dome."),
            } <= set(english), english
    said = " ".join(front + back for _, front, back in english)
    assert "classic one" not in said and "Crater Lake" not in said and "won the bet" not in said, english
    assert {("qa", "Was heißt Schwärmen?", "Dass die alte Königin mit der Hälfte des Volkes den Stock verlässt."),
            ("qa", "Was ist ein Ableger?", "Ein kleines Volk aus ein paar Waben mit Brut und Bienen."),
            } <= set(german), german
    # "Die ist also eigentlich eine Legemaschine": "Was ist Die?" asks nothing; the speaker's label is no word said
    assert not any(front.startswith("Was ist Die") or "Trainer" in front + back for _, front, back in german), german


def test_labels_of_values_are_asked_per_section_and_never_offered_as_terms(tmp_path: Path) -> None:
    with indexed_vault(tmp_path, {"Ernährung/Makronährstoffe.md": NUTRIENTS}) as engine:
        cards = cards_of(generate(engine, "flashcards", "Ernährung/Makronährstoffe.md")[1])
        quiz = parse_quiz(generate(engine, "quiz", "Ernährung/Makronährstoffe.md")[1]).questions
    fronts = {front: back for _, front, back in cards}
    assert not any("„Energie“" in front or "„Empfehlung" in front for front in fronts), cards
    # each nutrient's energy is its own card (not one "Energie" card for the note; one back once)
    assert sum("Energie?" in front for front in fronts) == 2, cards
    assert any(front.endswith("Fette: Energie?") and back.rstrip(".") == "9 kcal/g"
               for front, back in fronts.items()), cards
    assert any(front.endswith("Proteine: Empfehlung (DGE)?") for front in fronts), cards
    # each list has one term of its own: the terms the other lists define in bold are its options, never a label
    # or a name written otherwise
    assert len(quiz) >= 3, quiz
    for question in quiz:
        assert not {"Energie", "Empfehlung (DGE)", "Chartres"} & set(question.options), question
    asked = {question.options[question.correct_index] for question in quiz}
    assert {"Essentielle Aminosäuren", "Transfette"} <= asked, quiz


CAMERA = """# Kamera kaufen

## Vergleich
Sensor ist APS-C, also kleiner als Vollformat.
Objektiv ist ein XF 35mm f/1.4.
Photosynthese ist ein Prozess, bei dem Pflanzen Licht in chemische Energie umwandeln.

## Bildung & Reifung
- Knochenmark: hier entstehen die Vorläuferzellen
- dort: Reifung der T-Zellen zu reifen Lymphozyten
- Anbieter: DATEV eG
"""

CAMERA_EN = """# Buying a camera

## Parts
- Provider: Fujifilm
- Sensor: APS-C
- Shutter: the curtain that opens for the exposure

Provider is Fujifilm, based in Tokyo.
"""


def test_a_value_or_a_pointer_is_asked_as_its_sections_never_as_a_term(tmp_path: Path) -> None:
    with indexed_vault(tmp_path, {"Foto/Kamera.md": CAMERA, "Foto/Camera.md": CAMERA_EN}) as engine:
        german = cards_of(generate(engine, "flashcards", "Foto/Kamera.md")[1])
        english = cards_of(generate(engine, "flashcards", "Foto/Camera.md")[1])
    fronts = [front for _, front, _ in german + english]
    # a bare noun said to be a code, a model or a name is a value of the note's thing, no definition
    assert not any(front.endswith(("Was ist Sensor?", "Was ist Objektiv?", "What is provider?")) for front in fronts)
    assert any(front.endswith("Was ist Photosynthese?") for front in fronts), german
    # a label pointing back at the line above asks nothing ("Bildung & Reifung: dort?")
    assert not any(front.endswith("dort?") for front in fronts), german
    # a label over a name or a code is asked as its section's
    assert not any("„Anbieter“" in front or "“Provider”" in front or "“Sensor”" in front for front in fronts), fronts
    assert any(front.endswith("Bildung & Reifung: Anbieter?") for front in fronts), german
    assert any(front.endswith("Parts: Provider?") for front in fronts), english
    assert "Parts: what is “Shutter”?" in fronts, english


MANUAL = """# Settings

## Color scheme
- **Light**: a white background with dark text, easy to read by day
- **Dark**: black panels and grey text for working late at night
- **Adapt to system**: follows whatever your operating system is set to

## Deleted files
- **Move to trash**: files are moved to the hidden trash folder of the vault

## Window frame
- **Native frame**: uses your operating system's default window frame
"""


def test_a_lone_button_in_bold_takes_no_other_sections_buttons_as_options(tmp_path: Path) -> None:
    with indexed_vault(tmp_path, {"Help/Settings.md": MANUAL}) as engine:
        try:
            quiz = parse_quiz(generate(engine, "quiz", "Help/Settings.md")[1]).questions
        except GenerationError as error:
            assert "no usable quiz questions" in str(error)
            quiz = []
    asked = {question.options[question.correct_index] for question in quiz}
    # each a list of one, no profile of a subject: "Light", "Dark" are no options for "Move to trash"
    assert not {"Move to trash", "Native frame"} & asked, quiz
