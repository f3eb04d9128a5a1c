"""Study over the language server: cognivault/reviewDue, cognivault/reviewGrade, cognivault/generate,
the code action's generate command, and the study activity it records (asks, throttled note edits)."""

from __future__ import annotations

import ast
import asyncio
import shutil
from collections.abc import AsyncIterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from harness import TEST_VAULT, Session, plain, start_session, stop_session
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from cognivault.study.progress import ProgressStore
from cognivault.study.schema import validate_frontmatter
from cognivault.vault.markdown import read_frontmatter

DECK = "Decks/Organelles.md"
DECK_TEXT = ("# Organelles\n\n#flashcards/organelles\n\n"
             "What is the stroma?::The fluid around the thylakoids.\n<!--SR:!2020-01-01,3,250-->\n\n"
             "Where is chlorophyll?::In the thylakoid membranes.\n\n"
             "Some prose that is not a card.\n")
CHLOROPLAST = "Biology/Chloroplast.md"
CHLOROPLAST_TEXT = (
    "# Chloroplast\n\nThe chloroplast is the organelle where photosynthesis takes place in plant cells.\n\n"
    "## Parts\n\nThe stroma is the fluid that fills the inner space of the chloroplast.\n"
    "A thylakoid is a membrane sac where the light reactions happen.\n"
    "**Chlorophyll** is the green pigment that absorbs red and blue light.\n\n"
    "## Sugar\n\nThe Calvin cycle is the set of reactions that fixes carbon dioxide in the stroma.\n"
    "RuBisCO is the enzyme that binds carbon dioxide to RuBP.\n")


@pytest_asyncio.fixture
async def study(tmp_path: Path) -> AsyncIterator[Session]:
    vault = tmp_path / "vault"
    shutil.copytree(TEST_VAULT, vault)
    (vault / "Decks").mkdir()
    (vault / DECK).write_text(DECK_TEXT, "utf-8")
    (vault / CHLOROPLAST).write_text(CHLOROPLAST_TEXT, "utf-8")
    session = await start_session(tmp_path)
    yield session
    await stop_session(session)


async def _error(session: Session, method: str, params: dict[str, Any]) -> JsonRpcException:
    with pytest.raises(JsonRpcException) as caught:
        await session.request(method, params)
    return caught.value


def _events(session: Session, kind: str) -> list[Any]:
    return ProgressStore(session.vault).events(kinds=[kind])


async def _until(predicate: Any, timeout: float = 60) -> None:  # the timeout bounds a hang only
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.05)


async def test_review_due_then_grade_rewrites_only_that_cards_comment(study: Session) -> None:
    due = plain(await study.request("cognivault/reviewDue", {"uri": study.uri(DECK)}))
    assert [(c["front"], c["isNew"], c["due"]) for c in due["due"]] == [
        ("What is the stroma?", False, "2020-01-01"), ("Where is chlorophyll?", True, None)]
    assert all(c["uri"] == study.uri(DECK) and c["decks"] == ["organelles"] for c in due["due"])
    assert due["stats"]["due"] == 1 and due["stats"]["new"] == 1
    only_reviewed = plain(await study.request("cognivault/reviewDue", {"deck": "organelles", "includeNew": False}))
    assert [c["front"] for c in only_reviewed["due"]] == ["What is the stroma?"]

    stroma = due["due"][0]
    graded = plain(await study.request("cognivault/reviewGrade", {"id": stroma["id"], "grade": 3,
                                                                  "uri": study.uri(DECK), "durationMs": 4000}))
    assert graded["path"] == DECK and graded["previous_due"] == "2020-01-01" and graded["rating"] == 3
    assert date.fromisoformat(graded["due"]) > date.today()
    text = study.text(DECK)
    comment = f"<!--SR:!{graded['due']},{graded['interval']},{graded['ease']}-->"
    assert text == DECK_TEXT.replace("<!--SR:!2020-01-01,3,250-->", comment)  # nothing else touched
    (event,) = _events(study, "review")
    assert event.data["card"] == stroma["id"] and event.duration_s == 4.0
    after = plain(await study.request("cognivault/reviewDue", {"uri": study.uri(DECK)}))
    assert [c["front"] for c in after["due"]] == ["Where is chlorophyll?"]


async def test_grade_is_refused_for_unsaved_edits_unknown_cards_and_bad_grades(study: Session) -> None:
    due = plain(await study.request("cognivault/reviewDue", {"uri": study.uri(DECK)}))
    card = due["due"][1]["id"]
    error = await _error(study, "cognivault/reviewGrade", {"id": card, "grade": 5})
    assert error.code == types.ErrorCodes.InvalidParams
    error = await _error(study, "cognivault/reviewGrade", {"id": "0123456789ab-0", "grade": 2})
    assert error.code == types.ErrorCodes.InvalidParams and "no card" in error.message

    study.open(DECK)
    study.replace_all(DECK, DECK_TEXT + "\nA new line typed but not saved.\n", version=2)
    await study.wait_idle()
    error = await _error(study, "cognivault/reviewGrade", {"id": card, "grade": 4})
    assert error.code == types.LSPErrorCodes.ContentModified and "unsaved changes" in error.message
    assert study.text(DECK) == DECK_TEXT and not _events(study, "review")

    (study.vault / DECK).write_text(DECK_TEXT + "\nA new line typed but not saved.\n", "utf-8")
    study.client.text_document_did_save(types.DidSaveTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=study.uri(DECK))))
    await study.wait_idle()
    graded = plain(await study.request("cognivault/reviewGrade", {"id": card, "grade": 4}))
    assert graded["previous_due"] is None
    assert study.text(DECK).endswith("In the thylakoid membranes.\n"
                                     f"<!--SR:!{graded['due']},{graded['interval']},{graded['ease']}-->\n\n"
                                     "Some prose that is not a card.\n\nA new line typed but not saved.\n")


async def test_a_note_reached_through_an_in_vault_link_to_outside_is_neither_graded_nor_studied(
        study: Session, tmp_path: Path) -> None:
    """Issue 28: with ``vault/shared -> ../outside``, an open ``shared/private.md`` was graded (the SR comment
    went into outside/private.md) and generated from (its text copied into Study/). The CLI and the companion
    refused the same note; the language server resolves the link first too."""
    from cognivault.study.review import ReviewDeck

    outside = tmp_path / "outside"
    outside.mkdir()
    private = outside / "private.md"
    secret = ("# Private\n\n#flashcards\n\nWhat is the outside secret?::A private passphrase.\n\n"
              "The outside secret is a private passphrase kept away from the vault for sure.\n")
    private.write_text(secret, "utf-8")
    (study.vault / "shared").symlink_to("../outside")
    study.open("shared/private.md", secret)
    await study.wait_idle()
    (note,) = ReviewDeck(study.vault).notes(["shared/private.md"])
    card_id = note.flashcards[0].cards[0].id
    uri = study.uri("shared/private.md")

    error = await _error(study, "cognivault/reviewGrade", {"id": card_id, "grade": 3, "uri": uri})
    assert error.code == types.ErrorCodes.InvalidParams
    error = await _error(study, "cognivault/reviewDue", {"uri": uri})
    assert error.code == types.ErrorCodes.InvalidParams and "not a note in the vault" in error.message
    error = await _error(study, "cognivault/generate", {"kind": "flashcards", "uri": uri,
                                                        "chatProvider": "extractive"})
    assert error.code == types.ErrorCodes.InvalidParams
    assert private.read_text("utf-8") == secret
    study_folder = study.vault / "Study"
    assert not study_folder.exists() or not any("passphrase" in p.read_text("utf-8")
                                                for p in study_folder.rglob("*.md"))


async def test_generate_writes_the_note_and_reports_progress(study: Session) -> None:
    study.client.progress_reports["study-1"] = []  # a client-made token, as in the request below
    result = plain(await study.request("cognivault/generate", {
        "kind": "quiz", "uri": study.uri(CHLOROPLAST), "count": 3, "chatProvider": "extractive",
        "workDoneToken": "study-1"}, timeout=60))
    path = study.vault / result["path"]
    assert result["uri"] == path.as_uri() and result["path"].startswith("Study/Quiz - ")
    assert result["kind"] == "quiz" and result["provider"] == "extractive" and result["produced"] >= 1
    frontmatter = read_frontmatter(path.read_text("utf-8"))
    validate_frontmatter(frontmatter)
    assert frontmatter["source_notes"] == ["[[Biology/Chloroplast]]"] and frontmatter["counts"]["produced"] == 3
    reports = study.client.progress_reports["study-1"]
    assert isinstance(reports[0], types.WorkDoneProgressBegin) and isinstance(reports[-1], types.WorkDoneProgressEnd)
    messages = [r.message for r in reports[1:-1]]
    assert any(m.startswith("extract:") for m in messages) and any(m.startswith("write:") for m in messages)
    assert reports[-1].message == f"wrote {result['path']}"
    (event,) = _events(study, "generate")
    assert event.data["kind"] == "quiz" and event.data["path"] == result["path"]

    mindmap = plain(await study.request("cognivault/generate", {
        "kind": "mindmap", "scope": ["folder:Biology"], "chatProvider": "extractive"}, timeout=60))
    assert read_frontmatter((study.vault / mindmap["path"]).read_text("utf-8"))["type"] == "mindmap"

    error = await _error(study, "cognivault/generate", {"kind": "poem", "uri": study.uri("Photosynthesis.md")})
    assert error.code == types.ErrorCodes.InvalidParams and "flashcards" in error.message
    error = await _error(study, "cognivault/generate", {"kind": "quiz"})
    assert error.code == types.ErrorCodes.InvalidParams and "uri" in error.message
    error = await _error(study, "cognivault/generate", {"kind": "quiz", "topic": "light", "chatProvider": "cloud"})
    assert error.code == types.ErrorCodes.InvalidParams and "extractive" in error.message
    error = await _error(study, "cognivault/generate", {"kind": "quiz", "topic": "no such thing at all zzz",
                                                        "chatProvider": "extractive"})
    assert error.code == types.ErrorCodes.InvalidParams and error.data["code"] == "empty_scope"


async def test_the_code_actions_generate_command_runs_the_same_generation(study: Session) -> None:
    selection = types.Range(start=types.Position(line=12, character=0), end=types.Position(line=14, character=0))
    found = plain(await study.request(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=study.uri(CHLOROPLAST)), range=selection,
        context=types.CodeActionContext(diagnostics=[], only=["source.cognivault"]))))
    (action,) = [a for a in found if a.title == "Generate flashcards from this selection"]
    # The client's converter reads a CodeAction with a command as a Command whose ``command`` is the repr
    # of the action's command object: read that back.
    command = ast.literal_eval(action.command)
    assert command["command"] == "cognivault.generate" and command["arguments"][0]["kind"] == "flashcards"
    before = set(study.client.progress_reports)
    result = plain(await study.request(types.WORKSPACE_EXECUTE_COMMAND, types.ExecuteCommandParams(
        command=command["command"], arguments=command["arguments"]), timeout=60))
    text = (study.vault / result["path"]).read_text("utf-8")
    assert result["kind"] == "flashcards" and "#flashcards/" in text and "Calvin cycle" in text
    cards = text.split("#flashcards/")[1]
    assert "thylakoid" not in cards.lower() and "chlorophyll" not in cards.lower()  # only the selected lines
    assert read_frontmatter(text)["scope"]["selection"] is True
    (token,) = set(study.client.progress_reports) - before  # server-made token: the client supports progress
    assert str(token).startswith("cognivault/generate/")
    assert isinstance(study.client.progress_reports[token][-1], types.WorkDoneProgressEnd)
    assert [e.data["kind"] for e in _events(study, "generate")] == ["flashcards"]


async def test_asks_and_throttled_note_edits_count_as_study(study: Session) -> None:
    await study.request(types.WORKSPACE_EXECUTE_COMMAND, types.ExecuteCommandParams(
        command="cognivault.ask", arguments=[{"question": "What does photosynthesis turn light energy into?"}]))
    (ask,) = _events(study, "ask")
    assert ask.data["via"] == "lsp" and ask.data["sources"] >= 1

    text = study.text("Cells.md")
    study.open("Cells.md")
    for version in range(2, 302):  # a typing burst: 300 changes
        text += "x"
        study.replace_all("Cells.md", text, version)
    study.client.text_document_did_save(types.DidSaveTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=study.uri("Cells.md"))))
    await study.wait_idle()
    await _until(lambda: len(_events(study, "note_edit")) >= 1)
    await asyncio.sleep(0.5)  # room for any further (wrong) events to land
    (edit,) = _events(study, "note_edit")
    assert edit.data == {"path": "Cells.md", "via": "editor"}
    progress = ProgressStore(study.vault).summary()
    assert progress["counts"] == {"ask": 1, "note_edit": 1}


async def test_a_quiz_attempt_is_scored_against_the_note_as_shown_and_recorded(study: Session) -> None:
    from cognivault.study.quiz import LETTERS, parse_quiz

    made = plain(await study.request("cognivault/generate", {
        "kind": "quiz", "uri": study.uri(CHLOROPLAST), "count": 3, "chatProvider": "extractive"}, timeout=60))
    text = (study.vault / made["path"]).read_text("utf-8")
    quiz = parse_quiz(text)
    assert len(quiz.questions) >= 2
    right = [LETTERS[q.correct_index] for q in quiz.questions]
    wrong_first = [LETTERS[(quiz.questions[0].correct_index + 1) % len(quiz.questions[0].options)], *right[1:]]

    result = plain(await study.request("cognivault/quizAttempt", {"uri": made["uri"], "answers": wrong_first,
                                                                  "durationMs": 42000}))
    assert result["quiz"] == made["path"] and result["total"] == len(quiz.questions)
    assert result["correct"] == len(quiz.questions) - 1 and not result["details"][0]["ok"]
    assert result["details"][0]["explanation"] and result["details"][0]["correct"] == right[0]
    (event,) = _events(study, "quiz_attempt")
    assert event.data["quiz"] == made["path"] and event.data["correct"] == len(quiz.questions) - 1

    # The editor's unsaved text is what is scored: a buffer with the questions deleted has none.
    head = text.split("\n## ", 1)[0]
    study.open(made["path"], head)
    error = await _error(study, "cognivault/quizAttempt", {"uri": made["uri"], "answers": right})
    assert error.code == types.ErrorCodes.InvalidParams and "no quiz questions" in error.message
    assert len(_events(study, "quiz_attempt")) == 1

    error = await _error(study, "cognivault/quizAttempt", {"uri": made["uri"], "answers": "A,B"})
    assert error.code == types.ErrorCodes.InvalidParams and "answers" in error.message
    error = await _error(study, "cognivault/quizAttempt", {"answers": right})
    assert error.code == types.ErrorCodes.InvalidParams and "uri" in error.message
