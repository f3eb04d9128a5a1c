"""Which reading answers a question without a model (answer/words_first.py): where meaning search is on, the keyword
pack first, read as with no embedding model at all; the hybrid pack only where keywords leave the question
unanswered."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from answer_support import WordHashEmbedder, collect, final, vault_settings, write_vault
from cognivault.answer.extractive import answer_extractively
from cognivault.answer.pipeline import stream_answer
from cognivault.answer.request import AskRequest
from cognivault.answer.sessions import SessionStore
from cognivault.engine import Engine
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
        refused = answer_extractively(hybrid, "How long should dough autolyse?")  # no keyword passage answers it
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
        envelopes = await collect(stream_answer(engine, AskRequest("How long should dough autolyse?"),
                                                ExtractiveChat(counting), SessionStore(None), None))
        assert not final(envelopes)["data"]["answered"] and counting.queries == 1
