"""The one interface every model backend implements, so the engine never cares which runs.

Embedding: ``embed_documents`` for passages, ``embed_query`` for a search
question (some models want different prefixes for the two). Vectors are
float32 and L2-normalized, so inner product is cosine similarity.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from cognivault.errors import CogniVaultError


class ModelUnavailable(CogniVaultError, RuntimeError):
    """A provider cannot run: the message names the fix (``ollama pull embeddinggemma``)."""

    code = "model_unavailable"
    status = 503
    exit_code = 1


@runtime_checkable
class EmbeddingProvider(Protocol):
    @property
    def model_id(self) -> str:
        """Stable id of provider + model + anything that changes vectors (``embedded:all-MiniLM-L6-v2``)."""
        ...

    @property
    def dimension(self) -> int: ...

    @property
    def languages(self) -> frozenset[str] | None:
        """ISO codes of the languages the model was trained on; None for a multilingual model."""
        ...

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), dimension) float32, L2-normalized; long texts are never silently truncated."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """(dimension,) float32, L2-normalized."""
        ...
