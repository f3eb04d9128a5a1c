"""Answers that lead with the passage on what is asked and stitch in no passage sharing only a word with it (issue 25:
on a held-out student vault "Was gilt am Halbäquivalenzpunkt?" first quoted two contract-law glossary entries saying
"gilt", "Was genau sagt der p-Wert aus?" a Python decorator's ``value = func(...)``, and a question on stars a
statistics line joined to it by "although").

- a unit sharing only the question's frame (its verb, a conjunction joining its clauses) says nothing of what it asks
  about: where another unit states that, it is not quoted;
- a word a letter names ("p-Wert", "T-Zellen", "B cells") is stated only with its letter: "value" is not the p-value;
- a code block whose words of the question a line of prose of its note states too follows that line, and is left out
  where it adds nothing to it, unless the question asks how to do a thing.
"""

from __future__ import annotations

from collections.abc import Callable

from cognivault.answer.extractive import answer_extractively
from cognivault.engine import Engine

NOTES = {
    "Jura/Fristen im Verwaltungsrecht.md": (
        "# Fristen im Verwaltungsrecht\n\n"
        "**Bekanntgabe per Post** – ein Bescheid gilt am dritten Tag nach der Aufgabe zur Post als bekannt gegeben\n\n"
        "**Wiedereinsetzung** – wer ohne Verschulden eine Frist versäumt, gilt auf Antrag als rechtzeitig\n"),
    "Chemie/Redoxreihe.md": (
        "# Elektrochemische Spannungsreihe\n\n"
        "- Standardpotential: gemessen gegen die Normalwasserstoffelektrode bei 25 °C, 1 mol/l\n"
        "- Normalwasserstoffelektrode: E° = 0 V per Definition, Bezugspunkt der ganzen Reihe\n"
        "- edle Metalle: positives E°, unedle: negatives E°\n"),
    "Bio/Kolibris.md": (
        "# Hummingbirds\n\n"
        "- highest metabolic rate of any bird → must feed every 10–15 minutes during the day\n"
        "- at night torpor: body temperature drops, metabolism slows to save energy\n"),
    "Statistik/Fehlerarten.md": (
        "# Error types\n\n"
        "- false negative: keeping H0 although H1 is true\n"
        "- false positive: rejecting H0 although it is true\n"),
    "Bio/Lymphozyten.md": (
        "# Lymphozyten\n\n"
        "- T-Zellen reifen im Thymus, B-Zellen im Knochenmark\n"
        "- Plasmazellen bilden Antikörper\n"),
    "Info/Tabellenkalkulation.md": (
        "# Tabellenkalkulation\n\n"
        "- Zellen verbinden: Start → Verbinden und zentrieren, reifen Tabellen gibt man so einen Titel\n"
        "- Strg+1 öffnet das Format der markierten Zellen\n"),
    "Linux/Permissions.md": (
        "# Permissions\n\n"
        "```bash\n"
        "chmod 640 notes.txt\n"
        "ls -l notes.txt\n"
        "```\n\n"
        "- chmod 640 → owner rw-, group r--, others ---\n"
        "- `ls -l` shows the mode as -rw-r-----\n"),
}


def test_a_unit_saying_only_the_questions_verb_is_not_quoted(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    answer = answer_extractively(indexed_notes(NOTES), "Was gilt an der Normalwasserstoffelektrode?")
    assert answer.answered and "E° = 0 V per Definition" in answer.text
    assert "Bescheid" not in answer.text and "Verschulden" not in answer.text


def test_a_unit_sharing_only_a_conjunction_is_not_stitched_in(
        indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    answer = answer_extractively(indexed_notes(NOTES), "Why do hummingbirds feed so often although they are small?")
    assert answer.answered and "highest metabolic rate" in answer.text
    assert "H0" not in answer.text


def test_a_word_a_letter_names_is_stated_with_its_letter(indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    answer = answer_extractively(indexed_notes(NOTES), "Wo reifen T-Zellen?")
    assert answer.answered and "T-Zellen reifen im Thymus" in answer.text
    assert "Strg" not in answer.text and "Verbinden" not in answer.text


def test_prose_explaining_a_command_leads_its_code(indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    answer = answer_extractively(indexed_notes(NOTES), "What does chmod 640 mean?")
    assert answer.answered and "owner rw-, group r--, others ---" in answer.text
    assert "```" not in answer.text
