"""Near-miss questions on a topic the vault covers, for a fact it does not give (issue 25): the thing asked must be
stated in a quote with what it is about, otherwise the vault doesn't say.

- a price: "How much does Sync Plus cost?" of a note listing the plan's features gives no amount of money;
- a section the student marked unfinished ("TODO: class switching not covered yet", "Fehlt noch: Pulsare");
- a thing the notes name only in passing ("Promise.allSettled also exists.", "Viele Totimpfstoffe enthalten
  Adjuvanzien."), asked what it does;
- whether a thing does something ("Can the Audio recorder pause a recording?") that the notes on it never say in
  any form;
- when a course's event is ("When is the Astronomy exam?") of a hub listing other modules' exam dates.

Each near-miss has an answerable twin on the same notes that is still answered.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from cognivault.answer.answer_kind import expected_answer
from cognivault.answer.evidence import FALLBACK_ANALYZER, Concept, Evidence, EvidencePack, text_terms
from cognivault.answer.extractive import _unheard_of_the_subject, answer_extractively, says_not_in_vault
from cognivault.engine import Engine
from cognivault.index.analysis import is_stopword, words
from cognivault.vault.reading import is_todo

NOTES = {
    "Sync/Plans.md": "# Plans\n\n"
                     "Sync Plus gives you 10 synced vaults, files up to 200 MB and 12 months of version history.\n\n"
                     "Sync Standard gives you 1 synced vault and files up to 5 MB.\n",
    "Publish/Publish pricing.md": "# Publish pricing\n\nObsidian Publish costs $8 per month, billed annually.\n",
    "Sync/Tarife.md": "---\nlang: de\n---\n# Tarife\n\n"
                      "Sync Plus bietet 10 synchronisierte Vaults und Dateien bis zu 200 MB.\n\n"
                      "Publish kostet 8 € im Monat bei jährlicher Abrechnung. Deinen Tarif siehst du auf dem "
                      "Bildschirm **Konto**.\n",
    "Plugins/Audio recorder.md": "# Audio recorder\n\n"
                                 "Audio recorder is a core plugin that lets you record audio in a note.\n\n"
                                 "1. Open a note.\n2. Click **Start/stop recording** in the ribbon to start.\n"
                                 "3. Click it again to stop the recording.\n\n"
                                 "Obsidian saves the recording to your vault and embeds it in the active note.\n",
    "Plugins/Audio-Rekorder.md": "---\nlang: de\n---\n# Audio-Rekorder\n\n"
                                 "Mit dem Audio-Rekorder nimmst du Audio in einer Notiz auf. Klicke auf "
                                 "**Aufnahme starten**, um die Aufnahme zu starten, und erneut, um sie zu stoppen. "
                                 "Obsidian speichert die Aufnahme in deinem Vault.\n",
    "Immunology/Antibodies.md": "# Antibodies\n\n"
                                "Antibodies are Y-shaped proteins made by plasma cells.\n\n"
                                "## Affinity maturation\n\n"
                                "During an immune response, B cells in germinal centres mutate their antibody genes. "
                                "Cells whose antibodies bind better survive.\n\n"
                                "TODO: class switching not covered yet\n",
    "Astronomie/Sternentwicklung.md": "---\nlang: de\n---\n# Sternentwicklung\n\n"
                                      "## Späte Phasen\n\n"
                                      "Massereiche Sterne enden in einer Supernova; zurück bleibt ein Neutronenstern "
                                      "oder ein Schwarzes Loch.\n\n"
                                      "## Pulsare\n\nfehlt noch\n",
    "Economics/Marktformen.md": "---\nlang: de\n---\n# Marktformen\n\n## Oligopol\n\n"
                                "Im Oligopol hängen die Entscheidungen der Anbieter voneinander ab. Modelle: Cournot "
                                "(Mengenwettbewerb) und Bertrand (Preiswettbewerb).\n\n"
                                "Fehlt noch: Kartelle und Preisabsprachen\n",
    "Pharma/Schmerzmittel.md": "---\nlang: de\n---\n# Schmerzmittel\n\n## NSAR\n\n"
                               "NSAR hemmen die Cyclooxygenase und wirken schmerzlindernd und entzündungshemmend.\n\n"
                               "Beispiele: Ibuprofen, Diclofenac, Naproxen.\n\n"
                               "Typische Nebenwirkungen von Diclofenac sind Magenbeschwerden.\n\n"
                               "## Kondensatoren\n\nEs gibt Keramikkondensatoren und Folienkondensatoren. "
                               "Auch Superkondensatoren existieren.\n",
    "JS/Promises.md": "# Promises\n\n"
                      "A promise is pending, fulfilled or rejected.\n\n"
                      "## Combinators\n\n"
                      "- `Promise.all` waits for all promises and rejects as soon as one rejects.\n"
                      "- `Promise.race` settles as soon as the first promise settles.\n\n"
                      "Promise.allSettled also exists.\n",
    "Immunologie/Impfstoffe.md": "---\nlang: de\n---\n# Impfstoffe\n\n"
                                 "Totimpfstoffe enthalten abgetötete Erreger oder Bruchstücke davon; meist sind "
                                 "mehrere Dosen nötig.\n\n"
                                 "Viele Totimpfstoffe enthalten Adjuvanzien.\n",
}


@pytest.fixture
def engine(indexed_notes: Callable[[dict[str, str]], Engine]) -> Engine:
    return indexed_notes(NOTES)


def refused(engine: Engine, question: str) -> str:
    answer = answer_extractively(engine, question)
    assert not answer.answered and says_not_in_vault(answer.text) and answer.cited == [], answer.text
    return answer.text


def answers(engine: Engine, question: str, stated: str) -> None:
    answer = answer_extractively(engine, question)
    assert answer.answered and stated in answer.text, answer.text


@pytest.mark.parametrize(("question", "kind"), [
    ("How much does Sync Plus cost per month?", "price"), ("How expensive is Sync Plus?", "price"),
    ("Was kostet Sync Plus?", "price"), ("Wie hoch ist die Gebühr für Sync Plus?", "price"),
    ("How much storage does Sync Plus include?", "quantity"), ("How many vaults can I sync?", "quantity"),
    ("How much does demand fall when the price rises?", "quantity")])
def test_a_question_on_what_something_costs_asks_for_a_price(question: str, kind: str) -> None:
    expected = expected_answer(question, [], "de" if question.startswith(("Was", "Wie")) else "en")
    assert expected is not None and expected.kind == kind


def test_a_price_the_notes_never_give_is_not_in_the_vault(engine: Engine) -> None:
    # the plan's note gives numbers (vaults, megabytes, months), none of them a price
    assert "no price for" in refused(engine, "How much does Sync Plus cost per month?")
    assert "keinen Preis" in refused(engine, "Was kostet Sync Plus?")
    answers(engine, "How much does Obsidian Publish cost per month?", "$8 per month")
    answers(engine, "Was kostet Publish im Monat?", "8 € im Monat")


@pytest.mark.parametrize(("text", "marked"), [
    ("TODO: class switching not covered yet", True), ("Fehlt noch: Pulsare", True), ("fehlt noch", True),
    ("Class switching – not covered yet", True), ("Kartelle (TODO)", True),
    ("- Zellkern: fehlt", False), ("The details of the proof are missing from the script.", False),
    ("Die Formel fehlt.", False), ("> [!todo]-", False)])
def test_a_line_saying_a_section_is_not_written_yet_is_a_todo(text: str, marked: bool) -> None:
    assert is_todo(text) is marked


def test_what_the_student_marked_unfinished_is_not_in_the_vault(engine: Engine) -> None:
    # the note's other sections answer the question's other words ("antibodies"), not what it marks still to write
    assert "switching”" in refused(engine, "How does class switching work in antibodies?")
    assert "„Kartelle“" in refused(engine, "Wie funktionieren Kartelle im Oligopol?")
    refused(engine, "Wie entstehen Pulsare?")  # a heading over nothing but "fehlt noch"
    answers(engine, "How does affinity maturation work?", "germinal centres")
    answers(engine, "Welche Modelle gibt es für das Oligopol?", "Cournot")
    answers(engine, "Wie enden massereiche Sterne?", "Supernova")


def test_a_thing_the_notes_name_only_in_passing_is_not_described_by_them(engine: Engine) -> None:
    assert "allSettled" in refused(engine, "Does Promise.allSettled reject when one promise rejects?")
    assert "„Adjuvanzien“ nur beiläufig" in refused(engine, "Wie wirken Adjuvanzien?")
    # listed among others ("Beispiele: Ibuprofen, …"), or asked how it works of a sentence saying it exists
    assert "„Ibuprofen“ nur beiläufig" in refused(engine, "Welche Nebenwirkungen hat Ibuprofen?")
    assert "„Superkondensatoren“ nur beiläufig" in refused(engine, "Wie funktionieren Superkondensatoren?")
    answers(engine, "Welche Nebenwirkungen hat Diclofenac?", "Magenbeschwerden")
    answers(engine, "Does Promise.all reject when one promise rejects?", "rejects as soon as one rejects")
    answers(engine, "Was enthalten Totimpfstoffe?", "abgetötete Erreger")


def test_whether_a_thing_does_what_its_notes_never_say_is_not_in_the_vault(engine: Engine) -> None:
    # the notes on the recorder say how to record and where it saves, never "pause" or "mobile" in any form
    assert "“pause”" in refused(engine, "Can the Audio recorder pause a recording?")
    assert "“mobile”" in refused(engine, "Does the Audio recorder work on mobile?")
    assert "“Bildschirm”" in refused(engine, "Kann der Audio-Rekorder den Bildschirm speichern?")
    answers(engine, "Can the Audio recorder save the recording to my vault?", "saves the recording to your vault")
    answers(engine, "Kann der Audio-Rekorder die Aufnahme im Vault speichern?", "speichert die Aufnahme")


def _titled(title: str, text: str) -> Evidence:
    return Evidence("S1", "S1", f"Plugins/{title}.md", title, [], 1, 3, "", text, "", 0.0, lang="en",
                    terms=text_terms(FALLBACK_ANALYZER, text, "en"), words=frozenset(words(text)))


@pytest.mark.parametrize(("question", "title", "text", "unheard"), [
    ("Can the Audio recorder pause a recording?", "Audio recorder", "Click the icon to start recording.", ["pause"]),
    # the thing asked of is Slides, not the keyboard shortcuts the found note's title names
    ("Are there keyboard shortcuts for Slides?", "Keyboard shortcuts", "Set keyboard shortcuts for any command.", []),
])
def test_whether_asks_of_the_thing_named_right_after_its_first_word(question: str, title: str, text: str,
                                                                     unheard: list[str]) -> None:
    said = [word for word in words(question) if not is_stopword(word, "en")]
    concepts = {word: Concept(word, word, frozenset(text_terms(FALLBACK_ANALYZER, word, "en"))) for word in said}
    pack = EvidencePack(items=[_titled(title, text)], question_terms=list(concepts), concepts=concepts, lang="en")
    assert _unheard_of_the_subject(pack, question, FALLBACK_ANALYZER) == unheard


HUB = {
    "Semester hub.md": "# Semester hub\n\n## Exams\n\n- Statistics exam: 14.02.2026, room B12\n"
                       "- Microeconomics exam: 18.02.2026, Audimax\n\nThe Astronomy exam is an oral exam.\n\n"
                       "## Lectures\n\n- Astronomy lecture (Thu 14–16, Observatory)\n\n"
                       "## Registration\n\nRegister for exams in the portal two weeks before the exam.\n",
    "Analysis/Stetigkeit.md": "# Continuity\n\nA function is continuous when small changes of x give small changes "
                              "of f(x).\n",
}


def test_when_a_course_event_is_needs_its_own_date(indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    engine = indexed_notes(HUB)
    # the hub dates the other modules' exams and the astronomy lecture's hours, not the astronomy exam
    assert "no date for “Astronomy exam”" in refused(engine, "When is the Astronomy exam?")
    for question, stated in [("When is the Statistics exam?", "14.02.2026"),
                             ("When is the Astronomy lecture?", "Thu 14–16"),
                             ("When do I have to register for exams?", "two weeks before"),  # no event's date asked
                             ("When is a function continuous?", "small changes")]:  # a condition, no event
        answers(engine, question, stated)


def test_a_word_in_passing_in_one_language_is_no_refusal_of_quotes_in_another(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    # "… wo verzerrt sie die Fläche?" of an English glossary ("distorts area near the poles") while a German note
    # names "Fläche" only in passing: the English quotes may state it in their words
    engine = indexed_notes({
        "Geo/Cartography glossary.md": """# Cartography glossary

## Projections
- **Map projection** – method to transfer the curved surface of the Earth onto a plane; always distorts something
- **Mercator projection** – conformal (keeps angles), distorts area strongly towards the poles
- **Peters projection** – equal-area, distorts shapes
""",
        "Geo/Stadtplanung.md": "# Stadtplanung\n\nViele Parks enthalten auch eine Fläche.\n",
        "Bio/Zellen.md": "# Zellen\n\nJede Zelle hat eine Membran. Die Teilung ist eine Eigenschaft lebender Zellen.\n",
        "Stats/Prognosen.md": "# Prognosen\n\nEine Prognose schätzt die künftige Entwicklung, etwa als Projektion der "
                              "Bevölkerung.\n",
    })
    answers(engine, "Welche Eigenschaft hat die Mercator-Projektion und wo verzerrt sie die Fläche?", "conformal")
