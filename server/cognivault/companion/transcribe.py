"""``POST /api/transcribe``: a spoken question turned into text, for an editor's microphone button.

The recording is the raw request body (any editor can send bytes with ``fetch``,
Obsidian's ``requestUrl`` or ``curl --data-binary``; no multipart encoding), its
file name in ``?name=`` (the extension gives the format). The speech is transcribed
by :mod:`cognivault.answer.voice` (faster-whisper from ``index.whisper_model_dir``)
in the indexer's reader process, waited on from the companion's thread pool: a
decoder that crashes on a recording fails that request, never the companion. Nothing
is written to the vault and the uploaded recording is deleted as soon as it is
transcribed.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from cognivault.answer.voice import MAX_AUDIO_BYTES, transcribe_bytes
from cognivault.companion import api
from cognivault.companion.api import ApiError, add_route

TRANSCRIPT: dict[str, Any] = {
    "type": "object", "required": ["text"],
    "properties": {
        "text": {"type": "string", "description": "the whole transcript, ready to use as the question"},
        "language": {"type": ["string", "null"], "description": "detected language code (en, de...)"},
        "duration_s": {"type": ["number", "null"]},
        "segments": {"type": "array", "items": {"type": "object", "properties": {
            "time": {"type": "string", "description": "HH:MM:SS-HH:MM:SS"}, "text": {"type": "string"}}}},
    },
}
DESCRIPTION = (
    "Send the recording as the raw request body (`Content-Type: application/octet-stream` or `audio/*`, "
    f"at most {MAX_AUDIO_BYTES // (1024 * 1024)} MB) and its file name as `?name=` (wav, mp3, ogg, m4a, "
    "flac, webm...: the extension gives the format). Errors: 413 `body_too_large`, 415 `not_audio`, "
    "422 `audio_unreadable` (not decodable audio, or the reader crashed or went over its memory or time "
    "limit on it: the message says which), 503 `transcription_unavailable` (faster-whisper or the "
    "model folder `index.whisper_model_dir` is missing; the message says how to get them). "
    "Nothing is stored.")


async def transcribe(request: web.Request) -> web.Response:
    params = api.query_params(request)
    audio = await api.read_upload(request)
    if not audio:
        raise ApiError(400, "empty_audio", "the request body is empty; send the recording's bytes")
    index_settings = request.app[api.SETTINGS_KEY].index
    # a TranscribeError carries its status and code: the error middleware answers it
    transcript = await api.run_in_background(request, transcribe_bytes, params["name"], audio, index_settings)
    return web.json_response(transcript.to_dict())


def setup_routes(app: web.Application) -> None:
    add_route(app, "POST", "/api/transcribe", transcribe, summary="Speech to question text (faster-whisper, "
              "local model folder)", description=DESCRIPTION,
              query={"name": {"type": "string", "required": True, "minLength": 1, "maxLength": 255,
                              "description": "file name of the recording, e.g. question.webm"}},
              body={"type": "string", "format": "binary"}, response=TRANSCRIPT,
              request_types=("application/octet-stream", "audio/*"), max_body=MAX_AUDIO_BYTES)
