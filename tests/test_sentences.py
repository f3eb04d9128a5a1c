"""Where a sentence ends (issue 17): a date's ordinal, an abbreviation or an initial ends none, so a card, a
quiz stem or a quoted answer never stops at "am 9." or "z."; a real sentence end still splits."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from cognivault.answer.extractive import split_sentences
from cognivault.study.extract import sentences
from cognivault.vault.sentences import shield
from test_study_extractive import cards_of, generate, indexed_vault

WHOLE = [
    "Nach der Novemberrevolution rief Philipp Scheidemann am 9. November 1918 die Republik aus.",
    "Im 19. Jahrhundert wuchsen die Städte, z. B. Berlin, d. h. die Hauptstadt.",
    "The 4. July parade was led by Dr. Smith, e.g. on Main Street.",
    "Dann spielte J. S. Bach die Orgel, und John F. Kennedy hörte zu.",
    "Ein Vertrag braucht Angebot und Annahme (§§ 145 ff. BGB), die Frist steht in § 147 Abs. 2 BGB.",
]


@pytest.mark.parametrize("split", [sentences, split_sentences])
def test_a_period_that_ends_no_sentence_does_not_split_it(split: Callable[[str], list[str]]) -> None:
    text = " ".join(WHOLE + ["It ended in 1933.", "Vitamin C.", "The end came."])
    assert split(text)[:len(WHOLE)] == WHOLE
    assert "It ended in 1933." in split(text) and shield(text).count(".") < text.count(".")


def test_a_card_quotes_a_german_date_whole(tmp_path: Path) -> None:
    note = """# Weimarer Republik

Die Weimarer Republik war der erste demokratische Staat in Deutschland.

## Gründung

- **Ausrufung**: Nach der Novemberrevolution rief Philipp Scheidemann am 9. November 1918 die Republik aus.

## Krisen

- **Hyperinflation 1923**: Das Geld verlor fast seinen gesamten Wert.
- **Artikel 48**: Der Reichspräsident konnte per Notverordnung regieren.

## Ende

Mit der Ernennung Adolf Hitlers zum Reichskanzler am 30. Januar 1933 endete die Republik.
"""
    with indexed_vault(tmp_path, {"Weimarer Republik.md": note}) as engine:
        cards = cards_of(generate(engine, "flashcards", "Weimarer Republik.md")[1])
    backs = {back for _, _, back in cards}
    assert "Nach der Novemberrevolution rief Philipp Scheidemann am 9. November 1918 die Republik aus." in backs
    assert not [side for card in cards for side in card if side.rstrip().endswith((" am 9.", " am 30."))]


# an era's two parts, a page before its number, "e. g." spaced (issue 25)
ERAS = [
    "Aristoteles (384–322 v. Chr.): Schüler Platons, gründete das Lykeion.",
    "Zenon gründete die Stoa um 300 v. Chr. in Athen, Seneca starb 65 n. Chr. in Rom.",
    "Das Reich bestand von 200 v. u. Z. bis 100 n.u.Z. ohne Unterbrechung.",
    "Seneca schreibt das in Brief 1, S. 12 der Ausgabe, e. g. über die Zeit.",
]


@pytest.mark.parametrize("split", [sentences, split_sentences])
def test_a_sentence_is_not_cut_at_an_era_a_page_or_a_spaced_abbreviation(split: Callable[[str], list[str]]) -> None:
    assert split(" ".join([*ERAS, "Die Stoa endete im 3. Jahrhundert."])) == \
        [*ERAS, "Die Stoa endete im 3. Jahrhundert."]


# any language's abbreviations, a lower-case letter with the short words after it, a short word before its number
# (issue 25): a card never ends at "Alexander d." nor "ca. 5 Mio."
ABBREVIATED = [
    "Alexander d. Gr. eroberte das Perserreich bzw. große Teile Vorderasiens.",
    "Kinder sind i. d. R. Träger des Virus und führen u. U. Probleme herbei.",
    "In Deutschland leben ca. 8,5 Mio. Menschen mit Diabetes, vgl. Kap. 3.",
    "Paul v. Hindenburg wurde 1925 Reichspräsident, Art. 48 gab ihm Macht.",
    "St. Petersburg vs. Moskau: beide Städte haben ca. 5 Mio. Einwohner.",
    "J. S. Bach und G. F. Händel lebten im 17. Jh. und danach.",
    "The U. S. military used game theory, e.g. for deterrence, approx. 40 years long.",
]
ENDS = ["Der Hellenismus endet 30 v. Chr.", "Danach kam das Römische Reich.", "The value of it is x.",
        "Then y follows from it.",
        "Die Seleukiden herrschten über Syrien usw.", "Die Antigoniden regierten Makedonien."]


@pytest.mark.parametrize("split", [sentences, split_sentences])
def test_a_sentence_goes_past_any_abbreviation_but_ends_before_an_opening_word(
        split: Callable[[str], list[str]]) -> None:
    assert split(" ".join([*ABBREVIATED, *ENDS])) == [*ABBREVIATED, *ENDS]


@pytest.mark.parametrize("split", [sentences, split_sentences])
def test_a_german_adjective_cut_short_before_its_noun_ends_no_sentence(split: Callable[[str], list[str]]) -> None:
    clipped = ["Die Frist läuft ab Zugang der schriftl. Kündigung beim Arbeitnehmer.",
               "Große Teile der europ. Bevölkerung starben an der Pest."]
    # a clause closing with a pronoun's verb or an adverb after "die"/"das" still ends its sentence
    closing = ["Es gibt eine Regel, die gilt.", "Ich mache das auch.", "Er war der erste.", "Füge bitte eine hinzu.",
               "Beschreibungen braucht jede Seite."]
    pieces = split(" ".join(clipped + closing))
    assert pieces == clipped + closing
