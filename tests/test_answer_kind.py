"""A question that asks for a kind of answer (a number, a span of time, a date) is answered only by a passage
that gives one next to what it asks about; otherwise the vault does not cover it (issue 17: "How many monthly
active users does Obsidian have?" was answered from passages that use every word but give no such number)."""

from __future__ import annotations

from typing import Any

import pytest

from answer_support import collect, final, make_vault
from cognivault.answer.answer_kind import expected_answer, gives_answer
from cognivault.answer.evidence import ANSWER_CUES, FALLBACK_ANALYZER, QUESTION_FILLERS, question_concepts
from cognivault.answer.pipeline import stream_answer
from cognivault.answer.request import AskRequest
from cognivault.answer.sessions import SessionStore
from cognivault.engine import Engine
from cognivault.index.analysis import is_stopword
from cognivault.models.extractive_chat import ExtractiveChat

NOTES = {
    "Sync/Shared vaults.md": """# Shared vaults

Obsidian Sync users can work together on a shared remote vault. Active members see each other's changes.
Create a shared vault from the Sync settings.

## Limits

You can share a remote vault with up to 20 people.

## Reports

Monthly reports show how active your users were and which notes they changed.
""",
    "Plugins/Install plugins.md": """# Install plugins

To install community plugins:

1. Open the settings.
2. Choose community plugins.
3. Install the plugins you want.
""",
    "Workspace/Tab groups.md": """# Tab groups

To bookmark a tab group, select **Bookmark 3 tabs** in its menu, where 3 is the number of tabs in the tab group.
""",
    "Workspace/Tab-Gruppen.md": """---
lang: de
---
# Tab-Gruppen

Um eine Tab-Gruppe als Lesezeichen zu setzen, wähle **3 Tabs als Lesezeichen setzen**, wobei 3 die Anzahl der Tabs in
der Tab-Gruppe ist.
""",
    "History/Printing press.md": """# Printing press

Johannes Gutenberg built a printing press with movable metal type in Mainz around 1450.
""",
    "Sync/Versionen.md": """---
lang: de
---
# Gemeinsame Tresore

Du kannst einen Remote-Tresor mit bis zu 20 Personen teilen. Aktive Mitglieder sehen die Änderungen der anderen.

## Berichte

Monatliche Berichte zeigen, wie aktiv deine Nutzer waren und welche Notizen sie geändert haben.

## Versionsverlauf

Sync bewahrt ältere Versionen deiner Notizen zwölf Monate lang auf.
""",
}


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Any:
    vault, settings = make_vault(tmp_path_factory.mktemp("kinds"), NOTES)
    with Engine(vault, settings, embedder=None, writable=False) as opened:
        yield opened


async def ask(engine: Any, question: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The ``done`` data and the last ``confidence`` envelope's data (by the chosen quotes) of an extractive
    answer."""
    envelopes = await collect(stream_answer(engine, AskRequest(question, use_cache=False), ExtractiveChat(),
                                            SessionStore(None), cache=None))
    return final(envelopes)["data"], [e["data"] for e in envelopes if e["type"] == "confidence"][-1]


@pytest.mark.parametrize("question", ["How many monthly active users does Obsidian Sync have?",
                                      "Wie viele monatliche Nutzer hat Sync?"])
async def test_a_count_the_notes_never_give_is_not_in_the_vault(engine: Any, question: str) -> None:
    # Every word of the question is in the vault, and a number too ("up to 20 people"), but none next to what
    # is counted: refused, and the reason names the user's words.
    done, confidence = await ask(engine, question)
    assert not done["answered"] and confidence["label"] == "low"
    assert confidence["kind_stated"] is False and confidence["kind_refused"] is True
    assert "no number for" in confidence["reason"] and ("monthly active users" in confidence["reason"]
                                                        or "monatliche nutzer" in confidence["reason"])


@pytest.mark.parametrize(("question", "stated"), [
    ("How many people can I share a remote vault with?", "up to 20 people"),
    ("Wie viele Personen können einen Remote-Tresor teilen?", "bis zu 20 Personen"),
    ("Mit wie vielen Personen kann ich einen Tresor teilen?", "bis zu 20 Personen"),
    ("Wie lange bewahrt Sync ältere Versionen auf?", "zwölf Monate"),
    ("When was the printing press built?", "1450"),
])
async def test_a_passage_giving_the_kind_asked_for_answers_and_leads(engine: Any, question: str, stated: str) -> None:
    done, confidence = await ask(engine, question)
    assert done["answered"] and confidence["kind_stated"] is True
    assert stated in done["answer"].split("[S", 1)[0]  # in the lead quote


async def test_how_much_may_ask_for_a_degree_and_is_answered_unsure(engine: Any) -> None:
    # "how much" can ask for a degree, not an amount ("how much control ..."): the passages answer, at low
    # confidence, and the reason says no number was found; "how many" (above) is refused instead.
    done, confidence = await ask(engine, "How much do active members see of each other's changes?")
    assert done["answered"] and "Active members see each other's changes." in done["answer"]
    assert confidence["label"] == "low" and confidence["kind_stated"] is False and not confidence["kind_refused"]
    assert "no number for" in confidence["reason"]
    # its first line says what the notes lack, before the nearest they come
    assert done["answer"].split("\n", 1)[0] == \
        "The notes give no number for “active members see changes”; the nearest they come:"


async def test_the_numbers_of_a_procedures_steps_are_no_count(engine: Any) -> None:
    # "1. Open the settings." numbers a step; it does not say how many plugins there may be.
    done, confidence = await ask(engine, "How many plugins can I install?")
    assert not done["answered"] and "no number for plugins" in confidence["reason"]


async def test_a_when_question_needs_a_date(engine: Any) -> None:
    done, confidence = await ask(engine, "When was the shared vault created?")
    assert not done["answered"] and "no date for" in confidence["reason"]


async def test_a_question_asking_no_kind_is_judged_as_before(engine: Any) -> None:
    done, confidence = await ask(engine, "How do I create a shared vault?")
    assert done["answered"] and confidence["kind_stated"] is None
    assert "Create a shared vault from the Sync settings." in done["answer"]


def test_the_focus_is_what_the_cue_counts(engine: Any) -> None:
    def focus(question: str, lang: str) -> list[str] | None:
        expected = expected_answer(question, question_concepts(engine, question, lang), lang)
        return None if expected is None else [concept.word for concept in expected.focus]

    assert focus("How many monthly active users does Obsidian have?", "en") == ["monthly", "active", "users"]
    # A function word right after the cue: every content word of its clause.
    assert focus("How much does a Catalyst license cost, and who sells it?", "en") == ["catalyst", "license", "cost"]
    assert focus("Wie viele Personen können einen Tresor teilen?", "de") == ["personen"]
    assert focus("When should I avoid prompt variables?", "en") is None  # advice, not a date
    assert focus("How do I embed a note?", "en") is None
    # An English counted noun ends the phrase at its plural: what follows is what the counted things do.
    assert focus("How many items fit into short-term memory?", "en") == ["items"]
    assert focus("how many hosts fit in a /24 network?", "en") == ["hosts"]
    assert focus("How many class members vote?", "en") == ["class", "members"]
    # A German cue followed by a verb, not a noun ("kostet"): like an English function word, the whole clause.
    assert focus("Wie viel kostet die Supporter-Stufe?", "de") == ["kostet", "supporter", "stufe"]


def test_a_german_price_question_is_answered_by_the_row_with_the_amount(engine: Any) -> None:
    # "Wie viel kostet …" and "Was kostet …" ask for a price; the verb is no noun the amount must count, so the
    # price row under the tiers' header answers (before: "kostet" had to be in the row, and only the rows
    # without a price were quoted, at low).
    header = "Catalyst-Stufen\n| Vorteile | Insider | Supporter | VIP |\n|---|---|---|---|"
    for question in ("Wie viel kostet die Supporter-Stufe?", "Was kostet die Supporter-Stufe?"):
        expected = expected_answer(question, question_concepts(engine, question, "de"), "de")
        assert expected is not None and expected.kind == "price" and expected.head is None
        assert gives_answer(expected, "| **Beitrag (USD)** | **$25** | **$50** | **$100** |", FALLBACK_ANALYZER,
                            "de", header)
        assert not gives_answer(expected, "| Frühzeitiger Zugang zu neuen Versionen | ✓ | ✓ | ✓ |",
                                FALLBACK_ANALYZER, "de", header)
    # a noun right after the cue is still what is counted
    expected = expected_answer("Wie viele Personen können einen Tresor teilen?",
                               question_concepts(engine, "Wie viele Personen können einen Tresor teilen?", "de"), "de")
    assert expected is not None and expected.head is not None and expected.head.word == "personen"


def test_a_table_header_is_near_every_cell_of_its_row(engine: Any) -> None:
    question = "How many synced vaults does the Plus plan include?"
    expected = expected_answer(question, question_concepts(engine, question, "en"), "en")
    assert expected is not None
    row = "| Synced vaults | 1 | 10 |"
    assert gives_answer(expected, row, FALLBACK_ANALYZER, "en", "| | Sync Standard | Sync Plus |\n|---|---|---|")
    assert not gives_answer(expected, "| Synced vaults | yes | yes |", FALLBACK_ANALYZER, "en", "")
    assert gives_answer(expected, "Plus includes 10 synced vaults.", FALLBACK_ANALYZER, "en")
    assert not gives_answer(expected, "Plus includes synced vaults. It was built in 10 days on a long trip through "
                                      "the mountains of the south.", FALLBACK_ANALYZER, "en")


def test_percentages_need_a_percentage() -> None:
    question = "What percentage of notes are encrypted?"
    from cognivault.answer.evidence import Concept

    concepts = [Concept("note", "notes", frozenset({"note"})), Concept("encrypt", "encrypted", frozenset({"encrypt"}))]
    expected = expected_answer(question, concepts, "en")
    assert expected is not None and expected.kind == "share"
    assert gives_answer(expected, "100 % of your notes are encrypted.", FALLBACK_ANALYZER, "en")
    assert not gives_answer(expected, "Notes are encrypted with 256-bit keys.", FALLBACK_ANALYZER, "en")
    assert not gives_answer(expected, "Encrypted notes %% hidden %% stay on 1 device.", FALLBACK_ANALYZER, "en")


def test_cue_words_are_the_analyzers_question_words() -> None:
    # The word that asks ("how", "wie", "wann", "wieviel") is one the analyzer (or the question reader) never
    # treats as what a question is about.
    for code, cues in ANSWER_CUES.items():
        for cue in cues:
            assert any(is_stopword(word, code) or word in QUESTION_FILLERS for word in cue), cue



async def test_how_many_days_asks_for_a_span_of_time(engine: Any) -> None:
    # The notes say "zwölf Monate": a span of time answers "how many days", whatever its unit.
    for question in ("Wie viele Tage bewahrt Sync ältere Versionen auf?", "How many days does Sync keep versions?"):
        expected = expected_answer(question, question_concepts(engine, question, None), None)
        assert expected is not None and expected.kind == "duration"
    done, confidence = await ask(engine, "Wie viele Tage bewahrt Sync ältere Versionen auf?")
    assert done["answered"] and "zwölf Monate" in done["answer"] and confidence["kind_stated"] is True


def test_a_weaker_passage_that_gives_the_number_is_not_left_out() -> None:
    from cognivault.answer.evidence import Concept, Evidence, text_terms
    from cognivault.answer.extractive import choose_units

    def passage(label: str, path: str, text: str) -> Evidence:
        return Evidence(label, label, path, path[:-3], [], 1, 2, "", text, "", 0.0, lang="en",
                        terms=text_terms(FALLBACK_ANALYZER, text, "en"))

    # Every word of the question, no number; then fewer of its words, and the number.
    wordy = passage("S1", "Sync Plus.md", "Sync Plus lets you sync vaults and pick the vaults to sync on a device.")
    plans = passage("S2", "Plans.md", "The Plus plan includes 10 vaults.")
    concepts = [Concept("vault", "vaults", frozenset({"vault"})), Concept("sync", "sync", frozenset({"sync"})),
                Concept("plus", "plus", frozenset({"plus"}))]
    question = "How many vaults can I sync with Sync Plus?"
    expected = expected_answer(question, concepts, "en")
    terms = [concept.key for concept in concepts]
    chosen = choose_units([wordy, plans], terms, {t: 1.0 for t in terms}, FALLBACK_ANALYZER, question,
                          expected=expected)
    assert chosen and chosen[0].label == "S2" and "10 vaults" in chosen[0].text
    assert [unit.label for unit in choose_units([wordy, plans], terms, {t: 1.0 for t in terms}, FALLBACK_ANALYZER,
                                                question)] == ["S1"]  # asked for nothing, the weaker one stays out


async def test_the_maximum_or_minimum_of_something_asks_for_an_amount(engine: Any) -> None:
    # "What is the maximum …" asks for a number, bounded ("up to"): the note giving it answers, a note that only
    # talks about the thing (monthly reports, no size given) does not.
    for question in ("What is the maximum number of people I can share a remote vault with?",
                     "Was ist die maximale Anzahl von Personen in einem Tresor?",
                     "Mit wie vielen Personen kann ich einen Tresor höchstens teilen?"):
        expected = expected_answer(question, question_concepts(engine, question, None), None)
        assert expected is not None and expected.kind == "limit", question
    for question, stated in (("What is the maximum number of people I can share a remote vault with?",
                              "up to 20 people"),
                             ("Mit wie vielen Personen kann ich einen Tresor höchstens teilen?", "bis zu 20 Personen")):
        done, confidence = await ask(engine, question)
        assert done["answered"] and stated in done["answer"] and confidence["kind_stated"] is True, question
    for question in ("What is the maximum number of monthly reports?",
                     "Was ist die maximale Anzahl monatlicher Berichte?"):
        done, confidence = await ask(engine, question)
        assert not done["answered"] and "no limit for" in confidence["reason"], question


@pytest.mark.parametrize(("question", "lacking"), [
    ("What is the maximum number of tabs in a tab group?", "The vault doesn't say: the notes give no limit for"),
    ("What is the minimum number of tabs in a tab group?", "The vault doesn't say: the notes give no limit for"),
    ("Wie viele Tabs darf eine Tab-Gruppe höchstens haben?", "die Notizen nennen keine Grenze für"),
    ("Wie viele Tabs braucht eine Tab-Gruppe mindestens?", "die Notizen nennen keine Grenze für"),
])
async def test_a_count_is_no_bound(engine: Any, question: str, lacking: str) -> None:
    # "Bookmark 3 tabs, where 3 is the number of tabs in the group" counts the tabs of one group; it does not say how
    # many a group may have: refused, and the refusal says what the notes lack. How many tabs there are is answered.
    done, confidence = await ask(engine, question)
    assert not done["answered"] and confidence["kind_stated"] is False, question
    assert lacking in done["answer"]
    done, _ = await ask(engine, "How many tabs does the tab group have?" if "tabs" in question else
                        "Wie viele Tabs hat die Tab-Gruppe?")
    assert done["answered"] and ("3 tabs" in done["answer"] or "3 Tabs" in done["answer"])


def test_a_bound_is_a_number_said_with_a_word_bounding_it() -> None:
    from cognivault.answer.evidence import Concept

    tokens = [Concept("token", "tokens", frozenset({"token"}))]
    expected = expected_answer("What is the maximum number of tokens?", tokens, "en")
    assert expected is not None and expected.kind == "limit"
    for text in ("A message may have up to 2048 tokens.", "Messages have at most twenty tokens.",
                 "There is no limit on the tokens of a message.", "Messages may use unlimited tokens.",
                 # the number in the sentence before the bound: "This is the maximum"
                 "The context window defaults to 2048 tokens. This is the maximum number of tokens."):
        assert gives_answer(expected, text, FALLBACK_ANALYZER, "en"), text
    for text in ("A message of 2048 tokens took 3 seconds.", "The maximum number of tokens depends on the model.",
                 "Tokens are counted per message."):
        assert not gives_answer(expected, text, FALLBACK_ANALYZER, "en"), text
    personen = [Concept("person", "Personen", frozenset({"person"}))]
    expected = expected_answer("Wie viele Personen dürfen höchstens teilnehmen?", personen, "de")
    assert expected is not None and expected.kind == "limit"
    assert gives_answer(expected, "Es dürfen maximal 12 Personen teilnehmen.", FALLBACK_ANALYZER, "de")
    assert gives_answer(expected, "Es können unbegrenzt viele Personen teilnehmen.", FALLBACK_ANALYZER, "de")
    assert not gives_answer(expected, "Gestern nahmen 12 Personen teil.", FALLBACK_ANALYZER, "de")
    # without a bounding word, "how many" still asks for a count, which a count gives
    expected = expected_answer("Wie viele Personen nahmen teil?", personen, "de")
    assert expected is not None and expected.kind == "quantity"
    assert gives_answer(expected, "Gestern nahmen 12 Personen teil.", FALLBACK_ANALYZER, "de")


def test_a_bound_in_the_question_is_not_what_the_amount_is_of() -> None:
    # "Wie lange durfte ein Diktator *höchstens* im Amt bleiben?" of "Diktator: nur in Notlagen, max. 6 Monate": the
    # bound says which span is asked for; the line gives it of the dictator in the section on offices ("Ämter"). The
    # question's asking verbs ("durfte", "bleiben") need not be said again for half of what it is about to be there.
    from cognivault.answer.evidence import Concept

    def concept(word: str, lang: str, frame: bool = False) -> Concept:
        return Concept(word, word, frozenset(FALLBACK_ANALYZER.terms_of_word(word, lang)), frame=frame)

    german = [concept(word, "de", frame) for word, frame in (("durfte", True), ("diktator", False), ("rom", False),
                                                              ("höchstens", True), ("amt", False), ("bleiben", True))]
    expected = expected_answer("Wie lange durfte ein Diktator in Rom höchstens im Amt bleiben?", german, "de")
    assert expected is not None and expected.kind == "duration"
    assert "höchstens" not in [each.word for each in expected.focus]
    line = "- Diktator: nur in Notlagen, max. **6 Monate**"
    assert gives_answer(expected, line, FALLBACK_ANALYZER, "de", heading="Römische Republik Ämter")
    assert not gives_answer(expected, line.replace("Diktator", "Konsul"), FALLBACK_ANALYZER, "de",
                            heading="Römische Republik Ämter")
    english = [concept("tribune", "en"), concept("stay", "en", True), concept("office", "en"),
               concept("most", "en")]
    expected = expected_answer("How long could a tribune stay in office at most?", english, "en")
    assert expected is not None and expected.kind == "duration"
    line = "Tribunes: elected by the plebs, max. 1 year"
    assert gives_answer(expected, line, FALLBACK_ANALYZER, "en", heading="Roman offices")
    assert not gives_answer(expected, "Consuls: two, elected every year", FALLBACK_ANALYZER, "en",
                            heading="Roman offices")


@pytest.mark.parametrize("question", ["Wie viele Personen können standardmäßig einen Remote-Tresor teilen?",
                                      "Wie viele Personen können typischerweise einen Remote-Tresor teilen?",
                                      "How many people can usually share a remote vault?"])
async def test_a_hedging_adverb_asks_nothing_the_answer_must_say(engine: Any, question: str) -> None:
    # "standardmäßig", "typischerweise" (any "-erweise" sentence adverb), "usually": the note states the limit
    # without them; before, "standardmäßig" was a key term no passage has, and the answer fell to low.
    done, confidence = await ask(engine, question)
    assert done["answered"] and "20" in done["answer"] and confidence["label"] != "low"
    assert not any(word in confidence["reason"] for word in ("standard", "typisch", "usually"))


def test_word_lists_match_words_as_a_question_is_read(engine: Any) -> None:
    # Casefolding writes "ß" as "ss": "wie groß" is a cue and "dreißig" a number word all the same.
    question = "Wie groß ist ein Remote-Tresor?"
    expected = expected_answer(question, question_concepts(engine, question, "de"), "de")
    assert expected is not None and expected.kind == "quantity" and not expected.required
    question = "Wie viele Personen können einen Tresor teilen?"
    expected = expected_answer(question, question_concepts(engine, question, "de"), "de")
    assert expected is not None
    assert gives_answer(expected, "Bis zu dreißig Personen teilen einen Tresor.", FALLBACK_ANALYZER, "de")


def test_sentence_adverbs_are_hedges_and_nouns_of_the_same_ending_are_not() -> None:
    from cognivault.answer.evidence import is_hedge

    assert all(is_hedge(word) for word in ("typischerweise", "möglicherweise", "normalerweise", "seltsamerweise",
                                           "usually", "standardmässig"))
    assert not any(is_hedge(word) for word in ("rückverweise", "verweise", "beweise", "hinweise", "schrittweise"))


def test_a_question_line_is_part_of_the_answer_line_after_it() -> None:
    # An exam Q&A note answers on the line after its question: the question names what the number counts.
    from cognivault.answer.evidence import Concept

    concepts = [Concept("nash", "nash", frozenset({"nash"})), Concept("equilibria", "equilibria",
                                                                     frozenset({"equilibria"}))]
    expected = expected_answer("How many Nash equilibria does the game have?", concepts, "en")
    assert expected is not None and expected.head is not None
    pair = "Q: How many Nash equilibria does the game have?\nA: Two in pure strategies, so three overall."
    assert gives_answer(expected, pair, FALLBACK_ANALYZER, "en")
    # the same answer under a statement, not a question, counts nothing named
    assert not gives_answer(expected, "Nash equilibria are stable.\nTwo in pure strategies, so three overall.",
                            FALLBACK_ANALYZER, "en")


def test_none_zero_and_one_are_amounts_too() -> None:
    from cognivault.answer.evidence import Concept

    concepts = [Concept("equilibria", "equilibria", frozenset({"equilibria"}))]
    expected = expected_answer("How many equilibria are there in pure strategies?", concepts, "en")
    assert expected is not None
    assert gives_answer(expected, "Q: How many equilibria are there?\nA: None in pure strategies; one in mixed.",
                        FALLBACK_ANALYZER, "en")


def test_a_line_leading_into_a_list_states_its_number_of_the_items(engine: Any) -> None:
    # "How many days after buying Publish …" was refused ("no number or span of time for buying Publish get full
    # refund"): the days are in the lead line, Publish only in the list it leads into
    question = "How many days after buying Publish can I still get a full refund?"
    expected = expected_answer(question, question_concepts(engine, question, "en"), "en")
    assert expected is not None and expected.kind == "duration"
    lead = "We offer full refunds within 7 days of purchase for the following services:\n\n"
    assert gives_answer(expected, lead + "- [[Introduction to Obsidian Publish|Obsidian Publish]]\n- Obsidian Sync",
                        FALLBACK_ANALYZER, "en")
    # items that no line leads into stay sentences of their own
    assert not gives_answer(expected, "We offer full refunds within 7 days of purchase.\n\n- Obsidian Publish",
                            FALLBACK_ANALYZER, "en")


def test_a_number_after_an_abbreviation_is_in_its_sentence() -> None:
    # "Wie viele Substratmoleküle setzt die Carboanhydrase pro Sekunde um?" was refused ("keine Zahl"): "ca." ended
    # the sentence before "$10^6$"; "d. h." as well
    from cognivault.answer.evidence import Concept

    concepts = [Concept("substratmolekul", "substratmoleküle", frozenset({"substratmolekul"})),
                Concept("carboanhydras", "carboanhydrase", frozenset({"carboanhydras"}))]
    expected = expected_answer("Wie viele Substratmoleküle setzt die Carboanhydrase pro Sekunde um?", concepts, "de")
    assert expected is not None and expected.kind == "quantity"
    lead = "Wechselzahl $k_{cat}$ = Substratmoleküle pro Sekunde:\n"
    assert gives_answer(expected, lead + "- Carboanhydrase: ca. $10^6$ pro Sekunde!", FALLBACK_ANALYZER, "de")
    # the lead line's counted noun reaches the plain lines right under it, not a paragraph after a blank line
    assert gives_answer(expected, lead + "Carboanhydrase: ca. $10^6$ pro Sekunde!", FALLBACK_ANALYZER, "de")
    assert not gives_answer(expected, lead + "\nCarboanhydrase: ca. $10^6$ pro Sekunde!", FALLBACK_ANALYZER, "de")
    assert gives_answer(expected, "Substratmoleküle der Carboanhydrase, d. h. ca. 10 Mio.", FALLBACK_ANALYZER, "de")


def test_a_fraction_asks_for_a_share_and_a_decimal_gives_one() -> None:
    # "… what fraction of the people who test positive actually have the disease?" was refused on "fraction"
    from cognivault.answer.evidence import Concept

    concepts = [Concept("test", "test", frozenset({"test"})), Concept("posit", "positive", frozenset({"posit"})),
                Concept("diseas", "disease", frozenset({"diseas"}))]
    expected = expected_answer("What fraction of people who test positive have the disease?", concepts, "en")
    assert expected is not None and expected.kind == "share" and expected.cue == "what fraction"
    assert gives_answer(expected, "Of those who test positive, ≈ 0.154 have the disease.", FALLBACK_ANALYZER, "en")
    assert gives_answer(expected, "Positive test: $0{,}15$ have the disease", FALLBACK_ANALYZER, "en")
    assert not gives_answer(expected, "Positive test: 3 have the disease.", FALLBACK_ANALYZER, "en")
    assert not gives_answer(expected, "Positive test, version 10.154 of the disease list.", FALLBACK_ANALYZER, "en")


@pytest.mark.parametrize(("question", "concepts", "lang", "given", "not_given"), [
    ("How long until a new starter is stable?", [("starter", "starter"), ("stabl", "stable")], "en",
     "a new starter needs approx. 7-10 d before it is stable", "a new starter is stable once it smells sour"),
    ("How long does bulk fermentation take?", [("bulk", "bulk"), ("ferment", "fermentation")], "en",
     "bulk fermentation takes 4-6 hrs at 24 °C", "bulk fermentation needs a warm place"),
    ("Wie lange ist man bei Grippe ansteckend?", [("grippe", "grippe"), ("ansteck", "ansteckend")], "de",
     "Grippe: ansteckend ca. 3-5 Tg. nach Symptombeginn", "Grippe ist sehr ansteckend"),
    ("Wann war der Hitlerputsch?", [("hitlerputsch", "hitlerputsch")], "de",
     "- Hitlerputsch am 8./9. Nov. in München", "- Hitlerputsch in München, scheitert"),
    ("Wann wurde die Fuge entwickelt?", [("fug", "fuge"), ("entwickelt", "entwickelt")], "de",
     "Die Fuge wurde im 16. Jh. aus der Imitation entwickelt", "Die Fuge wurde aus der Imitation entwickelt"),
])
def test_a_span_or_date_a_student_shortens_answers_the_question(question: str, concepts: list[tuple[str, str]],
                                                                lang: str, given: str, not_given: str) -> None:
    """Students write units and months short ("7-10 d", "12 hrs", "3-5 Tg.", "8./9. Nov.", "16. Jh."): such a
    passage gives the span or date asked, and the refusal must not claim the notes give none."""
    from cognivault.answer.evidence import Concept

    read = [Concept(key, word, frozenset({key})) for key, word in concepts]
    expected = expected_answer(question, read, lang)
    assert expected is not None and expected.kind in ("duration", "date")
    assert gives_answer(expected, given, FALLBACK_ANALYZER, lang)
    assert not gives_answer(expected, not_given, FALLBACK_ANALYZER, lang)


def _read(concepts: list[tuple[str, str, bool]]) -> list[Any]:
    from cognivault.answer.evidence import Concept

    return [Concept(key, word, frozenset({key}), frame=frame) for key, word, frame in concepts]


def test_a_clause_asking_only_what_is_done_is_about_the_questions_other_clauses() -> None:
    """"…, wie lange soll ich warten?" names nothing but what is done: the span asked is of what the question's
    other clause names, and a passage giving one of that answers it (the refusal claimed the notes give no span of
    time for "warten" while the note said "nach 1–2 Tagen")."""
    question = "mein Sauerteigbrot riecht nach dem Backen komisch, wie lange soll ich warten?"
    expected = expected_answer(question, _read([("riecht", "riecht", True), ("sauerteigbrot", "sauerteigbrot", False),
                                                ("back", "backen", False), ("komisch", "komisch", True),
                                                ("wart", "warten", True)]), "de")
    assert expected is not None and expected.kind == "duration"
    assert gives_answer(expected, "- Sauerteigbrot am besten nach 1–2 Tagen anschneiden", FALLBACK_ANALYZER, "de")
    assert not gives_answer(expected, "- Geduld: 3 Tage warten", FALLBACK_ANALYZER, "de")


def test_the_verb_a_question_asks_with_locates_no_span_and_a_formula_is_no_hour() -> None:
    """"Wie lange *dauert* die Lichtreaktion?": a span of something else that "dauert" is not of it, and the "4 H"
    of a formula is no four hours; a lone "h" written in lower case still is."""
    expected = expected_answer("Wie lange dauert die Lichtreaktion?",
                               _read([("dauert", "dauert", True), ("lichtreaktion", "lichtreaktion", False)]), "de")
    assert expected is not None and expected.kind == "duration"
    assert not gives_answer(expected, "- globales Förderband: eine Runde dauert ca. 1000 Jahre", FALLBACK_ANALYZER,
                            "de")
    assert not gives_answer(expected, "Lichtreaktion: $2 H_2O \\to 4 H^+ + 4 e^- + O_2$", FALLBACK_ANALYZER, "de")
    assert gives_answer(expected, "Lichtreaktion: nach ca. 2 h gesättigt", FALLBACK_ANALYZER, "de")


def test_a_focus_word_the_vault_never_uses_is_in_no_sentence() -> None:
    """"Wie lange braucht das Wasser für eine Runde um die *Welt*?" of a vault that never says "Welt": the span is
    judged by the words the vault has ("eine Runde dauert ca. 1000 Jahre"); what a number counts stays asked."""
    from cognivault.answer.evidence import EvidencePack
    from cognivault.answer.extractive import _in_the_vaults_words

    question = "Wie lange braucht das Wasser für eine Runde um die Welt?"
    expected = expected_answer(question, _read([("braucht", "braucht", True), ("wass", "wasser", False),
                                                ("rund", "runde", False), ("welt", "welt", False)]), "de")
    assert expected is not None and not gives_answer(expected, "- eine Runde dauert ca. 1000 Jahre",
                                                     FALLBACK_ANALYZER, "de")
    judged = _in_the_vaults_words(expected, EvidencePack(unknown=["welt"]))
    assert judged is not None and gives_answer(judged, "- eine Runde dauert ca. 1000 Jahre", FALLBACK_ANALYZER, "de")
    counted = expected_answer("Wie viele Soldaten hatte Gustav Adolf?", _read(
        [("soldat", "soldaten", False), ("gustav", "gustav", False), ("adolf", "adolf", False)]), "de")
    assert counted is not None and counted.head is not None
    judged = _in_the_vaults_words(counted, EvidencePack(unknown=["soldaten"]))
    assert judged is not None and counted.head in judged.focus
