"""Embeddings from a local Ollama (``embeddinggemma`` by default) through its batch ``/api/embed``.

Only a loopback host is used unless the user allows another. The model's
context length comes from ``/api/show``; a text longer than that is never
silently truncated (``truncate: false``): it is embedded as overlapping
windows whose vectors are averaged. embeddinggemma gets the prompt prefixes it
was trained with ("title: none | text: ..." for passages, "task: search result
| query: ..." for questions). A missing model or a stopped server raises
ModelUnavailable naming the fix.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import httpx
import numpy as np
import ollama

from cognivault.models.base import ModelUnavailable
from cognivault.models.hostpolicy import check_model_host

CHARS_PER_TOKEN = 3  # conservative: real text averages ~4 characters per token
DEFAULT_CONTEXT = 2048
BATCH = 32
PREFIXES = {"embeddinggemma": ("title: none | text: ", "task: search result | query: ")}


def _normalize(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return (matrix / np.where(norms == 0, 1, norms)).astype(np.float32)


def split_windows(text: str, max_chars: int, overlap: int) -> list[str]:
    """Overlapping character windows covering ``text`` (one window when it fits)."""
    if len(text) <= max_chars:
        return [text]
    step = max(1, max_chars - overlap)
    return [text[start:start + max_chars] for start in range(0, len(text) - overlap, step)]


class OllamaEmbedder:
    def __init__(self, host: str, model: str, *, allow_remote: bool = False, timeout_s: float = 120.0) -> None:
        self.host = check_model_host(host, allow_remote)
        self.model = model
        self._client = ollama.Client(host=self.host, timeout=timeout_s)
        self._lock = threading.Lock()
        self._dimension: int | None = None
        self._context: int | None = None
        base = model.split(":")[0]
        self._document_prefix, self._query_prefix = PREFIXES.get(base, ("", ""))

    @property
    def model_id(self) -> str:
        return f"ollama:{self.model}"

    @property
    def languages(self) -> frozenset[str] | None:
        return None  # embeddinggemma and the usual Ollama embedders are multilingual

    @property
    def dimension(self) -> int:
        if self._dimension is None:
            self._dimension = int(self._embed(["dimension probe"]).shape[1])
        return self._dimension

    def _call(self, method: str, **kwargs: object) -> object:
        try:
            return getattr(self._client, method)(model=self.model, **kwargs)
        except ollama.ResponseError as exc:
            if exc.status_code == 404:
                raise ModelUnavailable(f"the embedding model {self.model!r} is not pulled: "
                                       f"run `ollama pull {self.model}`") from exc
            raise ModelUnavailable(f"Ollama refused the embedding request: {exc.error}") from exc
        except (httpx.ConnectError, ConnectionError) as exc:
            raise ModelUnavailable(f"Ollama is not reachable at {self.host}: start it with `ollama serve`"
                                   ) from exc
        except httpx.TimeoutException as exc:
            raise ModelUnavailable(f"Ollama did not answer in time at {self.host}") from exc

    def context_chars(self) -> int:
        if self._context is None:
            info = self._call("show")
            model_info = getattr(info, "modelinfo", None) or {}
            lengths = [int(v) for k, v in dict(model_info).items() if k.endswith(".context_length")]
            self._context = lengths[0] if lengths else DEFAULT_CONTEXT
        return self._context * CHARS_PER_TOKEN

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        response = self._call("embed", input=list(texts), truncate=False)
        return np.asarray(getattr(response, "embeddings"), dtype=np.float32)

    def _embed_all(self, texts: Sequence[str], prefix: str) -> np.ndarray:
        limit = self.context_chars() - len(prefix)
        windows: list[str] = []
        owners: list[int] = []
        for index, text in enumerate(texts):
            for window in split_windows(text, limit, overlap=limit // 8):
                windows.append(prefix + window)
                owners.append(index)
        with self._lock:
            vectors = np.vstack([self._embed(windows[start:start + BATCH])
                                 for start in range(0, len(windows), BATCH)])
        vectors = _normalize(vectors)
        combined = np.zeros((len(texts), vectors.shape[1]), dtype=np.float32)
        np.add.at(combined, np.asarray(owners), vectors)
        self._dimension = vectors.shape[1]
        return _normalize(combined)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return self._embed_all(texts, self._document_prefix)

    def embed_query(self, text: str) -> np.ndarray:
        return self._embed_all([text], self._query_prefix)[0]

    def available(self) -> bool:
        """True when Ollama answers and has the model pulled (a quick probe)."""
        try:
            names = {m.model for m in self._client.list().models}
        except Exception:  # noqa: BLE001 - any failure means "not usable now"
            return False
        return self.model in names or f"{self.model}:latest" in names
