"""``cognivault obsidian install``: put the CogniVault plugin into an Obsidian vault and turn it on.

Copies the built plugin (``manifest.json``, ``main.js``, ``styles.css`` from
``editor-clients/obsidian`` after ``npm run build``, or ``--from DIR``) into
``<vault>/.obsidian/plugins/<id>/`` and adds ``<id>`` to ``.obsidian/community-plugins.json``,
keeping every plugin already listed there and the plugin's own ``data.json`` (its settings).
Every file is written atomically, so Obsidian never reads half a file; a
``community-plugins.json`` that is not a JSON list of ids is left alone and reported.
Obsidian loads the plugin at its next start (or when community plugins are reloaded).
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from cognivault.atomic import atomic_write_bytes, atomic_write_text
from cognivault.errors import CogniVaultError

PLUGIN_FILES = ("manifest.json", "main.js", "styles.css")
REQUIRED_FILES = ("manifest.json", "main.js")
BUILD_HINT = "cd editor-clients/obsidian && npm ci && npm run build"
_PLUGIN_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")


class InstallError(CogniVaultError):
    """The plugin could not be installed; the message says why and what to do."""

    code = "install_failed"
    status = 500
    exit_code = 1


@dataclass(frozen=True)
class Installed:
    plugin_id: str
    version: str
    folder: Path
    files: tuple[str, ...]
    newly_enabled: bool


def default_source() -> Path:
    """The plugin's folder in this checkout (``editor-clients/obsidian``)."""
    return Path(__file__).resolve().parents[2] / "editor-clients" / "obsidian"


def _manifest(source: Path) -> dict[str, object]:
    missing = [name for name in REQUIRED_FILES if not (source / name).is_file()]
    if missing:
        raise InstallError(f"the Obsidian plugin is not built in {source} (no {', '.join(missing)}): run "
                           f"`{BUILD_HINT}` or pass --from with the folder of a built plugin")
    try:
        manifest = json.loads((source / "manifest.json").read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise InstallError(f"{source / 'manifest.json'} is not readable JSON: {exc}") from exc
    if not isinstance(manifest, dict) or not _PLUGIN_ID.fullmatch(str(manifest.get("id", ""))):
        raise InstallError(f"{source / 'manifest.json'} has no valid plugin id")
    return manifest


def _enabled_plugins(path: Path) -> list[str]:
    if not path.exists():
        return []
    try:
        enabled = json.loads(path.read_text("utf-8") or "[]")
    except (OSError, ValueError) as exc:
        raise InstallError(f"{path} is not valid JSON ({exc}); fix or remove it, then install again") from exc
    if not isinstance(enabled, list) or not all(isinstance(item, str) for item in enabled):
        raise InstallError(f"{path} is not a JSON list of plugin ids; fix or remove it, then install again")
    return enabled


def install_plugin(vault: Path, source: Path) -> Installed:
    """Copies the built plugin from ``source`` into ``vault``'s Obsidian folder and enables it."""
    if not vault.is_dir():
        raise InstallError(f"vault folder not found: {vault}")
    manifest = _manifest(source)
    plugin_id = str(manifest["id"])
    config = vault / ".obsidian"
    enabled_path = config / "community-plugins.json"
    enabled = _enabled_plugins(enabled_path)  # checked before anything is written
    folder = config / "plugins" / plugin_id
    copied = []
    for name in PLUGIN_FILES:
        if (source / name).is_file():
            atomic_write_bytes(folder / name, (source / name).read_bytes())
            copied.append(name)
    newly_enabled = plugin_id not in enabled
    if newly_enabled:
        atomic_write_text(enabled_path, json.dumps([*enabled, plugin_id], indent=2) + "\n")
    return Installed(plugin_id, str(manifest.get("version", "")), folder, tuple(copied), newly_enabled)


def cmd_obsidian(args: argparse.Namespace) -> int:
    from cognivault.cli import UserError

    source = Path(args.source).expanduser() if args.source else default_source()
    try:
        done = install_plugin(Path(args.vault).expanduser(), source)
    except InstallError as exc:
        raise UserError(str(exc)) from exc
    if args.json:
        print(json.dumps({"id": done.plugin_id, "version": done.version, "folder": str(done.folder),
                          "files": list(done.files), "newly_enabled": done.newly_enabled}))
    else:
        state = "enabled it" if done.newly_enabled else "it was already enabled"
        print(f"installed {done.plugin_id} {done.version} into {done.folder} and {state}; "
              "restart Obsidian (or reload community plugins) to load it")
    return 0


def register(command: Callable[..., argparse.ArgumentParser]) -> None:
    parser = command("obsidian", cmd_obsidian, "install the CogniVault plugin into an Obsidian vault and enable it")
    parser.add_argument("action", choices=["install"], help="install: copy the built plugin and enable it")
    parser.add_argument("--from", dest="source", metavar="DIR",
                        help="folder of the built plugin (default: editor-clients/obsidian of this checkout)")
