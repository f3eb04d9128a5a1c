"""Study from the editor: review due flashcards, grade them, generate study notes; study activity.

Requests:

- ``cognivault/reviewDue`` ``{uri?, deck?, limit?, includeNew?}`` returns ``{due: [{id, uri, path, line,
  front, back, decks, kind, due, interval, ease, isNew, sources, ...}], stats}``: the cards due today
  (most overdue first, then new ones), all of the vault's or only one note's (``uri``) or deck's.
- ``cognivault/reviewGrade`` ``{id, grade: 1-4, uri?, durationMs?}`` schedules the card with FSRS and
  rewrites only its ``<!--SR:...-->`` comment (``cognivault.study.review``). A note changed on disk
  meanwhile is re-read and the update redone; a note that keeps changing, or that has unsaved edits
  in the editor, is refused with ``ContentModified`` (-32801) and nothing is written; a card whose
  text changed is ``InvalidParams`` with ``data.code = "card_not_found"``.
- ``cognivault/quizAttempt`` ``{uri, answers: [letter | 1-based number | option text, ...], durationMs?}``
  scores the answers against the quiz note as the editor shows it (unsaved edits included) and
  records the attempt in the study progress; returns ``{quiz, uri, correct, total, score,
  details: [{number, given, correct, ok, explanation, sources}]}``.
- ``cognivault/generate`` ``{kind: flashcards|quiz|mindmap|workshop, uri? | scope? | topic?,
  selection?, count?, deck?, chatProvider?}`` writes the note into the study folder and returns the
  generation result with the note's ``uri``. With a ``workDoneToken`` (or when the client supports
  server-initiated work-done progress) each stage is reported through ``$/progress``. The code
  actions' ``cognivault.generate`` command runs the same function.

Activity: questions answered here (``cognivault.ask``) and notes edited in the editor (``didChange``,
``didSave``; throttled per note by ``study.activity.EditThrottle``) are recorded in the vault's
study progress, off the event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import weakref
from dataclasses import dataclass, field
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcContentModified, JsonRpcInvalidParams

from cognivault.lsp.server import CogniVaultServer, Context, FeatureError
from cognivault.lsp.uris import relative_path, vault_uri
from cognivault.models.providers import CHAT_PROVIDER_CHOICES
from cognivault.study.activity import EditThrottle, record_answer, record_edit
from cognivault.study.kinds import NOTE_KINDS
from cognivault.study.progress import ProgressStore
from cognivault.study.review import CardNotFound, ReviewConflict, ReviewDeck

REVIEW_DUE = "cognivault/reviewDue"
REVIEW_GRADE = "cognivault/reviewGrade"
QUIZ_ATTEMPT = "cognivault/quizAttempt"
GENERATE = "cognivault/generate"
MAX_DUE = 1000
_tokens = itertools.count(1)


@dataclass
class StudyState:
    """One server's progress store, review deck (with its parse cache) and edit throttle."""

    store: ProgressStore
    deck: ReviewDeck
    edits: EditThrottle = field(default_factory=EditThrottle)


_states: weakref.WeakKeyDictionary[CogniVaultServer, StudyState] = weakref.WeakKeyDictionary()


def state_of(ls: CogniVaultServer) -> StudyState | None:
    """The server's study state once its engine is open (None before)."""
    state = _states.get(ls)
    if state is None and ls.engine is not None:
        store = ProgressStore(ls.engine.vault)
        deck = ReviewDeck(ls.engine.vault, progress=store, extra_ignored=(ls.engine.index_dir,))
        state = _states[ls] = StudyState(store, deck)
    return state


async def _ready_state(ls: CogniVaultServer) -> StudyState:
    await ls.wait_engine()
    state = state_of(ls)
    assert state is not None  # the engine is open
    return state


def _path_of(ctx: Context, params: dict[str, Any]) -> str | None:
    """The vault path of ``params.uri`` (None without one; an error for a file outside the vault)."""
    uri = params.get("uri")
    if uri is None:
        return None
    path = relative_path(ctx.vault, uri) if isinstance(uri, str) else None
    if path is None:
        raise FeatureError(f"uri: {uri!r} is not a note in the vault")
    return path


# -- review ------------------------------------------------------------------------------
def review_due(ctx: Context, params: dict[str, Any], deck: ReviewDeck) -> dict[str, Any]:
    path = _path_of(ctx, params)
    limit = params.get("limit")
    if limit is not None and (not isinstance(limit, int) or not 1 <= limit <= MAX_DUE):
        raise FeatureError(f"limit: an integer from 1 to {MAX_DUE}")
    name = params.get("deck")
    due = deck.due(deck=name if isinstance(name, str) and name else None, limit=limit,
                   paths=[path] if path else None, include_new=params.get("includeNew", True) is not False)
    cards = []
    for card in due:
        data = card.to_dict()
        data["isNew"] = data.pop("is_new")
        data["headingPath"] = data.pop("heading_path")
        cards.append({**data, "uri": vault_uri(ctx.vault, card.path)})
    return {"due": cards, "stats": deck.stats()}


def review_grade(ctx: Context, params: dict[str, Any], deck: ReviewDeck, unsaved: set[str]) -> dict[str, Any]:
    from cognivault.study.scheduler import parse_rating

    card_id = params.get("id")
    if not isinstance(card_id, str) or not card_id:
        raise FeatureError("id: the card id from cognivault/reviewDue is required")
    grade = params.get("grade")
    if isinstance(grade, bool) or not isinstance(grade, int) or not 1 <= grade <= 4:
        raise FeatureError("grade: 1 again, 2 hard, 3 good or 4 easy")
    duration = params.get("durationMs")
    if duration is not None and (not isinstance(duration, (int, float)) or duration < 0):
        raise FeatureError("durationMs: a non-negative number")
    try:
        path, _, _ = deck.find(card_id, _path_of(ctx, params))
        if path in unsaved:
            raise JsonRpcContentModified(message=f"{path} has unsaved changes in the editor: save it, then grade "
                                                 "the card again", data={"code": "unsaved_changes", "path": path})
        outcome = deck.grade(card_id, parse_rating(grade), path=path,
                             duration_s=duration / 1000 if duration is not None else None)
    except CardNotFound as exc:
        raise JsonRpcInvalidParams(message=str(exc), data={"code": "card_not_found"}) from exc
    except ReviewConflict as exc:
        raise JsonRpcContentModified(message=str(exc), data={"code": "review_conflict"}) from exc
    return {**outcome.to_dict(), "uri": vault_uri(ctx.vault, outcome.path)}


# -- quiz attempts ------------------------------------------------------------------------
def quiz_attempt(ctx: Context, params: dict[str, Any], store: ProgressStore) -> dict[str, Any]:
    """Score answers against the quiz note as the editor shows it (unsaved edits included); record it."""
    from cognivault.study.quiz import NotAQuiz, quiz_to_take, take_attempt

    path = _path_of(ctx, params)
    document = ctx.view.document(path) if path is not None else None
    if path is None or document is None:
        raise FeatureError("uri: the quiz note in the vault is required")
    answers = params.get("answers")
    if not isinstance(answers, list) or not all(isinstance(a, (str, int)) and not isinstance(a, bool)
                                                for a in answers):
        raise FeatureError("answers: a list with one answer per question (letter, 1-based number or option text)")
    duration = params.get("durationMs")
    if duration is not None and (isinstance(duration, bool) or not isinstance(duration, (int, float))
                                 or duration < 0):
        raise FeatureError("durationMs: a non-negative number")
    try:
        quiz = quiz_to_take(document.text, path)
    except NotAQuiz as exc:
        raise FeatureError(str(exc)) from None
    result = take_attempt(store, path, quiz, answers, duration_s=duration / 1000 if duration is not None else None)
    return {**result, "uri": vault_uri(ctx.vault, path)}


# -- generation ---------------------------------------------------------------------------
def study_request(ctx: Context, params: dict[str, Any]) -> Any:
    """The StudyRequest a ``cognivault/generate`` request (or the code action's command) asks for."""
    from cognivault.index.scope import Scope
    from cognivault.search_request import parse_scope
    from cognivault.study.sources import StudyRequest

    path = params.get("path") if isinstance(params.get("path"), str) else _path_of(ctx, params)
    topic = params.get("topic")
    topic = (topic.strip() or None) if isinstance(topic, str) else None
    scope = parse_scope(ctx.vault, params.get("scope"))
    if not (path or topic or scope):
        raise FeatureError("say what to study from: uri (a note), scope or topic")
    count = params.get("count")
    if count is not None and (isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= 100):
        raise FeatureError("count: an integer from 1 to 100")
    selection = params.get("selection")
    deck = params.get("deck")
    return StudyRequest(note=path, scope=scope or Scope(), topic=topic,
                        selection=selection if isinstance(selection, str) and selection else None, count=count,
                        deck=deck if isinstance(deck, str) and deck else None)


def generate(ctx: Context, kind: str, params: dict[str, Any], store: ProgressStore, report: Any) -> Any:
    """Run the generator to completion on this worker thread (its own event loop for the model calls)."""
    from cognivault.models.chat import ChatError, resolve_chat_provider
    from cognivault.study.generate import run_generation
    from cognivault.study.sources import GenerationError

    request = study_request(ctx, params)
    name = params.get("chatProvider")
    if name not in (None, *CHAT_PROVIDER_CHOICES):
        raise FeatureError(f"chatProvider: one of {', '.join(CHAT_PROVIDER_CHOICES)}")

    async def main() -> Any:
        provider = None
        if name != "extractive":
            try:
                provider, note = await resolve_chat_provider(ctx.engine.settings, name, embedder=ctx.engine.embedder)
            except ChatError as exc:
                raise FeatureError(exc.message) from exc
            if note:
                report("model", note)
        try:
            chosen = None if getattr(provider, "name", "") == "extractive" else provider
            return await run_generation(kind, ctx.engine, request, chosen, progress=report, store=store)
        finally:
            if provider is not None:
                await provider.aclose()

    try:
        return asyncio.run(main())
    except GenerationError as exc:
        raise JsonRpcInvalidParams(message=str(exc), data={"code": exc.code}) from exc


async def generate_note(ls: CogniVaultServer, params: dict[str, Any]) -> dict[str, Any]:
    """``cognivault/generate`` and the ``cognivault.generate`` command: write the note, return its uri."""
    kind = params.get("kind")
    if kind not in NOTE_KINDS:  # a lesson is opened from its workshop outline, not generated from notes here
        raise JsonRpcInvalidParams(message=f"kind: one of {', '.join(NOTE_KINDS)}")
    state = await _ready_state(ls)
    token = params.get("workDoneToken")
    if token is None and ls.capability("window.work_done_progress", False):
        token = f"cognivault/generate/{next(_tokens)}"
        try:
            await asyncio.wait_for(ls.work_done_progress.create_async(token), 10)
        except Exception:  # noqa: BLE001 - the client refused: generate without progress
            token = None
    if token is not None:
        ls.work_done_progress.begin(token, types.WorkDoneProgressBegin(title=f"CogniVault: generating {kind}",
                                                                       message="finding passages"))
    loop = asyncio.get_running_loop()

    def report(stage: str, message: str) -> None:
        if token is not None:
            loop.call_soon_threadsafe(lambda: ls.work_done_progress.report(
                token, types.WorkDoneProgressReport(message=f"{stage}: {message}")))

    outcome = "failed"
    try:
        result = await ls.run_feature(generate, None, kind, params, state.store, report)
        outcome = f"wrote {result.path}"
    finally:
        if token is not None:
            with contextlib.suppress(Exception):
                ls.work_done_progress.end(token, types.WorkDoneProgressEnd(message=outcome))
    ls.live.schedule_update(result.path, delay_ms=0)
    uri = vault_uri(ls.engine.vault, result.path)
    if ls.capability("window.show_document.support", False):
        ls.live.spawn(ls.window_show_document_async(types.ShowDocumentParams(uri=uri, take_focus=True)))
    return {**result.to_dict(), "uri": uri}


# -- activity hooks -------------------------------------------------------------------------
def note_edited(ls: CogniVaultServer, path: str) -> None:
    """A vault note was changed or saved in the editor: a ``note_edit`` event, throttled per note."""
    state = state_of(ls)
    if state is not None and state.edits.admit(path):
        def record() -> None:
            ls.live.yield_to_requests()  # a write of the month's events: after the requests of the moment
            record_edit(state.store, path, "editor")

        ls.live.spawn(asyncio.to_thread(record))


async def answered(ls: CogniVaultServer, answer: dict[str, Any]) -> None:
    """A question was answered in the editor: an ``ask`` event."""
    state = state_of(ls)
    if state is not None:
        await asyncio.to_thread(record_answer, state.store.vault, "lsp", answer)


def _params(params: Any) -> dict[str, Any]:
    from cognivault.lsp.custom import to_plain

    params = to_plain(params)
    if not isinstance(params, dict):
        raise JsonRpcInvalidParams(message="params must be an object")
    return params


def register(server: CogniVaultServer) -> None:
    @server.feature(REVIEW_DUE)
    async def on_review_due(ls: CogniVaultServer, params: Any) -> Any:
        params = _params(params)
        return await ls.run_feature(review_due, None, params, (await _ready_state(ls)).deck)

    @server.feature(REVIEW_GRADE)
    async def on_review_grade(ls: CogniVaultServer, params: Any) -> Any:
        params = _params(params)
        deck = (await _ready_state(ls)).deck
        result = await ls.run_feature(review_grade, None, params, deck, set(ls.live.unsaved_paths()))
        ls.live.schedule_update(result["path"], delay_ms=0)
        return result

    @server.feature(QUIZ_ATTEMPT)
    async def on_quiz_attempt(ls: CogniVaultServer, params: Any) -> Any:
        params = _params(params)
        return await ls.run_feature(quiz_attempt, None, params, (await _ready_state(ls)).store)

    @server.feature(GENERATE)
    async def on_generate(ls: CogniVaultServer, params: Any) -> Any:
        return await generate_note(ls, _params(params))
