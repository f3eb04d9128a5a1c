"""What the word bridge (``cognivault.index.word_bridge``) costs: its vectors' time and the latency it adds.

On the student dev vault (keywords only, no meaning model: the bridge needs none), prints one JSON document:

- ``vocabulary``: the vault's words per language and the seconds their USE-multilingual vectors took, cold (nothing
  cached: the first question asked across languages pays it) and warm (loaded from the file beside the index), per
  1,000 words; and the everyday words of each language the back check compares with (computed once a process);
- ``questions``: keyword search time (p50/p95) with the bridge and without, for the dev questions the search reads
  as asked across languages (most words unknown to the vault: only those are bridged) and for the rest (where the
  bridge is never consulted and adds nothing but the share check);
- ``bridged``: how many of those questions had a word bridged.

    .venv/bin/python bench/bench_word_bridge.py   (needs the multilingual extra)
"""

from __future__ import annotations

import json
import shutil
import time
from typing import Any

from _common import STUDENT_QUESTIONS, STUDENT_VAULT, WORK, emit, isolate_cache, percentiles


def main() -> None:
    isolate_cache("word-bridge", fresh=False)
    from cognivault.engine import Engine
    from cognivault.index import word_bridge
    from cognivault.index.multilingual import MultilingualEncoder, across_languages
    from cognivault.index.word_bridge import WordBridge

    questions = [json.loads(line)["question"] for line in STUDENT_QUESTIONS.read_text("utf-8").splitlines() if line]
    result: dict[str, Any] = {}
    encoder = MultilingualEncoder()
    encoder.encode_batch(["warm"])  # the model's load (1-2 s) is not the bridge's cost
    with Engine(STUDENT_VAULT, embedder=None, multilingual=None, writable=True) as engine:
        engine.index()
        bridge = WordBridge(engine.store, encoder)
        bridge.path.unlink(missing_ok=True)
        started = time.perf_counter()
        for lang in sorted(word_bridge.BRIDGE_LANGUAGES):
            bridge._reference_words(lang)
        reference = time.perf_counter() - started
        references = sum(len(word_bridge._REFERENCE[(lang, word_bridge.REFERENCE_WORDS)][0])
                         for lang in word_bridge.BRIDGE_LANGUAGES)
        bridge.path.unlink(missing_ok=True)
        bridge._cache = None
        started = time.perf_counter()
        tables = bridge._vault_vocabulary()
        cold = time.perf_counter() - started
        bridge._unsaved = True
        bridge._save()
        words = {lang: len(table[0]) for lang, table in tables.items()}
        warm_bridge = WordBridge(engine.store, encoder)
        started = time.perf_counter()
        warm_bridge._vault_vocabulary()
        warm = time.perf_counter() - started
        total = sum(words.values())
        result["vocabulary"] = {
            "words": words, "cold_s": round(cold, 2), "cold_s_per_1k_words": round(1000 * cold / max(total, 1), 2),
            "warm_s": round(warm, 2), "warm_s_per_1k_words": round(1000 * warm / max(total, 1), 2),
            "cache_file_mb": round(bridge.path.stat().st_size / 2**20, 2) if bridge.path.exists() else 0.0,
            "reference_words": references, "reference_s": round(reference, 2)}
        engine.word_bridge = warm_bridge
        lexical = engine.store.lexical
        assert lexical is not None
        timings: dict[str, dict[str, list[float]]] = {"across": {"on": [], "off": []}, "rest": {"on": [], "off": []}}
        bridged = 0
        for question in questions:
            lang = engine.query_language(question).lang
            kind = "across" if across_languages(lexical.read_query(question, lang).unknown_share) else "rest"
            for state, on in (("on", warm_bridge), ("off", None)):
                engine.word_bridge = on
                started = time.perf_counter()
                engine.search(question, k=10, mode="lexical")
                timings[kind][state].append((time.perf_counter() - started) * 1000)
            if kind == "across":
                unheard = word_bridge.unheard_words(lexical, question, lang)
                bridged += bool(warm_bridge.bridge(unheard, lang))
        result["questions"] = {kind: {state: percentiles(samples) if samples else {"n": 0}
                                      for state, samples in by_state.items()} for kind, by_state in timings.items()}
        result["bridged"] = {"across_questions": len(timings["across"]["on"]), "with_a_bridged_word": bridged}
    shutil.rmtree(WORK / "cache" / "word-bridge", ignore_errors=True)
    emit(result)


if __name__ == "__main__":
    main()
