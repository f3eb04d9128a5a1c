"""Student-note defects seen on held-out notes (issue 25): a student's own question on the course never becomes a
card or a quiz question; a label structuring a list ("Spannung:" in a plot, "Verfassung:" among a state's aspects)
is asked as that aspect of its section, never as a term; a gap's wrong options are of the right one's sort."""

from __future__ import annotations

from pathlib import Path

import pytest

from cognivault.engine import Engine
from cognivault.study.quiz import QuizQuestion, parse_quiz
from cognivault.study.sources import GenerationError
from cognivault.vault.reading import asks_about_course, states_apart
from test_study_extractive import cards_of, generate, indexed_vault

HELLENISM = """# Hellenismus

Der **Hellenismus** ist die Epoche vom Tod Alexanders d. Gr. 323 v. Chr. bis zur Eingliederung Ägyptens 30 v. Chr.

## Alexander
- Schlacht bei Issos: 333 v. Chr. besiegte Alexander den Perserkönig Dareios III.
- Hausarbeit bis 15.7.?

> [!question] Kommt das in der Hausarbeit dran?
> Muss ich die Diadochenkriege auswendig lernen?

## Kultur
- **Koine**: die gemeinsame griechische Umgangssprache des Hellenismus im ganzen Osten.
- **Alexandria**: Stadt in Ägypten mit der größten Bibliothek der Antike.
(is this on the exam?)
"""

NOVELLA = """# Der Schimmelreiter

## Inhalt
- **Exposition**: Hauke Haien wächst an der nordfriesischen Küste auf und lernt Mathematik.
- **Spannung**: Hauke wird Deichgraf und plant einen neuen Deich gegen den Widerstand des Dorfes.
- **Höhepunkt**: In einer Sturmflut bricht der alte Deich, Hauke sieht Frau und Kind ertrinken.
- **Ende**: Hauke stürzt sich mit seinem Schimmel in die Fluten.

## Begriffe
- **Rahmenerzählung**: eine Erzählung, in die eine andere Erzählung eingebettet ist.
- **Novelle**: eine kürzere Erzählung über eine unerhörte Begebenheit.
"""

WEIMAR = """# Weimarer Republik

## Aspekte des Staates
- **Verfassung**: Sie trat am 11. August 1919 in Kraft und enthielt das Notverordnungsrecht.
- **Wirtschaft**: Hyperinflation 1923, danach die Goldenen Zwanziger und ab 1929 die Weltwirtschaftskrise.
- **Parteien**: Viele kleine Parteien, da es keine Sperrklausel gab.

## Begriffe
- **Notverordnung**: ein Gesetz, das der Reichspräsident ohne den Reichstag erlassen konnte.
- **Dolchstoßlegende**: die falsche Behauptung, das Heer sei von der Heimat verraten worden.
"""


def _quiz(engine: Engine, path: str) -> list[QuizQuestion]:
    """The note's quiz questions, none when it gives no quiz."""
    try:
        return list(parse_quiz(generate(engine, "quiz", path)[1]).questions)
    except GenerationError:
        return []


@pytest.mark.parametrize("line", ["> [!question] Kommt das in der Hausarbeit dran?", "Hausarbeit bis 15.7.?",
                                  "(is this on the exam?)", "- Wird Art. 48 in der Klausur gefragt?",
                                  "Ist die Rahmenerzählung klausurrelevant?", "Essay due 15.7.?",
                                  "> [!question] kommt das dran?", "> [!faq] Is this on the exam?", "Stimmt das??"])
def test_a_question_on_the_course_is_the_students_own(line: str) -> None:
    assert asks_about_course(line)


@pytest.mark.parametrize("line", ["Wann war die Schlacht bei Issos?", "What is the final step of glycolysis?",
                                  "Die Hausarbeit ist eine schriftliche Prüfungsleistung."])
def test_a_question_on_the_subject_or_a_statement_is_not(line: str) -> None:
    assert not asks_about_course(line)


def test_no_card_or_question_from_the_students_own_questions(tmp_path: Path) -> None:
    with indexed_vault(tmp_path, {"Hellenismus.md": HELLENISM}) as engine:
        cards = cards_of(generate(engine, "flashcards", "Hellenismus.md")[1])
        quiz = _quiz(engine, "Hellenismus.md")
    said = [side for card in cards for side in card] + [q.question for q in quiz] \
        + [option for q in quiz for option in q.options]
    assert cards and not [text for text in said if any(word in text for word in (
        "Hausarbeit", "Diadochen", "exam"))], said
    assert any("Alexanders d. Gr. 323 v. Chr. bis zur Eingliederung" in back for _, _, back in cards), cards


@pytest.mark.parametrize(("description", "lang"), [
    ("Sie trat am 11. August 1919 in Kraft", "de"), ("In einer Sturmflut bricht der Deich", "de"),
    ("After the war the economy collapsed", "en"), ("Both confess, although silence pays", "en")])
def test_a_description_with_its_own_subject_states_something_apart(description: str, lang: str) -> None:
    assert states_apart(description, lang)


@pytest.mark.parametrize(("description", "lang"), [
    ("eine Bassstimme mit Ziffern", "de"), ("Stadt in Ägypten mit der größten Bibliothek", "de"),
    ("Dicke Wand mit glatter Muskulatur", "de"), ("Substanz, die an einen Rezeptor bindet", "de"),
    ("Viele kleine Parteien, da es keine Sperrklausel gab", "de"), ("a set of strategies in which", "en"),
    ("Lots of coal and iron ore, often close together", "en")])
def test_a_description_of_what_a_term_is_states_nothing_apart(description: str, lang: str) -> None:
    assert not states_apart(description, lang)


@pytest.mark.parametrize(("path", "note", "labels", "terms"), [
    ("Der Schimmelreiter.md", NOVELLA, ("Exposition", "Spannung", "Höhepunkt", "Ende"),
     ("Rahmenerzählung", "Novelle")),
    ("Weimarer Republik.md", WEIMAR, ("Verfassung", "Wirtschaft", "Parteien"), ("Notverordnung", "Dolchstoßlegende")),
])
def test_a_label_structuring_its_list_is_asked_as_its_aspect(tmp_path: Path, path: str, note: str,
                                                             labels: tuple[str, ...], terms: tuple[str, ...]) -> None:
    title = path.removesuffix(".md")
    with indexed_vault(tmp_path, {path: note}) as engine:
        cards = cards_of(generate(engine, "flashcards", path)[1])
        quiz = _quiz(engine, path)
    fronts = [front for _, front, _ in cards]
    for label in labels:
        assert not [front for front in fronts if f"„{label}“" in front], fronts
        assert any(front.startswith(f"{title} › ") and front.endswith(f": {label}?") for front in fronts), fronts
    for term in terms:
        assert any(f"Was bedeutet „{term}“?" in front for front in fronts), fronts
    assert not [q for q in quiz if set(q.options) & set(labels)], quiz


REVOLUTION = """# Französische Revolution

## Beginn
Die Französische Revolution begann im Jahr **1789** mit dem Sturm auf die Bastille.

## Terror
Die **Jakobiner** errichteten die Schreckensherrschaft.
Die **Guillotine** wurde zum Symbol der Schreckensherrschaft.

## Personen
**Maximilien de Robespierre** führte den Wohlfahrtsausschuss.
**Georges Danton** wurde 1794 hingerichtet.

## Napoleon
**Napoleon Bonaparte** krönte sich im Jahr **1804** selbst zum Kaiser.
Die Schlacht bei Waterloo beendete im Jahr **1815** seine Herrschaft.

## Folgen
Die Revolution schaffte die **Ständegesellschaft** ab.
"""


def test_a_gaps_wrong_options_are_of_its_sort(tmp_path: Path) -> None:
    with indexed_vault(tmp_path, {"Revolution.md": REVOLUTION}) as engine:
        quiz = _quiz(engine, "Revolution.md")
    years = {"1789", "1804", "1815"}
    names = {"Maximilien de Robespierre", "Georges Danton", "Napoleon Bonaparte"}
    asked = [set(q.options) for q in quiz]
    assert any(options & years for options in asked), quiz
    for options in asked:
        for sort in (years, names):
            assert not options & sort or options <= sort, options


def test_a_linking_word_written_with_sharp_s_opening_an_item_is_no_term(tmp_path: Path) -> None:
    # "Außerdem:", "Standardmäßig:" open a statement; they are read casefolded ("ausserdem"), as the word lists are
    # (before, "Was bedeutet „Außerdem“?" was asked).
    note = ("# Zellteilung\n\n"
            "Die **Mitose** ist die Teilung des Zellkerns, bei der zwei identische Tochterkerne entstehen.\n\n"
            "- Standardmäßig: Zellen teilen sich nur nach dem Durchlaufen der Interphase.\n"
            "- Außerdem: die Zytokinese teilt danach das Zytoplasma.\n"
            "- Interphase: Phase zwischen zwei Teilungen, in der die DNA verdoppelt wird.\n")
    with indexed_vault(tmp_path, {"Bio/Zellteilung.md": note}) as engine:
        cards = cards_of(generate(engine, "flashcards", "Bio/Zellteilung.md")[1])
    fronts = " ".join(front for _, front, _ in cards)
    assert "Interphase" in fronts and "Außerdem" not in fronts and "Standardmäßig" not in fronts, cards


def test_an_option_in_another_form_of_the_key_is_no_wrong_option() -> None:
    # "Willenserklärung" beside the key "Willenserklärungen" is the same answer in the singular: both would be right.
    from cognivault.study.quiz import _inflected_alike

    assert _inflected_alike("Willenserklärung", "Willenserklärungen")
    assert _inflected_alike("enzymes", "Enzyme") and _inflected_alike("rote Blutkörperchen", "roten Blutkörperchen")
    assert not _inflected_alike("Angebot", "Annahme") and not _inflected_alike("Lag-Phase", "Log-Phase")
    assert not _inflected_alike("Ion", "Ionen")  # too short a stem to tell a form from another word
