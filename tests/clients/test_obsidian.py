"""The Obsidian plugin (editor-clients/obsidian): npm ci, tsc strict, eslint, the esbuild bundle, vitest.

The vitest run includes an integration test against a real companion: this module starts
``cognivault serve --keyword-only`` on a temp copy of examples/vault (with private cache and
config dirs) and hands the vault path and URL to the node test through the environment; the
plugin then finds the companion through ``.cognivault/companion.json`` by itself.
Skipped, with the reason, only when ``npm`` is not installed.
"""

from __future__ import annotations

import json
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_vscode import (
    BASE_ENV,
    NPM,
    REPO,
    cognivault_command,
    ensure_node_modules,
    private_vault,
    run_step,
    vitest_summary,
)

from processes import stop_process

CLIENT = REPO / "editor-clients" / "obsidian"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(NPM is None, reason="npm is not installed (Node 20+ and npm are needed for the editor clients)"),
]


@pytest.fixture(scope="module")
def obsidian_client() -> Path:
    ensure_node_modules(CLIENT)
    return CLIENT


@pytest.fixture(scope="module")
def companion(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """A real companion on a temp copy of the example vault; stopped afterwards."""
    root = tmp_path_factory.mktemp("obsidian-companion")
    vault, overrides = private_vault(root)
    (root / "home").mkdir()
    env = {**BASE_ENV, **overrides, "HOME": str(root / "home")}
    process = subprocess.Popen([*cognivault_command(), "serve", "--vault", str(vault), "--port", "0", "--keyword-only"],
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    stderr: list[str] = []
    threading.Thread(target=lambda: stderr.extend(process.stderr or []), daemon=True).start()
    first: list[str] = []
    reader = threading.Thread(target=lambda: first.append((process.stdout or iter(())).readline()), daemon=True)
    reader.start()
    reader.join(60)
    try:
        assert first and first[0].strip(), f"the companion printed no address: {''.join(stderr)[-3000:]}"
        info = json.loads(first[0])
        assert (vault / ".cognivault" / "companion.json").is_file()
        yield {"vault": str(vault), "url": info["url"]}
    finally:
        stop_process(process, 15)


def test_manifest() -> None:
    manifest = json.loads((CLIENT / "manifest.json").read_text())
    versions = json.loads((CLIENT / "versions.json").read_text())
    assert manifest["isDesktopOnly"] is True
    assert versions[manifest["version"]] == manifest["minAppVersion"]
    assert json.loads((CLIENT / "package.json").read_text())["version"] == manifest["version"]
    assert (CLIENT / "styles.css").is_file()


def test_typescript_strict_build(obsidian_client: Path) -> None:
    assert json.loads((obsidian_client / "tsconfig.json").read_text())["compilerOptions"]["strict"] is True
    run_step(obsidian_client, ["run", "typecheck"], timeout=120)


def test_eslint(obsidian_client: Path) -> None:
    run_step(obsidian_client, ["run", "lint"], timeout=150)


def test_esbuild_bundle(obsidian_client: Path) -> None:
    bundle = obsidian_client / "main.js"
    bundle.unlink(missing_ok=True)
    run_step(obsidian_client, ["run", "build"], timeout=60)
    text = bundle.read_text("utf-8")
    assert 'require("obsidian")' in text  # the API stays external: Obsidian provides it
    assert "cognivault-chat" in text and "module.exports" in text


def test_unit_and_integration_tests(obsidian_client: Path, companion: dict[str, str], tmp_path: Path) -> None:
    report = tmp_path / "vitest.json"
    run_step(obsidian_client, ["run", "test", "--", "--reporter=default", "--reporter=json",
                               f"--outputFile.json={report}"], timeout=150,
             env={"COGNIVAULT_TEST_VAULT": companion["vault"], "COGNIVAULT_TEST_URL": companion["url"]})
    summary = vitest_summary(report)
    assert summary["failed"] == 0 and summary["skipped"] == 0, summary
    files: list[dict[str, Any]] = summary["files"]  # type: ignore[assignment]
    integration = [t for f in files if Path(f["name"]).name == "integration.test.ts" for t in f["assertionResults"]]
    assert len(integration) >= 7 and all(t["status"] == "passed" for t in integration), integration
    written = sorted(p.name for p in (Path(companion["vault"]) / "Study").glob("*.md"))
    assert any(name.startswith("Flashcards") for name in written), written
