"""The ``extractive`` chat provider: no language model, always available, deterministic.

Inside the answer pipeline it is recognised by ``extractive = True`` and
answers straight from the evidence pack (``answer.extractive``: the best
passages quoted whole, each with its label; "the vault doesn't say" when the
pack does not support an answer). Called directly through the :class:`ChatProvider`
interface, it reads the passages (``[S1] where`` blocks) from the messages
and the question from the last user message (its language chosen among the
passages' languages and English), and does the same with plain term matching.
"""

from __future__ import annotations

import re
from collections.abc import AsyncGenerator, Sequence
from typing import Any

from cognivault.models.chat import ChatCapabilities, ChatChunk, ChatMessage, ChatOptions, ChatUsage, ToolSpec

_BLOCK = re.compile(r"^\[(S\d{1,3})\][^\n]*\n(.*?)(?=^\[S\d{1,3}\]|</passages>|\Z)", re.MULTILINE | re.DOTALL)


def from_settings(settings: Any, model: str | None, embedder: Any) -> ExtractiveChat:
    """``chat_provider = "extractive"``: needs no model (``model`` is ignored)."""
    return ExtractiveChat(embedder=embedder)


class ExtractiveChat:
    extractive = True

    def __init__(self, embedder: Any = None) -> None:
        self.embedder = embedder

    @property
    def name(self) -> str:
        return "extractive"

    @property
    def model(self) -> str:
        return "extractive"

    async def capabilities(self) -> ChatCapabilities:
        return ChatCapabilities()

    async def probe(self) -> None:
        return None

    async def aclose(self) -> None:
        return None

    async def stream(self, messages: Sequence[ChatMessage], *, think: bool = False,
                     schema: dict[str, Any] | None = None, tools: Sequence[ToolSpec] | None = None,
                     options: ChatOptions | None = None) -> AsyncGenerator[ChatChunk, None]:
        from cognivault.answer.evidence import FALLBACK_ANALYZER, Evidence, text_terms
        from cognivault.answer.extractive import NOT_IN_VAULT, choose_units, compose, quotes_of
        from cognivault.index.analysis import detect_language

        question = next((m.content for m in reversed(messages) if m.role == "user"), "")
        context = "\n".join(m.content for m in messages if m.role in ("system", "user", "tool"))
        passages = _BLOCK.findall(context)
        # The question's language is one of the passages' languages (English as well), not any of 97.
        known = frozenset(filter(None, (detect_language(body) for _, body in passages))) | {"en"}
        lang = detect_language(question, known)
        items = []
        for label, body in passages:
            items.append(Evidence(label=label, chunk_id=label, path="", title="", heading_path=[], line_start=0,
                                  line_end=0, locator="", text=body.strip(), snippet="", score=0.0, lang=lang,
                                  terms=text_terms(FALLBACK_ANALYZER, body, lang)))
        terms = sorted(text_terms(FALLBACK_ANALYZER, question, lang))
        quotes = quotes_of(choose_units(items, terms, {}, FALLBACK_ANALYZER, question))
        text = compose(quotes) if quotes else NOT_IN_VAULT
        for piece in re.split(r"(?<=\])(?=\s)", text):
            yield ChatChunk("text", piece)
        yield ChatChunk("done", usage=ChatUsage(done_reason="stop"))
