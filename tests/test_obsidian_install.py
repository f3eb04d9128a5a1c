"""``cognivault obsidian install``: the built plugin copied into the vault and enabled, atomically,
keeping the plugins already enabled and the plugin's own settings; refusals in one line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cognivault.obsidian import InstallError, install_plugin

MANIFEST = {"id": "cognivault", "name": "CogniVault", "version": "0.1.0", "minAppVersion": "1.5.0"}


@pytest.fixture
def built(tmp_path: Path) -> Path:
    """A built plugin folder as `npm run build` leaves it (plus sources that must not be copied)."""
    source = tmp_path / "plugin"
    (source / "src").mkdir(parents=True)
    (source / "manifest.json").write_text(json.dumps(MANIFEST), "utf-8")
    (source / "main.js").write_text("module.exports = class CogniVault {};\n", "utf-8")
    (source / "styles.css").write_text(".cv-answer { }\n", "utf-8")
    (source / "src" / "main.ts").write_text("export {};\n", "utf-8")
    return source


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cognivault.cli", "obsidian", "install", *args],
                          capture_output=True, text=True, timeout=60, check=False)


def test_installs_and_enables_keeping_what_is_there(tmp_path: Path, built: Path) -> None:
    vault = tmp_path / "vault"
    plugins = vault / ".obsidian" / "plugins"
    (plugins / "cognivault").mkdir(parents=True)
    (plugins / "cognivault" / "data.json").write_text('{"relatedCount": 7}', "utf-8")
    (plugins / "cognivault" / "main.js").write_text("old build", "utf-8")
    (vault / ".obsidian" / "community-plugins.json").write_text('["dataview", "calendar"]', "utf-8")
    done = run_cli("--vault", str(vault), "--from", str(built), "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["files"] == ["manifest.json", "main.js", "styles.css"] and report["newly_enabled"] is True
    folder = plugins / "cognivault"
    assert sorted(p.name for p in folder.iterdir()) == ["data.json", "main.js", "manifest.json", "styles.css"]
    assert (folder / "main.js").read_text() == (built / "main.js").read_text()
    assert json.loads((folder / "data.json").read_text()) == {"relatedCount": 7}  # its settings survive
    enabled = json.loads((vault / ".obsidian" / "community-plugins.json").read_text())
    assert enabled == ["dataview", "calendar", "cognivault"]

    again = install_plugin(vault, built)  # a second install updates the files, lists the id once
    assert again.newly_enabled is False
    assert json.loads((vault / ".obsidian" / "community-plugins.json").read_text()).count("cognivault") == 1
    assert not [p for p in (vault / ".obsidian").rglob("*.tmp")]


def test_a_fresh_vault_gets_the_obsidian_folder(tmp_path: Path, built: Path) -> None:
    vault = tmp_path / "notes"
    vault.mkdir()
    (built / "styles.css").unlink()  # optional
    done = install_plugin(vault, built)
    assert done.files == ("manifest.json", "main.js")
    assert json.loads((vault / ".obsidian" / "community-plugins.json").read_text()) == ["cognivault"]


@pytest.mark.parametrize("existing", ['{"dataview": true}', "not json", '["ok", 3]'])
def test_an_unexpected_plugin_list_is_left_alone(tmp_path: Path, built: Path, existing: str) -> None:
    vault = tmp_path / "vault"
    (vault / ".obsidian").mkdir(parents=True)
    listing = vault / ".obsidian" / "community-plugins.json"
    listing.write_text(existing, "utf-8")
    with pytest.raises(InstallError, match="community-plugins.json"):
        install_plugin(vault, built)
    assert listing.read_text() == existing
    assert not (vault / ".obsidian" / "plugins").exists()


def test_an_unbuilt_plugin_or_missing_vault_is_refused_in_one_line(tmp_path: Path, built: Path) -> None:
    (built / "main.js").unlink()
    vault = tmp_path / "vault"
    vault.mkdir()
    done = run_cli("--vault", str(vault), "--from", str(built))
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert "npm run build" in done.stderr and not (vault / ".obsidian").exists()
    done = run_cli("--vault", str(tmp_path / "missing"), "--from", str(built))
    assert done.returncode == 2 and "vault folder not found" in done.stderr
