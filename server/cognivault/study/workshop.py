"""Workshops: an outline note written at once, each lesson generated on demand and linked from it.

The outline lives in its own folder in the study folder::

    Study/Workshop - How plants make sugar/Workshop - How plants make sugar.md
    Study/Workshop - How plants make sugar/Lesson 1 - Where photosynthesis happens.md

Each lesson line of the outline links to its (future) lesson note and cites
its sources, so the outline is all a lesson needs: ``generate_lesson`` reads
it back, fetches the cited passages and writes the lesson, as plain Markdown
(never JSON) with chat filler removed and ``[S1]`` labels turned into
citations. The outline alone may retry the model once with a stricter
reminder; a second failure is an error suggesting a narrower scope.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from cognivault.study.citations import CITATION_RE, cite, link
from cognivault.study.common import (
    Composed,
    Draft,
    GenerationResult,
    GeneratorSpec,
    Progress,
    Text,
    ask_model,
    build_frontmatter,
    is_extractive,
    no_progress,
    note_text,
    prompt_values,
    provider_identity,
    safe_filename,
    short_id,
    study_folder,
    write_new_note,
)
from cognivault.study.extract import all_facts, answer_for, first_sentence, key_phrases, question_for, spread
from cognivault.study.jsonparse import JSONParseError, parse_model_json
from cognivault.study.prompts import load_study_prompt
from cognivault.study.sources import GenerationError, Source, SourceSet, StudyRequest
from cognivault.vault.markdown import body_of, read_frontmatter
from cognivault.vault.notewriter import update_note

if TYPE_CHECKING:
    from cognivault.models.chat import ChatProvider

DEFAULT_LESSONS = 5
MAX_LESSONS = 12
MIN_LESSONS = 2
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"title": {"type": "string"}, "summary": {"type": "string"},
                   "lessons": {"type": "array", "items": {"type": "object", "properties": {
                       "title": {"type": "string"}, "objective": {"type": "string"},
                       "sources": {"type": "array", "items": {"type": "integer"}}},
                       "required": ["title", "objective", "sources"]}}},
    "required": ["title", "summary", "lessons"],
}
STRICT_REMINDER = ("IMPORTANT: your previous reply could not be used. Reply with ONE JSON object and nothing "
                   "else: keys \"title\" (string), \"summary\" (string) and \"lessons\" (an array of EXACTLY "
                   "{count} objects, each with \"title\", \"objective\" and \"sources\": an array of passage "
                   "numbers). No Markdown, no comments, no text before or after the JSON.")


class LessonItem(BaseModel):
    title: Text
    objective: Text
    sources: list[int]


@dataclass(slots=True)
class Lesson:
    number: int
    title: str
    objective: str
    sources: list[Source]
    path: str = ""  # vault path of the lesson note (written or to be written)


@dataclass(slots=True)
class Outline:
    title: str
    summary: str
    lessons: list[Lesson]
    dropped: int = 0
    cut: int = 0


def check_outline(parsed: Any, sources: SourceSet, count: int) -> Outline | None:
    if not isinstance(parsed, dict):
        return None
    title = " ".join(str(parsed.get("title") or "").split())
    summary = " ".join(str(parsed.get("summary") or "").split())
    raw_lessons = parsed.get("lessons")
    if not title or not summary or not isinstance(raw_lessons, list):
        return None
    lessons: list[Lesson] = []
    dropped = 0
    for raw in raw_lessons:
        try:
            item = LessonItem.model_validate(raw)
        except ValidationError:
            dropped += 1
            continue
        found = [s for s in (sources.by_number(n) for n in item.sources) if s is not None]
        if not found:
            dropped += 1
            continue
        lessons.append(Lesson(len(lessons) + 1, item.title[:120], item.objective,
                              list({s.chunk_id: s for s in found}.values())))
    cut = max(0, len(lessons) - count)
    lessons = lessons[:count]
    if len(lessons) < min(MIN_LESSONS, count):
        return None
    return Outline(title[:150], summary, lessons, dropped, cut)


def extractive_outline(sources: SourceSet, count: int) -> Outline:
    """Lessons from the scope's structure: one per note (several notes) or per section (one note)."""
    notes_mode = len({s.path for s in sources.sources}) > 1

    def grouped(depth: int | None) -> dict[str, list[Source]]:
        groups: dict[str, list[Source]] = {}
        for source in sources.sources:
            below_title = [h for h in source.heading_path[1:] if h]
            if notes_mode:
                key = source.path
            elif depth is None:
                key = below_title[-1] if below_title else ""
            else:
                key = below_title[0] if below_title else ""
            groups.setdefault(key, []).append(source)
        return groups

    groups = grouped(1)
    if not notes_mode and len([k for k in groups if k]) < count:
        deeper = grouped(None)
        if len([k for k in deeper if k]) > len([k for k in groups if k]):
            groups = deeper
    german = sources.language == "de"
    if "" in groups and len(groups) > 1:  # the intro of a single note joins the first section
        intro = groups.pop("")
        first = next(iter(groups))
        groups[first] = intro + groups[first]
    lessons: list[Lesson] = []
    for key, group in list(groups.items())[:count]:
        title = group[0].title if notes_mode else (key or group[0].title)
        # quoted as the note writes them: "Erkläre „Ein Alias“" stays grammatical where "Erkläre Ein Alias" is not
        terms = [f"„{t}“" if german else f"“{t}”" for s in group for t in key_phrases(s, 2)][:3]
        if terms:
            joined = ", ".join(terms[:-1]) + (f" und {terms[-1]}" if german else f" and {terms[-1]}") \
                if len(terms) > 1 else terms[0]
            objective = f"Erkläre {joined}." if german else f"Explain {joined}."
        else:
            objective = f"Fasse „{title}“ in eigenen Worten zusammen." if german \
                else f"Summarise “{title}” in your own words."
        lessons.append(Lesson(len(lessons) + 1, title, objective, group))
    opening = first_sentence(sources.sources[0])
    summary = (f"{len(lessons)} Lektionen zu {sources.title}: " if german else
               f"{len(lessons)} lessons on {sources.title}: ") + "; ".join(lesson.title for lesson in lessons) + "."
    if opening:
        summary = f"{opening} {summary}"
    return Outline(sources.title, summary, lessons)


# -- rendering and reading the outline ------------------------------------------------
def lesson_note_name(number: int, title: str) -> str:
    return safe_filename(f"Lesson {number} - {title}")


def render_outline_body(outline: Outline, german: bool, heading: str) -> str:
    lessons_word = "Lektionen" if german else "Lessons"
    sources_word = "Quellen" if german else "Sources"
    lines = [f"# {heading}", "", outline.summary, "", f"## {lessons_word}", ""]
    for lesson in outline.lessons:
        lesson_link = link(lesson.path, None, lesson.title)
        lines.append(f"{lesson.number}. {lesson_link} — {lesson.objective}")
        lines.append(f"   {sources_word}: " + ", ".join(cite(s) for s in lesson.sources))
    lines += ["", "Lektionen entstehen auf Abruf: im Dashboard, im Editor oder mit "
              "`cognivault generate lesson --workshop \"<diese Notiz>\" --lesson N`." if german else
              "Lessons are written on demand: from the dashboard, the editor, or with "
              "`cognivault generate lesson --workshop \"<this note>\" --lesson N`."]
    return "\n".join(lines) + "\n"


_LESSON_LINE = re.compile(r"^(?P<number>\d+)\.\s+\[\[(?P<target>[^\]|#]+)(?:\|(?P<label>[^\]]+))?\]\]\s*—\s*"
                          r"(?P<objective>.*)$")


@dataclass(slots=True)
class OutlineRef:
    workshop_id: str
    title: str
    lessons: list[dict[str, Any]]  # number, title, objective, target (path without .md), chunk_ids


def parse_outline(text: str) -> OutlineRef:
    frontmatter = read_frontmatter(text)
    lessons: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    for line in body_of(text).split("\n"):
        match = _LESSON_LINE.match(line.strip())
        if match:
            current = {"number": int(match["number"]), "title": match["label"] or PurePosixPath(match["target"]).name,
                       "objective": match["objective"].strip(), "target": match["target"], "chunk_ids": []}
            lessons.append(current)
            continue
        if current is not None and line.startswith("   "):
            current["chunk_ids"].extend(m["id"] for m in CITATION_RE.finditer(line))
    return OutlineRef(str(frontmatter.get("workshop_id") or ""), str(frontmatter.get("title") or ""), lessons)


async def _model_outline(provider: ChatProvider, vault: Path, sources: SourceSet, count: int,
                         progress: Progress) -> Outline:
    template = load_study_prompt("workshop_outline", vault)
    for attempt in (1, 2):
        values = prompt_values(sources, count)
        if attempt == 2:
            values["reminder"] = STRICT_REMINDER.format(count=count)
            progress("retry", "the outline was unusable; asking once more with a stricter reminder")
        system, user = template.render(values)
        reply = await ask_model(provider, system, user, schema=SCHEMA, max_tokens=1500)
        try:
            outline = check_outline(parse_model_json(reply), sources, count)
        except JSONParseError:
            outline = None
        if outline is not None:
            return outline
    raise GenerationError("the model could not produce a usable workshop outline twice; try a narrower scope "
                          "(one folder, one tag or a single note) or fewer lessons", "outline_failed")


def _compose(engine: Any, request: StudyRequest, sources: SourceSet, draft: Draft[Lesson], count: int) -> Composed:
    """The outline goes into a folder of its own, where its lessons will be written."""
    outline: Outline = draft.data
    title = f"Workshop - {outline.title}"
    base = study_folder(engine.vault, engine.settings)
    folder_name = safe_filename(title)
    folder = base / folder_name
    number = 2
    while folder.exists():
        folder = base / f"{folder_name} {number}"
        number += 1
    folder.mkdir(parents=True)
    for lesson in outline.lessons:
        lesson.path = (folder / f"{lesson_note_name(lesson.number, lesson.title)}.md").relative_to(
            engine.vault).as_posix()
    workshop_id = short_id("workshop", folder.as_posix(), outline.title)
    used = list({s.chunk_id: s for lesson in outline.lessons for s in lesson.sources}.values())
    return Composed(title, render_outline_body(outline, sources.language == "de", title), used, folder,
                    name=folder.name, frontmatter={"workshop_id": workshop_id, "lessons": len(outline.lessons)},
                    extra={"workshop_id": workshop_id,
                           "lessons": [{"number": lesson.number, "title": lesson.title, "path": lesson.path}
                                       for lesson in outline.lessons]})


def _as_draft(outline: Outline) -> Draft[Lesson]:
    return Draft(outline.lessons, outline.dropped, outline.cut, outline)


async def _from_model(provider: ChatProvider, vault: Path, sources: SourceSet, count: int,
                      progress: Progress) -> Draft[Lesson]:
    return _as_draft(await _model_outline(provider, vault, sources, count, progress))


WORKSHOP = GeneratorSpec(
    kind="workshop", default_count=DEFAULT_LESSONS, max_count=MAX_LESSONS,
    extract=lambda sources, count: _as_draft(extractive_outline(sources, count)),
    extract_message=lambda sources, count: "building the outline from the scope's structure",
    from_model=_from_model, model_request="an outline of {count} lessons", compose=_compose,
    nothing="workshop lessons", write_message="writing the outline")
generate_workshop = WORKSHOP.run


# -- lessons ----------------------------------------------------------------------
_FILLER = re.compile(
    r"^\s*(?:(?:sure|certainly|of course|absolutely|great question|gerne|natürlich|klar)\b[!,.:]?.*|"
    r"here(?:'s| is) (?:the|your|a) (?:lesson|workshop|markdown).*|hier ist (?:die|deine|eine) lektion.*|"
    r".*\b(?:i hope this helps|let me know if|feel free to|happy (?:studying|learning)|good luck|"
    r"ich hoffe,? (?:das|dies) hilft|lass mich wissen|viel erfolg)\b.*)$", re.IGNORECASE)
_LABEL = re.compile(r"\[S(\d+)\]")


def clean_lesson(markdown: str, sources: SourceSet) -> str:
    """Model Markdown made safe to store: no wrapping fence, no chat filler, no H1, labels → citations."""
    text = markdown.strip()
    fence = re.search(r"^```(?:markdown|md)?[ \t]*\n(.*?)\n```[ \t]*$", text, re.S | re.M)
    if fence and len(text) - len(fence.group(0)) < 300:  # the lesson wrapped in a fence, chatter around it
        text = fence.group(1).strip()
    lines = text.split("\n")
    while lines and (not lines[0].strip() or _FILLER.match(lines[0]) or lines[0].startswith("# ")):
        lines.pop(0)
    while lines and (not lines[-1].strip() or _FILLER.match(lines[-1]) or re.fullmatch(r"-{3,}", lines[-1].strip())):
        lines.pop()
    kept = [line for line in lines if not (_FILLER.match(line) and len(line) < 160)]
    text = "\n".join(kept)

    def replace(match: re.Match[str]) -> str:
        source = sources.by_number(int(match.group(1)))
        return f" {cite(source)}" if source is not None else ""

    text = _LABEL.sub(replace, text)
    text = re.sub(r"[ \t]+(?=\n)|[ \t]{2,}(?=\[\[)", " ", text)
    return re.sub(r" +([.,;:])", r"\1", text).strip()


def extractive_lesson(lesson_title: str, objective: str, sources: SourceSet) -> str:
    german = sources.language == "de"
    parts = [f"**{'Ziel' if german else 'Objective'}:** {objective}"]
    facts = [f for f in all_facts(sources.sources, sources.language) if f.kind not in ("heading", "step", "record")]
    if facts:
        parts.append("## " + ("Kernbegriffe" if german else "Key ideas"))
        parts.append("\n".join(f"- **{f.term}** — {answer_for(f) if f.kind != 'bold' else f.sentence} "
                               f"{cite(f.source)}" for f in spread(facts, 8)))
    parts.append("## " + ("Lesen" if german else "Read"))
    for source in sources.sources:
        heading = " › ".join([source.title, *[h for h in source.heading_path[1:] if h]])
        quoted = "\n".join(f"> {line}" if line.strip() else ">" for line in source.text.strip().split("\n"))
        parts.append(f"### {heading}\n\n{quoted}\n\n{cite(source)}")
    questions = [f for f in facts if f.kind in ("definition", "called", "item", "row")][:3]
    if questions:
        parts.append("## " + ("Prüfe dich selbst" if german else "Check yourself"))
        answer_word = "Antwort" if german else "Answer"
        for fact in questions:
            parts.append(f"- {question_for(fact)}\n\n> [!success]- {answer_word}\n> {answer_for(fact)} "
                         f"{cite(fact.source)}")
    return "\n\n".join(parts)


def _lesson_sources(engine: Any, chunk_ids: list[str], title: str) -> SourceSet:
    from cognivault.study.sources import _make_sources

    records = [r for r in (engine.chunk(cid) for cid in chunk_ids) if r is not None]
    sources = _make_sources(engine, records)
    if not sources:
        raise GenerationError("the passages this lesson cites are no longer in the index; regenerate the "
                              "workshop or re-index the vault", "sources_missing")
    counts: dict[str, int] = {}
    for source in sources:
        counts[source.lang or "en"] = counts.get(source.lang or "en", 0) + len(source.text)
    return SourceSet(sources, title, None, max(counts, key=counts.__getitem__))


async def generate_lesson(engine: Any, workshop: str, number: int, provider: ChatProvider | None, *,
                          progress: Progress = no_progress) -> GenerationResult:
    """Write lesson ``number`` of the workshop whose outline note is ``workshop`` (a vault path)."""
    outline_path = Path(engine.vault) / workshop
    try:
        outline_text = outline_path.read_text("utf-8")
    except OSError as exc:
        raise GenerationError(f"workshop outline {workshop} not found", "unknown_note") from exc
    ref = parse_outline(outline_text)
    lesson = next((row for row in ref.lessons if row["number"] == number), None)
    if lesson is None:
        raise GenerationError(f"{workshop} has no lesson {number} (it has {len(ref.lessons)})", "unknown_lesson")
    progress("retrieve", "reading the lesson's passages")
    sources = _lesson_sources(engine, lesson["chunk_ids"], lesson["title"])
    german = sources.language == "de"
    if provider is None or is_extractive(provider):
        progress("extract", "assembling the lesson from its passages")
        body = extractive_lesson(lesson["title"], lesson["objective"], sources)
    else:
        progress("model", f"asking {provider_identity(provider)[1]} to write the lesson")
        template = load_study_prompt("workshop_lesson", engine.vault)
        values = {"workshop_title": ref.title, "lesson_title": lesson["title"], "lesson_number": str(number),
                  "objective": lesson["objective"], "sources": sources.prompt_block("S"),
                  "language": sources.language}
        system, user = template.render(values)
        reply = await ask_model(provider, system, user, schema=None, max_tokens=1800)
        body = clean_lesson(reply, sources)
        if len(body) < 40:
            raise GenerationError("the model returned no usable lesson text; try again", "nothing_generated")
    back = ("Zurück zum Workshop" if german else "Back to the workshop")
    title = f"{'Lektion' if german else 'Lesson'} {number}: {lesson['title']}"
    body = f"# {title}\n\n{back}: {link(workshop, None, ref.title or 'Workshop')}\n\n{body}\n"
    used = [s for s in sources.sources if s.chunk_id in body]
    request = StudyRequest(note=None)
    frontmatter = build_frontmatter("workshop-lesson", title, provider, request, sources, used or sources.sources,
                                    {"requested": 1, "produced": 1, "dropped": 0},
                                    workshop_id=ref.workshop_id or short_id("workshop", workshop),
                                    lesson=number, workshop=f"[[{PurePosixPath(workshop).with_suffix('')}]]")
    text = note_text(frontmatter, body)
    target = PurePosixPath(lesson["target"] + ".md")
    folder = Path(engine.vault) / target.parent
    progress("write", "writing the lesson")
    path = write_new_note(engine.vault, folder, target.stem, text, fill_placeholder=True)
    if path != target.as_posix():
        _relink_outline(engine.vault, outline_path, lesson["target"], str(PurePosixPath(path).with_suffix("")))
    name, model = provider_identity(provider)
    return GenerationResult("lesson", path, title, name, model, 1, 1, 0, 0, frontmatter["chunk_ids"],
                            [p for p in dict.fromkeys(s.path for s in (used or sources.sources))],
                            extra={"workshop": workshop, "workshop_id": frontmatter["workshop_id"],
                                   "lesson": number, "lessons_total": len(ref.lessons)})


def _relink_outline(vault: Path, outline_path: Path, old_target: str, new_target: str) -> None:
    """Point the outline's lesson link at the note actually written (only that link; the user's edits stay)."""
    old_link, new_link = f"[[{old_target}|", f"[[{new_target}|"
    update_note(vault, outline_path, lambda text: text.replace(old_link, new_link, 1) if old_link in text else None)
