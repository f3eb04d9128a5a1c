"""Conversations: history per session id, a token budget, edit/regenerate, persistence, follow-ups.

A session is a list of turns (question, resolved question, answer, cited
notes, confidence). Sessions are stored as JSON under
``<vault>/.cognivault/sessions/<id>.json``, written atomically, so "continue
where I left off" survives an editor restart. Requests in one session are
serialized by a per-session :class:`asyncio.Lock`; requests in different
sessions run in parallel.

History sent to the model is the newest turns that fit the token budget
(oldest dropped first); citation labels are stripped from old answers
because labels only mean something inside their own request. The
``memory`` envelope reports the use.

Follow-ups ("and on mobile?") are detected by rule (a follow-up opener, or a
short question leaning on a pronoun) and resolved against the previous
turn's question and the notes it cited; "new topic: ..." starts fresh.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from cognivault.answer.evidence import estimate_tokens
from cognivault.answer.request import AskError
from cognivault.atomic import atomic_write_text
from cognivault.models.chat import ChatMessage

log = logging.getLogger(__name__)

SESSION_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
DEFAULT_TOKEN_BUDGET = 3000
MAX_TURNS_STORED = 200
MAX_SESSION_FILE_BYTES = 8 * 1024 * 1024
_LABELS = re.compile(r"\s*\[S\d{1,3}\]")


class SessionError(AskError):
    """A bad session id or turn number; ``code`` for clients."""


@dataclass(slots=True)
class Turn:
    question: str
    answer: str
    resolved: str = ""
    sources: list[dict[str, Any]] = field(default_factory=list)  # {"label", "chunk_id", "path"}
    confidence: str = "low"
    answered: bool = False
    provider: str = ""
    model: str = ""
    created_at: float = field(default_factory=time.time)

    def cited_paths(self) -> list[str]:
        return list(dict.fromkeys(s["path"] for s in self.sources if s.get("path")))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Turn:
        known = {f for f in cls.__dataclass_fields__}
        return cls(**{k: v for k, v in data.items() if k in known})


@dataclass(slots=True)
class Session:
    id: str
    turns: list[Turn] = field(default_factory=list)
    created_at: float = field(default_factory=time.time)
    updated_at: float = field(default_factory=time.time)

    def to_dict(self) -> dict[str, Any]:
        return {"version": 1, "id": self.id, "created_at": self.created_at, "updated_at": self.updated_at,
                "turns": [asdict(t) for t in self.turns]}


@dataclass(slots=True)
class Memory:
    """What the ``memory`` envelope reports."""

    session_id: str
    turns: int
    turns_in_context: int
    tokens_used: int
    token_budget: int
    trimmed_turns: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def validate_session_id(session_id: str) -> str:
    if not isinstance(session_id, str) or not SESSION_ID.match(session_id):
        raise SessionError("invalid_session", "a session id is 1-64 letters, digits, '_', '-' or '.', "
                                              "starting with a letter or digit")
    return session_id


class SessionStore:
    """Sessions of one vault (``folder`` None: in memory only, for tests and one-shot CLI calls)."""

    def __init__(self, folder: Path | None, token_budget: int = DEFAULT_TOKEN_BUDGET) -> None:
        self.folder = Path(folder) if folder is not None else None
        self.token_budget = token_budget
        self._sessions: dict[str, Session] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._io_lock = threading.Lock()

    @classmethod
    def for_vault(cls, vault: Path, token_budget: int = DEFAULT_TOKEN_BUDGET) -> SessionStore:
        return cls(Path(vault) / ".cognivault" / "sessions", token_budget)

    # -- locking -----------------------------------------------------------
    def lock(self, session_id: str) -> asyncio.Lock:
        validate_session_id(session_id)
        lock = self._locks.get(session_id)
        if lock is None:
            lock = self._locks[session_id] = asyncio.Lock()
        return lock

    # -- storage -----------------------------------------------------------
    def _path(self, session_id: str) -> Path | None:
        return self.folder / f"{validate_session_id(session_id)}.json" if self.folder else None

    def get(self, session_id: str) -> Session:
        """The session (loaded from disk the first time; a new empty one when there is none)."""
        validate_session_id(session_id)
        with self._io_lock:
            session = self._sessions.get(session_id)
            if session is not None:
                return session
            session = self._load(session_id) or Session(session_id)
            self._sessions[session_id] = session
            return session

    def _load(self, session_id: str) -> Session | None:
        path = self._path(session_id)
        if path is None or not path.is_file():
            return None
        try:
            if path.stat().st_size > MAX_SESSION_FILE_BYTES:
                raise ValueError("file too large")
            data = json.loads(path.read_text("utf-8"))
            turns = [Turn.from_dict(t) for t in data.get("turns", []) if isinstance(t, dict)]
            return Session(session_id, turns, float(data.get("created_at", time.time())),
                           float(data.get("updated_at", time.time())))
        except (OSError, ValueError, TypeError) as exc:
            log.warning("session %s unreadable (%s); starting it afresh", session_id, exc)
            return None

    def save(self, session: Session) -> None:
        session.updated_at = time.time()
        if len(session.turns) > MAX_TURNS_STORED:
            del session.turns[: len(session.turns) - MAX_TURNS_STORED]
        path = self._path(session.id)
        if path is None:
            return
        with self._io_lock:
            atomic_write_text(path, json.dumps(session.to_dict(), ensure_ascii=False, indent=1), mode=0o600)

    def append(self, session_id: str, turn: Turn) -> Session:
        session = self.get(session_id)
        session.turns.append(turn)
        self.save(session)
        return session

    def truncate_now(self, session_id: str, keep: int) -> Session:
        """Keep the first ``keep`` turns (0 = clear). Raises :class:`SessionError` for a bad number."""
        session = self.get(session_id)
        if isinstance(keep, bool) or not isinstance(keep, int) or keep < 0 or keep > len(session.turns):
            raise SessionError("invalid_turn", f"turn must be a whole number from 0 to {len(session.turns)} "
                                               f"(session {session_id} has {len(session.turns)} turns)")
        del session.turns[keep:]
        self.save(session)
        return session

    async def truncate(self, session_id: str, keep: int) -> Session:
        """:meth:`truncate_now` under the session's lock (waits for a running answer to finish)."""
        async with self.lock(session_id):
            return await asyncio.to_thread(self.truncate_now, session_id, keep)

    def delete(self, session_id: str) -> None:
        path = self._path(session_id)
        with self._io_lock:
            self._sessions.pop(session_id, None)
        if path is not None:
            path.unlink(missing_ok=True)

    def list_ids(self) -> list[str]:
        found = set(self._sessions)
        if self.folder is not None and self.folder.is_dir():
            found |= {p.stem for p in self.folder.glob("*.json") if SESSION_ID.match(p.stem)}
        return sorted(found)

    # -- history -----------------------------------------------------------
    def history(self, session: Session, budget: int | None = None) -> tuple[list[ChatMessage], Memory]:
        """The newest turns that fit ``budget`` tokens, oldest first, and the report of what was kept."""
        budget = self.token_budget if budget is None else budget
        used = 0
        kept: list[Turn] = []
        for turn in reversed(session.turns):
            cost = estimate_tokens(turn.question) + estimate_tokens(turn.answer)
            if used + cost > budget:
                break
            used += cost
            kept.append(turn)
        kept.reverse()
        messages: list[ChatMessage] = []
        for turn in kept:
            messages.append(ChatMessage("user", turn.question))
            messages.append(ChatMessage("assistant", _LABELS.sub("", turn.answer)))
        memory = Memory(session.id, len(session.turns), len(kept), used, budget, len(session.turns) - len(kept))
        return messages, memory


# -- follow-ups -------------------------------------------------------------------------------------

_NEW_TOPIC = re.compile(r"^\s*(?:new topic|new question|another topic|unrelated|neues thema|neue frage|"
                        r"anderes thema|themawechsel)\b\s*[:,.!-]*\s*", re.IGNORECASE)
_OPENER = re.compile(r"^\s*(?:and|also|but|or|what about|how about|and what|and how|same for|"
                     r"und|auch|aber|oder|was ist mit|wie ist es mit|und wie|und was|genauso)\b", re.IGNORECASE)
_PRONOUN = re.compile(r"\b(?:it|its|this|that|these|those|they|them|there|then|"
                      r"es|das|dies|diese|dieser|dieses|dort|damit|dafür|davon|darauf|sie)\b", re.IGNORECASE)
_WORD = re.compile(r"\w+")
MAX_RESOLVED_CHARS = 600


@dataclass(slots=True)
class Resolution:
    question: str  # the question as asked (new-topic marker removed)
    query: str  # what retrieval searches for
    follow_up: bool
    fresh: bool  # history is not used
    prior_paths: list[str] = field(default_factory=list)


def resolve_follow_up(question: str, previous: Turn | None, new_topic: bool = False) -> Resolution:
    """Resolve ``question`` against the previous turn (see the module doc for the rule)."""
    stripped = _NEW_TOPIC.sub("", question, count=1)
    if stripped != question or new_topic:
        clean = stripped.strip() or question.strip()
        return Resolution(clean, clean, follow_up=False, fresh=True)
    if previous is None:
        return Resolution(question, question, follow_up=False, fresh=False)
    words = _WORD.findall(question)
    leans = bool(_OPENER.match(question)) or (len(words) <= 6 and bool(_PRONOUN.search(question))) or \
        len(words) <= 3
    if not leans:
        return Resolution(question, question, follow_up=False, fresh=False)
    base = previous.resolved or previous.question
    query = f"{base} {question}"
    if len(query) > MAX_RESOLVED_CHARS:
        query = f"{previous.question} {question}"[-MAX_RESOLVED_CHARS:]
    return Resolution(question, query, follow_up=True, fresh=False, prior_paths=previous.cited_paths())
