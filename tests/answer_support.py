"""Shared helpers for the answer tests: a small indexed vault, a scripted chat model, stream collection.

The vault is built once per test session (keyword index only, index folder
inside the temp dir) and shared read-only; tests that change it make their
own copy with :func:`make_vault`.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from cognivault.config import Settings
from cognivault.models.chat import (
    ChatCapabilities,
    ChatChunk,
    ChatError,
    ChatMessage,
    ChatOptions,
    ChatUsage,
    ToolCall,
    ToolSpec,
)

NOTES: dict[str, str] = {
    "Biology/Photosynthesis.md": """---
tags: [biology]
---
# Photosynthesis

Photosynthesis turns light energy into chemical energy stored in glucose. Plants, algae and
cyanobacteria carry it out inside chloroplasts, using water and carbon dioxide and releasing oxygen.

## Light reactions

The light reactions take place in the thylakoid membranes. Chlorophyll absorbs red and blue light,
water is split, oxygen is released, and ATP and NADPH are produced for the next stage.

## Calvin cycle

The Calvin cycle runs in the stroma. The enzyme RuBisCO fixes carbon dioxide, and ATP and NADPH from
the light reactions reduce it to sugar. Six turns of the cycle make one glucose molecule.
""",
    "Biology/Mitochondria.md": """---
tags: [biology, cells]
---
# Mitochondria

Mitochondria are the organelles of cellular respiration. They oxidise glucose and fatty acids and
store the released energy as ATP, which is why they are called the powerhouse of the cell.

## Structure

A mitochondrion has an outer membrane and a folded inner membrane whose folds are called cristae. The
electron transport chain sits in the inner membrane, and the matrix holds the enzymes of the Krebs cycle.
""",
    "History/Roman Empire.md": """---
tags: [history]
---
# Roman Empire

The Roman Empire began in 27 BC when Augustus became the first emperor. At its height under Trajan it
stretched from Britain to Mesopotamia and was held together by roads, legions and Latin law.

## Fall of the Western Empire

The Western Roman Empire ended in 476 AD when Odoacer deposed the emperor Romulus Augustulus. Causes
included economic crisis, pressure from migrating peoples and the split of the empire into two halves.
""",
    "History/Printing press.md": """# Printing press

Johannes Gutenberg built a printing press with movable metal type in Mainz around 1450. His Bible,
printed about 1455, made books far cheaper and helped spread the Reformation and the scientific revolution.

## Spread

By 1500 printing presses worked in more than two hundred European cities, and millions of books had
been printed. Historians call these early printed books incunabula. See https://example.org/incunabula
for a catalogue.
""",
    "Cooking/Sourdough bread.md": """---
tags: [cooking]
---
# Sourdough bread

A sourdough starter is a mix of flour and water fermented by wild yeast and lactic acid bacteria. Feed
the starter daily with equal weights of flour and water and keep it at room temperature.

## Baking

Mix 500 g flour, 350 g water, 100 g active starter and 10 g salt. Let the dough rise for eight hours,
shape it, proof it overnight in the fridge and bake it at 250 degrees in a covered pot for forty minutes.
""",
    "Deutsch/Brot backen.md": """# Brot backen

Für ein einfaches Roggenbrot braucht man Sauerteig, Roggenmehl, Wasser und Salz. Der Teig ruht
mehrere Stunden, bis er sichtbar aufgegangen ist, und wird dann bei hoher Hitze gebacken.

## Backzeit

Ein Roggenbrot von einem Kilogramm backt etwa eine Stunde. Zuerst bei 250 Grad, dann wird die
Temperatur auf 200 Grad gesenkt, damit die Kruste nicht verbrennt.
""",
}


def write_vault(root: Path, notes: dict[str, str] | None = None) -> Path:
    for relative, text in (notes or NOTES).items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")
    return root


def vault_settings(index_dir: Path) -> Settings:
    settings = Settings()
    settings.index.index_dir = str(index_dir)
    settings.embedding.provider = "embedded"
    settings.embedding.multilingual = False  # as conftest's environment has it: tests/test_multilingual_side.py
    return settings


def make_vault(root: Path, notes: dict[str, str] | None = None) -> tuple[Path, Settings]:
    """A fresh, indexed (keyword-only) vault under ``root``: (vault, settings)."""
    from cognivault.engine import Engine

    vault = write_vault(root / "vault", notes)
    settings = vault_settings(root / "index")
    with Engine(vault, settings, embedder=None) as engine:
        engine.index()
    return vault, settings


class WordHashEmbedder:
    """A small real embedding model: hashed bag of words, L2-normalized, trained on English only.

    Deterministic and instant, so tests can index with vectors without the embedded extra.
    """

    model_id = "test:word-hash-64"
    dimension = 64
    languages = frozenset({"en"})

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        vectors = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.casefold().split():
                word = word.strip(".,;:!?()[]\"'")
                if len(word) > 3:
                    vectors[row, int(hashlib.sha1(word.encode()).hexdigest(), 16) % self.dimension] += 1.0
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.where(norms == 0, 1.0, norms)

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_documents([text])[0]


# -- a scripted chat model ------------------------------------------------------------------------

Script = Callable[["Call"], Sequence[ChatChunk | BaseException | float]]


@dataclass
class Call:
    messages: list[ChatMessage]
    think: bool
    tools: list[ToolSpec] | None
    schema: dict[str, Any] | None
    index: int

    @property
    def system(self) -> str:
        return next((m.content for m in self.messages if m.role == "system"), "")

    @property
    def user(self) -> str:
        return next((m.content for m in reversed(self.messages) if m.role == "user"), "")


def text(*pieces: str) -> list[ChatChunk]:
    return [ChatChunk("text", piece) for piece in pieces] + [ChatChunk("done", usage=ChatUsage(5, len(pieces)))]


@dataclass
class ScriptedChat:
    """An in-process ChatProvider whose replies a test scripts; records every call and every close.

    ``script(call)`` returns chunks; a float in the list sleeps that long, an exception is raised there.
    """

    script: Script
    caps: ChatCapabilities = field(default_factory=lambda: ChatCapabilities(thinking=True, tools=True,
                                                                           schema=True))
    name: str = "fake"
    model: str = "fake-1"
    calls: list[Call] = field(default_factory=list)
    opened: int = 0
    closed: int = 0

    async def capabilities(self) -> ChatCapabilities:
        return self.caps

    async def probe(self) -> None:
        return None

    async def aclose(self) -> None:
        return None

    async def stream(self, messages: Sequence[ChatMessage], *, think: bool = False,
                     schema: dict[str, Any] | None = None, tools: Sequence[ToolSpec] | None = None,
                     options: ChatOptions | None = None) -> AsyncIterator[ChatChunk]:
        call = Call(list(messages), think, list(tools) if tools else None, schema, len(self.calls))
        self.calls.append(call)
        self.opened += 1
        try:
            for item in self.script(call):
                if isinstance(item, float | int):
                    await asyncio.sleep(float(item))
                elif isinstance(item, BaseException):
                    raise item
                else:
                    yield item
        finally:
            self.closed += 1


def answer_citing(*labels: str) -> Script:
    """A model that answers in phase 2 citing ``labels`` and plans briefly in phase 1."""

    def script(call: Call) -> list[Any]:
        if call.think:
            return [ChatChunk("thinking", "S1 looks relevant. "), ChatChunk("text", "Plan: use S1."),
                    ChatChunk("done", usage=ChatUsage())]
        pieces = []
        for label in labels:
            pieces += [f"A fact from the notes [{label}]", ". "]
        return text(*pieces or ["No citation here."])

    return script


def tool_call(name: str, **arguments: Any) -> ChatChunk:
    return ChatChunk("tool_call", tool_call=ToolCall(name, arguments))


def unreachable() -> ChatError:
    return ChatError("model_unreachable", "Ollama is not reachable: start it with `ollama serve`")


async def collect(stream: AsyncIterator[dict[str, Any]]) -> list[dict[str, Any]]:
    return [envelope async for envelope in stream]


def kinds(envelopes: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in envelopes]


def final(envelopes: list[dict[str, Any]]) -> dict[str, Any]:
    assert envelopes and envelopes[-1]["type"] in ("done", "error"), kinds(envelopes)
    assert sum(e["type"] in ("done", "error") for e in envelopes) == 1, kinds(envelopes)
    return envelopes[-1]


def streamed_text(envelopes: list[dict[str, Any]]) -> str:
    return "".join(e["data"]["text"] for e in envelopes if e["type"] == "text")


async def ask_offline(engine: Any, question: str) -> dict[str, Any]:
    """The ``done`` data of one question answered by the extractive answerer (no model, no cache, no session)."""
    from cognivault.answer.pipeline import stream_answer
    from cognivault.answer.request import AskRequest
    from cognivault.answer.sessions import SessionStore
    from cognivault.models.extractive_chat import ExtractiveChat

    envelopes = await collect(stream_answer(engine, AskRequest(question, use_cache=False), ExtractiveChat(),
                                            SessionStore(None), cache=None))
    data: dict[str, Any] = final(envelopes)["data"]
    return data


# -- fixtures (import them into a test module to use them) ----------------------------------------


@pytest.fixture(scope="session")
def indexed_vault(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Settings]:
    return make_vault(tmp_path_factory.mktemp("answer-vault"))


@pytest.fixture(scope="session")
def shared_engine(indexed_vault: tuple[Path, Settings]) -> Any:
    """One engine over the shared vault (read-only use: searches are thread-safe)."""
    from cognivault.engine import Engine

    vault, settings = indexed_vault
    engine = Engine(vault, settings, embedder=None, writable=False)
    yield engine
    engine.close()
