"""One entry point for every generator, used by the CLI, the companion and the language server.

``run_generation(kind, engine, request, provider)`` gathers the passages,
runs the generator (model or extractive), writes the note, records a
progress event, and returns a :class:`GenerationResult`. ``progress`` gets
``(stage, message)`` pairs as it goes (the companion streams them as NDJSON).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cognivault.study.common import GenerationResult, Progress, no_progress, study_folder
from cognivault.study.kinds import KINDS, STUDY_KINDS
from cognivault.study.sources import GenerationError, StudyRequest

if TYPE_CHECKING:
    from cognivault.models.chat import ChatProvider
    from cognivault.study.progress import ProgressStore


async def run_generation(kind: str, engine: Any, request: StudyRequest, provider: ChatProvider | None, *,
                         progress: Progress = no_progress, store: ProgressStore | None = None,
                         workshop: str | None = None, lesson: int | None = None,
                         sources: Any = None) -> GenerationResult:
    """Generate one artifact of ``kind`` and write it into the vault (see the module docstring)."""
    study_folder(engine.vault, engine.settings)  # a study folder outside the vault is refused before any work
    spec = STUDY_KINDS.get(kind)
    if spec is None:
        raise GenerationError(f"unknown kind {kind!r}: one of {', '.join(KINDS)}", "bad_request")
    generator = spec.load()
    if not spec.from_notes:
        if not workshop or not lesson:
            raise GenerationError("a lesson needs the workshop outline note and the lesson number", "bad_request")
        result = await generator(engine, workshop, int(lesson), provider, progress=progress)
        if store is not None:
            store.record("lesson_read", {"workshop_id": result.extra["workshop_id"], "workshop": workshop,
                                         "lesson": result.extra["lesson"],
                                         "lessons_total": result.extra["lessons_total"], "path": result.path})
        return result
    result = await generator(engine, request, provider, progress=progress, sources=sources)
    if store is not None:
        data: dict[str, Any] = {"kind": kind, "path": result.path, "produced": result.produced,
                                "provider": result.provider}
        if kind == "workshop":
            data.update(workshop_id=result.extra.get("workshop_id"), lessons=result.produced)
        store.record("generate", data)
    return result
