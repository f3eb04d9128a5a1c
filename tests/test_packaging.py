"""A built wheel carries the prompts and schemas, and an installed copy loads them from itself.

The wheel is built offline from a copy of the source tree (``pip wheel
--no-build-isolation --no-index``), installed without dependencies into a
fresh venv that borrows this environment's third-party packages through a
``.pth`` file (never this checkout), and a child process there loads every
prompt and schema. Each must come from the venv's own ``cognivault`` package,
and a vault's override must still win over the shipped prompt.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]

SHIPPED = ("prompts", "vault_schema")

CHILD = r"""
import json, sys
from pathlib import Path
import cognivault
from cognivault.answer.prompts import load_prompt
from cognivault.shipped import read_shipped, shipped
from cognivault.study.prompts import STUDY_PROMPTS, load_study_prompt
from cognivault.study.schema import load_schema

vault = Path(sys.argv[1])
report = {
    "package": cognivault.__file__,
    "answer": load_prompt("answer").source,
    "plan": load_prompt("plan").source,
    "study": {name: load_study_prompt(name).source for name in STUDY_PROMPTS},
    "override": load_prompt("answer", vault).source,
    "schema_title": load_schema().get("title"),
    "schemas": {entry.name: json.loads(read_shipped("vault_schema", entry.name))["$schema"]
                for entry in shipped("vault_schema").iterdir() if entry.name.endswith(".json")},
}
print(json.dumps(report))
"""


def _copy_source(target: Path) -> Path:
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "build", "node_modules")
    target.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO_ROOT / name, target / name)
    for folder in ("server", *SHIPPED):
        shutil.copytree(REPO_ROOT / folder, target / folder, symlinks=True, ignore=ignore)
    return target


@pytest.mark.slow
def test_wheel_ships_prompts_and_schemas_and_the_installed_package_loads_them(tmp_path: Path) -> None:
    if importlib.util.find_spec("setuptools") is None:
        pytest.skip("setuptools is not installed: the wheel cannot be built offline")
    source = _copy_source(tmp_path / "source")
    out = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q",
                    "-w", str(out), str(source)], check=True, timeout=120, capture_output=True)
    (wheel,) = out.glob("cognivault-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        for folder in SHIPPED:
            for path in sorted((REPO_ROOT / folder).iterdir()):
                inside = f"cognivault/shipped/{folder}/{path.name}"
                assert archive.read(inside) == path.read_bytes(), inside

    env = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True, timeout=60)
    python = env / "bin" / "python"
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index",
                    "-q", str(wheel)], check=True, timeout=120, capture_output=True)
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    # Third-party packages (yaml, platformdirs) from this environment; its editable .pth is not read from there.
    (site / "borrowed.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", "utf-8")

    vault = tmp_path / "vault"
    override = vault / ".cognivault" / "prompts" / "answer.md"
    override.parent.mkdir(parents=True)
    override.write_text("## System\n\nOnly this vault's rules.\n{{evidence}}\n\n## User\n\n{{question}}\n", "utf-8")
    child = subprocess.run([str(python), "-I", "-c", CHILD, str(vault)], check=True, capture_output=True,
                           text=True, timeout=60, cwd=tmp_path)
    report = json.loads(child.stdout)

    installed = site / "cognivault"
    assert Path(report["package"]).parent == installed
    loaded = [report["answer"], report["plan"], *report["study"].values()]
    assert all(Path(source_path).is_relative_to(installed / "shipped" / "prompts") for source_path in loaded), loaded
    assert report["override"] == str(override)
    assert report["schema_title"]
    assert set(report["schemas"]) == {p.name for p in (REPO_ROOT / "vault_schema").glob("*.json")}
