"""The answer pipeline as one async generator of NDJSON envelopes.

``stream_answer(engine, request, provider, sessions, cancel)`` yields
``{"type": ..., "data": ...}`` dicts:

- ``confidence`` ``{label, reason, coverage, best, covered, missing, ...}``: decided by rule
  from the evidence pack and sent as soon as retrieval is done (before any model output or quote
  choice: the first envelope of every answer); sent again, with the new label and reason, when what
  the answer cites changes it (a later ``confidence`` replaces the earlier one; the last one is the
  ``done``'s ``confidence``);
- ``thinking`` ``{text, kind}``: phase-1 reasoning (``kind`` "reasoning") and plan ("plan")
  tokens, only for models that think and questions that merit it;
- ``metadata``: one per accepted citation ``{label, chunk_id, path, title, heading,
  heading_path, line_start, line_end, locator, snippet, score, source}``, always before
  the first ``text`` that cites it;
- ``text`` ``{text}``: answer tokens, already citation- and link-checked; a model's text is held back
  until it cites a passage of the pack;
- ``memory`` ``{session_id, turns, turns_in_context, tokens_used, token_budget, trimmed_turns}``
  (requests with a session only);
- then exactly one ``done`` (the full answer, accepted labels and chunk ids, dropped
  citations, timings, ...) or ``error`` ``{code, message}``.

A model answer that cites nothing in the pack, or that loops (``repetition.LoopGuard`` stops the
stream as soon as it repeats itself), is not shown as the answer: the passage answer of the
extractive answerer is, with the model's text marked as unverified; the ``done`` then has
``unverified: true`` (``looped`` says whether it looped) and a note says why. The ``done``'s
``confidence`` is capped by what the answer actually cites (``confidence.cap_by_citations``): the
extractive answerer sends the capped ``confidence`` once it has chosen its quotes, before their
text; a model's answer, before the ``done``.

Each request runs in its own task with a fresh context (request-local
scope and citation ledger in ContextVars). Blocking engine work runs in
threads. Setting ``cancel`` (or closing the generator) cancels the task; the
model call is closed with it, well within a second.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import hashlib
import logging
import re
import time
import uuid
from collections.abc import AsyncGenerator, Callable, Sequence
from concurrent.futures import Executor
from datetime import date
from typing import Any, Literal, TypeVar

from cognivault.answer.cache import AnswerCache, cache_for, cache_key
from cognivault.answer.citations import CitationFilter
from cognivault.answer.confidence import Confidence, assess, cap_by_citations
from cognivault.answer.evidence import EvidencePack, analyzer_of
from cognivault.answer.extractive import (
    PassageAnswer,
    Quote,
    nearest_only,
    not_in_vault,
    passage_answer,
    renumbered,
    says_not_in_vault,
    unheard,
)
from cognivault.answer.prompts import load_prompt
from cognivault.answer.repetition import LoopGuard
from cognivault.answer.request import AskError, AskRequest
from cognivault.answer.retrieval import build_pack
from cognivault.answer.sessions import Memory, Resolution, SessionStore, Turn, resolve_follow_up
from cognivault.answer.state import CitationLedger, request_ledger, request_scope
from cognivault.answer.tools import MAX_CALLS_PER_STEP, MAX_TOOL_STEPS, TOOL_LOOP_BUDGET_S, TOOL_SPECS, VaultTools
from cognivault.answer.words_first import answered, hybrid_replaces, words_first
from cognivault.models.chat import ChatCapabilities, ChatError, ChatMessage, ChatOptions, ChatProvider, ChatUsage
from cognivault.threads import run_on

log = logging.getLogger(__name__)
T = TypeVar("T")

MAX_ANSWER_CHARS = 12_000
MAX_THINKING_CHARS = 8_000
MAX_PLAN_CHARS = 1_500
PHASE1_BUDGET_S = 45.0
CAPABILITY_TIMEOUT_S = 5.0
CANCEL_GRACE_S = 1.0
QUEUE_SIZE = 1024

_GREETING = re.compile(
    r"^\s*(?:hi|hello|hey|hallo|moin|servus|hi there|good (?:morning|afternoon|evening)|"
    r"guten (?:morgen|tag|abend)|thanks?(?: you)?|thank you|danke(?: schön| dir)?|ok(?:ay)?|cool|"
    r"bye|tschüss)[\s!.,?]*(?:cognivault)?[\s!.,?]*$", re.IGNORECASE)
UNVERIFIED = {"en": "Unverified: the model's answer ({why}), so the answer above is quoted from the notes.",
              "de": "Nicht belegt: die Antwort des Modells ({why}), darum ist die Antwort oben aus den Notizen "
                    "zitiert."}
UNVERIFIED_WHY = {"en": {"uncited": "cites none of the notes", "looped": "kept repeating itself and was stopped"},
                  "de": {"uncited": "zitiert keine der Notizen", "looped": "wiederholte sich und wurde angehalten"}}
SHOWN_UNVERIFIED = {"en": "Unverified: the model's answer above {why}. From the notes instead:",
                    "de": "Nicht belegt: die Antwort des Modells oben {why}. Stattdessen aus den Notizen:"}
MAX_UNVERIFIED_CHARS = 400
GREETING_REPLY = {"en": "Hello! Ask me anything about your notes: I answer from the vault and cite the passages.",
                  "de": "Hallo! Frag mich etwas zu deinen Notizen: Ich antworte aus dem Vault, mit Quellen."}
_END = object()


def envelope(kind: str, data: Any) -> dict[str, Any]:
    return {"type": kind, "data": data}


def error_envelope(code: str, message: str) -> dict[str, Any]:
    return envelope("error", {"code": code, "message": message})


def is_greeting(question: str) -> bool:
    return bool(_GREETING.match(question))


def wants_thinking(request: AskRequest, question: str, capabilities: ChatCapabilities, pack: EvidencePack) -> bool:
    """The phase-1 gate: a thinking model, a real question, something to plan with."""
    if request.think is False or not capabilities.thinking or not pack:
        return False
    if request.think is True:
        return True
    return not is_greeting(question) and len(question.split()) >= 3 and bool(pack.question_terms)


async def stream_answer(engine: Any, request: AskRequest, provider: ChatProvider, sessions: SessionStore,
                        cancel: asyncio.Event | None = None, *,
                        cache: AnswerCache | None | Literal["vault"] = "vault",
                        executor: Executor | None = None) -> AsyncGenerator[dict[str, Any], None]:
    """Answer ``request`` from ``engine``'s vault with ``provider``: NDJSON envelopes (see the module doc).

    ``cache``: ``"vault"`` (the vault's own persistent cache), a given cache, or None for none.
    ``executor``: the thread pool for the blocking steps (retrieval, sentence choice, sessions);
    None: the event loop's default pool.
    """
    if cache == "vault":
        cache = cache_for(engine.index_dir)
    queue: asyncio.Queue[Any] = asyncio.Queue(QUEUE_SIZE)
    run = _AnswerRun(engine, request, provider, sessions, queue, cache, executor)
    task = asyncio.get_running_loop().create_task(run.execute(), context=contextvars.copy_context())
    cancel_wait = asyncio.ensure_future(cancel.wait()) if cancel is not None else None
    try:
        while True:
            getter = asyncio.ensure_future(queue.get())
            waiting = {getter} if cancel_wait is None else {getter, cancel_wait}
            try:
                finished, _ = await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
            except BaseException:
                getter.cancel()
                raise
            cancelled = cancel_wait is not None and cancel_wait.done()
            if getter in finished and not cancelled:
                item = getter.result()
                if item is _END:
                    break
                yield item
                if item["type"] in ("done", "error"):
                    break
                continue
            if getter.done() and not getter.cancelled() and getter.result() is not _END and \
                    getter.result()["type"] in ("done", "error"):
                yield getter.result()  # the answer finished just as the cancel came: keep the real end
                break
            getter.cancel()
            await _stop(task)
            yield error_envelope("cancelled", "the request was cancelled")
            break
    finally:
        if cancel_wait is not None:
            cancel_wait.cancel()
        await _stop(task)


async def _stop(task: asyncio.Task[Any]) -> None:
    if task.done():
        return
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError, TimeoutError, Exception):
        await asyncio.wait_for(asyncio.shield(task), CANCEL_GRACE_S)


class _AnswerRun:
    """One request's work, run as its own task; envelopes go into ``queue``."""

    def __init__(self, engine: Any, request: AskRequest, provider: ChatProvider, sessions: SessionStore,
                 queue: asyncio.Queue[Any], cache: AnswerCache | None, executor: Executor | None = None) -> None:
        self.engine = engine
        self.executor = executor
        self.request = request
        self.provider = provider
        self.sessions = sessions
        self.queue = queue
        self.cache = cache
        self.request_id = uuid.uuid4().hex[:12]
        self.started = time.perf_counter()
        self.timings: dict[str, float] = {}
        self.notes: list[str] = []
        self.terminal_sent = False
        self.replayable: list[dict[str, Any]] = []
        self.usage = ChatUsage()
        self.pack = EvidencePack()
        self.ledger = CitationLedger(self.request_id, self.pack)
        self.truncated = False
        self.lang: str | None = None
        self.generation = 0
        self.shown: list[str] = []  # the answer text as sent in ``text`` envelopes
        self.held: list[tuple[str, str]] | None = None  # a model's events until it cites the pack
        self.looped = False
        self.unverified = ""  # why the model's text was not shown as the answer
        self.answer_filter: CitationFilter | None = None
        self.confidence_shown: dict[str, Any] | None = None  # the last ``confidence`` envelope's data

    # -- plumbing ------------------------------------------------------------
    async def _blocking(self, function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        return await run_on(self.executor, function, *args, **kwargs)

    def _ms(self) -> float:
        return round((time.perf_counter() - self.started) * 1000, 2)

    async def emit(self, kind: str, data: Any, replay: bool = False) -> None:
        if self.terminal_sent:
            return
        item = envelope(kind, data)
        if kind in ("done", "error"):
            self.terminal_sent = True
        elif replay:
            self.replayable.append(item)
        await self.queue.put(item)

    async def execute(self) -> None:
        try:
            await self._run()
        except asyncio.CancelledError:
            raise
        except AskError as exc:  # SessionError too
            await self.emit("error", {"code": exc.code, "message": exc.message})
        except ChatError as exc:
            await self.emit("error", {"code": exc.code, "message": exc.message})
        except Exception as exc:  # noqa: BLE001 - the stream must end with an error, never a hang
            from cognivault.engine import EngineError

            if isinstance(exc, EngineError):
                await self.emit("error", {"code": "engine_error", "message": str(exc)})
            else:
                log.exception("answer %s failed", self.request_id)
                await self.emit("error", {"code": "internal_error",
                                          "message": f"the answer failed ({type(exc).__name__}: {exc})"})
        finally:
            if not self.terminal_sent:
                with contextlib.suppress(asyncio.QueueFull):
                    self.queue.put_nowait(_END)

    # -- the pipeline ------------------------------------------------------------
    async def _run(self) -> None:
        request = self.request.validated()
        self.request = request
        request_scope.set(request.scope)
        request_ledger.set(self.ledger)
        if request.session_id is None:
            await self._answer(None)
            return
        async with self.sessions.lock(request.session_id):
            await self._answer(request.session_id)

    async def _answer(self, session_id: str | None) -> None:
        request = self.request
        history: list[ChatMessage] = []
        memory: Memory | None = None
        previous: Turn | None = None
        if session_id is not None:
            if request.truncate_to is not None:
                await self._blocking(self.sessions.truncate_now, session_id, request.truncate_to)
            session = await self._blocking(self.sessions.get, session_id)
            previous = session.turns[-1] if session.turns else None
        resolution = resolve_follow_up(request.question, previous, request.new_topic)
        if session_id is not None and not resolution.fresh:
            history, memory = self.sessions.history(session)
        elif session_id is not None:
            memory = Memory(session_id, len(session.turns), 0, 0, self.sessions.token_budget, len(session.turns))
        question = resolution.question

        if is_greeting(question) and not request.attachments:
            await self._greet(question, session_id, memory, resolution)
            return

        key = None
        if self.cache is not None and request.use_cache and not request.attachments:
            self.generation = await self._blocking(self.engine.store.catalog.generation)
            context = hashlib.sha256("\x1e".join(f"{m.role}:{m.content}" for m in history).encode()).hexdigest()
            key = cache_key(resolution.query, request.scope.describe() if request.scope else None, context,
                            self.generation, self.provider.name, self.provider.model, str(self.engine.vault),
                            {"sources": request.max_sources, "tools": request.tools})
            hit = await self._blocking(self.cache.get, key)
            if hit is not None:
                await self._replay(hit, question, resolution, session_id, memory)
                return

        capabilities = await self._capabilities()
        preset: list[Any] = []
        images: list[bytes] = []
        if request.attachments:
            preset, images = await self._attachments(resolution.query, capabilities)
        extractive = getattr(self.provider, "extractive", False)
        # passage answers: keywords first where meaning search is on (see answer.words_first), meaning where they fail
        mode = "lexical" if extractive and words_first(self.engine) else "hybrid"
        started = time.perf_counter()
        pack, lang = await self._blocking(
            build_pack, self.engine, question, resolution.query, request.scope, request.max_sources,
            prior_paths=resolution.prior_paths, preset=preset, mode=mode)
        self.timings["retrieval_ms"] = round((time.perf_counter() - started) * 1000, 2)
        self._use_pack(pack, lang)
        confidence = assess(pack)
        await self._emit_confidence(confidence)  # progress at once: choosing the quotes may embed them
        answer = None
        if extractive and (pack or mode == "lexical"):
            answer, confidence = await self._passage_answer(confidence)
            if mode == "lexical" and not answered(answer, confidence):
                pack, lang = await self._blocking(
                    build_pack, self.engine, question, resolution.query, request.scope, request.max_sources,
                    prior_paths=resolution.prior_paths, preset=preset)
                by_meaning = assess(pack)
                other, by_meaning = await self._passage_answer(by_meaning, pack)
                if hybrid_replaces(answer, other, by_meaning):
                    self._use_pack(pack, lang)
                    answer, confidence = other, by_meaning
                    await self._emit_confidence(confidence)
        pack, lang = self.pack, self.lang
        answer_filter = self._filter()
        self.answer_filter = answer_filter
        if answer is not None:
            if answer.quotes and confidence.label == "low":  # a low answer says so in its first line
                await self._feed_events(answer_filter.quote(nearest_only(lang, answer.lacking) + "\n\n"))
            await self._feed_quotes(answer_filter, answer.quotes, answer.unnamed, answer.named_elsewhere,
                                    answer.lacking)
        else:
            if not pack:
                await self._feed(answer_filter, not_in_vault(lang))
            else:
                plan = await self._phase_one(request, question, capabilities, confidence)
                self.held = []
                await self._phase_two(answer_filter, question, history, capabilities, confidence, plan, images)
                await self._verify(answer_filter, confidence)
        await self._finish(answer_filter, question, resolution, confidence, session_id, memory, key)

    async def _emit_confidence(self, confidence: Confidence) -> None:
        """Send ``confidence`` unless the last one sent says the same."""
        shown = confidence.to_dict()
        if shown == self.confidence_shown:
            return
        self.confidence_shown = shown
        await self.emit("confidence", shown, replay=True)
        self.timings.setdefault("first_envelope_ms", self._ms())

    # -- pieces ------------------------------------------------------------------
    async def _capabilities(self) -> ChatCapabilities:
        try:
            async with asyncio.timeout(CAPABILITY_TIMEOUT_S):
                return await self.provider.capabilities()
        except ChatError:
            raise
        except Exception as exc:  # noqa: BLE001 - unknown capabilities: plain chat only
            log.info("capabilities of %s unknown: %s", self.provider.model, exc)
            return ChatCapabilities()

    async def _attachments(self, query: str, capabilities: ChatCapabilities) -> tuple[list[Any], list[bytes]]:
        from cognivault.answer.attachments import extract_for_question
        from cognivault.answer.evidence import idf_weights, key_terms, question_language

        def work() -> Any:
            lang = question_language(self.engine, query)
            terms = key_terms(self.engine, query, lang)
            return extract_for_question(self.request.attachments, self.engine.settings.index,
                                        analyzer_of(self.engine), terms, idf_weights(self.engine, terms),
                                        capabilities.vision)

        started = time.perf_counter()
        found = await self._blocking(work)
        self.timings["attachments_ms"] = round((time.perf_counter() - started) * 1000, 2)
        self.notes.extend(found.notes)
        return found.items, found.images

    def _filter(self) -> CitationFilter:
        def note_for_link(target: str) -> str | None:
            wanted = target.strip().casefold().removesuffix(".md")
            if not wanted:
                return None
            for item in self.pack.items:
                if item.source == "attachment":
                    continue
                path = item.path.casefold().removesuffix(".md")
                if wanted in (path, path.rsplit("/", 1)[-1], item.title.casefold()):
                    return item.path
            return None

        def url_in_pack(url: str) -> bool:
            return any(url in item.text for item in self.pack.items)

        return CitationFilter(self.pack.get, note_for_link, url_in_pack)

    async def _feed_events(self, events: list[tuple[str, str]]) -> None:
        if self.held is not None:  # a model's text waits until it cites the pack
            self.held.extend(events)
            if self.answer_filter is None or not self.answer_filter.report.accepted:
                return
            events, self.held = self.held, None
        for kind, value in events:
            if kind == "metadata":
                item = self.pack.get(value)
                if item is not None:
                    await self.emit("metadata", item.metadata(), replay=True)
            elif value:
                if "first_text_ms" not in self.timings:
                    self.timings["first_text_ms"] = self._ms()
                self.shown.append(value)
                await self.emit("text", {"text": value}, replay=True)

    async def _feed(self, answer_filter: CitationFilter, text: str) -> None:
        await self._feed_events(answer_filter.feed(text))

    def _use_pack(self, pack: EvidencePack, lang: str | None) -> None:
        """Answer from ``pack`` (before any citation is checked against it)."""
        self.pack = pack
        self.ledger.pack = pack
        self.lang = lang
        self.notes.extend(note for note in pack.notes if note not in self.notes)

    async def _passage_answer(self, confidence: Confidence, pack: EvidencePack | None = None
                              ) -> tuple[PassageAnswer, Confidence]:
        """The passage answer from ``pack`` (default: the request's), its sources named where it quotes them, and
        ``confidence`` capped by what it cites (sent as soon as known)."""
        pack = self.pack if pack is None else pack
        answer = renumbered(pack, await self._passages(confidence, pack))  # no label is shown yet
        pack.items = [answer.cited(item) for item in pack.items]  # each source named where it is quoted
        if confidence.supported:  # else it is low already, for its own reason
            confidence = cap_by_citations(confidence, pack, answer.labels(), answer.measures)
            if pack is self.pack:
                await self._emit_confidence(confidence)
        return answer, confidence

    async def _passages(self, confidence: Confidence, pack: EvidencePack | None = None) -> PassageAnswer:
        """The passage answer for ``pack`` (default: the request's; no quotes when it does not support one)."""
        pack = self.pack if pack is None else pack
        if not confidence.supported:
            return PassageAnswer(unnamed=unheard(pack, pack.query))
        embedder = getattr(self.provider, "embedder", None) or self.engine.embedder
        # The pack has the question's vector only where the embedder knows the question's language.
        return await self._blocking(passage_answer, pack, analyzer_of(self.engine), pack.query, embedder)

    async def _feed_quotes(self, answer_filter: CitationFilter, quotes: list[Quote],
                           unnamed: Sequence[str] = (), named_elsewhere: Sequence[str] = (), lacking: str = "") -> None:
        """The passage answer, one quote at a time (like a model would stream it), or "the vault doesn't say"
        (naming what the question asks about that no passage names, or the kind of answer none gives:
        ``not_in_vault``)."""
        if not quotes:
            await self._feed(answer_filter, not_in_vault(self.lang, unnamed, named_elsewhere, lacking))
            return
        for number, quote in enumerate(quotes):
            await self._feed_events(answer_filter.quote(("\n\n" if number else "") + quote.text))
            cited = quote.cited()
            await self._feed(answer_filter, cited[len(quote.text.rstrip()):])
        await self._feed_events(answer_filter.flush())

    async def _verify(self, answer_filter: CitationFilter, confidence: Confidence) -> None:
        """A model answer that cited nothing or looped: the passage answer instead, its text marked unverified."""
        await self._feed_events(answer_filter.flush())
        if not answer_filter.text.strip():
            self.held = None
            return  # the model said nothing at all: _finish reports it
        held, self.held = self.held, None
        if (answer_filter.report.accepted or says_not_in_vault(answer_filter.text)) and not self.looped:
            if held:  # an honest "the vault doesn't say" cites nothing: shown as it is
                await self._feed_events(held)
            return
        why = "looped" if self.looped else "uncited"
        self.unverified = why
        lang = "de" if self.lang == "de" else "en"
        self.notes.append(f"the model's answer {UNVERIFIED_WHY['en'][why]}: answered from the notes")
        if held is None:  # the model's text was shown (it cited, then looped): say so, then the passages
            notice = SHOWN_UNVERIFIED[lang].format(why=UNVERIFIED_WHY[lang][why])
            await self._feed_events(answer_filter.quote(f"\n\n> [!warning] {notice}\n\n"))
        model_text = "".join(value for kind, value in held or [] if kind == "text").strip()
        passages = await self._passages(confidence)
        await self._feed_quotes(answer_filter, passages.quotes, passages.unnamed, passages.named_elsewhere,
                                passages.lacking)
        if model_text:
            if len(model_text) > MAX_UNVERIFIED_CHARS:
                model_text = model_text[:MAX_UNVERIFIED_CHARS].rstrip() + " …"
            marked = "\n".join(f"> {line}" for line in model_text.splitlines())
            notice = UNVERIFIED[lang].format(why=UNVERIFIED_WHY[lang][why])
            await self._feed_events(answer_filter.quote(f"\n\n> [!warning] {notice}\n{marked}"))

    def _prompt_values(self, question: str, confidence: Confidence, plan: str = "") -> dict[str, str]:
        return {"evidence": self.pack.render(), "question": question, "confidence": confidence.label,
                "confidence_reason": confidence.reason, "language": self.lang or "the question's language",
                "today": date.today().isoformat(),
                "plan": f"A plan made before answering (not evidence):\n{plan}" if plan else ""}

    async def _phase_one(self, request: AskRequest, question: str, capabilities: ChatCapabilities,
                         confidence: Confidence) -> str:
        if not wants_thinking(request, question, capabilities, self.pack):
            return ""
        template = load_prompt("plan", self.engine.vault)
        system, user = template.render(self._prompt_values(question, confidence))
        messages = [ChatMessage("system", system), ChatMessage("user", user)]
        started = time.perf_counter()
        plan: list[str] = []
        shown = 0
        stream = self.provider.stream(messages, think=True, options=ChatOptions(max_tokens=400, timeout_s=30))
        try:
            async with asyncio.timeout(PHASE1_BUDGET_S):
                async with contextlib.aclosing(stream):
                    async for chunk in stream:
                        if chunk.kind not in ("thinking", "text") or not chunk.text:
                            continue
                        if chunk.kind == "text":
                            plan.append(chunk.text)
                        if shown < MAX_THINKING_CHARS:
                            piece = chunk.text[: MAX_THINKING_CHARS - shown]
                            shown += len(piece)
                            await self.emit("thinking", {"text": piece, "kind": "reasoning"
                                                         if chunk.kind == "thinking" else "plan"})
                        elif sum(map(len, plan)) > MAX_PLAN_CHARS:
                            break
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - phase 1 failing never costs the answer
            message = exc.message if isinstance(exc, ChatError) else (type(exc).__name__ + f": {exc}")
            log.info("thinking phase skipped for %s: %s", self.request_id, message)
            self.notes.append(f"thinking phase skipped ({message})")
        self.timings["phase1_ms"] = round((time.perf_counter() - started) * 1000, 2)
        return "".join(plan).strip()[:MAX_PLAN_CHARS]

    async def _phase_two(self, answer_filter: CitationFilter, question: str, history: list[ChatMessage],
                         capabilities: ChatCapabilities, confidence: Confidence, plan: str,
                         images: list[bytes]) -> None:
        template = load_prompt("answer", self.engine.vault)
        system, user = template.render(self._prompt_values(question, confidence, plan))
        messages = [ChatMessage("system", system), *history,
                    ChatMessage("user", user, images=list(images) if capabilities.vision else [])]
        tools = list(TOOL_SPECS) if capabilities.tools and self.request.tools else None
        toolbox = VaultTools(self.engine)
        steps = 0
        loop_deadline = time.monotonic() + TOOL_LOOP_BUDGET_S
        started = time.perf_counter()
        guard = LoopGuard()
        while True:
            offer = tools if steps < MAX_TOOL_STEPS and time.monotonic() < loop_deadline else None
            calls = []
            step_text: list[str] = []
            stream = self.provider.stream(messages, think=False, tools=offer, options=ChatOptions())
            try:
                async with contextlib.aclosing(stream):
                    async for chunk in stream:
                        if chunk.kind == "text" and chunk.text:
                            step_text.append(chunk.text)
                            await self._feed(answer_filter, chunk.text)
                            if guard.feed(chunk.text):
                                self.looped = True
                                break
                            if len(answer_filter.text) > MAX_ANSWER_CHARS:
                                self.truncated = True
                                self.notes.append(f"the answer was cut at {MAX_ANSWER_CHARS} characters")
                                break
                        elif chunk.kind == "tool_call" and offer and chunk.tool_call is not None:
                            calls.append(chunk.tool_call)
                        elif chunk.kind == "done" and chunk.usage is not None:
                            self.usage.prompt_tokens += chunk.usage.prompt_tokens
                            self.usage.completion_tokens += chunk.usage.completion_tokens
                            self.usage.done_reason = chunk.usage.done_reason
            except ChatError as exc:
                if offer and exc.code == "model_unsupported" and not answer_filter.text and steps == 0:
                    self.notes.append("the model does not take tools; answered without them")
                    tools = None
                    continue
                raise
            if not calls or self.truncated or self.looped:
                break
            steps += 1
            calls = calls[:MAX_CALLS_PER_STEP]
            messages.append(ChatMessage("assistant", "".join(step_text), tool_calls=calls))
            for call in calls:
                content, entry = await toolbox.run(call)
                self.ledger.tool_log.append(entry)
                messages.append(ChatMessage("tool", content, tool_name=call.name))
        self.timings["generation_ms"] = round((time.perf_counter() - started) * 1000, 2)

    async def _finish(self, answer_filter: CitationFilter, question: str, resolution: Resolution,
                      confidence: Confidence, session_id: str | None, memory: Memory | None,
                      key: str | None) -> None:
        await self._feed_events(answer_filter.flush())
        answer = "".join(self.shown).strip()
        if not answer:
            raise ChatError("model_empty", f"the model ({self.provider.model}) returned no answer; try again, "
                                           "or use the extractive answerer")
        report = answer_filter.report
        self.ledger.report = report
        if not getattr(self.provider, "extractive", False) and self.pack:
            confidence = cap_by_citations(confidence, self.pack, list(report.accepted))
            await self._emit_confidence(confidence)
        accepted = [self.pack.get(label) for label in report.accepted]
        sources = [item.metadata() for item in accepted if item is not None]
        done = {
            "request_id": self.request_id,
            "answer": answer,
            "citations": list(report.accepted),
            "chunk_ids": [s["chunk_id"] for s in sources],
            "sources": sources,
            "claimed_citations": report.claimed,
            "accepted_citations": report.kept,
            "dropped_citations": report.dropped,
            "links_removed": report.links_removed,
            "answered": bool(report.accepted),
            "confidence": confidence.label,
            "confidence_reason": confidence.reason,
            "unverified": bool(self.unverified),
            "looped": self.looped,
            "question": question,
            "resolved_question": resolution.query,
            "follow_up": resolution.follow_up,
            "session_id": session_id,
            "provider": self.provider.name,
            "model": self.provider.model,
            "cached": False,
            "truncated": self.truncated,
            "tools": list(self.ledger.tool_log),
            "usage": self.usage.to_dict(),
            "notes": list(dict.fromkeys(self.notes)),
        }
        await self._remember(session_id, memory, question, resolution, answer, sources, confidence.label,
                             bool(report.accepted), done)
        cache = self.cache
        if key is not None and cache is not None and not self.truncated and \
                not any(entry["name"] == "current_time" for entry in self.ledger.tool_log):
            await self._blocking(cache.put, key, self.replayable, done, self.generation)
        self.timings["total_ms"] = self._ms()
        done["timings"] = dict(self.timings)
        await self.emit("done", done)

    async def _remember(self, session_id: str | None, memory: Memory | None, question: str,
                        resolution: Resolution, answer: str, sources: list[dict[str, Any]], confidence: str,
                        answered: bool, done: dict[str, Any]) -> None:
        if session_id is None:
            return
        turn = Turn(question=question, answer=answer, resolved=resolution.query,
                    sources=[{"label": s["label"], "chunk_id": s["chunk_id"], "path": s["path"]} for s in sources],
                    confidence=confidence, answered=answered, provider=self.provider.name,
                    model=self.provider.model)
        session = await self._blocking(self.sessions.append, session_id, turn)
        done["turn"] = len(session.turns) - 1
        if memory is not None:
            memory.turns = len(session.turns)
            await self.emit("memory", memory.to_dict())

    async def _greet(self, question: str, session_id: str | None, memory: Memory | None,
                     resolution: Resolution) -> None:
        from cognivault.answer.evidence import question_language

        lang = await self._blocking(question_language, self.engine, question)
        text = GREETING_REPLY.get(lang or "en", GREETING_REPLY["en"])
        await self.emit("confidence", Confidence("low", "a greeting: nothing to look up").to_dict())
        await self.emit("text", {"text": text})
        done = {"request_id": self.request_id, "answer": text, "citations": [], "chunk_ids": [], "sources": [],
                "claimed_citations": 0, "accepted_citations": 0, "dropped_citations": [], "links_removed": 0,
                "answered": False, "confidence": "low", "question": question, "resolved_question": question,
                "follow_up": False,
                "session_id": session_id, "provider": self.provider.name, "model": self.provider.model,
                "cached": False, "truncated": False, "tools": [], "usage": ChatUsage().to_dict(), "notes": []}
        await self._remember(session_id, memory, question, resolution, text, [], "low", False, done)
        done["timings"] = {"total_ms": self._ms()}
        await self.emit("done", done)

    async def _replay(self, hit: Any, question: str, resolution: Resolution, session_id: str | None,
                      memory: Memory | None) -> None:
        self.timings["first_envelope_ms"] = self._ms()
        for item in hit.envelopes:
            await self.emit(item["type"], item["data"])
        done = dict(hit.done)
        done.update({"request_id": self.request_id, "cached": True, "question": question,
                     "session_id": session_id})
        await self._remember(session_id, memory, question, resolution, done["answer"], done["sources"],
                             done["confidence"], done["answered"], done)
        self.timings["total_ms"] = self._ms()
        done["timings"] = dict(self.timings)
        await self.emit("done", done)
