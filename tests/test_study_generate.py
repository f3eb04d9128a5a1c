"""Generators: the defensive path with a scripted model, the extractive path on the example vault,
the written notes (frontmatter schema, citations, plugin syntax), prompt overrides, never overwriting."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from cognivault.config import load_settings
from cognivault.engine import Engine
from cognivault.index.scope import Scope
from cognivault.models.chat import ChatCapabilities, ChatChunk, ChatMessage, ChatOptions, ToolSpec
from cognivault.study.cards import parse_cards
from cognivault.study.citations import citation_status, parse_citations, without_cited_links
from cognivault.study.generate import run_generation
from cognivault.study.jsonparse import JSONParseError, items_of, parse_model_json
from cognivault.study.mindmap import parse_mindmap
from cognivault.study.progress import ProgressStore
from cognivault.study.quiz import parse_quiz, score_attempt
from cognivault.study.schema import SchemaError, validate_frontmatter
from cognivault.study.sources import GenerationError, StudyRequest
from cognivault.study.workshop import parse_outline
from cognivault.vault.markdown import read_frontmatter

REPO = Path(__file__).resolve().parents[1]


class ScriptedModel:
    """An in-process ChatProvider test double: replies come from a script, calls are recorded."""

    def __init__(self, *replies: str, name: str = "fake", model: str = "scripted-1") -> None:
        self.replies = list(replies)
        self.calls: list[dict[str, Any]] = []
        self._name, self._model = name, model

    @property
    def name(self) -> str:
        return self._name

    @property
    def model(self) -> str:
        return self._model

    async def capabilities(self) -> ChatCapabilities:
        return ChatCapabilities(schema=True)

    async def stream(self, messages: Sequence[ChatMessage], *, think: bool = False,
                     schema: dict[str, Any] | None = None, tools: Sequence[ToolSpec] | None = None,
                     options: ChatOptions | None = None) -> AsyncIterator[ChatChunk]:
        self.calls.append({"messages": list(messages), "schema": schema})
        reply = self.replies.pop(0)
        for start in range(0, len(reply), 7):  # streamed in small pieces, as a real model does
            yield ChatChunk("text", reply[start:start + 7])
        yield ChatChunk("done")

    async def aclose(self) -> None:
        pass


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory):
    """The example vault's notes (Markdown only, for speed), indexed once for the module."""
    root = tmp_path_factory.mktemp("study")
    vault = root / "vault"
    for note in (REPO / "examples" / "vault").rglob("*.md"):
        target = vault / note.relative_to(REPO / "examples" / "vault")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(note, target)
    settings = load_settings(vault, {"index": {"index_dir": str(root / "index")}}, environ={})
    engine = Engine(vault, settings, embedder=None)
    engine.index()
    yield engine
    engine.close()


def generate(engine: Engine, kind: str, request: StudyRequest, provider: Any = None, **kwargs: Any):  # type: ignore[no-untyped-def]
    return asyncio.run(run_generation(kind, engine, request, provider, **kwargs))


def note_of(engine: Engine, result: Any) -> str:
    return (engine.vault / result.path).read_text("utf-8")


def assert_valid_note(engine: Engine, text: str, kind: str) -> dict[str, Any]:
    frontmatter = read_frontmatter(text)
    validate_frontmatter(frontmatter)
    assert frontmatter["type"] == kind
    citations = parse_citations(text)
    assert citations, "a generated note cites its sources"
    for citation in citations:
        assert citation_status(citation, engine.chunk(citation.chunk_id)) == "ok"
        assert citation.chunk_id in frontmatter["chunk_ids"]
    return frontmatter


CALVIN = StudyRequest(note="Photosynthesis/Calvin cycle.md")


# -- tolerant parsing ------------------------------------------------------------------
@pytest.mark.parametrize("reply,expected", [
    ('{"cards": [{"a": 1}]}', [{"a": 1}]),
    ('[{"a": 1}, {"a": 2}]', [{"a": 1}, {"a": 2}]),
    ('Here you go:\n```json\n{"cards": [{"a": 1}]}\n```\nEnjoy!', [{"a": 1}]),
    ('{"cards": [{"a": 1,}, {"a": 2},],}', [{"a": 1}, {"a": 2}]),
    ('Sure! [{"a": "x, ]"},]', [{"a": "x, ]"}]),
])
def test_tolerant_parsing(reply: str, expected: list[Any]) -> None:
    assert items_of(parse_model_json(reply), ("cards",)) == expected


@pytest.mark.parametrize("reply", ["", "I cannot do that.", '{"cards": [{"a": 1} {"a": 2}]}'])
def test_unreadable_replies(reply: str) -> None:
    with pytest.raises(JSONParseError):
        parse_model_json(reply)


# -- flashcards through the defensive path ---------------------------------------------
CARDS = [
    {"type": "qa", "front": "Which enzyme fixes CO₂?", "back": "RuBisCO", "source": 2},
    {"type": "cloze", "text": "The Calvin cycle takes place in the ==stroma==.", "source": 1},
    {"type": "qa", "front": "What does NADPH do in the reduction step?", "back": "It reduces 3-PGA to G3P.",
     "source": 3},
]


@pytest.mark.parametrize("shape", ["object", "array", "fenced", "trailing-comma"])
def test_flashcards_from_model_output_shapes(indexed: Engine, shape: str) -> None:
    payload = {"object": json.dumps({"cards": CARDS}), "array": json.dumps(CARDS),
               "fenced": "```json\n" + json.dumps({"cards": CARDS}, indent=1) + "\n```",
               "trailing-comma": json.dumps({"cards": CARDS}).replace("}]", "},]")}[shape]
    model = ScriptedModel(payload)
    result = generate(indexed, "flashcards", StudyRequest(note="Calvin cycle", count=3), model)
    text = note_of(indexed, result)
    frontmatter = assert_valid_note(indexed, text, "flashcards")
    assert (result.produced, result.dropped, result.cut) == (3, 0, 0)
    assert frontmatter["provider"] == "fake" and frontmatter["model"] == "scripted-1"
    assert frontmatter["counts"] == {"requested": 3, "produced": 3, "dropped": 0, "cut": 0}
    parsed = parse_cards(text, result.path)
    assert [f.kind for f in parsed.flashcards] == ["basic", "cloze", "basic"]
    assert parsed.flashcards[0].cards[0].front == "Which enzyme fixes CO₂?"
    assert parsed.flashcards[0].decks == [frontmatter["deck"]]
    assert f"#flashcards/{frontmatter['deck']}" in text
    for flashcard in parsed.flashcards:
        assert parse_citations(flashcard.text), "every card ends with its citation"
    prompt = model.calls[0]["messages"][0].content + model.calls[0]["messages"][1].content
    assert "EXACTLY 3" in prompt and "[1] Calvin cycle" in prompt
    assert model.calls[0]["schema"]["required"] == ["cards"]


def test_flashcards_drop_malformed_and_cut_surplus(indexed: Engine) -> None:
    items = CARDS + [
        {"type": "qa", "front": "No back", "source": 1},  # missing field
        {"type": "cloze", "text": "No deletion here.", "source": 1},  # cloze without ==term==
        {"type": "qa", "front": "Bad source", "back": "x", "source": 99},  # no such passage
        "not an object",
        {"type": "qa", "front": "Surplus 1", "back": "y", "source": 1},
        {"type": "qa", "front": "Surplus 2", "back": "z", "source": 1},
    ]
    result = generate(indexed, "flashcards", StudyRequest(note="Calvin cycle", count=4),
                      ScriptedModel(json.dumps({"cards": items})))
    assert (result.produced, result.dropped, result.cut) == (4, 4, 1)
    frontmatter = assert_valid_note(indexed, note_of(indexed, result), "flashcards")
    assert frontmatter["counts"] == {"requested": 4, "produced": 4, "dropped": 4, "cut": 1}


def test_cards_with_separators_in_code_are_written_as_the_plugin_reads_them(indexed: Engine) -> None:
    """A front holding ``::`` in a code span becomes a multi-line card (the plugin takes a line whose first ``::`` is
    in code for no card), "::" in prose reads as ":", code spans stay verbatim; each card reads back as written."""
    items = [{"type": "qa", "front": "What does `std::vector` hold?", "back": "A growable array", "source": 1},
             {"type": "qa", "front": "Which operator reaches a member?", "back": "`a::b`, also `c:::d`", "source": 1},
             {"type": "qa", "front": "Ratio::Scale", "back": "two to one", "source": 1},
             {"type": "cloze", "text": "Write ==`x::y`== for a path.", "source": 1},
             {"type": "cloze", "text": "Type ==a::b== for a path.", "source": 1}]
    result = generate(indexed, "flashcards", StudyRequest(note="Calvin cycle", count=5),
                      ScriptedModel(json.dumps({"cards": items})))
    text = note_of(indexed, result)
    assert (result.produced, result.dropped) == (5, 0)
    parsed = parse_cards(text, result.path).flashcards
    def shown(side: str, flashcard: Any) -> str:
        return without_cited_links(side, parse_citations(flashcard.text))

    assert [(f.kind, [(shown(c.front, f), shown(c.back, f)) for c in f.cards]) for f in parsed] == [
        ("multiline", [("What does `std::vector` hold?", "A growable array")]),
        ("basic", [("Which operator reaches a member?", "`a::b`, also `c:::d`")]),
        ("basic", [("Ratio:Scale", "two to one")]),
        ("cloze", [("Write [...] for a path.", "Write `x::y` for a path.")]),
        ("cloze", [("Type [...] for a path.", "Type a:b for a path.")])]


def test_unreadable_model_output_is_a_clear_error(indexed: Engine) -> None:
    with pytest.raises(GenerationError) as caught:
        generate(indexed, "flashcards", CALVIN, ScriptedModel("I'm sorry, I can't help with that."))
    assert caught.value.code == "model_output_invalid"


def test_nothing_valid_writes_nothing(indexed: Engine) -> None:
    before = set((indexed.vault / "Study").rglob("*.md")) if (indexed.vault / "Study").exists() else set()
    with pytest.raises(GenerationError) as caught:
        generate(indexed, "flashcards", CALVIN, ScriptedModel('{"cards": [{"type": "qa", "source": 1}]}'))
    assert caught.value.code == "nothing_generated" and "1 malformed" in str(caught.value)
    after = set((indexed.vault / "Study").rglob("*.md")) if (indexed.vault / "Study").exists() else set()
    assert before == after


def test_a_users_note_is_never_overwritten(indexed: Engine) -> None:
    study = indexed.vault / "Study"
    study.mkdir(exist_ok=True)
    mine = study / "Flashcards - Limiting factors.md"
    mine.write_text("my own notes\n", "utf-8")
    result = generate(indexed, "flashcards", StudyRequest(note="Limiting factors"), None)
    assert result.path == "Study/Flashcards - Limiting factors 2.md"
    assert mine.read_text("utf-8") == "my own notes\n"


# -- quiz ----------------------------------------------------------------------------------
QUESTIONS = [
    {"type": "mcq", "question": "Where does the Calvin cycle run?", "options": ["Stroma", "Lumen", "Cytoplasm",
     "Nucleus"], "correct_index": 0, "explanation": "It runs in the stroma. It needs ATP.", "source": 1},
    {"type": "tf", "question": "RuBisCO fixes oxygen only.", "options": ["True", "False"], "correct_index": 1,
     "explanation": "RuBisCO mainly fixes CO₂.", "source": 2},
    {"type": "mcq", "question": "Broken index", "options": ["a", "b"], "correct_index": 5, "explanation": "x",
     "source": 1},
    {"type": "mcq", "question": "Repeated options", "options": ["a", "a"], "correct_index": 0,
     "explanation": "x", "source": 1},
    {"type": "mcq", "question": "No explanation", "options": ["a", "b"], "correct_index": 0, "source": 1},
]


def test_quiz_from_model_answers_hidden_and_scored(indexed: Engine, tmp_path: Path) -> None:
    result = generate(indexed, "quiz", StudyRequest(note="Calvin cycle", count=2),
                      ScriptedModel(json.dumps(QUESTIONS)))
    assert (result.produced, result.dropped) == (2, 3)
    text = note_of(indexed, result)
    assert_valid_note(indexed, text, "quiz")
    assert text.count("> [!success]- Answer") == 2  # collapsed callouts hide the answers
    assert "- A) Stroma" in text and "> **A) Stroma**" in text and "> **B) False**" in text
    quiz = parse_quiz(text)
    assert [(q.kind, q.correct_index) for q in quiz.questions] == [("mcq", 0), ("tf", 1)]
    assert quiz.quiz_id == read_frontmatter(text)["quiz_id"]
    assert score_attempt(quiz, ["A", "false"])["score"] == 1.0
    assert score_attempt(quiz, ["b", "True"])["correct"] == 0
    assert score_attempt(quiz, ["1"])["details"][1]["given"] is None


def test_quiz_reads_a_users_edit(indexed: Engine) -> None:
    result = generate(indexed, "quiz", StudyRequest(note="Calvin cycle", count=2),
                      ScriptedModel(json.dumps(QUESTIONS[:2])))
    text = note_of(indexed, result).replace("> **A) Stroma**", "> **B) Lumen**")
    assert score_attempt(parse_quiz(text), ["B", "B"])["correct"] == 2


# -- mind map --------------------------------------------------------------------------------
def test_mindmap_from_model_drops_bad_nodes(indexed: Engine) -> None:
    reply = json.dumps({"central": "Calvin cycle", "branches": [
        {"label": "Carbon fixation", "source": 2, "children": [
            {"label": "RuBisCO (enzyme)", "source": 2, "children": []},
            {"label": "", "source": 2}, {"nolabel": 1}]},
        {"label": "Reduction", "source": 3, "children": [{"label": "G3P made", "children": []}]},
        {"label": "Too many", "source": 1},
    ]})
    result = generate(indexed, "mindmap", StudyRequest(note="Calvin cycle", count=2), ScriptedModel(reply))
    assert (result.produced, result.dropped, result.cut) == (2, 2, 1)
    text = note_of(indexed, result)
    assert_valid_note(indexed, text, "mindmap")
    assert "```mermaid\nmindmap\n  root((Calvin cycle))\n    Carbon fixation\n      RuBisCO enzyme" in text
    tree = parse_mindmap(text)["root"]
    assert tree["label"] == "Calvin cycle"
    assert [c["label"] for c in tree["children"]] == ["Carbon fixation", "Reduction"]
    assert tree["children"][1]["children"][0]["label"] == "G3P made"  # inherits its parent's source
    assert all(c["target"] == "Photosynthesis/Calvin cycle" for c in tree["children"])


# -- workshop ---------------------------------------------------------------------------------
OUTLINE = {"title": "The Calvin cycle step by step", "summary": "Follow carbon from CO₂ to sugar.",
           "lessons": [{"title": "Fixing carbon", "objective": "Explain what RuBisCO does.", "sources": [2]},
                       {"title": "Making sugar", "objective": "Describe the reduction step.", "sources": [3, 1]},
                       {"title": "Broken", "objective": "No sources", "sources": [42]}]}


def test_workshop_outline_retries_once_then_writes(indexed: Engine) -> None:
    model = ScriptedModel("Here is a great workshop plan!", json.dumps(OUTLINE))
    events = ProgressStore(indexed.vault)
    stages: list[str] = []
    result = generate(indexed, "workshop", StudyRequest(note="Calvin cycle", count=2), model,
                      store=events, progress=lambda stage, message: stages.append(stage))
    assert len(model.calls) == 2 and "retry" in stages
    assert "IMPORTANT" in model.calls[1]["messages"][0].content
    text = note_of(indexed, result)
    frontmatter = assert_valid_note(indexed, text, "workshop")
    assert frontmatter["lessons"] == 2 and result.dropped == 1
    outline = parse_outline(text)
    assert [lesson["title"] for lesson in outline.lessons] == ["Fixing carbon", "Making sugar"]
    assert all(lesson["chunk_ids"] for lesson in outline.lessons)
    assert events.events()[-1].data["workshop_id"] == frontmatter["workshop_id"]

    lesson_reply = ("Sure! Here is the lesson:\n```markdown\n# Fixing carbon\n\nRuBisCO attaches CO₂ to RuBP "
                    "[S1]. It is abundant [S1][S9].\n\n## Check yourself\n\n1. What does RuBisCO bind?\n```\n"
                    "I hope this helps! Let me know if you need more.")
    lesson = generate(indexed, "lesson", StudyRequest(), ScriptedModel(lesson_reply), store=events,
                      workshop=result.path, lesson=1)
    assert lesson.path == outline.lessons[0]["target"] + ".md"  # the outline's link now resolves
    lesson_text = note_of(indexed, lesson)
    lesson_frontmatter = assert_valid_note(indexed, lesson_text, "workshop-lesson")
    assert lesson_frontmatter["lesson"] == 1 and lesson_frontmatter["workshop_id"] == frontmatter["workshop_id"]
    body = lesson_text.split("---\n", 2)[2]
    for filler in ("Sure!", "Here is the lesson", "I hope this helps", "Let me know", "```", "[S1]", "[S9]"):
        assert filler not in body
    assert "RuBisCO attaches CO₂ to RuBP [[Photosynthesis/Calvin cycle#Carbon fixation|" in body
    assert events.events()[-1].kind == "lesson_read"


def test_workshop_outline_second_failure_suggests_a_narrower_scope(indexed: Engine) -> None:
    model = ScriptedModel('{"title": "x"}', "still not an outline")
    with pytest.raises(GenerationError) as caught:
        generate(indexed, "workshop", CALVIN, model)
    assert caught.value.code == "outline_failed" and "narrower scope" in str(caught.value)
    assert len(model.calls) == 2


# -- prompts --------------------------------------------------------------------------------------
def test_vault_prompt_override_and_broken_override(indexed: Engine) -> None:
    prompts = indexed.vault / ".cognivault" / "prompts"
    prompts.mkdir(parents=True, exist_ok=True)
    (prompts / "flashcards.md").write_text("## System\nCUSTOM {{count}} cards\n{{sources}}\n## User\nGo.\n",
                                           "utf-8")
    model = ScriptedModel(json.dumps(CARDS[:1]))
    generate(indexed, "flashcards", StudyRequest(note="Calvin cycle", count=1), model)
    assert model.calls[0]["messages"][0].content.startswith("CUSTOM 1 cards")
    (prompts / "flashcards.md").write_text("## System\nno placeholders\n", "utf-8")
    model = ScriptedModel(json.dumps(CARDS[:1]))
    generate(indexed, "flashcards", StudyRequest(note="Calvin cycle", count=1), model)
    assert "EXACTLY 1" in model.calls[0]["messages"][0].content
    shutil.rmtree(prompts)


# -- the extractive path on the example vault ---------------------------------------------------------
@pytest.mark.parametrize("kind", ["flashcards", "quiz", "mindmap", "workshop"])
@pytest.mark.parametrize("request_", [StudyRequest(scope=Scope(folders=["Photosynthesis"])),
                                      StudyRequest(note="Fotosynthese"),
                                      StudyRequest(topic="chlorophyll absorbs light")],
                         ids=["folder", "german-note", "topic"])
def test_extractive_generation(indexed: Engine, kind: str, request_: StudyRequest) -> None:
    result = generate(indexed, kind, request_, None)
    text = note_of(indexed, result)
    frontmatter = assert_valid_note(indexed, text, kind)
    assert frontmatter["provider"] == "extractive" and frontmatter["model"] is None
    # a prose note with one term in bold gives one card: its sections' openings are no questions of their own
    assert result.produced >= (1 if request_.note == "Fotosynthese" and kind in ("flashcards", "quiz") else 2)
    assert not any(p.startswith("Study/") for p in result.source_notes)
    if kind == "flashcards":
        parsed = parse_cards(text, result.path)
        assert len(parsed.flashcards) == result.produced
        assert all(parse_citations(f.text) for f in parsed.flashcards)
        assert all(c.front and c.back for f in parsed.flashcards for c in f.cards)
    elif kind == "quiz":
        quiz = parse_quiz(text)
        assert len(quiz.questions) == result.produced
        assert all(0 <= q.correct_index < len(q.options) for q in quiz.questions)
        assert all(len(set(q.options)) == len(q.options) for q in quiz.questions)
    elif kind == "mindmap":
        assert "```mermaid\nmindmap\n" in text
        assert parse_mindmap(text)["root"]["children"]
    else:
        assert len(parse_outline(text).lessons) == result.produced


def test_extractive_german_note_is_written_in_german(indexed: Engine) -> None:
    result = generate(indexed, "flashcards", StudyRequest(note="Deutsch/Fotosynthese.md"), None)
    text = note_of(indexed, result)
    assert result.title.startswith("Karteikarten") and "Karteikarten aus" in text


def test_extractive_cards_are_definitions_and_clozes(indexed: Engine) -> None:
    result = generate(indexed, "flashcards", StudyRequest(note="Chloroplast", count=20), None)
    parsed = parse_cards(note_of(indexed, result), result.path)
    sides = {(c.front, without_cited_links(c.back, parse_citations(f.text)))
             for f in parsed.flashcards for c in f.cards}
    assert ("What is the stroma?", "The fluid around the thylakoids.") in sides
    assert ("What are stacks of thylakoids called?", "Grana.") in sides
    assert any(f.kind == "cloze" and "==thylakoids==" in f.text for f in parsed.flashcards)


def test_extractive_workshop_lesson(indexed: Engine) -> None:
    workshop = generate(indexed, "workshop", StudyRequest(scope=Scope(folders=["Cells"])), None)
    lesson = generate(indexed, "lesson", StudyRequest(), None, workshop=workshop.path, lesson=2)
    text = note_of(indexed, lesson)
    assert_valid_note(indexed, text, "workshop-lesson")
    assert "## Read" in text and "Back to the workshop" in text


def test_scope_without_matches_is_a_clear_error(indexed: Engine) -> None:
    with pytest.raises(GenerationError) as caught:
        generate(indexed, "quiz", StudyRequest(scope=Scope(folders=["Nope"])), None)
    assert caught.value.code == "empty_scope"
    with pytest.raises(GenerationError):
        generate(indexed, "quiz", StudyRequest(), None)


def test_frontmatter_schema_rejects_bad_documents() -> None:
    good = {"cognivault": 1, "type": "quiz", "title": "Q", "generated_at": "2025-03-10T09:00:00+00:00",
            "provider": "extractive", "model": None,
            "scope": {"note": None, "folders": [], "tags": [], "files": [], "topic": "x", "selection": False},
            "source_notes": ["[[A]]"], "chunk_ids": ["0123456789abcdef"],
            "counts": {"requested": 1, "produced": 1, "dropped": 0}, "quiz_id": "0123456789abcdef"}
    validate_frontmatter(good)
    for broken in ({**good, "quiz_id": None}, {k: v for k, v in good.items() if k != "quiz_id"},
                   {**good, "generated_at": "2025-03-10"}, {**good, "source_notes": ["A"]},
                   {**good, "chunk_ids": ["xyz"]}, {**good, "surprise": 1}, {**good, "type": "essay"}):
        with pytest.raises(SchemaError):
            validate_frontmatter(broken)


def test_citation_status_detects_changed_and_missing_sources(indexed: Engine) -> None:
    record = indexed.store.catalog.chunks_of("Photosynthesis/Calvin cycle.md")[1]
    from cognivault.study.citations import CitedPassage, cite

    text = cite(CitedPassage(record.id, record.path, "Calvin cycle", record.heading_path, record.content_hash))
    [citation] = parse_citations(f"- {text}")
    assert citation.target == "Photosynthesis/Calvin cycle" and citation.heading == "Carbon fixation"
    assert citation_status(citation, record) == "ok"
    stale = parse_citations(text.replace(record.content_hash[:8], "00000000"))[0]
    assert citation_status(stale, record) == "changed"
    assert citation_status(citation, None) == "missing"


# -- end to end through the real Ollama provider, against Ollama's HTTP protocol on loopback ---------------
async def test_quiz_through_the_ollama_provider_over_http(indexed: Engine) -> None:
    """A minimal stand-in for ``ollama serve`` speaking the streaming /api/chat protocol (NDJSON lines)."""
    from aiohttp import web
    from aiohttp.test_utils import TestServer

    from cognivault.models.ollama_chat import OllamaChat

    seen: list[dict[str, Any]] = []
    reply = "```json\n" + json.dumps({"questions": QUESTIONS[:2]}, ensure_ascii=False) + "\n```"

    async def chat(request: web.Request) -> web.StreamResponse:
        body = await request.json()
        seen.append(body)
        response = web.StreamResponse(headers={"Content-Type": "application/x-ndjson"})
        await response.prepare(request)
        for start in range(0, len(reply), 16):
            await response.write((json.dumps({"model": body["model"], "created_at": "2025-03-10T09:00:00Z",
                                              "message": {"role": "assistant", "content": reply[start:start + 16]},
                                              "done": False}) + "\n").encode())
        await response.write((json.dumps({"model": body["model"], "created_at": "2025-03-10T09:00:01Z",
                                          "message": {"role": "assistant", "content": ""}, "done": True,
                                          "done_reason": "stop", "prompt_eval_count": 900, "eval_count": 120})
                              + "\n").encode())
        return response

    app = web.Application()
    app.router.add_post("/api/chat", chat)
    server = TestServer(app, host="127.0.0.1")
    await server.start_server()
    provider = OllamaChat(f"http://127.0.0.1:{server.port}", "gemma4:e4b", timeout_s=10)
    try:
        result = await run_generation("quiz", indexed, StudyRequest(note="Calvin cycle", count=2), provider)
    finally:
        await provider.aclose()
        await server.close()
    assert (result.provider, result.model, result.produced) == ("ollama", "gemma4:e4b", 2)
    assert seen[0]["format"]["required"] == ["questions"] and seen[0]["stream"] is True
    assert "EXACTLY 2" in seen[0]["messages"][0]["content"]
    frontmatter = assert_valid_note(indexed, note_of(indexed, result), "quiz")
    assert frontmatter["provider"] == "ollama" and frontmatter["model"] == "gemma4:e4b"


# -- the shared generator path -------------------------------------------------------------------
@pytest.mark.parametrize("kind,reply,malformed", [
    ("flashcards", {"cards": [{"type": "qa", "front": "No back", "source": 1}, {"type": "cloze", "source": 1}]},
     "2 malformed ones"),
    ("quiz", {"questions": [{"type": "mcq", "question": "Q", "options": ["a"], "correct_index": 0,
                             "explanation": "x", "source": 1}]}, "1 malformed ones"),
    ("mindmap", {"central": "x", "branches": [{"label": "", "source": 1}, {"label": "No source", "source": 77}]},
     "2 malformed nodes"),
])
def test_no_usable_items_is_one_clear_error_for_every_generator(indexed: Engine, kind: str, reply: Any,
                                                                malformed: str) -> None:
    before = sorted((indexed.vault / "Study").rglob("*.md")) if (indexed.vault / "Study").exists() else []
    with pytest.raises(GenerationError) as caught:
        generate(indexed, kind, CALVIN, ScriptedModel(json.dumps(reply)))
    assert caught.value.code == "nothing_generated"
    assert malformed in str(caught.value) and "try another scope" in str(caught.value)
    after = sorted((indexed.vault / "Study").rglob("*.md")) if (indexed.vault / "Study").exists() else []
    assert before == after


@pytest.mark.parametrize("kind", ["flashcards", "quiz", "mindmap"])
def test_unreadable_reply_is_the_same_error_for_every_generator(indexed: Engine, kind: str) -> None:
    with pytest.raises(GenerationError) as caught:
        generate(indexed, kind, CALVIN, ScriptedModel("Sorry, no JSON today."))
    assert caught.value.code == "model_output_invalid" and "narrower scope" in str(caught.value)


def test_fewer_items_than_requested_are_written_with_a_warning(indexed: Engine) -> None:
    stages: list[str] = []
    result = generate(indexed, "quiz", StudyRequest(note="Calvin cycle", count=5),
                      ScriptedModel(json.dumps(QUESTIONS[:2])), progress=lambda stage, _: stages.append(stage))
    assert (result.requested, result.produced) == (5, 2)
    assert result.warnings == ["only 2 of 5 quiz questions could be made from these passages; widen the scope "
                               "for more"]
    assert stages == ["retrieve", "model", "validate", "write"]
    assert read_frontmatter(note_of(indexed, result))["counts"] == {"requested": 5, "produced": 2, "dropped": 0,
                                                                   "cut": 0}
