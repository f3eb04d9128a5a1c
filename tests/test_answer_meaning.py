"""Which reading answers a question without a model (answer/meaning.py): where meaning search is on, the keyword pack
first, read as with no embedding model at all; the hybrid pack only where keywords leave the question unanswered;
where both do, a question in other words or another language than its note's is answered from the passage nearest
its meaning (the multilingual side: the real USE-multilingual v3 encoder, which scripts/setup.sh installs), while one
asking for a name or a kind of answer the vault never gives stays refused."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from answer_support import WordHashEmbedder, collect, final, vault_settings, write_vault
from cognivault.answer.evidence import Concept, EvidencePack
from cognivault.answer.extractive import answer_extractively
from cognivault.answer.meaning import MEANING_SHARE, names_unheard, read_by_meaning
from cognivault.answer.pipeline import stream_answer
from cognivault.answer.request import AskRequest
from cognivault.answer.sessions import SessionStore
from cognivault.engine import Engine
from cognivault.index.multilingual import MultilingualEncoder, installed
from cognivault.index.scope import Scope
from cognivault.models.extractive_chat import ExtractiveChat


class CountingEmbedder(WordHashEmbedder):
    """Counts what it is asked to embed once ``counting`` is on (after indexing)."""

    def __init__(self) -> None:
        self.counting = False
        self.queries = 0
        self.documents = 0

    def embed_query(self, text: str) -> np.ndarray:
        self.queries += self.counting
        return super().embed_query(text)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        self.documents += self.counting
        return super().embed_documents(texts)


def test_keywords_answer_first_as_without_meaning_search_and_meaning_is_read_where_they_do_not(tmp_path: Path) -> None:
    vault = write_vault(tmp_path / "vault")
    counting = CountingEmbedder()
    with Engine(vault, vault_settings(tmp_path / "words"), embedder=None) as words, \
            Engine(vault, vault_settings(tmp_path / "hybrid"), embedder=counting) as hybrid:
        words.index()
        hybrid.index()
        counting.counting = True
        question = "When did the Western Roman Empire end?"
        alone, first = answer_extractively(words, question), answer_extractively(hybrid, question)
        assert first.answered and "476" in first.text and first.confidence == "high"
        assert (first.text, first.cited) == (alone.text, alone.cited)
        assert (counting.queries, counting.documents) == (0, 0)  # neither the pack nor its quotes read by meaning
        refused = answer_extractively(hybrid, "How long should dough rest?")  # no keyword passage answers it
        assert not refused.answered and counting.queries == 1  # so the hybrid pack was read, and has no answer either


async def test_the_stream_answers_from_the_keyword_pack_first(tmp_path: Path) -> None:
    vault = write_vault(tmp_path / "vault")
    counting = CountingEmbedder()
    with Engine(vault, vault_settings(tmp_path / "index"), embedder=counting) as engine:
        engine.index()
        counting.counting = True
        envelopes = await collect(stream_answer(engine, AskRequest("When did the Western Roman Empire end?"),
                                                ExtractiveChat(counting), SessionStore(None), None))
        data = final(envelopes)["data"]
        assert data["answered"] and "476" in data["answer"] and data["confidence"] == "high"
        assert all(e["data"]["similarity"] is None for e in envelopes if e["type"] == "confidence")
        assert (counting.queries, counting.documents) == (0, 0)
        envelopes = await collect(stream_answer(engine, AskRequest("How long should dough rest?"),
                                                ExtractiveChat(counting), SessionStore(None), None))
        assert not final(envelopes)["data"]["answered"] and counting.queries == 1


NOTES = {
    "Ecology/Invasive Species.md": (
        "# Invasive Species\n\nAn **invasive species** is a non-native organism that spreads quickly and harms the "
        "new ecosystem.\n\n## Why they succeed\n- No natural **predators** or parasites in the new range (enemy "
        "release)\n- High reproduction rate\n- Generalist diet\n\n## Control\nBiological control introduces a "
        "natural enemy from the home range, but it can itself become invasive.\n"),
    "Ökologie/Sukzession.md": (
        "# Sukzession\n\nSukzession = zeitliche Abfolge von Lebensgemeinschaften an einem Standort.\n\n"
        "## Primäre Sukzession\nBeginnt auf unbesiedeltem Boden (z. B. Lavafeld, Gletschervorfeld). **Pionierarten** "
        "wie Flechten und Moose bilden erst Boden.\n\n## Sekundäre Sukzession\nNach einer Störung (Waldbrand, "
        "aufgegebener Acker) ist Boden schon vorhanden, daher geht sie schneller.\n"),
    "Geschichte/Punische Kriege.md": (
        "# Punische Kriege\n\nDrei Kriege zwischen **Rom** und **Karthago** um die Vorherrschaft im westlichen "
        "Mittelmeer.\n\n## Erster Punischer Krieg\nStreit um **Sizilien**. Rom baute erstmals eine große Flotte "
        "und nutzte die Enterbrücke (*corvus*), um Seeschlachten wie Landkämpfe zu führen.\n"),
}


needs_side = pytest.mark.skipif(not installed(), reason="the multilingual extra is not installed")


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Any:
    root = tmp_path_factory.mktemp("meaning")
    vault = write_vault(root / "vault", NOTES)
    with Engine(vault, vault_settings(root / "index"), embedder=WordHashEmbedder(),
                multilingual=MultilingualEncoder()) as opened:
        opened.index()
        yield opened


async def _ask(engine: Engine, question: str) -> dict[str, Any]:
    envelopes = await collect(stream_answer(engine, AskRequest(question), ExtractiveChat(), SessionStore(None), None))
    return final(envelopes)["data"]


@needs_side
async def test_a_question_in_another_language_is_answered_from_the_passage_nearest_its_meaning(engine: Engine) -> None:
    # Keywords alone: "Zu “Arten” steht nichts im Vault" (the note says "species" in English)
    data = await _ask(engine, "Warum breiten sich eingeschleppte Arten so stark aus?")
    assert data["answered"] and "predators" in data["answer"]
    assert data["sources"][0]["path"] == "Ecology/Invasive Species.md"
    assert data["confidence"] != "high"  # meaning alone never sounds sure


@needs_side
def test_meaning_passages_keep_to_the_scope(engine: Engine) -> None:
    question = "Warum breiten sich eingeschleppte Arten so stark aus?"
    assert engine.chunk(engine.meaning_passages(question, 1)[0]).path == "Ecology/Invasive Species.md"
    scoped = engine.meaning_passages(question, 5, Scope(folders=["Geschichte"]))
    assert scoped and all(engine.chunk(chunk_id).path.startswith("Geschichte/") for chunk_id in scoped)


@needs_side
def test_the_one_call_answer_reads_by_meaning_too(engine: Engine) -> None:
    answer = answer_extractively(engine, "Warum breiten sich eingeschleppte Arten so stark aus?")
    assert answer.answered and "predators" in answer.text and answer.confidence == "low"
    assert answer.citations[0].path == "Ecology/Invasive Species.md"


@needs_side
async def test_a_question_in_other_words_is_answered_from_the_passage_nearest_its_meaning(engine: Engine) -> None:
    # Keywords alone: "Zu “Meer”, “Seefahrer” steht nichts im Vault"
    data = await _ask(engine, "Wie gewannen die Römer Kämpfe auf dem Meer, obwohl sie keine Seefahrer waren?")
    assert data["answered"] and "Enterbrücke" in data["answer"]
    assert data["confidence"] != "high"


@needs_side
async def test_meaning_never_answers_a_name_or_a_kind_of_answer_the_vault_does_not_give(engine: Engine) -> None:
    for question in ("How does the QUIC protocol spread through a foreign ecosystem?",  # a name the vault never uses
                     "How many years does regrowth take after a forest fire?"):  # no number in the note
        data = await _ask(engine, question)
        assert not data["answered"], (question, data["answer"])


@needs_side
async def test_without_the_multilingual_side_the_words_decide_alone(tmp_path: Path) -> None:
    vault = write_vault(tmp_path / "vault", NOTES)
    with Engine(vault, vault_settings(tmp_path / "index"), embedder=WordHashEmbedder(), multilingual=None) as alone:
        alone.index()
        data = await _ask(alone, "Warum breiten sich eingeschleppte Arten so stark aus?")
    assert not data["answered"]


def test_read_by_meaning_from_half_the_question_unknown_and_names_stay_checked() -> None:
    concepts = {"quic": Concept("quic", "quic", frozenset({"quic"})),
                "spread": Concept("spread", "spread", frozenset({"spread"})),
                "1848": Concept("1848", "1848", frozenset({"1848"}))}
    pack = EvidencePack(query="How does QUIC spread in 1848?", concepts=concepts, unknown=["quic", "spread"],
                        unknown_share=MEANING_SHARE)
    assert read_by_meaning(pack) and names_unheard(pack) == ["quic"]
    pack.unknown, pack.unknown_share = ["spread", "1848"], MEANING_SHARE - 0.01
    assert not read_by_meaning(pack) and names_unheard(pack) == ["1848"]
    # two names the vault has each, never side by side: "Apple Watch"
    pack.concepts = {key: Concept(key, key, frozenset({key}), name=True) for key in ("apple", "watch")}
    pack.query, pack.unknown = "Can I install it on an Apple Watch?", ["apple watch"]
    assert names_unheard(pack) == ["apple watch"]
    pack.concepts["watch"] = Concept("watch", "watch", frozenset({"watch"}))  # "apple watch" as words, not a name
    assert names_unheard(pack) == []
