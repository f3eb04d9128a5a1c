"""Every file CogniVault writes is written atomically: a crash leaves the old file or the new one.

- ``atomic_write_bytes`` under kill -9: a child process rewrites one file over
  and over and is killed at seeded random moments; the file is always one
  whole version, never a torn mix.
- ``atomic_create`` (new notes) never replaces a file, takes the next free
  name, and leaves no temp file.
- The write policy, read from the source: outside ``cognivault/atomic.py``,
  no module writes, renames or creates a file itself, except the few listed
  below with the reason each is safe. A new direct write fails this test.
"""

from __future__ import annotations

import ast
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from cognivault.atomic import atomic_create, atomic_write_bytes

PACKAGE = Path(__file__).resolve().parents[1] / "server" / "cognivault"
SIZE = 2 * 1024 * 1024
KILLS = 10

WRITER = f"""
import sys
from pathlib import Path
from cognivault.atomic import atomic_write_bytes
target = Path(sys.argv[1])
version = 0
while True:
    version = (version + 1) % 256
    atomic_write_bytes(target, bytes([version]) * {SIZE})
"""

# module (relative to the package) -> why its own file operations are safe
DIRECT_WRITES_ALLOWED = {
    "answer/attachments.py": "an uploaded attachment, written into a private TemporaryDirectory and deleted",
    "answer/voice.py": "a voice recording, written into a private TemporaryDirectory and deleted",
    "vault/extractors/audio.py": "the whisper model assembled in the cache: a partial file, then os.replace",
    "models/embedded.py": "the embedded model extracted and converted into a staging folder, then renamed",
    "index/lexical.py": "the BM25 folder: files written atomically into a staging folder, then swapped by rename",
    "index/store.py": "the writer lock file (flock), and moving a corrupt index file aside",
    "study/locks.py": "a lock file (flock), never data",
    "vault/scan.py": "os.open of vault files and folders read-only, without following links: never a write",
    "cli.py": "standard output pointed at os.devnull once its reader has closed the pipe, never a file",
}


def _direct_writes(source: str) -> list[str]:
    """File-writing calls in ``source``: write_text/write_bytes, open for writing, rename/replace, temp files."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        owner = func.value.id if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) else ""
        if name in ("write_text", "write_bytes", "mkstemp", "NamedTemporaryFile", "rename", "copyfile") \
                or (owner == "os" and name in ("replace", "open", "link")):
            found.append(f"line {node.lineno}: {name}")
        elif name == "open":  # a file descriptor of os.open or mkstemp is caught above
            modes = [a.value for a in node.args[1:2] if isinstance(a, ast.Constant)]
            modes += [k.value.value for k in node.keywords if k.arg == "mode" and isinstance(k.value, ast.Constant)]
            if isinstance(func, ast.Attribute) and func.attr == "open":  # Path.open(mode)
                modes += [a.value for a in node.args[:1] if isinstance(a, ast.Constant)]
            if any(isinstance(m, str) and set(m) & set("wax+") for m in modes):
                found.append(f"line {node.lineno}: {name}({modes[0]!r})")
    return found


def test_no_module_writes_a_file_around_the_atomic_helpers() -> None:
    offenders = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        if relative == "atomic.py" or relative in DIRECT_WRITES_ALLOWED:
            continue
        writes = _direct_writes(path.read_text("utf-8"))
        if writes:
            offenders[relative] = writes
    assert offenders == {}, f"write through cognivault.atomic (or list the module here with why): {offenders}"
    # The allow-list stays honest: each listed module still does what it is allowed for.
    for relative in DIRECT_WRITES_ALLOWED:
        assert _direct_writes((PACKAGE / relative).read_text("utf-8")), f"{relative} no longer needs an exception"


def test_the_policy_scan_sees_direct_writes() -> None:
    source = ("from pathlib import Path\nimport os\nPath('a').write_text('x')\nopen('b', 'w')\n"
              "Path('c').open('ab')\nos.replace('d', 'e')\nopen('f')\nPath('g').read_text()\n")
    assert [line.split(":")[0] for line in _direct_writes(source)] == ["line 3", "line 4", "line 5", "line 6"]


def test_atomic_create_never_replaces_and_takes_the_next_free_name(tmp_path: Path) -> None:
    first = tmp_path / "Notes" / "Page.md"
    assert atomic_create([first], b"one") == first
    assert atomic_create([first], b"two") is None
    second = first.with_name("Page (2).md")
    assert atomic_create([first, second], b"three") == second
    assert first.read_bytes() == b"one" and second.read_bytes() == b"three"
    assert sorted(p.name for p in first.parent.iterdir()) == ["Page (2).md", "Page.md"]  # no temp file left


def test_atomic_writes_survive_kill_9_at_random_moments(tmp_path: Path) -> None:
    target = tmp_path / "state.bin"
    atomic_write_bytes(target, bytes([0]) * SIZE)
    rng = random.Random(7)
    seen_versions = set()
    for _ in range(KILLS):
        child = subprocess.Popen([sys.executable, "-c", WRITER, str(target)])
        time.sleep(rng.uniform(0.3, 1.2))
        child.send_signal(signal.SIGKILL)
        child.wait(10)
        data = target.read_bytes()
        assert len(data) == SIZE and data == data[:1] * SIZE, "a torn file after kill -9"
        seen_versions.add(data[0])
    assert len(seen_versions) > 1, "the writer never got past its first version: kills did not land mid-run"
    leftovers = [p.name for p in tmp_path.iterdir() if p.name != "state.bin"]
    assert all(name.startswith(".state.bin.") and name.endswith(".tmp") for name in leftovers), leftovers
