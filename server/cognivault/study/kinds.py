"""The kinds of study note CogniVault writes, listed once.

Each front end takes its list from :data:`STUDY_KINDS`: the CLI's ``generate`` choices,
the companion's ``/api/generate/{kind}`` route, the language server's ``cognivault/generate``
kinds and its "Generate ..." code actions. A new generator is a module with an
``async def generate_x(engine, request, provider, *, progress, sources)`` and one line here
(plus its prompt in ``study/prompts.py`` when it asks a model). This module imports no
generator: each is imported when its kind is generated.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class StudyKind:
    """One kind of study note: its name on every front end, what "Generate ..." calls it, its generator."""

    name: str
    label: str  # "a mind map", as in "Generate a mind map from this note"
    generator: str  # "module:function", imported when the kind is generated
    from_notes: bool = True  # made from a note, a scope or a topic (a lesson is made from a workshop outline)

    def load(self) -> Any:
        module, _, function = self.generator.partition(":")
        return getattr(importlib.import_module(module), function)


# The one list of study kinds: the CLI's choices, the companion's routes, the language server's
# kinds and code actions and the docs' tables all come from it.
STUDY_KINDS: dict[str, StudyKind] = {kind.name: kind for kind in (
    StudyKind("flashcards", "flashcards", "cognivault.study.flashcards:generate_flashcards"),
    StudyKind("quiz", "a quiz", "cognivault.study.quiz:generate_quiz"),
    StudyKind("mindmap", "a mind map", "cognivault.study.mindmap:generate_mindmap"),
    StudyKind("workshop", "a workshop", "cognivault.study.workshop:generate_workshop"),
    StudyKind("lesson", "a workshop lesson", "cognivault.study.workshop:generate_lesson", from_notes=False),
)}
KINDS = tuple(STUDY_KINDS)
NOTE_KINDS = tuple(kind.name for kind in STUDY_KINDS.values() if kind.from_notes)  # made from notes
