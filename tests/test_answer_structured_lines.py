"""Notes whose structure carries the answer, and notes in another language than the question (issue 25).

A vocabulary list (``word :: translation``, one per line) is quoted by the line naming the asked word, not whole
and not passed over; a note in another language than the question is quoted where it says more of the question
than every passage in the question's language (a Spanish vocabulary list asked about in German, an English note
asked about in German next to a German note sharing only "Unterschied").
"""

from __future__ import annotations

from collections.abc import Callable

from cognivault.answer.extractive import answer_extractively
from cognivault.engine import Engine

NOTES = {
    "Spanisch/Vokabeln.md": "---\nlang: es\n---\n# Vokabeln Lektion 5 – La comida\n\n"
                            "Spanisch A2, Sprachenzentrum.\n\n## Im Restaurant\n"
                            "la carta :: die Speisekarte\nel postre :: der Nachtisch\nla cuenta :: die Rechnung\n"
                            "la propina :: das Trinkgeld\nel camarero :: der Kellner\n",
    "Plan.md": "---\nlang: de\n---\n# Semesterplan\n\n## Sprachen\n"
               "- Spanisch A2 (Sprachenzentrum, Mo + Mi): [[Vokabeln]] – Test Mi 19.11.\n",
    "Netze/TCP vs UDP.md": "---\nlang: en\n---\n# TCP vs UDP\n\n## Comparison\n"
                           "TCP is connection-oriented and reliable: lost segments are sent again. "
                           "UDP is connectionless: no handshake, no retransmission, less overhead.\n",
    "Datenbanken/Normalformen.md": "---\nlang: de\n---\n# Normalformen\n\n## BCNF\n"
                                   "- jede Determinante ist ein Schlüsselkandidat\n"
                                   "- strenger als die 3. NF, Unterschied nur bei überlappenden Schlüsseln\n",
}


def test_a_vocabulary_line_naming_the_word_is_quoted(indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    answer = answer_extractively(indexed_notes(NOTES), "Was heißt Trinkgeld auf Spanisch?")
    assert answer.answered
    assert "la propina :: das Trinkgeld" in answer.text
    assert "die Rechnung" not in answer.text  # the line, not the whole list


def test_a_note_in_another_language_answers_where_it_says_more(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    answer = answer_extractively(indexed_notes(NOTES), "Was ist der Unterschied zwischen TCP und UDP?")
    assert answer.answered
    assert "connection-oriented" in answer.text
    assert "Schlüsselkandidat" not in answer.text


def test_a_row_of_a_passage_beginning_inside_a_table_is_quoted_under_the_tables_header() -> None:
    from cognivault.answer.evidence import FALLBACK_ANALYZER, Evidence, text_terms
    from cognivault.answer.extractive import choose_units, compose, quotes_of

    def passage(label: str, text: str) -> Evidence:
        return Evidence(label, label, "Musik/Intervalle.md", "Intervalle", ["Intervalle"], 1, 9, "", text, "",
                        0.0, lang="de", terms=text_terms(FALLBACK_ANALYZER, text, "de"))

    head = passage("S1", "| Intervall | Halbtöne | Klang |\n|---|---|---|\n| reine Prime | 0 | Konsonanz |\n"
                         "| kleine Sekunde | 1 | Dissonanz |")
    tail = passage("S2", "|\n| große Septime | 11 | Dissonanz |\n| reine Oktave | 12 | Konsonanz |\n\n"
                         "- Oktave = 12 Halbtöne")
    terms = sorted(text_terms(FALLBACK_ANALYZER, "Septime", "de"))
    text = compose(quotes_of(choose_units([head, tail], terms, {}, FALLBACK_ANALYZER, "große Septime")))
    assert "| Intervall | Halbtöne | Klang |\n|---|---|---|\n| große Septime | 11 | Dissonanz |" in text
    assert "\n|\n" not in text


def test_a_students_equation_of_a_term_defines_it() -> None:
    from cognivault.answer.evidence import FALLBACK_ANALYZER, Evidence, text_terms
    from cognivault.answer.extractive import choose_units

    text = ("- NO-Monsun im Winter, trocken → Trockenzeit in Indien, Monsun-Regen bleibt aus\n"
            "- Monsun bleibt aus oder kommt zu spät → Dürre, Ernteausfälle; zu stark → Überschwemmungen in "
            "Bangladesch und Nordostindien, oft mit Hunderten Toten und Millionen Obdachlosen\n"
            "- andere Monsun-Regionen: Westafrika, Nordaustralien, Ostasien, dort weniger extrem als in Südasien, "
            "weil die Landmasse kleiner ist und das Hochland fehlt\n"
            "- El-Niño-Jahre → indischer Monsun oft schwächer, Walker-Zirkulation nachlesen für die Klausur\n"
            "- Bedeutung: ca. 70–80 % des Jahresniederschlags in Indien fallen im Sommermonsun → Landwirtschaft "
            "(Reis!) hängt davon ab\n"
            "- Monsun = großräumiges Windsystem mit halbjährlichem Richtungswechsel\n")
    item = Evidence("S1", "S1", "Geo/Monsun.md", "Monsun", ["Monsun"], 1, 9, "", text, "", 0.0, lang="de",
                    terms=text_terms(FALLBACK_ANALYZER, text, "de"))
    terms = sorted(text_terms(FALLBACK_ANALYZER, "Monsun", "de"))
    best = max(choose_units([item], terms, {}, FALLBACK_ANALYZER, "Monsun"), key=lambda unit: unit.score)
    assert best.text.startswith("- Monsun = großräumiges Windsystem")
