"""The VS Code extension installed as a user installs it, in a real VS Code build, end to end.

code-server 4.100.3 (VS Code 1.100.3) from the npm registry (``scripts/install-test-editor.sh``,
cached outside the checkout; ``setup.sh --test`` runs it first, this test runs it again, a no-op
when cached) serves the workbench; headless Chromium, driven by puppeteer-core
(``vscode_real/drive.cjs``), works it with keyboard and palette like a person. The extension is
the ``.vsix`` that ``vsce package`` builds, installed with ``code-server --install-extension``;
the vault is a copy of tests/lsp/vault with a ``.obsidian`` folder, and the ``cognivault`` the
extension runs is a launcher in the vault's ``.venv/bin`` (found there, not through a setting).
No model: answers and flashcards take the extractive path, search is keyword-only.

Checked, each as a step with a screenshot: activation (the status bar item of a ready server),
hover, F12, ``[[`` completion, a diagnostic in Problems, search, related notes, ask (the streamed
answer rendered as a person reads it in the chat webview: bold as ``strong``, the wikilink as an
anchor, the code block as highlighted ``pre > code``, the formulas as KaTeX laid out with its
bundled fonts, no literal ``**``, ``[[`` or ``<!--cv:`` comment), a source chip pointed at (its
passage shows), the answer's wikilink clicked (the note opens at its heading), generate, review and the
dashboard's data (fetched by the webview from code-server's page origin, which the extension
registers with ``serve --allow-origin``). Screenshots stay in ``test-artifacts/vscode-real/``
(printed). Skipped, with the reason, only when npm or Chromium is not installed.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_vscode import BASE_ENV, CLIENT, ensure_node_modules, run_step

from processes import stop_process

REPO = Path(__file__).resolve().parents[2]
INSTALL = REPO / "scripts" / "install-test-editor.sh"
DRIVER = Path(__file__).parent / "vscode_real" / "drive.cjs"
TEST_VAULT = REPO / "tests" / "lsp" / "vault"
ARTIFACTS = REPO / "test-artifacts" / "vscode-real"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
NPM = shutil.which("npm")
STEPS = ["workbench", "activation", "hover", "definition (F12)", "[[ completion", "diagnostic", "search", "related",
         "ask", "source chip", "answer link", "generate", "review", "dashboard"]
# A passage that cites another note the way generated notes do (vault_schema/citation.md): the
# answer quotes it, and the chat must never show the comment. The extractive answer to QUESTION
# quotes its section titles (bold), the citation (a wikilink), the formula and the code block.
CITING_NOTE = """# Light summary

Chlorophyll in the thylakoid membranes absorbs red and blue light and reflects green light. \
[[Photosynthesis#Light reactions|Photosynthesis › Light reactions]]<!--cv:cite id=0123456789abcdef h=89abcdef-->

## Photon energy

Each photon chlorophyll absorbs carries the energy $E = h\\nu$, so blue light carries more than red \
(see [[Photosynthesis#Light reactions|light reactions]]):

$$E = \\frac{hc}{\\lambda}$$

```python
def photon_energy(wavelength_nm):
    return 1239.84 / wavelength_nm  # eV
```
"""
QUESTION = "What is the photon energy of the light chlorophyll absorbs?"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(1200),
    pytest.mark.skipif(NPM is None, reason="npm is not installed (Node 20 and npm run the editor clients)"),
    pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (scripts/setup.sh --test installs it)"),
]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def install_editor() -> Path:
    """The cached code-server + puppeteer-core install (installed first when missing)."""
    started = time.monotonic()
    done = subprocess.run(["bash", str(INSTALL)], env=BASE_ENV, capture_output=True, text=True, timeout=900,
                          check=False)
    assert done.returncode == 0, f"install-test-editor.sh failed:\n{done.stderr[-8000:]}"
    print(f"test editor ready in {time.monotonic() - started:.1f} s: {done.stdout.strip()}")
    return Path(done.stdout.strip().splitlines()[-1])


def build_vsix(into: Path) -> Path:
    ensure_node_modules(CLIENT)
    run_step(CLIENT, ["run", "build"], timeout=120)
    run_step(CLIENT, ["run", "package"], timeout=180)
    vsix = into / "cognivault.vsix"
    shutil.copy2(CLIENT / "dist" / "cognivault.vsix", vsix)
    return vsix


def make_vault(root: Path) -> Path:
    vault = root / "vault"
    shutil.copytree(TEST_VAULT, vault)
    (vault / ".obsidian").mkdir()
    (vault / "Light summary.md").write_text(CITING_NOTE, "utf-8")
    launcher = vault / ".venv" / "bin" / "cognivault"
    launcher.parent.mkdir(parents=True)
    launcher.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m cognivault.cli "$@"\n')
    launcher.chmod(0o755)
    return vault


def editor_env(root: Path) -> dict[str, str]:
    """code-server's environment: its own HOME and user dirs, CogniVault from this checkout, no model host."""
    home = root / "home"
    env = {**BASE_ENV, "HOME": str(home), "PYTHONPATH": str(REPO / "server"), "HF_HUB_OFFLINE": "1",
           "TRANSFORMERS_OFFLINE": "1", "COGNIVAULT_MODELS_OLLAMA_HOST": "http://127.0.0.1:9"}
    for name in ("XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
        env[name] = str(home / name.lower())
        Path(env[name]).mkdir(parents=True)
    env.pop("VSCODE_PROXY_URI", None)
    return env


USER_SETTINGS = {
    "cognivault.models.chatProvider": "extractive",
    "cognivault.embedding.provider": "none",
    "security.workspace.trust.enabled": False,
    "workbench.startupEditor": "none",
    "workbench.tips.enabled": False,
    "files.autoSave": "off",
    "extensions.autoUpdate": False,
    "extensions.autoCheckUpdates": False,
    "telemetry.telemetryLevel": "off",
    "update.mode": "none",
}


@pytest.fixture
def code_server(tmp_path: Path) -> Iterator[dict[str, object]]:
    editor = install_editor()
    entry = editor / "node_modules" / "code-server" / "out" / "node" / "entry.js"
    vsix = build_vsix(tmp_path)
    vault = make_vault(tmp_path)
    env = editor_env(tmp_path)
    data = tmp_path / "code-server"
    user = data / "user"
    (user / "User").mkdir(parents=True)
    (user / "User" / "settings.json").write_text(json.dumps(USER_SETTINGS, indent=2))
    common = ["node", str(entry), "--user-data-dir", str(user), "--extensions-dir", str(data / "extensions"),
              "--config", str(data / "config.yaml")]
    installed = subprocess.run([*common, "--install-extension", str(vsix)], env=env, capture_output=True,
                               text=True, timeout=180, check=False)
    assert installed.returncode == 0 and "was successfully installed" in installed.stdout, installed
    port = free_port()
    log = (tmp_path / "code-server.log").open("wb")
    process = subprocess.Popen([*common, "--auth", "none", "--bind-addr", f"127.0.0.1:{port}",
                                "--disable-telemetry", "--disable-update-check", "--disable-workspace-trust",
                                "--disable-getting-started-override", str(vault)],
                               env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 120
        while b"HTTP server listening" not in (tmp_path / "code-server.log").read_bytes():
            assert process.poll() is None, (tmp_path / "code-server.log").read_text(errors="replace")
            assert time.monotonic() < deadline, "code-server did not start within 120 s"
            time.sleep(0.2)
        yield {"url": f"http://127.0.0.1:{port}", "vault": vault, "editor": editor, "env": env, "root": tmp_path}
    finally:
        stop_process(process, 20)
        log.close()


def test_the_extension_in_a_real_vscode(code_server: dict[str, object]) -> None:
    started = time.monotonic()
    root = Path(str(code_server["root"]))
    shutil.rmtree(ARTIFACTS, ignore_errors=True)
    ARTIFACTS.mkdir(parents=True)
    config = root / "drive.json"
    config.write_text(json.dumps({
        "url": code_server["url"], "vault": str(code_server["vault"]), "chromium": CHROMIUM,
        "screenshots": str(ARTIFACTS), "browserProfile": str(root / "chromium-profile"),
        "question": QUESTION, "searchQuery": "chlorophyll",
    }))
    env = {**BASE_ENV, "NODE_PATH": str(Path(str(code_server["editor"])) / "node_modules")}
    done = subprocess.run(["node", str(DRIVER), str(config)], env=env, capture_output=True, text=True,
                          timeout=900, check=False)
    print(f"screenshots: {ARTIFACTS}")
    print(done.stderr[-6000:])
    steps = {step["name"]: step for step in json.loads(done.stdout.strip().splitlines()[-1])["steps"]}
    (ARTIFACTS / "steps.json").write_text(json.dumps(steps, indent=2, ensure_ascii=False))
    failed = {name: step["detail"] for name, step in steps.items() if not step["ok"]}
    assert not failed, json.dumps(failed, indent=2)
    assert list(steps) == STEPS, list(steps)

    ask = steps["ask"]["detail"]
    assert "<!--" not in ask["bodyText"] and "cv:cite" not in ask["bodyText"], ask["bodyText"]
    assert ask["sources"] and ask["error"] is None, ask
    assert "absorbs red and blue light" in ask["answer"], ask
    # what a person sees: Markdown rendered, not its source
    assert "**" not in ask["answer"] and "[[" not in ask["answer"] and "$$" not in ask["answer"], ask["answer"]
    assert "Light summary" in ask["strong"] and "Photon energy" in ask["strong"], ask["strong"]
    assert ask["wikilink"] == {"text": "Photosynthesis › Light reactions", "target": "Photosynthesis",
                               "subpath": "Light reactions"}, ask["wikilink"]
    assert any("def photon_energy" in code for code in ask["codeBlocks"]) and ask["highlighted"] > 0, ask
    # the bundled fonts, under the strict CSP
    assert ask["katex"] >= 1 and "KaTeX_Main" in ask["katexFonts"], (ask["fontFaces"], ask["katexFonts"])
    assert ask["strutHeight"] > 1.5 * ask["fontSize"], ask  # KaTeX's layout applied: a fraction stands tall
    assert ask["chips"] and set(ask["chips"]) <= {"S1", "S2"}, ask["chips"]
    chip = steps["source chip"]["detail"]  # pointed at, a chip shows the passage it cites
    assert chip["shown"] and "photon" in chip["passage"], chip
    opened = steps["answer link"]["detail"]
    assert "Photosynthesis.md" in opened["tab"] and f"Ln {opened['headingLine']}," in opened["cursor"], opened
    vault = Path(str(code_server["vault"]))
    generated = [p for p in (vault / "Study").rglob("*.md")]
    assert generated and any("Flashcards" in p.name for p in generated), generated
    assert steps["review"]["detail"]["front"] and steps["review"]["detail"]["back"], steps["review"]
    # the dashboard's data came through because the extension registered code-server's page origin
    command = steps["dashboard"]["detail"]["companionCommand"]
    assert command[command.index("--allow-origin") + 1] == code_server["url"], command
    print(f"real VS Code run: {time.monotonic() - started:.1f} s; "
          + ", ".join(f"{name} {step['ms'] / 1000:.1f} s" for name, step in steps.items()))
