"""What reading a recording in the reader process costs a user of ``/api/transcribe`` and ``cognivault transcribe``.

On the example clip (9 s of English) and faster-whisper's base model built from its pip packages. Per
round, alternated: ``reader_cold`` is the first recording (the reader process starts, imports FFmpeg and
CTranslate2, loads the model), ``reader_warm`` the next one (the reader and its model kept), and
``in_process_warm`` the same extractor called in this process with its model loaded, as transcription ran
before it moved to the reader. Prints JSON with the medians in seconds.

    PYTHONPATH=server python bench/bench_transcribe.py --rounds 3
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from cognivault.answer import voice
from cognivault.config import IndexSettings
from cognivault.vault.extractors import audio, extract_attachment

CLIP = Path(__file__).resolve().parents[1] / "examples" / "vault" / "attachments" / "photosynthesis-summary.ogg"


def _seconds(run: Callable[[], object]) -> float:
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="cognivault-bench-whisper-") as folder:
        settings = IndexSettings(whisper_model_dir=str(audio.assemble_whisper_model(Path(folder) / "base")))
        times: dict[str, list[float]] = {"reader_cold": [], "reader_warm": [], "in_process_warm": []}
        words = 0
        extract_attachment(CLIP, settings)  # this process's model loaded once, as a long-running server's is
        for _ in range(args.rounds):
            voice.close_reader()
            times["reader_cold"].append(_seconds(lambda: voice.transcribe_file(CLIP, settings)))
            started = time.perf_counter()
            words = len(voice.transcribe_file(CLIP, settings).text.split())
            times["reader_warm"].append(time.perf_counter() - started)
            times["in_process_warm"].append(_seconds(lambda: extract_attachment(CLIP, settings)))
        voice.close_reader()
    print(json.dumps({"clip": CLIP.name, "rounds": args.rounds, "words": words,
                      "load_average": round(os.getloadavg()[0], 1),
                      **{name: round(statistics.median(values), 2) for name, values in times.items()}}, indent=2))


if __name__ == "__main__":
    main()
