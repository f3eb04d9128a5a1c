"""The answer pipeline end to end on a real (keyword) index with a scripted model."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from answer_support import (
    ScriptedChat,
    WordHashEmbedder,
    answer_citing,
    collect,
    final,
    indexed_vault,  # noqa: F401 - fixture
    kinds,
    make_vault,
    shared_engine,  # noqa: F401 - fixture
    streamed_text,
    text,
    tool_call,
    unreachable,
    vault_settings,
    write_vault,
)
from cognivault.answer.cache import CACHE_FILE, AnswerCache
from cognivault.answer.pipeline import stream_answer
from cognivault.answer.request import AskRequest, Attachment
from cognivault.answer.sessions import SessionStore
from cognivault.index.scope import Scope
from cognivault.models.chat import ChatCapabilities, ChatChunk, ChatError
from cognivault.models.extractive_chat import ExtractiveChat


def ask(engine, question: str, provider, sessions=None, cancel=None, cache=None, **fields):  # noqa: ANN001, ANN201
    request = AskRequest(question, **fields)
    return collect(stream_answer(engine, request, provider, sessions or SessionStore(None), cancel, cache=cache))


async def test_stream_order_and_shape(shared_engine) -> None:  # noqa: ANN001
    provider = ScriptedChat(answer_citing("S1", "S2"))
    envelopes = await ask(shared_engine, "Where does the Calvin cycle run and what does RuBisCO fix?", provider)
    types = kinds(envelopes)
    assert types[0] == "confidence"
    assert "thinking" in types
    done = final(envelopes)
    assert done["type"] == "done"
    data = done["data"]
    assert data["citations"] == ["S1", "S2"]
    assert len(data["chunk_ids"]) == 2 and all(data["chunk_ids"])
    assert data["answer"] == streamed_text(envelopes).strip()
    assert {"retrieval_ms", "first_envelope_ms", "first_text_ms", "total_ms"} <= set(data["timings"])
    # every metadata envelope comes before the first text that cites it
    seen: set[str] = set()
    for envelope in envelopes:
        if envelope["type"] == "metadata":
            seen.add(envelope["data"]["label"])
            assert {"chunk_id", "path", "heading", "line_start", "line_end", "snippet", "score"} <= \
                set(envelope["data"])
        if envelope["type"] == "text":
            for label in ("S1", "S2"):
                if f"[{label}]" in envelope["data"]["text"]:
                    assert label in seen
    assert all(json.dumps(e) for e in envelopes)  # every envelope is JSON
    # phase 1 planned with thinking on; phase 2 answered with it off and with the evidence
    assert provider.calls[0].think is True and provider.calls[1].think is False
    assert "[S1]" in provider.calls[1].system and "Calvin" in provider.calls[1].system


async def test_citations_outside_the_pack_are_dropped(shared_engine) -> None:  # noqa: ANN001
    provider = ScriptedChat(lambda call: text("Sugar is made in the stroma [S1][S1]", " and in Rome [S", "9].",
                                              " See [[Secret note]] and https://evil.example/x."))
    envelopes = await ask(shared_engine, "Where is sugar made in the Calvin cycle?", provider, think=False)
    data = final(envelopes)["data"]
    assert data["citations"] == ["S1"]
    dropped = {(d["label"], d["reason"].split()[0]) for d in data["dropped_citations"]}
    assert ("S9", "not") in dropped and ("S1", "duplicate") in dropped
    assert data["claimed_citations"] == 3
    assert "[S9]" not in data["answer"] and "S9" not in streamed_text(envelopes)
    assert "evil.example" not in data["answer"] and "[[" not in data["answer"]
    assert "Secret note" in data["answer"]
    assert data["links_removed"] == 2


async def test_empty_pack_gives_the_honest_answer_and_never_high(shared_engine) -> None:  # noqa: ANN001
    provider = ScriptedChat(answer_citing("S1"))
    envelopes = await ask(shared_engine, "Who won the 2018 FIFA World Cup final?", provider)
    confidence = next(e for e in envelopes if e["type"] == "confidence")["data"]
    assert confidence["label"] == "low"
    data = final(envelopes)["data"]
    assert data["answered"] is False and data["citations"] == []
    assert "doesn't say" in data["answer"]
    assert provider.calls == []  # nothing to ground an answer in: the model is not asked at all


async def test_weak_pack_is_never_high(shared_engine) -> None:  # noqa: ANN001
    provider = ScriptedChat(answer_citing("S1"))
    envelopes = await ask(shared_engine, "Which emperor built the printing press in Mesopotamia?", provider,
                          think=False)
    confidence = next(e for e in envelopes if e["type"] == "confidence")["data"]
    assert confidence["label"] != "high"
    assert "confidence is **" + confidence["label"] in provider.calls[0].system


async def test_phase_one_failure_still_answers(shared_engine) -> None:  # noqa: ANN001
    def script(call):  # noqa: ANN001, ANN202
        if call.think:
            return [ChatChunk("thinking", "partial "), ChatError("model_unsupported", "no thinking here")]
        return text("Mitochondria make ATP [S1].")

    provider = ScriptedChat(script)
    envelopes = await ask(shared_engine, "What do mitochondria store energy as?", provider)
    data = final(envelopes)["data"]
    assert data["citations"] == ["S1"]
    assert any("thinking phase skipped" in note for note in data["notes"])


async def test_phase_one_is_gated(shared_engine) -> None:  # noqa: ANN001
    provider = ScriptedChat(answer_citing("S1"))
    await ask(shared_engine, "mitochondria?", provider)
    assert [c.think for c in provider.calls] == [False]  # trivial input: no planning phase
    provider = ScriptedChat(answer_citing("S1"))
    greeting = await ask(shared_engine, "Hello!", provider)
    assert provider.calls == [] and final(greeting)["data"]["answered"] is False
    provider = ScriptedChat(answer_citing("S1"), caps=ChatCapabilities(thinking=False, tools=False))
    envelopes = await ask(shared_engine, "What do mitochondria store energy as?", provider)
    assert "thinking" not in kinds(envelopes) and [c.think for c in provider.calls] == [False]


async def test_model_errors_end_in_one_error_envelope(shared_engine) -> None:  # noqa: ANN001
    provider = ScriptedChat(lambda call: [unreachable()])
    envelopes = await ask(shared_engine, "What do mitochondria store energy as?", provider, think=False)
    error = final(envelopes)
    assert error["type"] == "error" and error["data"]["code"] == "model_unreachable"
    assert "ollama serve" in error["data"]["message"]
    provider = ScriptedChat(lambda call: [RuntimeError("boom")])
    error = final(await ask(shared_engine, "What do mitochondria store energy as?", provider, think=False))
    assert error["data"]["code"] == "internal_error"
    provider = ScriptedChat(lambda call: text(""))
    error = final(await ask(shared_engine, "What do mitochondria store energy as?", provider, think=False))
    assert error["data"]["code"] == "model_empty"


@pytest.mark.parametrize("question, code", [("   ", "empty_question"), ("x" * 4001, "question_too_long")])
async def test_input_rules(shared_engine, question: str, code: str) -> None:  # noqa: ANN001
    envelopes = await ask(shared_engine, question, ScriptedChat(answer_citing("S1")))
    assert kinds(envelopes) == ["error"] and envelopes[0]["data"]["code"] == code


async def test_parallel_requests_on_different_scopes_never_mix(shared_engine) -> None:  # noqa: ANN001
    def script(call):  # noqa: ANN001, ANN202
        if call.index == 0 and call.tools:
            return [0.01, tool_call("search_vault", query="empire emperor bread flour glucose"),
                    ChatChunk("done")]
        labels = sorted(set(__import__("re").findall(r"\[(S\d+)\]", call.system)))
        tool_labels = sorted(set(__import__("re").findall(r'"label": "(S\d+)"',
                                                          " ".join(m.content for m in call.messages))))
        pieces = [f"Point [{label}]. " for label in labels + tool_labels]
        return [0.005, *text(*pieces)]

    scopes = {"Biology": "glucose energy", "History": "emperor empire printing", "Cooking": "flour bread"}
    requests = []
    for round_ in range(4):
        for folder, words in scopes.items():
            requests.append((folder, ScriptedChat(script), f"Tell me about {words} ({round_})"))
    results = await asyncio.gather(*(
        ask(shared_engine, question, provider, think=False, scope=Scope(folders=[folder]))
        for folder, provider, question in requests))
    for (folder, _, _), envelopes in zip(requests, results, strict=True):
        data = final(envelopes)["data"]
        assert data["citations"], data
        assert all(source["path"].startswith(f"{folder}/") for source in data["sources"]), (folder, data)
        assert data["tools"] and data["tools"][0]["name"] == "search_vault"
        assert all(e["data"]["path"].startswith(f"{folder}/") for e in envelopes if e["type"] == "metadata")


async def test_tool_loop_calculator_refuses_and_is_bounded(shared_engine) -> None:  # noqa: ANN001
    def script(call):  # noqa: ANN001, ANN202
        if call.tools:
            return [tool_call("calculator", expression="__import__('os').system('echo hi')"),
                    tool_call("calculator", expression="9**9**9"), tool_call("calculator", expression="x + 1"),
                    tool_call("calculator", expression="(500 + 350) * 2"), ChatChunk("done")]
        return text("Done [S1].")

    provider = ScriptedChat(script)
    envelopes = await ask(shared_engine, "How much flour and water for two sourdough loaves?", provider,
                          think=False)
    data = final(envelopes)["data"]
    results = [json.loads(m.content) for m in provider.calls[1].messages if m.role == "tool"]
    assert "not allowed" in results[0]["error"] and "limited" in results[1]["error"]
    assert "names are not allowed" in results[2]["error"] and results[3]["data"]["result"] == 1700
    assert all(r.get("note") or r.get("error") for r in results)
    # the model kept calling tools: the loop stops after MAX_TOOL_STEPS and asks once more without tools
    from cognivault.answer.tools import MAX_TOOL_STEPS

    assert len(provider.calls) == MAX_TOOL_STEPS + 1 and provider.calls[-1].tools is None
    assert data["citations"] == ["S1"]
    assert len(data["tools"]) == MAX_TOOL_STEPS * 4


async def test_tools_read_notes_within_scope_and_their_passages_can_be_cited(shared_engine) -> None:  # noqa: ANN001
    def script(call):  # noqa: ANN001, ANN202
        if call.index == 0:
            return [tool_call("read_note", path="Roman Empire"), tool_call("read_note", path="Sourdough bread"),
                    tool_call("list_notes"), tool_call("current_time"), ChatChunk("done")]
        contents = [json.loads(m.content) for m in call.messages if m.role == "tool"]
        label = contents[0]["data"]["passages"][-1]["label"]
        assert "outside the scope" in contents[1]["error"]
        assert all(n["path"].startswith("History/") for n in contents[2]["data"]["notes"])
        return text(f"Augustus was first [{label}].")

    provider = ScriptedChat(script)
    envelopes = await ask(shared_engine, "Who was the first Roman emperor?", provider, think=False,
                          scope=Scope(folders=["History"]), max_sources=1)
    data = final(envelopes)["data"]
    assert data["citations"] == ["S2"] and data["sources"][0]["path"] == "History/Roman Empire.md"
    assert data["sources"][0]["source"] == "tool"


async def test_cancel_frees_the_model_call_without_waiting_for_it(shared_engine) -> None:  # noqa: ANN001
    provider = ScriptedChat(lambda call: [ChatChunk("text", "Slow [S1] ")] + [600.0])
    cancel = asyncio.Event()
    stream = stream_answer(shared_engine, AskRequest("What do mitochondria store energy as?", think=False),
                           provider, SessionStore(None), cancel)
    envelopes = []
    async with asyncio.timeout(120):  # the model is silent for 600 s: only the cancel ends the answer sooner
        async for envelope in stream:
            envelopes.append(envelope)
            if envelope["type"] == "text":
                cancel.set()
    assert envelopes[-1]["data"]["code"] == "cancelled"
    assert provider.closed == provider.opened == 1


async def test_closing_the_stream_closes_the_model_call(shared_engine) -> None:  # noqa: ANN001
    provider = ScriptedChat(lambda call: [ChatChunk("text", "Slow [S1] ")] + [600.0])
    stream = stream_answer(shared_engine, AskRequest("What do mitochondria store energy as?", think=False),
                           provider, SessionStore(None))
    async for envelope in stream:
        if envelope["type"] == "text":
            break
    async with asyncio.timeout(120):  # the model is silent for 600 s: closing must not wait for it
        await stream.aclose()
    assert provider.closed == 1


async def test_sessions_budget_truncate_follow_up_and_persistence(shared_engine,  # noqa: ANN001
                                                                  tmp_path: Path) -> None:
    sessions = SessionStore(tmp_path / "sessions", token_budget=30)
    provider = ScriptedChat(answer_citing("S1"))
    for question in ("What does a sourdough starter contain?", "How long does the dough rise?",
                     "At what temperature is sourdough baked?"):
        envelopes = await ask(shared_engine, question, provider, sessions, session_id="study-1", think=False)
        final(envelopes)
    memory = next(e for e in envelopes if e["type"] == "memory")["data"]
    assert memory["turns"] == 3 and memory["trimmed_turns"] >= 1 and memory["tokens_used"] <= 30
    # history went to the model, newest turns only, without old labels
    last_call = provider.calls[-1]
    assert [m.role for m in last_call.messages][-1] == "user"
    assert all("[S" not in m.content for m in last_call.messages if m.role == "assistant")
    # a follow-up is resolved against the previous question
    envelopes = await ask(shared_engine, "and in the fridge?", provider, sessions, session_id="study-1",
                          think=False)
    data = final(envelopes)["data"]
    assert data["follow_up"] and "sourdough" in data["resolved_question"].lower()
    fresh = final(await ask(shared_engine, "New topic: who was Augustus?", provider, sessions,
                            session_id="study-1", think=False))["data"]
    assert not fresh["follow_up"] and fresh["question"] == "who was Augustus?"
    # persisted atomically, readable by a new store (an editor restart)
    stored = json.loads((tmp_path / "sessions" / "study-1.json").read_text("utf-8"))
    assert len(stored["turns"]) == 5
    reopened = SessionStore(tmp_path / "sessions")
    assert len(reopened.get("study-1").turns) == 5
    # edit / regenerate: keep 1 turn, then ask; a bad turn number is refused
    envelopes = await ask(shared_engine, "How long does the dough rise?", provider, reopened,
                          session_id="study-1", truncate_to=1, think=False)
    assert final(envelopes)["data"]["turn"] == 1
    assert len(reopened.get("study-1").turns) == 2
    bad = await ask(shared_engine, "Anything?", provider, reopened, session_id="study-1", truncate_to=9)
    assert final(bad)["data"]["code"] == "invalid_turn"
    assert (await reopened.truncate("study-1", 0)).turns == []


async def test_requests_in_one_session_are_serialized(shared_engine) -> None:  # noqa: ANN001
    active = 0
    peak = 0

    def script(call):  # noqa: ANN001, ANN202
        return [ChatChunk("text", "x [S1]"), 0.05, ChatChunk("done")]

    provider = ScriptedChat(script)
    original = provider.stream

    async def counting(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        nonlocal active, peak
        active += 1
        peak = max(peak, active)
        try:
            async for chunk in original(*args, **kwargs):
                yield chunk
        finally:
            active -= 1

    provider.stream = counting  # type: ignore[method-assign]
    sessions = SessionStore(None)
    results = await asyncio.gather(*(ask(shared_engine, f"What is RuBisCO fixing {n}?", provider, sessions,
                                         session_id="one", think=False) for n in range(3)))
    assert peak == 1
    assert sorted(final(r)["data"]["turn"] for r in results) == [0, 1, 2]


async def test_answer_cache_and_index_invalidation(tmp_path: Path) -> None:
    from cognivault.engine import Engine

    vault, settings = make_vault(tmp_path)
    cache = AnswerCache()
    provider = ScriptedChat(answer_citing("S1"))
    with Engine(vault, settings, embedder=None) as engine:
        first_envelopes = await ask(engine, "What does a sourdough starter contain?", provider, cache=cache,
                                    think=False)
        first = final(first_envelopes)["data"]
        second_envelopes = await ask(engine, "what does a  sourdough starter contain?", provider, cache=cache,
                                     think=False)
        second = final(second_envelopes)["data"]
        assert second["cached"] and second["answer"] == first["answer"] and len(provider.calls) == 1
        assert kinds(second_envelopes) == kinds(first_envelopes)
        assert streamed_text(second_envelopes) == streamed_text(first_envelopes)
        other_scope = final(await ask(engine, "What does a sourdough starter contain?", provider, cache=cache,
                                      think=False, scope=Scope(folders=["Cooking"])))["data"]
        assert not other_scope["cached"]
        (vault / "Cooking" / "Sourdough bread.md").write_text(
            "# Sourdough bread\n\nA sourdough starter contains rye flour, water and patience, and it is "
            "fed every morning before breakfast with fresh flour.\n", "utf-8")
        engine.index()
        third = final(await ask(engine, "What does a sourdough starter contain?", provider, cache=cache,
                                think=False))["data"]
        assert not third["cached"] and len(provider.calls) == 3


async def test_answer_cache_persists_per_vault_and_any_index_change_invalidates_it(tmp_path: Path) -> None:
    from cognivault.engine import Engine

    vault, settings = make_vault(tmp_path)
    provider = ScriptedChat(answer_citing("S1"))
    question = "What does a sourdough starter contain?"
    with Engine(vault, settings, embedder=None) as writer:
        first = final(await ask(writer, question, provider, cache="vault", think=False))["data"]
        stored = writer.index_dir / CACHE_FILE
        assert not first["cached"] and stored.is_file()
        # A second engine with its own cache object (as in another process) answers from the file.
        reader = Engine(vault, settings, embedder=None, writable=False)
        try:
            again = final(await ask(reader, question, provider, cache=AnswerCache(path=stored), think=False))["data"]
            assert again["cached"] and again["answer"] == first["answer"] and len(provider.calls) == 1
            (vault / "Cooking" / "Sourdough bread.md").write_text(
                "# Sourdough bread\n\nA sourdough starter contains rye flour and water, fed every morning.\n",
                "utf-8")
            writer.index()  # a change made by the other engine invalidates what this one stored
            after = final(await ask(reader, question, provider, cache=AnswerCache(path=stored), think=False))["data"]
            assert not after["cached"] and len(provider.calls) == 2
        finally:
            reader.close()
        kept = json.loads(stored.read_text("utf-8"))["entries"]
        assert [entry["generation"] for entry in kept] == [writer.store.catalog.generation()]  # old ones dropped


async def test_extractive_provider_answers_from_the_pack(shared_engine) -> None:  # noqa: ANN001
    envelopes = await ask(shared_engine, "When did the Western Roman Empire end?", ExtractiveChat())
    data = final(envelopes)["data"]
    assert data["answered"] and data["provider"] == "extractive"
    assert "476" in data["answer"]
    assert all(s["path"] == "History/Roman Empire.md" for s in data["sources"][:1])
    again = final(await ask(shared_engine, "When did the Western Roman Empire end?", ExtractiveChat()))["data"]
    assert again["answer"] == data["answer"]  # deterministic
    german = final(await ask(shared_engine, "Wer hat die Fußball-Weltmeisterschaft 2014 gewonnen?",
                             ExtractiveChat()))["data"]
    assert not german["answered"] and ("Vault" in german["answer"] or "vault" in german["answer"])


async def test_confidence_uses_meaning_where_the_embedder_knows_the_language(tmp_path: Path) -> None:
    from cognivault.answer.retrieval import build_pack
    from cognivault.engine import Engine

    vault = write_vault(tmp_path / "vault")
    with Engine(vault, vault_settings(tmp_path / "index"), embedder=WordHashEmbedder()) as engine:
        engine.index()
        english, lang = build_pack(engine, "When did the Western Roman Empire end?")
        assert lang == "en" and english.question_vector is not None
        assert all(item.similarity is not None for item in english.items)
        top = max(english.items, key=lambda item: item.similarity or 0.0)
        assert top.path == "History/Roman Empire.md"
        german, lang = build_pack(engine, "Wie lange backt ein Roggenbrot von einem Kilogramm?")
        assert lang == "de" and german.question_vector is None  # English-only model: words decide alone
        assert all(item.similarity is None for item in german.items)
        words, _ = build_pack(engine, "When did the Western Roman Empire end?", mode="lexical")
        assert words.question_vector is None and all(item.similarity is None for item in words.items)
        envelopes = await ask(engine, "When did the Western Roman Empire end?", ScriptedChat(answer_citing("S1")))
    shown = next(e["data"] for e in envelopes if e["type"] == "confidence")
    assert shown["similarity"] == pytest.approx(max(item.similarity for item in english.items), abs=1e-3)


class HeldEmbedder(WordHashEmbedder):
    """Embeds (what the quote choice asks of it) only once ``release`` is set."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.calls = 0

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        assert self.release.wait(120), "the quote choice was held until a first envelope that never came"
        return super().embed_documents(texts)


async def test_the_first_envelope_waits_for_retrieval_only_and_the_quotes_label_comes_before_their_text(
        tmp_path: Path) -> None:
    """The rule's confidence is sent as soon as retrieval is done, while the quotes are still being chosen (the
    keyword pack's first, answer/words_first.py: no embedding model's work for a question keywords answer); the label
    they cap it to is sent before their text and is the done's."""
    from cognivault.engine import Engine

    vault = write_vault(tmp_path / "vault")
    with Engine(vault, vault_settings(tmp_path / "index"), embedder=WordHashEmbedder()) as engine:
        engine.index()
        held = HeldEmbedder()
        envelopes = []
        async for envelope in stream_answer(engine, AskRequest("When did the Western Roman Empire end?",
                                                               use_cache=False),
                                            ExtractiveChat(held), SessionStore(None), cache=None):
            envelopes.append(envelope)
            held.release.set()  # the quote choice goes on only once the first envelope is out
    types = kinds(envelopes)
    assert types[0] == "confidence" and envelopes[0]["data"]["answer_share"] is None  # by rule, no quotes yet
    assert not held.calls, "keywords answer it: its quotes were not re-ranked by meaning"
    shown = [e["data"] for e in envelopes if e["type"] == "confidence"]
    done = final(envelopes)["data"]
    assert len(shown) == 2 and types.index("text") > types.index("confidence", 1)
    assert shown[-1]["answer_share"] is not None and shown[-1]["label"] == done["confidence"]
    assert "476" in done["answer"]


OFF_TOPIC_NOTES = {
    "Deutsch/Gasaustausch im Blatt.md": """---
lang: de
---
# Gasaustausch im Blatt

## Wie gelangt CO2 in das Blatt?

Kohlenstoffdioxid gelangt durch die Spaltöffnungen (Stomata) in das Blatt. Sie liegen vor allem in der
unteren Epidermis. Jede Spaltöffnung wird von zwei Schließzellen begrenzt, die den Spalt öffnen und schließen.

## Öffnen und Schließen

Bei Licht pumpen die Schließzellen Kaliumionen in ihre Vakuole, Wasser strömt nach, und der Spalt öffnet sich.
""",
    "Start here.md": """# Start here: photosynthesis and the plant cell

This example vault is a small study topic: how plants turn light into chemical energy.

## Materials

| File | What it is |
|---|---|
| [[elodea-rates.xlsx]] | Class results: light intensity and CO2 against rate |
| [[how-leaves-take-in-co2.html]] | Saved web article on stomata and CO2 uptake |

> [!tip] How to use this vault
> Ask a question such as "how do plants turn light into chemical energy?" or
> "Wie gelangt CO2 in das Blatt?" and follow the citations back to the notes.
""",
    "Photosynthesis.md": """# Photosynthesis

Photosynthesis turns light energy into chemical energy stored in glucose, using water and carbon dioxide.
The Calvin cycle fixes carbon dioxide in the stroma of the chloroplast.
""",
}


async def test_a_question_in_another_language_names_no_function_words_as_missing(tmp_path: Path) -> None:
    from cognivault.engine import Engine

    vault, settings = make_vault(tmp_path, {"Photosynthesis.md": OFF_TOPIC_NOTES["Photosynthesis.md"]})
    with Engine(vault, settings, embedder=None) as engine:  # an English vault, asked in German
        envelopes = await ask(engine, "Wie funktioniert die Glykolyse in einer Zelle?", ExtractiveChat())
    reason = next(e for e in envelopes if e["type"] == "confidence")["data"]["reason"]
    assert "never mentions" in reason, reason
    named = reason.split("never mentions:", 1)[1].replace(",", " ").split()
    assert "glykolyse" in named and not {"wie", "die", "einer"} & set(named), reason


async def test_extractive_answer_appends_no_off_topic_sentence(tmp_path: Path) -> None:
    from cognivault.engine import Engine

    vault, settings = make_vault(tmp_path, OFF_TOPIC_NOTES)
    with Engine(vault, settings, embedder=None) as engine:
        data = final(await ask(engine, "Wie gelangt CO2 in das Blatt?", ExtractiveChat()))["data"]
    assert data["answered"] and "Spaltöffnungen" in data["answer"]
    # The overview note quotes the question and lists a CO2 file: neither answers it.
    assert {s["path"] for s in data["sources"]} == {"Deutsch/Gasaustausch im Blatt.md"}
    assert "Ask a question" not in data["answer"] and "CO2 uptake" not in data["answer"]


async def test_text_attachment_is_cited_like_a_passage(shared_engine) -> None:  # noqa: ANN001
    notes = Attachment("lecture.md", b"Lecture 7. The mitochondrial ribosome is 55S in mammals, smaller "
                                     b"than the cytosolic 80S ribosome, and it builds proteins of the "
                                     b"electron transport chain.")
    provider = ScriptedChat(lambda call: text("The mitochondrial ribosome is 55S [S1]."))
    envelopes = await ask(shared_engine, "How large is the mitochondrial ribosome?", provider, think=False,
                          attachments=[notes])
    data = final(envelopes)["data"]
    assert data["sources"][0]["source"] == "attachment" and data["sources"][0]["path"] == "lecture.md"
    assert "55S" in provider.calls[0].system
    too_many = await ask(shared_engine, "Which?", provider, attachments=[notes] * 5)
    assert final(too_many)["data"]["code"] == "too_many_attachments"
    wrong = await ask(shared_engine, "Which?", provider, attachments=[Attachment("x.exe", b"MZ")])
    assert final(wrong)["data"]["code"] == "attachment_type"


async def test_vault_prompt_override_and_broken_override(tmp_path: Path) -> None:
    from cognivault.engine import Engine

    vault, settings = make_vault(tmp_path)
    prompts = vault / ".cognivault" / "prompts"
    prompts.mkdir(parents=True)
    (prompts / "answer.md").write_text("## System\nPIRATE MODE {{confidence}}\n{{evidence}}\n## User\n"
                                       "Q: {{question}}\n", "utf-8")
    provider = ScriptedChat(answer_citing("S1"))
    with Engine(vault, settings, embedder=None) as engine:
        await ask(engine, "What does a sourdough starter contain?", provider, think=False)
        assert provider.calls[-1].system.startswith("PIRATE MODE")
        assert provider.calls[-1].user == "Q: What does a sourdough starter contain?"
        (prompts / "answer.md").write_text("## System\nno placeholders at all\n", "utf-8")
        await ask(engine, "What does a sourdough starter contain at night?", provider, think=False)
        assert "PIRATE" not in provider.calls[-1].system and "[S1]" in provider.calls[-1].system


async def test_summarize_and_compare_tools(shared_engine) -> None:  # noqa: ANN001
    def script(call):  # noqa: ANN001, ANN202
        if call.index == 0:
            return [tool_call("summarize_note", path="Biology/Photosynthesis.md"),
                    tool_call("compare_notes", a="Photosynthesis", b="Mitochondria", question="How is ATP made?"),
                    tool_call("read_note", path="../../etc/passwd"), tool_call("no_such_tool"), ChatChunk("done")]
        results = [json.loads(m.content) for m in call.messages if m.role == "tool"]
        summary, comparison, escape, unknown = results
        assert summary["data"]["outline"][0] == "# Photosynthesis" and summary["data"]["points"][0]["label"]
        assert comparison["data"]["a"]["path"] == "Biology/Photosynthesis.md"
        assert comparison["data"]["b"]["passages"] and "atp" in comparison["data"]["question_terms_in_both"]
        assert "no indexed note" in escape["error"] and "unknown tool" in unknown["error"]
        label = comparison["data"]["b"]["passages"][0]["label"]
        return text(f"Both make ATP [{label}].")

    provider = ScriptedChat(script)
    data = final(await ask(shared_engine, "How do photosynthesis and respiration make ATP?", provider,
                           think=False))["data"]
    assert data["sources"] and data["sources"][0]["path"] == "Biology/Mitochondria.md"
    assert [t["ok"] for t in data["tools"]] == [True, True, False, False]


async def test_images_go_to_a_vision_model(shared_engine) -> None:  # noqa: ANN001
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), "white").save(buffer, format="PNG")
    photo = Attachment("board.png", buffer.getvalue())
    provider = ScriptedChat(lambda call: text("A blank whiteboard; glucose is made in chloroplasts [S1]."),
                            caps=ChatCapabilities(vision=True))
    data = final(await ask(shared_engine, "What does this photo show about glucose?", provider,
                           attachments=[photo]))["data"]
    assert data["citations"] == ["S1"]
    user = provider.calls[0].messages[-1]
    assert user.role == "user" and user.images == [photo.data]
    assert user.to_ollama()["images"][0]  # base64 for Ollama


async def test_document_attachment_goes_through_the_extractors(shared_engine, tmp_path: Path) -> None:  # noqa: ANN001
    docx = pytest.importorskip("docx")
    document = docx.Document()
    document.add_paragraph("Protocol 12: the centrifuge must spin at 4000 rpm for ten minutes before the "
                           "supernatant is removed and the pellet washed twice with buffer.")
    path = tmp_path / "protocol.docx"
    document.save(str(path))
    provider = ScriptedChat(lambda call: text("Spin at 4000 rpm [S1]."))
    data = final(await ask(shared_engine, "How fast must the centrifuge spin?", provider, think=False,
                           attachments=[Attachment.from_path(path)]))["data"]
    assert data["sources"][0]["source"] == "attachment" and "4000 rpm" in provider.calls[0].system
    broken = Attachment("broken.docx", b"PK\x03\x04 not really a zip")
    error = final(await ask(shared_engine, "How fast?", provider, attachments=[broken]))
    assert error["data"]["code"] == "attachment_unreadable"


async def test_a_document_attachment_is_read_in_the_indexers_worker_not_here(shared_engine, tmp_path: Path,  # noqa: ANN001
                                                                           monkeypatch) -> None:
    """Issue 28: attachments to a question were extracted in the answering process, past the indexer's
    limits (a 760 KB PPTX bomb took the companion past 6 GB). They are read by the indexer's worker, with
    its memory and time limits: nothing is extracted in this process."""
    from cognivault.index import isolation
    from cognivault.vault import extractors

    def not_here(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("an attachment was extracted in the answering process")

    monkeypatch.setattr(extractors, "extract_attachment", not_here)
    started = []
    real_start = isolation.IsolatedExtractor._start_worker

    def start(self):  # type: ignore[no-untyped-def]
        child = real_start(self)
        started.append(child.process)
        return child

    monkeypatch.setattr(isolation.IsolatedExtractor, "_start_worker", start)
    page = ("<html><body><h1>Protocol</h1><p>The centrifuge must spin at 4000 rpm for ten minutes before the "
            "supernatant is removed and the pellet washed twice with buffer.</p></body></html>")
    provider = ScriptedChat(lambda call: text("Spin at 4000 rpm [S1]."))
    data = final(await ask(shared_engine, "How fast must the centrifuge spin?", provider, think=False,
                           attachments=[Attachment("protocol.html", page.encode("utf-8"))]))["data"]
    assert data["sources"][0]["source"] == "attachment" and "4000 rpm" in provider.calls[0].system
    (worker,) = started
    assert worker is not None and not worker.is_alive()  # its own process, ended with the question
