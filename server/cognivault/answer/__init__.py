"""Grounded answers: evidence pack, confidence, verified citations, tools, sessions, NDJSON streaming.

The public entry point is :func:`cognivault.answer.pipeline.stream_answer`
(re-exported here lazily, so importing this package stays cheap).
"""

from __future__ import annotations

from typing import Any

__all__ = ["AskError", "AskRequest", "Attachment", "SessionStore", "stream_answer"]


def __getattr__(name: str) -> Any:
    if name == "stream_answer":
        from cognivault.answer.pipeline import stream_answer

        return stream_answer
    if name in ("AskRequest", "AskError", "Attachment"):
        from cognivault.answer import request

        return getattr(request, name)
    if name == "SessionStore":
        from cognivault.answer.sessions import SessionStore

        return SessionStore
    raise AttributeError(name)
