"""The study hub on the companion: review, generation (NDJSON), progress, badges, heatmap, the dashboard.

Routes (all behind the companion's token, Host and Origin checks):

- ``GET  /api/review/due?deck=&note=&limit=``  due cards and deck counts
- ``POST /api/review/{card}``  ``{"rating": 1-4 | "again"…, "path"?, "duration_ms"?}`` → the new schedule
- ``POST /api/generate/{kind}``  kind = flashcards | quiz | mindmap | workshop | lesson; NDJSON:
  ``{"type": "progress", "data": {"stage", "message"}}`` lines, then one ``{"type": "done", "data":
  {result}}`` (``data.path`` is the written note) or ``{"type": "error", "data": {"code", "message"}}``
- ``GET  /api/quizzes``, ``GET /api/quiz?path=``  the quiz notes (with their last attempt) and one quiz's
  questions without the answers (what the dashboard's quiz taker shows)
- ``POST /api/quiz/attempt``  ``{"path", "answers": [...]}`` → the score, with each question's correct
  answer, explanation and sources (recorded)
- ``GET  /api/progress?days=90``, ``GET /api/badges``, ``GET /api/heatmap?days=90``
- ``POST /api/progress/event``  ``{"kind": "mindmap_view" | "lesson_read" | "note_edit" | "ask", "data"?}``
- ``GET  /api/mindmaps``, ``GET /api/mindmap?path=``  the mind-map notes and one map's tree
- ``GET  /dashboard``  the dashboard page (CSS and JS inlined: one document, works in webviews)
- ``GET  /dashboard/assets/{name}``  the same CSS / JS files on their own
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiohttp import web

from cognivault.companion import api
from cognivault.companion.api import (
    ApiError,
    add_route,
    bad_request,
    engine_of,
    read_json,
    run_answer_work,
    run_blocking,
)
from cognivault.errors import CogniVaultError, describe_os_error
from cognivault.models.providers import CHAT_PROVIDER_CHOICES
from cognivault.study.kinds import KINDS

if TYPE_CHECKING:
    from cognivault.models.chat import ChatProvider
    from cognivault.study.progress import ProgressStore
    from cognivault.study.quiz import ParsedQuiz
    from cognivault.study.review import ReviewDeck

log = logging.getLogger(__name__)

TAG = "study"
ASSETS = {"dashboard.css": "text/css", "dashboard.js": "text/javascript"}
CLIENT_EVENTS = ("mindmap_view", "lesson_read", "note_edit", "ask")
CARD_ID = re.compile(r"[0-9a-f]{12}(?:~[0-9]{1,4})?-[0-9]{1,3}")

GRADE_BODY: dict[str, Any] = {
    "type": "object", "additionalProperties": False, "required": ["rating"],
    "properties": {"rating": {"type": ["integer", "string"]}, "path": {"type": "string", "maxLength": 1024},
                   "duration_ms": {"type": "integer", "minimum": 0, "maximum": 86_400_000}},
}
GENERATE_BODY: dict[str, Any] = {
    "type": "object", "additionalProperties": False,
    "properties": {
        "note": {"type": "string", "maxLength": 1024}, "topic": {"type": "string", "maxLength": 500},
        "scope": {"type": "object"}, "selection": {"type": "string", "maxLength": 20000},
        "lines": {"type": "array", "items": {"type": "integer", "minimum": 1}, "minItems": 2, "maxItems": 2},
        "count": {"type": "integer", "minimum": 1, "maximum": 100}, "deck": {"type": "string", "maxLength": 100},
        "chat_provider": {"type": "string", "enum": list(CHAT_PROVIDER_CHOICES)},
        "workshop": {"type": "string", "maxLength": 1024}, "lesson": {"type": "integer", "minimum": 1},
    },
}
ATTEMPT_BODY: dict[str, Any] = {
    "type": "object", "additionalProperties": False, "required": ["path", "answers"],
    "properties": {"path": {"type": "string", "maxLength": 1024},
                   "answers": {"type": "array", "maxItems": 200, "items": {"type": ["string", "integer", "null"]}},
                   "duration_ms": {"type": "integer", "minimum": 0, "maximum": 86_400_000}},
}
EVENT_BODY: dict[str, Any] = {
    "type": "object", "additionalProperties": False, "required": ["kind"],
    "properties": {"kind": {"type": "string", "enum": list(CLIENT_EVENTS)}, "data": {"type": "object"},
                   "id": {"type": "string", "maxLength": 128}},
}
DAYS_QUERY = {"days": {"type": "integer", "minimum": 1, "maximum": 3660, "default": 90}}


# -- services ------------------------------------------------------------------------
def _store(app: web.Application) -> ProgressStore:
    store = api.service(app, "study_progress")
    if store is None:
        from cognivault.study.progress import ProgressStore

        store = ProgressStore(app[api.ENGINE_KEY].vault)
        api.set_service(app, "study_progress", store)
    return store


def _deck(app: web.Application) -> ReviewDeck:
    deck = api.service(app, "study_deck")
    if deck is None:
        from cognivault.study.review import ReviewDeck

        engine = app[api.ENGINE_KEY]
        deck = ReviewDeck(engine.vault, progress=_store(app), extra_ignored=(engine.index_dir,))
        api.set_service(app, "study_deck", deck)
    return deck


def _note_path(request: web.Request, raw: str, what: str = "path") -> str:
    return api.safe_vault_path(engine_of(request).vault, raw, what)


# -- review ------------------------------------------------------------------------------
async def review_due(request: web.Request) -> web.Response:
    query = api.query_params(request)
    deck = _deck(request.app)
    paths = [_note_path(request, query["note"], "note")] if query.get("note") else None

    def collect() -> dict[str, Any]:
        due = deck.due(deck=query.get("deck") or None, limit=query.get("limit"), paths=paths)
        return {"due": [card.to_dict() for card in due], "stats": deck.stats()}

    return web.json_response(await run_blocking(request, collect))


async def review_grade(request: web.Request) -> web.Response:
    from cognivault.study.scheduler import parse_rating

    card_id = request.match_info["card"]
    body = await read_json(request)
    if not CARD_ID.fullmatch(card_id):
        raise bad_request("the card id looks like 0123456789ab-0 (from /api/review/due)", "bad_card")
    try:
        rating = parse_rating(body["rating"])
    except ValueError as exc:
        raise bad_request(str(exc), "bad_rating") from None
    path = _note_path(request, body["path"]) if body.get("path") else None
    duration = body.get("duration_ms")
    deck = _deck(request.app)
    # CardNotFound (404 card_not_found) and ReviewConflict (409) are answered by the error middleware
    outcome = await run_blocking(request, deck.grade, card_id, rating, path=path,
                                 duration_s=duration / 1000 if duration is not None else None)
    return web.json_response(outcome.to_dict())


# -- generation ----------------------------------------------------------------------------
async def _provider(request: web.Request, name: str | None) -> ChatProvider | None:
    """None (extractive) or the companion's chat provider (shared with /api/ask)."""
    if name == "extractive":
        return None
    if name in (None, "auto"):
        from cognivault.companion import answering

        provider = await answering.provider_of(request.app)
    else:
        from cognivault.models.chat import make_chat_provider

        provider = make_chat_provider(request.app[api.SETTINGS_KEY], name)  # a ChatError is a 503 with its code
    return None if getattr(provider, "name", "") == "extractive" else provider


def _line(envelope: dict[str, Any]) -> bytes:
    return (json.dumps(envelope, ensure_ascii=False, default=str) + "\n").encode("utf-8")


async def generate_stream(request: web.Request) -> web.StreamResponse:
    from cognivault.companion.routes import parse_scope
    from cognivault.study.generate import run_generation
    from cognivault.study.sources import StudyRequest, gather_sources

    kind = request.match_info["kind"]
    body = await read_json(request)
    if kind not in KINDS:
        raise ApiError(404, "not_found", f"unknown kind {kind!r}: one of {', '.join(KINDS)}")
    engine = engine_of(request)
    scope = parse_scope(request, body.get("scope"))
    note = _note_path(request, body["note"], "note") if body.get("note") else None
    workshop = _note_path(request, body["workshop"], "workshop") if body.get("workshop") else None
    lines = (body["lines"][0], body["lines"][1]) if body.get("lines") else None  # the schema: exactly two
    from cognivault.index.scope import Scope

    study_request = StudyRequest(note=note, scope=scope or Scope(), topic=(body.get("topic") or "").strip() or None,
                                 selection=body.get("selection"), lines=lines,
                                 count=body.get("count"), deck=body.get("deck"))
    if kind == "lesson":
        if not workshop or not body.get("lesson"):
            raise bad_request("a lesson needs body.workshop (the outline note) and body.lesson", "invalid_request")
    elif not (study_request.note or study_request.topic or not study_request.scope.is_empty()):
        raise bad_request("say what to study from: body.note, body.scope or body.topic", "invalid_request")
    provider = await _provider(request, body.get("chat_provider"))

    response = web.StreamResponse(headers={"Content-Type": "application/x-ndjson; charset=utf-8",
                                           "X-Accel-Buffering": "no"})
    await response.prepare(request)
    queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    def progress(stage: str, message: str) -> None:
        queue.put_nowait({"type": "progress", "data": {"stage": stage, "message": message}})

    async def work() -> Any:
        sources = None
        if kind != "lesson":
            progress("retrieve", "finding passages")
            sources = await run_answer_work(request, gather_sources, engine, study_request)
        return await run_generation(kind, engine, study_request, provider, progress=progress,
                                    store=_store(request.app), workshop=workshop, lesson=body.get("lesson"),
                                    sources=sources)

    task = asyncio.ensure_future(work())
    try:
        while True:
            getter = asyncio.ensure_future(queue.get())
            done, _ = await asyncio.wait({task, getter}, return_when=asyncio.FIRST_COMPLETED)
            if getter in done:
                await response.write(_line(getter.result()))
                continue
            getter.cancel()
            break
        while not queue.empty():
            await response.write(_line(queue.get_nowait()))
        try:
            result = task.result()
        except CogniVaultError as exc:  # GenerationError and every other user mistake
            await response.write(_line({"type": "error", "data": {"code": exc.code, "message": str(exc)}}))
        except OSError as exc:  # a read-only vault, a full disk
            error = describe_os_error(exc, "write the note")
            await response.write(_line({"type": "error", "data": {"code": error.code, "message": str(error)}}))
        except Exception:  # noqa: BLE001 - the stream must end with one error envelope
            log.exception("generation failed")
            await response.write(_line({"type": "error", "data": {
                "code": "internal", "message": "generation failed; see the server log"}}))
        else:
            await response.write(_line({"type": "done", "data": result.to_dict()}))
        with contextlib.suppress(ConnectionResetError):
            await response.write_eof()
    except (ConnectionResetError, asyncio.CancelledError):
        task.cancel()
        raise
    return response


# -- quizzes, progress, badges ----------------------------------------------------------------
async def quiz_attempt(request: web.Request) -> web.Response:
    from cognivault.study.quiz import take_attempt

    body = await read_json(request)
    path = _note_path(request, body["path"])

    def score() -> dict[str, Any]:
        duration = body.get("duration_ms")
        return take_attempt(_store(request.app), path, _read_quiz(engine_of(request).vault / path, path),
                            body["answers"], duration_s=duration / 1000 if duration else None)

    return web.json_response(await run_blocking(request, score))


async def quizzes(request: web.Request) -> web.Response:
    from cognivault.study.progress import recent_quizzes

    def collect() -> list[dict[str, Any]]:
        notes = _study_notes(engine_of(request).vault, _study_folder(request), "quiz")
        attempts = recent_quizzes(_store(request.app).events(kinds=["quiz_attempt"]), limit=10_000)
        for note in notes:
            mine = [a for a in attempts if a["quiz"] == note["path"]]  # newest first
            note["attempts"] = len(mine)
            note["last"] = mine[0] if mine else None
        return notes

    return web.json_response({"quizzes": await run_blocking(request, collect)})


async def quiz_questions(request: web.Request) -> web.Response:
    from cognivault.study.quiz import questions_to_take

    path = _note_path(request, api.query_params(request)["path"])
    quiz = await run_blocking(request, _read_quiz, engine_of(request).vault / path, path)
    return web.json_response({"path": path, "title": quiz.title, "quiz_id": quiz.quiz_id,
                              "questions": questions_to_take(quiz)})


def _read_quiz(absolute: Path, path: str) -> ParsedQuiz:
    from cognivault.study.quiz import quiz_to_take  # a note without questions: NotAQuiz, a 400 not_a_quiz

    try:
        return quiz_to_take(absolute.read_text("utf-8"), path)
    except (OSError, UnicodeDecodeError):
        raise ApiError(404, "not_found", f"no quiz note at {path}") from None


async def progress_summary(request: web.Request) -> web.Response:
    from cognivault.study.badges import BadgeBook

    days = api.query_params(request)["days"]

    def summary() -> dict[str, Any]:
        store = _store(request.app)
        events = store.events()
        data = store.summary(days=days)
        badges = BadgeBook(store).evaluate(events)
        data["badges_unlocked"] = sum(1 for b in badges if b["unlocked"])
        data["badges_total"] = len(badges)
        return data

    return web.json_response(await run_blocking(request, summary))


async def badges(request: web.Request) -> web.Response:
    from cognivault.study.badges import BadgeBook

    result = await run_blocking(request, lambda: BadgeBook(_store(request.app)).evaluate())
    return web.json_response({"badges": result, "unlocked": sum(1 for b in result if b["unlocked"]),
                              "total": len(result)})


async def heatmap(request: web.Request) -> web.Response:
    days = api.query_params(request)["days"]
    cells = await run_blocking(request, lambda: _store(request.app).heatmap(days))
    return web.json_response({"days": cells})


async def answered(request: web.Request, done: dict[str, Any]) -> None:
    """Record a question answered through ``POST /api/ask`` in the study progress.

    On the background lane: the write waits for a disk flush, which must not hold up searches.
    """
    from cognivault.study.activity import record_answer

    await api.run_in_background(request, record_answer, engine_of(request).vault, "companion", done)


MAX_EVENT_DATA_BYTES = 4 * 1024  # a client's event says what was seen (a path, a title, a count), no more
MAX_EVENT_DATA_PER_DAY = 512 * 1024  # what clients may add to the vault's progress log in a day


def _take_event_budget(app: web.Application, data: dict[str, Any]) -> None:
    """Refuse an event whose ``data`` is over its cap, or over what is left of today's (it is stored in the vault)."""
    from datetime import date

    size = len(json.dumps(data, ensure_ascii=False).encode("utf-8"))
    if size > MAX_EVENT_DATA_BYTES:
        raise ApiError(413, "event_too_large", f"an event's data is {size} bytes; the limit is {MAX_EVENT_DATA_BYTES}")
    today = date.today().isoformat()
    day, used = api.service(app, "event_bytes_today") or (today, 0)
    used = used if day == today else 0
    if used + size > MAX_EVENT_DATA_PER_DAY:
        raise ApiError(429, "event_quota", f"clients recorded {MAX_EVENT_DATA_PER_DAY // 1024} KB of event data "
                                           "today, the most a day may add; try again tomorrow")
    api.set_service(app, "event_bytes_today", (today, used + size))


async def record_event(request: web.Request) -> web.Response:
    body = await read_json(request)
    data = body.get("data") or {}
    _take_event_budget(request.app, data)
    event = await run_blocking(request, lambda: _store(request.app).record(body["kind"], data,
                                                                           event_id=body.get("id")))
    return web.json_response(event.to_dict())


# -- study notes of one type (mind maps, quizzes) --------------------------------------------------
def _study_notes(vault: Path, folder: str, kind: str) -> list[dict[str, Any]]:
    """The generated notes of ``kind`` in the study folder, newest first."""
    from cognivault.vault.markdown import read_frontmatter

    root = vault / folder
    found = []
    if root.is_dir():
        for note in sorted(root.rglob("*.md")):
            try:
                text = note.read_text("utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            if f"type: {kind}" not in text[:4096]:
                continue
            frontmatter = read_frontmatter(text)
            if frontmatter.get("type") == kind:
                found.append({"path": note.relative_to(vault).as_posix(), "title": frontmatter.get("title"),
                              "generated_at": frontmatter.get("generated_at")})
    found.sort(key=lambda item: str(item.get("generated_at") or ""), reverse=True)
    return found


def _study_folder(request: web.Request) -> str:
    from cognivault.study.common import study_folder

    vault = engine_of(request).vault
    return study_folder(vault, request.app[api.SETTINGS_KEY]).relative_to(vault).as_posix()


async def mindmaps(request: web.Request) -> web.Response:
    notes = await run_blocking(request, _study_notes, engine_of(request).vault, _study_folder(request), "mindmap")
    return web.json_response({"mindmaps": notes})


async def mindmap(request: web.Request) -> web.Response:
    from cognivault.study.mindmap import parse_mindmap

    query = api.query_params(request)
    path = _note_path(request, query["path"])
    absolute = engine_of(request).vault / path
    try:
        text = await run_blocking(request, absolute.read_text, "utf-8")
    except (OSError, UnicodeDecodeError):
        raise ApiError(404, "not_found", f"no mind map at {path}") from None
    return web.json_response({"path": path, **parse_mindmap(text)})


# -- the dashboard ------------------------------------------------------------------------------------
def _asset(name: str) -> str:
    return resources.files("cognivault.study").joinpath("dashboard", name).read_text("utf-8")


def dashboard_html() -> str:
    page = _asset("index.html")
    return page.replace("/*__CSS__*/", _asset("dashboard.css")).replace("/*__JS__*/", _asset("dashboard.js"))


async def dashboard(request: web.Request) -> web.Response:
    return web.Response(text=dashboard_html(), content_type="text/html", charset="utf-8")


async def dashboard_asset(request: web.Request) -> web.Response:
    name = request.match_info["name"]
    if name not in ASSETS:
        raise ApiError(404, "not_found", "no such asset")
    return web.Response(text=_asset(name), content_type=ASSETS[name], charset="utf-8")


def setup_routes(app: web.Application) -> None:
    api.on_answered(app, answered)
    add_route(app, "GET", "/api/review/due", review_due, tag=TAG, summary="Flashcards due for review",
              query={"deck": {"type": "string", "maxLength": 200}, "note": {"type": "string", "maxLength": 1024},
                     "limit": {"type": "integer", "minimum": 1, "maximum": 1000}})
    add_route(app, "POST", "/api/review/{card}", review_grade, tag=TAG,
              summary="Grade a card (1 again, 2 hard, 3 good, 4 easy); rewrites only its schedule comment",
              body=GRADE_BODY)
    add_route(app, "POST", "/api/generate/{kind}", generate_stream, tag=TAG, body=GENERATE_BODY,
              summary="Generate flashcards, a quiz, a mind map, a workshop or a lesson: NDJSON progress, "
                      "then the note path", content_type="application/x-ndjson")
    add_route(app, "POST", "/api/quiz/attempt", quiz_attempt, tag=TAG, body=ATTEMPT_BODY,
              summary="Score a quiz attempt against the quiz note and record it")
    add_route(app, "GET", "/api/quizzes", quizzes, tag=TAG,
              summary="The quiz notes in the study folder, newest first, with their last attempt")
    add_route(app, "GET", "/api/quiz", quiz_questions, tag=TAG, summary="One quiz's questions, without the answers",
              query={"path": {"type": "string", "maxLength": 1024, "required": True}})
    add_route(app, "GET", "/api/progress", progress_summary, tag=TAG, query=DAYS_QUERY,
              summary="Study time, streaks, heatmap, recent quizzes")
    add_route(app, "GET", "/api/badges", badges, tag=TAG, summary="The 25 badges, locked and unlocked")
    add_route(app, "GET", "/api/heatmap", heatmap, tag=TAG, query=DAYS_QUERY, summary="Study time per day")
    add_route(app, "POST", "/api/progress/event", record_event, tag=TAG, body=EVENT_BODY,
              summary="Record a study activity seen by a client (mind map view, lesson read, ...)")
    add_route(app, "GET", "/api/mindmaps", mindmaps, tag=TAG, summary="The mind-map notes in the study folder")
    add_route(app, "GET", "/api/mindmap", mindmap, tag=TAG, summary="One mind map's tree",
              query={"path": {"type": "string", "maxLength": 1024, "required": True}})
    add_route(app, "GET", "/dashboard", dashboard, tag=TAG, page=True, content_type="text/html",
              summary="The study dashboard (open once with ?token=)")
    add_route(app, "GET", "/dashboard/assets/{name}", dashboard_asset, tag=TAG, content_type="text/plain",
              summary="The dashboard's stylesheet and script")
