"""Near-miss questions refused by what they ask about (issue 25): the topic is in the vault, the thing asked is not.

A word the vault has in no form is no inflection of another word of the same start ("statins" of "station",
"reactions" of "reactio"); a word the vault does not have, read as a near word of it, must be in the quotes or
they answer something else; a name joined by "of" ("Committee of Ministers") is one name, unknown where the vault
never says it whole; a term of two words the vault names (a lecturer's announcement of next week) that no
quote states, weighing more of the question than the quotes state, is what the question asks about ("What causes the
*liquidity trap*?" answered with the causes of inflation is no answer). The refusal names what the vault does not say.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from cognivault.answer.evidence import (
    FALLBACK_ANALYZER,
    Concept,
    Evidence,
    EvidencePack,
    inflected,
    text_pairs,
    text_terms,
)
from cognivault.answer.extractive import answer_extractively, not_in_vault, passage_answer
from cognivault.engine import Engine

PHARMA = {
    "Pharma/Antihypertensives.md": "# Antihypertensives\n\n## Thiazides\n"
                                   "Thiazides lower blood pressure. Typical side effects: hypokalaemia, "
                                   "hyponatraemia and raised blood sugar.\n\n"
                                   "## Calcium channel blockers\n"
                                   "Amlodipine relaxes the vessels. Typical side effects: ankle oedema, flushing.\n",
    "Physik/Charge.md": "# Electric charge\n\nA static charge stays where it is until it finds a path to earth.\n",
    "EU/Council.md": "# Council of the European Union\n\n(also called \"Council of Ministers\")\n\n"
                     "- one minister per member state, authorised to commit their government\n"
                     "- the Parliament's committees prepare its positions\n",
}


@pytest.mark.parametrize(("word", "other", "same"), [
    ("capital", "capitals", True), ("produzieren", "produziert", True), ("statins", "station", False),
    ("reactions", "reactio", False), ("committee", "commit", False)])
def test_an_inflection_differs_by_an_ending_only(word: str, other: str, same: bool) -> None:
    assert inflected(word, other) is same


def test_a_word_the_vault_lacks_read_as_a_near_word_must_be_quoted(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    engine = indexed_notes(PHARMA)
    answer = answer_extractively(engine, "What are the typical side effects of statins?")
    assert not answer.answered
    assert "“statins”" in answer.text and "vault doesn't say" in answer.text
    assert answer.cited == []
    kept = answer_extractively(engine, "What are the typical side effects of thiazides?")
    assert kept.answered and "hypokalaemia" in kept.text


def test_a_name_joined_by_of_that_the_vault_never_says_whole_is_refused(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    engine = indexed_notes(PHARMA)
    assert not answer_extractively(engine, "What does the Committee of Ministers do?").answered
    assert answer_extractively(engine, "Who sits in the Council of Ministers?").answered


DATABASES = {
    "DB/Normalformen.md": "# Normalformen\n\n## 1. NF\n- alle Attribute sind atomar\n\n"
                          "## 2. NF\n- 1. NF + jedes Nichtschlüsselattribut hängt vom ganzen Schlüssel ab\n\n"
                          "## 3. NF\n- 2. NF + keine transitiven Abhängigkeiten\n",
    "Plan.md": "# Plan\n\n- 11.11. VL 4 – Normalformen der Relationen, Übung 4\n",
}


def test_a_numbered_thing_no_quote_numbers_is_refused(indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    engine = indexed_notes(DATABASES)
    refused = answer_extractively(engine, "Was ist die 4. Normalform?")
    assert not refused.answered and "4. Normalform" in refused.text
    answered = answer_extractively(engine, "Was ist die 3. Normalform?")
    assert answered.answered and "transitiven" in answered.text


LAW = {
    "Jura/Notwehr.md": "# Notwehr (§ 32 StGB)\n\n- Notwehr = erforderliche Verteidigung gegen einen gegenwärtigen "
                       "rechtswidrigen Angriff\n\n## Abgrenzung\n- Notwehrexzess § 33: Überschreitung aus Furcht "
                       "oder Schrecken → entschuldigt\n- anders als beim Notstand (§ 34) keine Güterabwägung\n",
    "Geschichte/Weimar.md": "# Weimarer Republik\n\n## Verfassung\n- **Art. 48**: Notverordnungsrecht des "
                            "Reichspräsidenten\n",
}


def test_a_numbered_provision_no_quote_numbers_is_refused(indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    engine = indexed_notes(LAW)
    refused = answer_extractively(engine, "Wann greift der entschuldigende Notstand nach § 35 StGB?")
    assert not refused.answered and "§ 35" in refused.text
    assert not answer_extractively(engine, "Was regelte Art. 49 der Weimarer Verfassung?").answered
    # numbered as the question numbers it, in the quote or its note's title
    named = answer_extractively(engine, "Was ist ein Notwehrexzess nach §33?")
    assert named.answered and "Furcht" in named.text
    assert answer_extractively(engine, "Was regelte Art. 48 der Weimarer Verfassung?").answered
    assert answer_extractively(engine, "Was ist Notwehr nach § 32 StGB?").answered


ART = {
    "Kunst/Renaissance.md": "# Renaissance\n\n## Painters\n- Leonardo painted the Mona Lisa in oil\n"
                            "- Raphael painted The School of Athens\n- the style: balance, perspective, harmony\n",
}


def test_a_refusal_names_the_missing_name_as_the_question_writes_it(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    answer = answer_extractively(indexed_notes(ART), "Who painted The Night Watch and what style is it?")
    assert not answer.answered
    assert "“Night Watch”" in answer.text


SPORT = {
    "Sport/Turniere.md": "# Turniere\n\n## Olympia\n- 2016 gewann Deutschland Silber im Turnier\n"
                         "- die Spiele finden alle vier Jahre statt\n",
}


def test_a_refusal_names_a_word_with_sharp_s_as_the_question_writes_it(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    answer = answer_extractively(indexed_notes(SPORT), "Wer gewann 2014 das Fußballturnier?")
    assert not answer.answered
    assert "“Fußballturnier”" in answer.text  # not "fussballturnier", the casefolded key


CENTRAL_BANKS = {
    "VWL/Central banks.md": "# Central banks\n\nThe ECB is the central bank of the euro area, in Frankfurt.\n",
    "VWL/Corridor.md": "# Interest-rate corridor\n\nThe deposit facility rate is the floor of the corridor, the "
                       "marginal lending rate its ceiling.\n",
}


def test_a_refusal_says_whether_the_vault_names_what_it_does_not_quote(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    # "ECB" is in the vault, not in the passage on the deposit rate: the refusal must not claim no note covers it
    engine = indexed_notes(CENTRAL_BANKS)
    apart = answer_extractively(engine, "What is the ECB's deposit facility rate in percent?")
    assert not apart.answered and "vault doesn't say" in apart.text
    assert "“ECB”" in apart.text and "no note covers it" not in apart.text
    unheard = answer_extractively(engine, "What is the Fed's deposit facility rate in percent?")
    assert not unheard.answered and "“Fed”" in unheard.text and "no note covers it" in unheard.text


TRANSCRIPT = {
    "History/Lecture 3 (transcript).md": (
        "# Lecture 3 (transcript)\n\n**[00:10]** Today: Prussia, from 1807 to 1815.\n\n"
        "**[12:40]** The reformers abolished serfdom in the October Edict of 1807, and cities got self-government "
        "in 1808.\n\n**[31:05]** Conscription followed in 1813, during the wars of liberation.\n"),
    "History/Other.md": "# Feudalism\n\nSerfdom bound peasants to the land of their lord.\n",
}


def test_a_name_the_note_states_once_at_its_start_counts_for_its_later_passages(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    # the transcript is on Prussia; its paragraph on the reforms never repeats the name
    engine = indexed_notes(TRANSCRIPT)
    answer = answer_extractively(engine, "When did Prussia abolish serfdom?")
    assert answer.answered and "October Edict of 1807" in answer.text


def passage(label: str, path: str, text: str) -> Evidence:
    return Evidence(label, label, path, path, [], 1, 3, "", text, "", 0.0, lang="en",
                    terms=text_terms(FALLBACK_ANALYZER, text, "en"), pairs=text_pairs(FALLBACK_ANALYZER, text, "en"))


def _economics_pack(weights: dict[str, float]) -> EvidencePack:
    causes = passage("S1", "Economics/Inflation.md", "Demand-pull inflation causes prices to rise when demand grows "
                                                        "faster than output.")
    outlook = passage("S2", "Economics/Lecture 3.md", "[15:02] Next week: deflation and the liquidity trap.")
    concepts = {key: Concept(key, word, frozenset({key})) for key, word in
                (("caus", "causes"), ("liquid", "liquidity"), ("trap", "trap"))}
    return EvidencePack(items=[causes, outlook], question_terms=list(concepts), concepts=concepts,
                        term_weights=weights, lang="en")


def test_a_term_of_two_words_the_vault_names_but_no_quote_states_is_refused() -> None:
    # "liquidity trap" stands side by side in a passage (announced for next week: no quote), the quotes state only
    # "causes"
    pack = _economics_pack({"caus": 1.0, "liquid": 1.1, "trap": 0.9})
    answer = passage_answer(pack, FALLBACK_ANALYZER, "What causes the liquidity trap?")
    assert answer.quotes == [] and answer.named_elsewhere == ["liquidity trap"]
    assert not_in_vault("en", answer.unnamed, answer.named_elsewhere).startswith("The vault doesn't say this about")


def test_a_light_term_no_quote_states_is_no_refusal() -> None:
    # the two words weigh less of the question than the quotes state: the quotes answer what it asks
    pack = _economics_pack({"caus": 3.0, "liquid": 0.5, "trap": 0.5})
    assert passage_answer(pack, FALLBACK_ANALYZER, "What causes the liquidity trap?").quotes


def _pharma_pack(weights: dict[str, float], gaps: frozenset[str] = frozenset()) -> EvidencePack:
    used = passage("S1", "Pharma/Antibiotics.md", "Antibiotics are used against bacterial infections, never viruses.")
    outro = passage("S2", "Pharma/Lecture 7.md", "**[44:30]** Okay, that's it for today, next week: anticoagulants.")
    concepts = {key: Concept(key, word, frozenset({key})) for key, word in
                (("anticoagul", "anticoagulants"), ("use", "used"))}
    return EvidencePack(items=[used, outro], question_terms=list(concepts), concepts=concepts,
                        term_weights=weights, lang="en", gaps=set(gaps))


def test_a_word_weighing_more_than_the_quotes_state_and_in_none_of_them_is_refused() -> None:
    answer = passage_answer(_pharma_pack({"anticoagul": 2.0, "use": 1.0}), FALLBACK_ANALYZER,
                            "What are anticoagulants used for?")
    assert answer.quotes == [] and answer.named_elsewhere == ["anticoagulants"]


@pytest.mark.parametrize("weights, gaps", [
    ({"anticoagul": 1.0, "use": 2.0}, frozenset()),  # the quotes state the most of the question
    ({"anticoagul": 2.0, "use": 1.0}, frozenset({"anticoagul"})),  # the vault may say it in another language
])
def test_a_word_no_quote_states_is_no_refusal_when_light_or_said_in_another_language(
        weights: dict[str, float], gaps: frozenset[str]) -> None:
    assert passage_answer(_pharma_pack(weights, gaps), FALLBACK_ANALYZER, "What are anticoagulants used for?").quotes


GERMAN_NOTES = {
    "Geo/Erdgeschichte.md": "---\nlang: de\n---\n# Erdgeschichte\n\n## Forschung\n"
                            "- Alfred Wegener, Meteorologe: Polarexpeditionen nach Grönland\n"
                            "  - starb 1930 auf dem Inlandeis, weil der Rückweg im Winter zu lang war\n",
    "Geo/Vulkane.md": "---\nlang: de\n---\n# Vulkane\n\n## Ablauf\n- Gasdruck im Magma steigt, bis das Gestein "
                      "nachgibt: dann folgt der Ausbruch\n- Asche und Lava treten aus\n",
    "Wirtschaft/Versicherung.md": "---\nlang: de\n---\n# Versicherung\n\nEine Versicherung verteilt das Risiko "
                                  "vieler Versicherter auf alle Beiträge.\n",
}


def test_a_german_question_names_what_the_vault_says_in_german_forms(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    engine = indexed_notes(GERMAN_NOTES)
    genitive = answer_extractively(engine, "Warum endete Wegeners Polarexpedition tödlich?")
    assert genitive.answered and "Rückweg" in genitive.text  # the stemmer reads "Wegeners" and "Wegener" apart
    compound = answer_extractively(engine, "Was steigt vor einem Vulkanausbruch im Magma?")
    assert compound.answered and "Gasdruck" in compound.text  # one note says "Vulkane" and "Ausbruch"
    apart = answer_extractively(engine, "Was kostet eine Vulkanversicherung?")
    assert not apart.answered  # "Vulkan" and "Versicherung" are two notes' subjects, not one thing


KINDS = {
    "Bio/Cell Respiration.md": (
        "# Cellular Respiration\n\n"
        "## Glycolysis\nHappens in the **cytoplasm**. One glucose is split into two pyruvate molecules.\n\n"
        "## Krebs cycle\nAlso called the citric acid cycle. Takes place in the **mitochondrial matrix**. Each turn "
        "releases 2 CO2 and produces 3 NADH and 1 FADH2.\n\n"
        "(is the Cori cycle klausurrelevant?? not in slides I think)\n"),
    "Stats/Hypothesentests.md": (
        "# Hypothesentests\n\n"
        "## t-Test\nDer t-Test vergleicht Mittelwerte. Beim Zweistichproben-t-Test werden zwei unabhängige Gruppen "
        "verglichen. Voraussetzung: normalverteilte Daten.\n"),
    "Help/Graph view.md": (
        "# Graph view\n\nTo open graph view, click **Open graph view** in the ribbon, or run the command "
        "*Graph view: Open graph view* from the command palette.\n"),
    "Stats/Literatur.md": "# Literatur\n\nD'Agostino und Stephens (1986) sammeln Anpassungstests; Tabellen zum MWU "
                          "stehen im Anhang.\n",
    "Help/Install.md": "# Install\n\nDownload the installer for your system: Mac, Windows or Linux, and run it.\n",
}


@pytest.mark.parametrize(("question", "named"), [
    ("What happens in the Cori cycle?", "Cori"), ("Welche Gruppen vergleicht der D'Agostino-Test?", "D'Agostino"),
    ("Welche Gruppen vergleicht der MWU-Test?", "MWU")])
def test_a_name_telling_which_thing_of_a_kind_must_be_quoted(
        indexed_notes: Callable[[dict[str, str]], Engine], question: str, named: str) -> None:
    engine = indexed_notes(KINDS)
    answer = answer_extractively(engine, question)
    assert not answer.answered and named in answer.text


@pytest.mark.parametrize(("question", "stated"), [
    ("What happens in the Krebs cycle?", "NADH"), ("Was vergleicht der t-Test?", "Mittelwerte"),
    ("How do I open graph view on a Mac?", "ribbon")])
def test_the_thing_of_a_kind_the_notes_name_or_a_qualifier_after_it_is_answered(
        indexed_notes: Callable[[dict[str, str]], Engine], question: str, stated: str) -> None:
    engine = indexed_notes(KINDS)
    answer = answer_extractively(engine, question)
    assert answer.answered and stated in answer.text
    assert "klausurrelevant" not in answer.text


SKETCH = {
    "Sketch/Diagrams.md": "# Diagrams\n\n## Embed an SVG\nTo embed an SVG in a diagram, drag the file onto the board. "
                          "The SVG scales with the board and keeps its layers.\n\n## Export a diagram\n"
                          "To export a diagram as a CSV, open the board menu and select **Export CSV**. The CSV "
                          "lists every shape with its position.\n",
    "Skizze/Tabellen.md": "# Tabellen\n\n## Ein PDF einbetten\nUm ein PDF in eine Tabelle einzubetten, ziehe die Datei "
                          "in eine Zelle. Das PDF erscheint dort als kleine Vorschau.\n\n## Tabellen exportieren\n"
                          "Um eine Tabelle als JSON zu exportieren, öffne das Menü der Tabelle und wähle **JSON "
                          "exportieren**. Die Datei enthält jede Zeile.\n",
    "Wirtschaft/BIP.md": "# Bruttoinlandsprodukt\n\nDas Bruttoinlandsprodukt (BIP) ist der Wert aller Endprodukte, "
                         "die in einem Land in einem Jahr hergestellt werden. Gebrauchtwaren und Hausarbeit fehlen "
                         "darin.\n",
}


@pytest.mark.parametrize(("question", "named", "answered_by"), [
    ("How do I export a diagram as an SVG?", "SVG", None),
    ("How do I export a diagram as a CSV?", "", "Export CSV"),
    ("Wie exportiere ich eine Tabelle als PDF?", "PDF", None),
    ("Wie exportiere ich eine Tabelle als JSON?", "", "JSON exportieren"),
    # what a verb says a thing is ("zählt als"), not a form a thing named before it is turned into
    ("Was zählt als BIP?", "", "Endprodukte"),
    # whether a thing can do what no passage says in any form
    ("Can I translate a diagram?", "translate", None), ("Can I export a diagram?", "", "Export CSV"),
    ("Kann ich eine Tabelle übersetzen?", "übersetzen", None),
    ("Kann ich eine Tabelle exportieren?", "", "JSON exportieren")])
def test_what_a_question_asks_to_do_must_be_quoted(
        indexed_notes: Callable[[dict[str, str]], Engine], question: str, named: str, answered_by: str | None) -> None:
    """Embedding an SVG and exporting a diagram are both in the notes, exporting one as an SVG is not; the notes say
    what a diagram does, not whether it can be translated."""
    answer = answer_extractively(indexed_notes(SKETCH), question)
    assert answer.answered is (answered_by is not None)
    if answered_by is None:
        assert f"“{named}”" in answer.text
    else:
        assert answered_by in answer.text



def assert_judged(answer: Any, named: str, answered_by: str | None) -> None:
    """``answer`` is refused naming ``named``, or (``answered_by``) answered quoting that."""
    assert answer.answered is (answered_by is not None), answer.text
    if answered_by is None:
        assert f"“{named}”" in answer.text
    else:
        assert answered_by in answer.text


@pytest.mark.parametrize(("question", "named", "answered_by"), [
    # an action turning the thing into something outside the app, which no passage on the thing has
    ("How do I print a diagram?", "print", None), ("Can I print a diagram?", "print", None),
    ("Wie drucke ich eine Tabelle aus?", "drucke", None), ("Kann ich eine Tabelle ausdrucken?", "ausdrucken", None),
    ("How do I print a letter?", "", "Ctrl+P"), ("Wie exportiere ich eine Tabelle?", "", "JSON exportieren"),
    ("How do I export a diagram?", "", "Export CSV"),
    # another verb no passage has is the user's own word for what the notes say ("put" for "embed", "drag")
    ("How do I put an SVG in a diagram?", "", "drag the file onto the board"),
    ("Wie bekomme ich ein PDF in eine Tabelle?", "", "ziehe die Datei")])
def test_an_action_out_of_the_app_must_be_said_with_the_thing(
        indexed_notes: Callable[[dict[str, str]], Engine], question: str, named: str, answered_by: str | None) -> None:
    """The notes say what a diagram does and how to print a letter, not how to print a diagram."""
    notes = {**SKETCH, "Office/Letters.md": "# Letters\n\nTo print a letter, open it and press Ctrl+P.\n"}
    assert_judged(answer_extractively(indexed_notes(notes), question), named, answered_by)


@pytest.mark.parametrize(("question", "named", "answered_by"), [
    ("Wie exportiere ich eine Tabelle als PDF-Datei?", "PDF", None),
    ("Wie exportiere ich eine Tabelle mit jeder Zeile aus dem Menü als Excel-Tabelle?", "Excel", None),
    ("How do I export a diagram with every shape and its position as an Excel sheet?", "Excel", None),
    ("Wie exportiere ich eine Tabelle als JSON-Datei?", "", "JSON exportieren"),
    ("How do I export a diagram as a CSV file?", "", "Export CSV"),
    # the vault's own subject names no form ("Obsidian links" are links)
    ("How do I export a diagram into Obsidian links?", "", "Export CSV")])
def test_a_form_named_by_a_compounds_first_part_or_a_name_must_be_quoted(
        indexed_notes: Callable[[dict[str, str]], Engine], question: str, named: str, answered_by: str | None) -> None:
    """"als *PDF*-Datei", "als *Excel*-Tabelle", "as an *Excel* sheet": the form is the name before the kind of file
    (a format's abbreviation, or a capitalised word the vault never uses)."""
    notes = {**SKETCH, "Obsidian.md": "# Obsidian\n\nObsidian links join notes. Obsidian stores notes as files.\n"}
    assert_judged(answer_extractively(indexed_notes(notes), question), named, answered_by)


def _apart_pack(lang: str, texts: list[str], words: list[tuple[str, str, bool]], gaps: frozenset[str] = frozenset()
                ) -> EvidencePack:
    items = [Evidence(f"S{at}", f"S{at}", f"N{at}.md", f"N{at}.md", [], 1, 3, "", text, "", 0.0, lang=lang,
                      terms=text_terms(FALLBACK_ANALYZER, text, lang), pairs=text_pairs(FALLBACK_ANALYZER, text, lang))
             for at, text in enumerate(texts, start=1)]
    concepts = {key: Concept(key, word, frozenset({key}), frame=frame) for key, word, frame in words}
    return EvidencePack(items=items, question_terms=list(concepts), concepts=concepts, lang=lang, gaps=set(gaps),
                        term_weights=dict(zip(concepts, (6.4, 6.0, 4.3), strict=False)))


ENGLISH_APART = (["Reader view cleans web pages of clutter.", "Keep a copy of your vault on your laptop."],
                 [("clean", "clean", True), ("laptop", "laptop", False), ("keyboard", "keyboard", False)])
GERMAN_APART = (["Reinige Webseiten mit der Leseansicht von Ballast.",
                 "Bewahre eine Kopie deines Vaults auf dem Laptop auf."],
                [("reinig", "reinige", True), ("laptop", "laptops", False), ("tastatur", "tastatur", False)])


@pytest.mark.parametrize(("lang", "notes", "question", "more"), [
    ("en", ENGLISH_APART, "How do I clean my laptop keyboard?", "Clean the keyboard of your laptop with a soft cloth."),
    ("de", GERMAN_APART, "Wie reinige ich die Tastatur meines Laptops?",
     "Reinige die Tastatur des Laptops mit einem weichen Tuch.")])
def test_a_question_whose_words_no_passage_has_together_is_refused_though_the_quotes_lack_some(
        lang: str, notes: tuple[list[str], list[tuple[str, str, bool]]], question: str, more: str) -> None:
    # "clean" in the reader's passage, "laptop" in the backup's, "keyboard" in none found: the quotes state the
    # question's heavier words, each on something else; a passage with two of its words together answers
    texts, words = notes
    assert passage_answer(_apart_pack(lang, texts, words), FALLBACK_ANALYZER, question).quotes == []
    answered = passage_answer(_apart_pack(lang, [*texts, more], words), FALLBACK_ANALYZER, question)
    assert any(more in quote.text for quote in answered.quotes)
    # a word the vault may say only in another language is not judged: one word of the topic is left
    assert passage_answer(_apart_pack(lang, texts, words, gaps=frozenset({words[2][0]})), FALLBACK_ANALYZER,
                          question).quotes


def _unheard_pack(lang: str, text: str, words: list[tuple[str, str, bool, float]], unknown: list[str]) -> EvidencePack:
    item = Evidence("S1", "S1", "N1.md", "N1.md", [], 1, 3, "", text, "", 0.0, lang=lang,
                    terms=text_terms(FALLBACK_ANALYZER, text, lang), pairs=text_pairs(FALLBACK_ANALYZER, text, lang))
    concepts = {key: Concept(key, word, frozenset({key}), frame=frame) for key, word, frame, _ in words}
    return EvidencePack(items=[item], question_terms=list(concepts), concepts=concepts, lang=lang,
                        term_weights={key: weight for key, _, _, weight in words}, unknown=unknown)


@pytest.mark.parametrize(("lang", "question", "text", "words", "unknown"), [
    ("en", "How do I change the oil filter of my car?", "Filters narrow a search to the notes that match.",
     [("chang", "change", True, 2.0), ("oil", "oil", False, 8.8), ("filter", "filter", False, 6.5),
      ("car", "car", False, 6.8)], "oil"),
    ("en", "How do I book a table in a restaurant?", "The restaurant example shows a map with icons.",
     [("book", "book", True, 5.0), ("tabl", "table", False, 8.8), ("restaur", "restaurant", False, 7.7)], "table"),
    ("de", "Wie reserviere ich einen Tisch im Restaurant?", "Das Restaurant zeigt die Karte mit Symbolen.",
     [("reservi", "reserviere", True, 7.1), ("tisch", "tisch", False, 8.8), ("restaurant", "restaurant", False, 7.7)],
     "Tisch"),
    ("de", "Wie setze ich meinen Router auf Werkseinstellungen zurück?", "Setze die Einstellungen zurück.",
     [("zurucksetz", "setze", True, 4.2), ("rout", "router", False, 6.6), ("werk", "werks", False, 8.8),
      ("einstell", "einstellungen", False, 2.2)], "Werkseinstellungen")])
def test_quotes_stating_one_word_beside_the_heaviest_the_vault_never_uses_are_no_answer(
        lang: str, question: str, text: str, words: list[tuple[str, str, bool, float]], unknown: str) -> None:
    # the quotes are about "filter" (a search's), the question about an oil filter of a car: the vault never says
    # "oil"; a word it knows, or quotes stating two words of the topic, are judged as before
    refused = passage_answer(_unheard_pack(lang, text, words, [unknown]), FALLBACK_ANALYZER, question)
    assert refused.quotes == [] and refused.unnamed == [unknown]
    assert passage_answer(_unheard_pack(lang, text, words, []), FALLBACK_ANALYZER, question).quotes
