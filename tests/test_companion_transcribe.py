"""Voice input over HTTP: ``POST /api/transcribe`` on a real loopback companion.

No model configured (503 naming the fix), a recording over the cap (413), bytes that
are not audio (422, with a model folder configured), wrong media types (415), and a
real round trip through faster-whisper's base model when its pip packages are installed.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer

from cognivault.answer.voice import MAX_AUDIO_BYTES
from cognivault.companion.app import create_app
from cognivault.config import load_settings
from cognivault.engine import Engine

TOKEN = "transcribe-test-token-" + "t" * 32
AUTH = {"Authorization": f"Bearer {TOKEN}"}
EXAMPLE_CLIP = Path(__file__).resolve().parents[1] / "examples" / "vault" / "attachments" / "photosynthesis-summary.ogg"


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("companion-transcribe")
    (root / "vault").mkdir()
    (root / "vault" / "Note.md").write_text("# Note\n\nNothing spoken here.\n", "utf-8")
    return root / "vault"


def _files(vault: Path) -> set[str]:
    return {p.relative_to(vault).as_posix() for p in vault.rglob("*")}


async def _client(vault: Path, whisper_model_dir: str = ""):  # type: ignore[no-untyped-def]
    overrides = {"index": {"index_dir": str(vault.parent / "index"), "whisper_model_dir": whisper_model_dir}}
    settings = load_settings(vault, overrides, environ={})
    engine = Engine(vault, settings, embedder=None)
    client = TestClient(TestServer(create_app(engine, settings, TOKEN, features=[]), host="127.0.0.1"))
    await client.start_server()
    return client, engine


async def _post(client: TestClient, name: str, data: bytes, content_type: str = "application/octet-stream"
                ) -> tuple[int, dict]:
    async with client.post("/api/transcribe", params={"name": name}, data=data,
                           headers={**AUTH, "Content-Type": content_type}) as response:
        return response.status, json.loads(await response.read())


def _stub_model(folder: Path) -> Path:
    """A model folder that passes the presence checks (decoding fails before the model is loaded)."""
    folder.mkdir(exist_ok=True)
    (folder / "model.bin").write_bytes(b"")
    (folder / "config.json").write_text("{}", "utf-8")
    return folder


async def test_no_model_folder_is_503_naming_the_fix(vault: Path) -> None:
    client, engine = await _client(vault)
    before = _files(vault)
    try:
        status, body = await _post(client, "question.wav", b"RIFF....WAVE")
    finally:
        await client.close()
        engine.close()
    assert status == 503 and body["error"]["code"] == "transcription_unavailable"
    message = body["error"]["message"]
    assert "index.whisper_model_dir" in message
    if importlib.util.find_spec("faster_whisper") is not None:
        assert "python -m cognivault.vault.extractors.audio" in message
    else:
        assert "faster-whisper" in message
    assert _files(vault) == before


async def test_over_the_cap_is_413_before_transcribing(vault: Path, tmp_path: Path) -> None:
    client, engine = await _client(vault, str(_stub_model(tmp_path / "whisper")))
    try:
        status, body = await _post(client, "long.wav", b"\0" * (MAX_AUDIO_BYTES + 1), "audio/wav")
        assert status == 413 and body["error"]["code"] == "body_too_large"

        async def chunks():  # no Content-Length: capped while reading
            for _ in range(MAX_AUDIO_BYTES // (1024 * 1024) + 1):
                yield b"\0" * (1024 * 1024)

        async with client.post("/api/transcribe", params={"name": "long.wav"}, data=chunks(),
                               headers={**AUTH, "Content-Type": "audio/wav"}) as response:
            assert response.status == 413
            assert (await response.json())["error"]["code"] == "body_too_large"
    finally:
        await client.close()
        engine.close()


async def test_bytes_that_are_not_audio_are_422_and_wrong_requests_4xx(vault: Path, tmp_path: Path) -> None:
    client, engine = await _client(vault, str(_stub_model(tmp_path / "whisper")))
    try:
        status, body = await _post(client, "question.webm", b"this is a text file, not a recording\n" * 50,
                                   "audio/webm")
        assert status == 422 and body["error"]["code"] == "audio_unreadable"
        assert "not a readable audio file" in body["error"]["message"]
        status, body = await _post(client, "notes.txt", b"plain text")
        assert status == 415 and body["error"]["code"] == "not_audio"
        status, body = await _post(client, "question.wav", b"")
        assert status == 400 and body["error"]["code"] == "empty_audio"
        for media in ("application/json", "multipart/form-data; boundary=x", "text/plain"):
            status, body = await _post(client, "question.wav", b"{}", media)
            assert status == 415 and body["error"]["code"] == "unsupported_media_type", media
            assert "application/octet-stream or audio/*" in body["error"]["message"]
        async with client.post("/api/transcribe", data=b"RIFF", headers=AUTH) as response:
            assert response.status == 400
            assert "'name' is required" in (await response.json())["error"]["message"]
        async with client.get("/api/openapi.json", headers=AUTH) as response:
            operation = (await response.json())["paths"]["/api/transcribe"]["post"]
        assert set(operation["requestBody"]["content"]) == {"application/octet-stream", "audio/*"}
        assert operation["requestBody"]["x-max-bytes"] == MAX_AUDIO_BYTES
        assert "?name=" in operation["description"] and "503" in operation["description"]
        assert [p["name"] for p in operation["parameters"]] == ["name"]
        assert operation["responses"]["200"]["content"]["application/json"]["schema"]["required"] == ["text"]
    finally:
        await client.close()
        engine.close()


@pytest.mark.slow
async def test_a_real_recording_round_trip(vault: Path, whisper_base_model: Path) -> None:
    if not EXAMPLE_CLIP.is_file():
        pytest.skip(f"example clip missing: {EXAMPLE_CLIP}")
    client, engine = await _client(vault, str(whisper_base_model))
    before = _files(vault)
    try:
        status, body = await _post(client, "question.ogg", EXAMPLE_CLIP.read_bytes(), "audio/ogg")
    finally:
        await client.close()
        engine.close()
    assert status == 200, body
    assert body["language"] == "en" and "oxygen" in body["text"].lower()
    assert body["duration_s"] > 1 and body["segments"] and body["segments"][0]["time"].startswith("00:00:")
    assert _files(vault) == before  # nothing recorded in the vault
