"""The VS Code extension (editor-clients/vscode): npm ci, tsc strict, eslint, vitest, esbuild, vsce package.

Each step runs the package's own npm script and must exit 0; on failure the assertion message
holds the step's output. The vitest run includes a protocol test against the real
``cognivault lsp`` on a temp copy of examples/vault (private cache and config dirs).
``node_modules`` is reused when it was installed from the current ``package-lock.json``
(a hash stamp written after ``npm ci``), else ``npm ci`` runs first.
Skipped, with the reason, only when ``npm`` is not installed.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CLIENT = REPO / "editor-clients" / "vscode"
EXAMPLE_VAULT = REPO / "examples" / "vault"
NPM = shutil.which("npm")
# npm keeps its cache under the real home, not the per-test one the suite's conftest sets up.
BASE_ENV = {k: v for k, v in os.environ.items() if not k.startswith("COGNIVAULT_")}
STAMP = ".cognivault-lock.sha256"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(NPM is None, reason="npm is not installed (Node 20+ and npm are needed for the editor clients)"),
]


def run_step(client: Path, args: list[str], timeout: float, env: dict[str, str] | None = None) -> str:
    """Runs ``npm <args>`` in ``client``; fails the test with its output unless it exits 0."""
    started = time.monotonic()
    full_env = {**BASE_ENV, "CI": "1", "NO_COLOR": "1", "FORCE_COLOR": "0", **(env or {})}
    try:
        done = subprocess.run([NPM or "npm", *args], cwd=client, env=full_env, capture_output=True, text=True,
                              timeout=timeout, check=False)
    except subprocess.TimeoutExpired as exc:
        output = (exc.stdout or b"").decode() if isinstance(exc.stdout, bytes) else exc.stdout or ""
        pytest.fail(f"npm {' '.join(args)} timed out after {timeout:.0f} s\n{output[-6000:]}")
    output = f"{done.stdout}\n{done.stderr}".strip()
    assert done.returncode == 0, (f"npm {' '.join(args)} exited {done.returncode} after "
                                  f"{time.monotonic() - started:.1f} s:\n{output[-12000:]}")
    return output


def ensure_node_modules(client: Path) -> None:
    """``npm ci`` unless node_modules was installed from this exact lockfile."""
    lock = hashlib.sha256((client / "package-lock.json").read_bytes()).hexdigest()
    stamp = client / "node_modules" / STAMP
    if stamp.is_file() and stamp.read_text().strip() == lock and (client / "node_modules" / ".bin").is_dir():
        return
    run_step(client, ["ci", "--no-audit", "--no-fund", "--prefer-offline"], timeout=170)
    stamp.write_text(lock + "\n")


def cognivault_command() -> list[str]:
    script = REPO / ".venv" / "bin" / "cognivault"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "cognivault.cli"]


def private_vault(root: Path) -> tuple[Path, dict[str, str]]:
    """A copy of the example vault under ``root`` and environment overrides that keep CogniVault's
    index, config and state under ``root`` too (and away from any real model host)."""
    vault = root / "vault"
    shutil.copytree(EXAMPLE_VAULT, vault)
    env = {"COGNIVAULT_MODELS_OLLAMA_HOST": "http://127.0.0.1:9", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    for name in ("XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
        folder = root / name.lower()
        folder.mkdir()
        env[name] = str(folder)
    return vault, env


def vitest_summary(report: Path) -> dict[str, object]:
    data = json.loads(report.read_text("utf-8"))
    tests = [t for suite in data["testResults"] for t in suite["assertionResults"]]
    return {"passed": sum(t["status"] == "passed" for t in tests), "failed": data["numFailedTests"],
            "skipped": sum(t["status"] in ("skipped", "pending", "todo") for t in tests), "tests": tests,
            "files": data["testResults"]}


@pytest.fixture(scope="module")
def vscode_client() -> Path:
    ensure_node_modules(CLIENT)
    return CLIENT


def test_typescript_strict_build(vscode_client: Path) -> None:
    assert json.loads((vscode_client / "tsconfig.json").read_text())["compilerOptions"]["strict"] is True
    run_step(vscode_client, ["run", "typecheck"], timeout=120)


def test_eslint(vscode_client: Path) -> None:
    run_step(vscode_client, ["run", "lint"], timeout=150)


def test_unit_tests(vscode_client: Path, tmp_path: Path) -> None:
    report = tmp_path / "vitest.json"
    vault, env = private_vault(tmp_path)
    command = cognivault_command()
    if len(command) > 1:  # no .venv script: a tiny launcher for `python -m cognivault.cli`
        launcher = tmp_path / "cognivault"
        launcher.write_text(f"#!/bin/sh\nexec {sys.executable} -m cognivault.cli \"$@\"\n")
        launcher.chmod(0o755)
        command = [str(launcher)]
    env.update({"COGNIVAULT_TEST_CLI": command[0], "COGNIVAULT_TEST_VAULT": str(vault)})
    run_step(vscode_client, ["run", "test", "--", "--reporter=default", "--reporter=json",
                             f"--outputFile.json={report}"], timeout=150, env=env)
    summary = vitest_summary(report)
    assert summary["failed"] == 0 and summary["skipped"] == 0, summary
    names = {Path(f["name"]).name for f in summary["files"]}  # type: ignore[attr-defined]
    # the command wiring (mocked vscode), the NDJSON parser and the real language server are tested
    assert {"extension.test.ts", "ndjson.test.ts", "lsp.integration.test.ts"} <= names, names
    assert int(summary["passed"]) >= 50, summary["passed"]  # type: ignore[call-overload]


def test_bundle_and_vsix(vscode_client: Path) -> None:
    """``npm run build`` bundles with esbuild; ``vsce package`` (offline: no marketplace calls) makes the .vsix."""
    run_step(vscode_client, ["run", "build"], timeout=60)
    assert (vscode_client / "dist" / "extension.js").is_file()
    assert (vscode_client / "dist" / "webview" / "chat.js").is_file()
    vsix = vscode_client / "dist" / "cognivault.vsix"
    vsix.unlink(missing_ok=True)
    run_step(vscode_client, ["run", "package"], timeout=120)
    assert vsix.is_file(), "vsce did not write dist/cognivault.vsix"
    with zipfile.ZipFile(vsix) as archive:
        names = set(archive.namelist())
        manifest = json.loads(archive.read("extension/package.json"))
    for needed in ("extension/package.json", "extension/dist/extension.js", "extension/dist/webview/chat.js",
                   "extension/media/chat.css", "extension/readme.md", "extension.vsixmanifest"):
        assert needed in names, (needed, sorted(names))
    stray = [n for n in names if "node_modules/" in n or "/src/" in n or n.endswith((".map", ".ts", ".vsix"))]
    assert not stray, stray
    assert manifest["main"] == "./dist/extension.js"
    assert {c["command"] for c in manifest["contributes"]["commands"]} >= {
        "cognivault.askVault", "cognivault.searchVault", "cognivault.relatedNotes", "cognivault.generateFlashcards",
        "cognivault.generateQuiz", "cognivault.generateMindmap", "cognivault.reviewDue", "cognivault.openDashboard",
        "cognivault.showStatus"}
