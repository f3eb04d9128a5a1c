"""Quiz options of the right option's sort: no process offered for a molecule, no person among events or
concepts, in English and German notes (issue 25)."""

from __future__ import annotations

from pathlib import Path

from cognivault.study.quiz import parse_quiz
from cognivault.vault.reading import names_a_person, names_an_action
from test_study_extractive import cards_of, generate, indexed_vault

GENETICS = """# Bakteriengenetik

## Horizontaler Gentransfer
- **Konjugation**: Übertragung eines Plasmids über einen Pilus von Zelle zu Zelle.
- **Transformation**: Aufnahme freier DNA aus der Umgebung durch eine kompetente Zelle.
- **Transduktion**: Übertragung bakterieller DNA durch einen Bakteriophagen.

## Bausteine
Ein Plasmid ist ein kleines, ringförmiges DNA-Molekül, das unabhängig vom Chromosom repliziert wird.
Ein Operon ist eine Gruppe von Genen, die gemeinsam von einem Promotor abgelesen werden.
Ein Ribosom ist ein Komplex aus RNA und Proteinen, an dem Proteine synthetisiert werden.
"""

COLD_WAR = """# Cold War

## Key people
- **Nikita Khrushchev**: Soviet leader who confronted Kennedy over the missiles in Cuba.
- **George Kennan**: American diplomat who proposed the policy of containment in the Long Telegram.
- **Harry Truman**: US president who announced aid to Greece and Turkey in 1947.

## Concepts
Containment was the policy of stopping the spread of communism.
Détente was the easing of tensions between the superpowers in the 1970s.
The domino theory was the belief that one country falling to communism would pull its neighbours along.
The iron curtain was the border dividing Europe into two separate areas.
"""

WEIMAR = """# Weimarer Republik

Gustav Stresemann war Außenminister und Reichskanzler der Weimarer Republik.
Friedrich Ebert war Reichspräsident von 1919 bis 1925.
Der Hitlerputsch war ein gescheiterter Umsturzversuch in München 1923.
Der Kapp-Putsch war ein Putschversuch gegen die Reichsregierung im März 1920.
Die Dolchstoßlegende war eine Verschwörungstheorie über die Niederlage im Ersten Weltkrieg.
Die Inflation war eine Geldentwertung, die 1923 ihren Höhepunkt erreichte.
"""


def _questions(tmp_path: Path, path: str, note: str) -> list[tuple[str, list[str]]]:
    with indexed_vault(tmp_path, {path: note}) as engine:
        _, quiz = generate(engine, "quiz", path)
    return [(question.question, question.options) for question in parse_quiz(quiz).questions]


def test_a_thing_is_asked_among_things_and_a_process_among_processes(tmp_path: Path) -> None:
    questions = _questions(tmp_path, "Bio/Bakteriengenetik.md", GENETICS)
    processes = {"Konjugation", "Transformation", "Transduktion"}
    plasmid = [options for stem, options in questions if "ringförmiges" in stem]
    assert plasmid, questions
    for options in plasmid:
        assert not processes & set(options), options
    for _, options in questions:
        assert len(processes & set(options)) in (0, len(options)), options


def test_a_person_is_never_offered_among_concepts_and_events(tmp_path: Path) -> None:
    people = {"Nikita Khrushchev", "George Kennan", "Harry Truman", "Gustav Stresemann", "Friedrich Ebert"}
    asked = _questions(tmp_path / "en", "History/Cold War.md", COLD_WAR) \
        + _questions(tmp_path / "de", "Geschichte/Weimar.md", WEIMAR)
    assert any(not people & set(options) for _, options in asked), asked
    for _, options in asked:
        assert len(people & set(options)) in (0, len(options)), options


def test_a_name_is_read_as_a_person_by_how_the_note_describes_it() -> None:
    assert names_a_person("Nikita Khrushchev", "Soviet leader who confronted Kennedy", "en")
    assert names_a_person("Gustav Stresemann", "Außenminister und Reichskanzler", "de", stated=True)
    assert not names_a_person("Obsidian Sync", "Wird zum Synchronisieren deiner Notizen verwendet", "de")
    assert not names_a_person("Headless Publish", "Nutze Obsidian Publish über die Kommandozeile", "de")
    assert not names_a_person("Berlin Blockade", "Soviet closure of all land routes to West Berlin", "en")
    assert not names_a_person("Klonale Selektion", "Vermehrung genau der B-Zellen", "de")
    assert not names_a_person("Der Reichstag", "Das gewählte Parlament", "de")
    assert not names_a_person("Prager Frühling", "Reformbewegung in der Tschechoslowakei", "de")
    assert names_an_action("Konjugation", "de") and names_an_action("Signal amplification", "en")
    assert not names_an_action("Ein Plasmid", "de") and not names_an_action("Ligand", "en")


def test_a_person_is_asked_as_a_person_on_a_card(tmp_path: Path) -> None:
    with indexed_vault(tmp_path, {"Geschichte/Weimar.md": WEIMAR}) as engine:
        cards = cards_of(generate(engine, "flashcards", "Geschichte/Weimar.md")[1])
    fronts = [front for _, front, _ in cards]
    assert "Wer war Gustav Stresemann?" in fronts, fronts
    assert "Was war der Hitlerputsch?" in [front.split(": ", 1)[-1] for front in fronts], fronts
    assert not [front for front in fronts if "Was war Gustav" in front], fronts


def test_a_group_or_an_abbreviation_is_no_person() -> None:
    assert not names_a_person("Third Estate", "commoners who made up 98% of the population", "en")
    assert not names_a_person("Konkurrenz zu SN", "Hohe Temperatur + starke Base", "de")
    assert names_a_person("Wilhelm II.", "Letzter deutscher Kaiser", "de", stated=True)


def test_a_noun_in_tion_that_the_note_calls_a_thing_is_no_action() -> None:
    assert not names_an_action("Compensation", "en", "the rule that a power losing land got territory elsewhere")
    assert not names_an_action("Die Sozialversicherung", "de", "Ein System aus Kranken- und Rentenversicherung")
    assert names_an_action("Phosphorylation", "en", "The addition of a phosphate group to a protein")
    assert names_an_action("Konjugation", "de", "Übertragung eines Plasmids über einen Pilus")
    assert names_an_action("Die Impfung", "de", "Eine künstliche Immunisierung mit abgeschwächten Erregern")

