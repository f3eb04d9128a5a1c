"""What a client asks: the question, its scope, session, attachments and switches, validated.

Input rules: a question is 1 to 4,000 characters after trimming; at most
``MAX_ATTACHMENTS`` attachments of at most ``MAX_ATTACHMENT_BYTES`` each and
``MAX_TOTAL_ATTACHMENT_BYTES`` together, of the kinds in ``ATTACHMENT_KINDS``.
Violations raise :class:`AskError` with a stable ``code`` and an HTTP
``status`` (400 bad input, 413 too large, 415 unsupported type), so a server
answers with a clear 4xx before any stream starts.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePath
from typing import Any

from cognivault.errors import CogniVaultError
from cognivault.index.scope import Scope, ScopeError
from cognivault.vault.extractors import DOCUMENT_FORMATS, suffixes_of

MAX_QUESTION_CHARS = 4000
MAX_ATTACHMENTS = 4
MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024
MAX_TOTAL_ATTACHMENT_BYTES = 20 * 1024 * 1024
MAX_SOURCES = 12

TEXT_SUFFIXES = frozenset({".md", ".markdown", ".txt", ".text"})
IMAGE_SUFFIXES = suffixes_of("image")
DOCUMENT_SUFFIXES = suffixes_of(*DOCUMENT_FORMATS)
ATTACHMENT_KINDS = TEXT_SUFFIXES | IMAGE_SUFFIXES | DOCUMENT_SUFFIXES


class AskError(CogniVaultError, ValueError):
    """A request that cannot be served as asked; ``code`` and ``status`` for clients."""

    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status


@dataclass(slots=True)
class Attachment:
    name: str
    data: bytes

    @property
    def suffix(self) -> str:
        return PurePath(self.name).suffix.lower()

    @property
    def kind(self) -> str:
        if self.suffix in TEXT_SUFFIXES:
            return "text"
        if self.suffix in IMAGE_SUFFIXES:
            return "image"
        return "document"

    @classmethod
    def from_path(cls, path: Path) -> Attachment:
        path = Path(path)
        try:
            size = path.stat().st_size
        except OSError as exc:
            raise AskError("attachment_unreadable", f"cannot read attachment {path}: {exc.strerror}") from exc
        if size > MAX_ATTACHMENT_BYTES:
            raise AskError("attachment_too_large", f"{path.name} is {size / 1e6:.1f} MB; attachments are "
                                                   f"limited to {MAX_ATTACHMENT_BYTES // (1024 * 1024)} MB", 413)
        return cls(path.name, path.read_bytes())

    @classmethod
    def from_json(cls, data: Any) -> Attachment:
        if not isinstance(data, dict) or not isinstance(data.get("name"), str) or \
                not isinstance(data.get("data"), str):
            raise AskError("invalid_attachment", 'an attachment is {"name": "file.pdf", "data": "<base64>"}')
        if len(data["data"]) > MAX_ATTACHMENT_BYTES * 4 // 3 + 8:
            raise AskError("attachment_too_large", f"{data['name']}: attachments are limited to "
                                                   f"{MAX_ATTACHMENT_BYTES // (1024 * 1024)} MB", 413)
        try:
            raw = base64.b64decode(data["data"], validate=True)
        except (binascii.Error, ValueError) as exc:
            raise AskError("invalid_attachment", f"{data['name']}: data is not valid base64") from exc
        return cls(PurePath(data["name"]).name or "attachment", raw)


@dataclass(slots=True)
class AskRequest:
    question: str
    scope: Scope | None = None
    session_id: str | None = None
    attachments: list[Attachment] = field(default_factory=list)
    think: bool | None = None  # None: think when the model can and the question merits it
    tools: bool = True
    truncate_to: int | None = None  # edit/regenerate: keep this many earlier turns first
    new_topic: bool = False
    use_cache: bool = True
    max_sources: int = 6

    def validated(self) -> AskRequest:
        """A copy with the question trimmed; :class:`AskError` when a rule is broken."""
        if not isinstance(self.question, str):
            raise AskError("invalid_question", "the question must be text")
        question = self.question.strip()
        if not question:
            raise AskError("empty_question", "the question is empty")
        if any(0xD800 <= ord(ch) <= 0xDFFF for ch in question):  # bytes that were not UTF-8, or a lone \ud800
            raise AskError("invalid_question", "the question holds bytes that are not UTF-8 text "
                                               "(is the terminal or the client set to UTF-8?)")
        if len(question) > MAX_QUESTION_CHARS:
            raise AskError("question_too_long", f"the question has {len(question)} characters; the limit is "
                                                f"{MAX_QUESTION_CHARS}", 413)
        if self.session_id is not None:
            from cognivault.answer.sessions import validate_session_id

            validate_session_id(self.session_id)  # its SessionError is an AskError
        if self.truncate_to is not None and (isinstance(self.truncate_to, bool) or
                                             not isinstance(self.truncate_to, int) or self.truncate_to < 0):
            raise AskError("invalid_turn", "truncate_to must be a whole number >= 0")
        if self.truncate_to is not None and self.session_id is None:
            raise AskError("invalid_turn", "truncate_to needs a session_id")
        if not isinstance(self.max_sources, int) or not 1 <= self.max_sources <= MAX_SOURCES:
            raise AskError("invalid_request", f"max_sources must be from 1 to {MAX_SOURCES}")
        if len(self.attachments) > MAX_ATTACHMENTS:
            raise AskError("too_many_attachments", f"{len(self.attachments)} attachments; at most "
                                                   f"{MAX_ATTACHMENTS} per question", 413)
        total = 0
        for attachment in self.attachments:
            if attachment.suffix not in ATTACHMENT_KINDS:
                raise AskError("attachment_type", f"{attachment.name}: unsupported attachment type; use "
                                                  f"{', '.join(sorted(ATTACHMENT_KINDS))}", 415)
            if len(attachment.data) > MAX_ATTACHMENT_BYTES:
                raise AskError("attachment_too_large",
                               f"{attachment.name} is {len(attachment.data) / 1e6:.1f} MB; attachments are "
                               f"limited to {MAX_ATTACHMENT_BYTES // (1024 * 1024)} MB", 413)
            if not attachment.data:
                raise AskError("attachment_empty", f"{attachment.name} is empty")
            total += len(attachment.data)
        if total > MAX_TOTAL_ATTACHMENT_BYTES:
            raise AskError("attachment_too_large", f"attachments total {total / 1e6:.1f} MB; the limit is "
                                                   f"{MAX_TOTAL_ATTACHMENT_BYTES // (1024 * 1024)} MB", 413)
        return replace(self, question=question)

    @classmethod
    def from_json(cls, data: Any) -> AskRequest:
        """From a JSON body: ``{"question", "scope"?, "session_id"?, "attachments"?, "think"?, "tools"?,
        "truncate_to"?, "new_topic"?, "use_cache"?, "max_sources"?}``; validated."""
        if not isinstance(data, dict):
            raise AskError("invalid_request", "the request body must be a JSON object")
        known = {"question", "scope", "session_id", "attachments", "think", "tools", "truncate_to",
                 "new_topic", "use_cache", "max_sources"}
        unknown = sorted(set(data) - known)
        if unknown:
            raise AskError("invalid_request", f"unknown field(s): {', '.join(unknown)}")
        if not isinstance(data.get("question"), str):
            raise AskError("invalid_question", "question (text) is required")
        try:
            scope = Scope.from_dict(data.get("scope")) if data.get("scope") else None
        except ScopeError as exc:
            raise AskError("invalid_scope", str(exc)) from exc
        attachments = data.get("attachments") or []
        if not isinstance(attachments, list):
            raise AskError("invalid_attachment", "attachments must be a list")
        if len(attachments) > MAX_ATTACHMENTS:
            raise AskError("too_many_attachments", f"at most {MAX_ATTACHMENTS} attachments per question", 413)
        for key, kind in (("think", (bool, type(None))), ("tools", bool), ("new_topic", bool),
                          ("use_cache", bool), ("session_id", (str, type(None))),
                          ("truncate_to", (int, type(None))), ("max_sources", int)):
            if key in data and not isinstance(data[key], kind):
                raise AskError("invalid_request", f"{key} has the wrong type")
        request = cls(question=data["question"], scope=scope, session_id=data.get("session_id"),
                      attachments=[Attachment.from_json(a) for a in attachments], think=data.get("think"),
                      tools=data.get("tools", True), truncate_to=data.get("truncate_to"),
                      new_topic=data.get("new_topic", False), use_cache=data.get("use_cache", True),
                      max_sources=data.get("max_sources", 6))
        return request.validated()
