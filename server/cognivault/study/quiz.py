"""Quizzes: multiple choice and true/false, answers folded in callouts, attempts scored and recorded.

A question is rendered as::

    ## Question 1

    Where does the Calvin cycle take place?

    - A) Thylakoid membrane
    - B) Stroma

    > [!success]- Answer
    > **B) Stroma**
    > The Calvin cycle runs in the stroma of the chloroplast.
    > Source: [[Photosynthesis/Calvin cycle|Calvin cycle]]<!--cv:cite id=... h=...-->

The answer callout is collapsed (``-``) so Obsidian hides it until opened.
Scoring reads the note back (``parse_quiz``), so a user's edit to a question
or its answer counts.
"""

from __future__ import annotations

import random
import re
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ValidationError, field_validator

from cognivault.study.citations import CITATION_RE, cite, link
from cognivault.study.common import Composed, Draft, GeneratorSpec, ListPrompt, Text, short_id, study_folder
from cognivault.study.extract import Fact, all_facts, blank_term, display_term, spread
from cognivault.study.schema import body_of, read_frontmatter
from cognivault.study.sources import Source, SourceSet, StudyRequest
from cognivault.vault.notewriter import update_note

if TYPE_CHECKING:
    from cognivault.study.progress import ProgressStore

DEFAULT_COUNT = 8
MAX_COUNT = 50
LETTERS = "ABCDEF"
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"questions": {"type": "array", "items": {
        "type": "object",
        "properties": {"type": {"type": "string", "enum": ["mcq", "tf"]}, "question": {"type": "string"},
                       "options": {"type": "array", "items": {"type": "string"}},
                       "correct_index": {"type": "integer"}, "explanation": {"type": "string"},
                       "source": {"type": "integer"}},
        "required": ["type", "question", "options", "correct_index", "explanation", "source"]}}},
    "required": ["questions"],
}
_TRUE_FALSE = {"en": ("True", "False"), "de": ("Wahr", "Falsch")}


class QuestionItem(BaseModel):
    type: Literal["mcq", "tf"] = "mcq"
    question: Text
    options: list[str]
    correct_index: int
    explanation: Text
    source: int

    @field_validator("options")
    @classmethod
    def _options(cls, value: list[str]) -> list[str]:
        cleaned = [" ".join(str(o).split()) for o in value]
        if not 2 <= len(cleaned) <= len(LETTERS) or any(not o for o in cleaned):
            raise ValueError("2 to 6 non-empty options")
        if len({o.casefold() for o in cleaned}) != len(cleaned):
            raise ValueError("options repeat")
        return cleaned


@dataclass(frozen=True, slots=True)
class QuizQuestion:
    kind: str  # mcq | tf
    question: str
    options: list[str]
    correct_index: int
    explanation: str
    source: Source | None  # None when read back from a note

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("source")
        return data


def _two_sentences(text: str) -> str:
    parts = re.split(r"(?<=[.!?])\s+", text.strip())
    return " ".join(parts[:2])


def check_question(raw: Any, sources: SourceSet) -> QuizQuestion | None:
    try:
        item = QuestionItem.model_validate(raw)
    except ValidationError:
        return None
    source = sources.by_number(item.source)
    if source is None or not 0 <= item.correct_index < len(item.options):
        return None
    options = item.options
    if item.type == "tf":
        if len(options) != 2:
            return None
    return QuizQuestion(item.type, item.question, options, item.correct_index, _two_sentences(item.explanation),
                        source)


# -- extractive ------------------------------------------------------------------
def _distractors(fact: Fact, pool: list[Fact], wanted: int) -> list[str]:
    """Sibling terms: from the same note first, then from the rest of the scope."""
    term = fact.term.casefold()
    same = [f for f in pool if f.source.path == fact.source.path]
    other = [f for f in pool if f.source.path != fact.source.path]
    picked: list[str] = []
    for candidate in same + other:
        name = display_term(candidate.term, candidate.source.text, candidate.german)
        key = candidate.term.casefold()
        if key == term or key in term or term in key or name.casefold() in {p.casefold() for p in picked}:
            continue
        if candidate.kind == "heading":
            continue
        picked.append(name)
        if len(picked) >= wanted:
            break
    return picked


def extractive_questions(sources: SourceSet, count: int) -> list[QuizQuestion]:
    facts = [f for f in all_facts(sources.sources, sources.language) if f.kind != "heading"]
    unique: dict[str, Fact] = {}
    for fact in facts:
        unique.setdefault(fact.term.casefold(), fact)
    pool = list(unique.values())
    chosen = spread(pool, count)
    questions: list[QuizQuestion] = []
    for number, fact in enumerate(chosen):
        german = fact.german
        rng = random.Random(f"{fact.source.chunk_id}:{fact.term}")
        term = display_term(fact.term, fact.source.text, german)
        distractors = _distractors(fact, pool, 3)
        if fact.kind in ("definition", "colon"):
            description = fact.definition.rstrip(".")
            stem = (f"Welcher Begriff passt zu dieser Beschreibung: „{description}“?" if german else
                    f"Which term matches this description: “{description}”?")
        else:
            blank = blank_term(fact.sentence, fact.term)
            stem = (f"Welcher Begriff ergänzt den Satz: „{blank}“" if german else
                    f"Which term completes the sentence: “{blank}”") if blank else \
                (f"Welcher Begriff passt: „{fact.definition}“" if german else f"Which term fits: “{fact.definition}”")
        use_true_false = len(distractors) < 2 or number % 3 == 2
        if use_true_false:
            true_word, false_word = _TRUE_FALSE["de" if german else "en"]
            statement = fact.sentence
            correct = 0
            swapped = blank_term(fact.sentence, fact.term, distractors[0]) if distractors else ""
            if swapped and rng.random() < 0.5:
                statement, correct = swapped, 1
            question = (f"Stimmt das? {statement}" if german else f"True or false: {statement}")
            explanation = fact.sentence
            questions.append(QuizQuestion("tf", question, [true_word, false_word], correct, explanation,
                                          fact.source))
            continue
        options = [term, *distractors[:3]]
        rng.shuffle(options)
        questions.append(QuizQuestion("mcq", stem, options, options.index(term), fact.sentence, fact.source))
    if len(questions) < count:
        questions.extend(_section_questions(sources, count - len(questions)))
    return questions


def _section_questions(sources: SourceSet, wanted: int) -> list[QuizQuestion]:
    """"Which section explains: …?" with the note's other section headings as wrong options."""
    facts = [f for f in all_facts(sources.sources, sources.language) if f.kind == "heading"]
    by_note: dict[str, list[Fact]] = {}
    for fact in facts:
        by_note.setdefault(fact.source.path, []).append(fact)
    questions: list[QuizQuestion] = []
    for fact in spread(facts, len(facts)):
        if len(questions) >= wanted:
            break
        siblings = list(dict.fromkeys(f.term for f in by_note[fact.source.path] if f.term != fact.term))
        if len(siblings) < 2:
            continue
        rng = random.Random(f"section:{fact.source.chunk_id}")
        options = [fact.term, *rng.sample(siblings, min(3, len(siblings)))]
        rng.shuffle(options)
        excerpt = fact.definition
        stem = (f"Welcher Abschnitt von „{fact.source.title}“ erklärt: „{excerpt}“?" if fact.german else
                f"Which section of “{fact.source.title}” explains: “{excerpt}”?")
        questions.append(QuizQuestion("mcq", stem, options, options.index(fact.term),
                                      (f"Das steht im Abschnitt „{fact.term}“." if fact.german else
                                       f"This is in the section “{fact.term}”."), fact.source))
    return questions


# -- rendering and reading back ----------------------------------------------------
def render_quiz_body(title: str, questions: list[QuizQuestion], sources: SourceSet, path_hint: str) -> str:
    german = sources.language == "de"
    origin = ", ".join(link(p) for p in dict.fromkeys(q.source.path for q in questions if q.source))
    intro = (f"{len(questions)} Fragen aus {origin}. Die Antworten sind eingeklappt. Ein Versuch wird mit "
             f"`cognivault quiz \"{path_hint}\"` oder im Dashboard bewertet." if german else
             f"{len(questions)} questions from {origin}. Answers are folded: open a callout to check one. "
             f"Score an attempt with `cognivault quiz \"{path_hint}\"` or in the dashboard.")
    word = "Frage" if german else "Question"
    answer_word = "Antwort" if german else "Answer"
    source_word = "Quelle" if german else "Source"
    parts = [f"# {title}", intro]
    for number, question in enumerate(questions, start=1):
        options = "\n".join(f"- {LETTERS[i]}) {option}" for i, option in enumerate(question.options))
        letter = LETTERS[question.correct_index]
        callout = [f"> [!success]- {answer_word}", f"> **{letter}) {question.options[question.correct_index]}**",
                   f"> {question.explanation}"]
        if question.source is not None:
            callout.append(f"> {source_word}: {cite(question.source)}")
        parts.append(f"## {word} {number}\n\n{question.question}\n\n{options}\n\n" + "\n".join(callout))
    return "\n\n".join(parts) + "\n"


_QUESTION_HEAD = re.compile(r"^##\s+\S.*?(\d+)\s*$")
_OPTION = re.compile(r"^\s*[-*]\s+([A-F])\)\s+(.*)$")
_ANSWER = re.compile(r"^>\s*\*\*([A-F])\)")


@dataclass(slots=True)
class ParsedQuiz:
    quiz_id: str | None
    title: str
    questions: list[QuizQuestion]
    sources: list[list[dict[str, Any]]]  # per question: its citations (target, heading, label, chunk_id)


def parse_quiz(text: str) -> ParsedQuiz:
    """The questions of a quiz note as the user sees them now (edits included)."""
    frontmatter = read_frontmatter(text)
    body = body_of(text)
    title = str(frontmatter.get("title") or "")
    blocks: list[list[str]] = []
    for line in body.split("\n"):
        if _QUESTION_HEAD.match(line):
            blocks.append([])
            continue
        if line.startswith("# ") and not title:
            title = line[2:].strip()
        if blocks:
            blocks[-1].append(line)
    questions: list[QuizQuestion] = []
    cited: list[list[dict[str, Any]]] = []
    for block in blocks:
        options: list[str] = []
        stem: list[str] = []
        answer: str | None = None
        explanation: list[str] = []
        in_callout = False
        for line in block:
            option = _OPTION.match(line)
            if line.startswith(">"):
                in_callout = True
                found = _ANSWER.match(line)
                if found:
                    answer = found.group(1)
                elif not re.match(r"^>\s*\[!", line) and not CITATION_RE.search(line):
                    explanation.append(line.lstrip("> ").strip())
            elif option and not in_callout:
                options.append(option.group(2).strip())
            elif line.strip() and not options and not in_callout:
                stem.append(line.strip())
        if not options or answer is None or LETTERS.index(answer) >= len(options):
            continue
        kind = "tf" if len(options) == 2 and {o.casefold() for o in options} in (
            {"true", "false"}, {"wahr", "falsch"}) else "mcq"
        questions.append(QuizQuestion(kind, " ".join(stem), options, LETTERS.index(answer),
                                      " ".join(e for e in explanation if e), None))
        cited.append([{"target": m["target"], "heading": m["heading"], "label": m["label"], "chunk_id": m["id"]}
                      for line in block for m in CITATION_RE.finditer(line)])
    return ParsedQuiz(str(frontmatter.get("quiz_id")) if frontmatter.get("quiz_id") else None, title, questions,
                      cited)


def _answer_index(value: Any, question: QuizQuestion) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 0 <= value < len(question.options) else None
    text = str(value).strip()
    if not text:
        return None
    upper = text.upper().rstrip(")")
    if len(upper) == 1 and upper in LETTERS[:len(question.options)]:
        return LETTERS.index(upper)
    if text.isdigit() and 1 <= int(text) <= len(question.options):
        return int(text) - 1
    lowered = text.casefold()
    for index, option in enumerate(question.options):
        if option.casefold() == lowered:
            return index
    if question.kind == "tf":
        if lowered in ("t", "true", "w", "wahr", "yes", "ja"):
            return 0
        if lowered in ("f", "false", "falsch", "no", "nein"):
            return 1
    return None


def questions_to_take(quiz: ParsedQuiz) -> list[dict[str, Any]]:
    """The questions as a quiz taker sees them: no answer, no explanation."""
    return [{"number": number, "kind": q.kind, "question": q.question, "options": q.options}
            for number, q in enumerate(quiz.questions, start=1)]


def score_attempt(quiz: ParsedQuiz, answers: list[Any]) -> dict[str, Any]:
    """Compare answers (letters, 1-based numbers, option text, true/false) with the note's answers."""
    details = []
    correct = 0
    for number, question in enumerate(quiz.questions, start=1):
        given = answers[number - 1] if number - 1 < len(answers) else None
        index = _answer_index(given, question)
        ok = index == question.correct_index
        correct += ok
        details.append({"number": number, "given": LETTERS[index] if index is not None else None,
                        "correct": LETTERS[question.correct_index], "ok": ok,
                        "explanation": question.explanation, "sources": quiz.sources[number - 1]})
    total = len(quiz.questions)
    return {"quiz_id": quiz.quiz_id, "title": quiz.title, "correct": correct, "total": total,
            "score": round(correct / total, 4) if total else 0.0, "details": details}


def record_attempt(progress: ProgressStore, quiz_path: str, result: dict[str, Any],
                   duration_s: float | None = None) -> None:
    progress.record("quiz_attempt", {"quiz": quiz_path, "quiz_id": result.get("quiz_id") or quiz_path,
                                     "title": result.get("title"), "correct": result["correct"],
                                     "total": result["total"], "score": result["score"]},
                    duration_s=duration_s)


class NotAQuiz(ValueError):
    """The note holds no quiz questions (any more)."""


def quiz_to_take(text: str, quiz_path: str) -> ParsedQuiz:
    """The quiz in a note's text, for an attempt; NotAQuiz when it has no questions."""
    quiz = parse_quiz(text)
    if not quiz.questions:
        raise NotAQuiz(f"{quiz_path} holds no quiz questions")
    return quiz


def take_attempt(progress: ProgressStore, quiz_path: str, quiz: ParsedQuiz, answers: list[Any],
                 duration_s: float | None = None) -> dict[str, Any]:
    """Score an attempt and record it in the study progress (CLI, companion and language server alike)."""
    result = score_attempt(quiz, answers)
    record_attempt(progress, quiz_path, result, duration_s=duration_s)
    return {"quiz": quiz_path, **result}


# -- generation -------------------------------------------------------------------
def _compose(engine: Any, request: StudyRequest, sources: SourceSet, draft: Draft[QuizQuestion],
             count: int) -> Composed:
    questions = draft.items
    title = f"Quiz - {sources.title}"
    quiz_id = short_id("quiz", title, *(q.question for q in questions))
    folder = study_folder(engine.vault, engine.settings)
    hint = f"{folder.relative_to(engine.vault).as_posix()}/{title}.md"

    def point_at(path: str, text: str) -> None:
        if path != hint:  # another note had the name: point the instructions at the real path
            wrong, right = f'`cognivault quiz "{hint}"`', f'`cognivault quiz "{path}"`'
            update_note(engine.vault, engine.vault / path,
                        lambda current: current.replace(wrong, right) if wrong in current else None)

    return Composed(title, render_quiz_body(title, questions, sources, hint),
                    list({q.source.chunk_id: q.source for q in questions if q.source}.values()), folder,
                    frontmatter={"quiz_id": quiz_id}, extra={"quiz_id": quiz_id},
                    reads_back=lambda text: len(parse_quiz(text).questions) == len(questions), after_write=point_at)


QUIZ = GeneratorSpec.of_items(
    "quiz", DEFAULT_COUNT, MAX_COUNT, extractive_questions,
    ListPrompt("quiz", SCHEMA, ("questions", "quiz", "items"), "quiz", "questions", 200, check_question),
    _compose, "quiz questions")
generate_quiz = QUIZ.run
