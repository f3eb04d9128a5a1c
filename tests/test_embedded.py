"""The offline embedded model: real all-MiniLM-L6-v2 from its pip package, checked against sentence-transformers."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from cognivault.models.embedded import EmbeddedProvider, ensure_model_dir

pytestmark = pytest.mark.skipif(
    any(importlib.util.find_spec(m) is None for m in ("onnxruntime", "all_minilm_l6_v2", "tokenizers")),
    reason="the embedded extra is not installed (pip install 'cognivault[embedded]')")

TEXTS = [
    "Photosynthesis turns light energy into chemical energy stored in glucose.",
    "To embed a note, put an exclamation mark in front of an internal link.",
    "Die Spaltöffnungen regeln den Gasaustausch des Blattes.",
    "short",
    "Obsidian Sync keeps a version history of every note so that no edit is lost when two devices conflict. "
    * 3,
]


@pytest.fixture(scope="module")
def model_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("models")


@pytest.fixture(scope="module")
def provider(model_cache: Path) -> EmbeddedProvider:
    return EmbeddedProvider(cache_dir=model_cache)


def test_vectors_are_normalized_and_deterministic(provider: EmbeddedProvider) -> None:
    first = provider.embed_documents(TEXTS)
    assert first.shape == (len(TEXTS), provider.dimension) == (len(TEXTS), 384)
    assert np.allclose(np.linalg.norm(first, axis=1), 1.0, atol=1e-5)
    assert np.allclose(first, provider.embed_documents(TEXTS), atol=1e-6)
    assert provider.embed_query(TEXTS[0]).shape == (384,)
    assert provider.languages == frozenset({"en"})
    assert provider.model_id.startswith("embedded:all-MiniLM-L6-v2:")


def test_close_to_sentence_transformers(provider: EmbeddedProvider, model_cache: Path) -> None:
    pytest.importorskip("sentence_transformers", reason="the reference needs sentence-transformers")
    from sentence_transformers import SentenceTransformer

    reference = SentenceTransformer(str(ensure_model_dir(cache_root=model_cache)), device="cpu")
    expected = reference.encode(TEXTS, batch_size=32, normalize_embeddings=True)
    ours = provider.embed_documents(TEXTS)
    cosines = np.sum(expected * ours, axis=1)
    assert cosines.min() >= 0.99, cosines


def test_long_text_is_windowed_not_truncated(provider: EmbeddedProvider) -> None:
    head = "Chlorophyll absorbs red and blue light in the thylakoid membranes. " * 30
    tail = "Mitochondria release energy from glucose through cellular respiration. " * 30
    long_vector = provider.embed_documents([head + tail])[0]
    tail_vector = provider.embed_documents([tail])[0]
    head_vector = provider.embed_documents([head])[0]
    # A truncating model would only see the head; the windowed mean sees both halves.
    assert float(long_vector @ tail_vector) > 0.5
    assert float(long_vector @ head_vector) > 0.5


def test_meaning_ranks_the_right_passage(provider: EmbeddedProvider) -> None:
    passages = provider.embed_documents(TEXTS[:2])
    query = provider.embed_query("how do plants make sugar from sunlight")
    assert int(np.argmax(passages @ query)) == 0
