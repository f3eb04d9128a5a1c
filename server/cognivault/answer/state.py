"""Request-local state in ContextVars: the scope filter and the citation accumulator.

Each answer runs in its own asyncio task started with a fresh copy of the
context, so two requests answered at the same time (different scopes,
different packs) can never see each other's values, and tools called by the
model read the scope and pack of *their* request without any argument
passing that a bug could mix up.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from cognivault.answer.citations import CitationReport
from cognivault.answer.evidence import EvidencePack
from cognivault.index.scope import Scope


@dataclass(slots=True)
class CitationLedger:
    """Everything one request may cite, and what it did cite."""

    request_id: str
    pack: EvidencePack
    report: CitationReport = field(default_factory=CitationReport)
    tool_log: list[dict[str, Any]] = field(default_factory=list)


request_scope: ContextVar[Scope | None] = ContextVar("cognivault_request_scope", default=None)
request_ledger: ContextVar[CitationLedger | None] = ContextVar("cognivault_request_ledger", default=None)


def current_scope() -> Scope | None:
    return request_scope.get()


def current_ledger() -> CitationLedger:
    ledger = request_ledger.get()
    if ledger is None:
        raise RuntimeError("no answer request is active in this context")
    return ledger
