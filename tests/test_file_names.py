"""A file name that is not UTF-8 (``bad\\xffname.md``) stops nothing (issue 13).

Before: ``index`` exited with ``UnicodeEncodeError``, ``serve``'s watcher died, the
language server said ``phase: failed``. Now the scan reports such a file with a reason,
everything else is indexed, and the watcher turns the batch it cannot name into an
incremental pass.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cognivault.config import load_settings
from cognivault.engine import Engine
from cognivault.index.watch import WHOLE_VAULT, VaultWatcher
from cognivault.vault.scan import NOT_UTF8, scan_vault

GOOD = "# Good\n\nA perfectly ordinary note about photosynthesis, long enough to make one chunk of prose.\n"
BAD_NAME = os.fsdecode(b"bad\xffname.md")


def _vault(tmp_path: Path) -> Path:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Good.md").write_text(GOOD, "utf-8")
    (vault / BAD_NAME).write_text("# Bad\n\nA note whose name came from a Latin-1 system, with some text.\n",
                                  "utf-8")
    (vault / os.fsdecode(b"Folder \xe9")).mkdir()
    (vault / os.fsdecode(b"Folder \xe9") / "Inside.md").write_text(GOOD, "utf-8")
    return vault


def test_the_scan_reports_names_that_are_not_utf8_and_keeps_the_rest(tmp_path: Path) -> None:
    scan = scan_vault(_vault(tmp_path))
    assert [f.path for f in scan.files] == ["Good.md"]
    problems = {p.path: p for p in scan.problems}
    assert set(problems) == {"bad\ufffdname.md", "Folder \ufffd"}
    assert all(p.reason == NOT_UTF8 for p in problems.values())
    assert problems["bad\ufffdname.md"].kind == "markdown" and problems["Folder \ufffd"].kind == "folder"


def test_index_goes_on_and_reports_the_file(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    with Engine(vault, load_settings(vault), embedder=None) as engine:
        report = engine.index()
        assert engine.search("photosynthesis", mode="lexical").results[0].path == "Good.md"
        status = engine.status(per_file=True)
    by_path = {f.path: f for f in report.files}
    assert by_path["Good.md"].state == "indexed"
    assert by_path["bad\ufffdname.md"].state == "skipped" and "UTF-8" in by_path["bad\ufffdname.md"].reason
    assert status["consistency"]["agree"]
    json.dumps(report.to_dict(), ensure_ascii=False).encode("utf-8")  # printable as it is


def test_the_index_command_exits_0_and_names_the_file(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    for extra in ([], ["--json"]):
        done = subprocess.run([sys.executable, "-m", "cognivault.cli", "index", "--vault", str(vault),
                               "--provider", "none", *extra], capture_output=True, timeout=120)
        assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
        assert b"Traceback" not in done.stderr
        out = done.stdout.decode("utf-8")
        assert "bad\ufffdname.md" in out and "not valid UTF-8" in out


def test_a_file_whose_name_is_not_utf8_never_reaches_the_catalog_one_at_a_time(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    with Engine(vault, load_settings(vault), embedder=None) as engine:
        engine.index()
        updates = engine.update_files([BAD_NAME, "Good.md"])
        assert BAD_NAME not in updates.updated and not updates.failed


@pytest.mark.timeout(120)
def test_the_watcher_survives_such_a_name_and_asks_for_a_whole_pass(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Good.md").write_text(GOOD, "utf-8")

    async def watch() -> list[set[str]]:
        batches: list[set[str]] = []
        armed = asyncio.Event()
        stop = asyncio.Event()

        async def collect() -> None:
            async for batch in VaultWatcher(vault, force_polling=False).batches(stop, lambda _: armed.set()):
                batches.append(batch)
                if "Later.md" in batch:
                    stop.set()

        task = asyncio.ensure_future(collect())
        await asyncio.wait_for(armed.wait(), 60)
        (vault / BAD_NAME).write_text("written while the vault is watched\n", "utf-8")
        while not batches:  # the batch the notifier could not name comes as a whole-vault one
            await asyncio.sleep(0.05)
        (vault / "Later.md").write_text(GOOD, "utf-8")  # and the watcher still watches
        await asyncio.wait_for(task, 60)
        return batches

    batches = asyncio.run(watch())
    assert batches[0] == {WHOLE_VAULT}
    assert any("Later.md" in batch for batch in batches)
    with Engine(vault, load_settings(vault), embedder=None) as engine:
        engine.index()
        updates = engine.update_files(batches[0])
        assert updates.full_pass is not None  # "." means: look at the whole vault
