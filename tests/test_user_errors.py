"""One error type per user mistake: a one-line message and a non-zero exit, never a traceback (issue 13).

Each case below printed a raw traceback, a wrong message or a silent skip before.
Conditions this machine cannot make for real when tests run as root (a folder
without read permission, a read-only or full disk) are made at the process's
boundary with the operating system: the call that would fail raises the
``OSError`` the kernel gives.
"""

from __future__ import annotations

import errno
import os
import sqlite3
import tempfile
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer

from cognivault import cli
from cognivault.companion.runner import start_companion
from cognivault.config import load_settings
from cognivault.engine import Engine
from cognivault.errors import CogniVaultError
from cognivault.vault.scan import scan_vault

NOTE = ("# Cells\n\nMitochondria are the powerhouse of the cell. They make ATP from sugar and oxygen, and "
        "the cell uses that ATP for almost everything it does.\n\n## Membranes\n\nThe cell membrane is a "
        "lipid bilayer that keeps the inside of the cell apart from the outside world.\n")


def _vault(tmp_path: Path) -> Path:
    vault = tmp_path / "vault"
    (vault / "Biology").mkdir(parents=True)
    (vault / "Biology" / "Cells.md").write_text(NOTE, "utf-8")
    return vault


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = cli.main(argv)
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.startswith("cognivault:")]
    assert "Traceback" not in err and len(lines) == 1, err
    return code, lines[0]


def _failing(real, path_part: str, error: int):  # type: ignore[no-untyped-def]
    """``real`` (an os function taking a path first), failing with ``error`` for paths containing ``path_part``."""
    def call(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        if path_part in os.fsdecode(os.fspath(path)):
            raise OSError(error, os.strerror(error), os.fspath(path))
        return real(path, *args, **kwargs)
    return call


def test_a_config_file_of_random_bytes(tmp_path: Path, capsys) -> None:
    vault = _vault(tmp_path)
    (vault / ".cognivault").mkdir()
    (vault / ".cognivault" / "config.toml").write_bytes(os.urandom(512) + b"\xff")
    code, line = _run(["status", "--vault", str(vault)], capsys)
    assert code == 2 and "config.toml" in line and "UTF-8" in line


def test_a_file_given_as_the_vault_is_called_a_file(tmp_path: Path, capsys) -> None:
    note = _vault(tmp_path) / "Biology" / "Cells.md"
    code, line = _run(["index", "--vault", str(note)], capsys)
    assert code == 2 and "is a file" in line and "not found" not in line


def test_an_unreadable_vault(tmp_path: Path, capsys, monkeypatch) -> None:
    vault = _vault(tmp_path)
    monkeypatch.setattr(os, "listdir", _failing(os.listdir, "vault", errno.EACCES))
    code, line = _run(["index", "--vault", str(vault)], capsys)
    assert code == 2 and "permission denied" in line


def test_an_unreadable_subfolder_is_reported_and_its_notes_kept(tmp_path: Path, capsys, monkeypatch) -> None:
    vault = _vault(tmp_path)
    assert cli.main(["index", "--vault", str(vault), "--provider", "none"]) == 0
    capsys.readouterr()
    with monkeypatch.context() as patched:
        patched.setattr(os, "scandir", _failing(os.scandir, "Biology", errno.EACCES))
        scan = scan_vault(vault)
        assert [(p.path, p.kind) for p in scan.problems] == [("Biology", "folder")]
        assert "cannot read this folder" in scan.problems[0].reason
        assert cli.main(["index", "--vault", str(vault), "--provider", "none"]) == 0
    out = capsys.readouterr().out
    assert "skipped  Biology: cannot read this folder" in out and "0 removed" in out  # not "0 skipped"
    with Engine(vault, load_settings(vault), embedder=None, writable=False) as engine:
        assert engine.search("mitochondria", mode="lexical").results  # what was indexed from it is kept


def test_index_on_a_full_disk(tmp_path: Path, capsys, monkeypatch) -> None:
    from cognivault.index.store import IndexStore

    vault = _vault(tmp_path)

    def full(self) -> None:  # type: ignore[no-untyped-def]
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self.folder / "lexical"))

    monkeypatch.setattr(IndexStore, "save_lexical", full)
    code, line = _run(["index", "--vault", str(vault), "--provider", "none"], capsys)
    assert code == 1 and "the disk is full" in line
    monkeypatch.setattr(IndexStore, "save_lexical",
                        lambda self: (_ for _ in ()).throw(sqlite3.OperationalError("database or disk is full")))
    code, line = _run(["index", "--vault", str(vault), "--provider", "none"], capsys)
    assert code == 1 and "disk is full" in line


def _read_only(monkeypatch, vault: Path) -> None:  # type: ignore[no-untyped-def]
    """Writing anything into the vault fails as on a read-only file system (the cache stays writable)."""
    real = tempfile.mkstemp

    def mkstemp(*args, dir=None, **kwargs):  # type: ignore[no-untyped-def]  # noqa: A002
        if dir is not None and Path(dir).resolve().is_relative_to(vault.resolve()):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(dir))
        return real(*args, dir=dir, **kwargs)

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)
    monkeypatch.setattr(os, "mkdir", _failing(os.mkdir, str(vault), errno.EROFS))


def test_generate_on_a_read_only_vault(tmp_path: Path, capsys, monkeypatch) -> None:
    vault = _vault(tmp_path)
    assert cli.main(["index", "--vault", str(vault), "--provider", "none"]) == 0
    capsys.readouterr()
    _read_only(monkeypatch, vault)
    code, line = _run(["generate", "mindmap", "--vault", str(vault), "--note", "Biology/Cells.md",
                       "--chat-provider", "extractive"], capsys)
    assert code == 1 and "read-only" in line


async def test_api_generate_on_a_read_only_vault_ends_with_an_error_envelope(tmp_path: Path, monkeypatch) -> None:
    from cognivault.companion.app import create_app

    vault = _vault(tmp_path)
    settings = load_settings(vault, {"index": {"index_dir": str(tmp_path / "index")}}, environ={})
    with Engine(vault, settings, embedder=None) as engine:
        engine.index()
        _read_only(monkeypatch, vault)
        token = "ro-token-" + "r" * 32
        client = TestClient(TestServer(create_app(engine, settings, token), host="127.0.0.1"))
        await client.start_server()
        try:
            response = await client.post("/api/generate/mindmap", json={
                "note": "Biology/Cells.md", "chat_provider": "extractive"},
                headers={"Authorization": f"Bearer {token}"})
            last = (await response.text()).strip().splitlines()[-1]
        finally:
            await client.close()
    assert '"type": "error"' in last and '"read_only"' in last, last


def test_a_question_with_bytes_that_are_not_utf8(tmp_path: Path, capsys) -> None:
    vault = _vault(tmp_path)
    assert cli.main(["index", "--vault", str(vault), "--provider", "none"]) == 0
    capsys.readouterr()
    question = os.fsdecode(b"what makes \xff ATP")  # as argv carries a Latin-1 terminal's byte
    code, line = _run(["ask", "--vault", str(vault), "--chat-provider", "extractive", question], capsys)
    assert code == 2 and "not UTF-8" in line and "internal" not in line


async def test_serve_on_a_read_only_vault_still_serves(tmp_path: Path, monkeypatch) -> None:
    import aiohttp

    from cognivault.companion import runner

    vault = _vault(tmp_path)
    settings = load_settings(vault, {"index": {"index_dir": str(tmp_path / "index")}}, environ={})

    def read_only(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))

    monkeypatch.setattr(runner, "atomic_write_text", read_only)  # companion.json is the vault's one write
    with Engine(vault, settings, embedder=None) as engine:
        companion = await start_companion(engine, settings)
        try:
            assert companion.info_file is None
            async with aiohttp.ClientSession() as session:
                async with session.get(f"{companion.url}/api/status",
                                       headers={"Authorization": f"Bearer {companion.token}"}) as response:
                    assert response.status == 200
        finally:
            await companion.stop()


def test_a_search_of_a_vault_never_indexed_says_to_index_it(tmp_path: Path, capsys) -> None:
    vault = _vault(tmp_path)
    assert cli.main(["search", "--vault", str(vault), "mitochondria"]) == 0
    captured = capsys.readouterr()
    assert "no results" in captured.out
    assert "run `cognivault index` first" in captured.err and "embedded" not in captured.err, captured.err


def test_a_scope_no_note_is_in_is_named(tmp_path: Path, capsys) -> None:
    vault = _vault(tmp_path)
    assert cli.main(["index", "--vault", str(vault), "--provider", "none"]) == 0
    capsys.readouterr()
    argv = ["search", "--vault", str(vault), "--mode", "lexical", "mitochondria", "--scope", "tag:exam",
            "--scope", "folder:My notes"]
    assert cli.main(argv) == 0
    assert 'note: no note is in the scope folder:"My notes" tag:exam' in capsys.readouterr().err


def test_a_note_given_as_a_path_on_disk(tmp_path: Path, capsys, monkeypatch) -> None:
    vault = _vault(tmp_path)
    (vault / "Biology" / "Plants.md").write_text("# Plants\n\nPlant cells have mitochondria too. [[Cells]]\n", "utf-8")
    assert cli.main(["index", "--vault", str(vault), "--provider", "none"]) == 0
    capsys.readouterr()
    monkeypatch.chdir(tmp_path)  # beside the vault: the shell completes vault/Biology/Cells.md
    for name in (str(vault / "Biology" / "Cells.md"), "vault/Biology/Cells.md", "Biology/Cells.md", "Cells"):
        assert cli.main(["related", "--vault", str(vault), name, "--json"]) == 0, name
        assert "Biology/Plants.md" in capsys.readouterr().out, name
    code, line = _run(["related", "--vault", str(vault), str(tmp_path / "elsewhere.md")], capsys)
    assert code != 0 and "no indexed note matches" in line


@pytest.fixture
def engine_with_vectors(tmp_path: Path):  # type: ignore[no-untyped-def]
    """The test vault indexed with a small real embedding model (meaning search answers too)."""
    from answer_support import WordHashEmbedder

    vault = _vault(tmp_path)
    (vault / "Biology" / "Plants.md").write_text("# Plants\n\nPlant cells have mitochondria too.\n", "utf-8")
    settings = load_settings(vault, {"index": {"index_dir": str(tmp_path / "index")}}, environ={})
    with Engine(vault, settings, embedder=WordHashEmbedder()) as engine:
        engine.index()
        yield engine


@pytest.mark.parametrize("query", ["the", "which of these is there?", "Is it?", "???"])
def test_a_query_of_common_words_alone_finds_nothing_and_says_why(engine_with_vectors: Engine, query: str) -> None:
    engine = engine_with_vectors
    response = engine.search(query, k=5)
    assert response.results == [] and any("only common words" in note for note in response.notes)
    assert engine.search(query, k=5, mode="dense").results  # asked for meaning alone: it answers
    assert engine.search("the mitochondria", k=5).results[0].path in {"Biology/Cells.md", "Biology/Plants.md"}
    (engine.vault / "The Who.md").write_text("# The Who\n\nA band from London.\n", "utf-8")
    engine.index()
    assert engine.search("The Who", k=5).results[0].path == "The Who.md"  # a name, not common words


def test_related_with_k_below_one_is_refused(engine_with_vectors: Engine) -> None:
    assert engine_with_vectors.related("Cells", k=1)
    with pytest.raises(CogniVaultError, match="k must be at least 1"):  # it answered "no related notes"
        engine_with_vectors.related("Cells", k=0)


def test_an_empty_folder_or_one_never_indexed_is_named_so(tmp_path: Path, capsys) -> None:
    vault = _vault(tmp_path)
    assert cli.main(["status", "--vault", str(vault)]) == 0
    out = capsys.readouterr().out
    assert "not indexed yet: run `cognivault index` first" in out and "stale" not in out, out
    empty = tmp_path / "empty"
    empty.mkdir()
    assert cli.main(["index", "--vault", str(empty), "--provider", "none"]) == 0
    assert f"no notes or attachments found in {empty}" in capsys.readouterr().out
    assert cli.main(["status", "--vault", str(empty)]) == 0
    assert "no notes or attachments found in the vault" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [
    ["search", "Gr\udcf6\udcdfe"],
    ["search", "cells", "--scope", "folder:Gr\udcf6\udcdfe"],
    ["related", "Gr\udcf6\udcdfe"],
    ["generate", "flashcards", "--note", "Gr\udcf6\udcdfe"],
    ["generate", "flashcards", "--topic", "Gr\udcf6\udcdfe"],
])
def test_text_arguments_that_are_not_utf8_are_one_clear_line(tmp_path: Path, argv: list[str],
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 28: a Latin-1 terminal typing "Größe" hands Python bytes that are not UTF-8 (kept as lone
    surrogates): search, related and generate --note/--topic printed a traceback."""
    vault = _vault(tmp_path)
    code, line = _run([argv[0], "--vault", str(vault), *argv[1:]], capsys)
    assert code == 2 and "not UTF-8" in line and "LANG=C.UTF-8" in line


def test_a_vault_path_that_is_not_utf8_is_still_a_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """File names may hold any bytes: --vault is not refused for them (it is looked up as it is)."""
    code, line = _run(["search", "--vault", str(tmp_path / "Gr\udcf6\udcdfe"), "cells"], capsys)
    assert code == 2 and "vault folder not found" in line
