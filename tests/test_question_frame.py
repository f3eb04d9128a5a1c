"""A question's subject decides its ranking, not its frame or a hub: "Unterschied", "Begriff", "heißt … auf
Spanisch", "difference", "entsteht", "funktioniert" weigh less than the subject's words, and a hub of links ranks
below the note on the subject. A note about the frame word itself is still found by it. Real SQLite and BM25,
keyword retrieval only."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from cognivault.engine import Engine
from cognivault.index import lexical
from cognivault.index.question_frame import frame_words

FILLER_DE = "Die Werte stehen in der Tabelle im Anhang, die Rechnung vom Wochenmarkt im Heft. " * 6

NOTES = {
    "Chemie/Säuren.md": """---
lang: de
---
# Säuren

## Begriffe

Begriffe: Säure, Base. Säuren sind unterschiedlich stark; der Unterschied liegt im pKs-Wert, ein Unterschied
von Zehnerpotenzen.
""",
    "Politik/Bundesrat.md": f"""---
lang: de
---
# Bundesrat

Im Bundesrat wirken die Länder an der Gesetzgebung mit. Ein Einspruchsgesetz kann der Bundestag überstimmen,
ein Zustimmungsgesetz nicht. {FILLER_DE * 3}
""",
    "Kunst/Barock.md": f"""---
lang: de
---
# Kunstepochen

Die Kunsthistoriker des 19. Jahrhunderts prägten das Wort Barockmalerei für die Zeit nach 1600. {FILLER_DE}
""",
    "Sprachen/Vokabeln Markt.md": f"""---
lang: de
---
# Vokabeln – Auf dem Markt

le marché :: der Markt, der Wochenmarkt
la pomme :: der Apfel
le fromage :: der Käse

{FILLER_DE * 3}
""",
    "Sprachen/Grammatik.md": """---
lang: de
---
# Grammatik

Französisch im Französisch-Kurs: das Passé composé. Französisch hat zwei Hilfsverben, avoir und être.
""",
    "Biologie/Stoffwechsel.md": f"""---
lang: de
---
# Stoffwechsel

Bei der Zellatmung wird Glucose mit Sauerstoff zu Kohlenstoffdioxid und Wasser abgebaut; dabei entsteht ATP.
{FILLER_DE}
""",
    "00 Übersicht.md": """---
lang: de
---
# Übersicht Semester

## Biologie (Di 8–10)
- 14.10. VL 1 – Zellatmung: [[Stoffwechsel]]
- Klausur 12.02.2026

## Sprachen
- Französisch B1: [[Vokabeln Markt]], [[Grammatik]]

## Politik
- [[Bundesrat]]
- [[Säuren]]
""",
    "Geo/Gezeiten.md": f"""---
lang: de
---
# Gezeiten

Steht der Mond in einer Linie mit Sonne und Erde, ist der Tidenhub groß: eine Springtide. {FILLER_DE * 3}
""",
    "Geschichte/Burgen.md": f"""---
lang: de
---
# Burgen

Über den Burggraben führte eine Zugbrücke, die bei Gefahr hochgezogen wurde. {FILLER_DE * 3}
""",
    "Computing/Hashing.md": """# Hashing

A hash function is a one-way function: the function maps any input to a digest of fixed length.
""",
    "Writing/Examples.md": """# Beispiele

Beispiele für gute Gliederungen stehen hier.
""",
}


@pytest.fixture
def engine(indexed_notes: Callable[[dict[str, str]], Engine]) -> Engine:
    return indexed_notes(NOTES)


@pytest.mark.parametrize(("query", "note"), [
    ("Unterschied zwischen Einspruchsgesetz und Zustimmungsgesetz?", "Politik/Bundesrat.md"),  # "unterschiedlich"
    ("Wer hat den Begriff Barockmalerei geprägt?", "Kunst/Barock.md"),  # a heading "Begriffe" elsewhere
    ("Was heißt Wochenmarkt auf Französisch?", "Sprachen/Vokabeln Markt.md"),  # the language to translate into
    ("Wie entsteht eine Springtide?", "Geo/Gezeiten.md"),  # "dabei entsteht ATP" elsewhere
    ("Wie funktioniert eine Zugbrücke?", "Geschichte/Burgen.md"),  # read as English "function" too
])
def test_the_subject_outranks_the_question_frame(engine: Engine, query: str, note: str) -> None:
    assert engine.search(query, k=3, mode="lexical", per_note=True).results[0].path == note


@pytest.mark.parametrize(("query", "note"), [
    ("Unterschied zwischen Einspruchsgesetz und Zustimmungsgesetz?", "Politik/Bundesrat.md"),
    ("Wer hat den Begriff Barockmalerei geprägt?", "Kunst/Barock.md"),
    ("Was heißt Wochenmarkt auf Französisch?", "Sprachen/Vokabeln Markt.md"),
    ("Wie entsteht eine Springtide?", "Geo/Gezeiten.md"),  # "dabei entsteht ATP" elsewhere
    ("Wie funktioniert eine Zugbrücke?", "Geschichte/Burgen.md"),  # read as English "function" too
])
def test_the_frame_decided_before(engine: Engine, monkeypatch: pytest.MonkeyPatch, query: str, note: str) -> None:
    """The notes above are of the class: with frame words weighing as much as others, the frame wins."""
    monkeypatch.setattr(lexical, "FRAME_WEIGHT", 1.0)
    assert engine.search(query, k=3, mode="lexical", per_note=True).results[0].path != note


def test_a_frame_word_alone_still_finds_its_note(engine: Engine) -> None:
    assert engine.search("Beispiele", k=3, mode="lexical", per_note=True).results[0].path == "Writing/Examples.md"


def test_a_hub_ranks_below_the_note_on_the_subject(engine: Engine) -> None:
    ranked = [hit.path for hit in engine.search("Wie läuft die Zellatmung ab?", k=5, per_note=True).results]
    assert ranked[:2] == ["Biologie/Stoffwechsel.md", "00 Übersicht.md"]


def test_a_question_about_planning_keeps_the_hub_first(engine: Engine) -> None:
    ranked = [hit.path for hit in engine.search("Wann ist die Klausur in Zellatmung?", k=5, per_note=True).results]
    assert ranked[0] == "00 Übersicht.md"


@pytest.mark.parametrize(("query", "lang", "frame"), [
    ("what is the difference between mitosis and meiosis", "en", [False, False, False, True, False, False, False,
                                                                   False]),
    ("how do you say bread in spanish", "en", [False, False, False, True, False, False, True]),
    ("spanish verbs in the past", "en", [False, False, False, False, False]),  # the subject, not the target
    ("was heißt brot auf spanisch", "de", [False, True, False, False, True]),
    ("wie viele herzkammern hat ein frosch", "de", [False, True, False, False, False, False]),  # a count asked
    ("wie funktioniert eine zugbrücke", "de", [False, True, False, False]),  # how it works, not the noun function
    ("unterschied mitose meiose", None, [True, False, False]),  # no clear language: every language's frame
])
def test_frame_words_per_language(query: str, lang: str | None, frame: list[bool]) -> None:
    assert frame_words(query.split(), [lang] if lang else ["en", "de"]) == frame
