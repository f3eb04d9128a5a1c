"""Passage answers a student can use: blocks quoted whole, German read as German, the user's own notes,
and a model that loops or cites nothing never shown as the answer (Ollama faked over real HTTP)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from answer_support import ScriptedChat, collect, final, kinds, make_vault, streamed_text, text
from cognivault.answer.evaluation import nuggets_stated, reliability_table
from cognivault.answer.evidence import question_concepts
from cognivault.answer.pipeline import stream_answer
from cognivault.answer.repetition import LoopGuard
from cognivault.answer.request import AskRequest
from cognivault.answer.sessions import SessionStore
from cognivault.cli import main
from cognivault.engine import Engine
from cognivault.index.scope import Scope
from cognivault.models.extractive_chat import ExtractiveChat
from cognivault.models.ollama_chat import OllamaChat
from cognivault.vault.markdown import split_blocks
from fake_ollama import FakeOllama

FENCE = "```"
NOTES = {
    "Linking/Embedding notes.md": f"""# Embedding notes

An embedded note shows the content of another note inside the current one and stays up to date.

## Embed a note

To embed a note:

{FENCE}md
![[Meeting notes]]
{FENCE}

You can also embed one heading of a note with `![[Meeting notes#Agenda]]`.

## Embed settings

- **Embed height**: how tall an embedded note may grow, in pixels, before it scrolls.
- **Show embed title**: shows the embedded note's name above its content.

| Shortcut | Action |
|---|---|
| `Ctrl+E` | Toggle the reading view |
| `Ctrl+Shift+M` | Embed the selected note |
""",
    "Biologie/Mitochondrien.md": """---
lang: de
---
# Mitochondrien

Mitochondrien sind die Kraftwerke der Zelle. In ihnen wird bei der Zellatmung ATP produziert, der
Energieträger, den fast alle Stoffwechselwege der Zelle verbrauchen.

## Aufbau

Ein Mitochondrium hat eine äußere und eine stark gefaltete innere Membran; die Falten heißen Cristae.
""",
    "History/Printing press.md": """# Printing press

Johannes Gutenberg built a printing press with movable metal type in Mainz around 1450. His Bible,
printed by 1455, was the first major book made that way in Europe.
""",
    "Study/Quiz - Embedding notes.md": """---
cognivault: 1
type: quiz
source_notes:
  - "[[Embedding notes]]"
---
# Quiz: Embedding notes

1. Which syntax embeds one note in another one?
   A) ![[Note]] B) [[Note]] C) #Note D) %%Note%%
   Answer: A, to embed a note put an exclamation mark before the link of the note to embed.
""",
}


def vault_engine(name: str, notes: dict[str, str]) -> Any:
    """A module-scoped fixture ``name``: a keyword-only engine over a vault of ``notes``."""
    @pytest.fixture(scope="module", name=name)
    def opened_engine(tmp_path_factory: pytest.TempPathFactory) -> Any:
        vault, settings = make_vault(tmp_path_factory.mktemp(name), notes)
        with Engine(vault, settings, embedder=None, writable=False) as opened:
            yield opened

    return opened_engine


engine = vault_engine("engine", NOTES)


def ask(engine: Any, question: str, provider: Any, **fields: Any) -> Any:
    return collect(stream_answer(engine, AskRequest(question, use_cache=False, **fields), provider,
                                 SessionStore(None), cache=None))


def test_blocks_come_from_the_markdown_reader() -> None:
    body = NOTES["Linking/Embedding notes.md"]
    blocks = split_blocks(body)
    assert [b.kind for b in blocks] == ["heading", "paragraph", "heading", "paragraph", "code", "paragraph",
                                        "heading", "item", "item", "table"]
    code = blocks[4]
    assert code.text == f"{FENCE}md\n![[Meeting notes]]\n{FENCE}" and code.closed
    assert blocks[7].group == blocks[8].group and blocks[7].text.startswith("- **Embed height**")
    assert not split_blocks(f"{FENCE}py\nprint(1)\n")[0].closed  # a passage cut inside a fence


async def test_how_do_i_embed_a_note_states_the_syntax_verbatim(engine: Any) -> None:
    envelopes = await ask(engine, "How do I embed a note?", ExtractiveChat())
    data = final(envelopes)["data"]
    assert data["answered"] and "![[Meeting notes]]" in data["answer"]
    assert f"To embed a note:\n\n{FENCE}md\n![[Meeting notes]]\n{FENCE}" in data["answer"]  # the block whole
    assert data["answer"].count(FENCE) % 2 == 0
    assert {s["path"] for s in data["sources"]} == {"Linking/Embedding notes.md"}  # not the generated quiz
    assert streamed_text(envelopes).strip() == data["answer"]
    assert len(data["answer"]) <= 700


async def test_list_items_and_table_rows_are_quoted_whole(engine: Any) -> None:
    data = final(await ask(engine, "What does the embed height setting do?", ExtractiveChat()))["data"]
    assert "- **Embed height**: how tall an embedded note may grow, in pixels, before it scrolls." in data["answer"]
    row = final(await ask(engine, "Which shortcut embeds the selected note?", ExtractiveChat()))["data"]
    assert "| Shortcut | Action |\n|---|---|\n| `Ctrl+Shift+M` | Embed the selected note |" in row["answer"]


async def test_german_inflection_is_not_a_refusal_and_reasons_use_the_users_words(engine: Any) -> None:
    envelopes = await ask(engine, "Was produzieren Mitochondrien?", ExtractiveChat())
    data = final(envelopes)["data"]
    assert data["answered"] and "ATP produziert" in data["answer"]
    assert data["confidence"] != "low"
    weak = next(e["data"] for e in await ask(engine, "Was produzieren Mitochondrien in Pilzhyphen?",
                                              ExtractiveChat()) if e["type"] == "confidence")
    assert "pilzhyphen" in weak["missing"] and "pilzhyphen" in weak["reason"]
    assert all(" " in word or word in "was produzieren mitochondrien in pilzhyphen" for word in weak["missing"])


@pytest.mark.parametrize("question", ["Woraus besteht ein Mitochondrium?", "Wozu dienen die Cristae?",
                                      "Wo findet die Zellatmung statt?"])
async def test_a_german_verb_the_vault_never_uses_is_no_refusal(engine: Any, question: str) -> None:
    # German writes every noun capitalised: the lowercase words the vault never uses ("besteht", "dienen",
    # "findet ... statt") ask something about the nouns it has, they do not make the question off-topic.
    data = final(await ask(engine, question, ExtractiveChat()))["data"]
    assert data["answered"] and {s["path"] for s in data["sources"]} == {"Biologie/Mitochondrien.md"}


SEPARABLE_NOTES = {"Papierkorb.md": """---
lang: de
---
# Papierkorb

Gelöschte Notizen kannst du aus dem Papierkorb wiederherstellen, solange er nicht geleert ist.

## Ordner

Einen neuen Ordner legst du im Dateiexplorer an. Über das Kontextmenü kannst du Notizen in einen Ordner verschieben.
"""}
separable_engine = vault_engine("separable_engine", SEPARABLE_NOTES)


@pytest.mark.parametrize(("question", "verb"), [("Wie stelle ich eine gelöschte Notiz wieder her?", "stelle"),
                                                ("Stellt der Papierkorb gelöschte Notizen wieder her?", "stellt")])
async def test_a_german_verb_with_its_particle_apart_is_the_whole_verb(separable_engine: Any, question: str,
                                                                       verb: str) -> None:
    # "stelle ... wieder her" is what the note calls "wiederherstellen": found, not named as missing
    envelopes = await ask(separable_engine, question, ExtractiveChat())
    confidence = next(e["data"] for e in envelopes if e["type"] == "confidence")
    assert final(envelopes)["data"]["answered"] and verb in confidence["covered"], confidence


@pytest.mark.parametrize(("question", "note"), [
    ("What does an embedded note consist of?", "Linking/Embedding notes.md"),
    ("Where did Gutenberg invent the printing press?", "History/Printing press.md")])
async def test_an_english_main_verb_the_vault_never_uses_is_no_refusal(engine: Any, question: str,
                                                                      note: str) -> None:
    # the verb's place after "do"/"did" and the subject shows it is what is asked about the subject, not a topic
    data = final(await ask(engine, question, ExtractiveChat()))["data"]
    assert data["answered"] and note in {s["path"] for s in data["sources"]}


@pytest.mark.parametrize(("question", "note"), [
    ("Was ist die Aufgabe der Mitochondrien?", "Biologie/Mitochondrien.md"),
    ("What is the role of movable metal type in the printing press?", "History/Printing press.md"),
    ("What is the purpose of an embedded note?", "Linking/Embedding notes.md")])
async def test_a_noun_framing_the_question_the_vault_never_uses_is_no_refusal(engine: Any, question: str,
                                                                             note: str) -> None:
    # "the role of", "die Aufgabe der" frame what is asked about the things the question names
    data = final(await ask(engine, question, ExtractiveChat()))["data"]
    assert data["answered"] and note in {s["path"] for s in data["sources"]}


async def test_a_question_on_a_thing_the_vault_never_names_is_still_refused(engine: Any) -> None:
    for question, thing in (("Wo findet die Weltmeisterschaft statt?", "weltmeisterschaft"),
                            ("What is the role of quasars in the printing press?", "quasars"),
                            ("Woraus besteht ein Quasar?", "quasar"), ("What do quasars emit?", "quasars"),
                            ("How do I configure a replication slot in PostgreSQL?", "postgresql")):
        envelopes = await ask(engine, question, ExtractiveChat())
        confidence = next(e["data"] for e in envelopes if e["type"] == "confidence")
        assert not final(envelopes)["data"]["answered"], question
        assert confidence["label"] == "low" and thing in confidence["reason"]


async def test_generated_notes_enter_only_when_the_scope_names_them(engine: Any) -> None:
    data = final(await ask(engine, "How do I embed a note in another note?", ExtractiveChat()))["data"]
    assert data["sources"] and all(not s["path"].startswith("Study/") for s in data["sources"])
    scoped = final(await ask(engine, "How do I embed a note in another note?", ExtractiveChat(),
                             scope=Scope(folders=["Study"])))["data"]
    assert {s["path"] for s in scoped["sources"]} == {"Study/Quiz - Embedding notes.md"}


@pytest.mark.parametrize("looping", ["Theft: " * 40, "1. Theft 2. Theft 3. Theft 4. Theft " * 12, "!" * 200])
def test_loop_guard_stops_loops(looping: str) -> None:
    guard = LoopGuard()
    stopped_at = next((i for i in range(0, len(looping), 5) if guard.feed(looping[i:i + 5])), None)
    assert stopped_at is not None and stopped_at < len(looping) * 0.8


@given(st.lists(st.sampled_from(["Embeds", "show", "a", "note", "inside", "another", "one", "and", "stay",
                                 "current", "when", "the", "source", "changes", "[S1].", "Use", "`![[Note]]`"]),
                min_size=0, max_size=60))
def test_loop_guard_lets_ordinary_prose_through(chosen: list[str]) -> None:
    # Shuffled words from a real answer: varied enough that no tail repeats and most triples are new.
    guard = LoopGuard()
    prose = "Embedding shows one note inside another and keeps it current [S1]. To embed, write `![[Note]]`. " \
            "Headings embed with `![[Note#Heading]]` and blocks with `![[Note#^id]]` [S1]. " + " ".join(chosen[:3])
    assert not guard.feed(prose)


async def test_a_looping_model_is_stopped_and_the_passages_answer(engine: Any) -> None:
    fake = await FakeOllama(models=["tiny:latest"], capabilities=["completion"]).start()
    try:
        fake.script_chat(content=["Theft: "] * 400, chunk_delay_s=0.001)
        provider = OllamaChat(fake.url, "tiny:latest")
        envelopes = await ask(engine, "How do I embed a note?", provider, think=False, tools=False)
        await provider.aclose()
    finally:
        await fake.stop()
    data = final(envelopes)["data"]
    assert data["looped"] and data["unverified"]
    assert "![[Meeting notes]]" in data["answer"] and data["citations"]  # the passage answer
    assert data["answer"].count("Theft:") < 40  # stopped early, shown only as unverified text
    assert "> [!warning] Unverified" in data["answer"]
    assert streamed_text(envelopes).strip() == data["answer"]
    assert fake.disconnects  # the model call was closed mid-stream


async def test_a_model_answer_citing_nothing_is_not_the_answer(engine: Any) -> None:
    fake = await FakeOllama(models=["tiny:latest"], capabilities=["completion"]).start()
    try:
        fake.script_chat(content=["You can embed notes by ", "using a special syntax."])
        fake.script_chat(content="The vault doesn't say.")
        provider = OllamaChat(fake.url, "tiny:latest")
        envelopes = await ask(engine, "How do I embed a note?", provider, think=False, tools=False)
        honest = final(await ask(engine, "How do I embed a note?", provider, think=False, tools=False))["data"]
        await provider.aclose()
    finally:
        await fake.stop()
    data = final(envelopes)["data"]
    assert data["unverified"] and not data["looped"]
    # The passage answer is the answer; the model's uncited text follows, marked as unverified.
    assert data["answer"].index("![[Meeting notes]]") < data["answer"].index("> [!warning] Unverified")
    assert data["answer"].index("[!warning]") < data["answer"].index("special syntax")
    assert data["citations"] and streamed_text(envelopes).strip() == data["answer"]
    assert honest["answer"] == "The vault doesn't say." and not honest["unverified"] and not honest["answered"]


async def test_confidence_is_capped_by_what_the_model_cites(engine: Any) -> None:
    cites_other = ScriptedChat(lambda call: text("Gutenberg printed a Bible [S2]." if "[S2]" in call.system
                                                 else "Gutenberg printed a Bible [S1]."))
    envelopes = await ask(engine, "How do I embed a note?", cites_other, think=False, tools=False,
                          max_sources=3)
    shown = [e["data"] for e in envelopes if e["type"] == "confidence"]
    data = final(envelopes)["data"]
    rank = {"low": 0, "medium": 1, "high": 2}
    assert rank[data["confidence"]] <= rank[shown[0]["label"]]
    # what the answer cites is sent as the last confidence, so a client shows the label of the answer
    assert (shown[-1]["label"], shown[-1]["reason"]) == (data["confidence"], data["confidence_reason"])
    assert kinds(envelopes).index("confidence") == 0


def test_nugget_matching_follows_the_eval_rules() -> None:
    answer = "To embed a note:\n\n```md\n![[Meeting  notes]]\n```\n[S1] Press CTRL+Shift+M [S2]."
    assert nuggets_stated(answer, [["![[meeting notes]]"], ["ctrl+shift+m"], ["Strg", "nope"]]) == [True, True, False]
    assert nuggets_stated(answer, [["notes]] ``` [S1]"]]) == [True]  # whitespace collapsed, markers left in
    table = reliability_table([{"confidence": "high", "all_nuggets": True},
                               {"confidence": "high", "all_nuggets": False},
                               {"confidence": "low", "all_nuggets": False}])
    assert table["high"] == {"answers": 2, "all_nuggets_share": 0.5} and table["medium"]["answers"] == 0


def test_eval_answers_with_nuggets(engine: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COGNIVAULT_INDEX_INDEX_DIR", str(engine.settings.index.index_dir))
    questions = tmp_path / "q.jsonl"
    questions.write_text("\n".join(json.dumps(q) for q in [
        {"id": "e1", "lang": "en", "question": "How do I embed a note?", "relevant": ["Linking/Embedding notes.md"]},
        {"id": "d1", "lang": "de", "question": "Was produzieren Mitochondrien?",
         "relevant": ["Biologie/Mitochondrien.md"]},
    ]) + "\n", "utf-8")
    nuggets = tmp_path / "n.jsonl"
    nuggets.write_text(json.dumps({"id": "e1", "nuggets": [["![["], ["embed"]]}) + "\n" +
                       json.dumps({"id": "d1", "nuggets": [["ATP"], ["Kohlenhydrate"]]}) + "\n", "utf-8")
    assert main(["eval-answers", "--vault", str(engine.vault), "--keywords-only", "--json", "--no-index",
                 "--provider", "extractive", "--questions", str(questions), "--nuggets", str(nuggets)]) == 0
    report = json.loads(capsys.readouterr().out)["nuggets"]
    assert report["overall"]["questions"] == 2 and report["overall"]["false_refusals"] == 0
    assert report["by_lang"]["en"]["all_nuggets_share"] == 1.0
    assert report["by_lang"]["de"]["all_nuggets_share"] == 0.0 and report["by_lang"]["de"]["nugget_recall"] == 0.5
    assert sum(row["answers"] for row in report["reliability"].values()) == 2
    assert main(["eval-answers", "--vault", str(engine.vault), "--keywords-only", "--no-index",
                 "--questions", str(questions), "--nuggets", str(nuggets)]) == 0
    assert "reliability (label -> answers, share with all nuggets)" in capsys.readouterr().out


def test_confidence_is_capped_by_citations_and_by_what_the_quotes_state() -> None:
    from cognivault.answer.confidence import HIGH_RULE, QuoteMeasures, assess, cap_by_citations
    from cognivault.answer.evidence import Evidence, EvidencePack

    weights = {"embed": 2.0, "note": 1.0}
    pack = EvidencePack(question_terms=list(weights), term_weights=weights)
    pack.add(Evidence("", "c1", "a.md", "A", [], 1, 2, "", "embed a note", "", 0.0, terms=frozenset(weights)))
    pack.add(Evidence("", "c2", "b.md", "B", [], 1, 2, "", "a note", "", 0.0, terms=frozenset({"note"})))
    whole = assess(pack)
    assert whole.label == "high"
    assert cap_by_citations(whole, pack, []).label == "low"  # cites nothing
    assert cap_by_citations(whole, pack, ["S2"]).label == "low"  # cites only the weak passage
    assert cap_by_citations(whole, pack, ["S1"], QuoteMeasures(1.0, 1.0, block_share=1.0)).label == "high"
    stated_little = cap_by_citations(whole, pack, ["S1"], QuoteMeasures(HIGH_RULE.answer / 2, HIGH_RULE.answer / 2))
    assert stated_little.label == "medium" and "quoted passages state" in stated_little.reason
    # Every part stated, but pieced together from blocks that each state a little: not high.
    pieced = cap_by_citations(whole, pack, ["S1"], QuoteMeasures(1.0, HIGH_RULE.lead / 2))
    assert pieced.label == "medium" and "first quote states" in pieced.reason
    assert pieced.to_dict()["lead_share"] == round(HIGH_RULE.lead / 2, 3)


async def test_extractive_chat_reads_a_german_question_as_german() -> None:
    from cognivault.models.chat import ChatMessage

    messages = [ChatMessage("system", "Passages:\n<passages>\n[S1] a.md\nMitochondrien sind die Kraftwerke der "
                                      "Zelle: Sie produzieren ATP aus Glukose und Sauerstoff.\n\n[S2] b.md\n"
                                      "Brot braucht Mehl, Wasser und Salz.\n</passages>"),
                ChatMessage("user", "Was produzieren Mitochondrien?")]
    text = "".join([c.text async for c in ExtractiveChat().stream(messages) if c.kind == "text"])
    assert "produzieren ATP" in text and "[S1]" in text and "[S2]" not in text


def test_the_block_with_the_question_words_side_by_side_leads() -> None:
    from cognivault.answer.evidence import FALLBACK_ANALYZER, Evidence, text_terms
    from cognivault.answer.extractive import choose_units

    def item(label: str, heading: str, text: str) -> Evidence:
        return Evidence(label, label, f"{label}.md", label, [heading], 1, 3, "", text, "", 0.0, lang="en",
                        terms=text_terms(FALLBACK_ANALYZER, f"{heading}\n{text}", "en"))

    canvas = item("S1", "Embed a canvas", "You can embed a canvas in a note with the embed syntax.")
    note = item("S2", "Embed a note in another note", f"To embed a note:\n\n{FENCE}md\n![[Internal links]]\n{FENCE}")
    terms = sorted(text_terms(FALLBACK_ANALYZER, "embed note", "en"))
    chosen = choose_units([canvas, note], ["emb", "note"], {t: 1.0 for t in terms}, FALLBACK_ANALYZER,
                          "How do I embed a note?")
    assert chosen[0].label == "S2" and chosen[0].kind == "code" and chosen[0].intro == "To embed a note:"


def test_a_translated_passage_is_quoted_in_the_questions_language() -> None:
    from cognivault.answer.evidence import FALLBACK_ANALYZER, Evidence, EvidencePack, text_terms
    from cognivault.answer.extractive import choose_units

    german = Evidence("S1", "c1", "de/Bear.md", "Bear", ["Bear"], 1, 2, "", "- **Hervorhebungen**: Konvertiert "
                      "`::highlight::` zu `==highlight==`", "", 0.0, lang="de")
    english = Evidence("S2", "c2", "en/Bear.md", "Bear", ["Bear"], 1, 2, "", "- **Highlights**: Converts "
                       "`::highlight::` to `==highlight==`", "", 0.0, lang="en")
    for item in (german, english):
        item.terms = text_terms(FALLBACK_ANALYZER, item.text, item.lang)
    pack = EvidencePack(question_terms=["highlight"], term_weights={"highlight": 1.0}, lang="en")
    chosen = choose_units([german, english], pack.question_terms, pack.term_weights, FALLBACK_ANALYZER,
                          "How do I convert `::highlight::`?", pack=pack)
    assert [unit.label for unit in chosen] == ["S2"]


async def test_a_model_that_cites_then_loops_is_stopped_and_marked(engine: Any) -> None:
    provider = ScriptedChat(lambda call: text("Notes are embedded with an exclamation mark [S1]. ",
                                              *["Embed: "] * 200))
    envelopes = await ask(engine, "How do I embed a note?", provider, think=False, tools=False)
    data = final(envelopes)["data"]
    assert data["looped"] and data["unverified"]
    shown = streamed_text(envelopes)
    assert shown.startswith("Notes are embedded with an exclamation mark [S1].")
    assert shown.count("Embed: ") < 20  # stopped as it began to repeat
    assert "> [!warning] Unverified: the model's answer above kept repeating itself" in shown
    assert shown.index("[!warning]") < shown.index("![[Meeting notes]]")  # then the passages


def test_a_question_in_two_parts_is_answered_from_two_notes_and_embeds_alone_are_not_quoted() -> None:
    from cognivault.answer.evidence import FALLBACK_ANALYZER, Evidence, text_terms
    from cognivault.answer.extractive import choose_units

    def item(label: str, text: str) -> Evidence:
        return Evidence(label, label, f"{label}.md", label, [], 1, 3, "", text, "", 0.0, lang="en",
                        terms=text_terms(FALLBACK_ANALYZER, text, "en"))

    convert = item("S1", "Bear highlights are converted to ==highlight== marks.\n\n![[converter.png]]")
    backup = item("S2", "Make a backup in Bear with File, then Backup notes.")
    terms = ["backup", "bear", "highlight", "convert"]
    chosen = choose_units([convert, backup], terms, {t: 1.0 for t in terms}, FALLBACK_ANALYZER,
                          "Which Bear backup do I import, and how are highlights converted?")
    assert [unit.label for unit in chosen] == ["S1", "S2"]  # the second note states the other part
    assert all("![[converter.png]]" != unit.text for unit in chosen)


NAMED_NOTES = {
    "Install on iPhone.md": """# Install on iPhone

1. Find Obsidian on the App Store from Apple and tap **Get** to install it.
2. Open the app and create a vault.

Keep an eye on the sync status while you watch the first notes arrive.
""",
    "Printing press.md": """# Printing press

Johannes Gutenberg built a printing press with movable metal type in Mainz around 1450.
""",
    "Werbung.md": """---
lang: de
---
# Werbung

Werbeinhalte müssen für Obsidian relevant sein. Wer Werbung schaltet, nennt den Anbieter offen.
""",
}


named_engine = vault_engine("named_engine", NAMED_NOTES)


async def test_a_name_the_vault_never_has_side_by_side_is_refused(named_engine: Any) -> None:
    # "Apple" and "watch" are both in the vault, never as the name "Apple Watch": the thing asked about is not.
    envelopes = await ask(named_engine, "Can I install Obsidian on an Apple Watch?", ExtractiveChat())
    data = final(envelopes)["data"]
    assert not data["answered"] and "doesn't say" in data["answer"]
    confidence = next(e["data"] for e in envelopes if e["type"] == "confidence")
    assert "apple watch" in confidence["reason"]
    # A name the vault has side by side is no reason to refuse.
    named = final(await ask(named_engine, "Where did Johannes Gutenberg build his press?", ExtractiveChat()))["data"]
    assert named["answered"] and "Mainz" in named["answer"]


async def test_a_name_the_vault_never_mentions_is_what_the_question_is_about(named_engine: Any) -> None:
    # "find", "Obsidian", "store" and "install" are the vault's words (the App Store); "Kindle", the thing asked
    # about, is a name it never uses: counted like any other word it left the question looking mostly covered.
    question = "Can I find Obsidian on the Kindle store and install it?"
    assert {c.word for c in question_concepts(named_engine, question, "en") if c.name} == {"kindle", "obsidian"}
    envelopes = await ask(named_engine, question, ExtractiveChat())
    assert not final(envelopes)["data"]["answered"]
    assert "kindle" in next(e["data"] for e in envelopes if e["type"] == "confidence")["reason"]
    # German capitalises every noun: its capitals mark no names.
    german = "Wie schicke ich meine Notizen von Obsidian an einen Kindle?"
    assert not any(c.name for c in question_concepts(named_engine, german, "de"))


@pytest.mark.parametrize(("question", "stated"), [
    ("I'm on a MacBook Pro, how do I install Obsidian from the App Store?", "**Get**"),
    ("Ich lese auf einem Kindle Paperwhite, was müssen Werbeinhalte sein?", "relevant")])
async def test_a_clause_setting_the_scene_is_not_what_the_question_asks(named_engine: Any, question: str,
                                                                         stated: str) -> None:
    # The vault never says "MacBook Pro" or "Kindle", but the question proper (after the comma) asks what it
    # covers: answered, not refused as a question on something else, nor judged by the scene's words.
    envelopes = await ask(named_engine, question, ExtractiveChat())
    done = final(envelopes)["data"]
    assert done["answered"] and stated in done["answer"]
    assert "macbook" not in next(e["data"] for e in envelopes if e["type"] == "confidence")["missing"]


async def test_a_scene_with_an_unknown_question_after_it_is_still_refused(named_engine: Any) -> None:
    # What is asked after the scene is unknown too: the scene's words count as usual.
    done = final(await ask(named_engine, "I bake sourdough bread, how do I make the crust crisp?", ExtractiveChat()))
    assert not done["data"]["answered"]


async def test_german_question_words_are_not_what_a_question_is_about(named_engine: Any) -> None:
    # "Wer" is in the vault ("Wer Werbung schaltet"), but a question about investors is not answered by it.
    envelopes = await ask(named_engine, "Wer sind die Investoren hinter Obsidian?", ExtractiveChat())
    assert not final(envelopes)["data"]["answered"]
    confidence = next(e["data"] for e in envelopes if e["type"] == "confidence")
    assert "wer" not in confidence["covered"] + confidence["missing"]




def test_steps_of_a_procedure_are_quoted_whole_and_in_order() -> None:
    """Steps 2, 1 and 4 chosen apart (the lead first, as the help vault's 'Create a vault' was
    answered) are quoted as the whole list, steps 1 to 4 in order; one numbered step alone too."""
    from cognivault.answer.evidence import Evidence
    from cognivault.answer.extractive import _in_note_order, compose, quotes_of, units_of

    text = ("To create a new empty vault:\n\n"
            "1. To the right of **Create new vault**, click **Create**.\n"
            "2. In **Vault name**, enter the name of your vault.\n"
            "3. Click **Browse** to select where your new vault will be created.\n"
            "4. Click **Create**.\n")
    passage = Evidence("S1", "c1", "Create a vault.md", "Create a vault", ["Create empty vault"], 12, 17, "", text,
                       "", 0.0, lang="en")
    units = units_of(passage, 0)
    steps = {unit.text[:1]: unit for unit in units if unit.kind == "item"}

    def numbers(chosen: list[Any]) -> list[str]:
        answer = compose(quotes_of(_in_note_order(chosen[0], chosen, {0: units}, 700)))
        return [line[:1] for line in answer.splitlines() if line[:1].isdigit()]

    assert numbers([steps["2"], steps["1"], steps["4"]]) == ["1", "2", "3", "4"]
    assert numbers([steps["3"]]) == ["1", "2", "3", "4"]


SIGNPOST_NOTES = {
    "Photosynthesis/Limiting factors.md": """---
aliases: [Factors affecting photosynthesis]
---
# Limiting factors

The rate is limited by whichever factor is in the shortest supply (Blackman's law).

## Light intensity

At low light the rate rises in proportion to light intensity, because the light reactions supply too
little ATP and NADPH.

## Temperature

The light reactions hardly depend on temperature, but the enzymes of the Calvin cycle do. The rate
rises up to an optimum and then falls as enzymes denature.

## Evidence from our class

The class measured all three factors with pondweed; see [[Elodea experiment]].
""",
    "Photosynthesis/Calvin cycle.md": """# Calvin cycle

The Calvin cycle uses ATP and NADPH to turn carbon dioxide into sugar in the stroma.

## The numbers

Each turn fixes three molecules of carbon dioxide.

Related: [[Limiting factors]] (temperature affects RuBisCO) and [[Photosynthesis overview]].
""",
    "Photosynthesis/Photosynthetic pigments.md": """# Photosynthetic pigments

## Chlorophyll

Chlorophyll absorbs blue and red light and reflects green light, which is why leaves look green.
""",
    "Start here.md": """# Start here

## Study path

1. [[Calvin cycle]]: how the stroma fixes carbon dioxide into sugar.
2. [[Photosynthetic pigments]]: why leaves are green.
3. [[Limiting factors]]: what slows photosynthesis down.
""",
    "Lab/Elodea experiment.md": """# Elodea experiment

Measuring how light intensity affects the rate of photosynthesis with the pondweed Elodea, by counting
oxygen bubbles per minute.
""",
    "Enzymes/Enzymes of the cycle.md": """# Enzymes of the cycle

## Photorespiration

RuBisCO can also bind oxygen instead of carbon dioxide when the leaf is hot.

## The fixing enzyme

The enzyme **RuBisCO** attaches carbon dioxide to a five-carbon sugar; it is the most abundant protein on Earth.
""",
    "Obsidian/Vaults.md": """# Vaults

## Target a vault

If the working directory of your terminal is a vault folder, that vault is used by default. Click the
**Vault** button to switch to another folder.

## Manage vaults

A **vault** is a folder on your file system which contains your notes and attachments.
""",
    "Biologie/Blatt.md": """# Blatt

## Spaltöffnungen

Bei Hitze schließen sich die Stomata, und die Blätter nehmen weniger Kohlendioxid auf.

Stomata sind Poren in der unteren Epidermis, jede zwischen zwei Schließzellen.
""",
    "Plugins/Backlinks.md": """---
description: With the Backlinks plugin, you can see all the backlinks for the active note.
---
With the Backlinks [[Core plugins|plugin]], you can see all the _backlinks_ for the active note.

A backlink for a note is a link from another note to that note, shown in the backlinks pane of the sidebar.
""",
    "Extending/Community directory.md": """# Community directory

If the author of a plugin added funding links, a Support link appears on its page: what is raised there goes
to the company or person behind the plugin.
""",
}


signpost_engine = vault_engine("signpost_engine", SIGNPOST_NOTES)


async def test_a_section_is_read_under_its_notes_aliases(signpost_engine: Any) -> None:
    # "Temperature" never says "affect" or "photosynthesis"; its note is also called "Factors affecting
    # photosynthesis". The line that has all three words, one of them only as a link's text, does not lead.
    data = final(await ask(signpost_engine, "How does temperature affect photosynthesis?", ExtractiveChat()))["data"]
    assert data["answered"]
    assert data["answer"].startswith("The light reactions hardly depend on temperature")


async def test_an_entry_for_a_note_in_the_evidence_is_not_the_answer(signpost_engine: Any) -> None:
    # "2. [[Photosynthetic pigments]]: why leaves are green" has the question's words side by side; the note it
    # names says why, and is quoted instead (nor is the list of entries, an index of notes, quoted).
    data = final(await ask(signpost_engine, "Why are leaves green?", ExtractiveChat()))["data"]
    assert data["answered"] and "which is why leaves look green" in data["answer"]
    assert "[[Photosynthetic pigments]]" not in data["answer"]
    measured = final(await ask(signpost_engine, "What did the Elodea experiment measure?", ExtractiveChat()))["data"]
    assert "Measuring how light intensity affects" in measured["answer"].split("[S", 1)[0]


def test_a_line_of_links_is_no_unit() -> None:
    from cognivault.answer.evidence import Evidence
    from cognivault.answer.extractive import units_of

    text = ("Chloroplasten stammen von Cyanobakterien ab, die von einer eukaryotischen Zelle aufgenommen wurden.\n\n"
            "Mehr Einzelheiten auf Englisch: [[Chloroplast#Thylakoids and grana]] und "
            "[[Plant cell structure#^cell-wall]].\n\nSee [[Calvin cycle]] for what the stroma does with ATP.")
    item = Evidence(label="S1", chunk_id="c", path="Chloroplasten.md", title="Chloroplasten", heading_path=[],
                    line_start=1, line_end=5, locator="", text=text, snippet="", score=1.0, lang="de")
    quoted = [unit.text for unit in units_of(item, 0)]
    assert not any(unit.startswith("Mehr Einzelheiten") for unit in quoted)
    assert any(unit.startswith("Chloroplasten stammen") for unit in quoted)
    assert any(unit.startswith("See [[Calvin cycle]]") for unit in quoted)  # mostly its own words


def test_a_blocks_id_is_not_quoted() -> None:
    from cognivault.answer.evidence import Evidence
    from cognivault.answer.extractive import units_of

    # Obsidian hides "^id" closing a paragraph or on a line after a callout; answers showed it
    text = ("Du kannst Dateien mit einer Größe von **bis zu 50 MB** hochladen. ^publish-media-limit\n\n"
            "> [!abstract] Regionen\n> **Europa**: Frankfurt\n\n^sync-regions")
    item = Evidence(label="S1", chunk_id="c", path="Limits.md", title="Limits", heading_path=[], line_start=1,
                    line_end=9, locator="", text=text, snippet="", score=1.0, lang="de")
    quoted = "\n".join(unit.text for unit in units_of(item, 0))
    assert "hochladen." in quoted and "Frankfurt" in quoted and "^publish-media-limit" not in quoted, quoted
    assert "^sync-regions" not in quoted, quoted


def test_the_rest_of_a_sentence_or_row_a_passage_begins_inside_is_no_whole_unit() -> None:
    from cognivault.answer.evidence import Evidence
    from cognivault.answer.extractive import units_of

    # chunks overlap: a passage may begin inside a sentence or a table row
    def passage(text: str) -> Evidence:
        return Evidence(label="S1", chunk_id="c", path="Notion.md", title="Notion", heading_path=[], line_start=4,
                        line_end=9, locator="", text=text, snippet="", score=1.0, lang="de")

    units = units_of(passage("der Notion-API sind Datenbanken nicht exportierbar.\n\nExporte laufen über die API."), 0)
    assert [unit.cut for unit in units] == [True, False], units
    torn = "dienen soll. |\n| Logo | Eingabe | Das Bild der Website. |\n| Domain | Schalter | Eigene |"
    rows = units_of(passage(torn), 0)
    assert [unit.text for unit in rows] == ["| Logo | Eingabe | Das Bild der Website. |",
                                            "| Domain | Schalter | Eigene |"], rows


async def test_a_kind_of_answer_no_passage_gives_asked_in_words_the_vault_never_uses_is_refused(
        signpost_engine: Any) -> None:
    # "funding", "raised" and "company" are in the vault; "investors" is not, and no passage gives an amount.
    envelopes = await ask(signpost_engine, "Who are the investors and how much funding has the company raised?",
                          ExtractiveChat())
    assert not final(envelopes)["data"]["answered"]


def test_a_table_row_is_no_neighbour_of_a_quote() -> None:
    # One row under its header, next to a callout the question was about, says nothing of the question.
    from cognivault.answer.evidence import Evidence
    from cognivault.answer.extractive import _neighbours, units_of

    text = ("| Per turn | Amount |\n|---|---|\n| CO2 fixed | 3 |\n| ATP used | 9 |\n\n"
            "> [!warning] Photorespiration\n> RuBisCO can also bind oxygen instead of carbon dioxide.\n\n"
            "One glucose molecule costs six turns of the cycle and much ATP.")
    item = Evidence(label="S1", chunk_id="c", path="Calvin cycle.md", title="Calvin cycle",
                    heading_path=["The numbers"], line_start=1, line_end=9, locator="", text=text, snippet="",
                    score=1.0)
    units = units_of(item, 0)
    callout = next(unit for unit in units if unit.kind == "quote")
    assert [unit.kind for unit in _neighbours(callout, units)] == ["paragraph"]


def test_a_sentence_about_the_one_before_is_quoted_with_it() -> None:
    # "It takes place in the chloroplasts" alone does not say what takes place there.
    from cognivault.answer.evidence import Evidence
    from cognivault.answer.extractive import units_of

    text = ("Photosynthesis is the process by which plants, algae and cyanobacteria turn light energy into chemical "
            "energy. It takes place in the chloroplasts of leaf mesophyll cells. The overall equation is six carbon "
            "dioxide and six water give one glucose and six oxygen. Diese Zeile ist ein Beispiel, das lang genug "
            "ist, um den Absatz in Sätzen zu zitieren. Sie steht nur hier.")
    item = Evidence(label="S1", chunk_id="c", path="summary.pdf", title="Summary", heading_path=[], line_start=0,
                    line_end=0, locator="page 1", text=text, snippet="", score=1.0)
    sentences = [unit.text for unit in units_of(item, 0) if unit.kind == "sentence"]
    assert "Photosynthesis is the process by which plants, algae and cyanobacteria turn light energy into chemical " \
           "energy. It takes place in the chloroplasts of leaf mesophyll cells." in sentences
    assert not any(sentence.startswith(("It ", "Sie ")) for sentence in sentences)
    assert any(sentence.startswith("The overall equation") for sentence in sentences)


@pytest.mark.parametrize(("question", "definition"), [
    ("What is RuBisCO?", "The enzyme **RuBisCO** attaches"), ("Was sind Stomata?", "Stomata sind Poren"),
    ("What is a vault?", "A **vault** is a folder")])
async def test_what_is_x_is_answered_by_what_defines_x(signpost_engine: Any, question: str, definition: str) -> None:
    # Every passage names the term; the one that sets it in bold or says what it is leads.
    data = final(await ask(signpost_engine, question, ExtractiveChat()))["data"]
    assert data["answered"] and data["answer"].split("[S", 1)[0].lstrip("*# \n").split("\n\n")[-1].startswith(
        definition), data["answer"]


async def test_the_same_words_are_not_quoted_twice(signpost_engine: Any) -> None:
    # The note's description (the lead line of its first passage) says what its first paragraph says, with the
    # paragraph's link and emphasis shown as words: once is enough, and apart from the next paragraph.
    data = final(await ask(signpost_engine, "backlinks", ExtractiveChat()))["data"]
    assert data["answered"] and data["answer"].count("you can see all the") == 1, data["answer"]
    assert "A backlink for a note is a link" in data["answer"]


def test_a_label_after_a_table_or_a_callout_renders_apart_from_it() -> None:
    # A Markdown reader (markdown-it, as VS Code's chat and Obsidian render) takes a line right after a table
    # row for one more row, and a line right after a quote for more of the quote.
    from markdown_it import MarkdownIt

    from cognivault.answer.extractive import Quote, compose

    answer = compose([Quote("S1", "| Tissue | Function |\n|---|---|\n| Guard cells | Control stomata |"),
                      Quote("S2", "> [!warning] Photorespiration\n> RuBisCO can also bind oxygen."),
                      Quote("S3", "```md\n![[Note]]\n```")])
    tokens = MarkdownIt("commonmark").enable("table").parse(answer)
    inside, depth = [], 0
    for token in tokens:
        depth += token.nesting if token.type.startswith(("table", "blockquote")) else 0
        if token.type == "inline":
            inside.append((token.content, depth > 0))
    assert ("[S1]", False) in inside and ("[S2]", False) in inside
    assert "```md\n![[Note]]\n```\n[S3]" in answer
