"""``cognivault mcp`` driven by a third-party client: the MCP Inspector's CLI mode (npm, the protocol's
reference client, ``scripts/install-test-mcp-inspector.sh``), as people check a server by hand.

Each run starts the real server over stdio: ``tools/list``, then ``tools/call`` of every tool (``generate``
with ``--allow-writes``) and ``resources/read`` of a note; a ``read_note`` outside the vault and an
oversized argument come back as tool errors, an unknown tool as a JSON-RPC error the Inspector reports.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from answer_support import NOTES, make_vault
from cached_installs import cached_install

pytest.importorskip("mcp", reason="the mcp extra is not installed (scripts/setup.sh --test installs it)")

NODE = shutil.which("node")
CARDS = "---\ntags: [flashcards]\n---\n# Cards\n\nWhat do mitochondria make?::ATP\n"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(NODE is None, reason="node is not installed (scripts/setup.sh --test installs Node 20)"),
]


@pytest.fixture(scope="module")
def inspector() -> Path:
    """The Inspector's CLI entry point; skips (fails on CI) when it is not installed."""
    folder = cached_install("install-test-mcp-inspector.sh", "the MCP Inspector is")
    return folder / "node_modules/@modelcontextprotocol/inspector/cli/build/cli.js"


@pytest.fixture
def vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    vault, settings = make_vault(tmp_path, {**NOTES, "Cards.md": CARDS})
    monkeypatch.setenv("COGNIVAULT_INDEX_INDEX_DIR", settings.index.index_dir)
    (tmp_path / "secret.md").write_text("# Secret\n\nThe password is hunter2.\n", "utf-8")
    return vault


def inspect(inspector: Path, vault: Path, *method: str, writes: bool = False) -> subprocess.CompletedProcess[str]:
    """One Inspector CLI run against a fresh ``cognivault mcp`` on ``vault``."""
    server = [sys.executable, "-m", "cognivault.cli", "mcp", "--vault", str(vault), "--keyword-only"]
    return subprocess.run([str(NODE), str(inspector), "--cli", *server, *(["--allow-writes"] if writes else []),
                           "--method", *method], capture_output=True, text=True, timeout=180, check=False,
                          env=dict(os.environ))


def result_of(run: subprocess.CompletedProcess[str]) -> Any:
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads(run.stdout)


def tool_data(inspector: Path, vault: Path, tool: str, *arguments: str, writes: bool = False) -> Any:
    result = result_of(inspect(inspector, vault, "tools/call", "--tool-name", tool,
                               *(["--tool-arg", *arguments] if arguments else []), writes=writes))
    assert result["isError"] is False, result["content"]
    return result["structuredContent"]


def test_the_inspector_lists_and_calls_every_tool(inspector: Path, vault: Path) -> None:
    listed = result_of(inspect(inspector, vault, "tools/list"))
    assert {tool["name"] for tool in listed["tools"]} == {"search", "ask", "related", "read_note", "due_cards"}
    search = tool_data(inspector, vault, "search", "query=sourdough starter", "mode=lexical", "k=2")
    assert search["results"][0]["path"] == "Cooking/Sourdough bread.md" and len(search["results"]) <= 2
    answer = tool_data(inspector, vault, "ask", "question=Who built the printing press?")
    assert "Gutenberg" in answer["answer"] and answer["citations"][0]["path"] == "History/Printing press.md"
    assert answer["confidence"]["label"] and answer["confidence"]["reason"]
    related = tool_data(inspector, vault, "related", "note=Biology/Mitochondria.md")
    assert related["related"] and all(r["path"] != "Biology/Mitochondria.md" for r in related["related"])
    note = tool_data(inspector, vault, "read_note", "path=Roman Empire", "heading=Fall of the Western Empire")
    assert note["path"] == "History/Roman Empire.md" and "Odoacer" in note["text"]
    due = tool_data(inspector, vault, "due_cards")
    assert [card["front"] for card in due["due"]] == ["What do mitochondria make?"]
    made = tool_data(inspector, vault, "generate", "kind=flashcards", "note=Biology/Photosynthesis.md", writes=True)
    assert (vault / made["path"]).is_file() and made["path"].startswith("Study/")
    read = result_of(inspect(inspector, vault, "resources/read", "--uri", "cognivault://note/Cards.md"))
    assert read["contents"][0]["text"] == CARDS


def test_the_inspector_gets_errors_not_tracebacks(inspector: Path, vault: Path) -> None:
    outside = result_of(inspect(inspector, vault, "tools/call", "--tool-name", "read_note",
                                "--tool-arg", "path=../secret.md"))
    assert outside["isError"] is True and "inside the vault" in outside["content"][0]["text"]
    oversized = result_of(inspect(inspector, vault, "tools/call", "--tool-name", "ask",
                                  "--tool-arg", "question=" + "why " * 3000))
    assert oversized["isError"] is True and oversized["content"][0]["text"].startswith("invalid arguments: question")
    unknown = inspect(inspector, vault, "tools/call", "--tool-name", "format_disk")
    assert unknown.returncode != 0 and "unknown tool" in unknown.stderr and "Traceback" not in unknown.stderr
