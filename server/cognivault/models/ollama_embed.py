"""Embeddings from a local Ollama server (``/api/embed``, batched), ``embeddinggemma`` by default.

- Host: only loopback unless ``models.allow_remote_model_host`` (see :mod:`hostpolicy`).
  Redirects are not followed (a redirect could carry the notes elsewhere) and,
  for a loopback host, proxy environment variables are ignored.
- Context: learned from ``/api/show`` (``model_info["<arch>.context_length"]``).
  Requests pass ``truncate=false`` so Ollama never cuts a text silently. A text
  whose conservative token estimate (``len(text) / 3`` plus the prompt prefix)
  does not fit is split into overlapping character windows (cut at whitespace),
  each window is embedded, and the window vectors are averaged weighted by their
  length and normalized again. If Ollama still answers that an input exceeds the
  context (dense scripts have more tokens per character), that window is halved
  and retried.
- ``embeddinggemma`` wants task prefixes: documents are sent as
  ``"title: none | text: ..."`` and queries as ``"task: search result | query: ..."``.
  Other models get the text as is.
- Vectors come back float32 and L2-normalized. ``model_id`` is ``"ollama:<model>"``
  (a ``:latest`` tag is dropped, since it names the same model).
- Failures raise :class:`ModelUnavailable` naming the fix: ``ollama serve`` when
  nothing answers, ``ollama pull <model>`` when the model is missing.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cognivault.models.base import ModelUnavailable
from cognivault.models.hostpolicy import check_model_host, is_loopback_host, parse_host, tls_verification

DEFAULT_MODEL = "embeddinggemma"
DEFAULT_HOST = "http://127.0.0.1:11434"
# The probe connects within 0.3 s (nothing listening is refused at once, so "auto" decides fast), but a
# server that accepted the connection gets PROBE_ANSWER_TIMEOUT_S to list its models: a busy machine
# must not make a running Ollama look absent.
PROBE_TIMEOUT_S = 0.3
PROBE_ANSWER_TIMEOUT_S = 3.0
CHARS_PER_TOKEN_ESTIMATE = 3.0  # conservative: real text averages ~4 characters per token
PREFIX_RESERVE_TOKENS = 16  # BOS/EOS and the like on top of the prompt prefix
MAX_SPLIT_DEPTH = 8
DOCUMENT_PREFIXES = {"embeddinggemma": "title: none | text: "}
QUERY_PREFIXES = {"embeddinggemma": "task: search result | query: "}


def normalize_model_name(name: str) -> str:
    """``embeddinggemma`` and ``embeddinggemma:latest`` are the same model; drop the default tag."""
    name = name.strip()
    return name[: -len(":latest")] if name.endswith(":latest") else name


def same_model(a: str, b: str) -> bool:
    return normalize_model_name(a) == normalize_model_name(b)


def model_family(name: str) -> str:
    """``embeddinggemma:300m`` -> ``embeddinggemma`` (namespace kept: ``user/model``)."""
    return normalize_model_name(name).split(":", 1)[0]


def make_client(base_url: str, timeout_s: float, connect_timeout_s: float | None = None) -> Any:
    """An ``ollama.Client`` that follows no redirects and, for loopback, ignores proxy variables.

    ``connect_timeout_s`` defaults to ``timeout_s`` capped at 5 s."""
    try:
        import httpx
        import ollama
    except ImportError as exc:  # pragma: no cover - ollama is a core dependency
        raise ModelUnavailable(f"the ollama client library is missing: pip install ollama ({exc})") from exc
    _, host, _, _ = parse_host(base_url)
    connect = min(timeout_s, 5.0) if connect_timeout_s is None else connect_timeout_s
    timeout = httpx.Timeout(timeout_s, connect=connect)
    return ollama.Client(host=base_url, timeout=timeout, follow_redirects=False,
                         trust_env=not is_loopback_host(host), verify=tls_verification(base_url))


class _ContextOverflow(Exception):
    """Ollama refused an input as longer than the model's context."""


def _error_text(exc: BaseException) -> str:
    return str(getattr(exc, "error", "") or exc)


def translate_error(exc: BaseException, *, base_url: str, model: str, timeout_s: float) -> Exception:
    """Map an ``ollama``/``httpx`` failure to :class:`ModelUnavailable` with the fix in the message."""
    import httpx
    import ollama

    if isinstance(exc, ollama.ResponseError):
        text = _error_text(exc)
        lowered = text.lower()
        if exc.status_code == 404 or "not found" in lowered:
            return ModelUnavailable(
                f"Ollama at {base_url} does not have the model {model!r}: run `ollama pull {model}` "
                f"(Ollama said: {text})"
            )
        if "context length" in lowered or "exceeds" in lowered and "context" in lowered:
            return _ContextOverflow(text)
        return ModelUnavailable(f"Ollama at {base_url} failed with {model!r}: {text} (HTTP {exc.status_code})")
    if isinstance(exc, httpx.TimeoutException):
        return ModelUnavailable(
            f"Ollama at {base_url} did not answer within {timeout_s:g} s "
            "(is it busy or stuck? check `ollama ps`, or raise models.request_timeout_s)"
        )
    if isinstance(exc, (ConnectionError, httpx.ConnectError)):
        return ModelUnavailable(
            f"Ollama is not running at {base_url}: start it with `ollama serve` "
            "(or set embedding.provider = \"embedded\" to embed offline in-process)"
        )
    if isinstance(exc, httpx.HTTPError):
        return ModelUnavailable(f"talking to Ollama at {base_url} failed: {exc!r}; is `ollama serve` healthy?")
    return exc if isinstance(exc, Exception) else RuntimeError(str(exc))


@dataclass
class OllamaModelInfo:
    context_length: int
    dimension: int | None
    architecture: str = ""
    capabilities: list[str] = field(default_factory=list)


def _parse_num_ctx(parameters: str | None) -> int | None:
    for line in (parameters or "").splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0] == "num_ctx" and parts[1].isdigit():
            return int(parts[1])
    return None


def split_windows(text: str, max_chars: int, overlap: int) -> list[str]:
    """Overlapping windows of at most ``max_chars`` covering ``text`` (``[text]`` when it fits)."""
    return [text[start:end] for start, end in char_windows(text, max_chars, overlap)]


def char_windows(text: str, max_chars: int, overlap: int) -> list[tuple[int, int]]:
    """The fewest equal, overlapping character spans covering ``text``, nudged to end at whitespace."""
    from cognivault.models.embedded import window_spans

    spans = window_spans(len(text), max_chars, overlap)
    if len(spans) == 1:
        return spans
    adjusted: list[tuple[int, int]] = []
    for start, end in spans:
        if end < len(text):
            cut = text.rfind(" ", max(start + 1, end - 64), end)
            cut = max(cut, text.rfind("\n", max(start + 1, end - 64), end))
            if cut > start:
                end = cut
        if start > 0:
            space = text.find(" ", start, min(end - 1, start + 64))
            if space != -1:
                start = space + 1
        adjusted.append((start, end))
    # the nudges must not open gaps (other than whitespace) between neighbours
    for index in range(1, len(adjusted)):
        previous_end = adjusted[index - 1][1]
        start, end = adjusted[index]
        if start > previous_end and text[previous_end:start].strip():
            start = previous_end
        while start < end - 1 and text[start].isspace():
            start += 1
        adjusted[index] = (start, end)
    return adjusted


class OllamaEmbedder:
    """:class:`~cognivault.models.base.EmbeddingProvider` over Ollama's batch ``/api/embed``.

    Nothing is sent at construction (only the host policy is checked); call
    :meth:`check` to fail early with the fix when Ollama is down or lacks the model.
    """

    def __init__(
        self,
        host: str = DEFAULT_HOST,
        model: str = DEFAULT_MODEL,
        *,
        allow_remote: bool = False,
        timeout_s: float = 120.0,
        batch_size: int = 32,
        keep_alive: str | float | None = None,
        client: Any = None,
    ) -> None:
        self.base_url = check_model_host(host, allow_remote)
        self.host = self.base_url
        self.model = model.strip() or DEFAULT_MODEL
        self.timeout_s = float(timeout_s)
        self.batch_size = max(1, int(batch_size))
        self.keep_alive = keep_alive
        self._client = client if client is not None else make_client(self.base_url, self.timeout_s)
        self._info: OllamaModelInfo | None = None
        self._lock = threading.Lock()
        family = model_family(self.model)
        self.document_prefix = DOCUMENT_PREFIXES.get(family, "")
        self.query_prefix = QUERY_PREFIXES.get(family, "")

    # -- Protocol ---------------------------------------------------------------

    @property
    def model_id(self) -> str:
        return f"ollama:{normalize_model_name(self.model)}"

    @property
    def languages(self) -> frozenset[str] | None:
        """None: embeddinggemma and the usual Ollama embedders are multilingual."""
        return None

    @property
    def dimension(self) -> int:
        info = self.check()
        if info.dimension is None:
            probe = self._embed_batch(["dimension probe"])
            info.dimension = int(probe.shape[1])
        return info.dimension

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(list(texts), self.document_prefix)

    def embed_query(self, text: str) -> np.ndarray:
        return self._embed([text], self.query_prefix)[0]

    # -- model facts ------------------------------------------------------------

    def check(self) -> OllamaModelInfo:
        """Ask Ollama about the model once (``/api/show``); raises :class:`ModelUnavailable` if unusable."""
        if self._info is not None:
            return self._info
        with self._lock:
            if self._info is None:
                try:
                    shown = self._client.show(self.model)
                except Exception as exc:  # noqa: BLE001 - translated below
                    raise translate_error(exc, base_url=self.base_url, model=self.model,
                                          timeout_s=self.timeout_s) from None
                info = dict(shown.modelinfo or {})
                arch = str(info.get("general.architecture", ""))
                context = info.get(f"{arch}.context_length") if arch else None
                if not isinstance(context, int):
                    context = next((v for k, v in info.items()
                                    if k.endswith(".context_length") and isinstance(v, int)), None)
                num_ctx = _parse_num_ctx(shown.parameters)
                context_length = int(context or num_ctx or 2048)
                if num_ctx:
                    context_length = min(context_length, num_ctx)
                dimension = info.get(f"{arch}.embedding_length") if arch else None
                capabilities = list(shown.capabilities or [])
                if capabilities and "embedding" not in capabilities:
                    raise ModelUnavailable(
                        f"Ollama model {self.model!r} cannot make embeddings (capabilities: "
                        f"{', '.join(capabilities)}); set embedding.ollama_model to an embedding model, "
                        f"e.g. `ollama pull {DEFAULT_MODEL}`"
                    )
                self._info = OllamaModelInfo(
                    context_length=max(16, context_length),
                    dimension=int(dimension) if isinstance(dimension, int) else None,
                    architecture=arch, capabilities=capabilities,
                )
        assert self._info is not None
        return self._info

    @property
    def context_length(self) -> int:
        return self.check().context_length

    def context_chars(self) -> int:
        """The context length in characters at the conservative estimate of 3 characters per token."""
        return int(self.context_length * CHARS_PER_TOKEN_ESTIMATE)

    def available(self) -> bool:
        """True when Ollama answers and has the model pulled (one quick ``/api/tags``)."""
        probe = probe_ollama(self.base_url, timeout_s=min(self.timeout_s, PROBE_TIMEOUT_S))
        return probe.reachable and model_is_listed(self.model, probe.models)

    def max_window_chars(self, prefix: str = "") -> int:
        room = self.context_length - PREFIX_RESERVE_TOKENS - math.ceil(len(prefix) / CHARS_PER_TOKEN_ESTIMATE)
        return max(32, int(room * CHARS_PER_TOKEN_ESTIMATE))

    # -- embedding --------------------------------------------------------------

    def _embed(self, texts: list[str], prefix: str) -> np.ndarray:
        for text in texts:
            if not isinstance(text, str):
                raise TypeError(f"texts must be str, got {type(text).__name__}")
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        max_chars = self.max_window_chars(prefix)
        pieces: list[str] = []
        owners: list[int] = []
        weights: list[float] = []
        for index, text in enumerate(texts):
            for start, end in char_windows(text, max_chars, overlap=max(0, max_chars // 10)):
                pieces.append(text[start:end])
                owners.append(index)
                weights.append(float(max(1, end - start)))
        vectors = self._embed_pieces(pieces, prefix, depth=0)
        if len(pieces) == len(texts):
            return vectors
        combined = np.zeros((len(texts), vectors.shape[1]), dtype=np.float32)
        np.add.at(combined, np.asarray(owners), vectors * np.asarray(weights, dtype=np.float32)[:, None])
        return _l2_normalize(combined)

    def _embed_pieces(self, pieces: list[str], prefix: str, depth: int) -> np.ndarray:
        """Embed ``pieces`` (already within the estimated context) in batches; halve any that overflow."""
        out: list[np.ndarray] = []
        for start in range(0, len(pieces), self.batch_size):
            batch = pieces[start:start + self.batch_size]
            try:
                out.append(self._embed_batch([prefix + piece for piece in batch]))
            except _ContextOverflow as overflow:
                if len(batch) > 1:  # find the culprit(s) one by one
                    out.append(np.vstack([self._embed_pieces([piece], prefix, depth) for piece in batch]))
                    continue
                piece = batch[0]
                if depth >= MAX_SPLIT_DEPTH or len(piece) < 64:
                    raise ModelUnavailable(
                        f"Ollama model {self.model!r} refuses a {len(piece)}-character input as longer "
                        f"than its context even after splitting: {overflow}"
                    ) from None
                spans = char_windows(piece, max(32, len(piece) // 2 + len(piece) // 20), len(piece) // 20)
                halves = [piece[a:b] for a, b in spans]
                vectors = self._embed_pieces(halves, prefix, depth + 1)
                lengths = np.asarray([max(1, b - a) for a, b in spans], dtype=np.float32)
                out.append(_l2_normalize((vectors * lengths[:, None]).sum(axis=0, keepdims=True)))
        return np.vstack(out)

    def _embed_batch(self, inputs: list[str]) -> np.ndarray:
        kwargs: dict[str, Any] = {"model": self.model, "input": inputs, "truncate": False}
        if self.keep_alive is not None:
            kwargs["keep_alive"] = self.keep_alive
        try:
            response = self._client.embed(**kwargs)
        except Exception as exc:  # noqa: BLE001 - translated below
            raise translate_error(exc, base_url=self.base_url, model=self.model,
                                  timeout_s=self.timeout_s) from None
        embeddings = response.embeddings
        if len(embeddings) != len(inputs):
            raise ModelUnavailable(
                f"Ollama returned {len(embeddings)} embeddings for {len(inputs)} inputs (model {self.model!r})"
            )
        matrix = np.asarray(embeddings, dtype=np.float32)
        if matrix.ndim != 2 or not np.all(np.isfinite(matrix)):
            raise ModelUnavailable(f"Ollama returned malformed embeddings for model {self.model!r}")
        if self._info is not None and self._info.dimension is not None and matrix.shape[1] != self._info.dimension:
            raise ModelUnavailable(
                f"Ollama model {self.model!r} returned {matrix.shape[1]}-d vectors, expected {self._info.dimension}"
            )
        return _l2_normalize(matrix)

    def describe(self) -> dict[str, Any]:
        facts: dict[str, Any] = {"model_id": self.model_id, "host": self.base_url, "model": self.model}
        if self._info is not None:
            facts.update(context_length=self._info.context_length, dimension=self._info.dimension)
        return facts


def _l2_normalize(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return (matrix / np.maximum(norms, 1e-12)).astype(np.float32, copy=False)


# --------------------------------------------------------------------------- probing


@dataclass
class OllamaProbe:
    reachable: bool
    models: list[str]
    error: str | None = None
    version: str | None = None


def probe_ollama(base_url: str, timeout_s: float = PROBE_TIMEOUT_S) -> OllamaProbe:
    """One fast ``GET /api/tags``: is Ollama answering, and which models are pulled?

    ``timeout_s`` bounds the connect; once connected, the listing may take ``PROBE_ANSWER_TIMEOUT_S``."""
    client = make_client(base_url, max(timeout_s, PROBE_ANSWER_TIMEOUT_S), connect_timeout_s=timeout_s)
    try:
        listed = client.list()
    except Exception as exc:  # noqa: BLE001 - reported, not raised
        translated = translate_error(exc, base_url=base_url, model="", timeout_s=timeout_s)
        return OllamaProbe(reachable=False, models=[], error=str(translated))
    finally:
        close = getattr(client, "close", None)
        if close is not None:
            close()
    names = [model.model for model in listed.models if model.model]
    return OllamaProbe(reachable=True, models=names)


def model_is_listed(model: str, listed: Sequence[str]) -> bool:
    return any(same_model(model, name) for name in listed)


OllamaEmbeddingProvider = OllamaEmbedder  # the name the design notes use
