"""What every generator shares: the model call, the defensive parse, the result, writing the note.

The defensive path (issue 5): a schema-by-example prompt with exact counts
and passage numbers instead of repeated text, the model with JSON-schema
output, tolerant parsing (``jsonparse``), per-item validation that drops
malformed items and cuts surplus ones (both counted), and the note written
atomically into the study folder under a name no existing note has.

:class:`GeneratorSpec` is that path once, for every generator: retrieve
within the scope, the model (``from_model``) or the extractive path
(``extract``), the items validated into a :class:`Draft` (drop and cut
counts), an error when nothing usable came out, the note composed by the
generator (``compose``), its frontmatter, the read-back check, and the note
written. Each generator module supplies only what is its own.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Annotated, Any, Generic, TypeVar

from pydantic import AfterValidator

from cognivault.atomic import atomic_create
from cognivault.study.citations import link
from cognivault.study.extract import hub_notes, transcript_notes
from cognivault.study.jsonparse import JSONParseError, items_of, parse_model_json
from cognivault.study.prompts import load_study_prompt
from cognivault.study.schema import render_frontmatter
from cognivault.study.sources import GenerationError, Source, SourceSet, StudyRequest, gather_sources
from cognivault.vault.guard import VaultPathError, inside_vault
from cognivault.vault.notewriter import update_note

if TYPE_CHECKING:
    from cognivault.models.chat import ChatProvider

log = logging.getLogger(__name__)

T = TypeVar("T")
Progress = Callable[[str, str], None]
_FILENAME_UNSAFE = re.compile(r'[\\/:*?"<>|#^\[\]\x00-\x1f]+')


def no_progress(stage: str, message: str) -> None:
    pass


@dataclass(slots=True)
class GenerationResult:
    kind: str
    path: str  # vault-relative path of the written note
    title: str
    provider: str
    model: str | None
    requested: int
    produced: int
    dropped: int  # malformed items left out
    cut: int  # valid items beyond the requested count
    chunk_ids: list[str]
    source_notes: list[str]
    warnings: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# -- providers ---------------------------------------------------------------
def provider_identity(provider: ChatProvider | None) -> tuple[str, str | None]:
    if provider is None:
        return "extractive", None
    name = str(getattr(provider, "name", "") or type(provider).__name__)
    model = getattr(provider, "model", None)
    return name, (str(model) if model and name != "extractive" else None)


def is_extractive(provider: ChatProvider | None) -> bool:
    return provider is None or provider_identity(provider)[0] == "extractive"


async def ask_model(provider: ChatProvider, system: str, user: str, *, schema: dict[str, Any] | None,
                    max_tokens: int) -> str:
    """The whole reply text; model failures become GenerationError with the provider's code."""
    from cognivault.models.chat import ChatError, ChatMessage, ChatOptions, complete

    try:
        return await complete(provider, [ChatMessage("system", system), ChatMessage("user", user)],
                              schema=schema, options=ChatOptions(max_tokens=max_tokens, temperature=0.2))
    except ChatError as exc:
        raise GenerationError(exc.message, exc.code) from exc


def prompt_values(sources: SourceSet, count: int, **extra: Any) -> dict[str, str]:
    values = {"count": str(count), "sources": sources.prompt_block(), "source_count": str(len(sources.sources)),
              "topic": sources.title, "language": sources.language, "reminder": ""}
    values.update({k: str(v) for k, v in extra.items()})
    return values


async def model_items(provider: ChatProvider, vault: Path, prompt: str, values: dict[str, str],
                      schema: dict[str, Any], keys: tuple[str, ...], max_tokens: int) -> tuple[Any, list[Any]]:
    """(parsed JSON, its list of items) from one model call; JSONParseError when unreadable."""
    template = load_study_prompt(prompt, vault)
    system, user = template.render(values)
    reply = await ask_model(provider, system, user, schema=schema, max_tokens=max_tokens)
    parsed = parse_model_json(reply)
    return parsed, items_of(parsed, keys)


def _squeezed(value: str) -> str:
    value = " ".join(value.split())
    if not value:
        raise ValueError("empty")
    return value


# A model's text field: whitespace runs folded to one space, empty after that is invalid.
Text = Annotated[str, AfterValidator(_squeezed)]


def keep_valid(raw_items: list[Any], check: Callable[[Any], T | None], count: int) -> tuple[list[T], int, int]:
    """(valid items cut to ``count``, malformed dropped, surplus cut)."""
    valid: list[T] = []
    dropped = 0
    for raw in raw_items:
        try:
            item = check(raw)
        except (TypeError, ValueError, KeyError, AttributeError):
            item = None
        if item is None:
            dropped += 1
        else:
            valid.append(item)
    cut = max(0, len(valid) - count)
    return valid[:count], dropped, cut


def unreadable(kind: str, exc: JSONParseError) -> GenerationError:
    return GenerationError(f"the model's {kind} could not be read as JSON ({exc}); try again, a smaller count "
                           "or a narrower scope", "model_output_invalid")


# -- names and frontmatter ------------------------------------------------------
def safe_filename(title: str, limit: int = 80) -> str:
    cleaned = " ".join(_FILENAME_UNSAFE.sub(" ", title).split()).strip(". ")
    return cleaned[:limit].rstrip(". ") or "Untitled"


def deck_slug(title: str) -> str:
    slug = re.sub(r"[^\w/-]+", "-", title.strip().lower(), flags=re.UNICODE).strip("-/")
    return re.sub(r"-{2,}", "-", slug)[:60] or "generated"


def short_id(*parts: str) -> str:
    return hashlib.sha256("\x00".join(parts).encode()).hexdigest()[:16]


def build_frontmatter(kind: str, title: str, provider: ChatProvider | None, request: StudyRequest,
                      sources: SourceSet, used: list[Source], counts: dict[str, int],
                      **extra: Any) -> dict[str, Any]:
    name, model = provider_identity(provider)
    used = used or sources.sources
    notes = list(dict.fromkeys(s.path for s in used))
    data: dict[str, Any] = {
        "cognivault": 1,
        "type": kind,
        "title": title[:200],
        "generated_at": datetime.now(UTC).astimezone().isoformat(timespec="seconds"),
        "provider": name,
        "model": model,
        "scope": request.describe(sources.note_path),
        "source_notes": [link(p) for p in notes],
        "chunk_ids": list(dict.fromkeys(s.chunk_id for s in used)),
        "counts": counts,
    }
    data.update({k: v for k, v in extra.items() if v is not None})
    return data


# -- writing ---------------------------------------------------------------------
def study_folder(vault: Path, settings: Any) -> Path:
    """Where generated notes go: ``study.folder``, which must stay inside the vault (the one path guard)."""
    raw = str(getattr(getattr(settings, "study", None), "folder", "Study") or "Study")
    try:
        return vault / inside_vault(vault, raw, "study.folder")
    except VaultPathError as exc:
        raise GenerationError(f"{exc} (got {raw!r}); set study.folder to a folder inside the vault",
                              "bad_path") from None


def _is_placeholder(path: Path) -> bool:
    """An empty note (e.g. created by clicking a link to a lesson not written yet) may be filled in."""
    try:
        return path.is_file() and path.stat().st_size < 64 and not path.read_text("utf-8", "replace").strip()
    except OSError:
        return False


def write_new_note(vault: Path, folder: Path, name: str, text: str, *, fill_placeholder: bool = False) -> str:
    """Write ``text`` as ``folder/name.md`` (atomically); an existing note gets a new name, never overwritten."""
    base = safe_filename(name)
    names = (folder / (f"{base}.md" if number == 1 else f"{base} {number}.md") for number in range(1, 1000))
    first = folder / f"{base}.md"
    if fill_placeholder and _is_placeholder(first) and \
            update_note(vault, first, lambda current: None if current.strip() else text) is not None:
        return first.relative_to(vault).as_posix()
    written = atomic_create((candidate for candidate in names if not candidate.exists()), text.encode("utf-8"))
    if written is None:
        raise GenerationError(f"no free note name for {base!r} in {folder}", "name_exhausted")
    return written.relative_to(vault).as_posix()


def note_text(frontmatter: dict[str, Any], body: str) -> str:
    return render_frontmatter(frontmatter) + "\n" + body.strip() + "\n"


def used_sources(sources: SourceSet, numbers: list[int]) -> list[Source]:
    seen: dict[int, Source] = {}
    for number in numbers:
        source = sources.by_number(number)
        if source is not None:
            seen.setdefault(source.number, source)
    return sorted(seen.values(), key=lambda s: s.number)


def relative_link(path: str) -> str:
    return str(PurePosixPath(path).with_suffix(""))


# -- the one generator skeleton ------------------------------------------------------
@dataclass(slots=True)
class Draft(Generic[T]):
    """What came out of the model or the extractive path, validated: the items and what was left out."""

    items: list[T]
    dropped: int = 0  # malformed items left out
    cut: int = 0  # valid items beyond the requested count
    data: Any = None  # the whole artifact when it is more than its items (the mind map's root, the outline)


@dataclass(slots=True)
class Composed:
    """The note a generator wants written, before its frontmatter."""

    title: str
    body: str
    used: list[Source]  # the passages the note cites
    folder: Path
    name: str = ""  # the file name without ``.md`` (default: the title)
    frontmatter: dict[str, Any] = field(default_factory=dict)  # the kind's own frontmatter keys
    extra: dict[str, Any] = field(default_factory=dict)  # GenerationResult.extra
    reads_back: Callable[[str], bool] | None = None  # the full note text parses as written
    after_write: Callable[[str, str], None] | None = None  # (vault path, text) once written


Extract = Callable[[SourceSet, int], Draft[Any]]
FromModel = Callable[["ChatProvider", Path, SourceSet, int, Progress], Awaitable[Draft[Any]]]
Compose = Callable[[Any, StudyRequest, SourceSet, Draft[Any], int], Composed]


@dataclass(frozen=True, slots=True)
class ListPrompt:
    """A model path whose reply is a list of items, each validated by ``check`` (flashcards, quiz)."""

    prompt: str  # the study prompt's name
    schema: dict[str, Any]
    keys: tuple[str, ...]  # where the list may sit in the reply object
    label: str  # the artifact, in the unreadable-reply error
    noun: str  # one item, plural, in progress messages
    tokens_per_item: int
    check: Callable[[Any, SourceSet], Any]

    async def __call__(self, provider: ChatProvider, vault: Path, sources: SourceSet, count: int,
                       progress: Progress) -> Draft[Any]:
        try:
            _, raw_items = await model_items(provider, vault, self.prompt, prompt_values(sources, count), self.schema,
                                             self.keys, max_tokens=300 + self.tokens_per_item * count)
        except JSONParseError as exc:
            raise unreadable(self.label, exc) from exc
        progress("validate", f"checking {len(raw_items)} {self.noun}")
        items, dropped, cut = keep_valid(raw_items, lambda raw: self.check(raw, sources), count)
        return Draft(items, dropped, cut)


@dataclass(frozen=True, slots=True)
class GeneratorSpec:
    """One generator: its counts, its two ways of making items, and how its note is composed."""

    kind: str
    default_count: int
    max_count: int
    extract: Extract
    extract_message: Callable[[SourceSet, int], str]
    from_model: FromModel
    model_request: str  # what the model is asked for, with ``{count}``
    compose: Compose
    nothing: str  # which usable items came out of nothing, e.g. "flashcards"
    malformed: str = "ones"  # what the dropped items are called in that error
    warn_short: bool = False  # warn when fewer items than requested came out
    # without a model and with no count asked: every item the notes' structure supports, up to max_count (a
    # glossary of 60 entries gets 60 cards, a note of 5 definitions 5); None: default_count as with a model
    extractive_all: bool = False
    write_message: str = "writing the note"

    @classmethod
    def of_items(cls, kind: str, default_count: int, max_count: int, items: Callable[[SourceSet, int], list[Any]],
                 prompt: ListPrompt, compose: Compose, nothing: str, extractive_all: bool = False) -> GeneratorSpec:
        """A generator whose artifact is a list of items (flashcards, quiz questions)."""
        return cls(kind, default_count, max_count, extract=lambda sources, count: Draft(items(sources, count)),
                   extract_message=lambda sources, count: f"building {prompt.noun} from {len(sources.sources)} "
                                                          "passages",
                   from_model=prompt, model_request="{count} " + prompt.noun, compose=compose, nothing=nothing,
                   warn_short=True, extractive_all=extractive_all)

    async def run(self, engine: Any, request: StudyRequest, provider: ChatProvider | None, *,
                  progress: Progress = no_progress, sources: SourceSet | None = None) -> GenerationResult:
        """Generate one artifact within ``request``'s scope and write its note (model or extractive)."""
        extractive = is_extractive(provider)
        every = extractive and self.extractive_all and not request.count  # as many as the structure supports
        count = max(1, min(request.count or (self.max_count if every else self.default_count), self.max_count))
        progress("retrieve", "finding passages")
        sources = sources or gather_sources(engine, request)
        unasked: dict[str, str] = {}  # notes with nothing to ask (a hub of links): path -> why
        spoken: dict[str, str] = {}  # lectures said aloud, asked only where the lecturer is clear: path -> how
        if extractive:
            progress("extract", self.extract_message(sources, count))
            draft = self.extract(sources, count)
            unasked = hub_notes(sources.material) if self.warn_short else {}
            spoken = transcript_notes(sources.material) if self.warn_short else {}
        else:
            assert provider is not None
            progress("model", f"asking {provider_identity(provider)[1]} for {self.model_request.format(count=count)}")
            draft = await self.from_model(provider, engine.vault, sources, count, progress)
        if not draft.items and unasked:
            raise GenerationError("; ".join(f"nothing to ask in {path}: {why}" for path, why in unasked.items()),
                                  "nothing_generated")
        if not draft.items and spoken:
            raise GenerationError("; ".join(f"nothing to ask in {path}: {why}" for path, why in spoken.items()),
                                  "nothing_generated")
        if not draft.items:
            raise GenerationError(f"no usable {self.nothing} came out of these passages"
                                  + (f" ({draft.dropped} malformed {self.malformed} were dropped)" if draft.dropped
                                     else "") + "; try another scope", "nothing_generated")
        composed = self.compose(engine, request, sources, draft, count)
        counts = {"requested": count, "produced": len(draft.items), "dropped": draft.dropped, "cut": draft.cut}
        frontmatter = build_frontmatter(self.kind, composed.title, provider, request, sources, composed.used, counts,
                                        **composed.frontmatter)
        text = note_text(frontmatter, composed.body)
        if composed.reads_back is not None and not composed.reads_back(text):
            # never write a note that its own readers (the plugin, scoring) would read differently
            raise GenerationError(f"the generated {self.nothing} do not read back as written", "render_failed")
        progress("write", self.write_message)
        path = write_new_note(engine.vault, composed.folder, composed.name or composed.title, text)
        if composed.after_write is not None:
            composed.after_write(path, text)
        name, model = provider_identity(provider)
        warnings = [f"only {len(draft.items)} of {count} {self.nothing} could be made from these passages; "
                    "widen the scope for more"] if self.warn_short and not every and len(draft.items) < count else []
        warnings += [f"left out {path}: {why}" for path, why in unasked.items()]
        warnings += [f"{path}: {why}" for path, why in spoken.items()]
        return GenerationResult(self.kind, path, composed.title, name, model, count, len(draft.items), draft.dropped,
                                draft.cut, frontmatter["chunk_ids"],
                                list(dict.fromkeys(s.path for s in composed.used)), warnings,
                                extra=composed.extra)
