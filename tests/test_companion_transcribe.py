"""Voice input over HTTP: ``POST /api/transcribe`` on a real loopback companion.

No model configured (503 naming the fix), a recording over the cap (413), bytes that
are not audio (422, with a model folder configured), wrong media types (415), a reader
that crashes on a recording (422 naming the signal, and the next recording is read), the
serving process never mapping FFmpeg or CTranslate2, and a real round trip through
faster-whisper's base model when its pip packages are installed.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer

from cognivault.answer.voice import MAX_AUDIO_BYTES
from cognivault.companion.app import create_app
from cognivault.config import load_settings
from cognivault.engine import Engine
from crashing_reader import CRASH_MARKER, crashing_reader  # noqa: F401 - the fixture

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


needs_faster_whisper = pytest.mark.skipif(importlib.util.find_spec("faster_whisper") is None,
                                          reason="faster-whisper not installed (the audio extra)")


@needs_faster_whisper
async def test_a_reader_that_crashes_fails_that_recording_and_the_server_reads_the_next(
        vault: Path, tmp_path: Path, crashing_reader: None) -> None:  # noqa: F811 - the fixture
    client, engine = await _client(vault, str(_stub_model(tmp_path / "whisper")))
    try:
        status, body = await _post(client, "question.wav", b"RIFF" + CRASH_MARKER, "audio/wav")
        assert status == 422 and body["error"]["code"] == "audio_unreadable"
        assert body["error"]["message"] == "the audio could not be transcribed: the reader crashed (signal 11)"
        status, body = await _post(client, "question.webm", b"this is not a recording\n" * 50, "audio/webm")
        assert status == 422 and "not a readable audio file" in body["error"]["message"]  # a fresh reader
    finally:
        await client.close()
        engine.close()


def _libraries_mapped_by_a_transcribing_process(model_dir: Path, audio: Path) -> tuple[str, str]:
    """(what transcribing ``audio`` gave, the process's /proc/self/maps) in a fresh process: the test
    process may have loaded these libraries itself for other tests."""
    script = (
        "import pathlib, sys\n"
        "from cognivault.answer import voice\n"
        "from cognivault.config import IndexSettings\n"
        "try:\n"
        "    print(voice.transcribe_file(pathlib.Path(sys.argv[2]), IndexSettings(whisper_model_dir=sys.argv[1]))"
        ".text)\n"
        "except voice.TranscribeError as exc:\n"
        "    print(exc.code)\n"
        "print(pathlib.Path('/proc/self/maps').read_text())\n")
    done = subprocess.run([sys.executable, "-c", script, str(model_dir), str(audio)], capture_output=True,
                          text=True, timeout=120, env={**os.environ})
    assert done.returncode == 0, done.stderr
    first, _, maps = done.stdout.partition("\n")
    return first, maps


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="needs /proc (Linux)")
@needs_faster_whisper
def test_the_serving_process_never_maps_ffmpeg(tmp_path: Path) -> None:
    not_audio = tmp_path / "question.webm"
    not_audio.write_bytes(b"this is not a recording\n" * 50)
    outcome, maps = _libraries_mapped_by_a_transcribing_process(_stub_model(tmp_path / "whisper"), not_audio)
    assert outcome == "audio_unreadable"  # FFmpeg read it (in the reader) and said so
    assert "libavformat" not in maps and "libavcodec" not in maps


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="needs /proc (Linux)")
def test_the_serving_process_never_maps_ctranslate2(whisper_base_model: Path) -> None:
    if not EXAMPLE_CLIP.is_file():
        pytest.skip(f"example clip missing: {EXAMPLE_CLIP}")
    text, maps = _libraries_mapped_by_a_transcribing_process(whisper_base_model, EXAMPLE_CLIP)
    assert "oxygen" in text.lower()  # transcribed, in the reader: OMP_THREAD_LIMIT=1 there left it empty
    assert "ctranslate2" not in maps.lower() and "libavcodec" not in maps


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
