"""Fixtures of the language-server tests (helpers live in harness.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from harness import Session, start_session, stop_session


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def shared(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Session]:
    session = await start_session(tmp_path_factory.mktemp("lsp-shared"))
    yield session
    await stop_session(session)


@pytest_asyncio.fixture
async def fresh(tmp_path: Path) -> AsyncIterator[Session]:
    session = await start_session(tmp_path)
    yield session
    await stop_session(session)
