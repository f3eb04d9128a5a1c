"""What an agent may do with the vault, whatever protocol it speaks: search it, ask it (a cited answer
with its confidence), find related notes, read a note or one heading of it, list the flashcards due,
and generate study notes (flashcards, a quiz, a mind map), the one action that writes.

``cognivault mcp`` (:mod:`cognivault.mcp_server`) offers these as Model Context Protocol tools.
Every path an agent names goes through the one path guard (:mod:`cognivault.vault.guard`), as the
companion's requests do: a note path or name, a scope's folders and files. A note is read only when
the index holds it as a Markdown note, so nothing outside the vault, nothing the index skips
(``.obsidian/``, ``.cognivault/``, ignored files) and no attachment is ever read through here.
Blocking work runs off the event loop, counted in by the live vault's request gate so background
indexing waits for it. Every method returns plain JSON data or raises :class:`CogniVaultError`
with a message for the agent's user.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from cognivault.engine import Engine, EngineError
from cognivault.errors import CogniVaultError
from cognivault.graph import NoteInfo, find_heading, heading_section
from cognivault.search_request import SearchRequest, parse_scope
from cognivault.vault.guard import inside_vault
from cognivault.vault.markdown import parse_note
from cognivault.vault.scan import file_kind

if TYPE_CHECKING:
    from cognivault.live import LiveVault
    from cognivault.models.chat import ChatProvider
    from cognivault.study.review import ReviewDeck

log = logging.getLogger(__name__)

T = TypeVar("T")

MAX_NOTE_CHARS = 200_000  # what one read returns; a longer note is cut (``truncated``) and read by heading
GENERATED_KINDS = ("flashcards", "quiz", "mindmap")
READ_ONLY_HINT = "start the server with `cognivault mcp --allow-writes` to let agents generate study notes"


class WritesOff(CogniVaultError):
    """A tool that writes into the vault, called while the server only reads."""

    code = "read_only"
    status = 403


@dataclass(frozen=True, slots=True)
class NoteText:
    """A note, or one heading's section of it, as read from disk (lines are 1-based, inclusive)."""

    path: str
    title: str
    heading: str | None
    line_start: int
    line_end: int
    text: str
    truncated: bool
    headings: list[str]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def note_section(path: str, text: str, heading: str | None = None) -> NoteText:
    """The whole note ``text`` or the section under ``heading`` (as a link names it: ``Heading`` or
    ``Parent#Heading``, any case); EngineError naming the note's headings when it has no such one."""
    info = NoteInfo.from_parsed(path, parse_note(text, path))
    lines = text.splitlines(keepends=True)
    outline = [" > ".join(h.path) or h.text for h in info.headings]
    first, last, found = 1, len(lines), None
    if heading is not None and heading.strip():
        found = find_heading(info.headings, heading)
        if found is None:
            shown = "; ".join(outline[:30]) or "none"
            raise EngineError(f"no heading {heading.strip()!r} in {path}; its headings: {shown}")
        first, last = heading_section(info.headings, found, len(lines))
    body = "".join(lines[first - 1:last])
    return NoteText(path, info.title, found.text if found else None, first, last, body[:MAX_NOTE_CHARS],
                    len(body) > MAX_NOTE_CHARS, outline)


def answer_of(done: dict[str, Any], confidence: dict[str, Any]) -> dict[str, Any]:
    """What an agent gets of an answer stream's ``done`` envelope (and its ``confidence`` one): the
    answer, its citations where the passages stand, and how sure it is and why."""
    citations = [{key: source.get(key) for key in ("label", "path", "title", "heading", "heading_path",
                                                  "line_start", "line_end", "locator", "snippet")}
                 for source in done.get("sources", [])]
    return {"answer": done["answer"], "answered": done.get("answered", False), "citations": citations,
            "confidence": {"label": confidence.get("label", done.get("confidence")),
                           "reason": confidence.get("reason") or done.get("confidence_reason", "")},
            "notes": list(done.get("notes", [])), "provider": done.get("provider")}


class VaultTools:
    """The agent's actions on one vault, over the engine its live vault keeps current.

    ``opening`` is the engine being opened in the background (the server answers meanwhile);
    ``allow_writes`` lets :meth:`generate` write study notes into the vault.
    """

    def __init__(self, live: LiveVault, opening: asyncio.Future[Engine], *, allow_writes: bool = False) -> None:
        self.live = live
        self.opening = opening
        self.allow_writes = allow_writes
        self._provider: ChatProvider | None = None
        self._provider_lock = asyncio.Lock()
        self._deck: ReviewDeck | None = None

    async def engine(self) -> Engine:
        return await asyncio.shield(self.opening)

    async def _blocking(self, function: Callable[..., T], *args: Any) -> T:
        with self.live.request():
            return await asyncio.to_thread(function, *args)

    async def chat_provider(self) -> ChatProvider:
        """The configured chat model (``auto``: Ollama on loopback when it answers, else the offline
        extractive answerer), resolved once."""
        async with self._provider_lock:
            if self._provider is None:
                from cognivault.models.chat import resolve_chat_provider

                engine = await self.engine()
                self._provider, note = await resolve_chat_provider(engine.settings, embedder=engine.embedder)
                if note:
                    log.info("%s", note)
            return self._provider

    async def aclose(self) -> None:
        if self._provider is not None:
            await self._provider.aclose()

    # -- reading ------------------------------------------------------------------------
    async def search(self, query: str, *, mode: str = "hybrid", scope: list[str] | None = None, k: int = 10,
                     per_note: bool = False) -> dict[str, Any]:
        engine = await self.engine()
        request = SearchRequest.build(engine.vault, query, k=k, mode=mode, scope=scope, per_note=per_note)
        response = await self._blocking(request.run, engine)
        return response.to_dict()

    async def ask(self, question: str, *, scope: list[str] | None = None, max_sources: int = 6) -> dict[str, Any]:
        """An answer from the vault, as ``cognivault ask --json`` gives it (no session, nothing recorded)."""
        from cognivault.answer.pipeline import stream_answer
        from cognivault.answer.request import AskRequest
        from cognivault.answer.sessions import SessionStore

        engine = await self.engine()
        request = AskRequest(question, scope=parse_scope(engine.vault, scope), max_sources=max_sources)
        provider = await self.chat_provider()
        confidence: dict[str, Any] = {}
        async for envelope in stream_answer(engine, request, provider, SessionStore(None)):
            kind, data = envelope["type"], envelope["data"]
            if kind == "confidence":
                confidence = data
            elif kind == "error":
                raise CogniVaultError(data["message"], data.get("code"))
            elif kind == "done":
                return answer_of(data, confidence)
        raise CogniVaultError("the answer stream ended without a result", "internal")

    async def related(self, note: str, *, k: int = 10, include_linked: bool = False) -> dict[str, Any]:
        engine = await self.engine()
        path = inside_vault(engine.vault, note, "note")
        related = await self._blocking(lambda: engine.related(path, k=k, include_linked=include_linked))
        return {"note": path, "related": [r.to_dict() for r in related]}

    async def read_note(self, path: str, heading: str | None = None) -> NoteText:
        """An indexed Markdown note given by vault path or name, whole or one heading's section."""
        engine = await self.engine()
        relative = inside_vault(engine.vault, path, "path")

        def read() -> NoteText:
            found = engine.note_path(relative)
            if file_kind(found) != "markdown":
                raise EngineError(f"{found} is not a Markdown note: search finds the passages read from it")
            inside_vault(engine.vault, found, "path")  # the index's path, again through symlinks as they are now
            return note_section(found, (engine.vault / found).read_text("utf-8", errors="replace"), heading)

        return await self._blocking(read)

    async def note_paths(self) -> list[tuple[str, str]]:
        """(vault path, title) of every indexed Markdown note, by path."""
        engine = await self.engine()

        def collect() -> list[tuple[str, str]]:
            return [(f.path, f.title or f.path) for f in engine.store.reader().files()
                    if f.state == "indexed" and f.kind == "markdown"]

        return await self._blocking(collect)

    async def due_cards(self, *, deck: str | None = None, note: str | None = None, limit: int = 20,
                        include_new: bool = True) -> dict[str, Any]:
        """The flashcards due for review now (most overdue first, then new ones), and the decks' counts."""
        from cognivault.study.review import ReviewDeck

        engine = await self.engine()
        wanted = inside_vault(engine.vault, note, "note") if note else None
        if self._deck is None:
            self._deck = ReviewDeck(engine.vault, extra_ignored=(engine.index_dir,))
        cards = self._deck

        def collect() -> dict[str, Any]:
            paths = [cards.note_path(wanted)] if wanted else None
            due = cards.due(deck=deck or None, limit=limit, paths=paths, include_new=include_new)
            return {"due": [card.to_dict() for card in due], "stats": cards.stats()}

        return await self._blocking(collect)

    # -- writing ------------------------------------------------------------------------
    async def generate(self, kind: str, *, note: str | None = None, topic: str | None = None,
                       scope: list[str] | None = None, count: int | None = None) -> dict[str, Any]:
        """Flashcards, a quiz or a mind map from a note, a scope or a topic, written as a note into the
        study folder (``study.folder``): the written note's path and what it holds."""
        from cognivault.index.scope import Scope
        from cognivault.study.generate import run_generation
        from cognivault.study.progress import ProgressStore
        from cognivault.study.sources import GenerationError, StudyRequest, gather_sources

        if not self.allow_writes:
            raise WritesOff(f"generate writes notes into the vault, and this server only reads: {READ_ONLY_HINT}")
        if kind not in GENERATED_KINDS:
            raise GenerationError(f"unknown kind {kind!r}: one of {', '.join(GENERATED_KINDS)}", "bad_request")
        engine = await self.engine()
        request = StudyRequest(note=inside_vault(engine.vault, note, "note") if note else None,
                               scope=parse_scope(engine.vault, scope) or Scope(),
                               topic=(topic or "").strip() or None, count=count)
        if not (request.note or request.topic or not request.scope.is_empty()):
            raise GenerationError("say what to study from: a note, a scope or a topic", "bad_request")
        provider = await self.chat_provider()
        generator = None if getattr(provider, "name", "") == "extractive" else provider
        sources = await self._blocking(gather_sources, engine, request)
        result = await run_generation(kind, engine, request, generator, store=ProgressStore(engine.vault),
                                      sources=sources)
        return result.to_dict()
