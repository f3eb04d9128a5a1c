"""One guard for every path that names a place in the vault: settings, commands, routes (issue 13).

Before, ``study.folder = "../../outside"`` in a vault's config made ``generate`` (CLI and
``/api/generate``) write outside the vault; URL import checked its own folder, this
setting did not. Now the settings naming a vault folder are checked when read, and the
folder is checked again (symlinks included) where notes are written.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer

from cognivault.companion.app import create_app
from cognivault.config import ConfigError, load_settings
from cognivault.engine import Engine
from cognivault.vault.guard import VaultPathError, clean_relative, inside_vault

NOTE = "# Light\n\nPhotosynthesis turns light into sugar in the chloroplasts of plant cells, every day.\n"
TOKEN = "paths-token-" + "p" * 32
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def _vault(tmp_path: Path, config: str = "") -> Path:
    vault = tmp_path / "vault"
    (vault / ".cognivault").mkdir(parents=True)
    (vault / "Light.md").write_text(NOTE, "utf-8")
    if config:
        (vault / ".cognivault" / "config.toml").write_text(config, "utf-8")
    return vault


@pytest.mark.parametrize("setting", ["study", "url_import"])
@pytest.mark.parametrize("folder", ["../../outside", "/etc", "Study/../../x", "~/x", "C:\\x", "%2e%2e/x"])
def test_a_vault_folder_setting_outside_the_vault_is_a_config_error(tmp_path: Path, setting: str,
                                                                     folder: str) -> None:
    vault = _vault(tmp_path, f'[{setting}]\nfolder = {folder!r}\n'.replace("'", '"').replace("\\", "\\\\"))
    with pytest.raises(ConfigError) as error:
        load_settings(vault, environ={})
    assert f"{setting}.folder" in str(error.value) and "\n" not in str(error.value)


def test_the_cli_refuses_with_one_line_and_writes_nothing_outside(tmp_path: Path) -> None:
    vault = _vault(tmp_path, '[study]\nfolder = "../../outside"\n')
    done = subprocess.run([sys.executable, "-m", "cognivault.cli", "generate", "flashcards", "--vault", str(vault),
                           "--note", "Light.md", "--chat-provider", "extractive"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "study.folder" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path.parent / "outside").exists() and not (tmp_path / "outside").exists()


@pytest.mark.parametrize("folder", ["../../outside", "Escape"])
async def test_api_generate_refuses_a_folder_outside_the_vault(tmp_path: Path, folder: str) -> None:
    vault = _vault(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, vault / "Escape")  # a folder inside the vault that leads out of it
    settings = load_settings(vault, {"index": {"index_dir": str(tmp_path / "index")}}, environ={})
    settings.study.folder = folder  # as a front end's override might set it, past the config check
    with Engine(vault, settings, embedder=None) as engine:
        engine.index()
        client = TestClient(TestServer(create_app(engine, settings, TOKEN), host="127.0.0.1"))
        await client.start_server()
        try:
            response = await client.post("/api/generate/flashcards", json={"note": "Light.md",
                                                                            "chat_provider": "extractive"},
                                         headers=AUTH)
            lines = [line for line in (await response.text()).splitlines() if line.strip()]
            listing = await client.get("/api/quizzes", headers=AUTH)
            listing_body = await listing.json()
        finally:
            await client.close()
    assert '"type": "error"' in lines[-1] and '"bad_path"' in lines[-1], lines
    assert list(outside.iterdir()) == [] and not (tmp_path.parent / "outside").exists()
    assert listing.status == 400 and listing_body["error"]["code"] == "bad_path"


@pytest.mark.parametrize("raw", ["", "..", "a/../..", "/abs", "\\\\server\\x", "C:/x", "a\x00b", "~", "%252e%252e",
                                 "\udcff"])
def test_the_guard_refuses_each_kind_of_escape(tmp_path: Path, raw: str) -> None:
    with pytest.raises(VaultPathError):
        inside_vault(tmp_path, raw)


def test_the_guard_accepts_plain_folders_and_normalises_them(tmp_path: Path) -> None:
    assert clean_relative("Study/./Cards//", "x") == "Study/Cards"
    assert clean_relative("", "x", allow_root=True) == ""
    assert inside_vault(tmp_path, "Study/Neue Karten") == "Study/Neue Karten"


def test_the_language_server_takes_a_note_through_an_in_vault_link_as_outside(tmp_path: Path) -> None:
    """Issue 28: ``vault/shared -> ../outside`` made ``vault/shared/private.md`` a vault path for the language
    server (grading wrote into outside/private.md); the link is resolved before the check, as the CLI does."""
    from cognivault.lsp.uris import relative_path
    from cognivault.vault.scan import is_indexable

    vault = _vault(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "private.md").write_text("# Private\n", "utf-8")
    (vault / "shared").symlink_to("../outside")
    (vault / "Inside").mkdir()
    (vault / "Inside" / "Note.md").write_text("# Note\n", "utf-8")
    (vault / "alias").symlink_to("Inside")
    assert relative_path(vault, (vault / "shared" / "private.md").as_uri()) is None
    assert relative_path(vault, (vault / "shared" / "new.md").as_uri()) is None
    assert not is_indexable(vault, "shared/private.md")
    assert relative_path(vault, (vault / "Inside" / "Note.md").as_uri()) == "Inside/Note.md"
    assert relative_path(vault, (vault / "alias" / "Note.md").as_uri()) == "alias/Note.md"  # a link that stays
    assert relative_path(vault, (vault / "Inside" / "Unsaved.md").as_uri()) == "Inside/Unsaved.md"
    with pytest.raises(VaultPathError):
        inside_vault(vault, "shared/private.md")  # the CLI's and the companion's guard: the same answer
