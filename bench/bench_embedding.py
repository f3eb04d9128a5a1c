"""Embedded embedder vs plain sentence-transformers, side by side on real vault chunks; prints one JSON document.

Corpus: every Markdown note of the shared help vault (``../shared/eval/help-vault``,
read in place, never copied), cut into ~1000-character pieces by
``cognivault.vault.chunking.split_prose`` (a plain paragraph packer if that
module is missing).

Contenders, run in interleaved rounds (each round embeds one slice of the
chunks with every contender, in rotating order) so that load from other
processes on the machine hits all of them alike:

- ``reference``: ``SentenceTransformer(model_dir).encode(texts, batch_size=32)``
  (torch, ``threads`` intra-op threads). It silently truncates at 256 tokens.
- ``ours``: ``EmbeddedProvider.embed_documents(texts)``, which embeds *every*
  token (overlapping windows for long chunks), so it does more work than the
  reference on chunks over 256 tokens. ``speedup`` is ours / reference.
- ``ours_truncated``: the same engine fed exactly the reference's inputs (first
  254 tokens + [CLS]/[SEP]): the like-for-like speed and accuracy comparison.
- ``reference_windowed``: sentence-transformers run on ``ours``' exact windows
  and averaged the same way (the accuracy reference for long chunks).

- ``ours_r2`` (with ``--recipe-r2``): ``ours`` with recipe r2's graph instead, the
  attention output and FFN down-projections on 8-bit ``MatMulNBits`` (int8 dot
  products where the CPU has VNNI) rather than fp32, everything else alike.

``cosine_vs_reference`` compares ``ours_truncated`` with ``reference`` (identical
token inputs); ``cosine_windowed`` compares ``ours`` with ``reference_windowed``.
``cpu`` names the processor and the instruction sets the int8 kernels can use
(figures from two CPUs are not comparable without it).

Usage: ``python bench/bench_embedding.py [--limit N] [--rounds R] [--threads 2] [--recipe-r2]``
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "server"))

DEFAULT_VAULT = REPO.parent / "shared" / "eval" / "help-vault"


def _simple_split(text: str, chunk_chars: int) -> list[str]:
    parts: list[str] = []
    current = ""
    for paragraph in re.split(r"\n\s*\n", text):
        paragraph = paragraph.strip()
        while len(paragraph) > chunk_chars:
            if current:
                parts.append(current)
                current = ""
            parts.append(paragraph[:chunk_chars])
            paragraph = paragraph[chunk_chars:]
        if current and len(current) + len(paragraph) + 2 > chunk_chars:
            parts.append(current)
            current = paragraph
        elif paragraph:
            current = f"{current}\n\n{paragraph}" if current else paragraph
    if current.strip():
        parts.append(current)
    return parts


def load_chunks(vault: Path, chunk_chars: int) -> tuple[list[str], str]:
    try:
        from cognivault.vault.chunking import split_prose

        def split(text: str) -> list[str]:
            return split_prose(text, chunk_chars, 100)

        how = f"cognivault.vault.chunking.split_prose({chunk_chars}, 100)"
    except ImportError:
        def split(text: str) -> list[str]:
            return _simple_split(text, chunk_chars)

        how = f"paragraph packer ({chunk_chars} chars)"
    chunks: list[str] = []
    for path in sorted(vault.rglob("*.md")):
        chunks.extend(part for part in split(path.read_text("utf-8", errors="replace")) if part.strip())
    return chunks, how


# Instruction sets that decide which int8 / fp32 kernels ONNX Runtime and torch pick.
INSTRUCTION_SETS = ("sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vl", "avx512_vnni",
                    "avx_vnni", "avx512_bf16", "avx512_fp16", "amx_tile", "amx_int8", "amx_bf16")


def cpu_description() -> dict[str, Any]:
    """The processor's name, its logical CPUs and which of :data:`INSTRUCTION_SETS` it has (Linux)."""
    name, flags = platform.processor() or platform.machine(), set()
    try:
        for line in Path("/proc/cpuinfo").read_text("utf-8", errors="replace").splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name":
                name = value.strip()
            elif key.strip() == "flags":
                flags = set(value.split())
    except OSError:
        pass
    return {"model": name, "logical_cpus": os.cpu_count(),
            "instruction_sets": [flag for flag in INSTRUCTION_SETS if flag in flags]}


def recipe_r2_graph(int8_model: Path, target: Path, block_size: int = 128) -> Path:
    """Recipe r2 from the int8 graph: every remaining fp32 MatMul with a constant 2-D weight (attention
    output, FFN down) becomes an 8-bit symmetric ``MatMulNBits`` (blocks of ``block_size`` along K,
    ``accuracy_level=4``: int8 compute with an activation scale per row and block)."""
    import numpy as np
    import onnx
    from onnx import helper, numpy_helper

    model = onnx.load(str(int8_model))
    graph = model.graph
    initializers = {tensor.name: tensor for tensor in graph.initializer}
    nodes = []
    for node in graph.node:
        weight = initializers.get(node.input[1]) if node.op_type == "MatMul" and len(node.input) == 2 else None
        array = numpy_helper.to_array(weight) if weight is not None else None
        if array is None or array.ndim != 2 or array.dtype != np.float32:
            nodes.append(node)
            continue
        k, n = array.shape
        blocks = -(-k // block_size)
        padded = np.zeros((blocks * block_size, n), dtype=np.float32)
        padded[:k] = array
        per_block = padded.T.reshape(n, blocks, block_size)
        peak = np.take_along_axis(per_block, np.abs(per_block).argmax(axis=-1)[..., None], axis=-1)[..., 0]
        scales = (peak / -128.0).astype(np.float32)
        safe = np.where(scales == 0, np.float32(1.0), scales)
        packed = np.clip(np.rint(per_block / safe[..., None]) + 128, 0, 255).astype(np.uint8)
        base = node.input[1]
        graph.initializer.extend([numpy_helper.from_array(packed, f"{base}_q8"),
                                  numpy_helper.from_array(scales, f"{base}_q8_scales")])
        nodes.append(helper.make_node("MatMulNBits", [node.input[0], f"{base}_q8", f"{base}_q8_scales"],
                                      list(node.output), name=f"{node.name}_Q8", domain="com.microsoft",
                                      K=k, N=n, bits=8, block_size=block_size, accuracy_level=4))
    del graph.node[:]
    graph.node.extend(nodes)
    used = {name for node in graph.node for name in node.input}
    kept = [tensor for tensor in graph.initializer if tensor.name in used]
    del graph.initializer[:]
    graph.initializer.extend(kept)
    onnx.save(model, str(target))
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, default=DEFAULT_VAULT)
    parser.add_argument("--limit", type=int, default=0, help="random sample of N chunks (0: all)")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--chunk-chars", type=int, default=1000)
    parser.add_argument("--precision", default="int8", choices=["int8", "fp32"])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--recipe-r2", action="store_true", help="also run recipe r2's graph (ours_r2)")
    args = parser.parse_args(argv)

    if not args.vault.is_dir():
        print(json.dumps({"error": f"bench vault not found: {args.vault}"}))
        return 2
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    started = time.perf_counter()

    import numpy as np
    import torch
    from sentence_transformers import SentenceTransformer

    from cognivault.models.embedded import EmbeddedProvider, combine_windows

    torch.set_num_threads(args.threads)
    texts, chunker = load_chunks(args.vault, args.chunk_chars)
    if args.limit and args.limit < len(texts):
        texts = random.Random(args.seed).sample(texts, args.limit)

    provider = EmbeddedProvider(threads=args.threads, precision=args.precision)
    load_started = time.perf_counter()
    provider.embed_query("warm up")
    load_s = time.perf_counter() - load_started
    assert provider.model_dir is not None
    st = SentenceTransformer(str(provider.model_dir), device="cpu")
    st.encode(["warm up"], batch_size=32)
    max_len = provider.max_seq_length
    cls_id, sep_id = provider._cls_id, provider._sep_id  # noqa: SLF001 - bench looks inside

    def ours(batch: list[str]) -> np.ndarray:
        return provider.embed_documents(batch)

    def ours_truncated(batch: list[str]) -> np.ndarray:
        encodings = provider._tokenizer.encode_batch(batch, add_special_tokens=False)  # noqa: SLF001
        windows = [[cls_id, *encoding.ids[: max_len - 2], sep_id] for encoding in encodings]
        return provider.embed_token_windows(windows)

    def reference(batch: list[str]) -> np.ndarray:
        return st.encode(batch, batch_size=32, normalize_embeddings=True, convert_to_numpy=True)

    def st_windows(windows: list[list[int]]) -> np.ndarray:
        order = sorted(range(len(windows)), key=lambda i: -len(windows[i]))
        out = np.empty((len(windows), provider.dimension), dtype=np.float32)
        with torch.inference_mode():
            for start in range(0, len(order), 32):
                rows = order[start:start + 32]
                width = max(len(windows[i]) for i in rows)
                ids = torch.zeros((len(rows), width), dtype=torch.long)
                mask = torch.zeros((len(rows), width), dtype=torch.long)
                for r, i in enumerate(rows):
                    ids[r, : len(windows[i])] = torch.tensor(windows[i])
                    mask[r, : len(windows[i])] = 1
                features = {"input_ids": ids, "attention_mask": mask, "token_type_ids": torch.zeros_like(ids)}
                embedded = st.forward(features)["sentence_embedding"]
                out[rows] = torch.nn.functional.normalize(embedded, dim=1).numpy()
        return out

    def reference_windowed(batch: list[str]) -> np.ndarray:
        windows, owners, weights = provider.token_windows(batch)
        return combine_windows(st_windows(windows), owners, weights, len(batch))

    contenders: dict[str, Callable[[list[str]], np.ndarray]] = {
        "reference": reference, "ours": ours, "ours_truncated": ours_truncated,
        "reference_windowed": reference_windowed,
    }
    if args.recipe_r2 and args.precision == "int8":
        import tempfile

        assert provider.onnx_path is not None
        r2 = EmbeddedProvider(threads=args.threads, precision=args.precision)
        r2.embed_query("warm up")
        with tempfile.TemporaryDirectory() as scratch:
            r2._session = r2._new_session(recipe_r2_graph(provider.onnx_path, Path(scratch) / "r2.onnx"))  # noqa: SLF001
        r2.embed_query("warm up")
        contenders["ours_r2"] = r2.embed_documents
    rounds = max(1, min(args.rounds, len(texts)))
    slices = [list(range(r, len(texts), rounds)) for r in range(rounds)]
    seconds = dict.fromkeys(contenders, 0.0)
    vectors = {name: np.zeros((len(texts), provider.dimension), dtype=np.float32) for name in contenders}
    names = list(contenders)
    for r, indices in enumerate(slices):
        batch = [texts[i] for i in indices]
        for name in names[r % len(names):] + names[: r % len(names)]:
            t0 = time.perf_counter()
            vectors[name][indices] = contenders[name](batch)
            seconds[name] += time.perf_counter() - t0

    all_windows, _, _ = provider.token_windows(texts)
    full_tokens = [len(e.ids) + 2 for e in provider._tokenizer.encode_batch(texts, add_special_tokens=False)]  # noqa: SLF001
    fits = np.array([n <= max_len for n in full_tokens])

    def cosine(a: str, b: str, mask: np.ndarray | None = None) -> dict[str, float]:
        values = (vectors[a] * vectors[b]).sum(axis=1)
        if mask is not None:
            values = values[mask]
        if values.size == 0:
            return {"min": None, "mean": None, "n": 0}  # type: ignore[dict-item]
        return {"min": round(float(values.min()), 5), "mean": round(float(values.mean()), 5), "n": int(values.size)}

    n = len(texts)
    rate = {name: n / seconds[name] for name in contenders}
    r2_figures = {} if "ours_r2" not in contenders else {
        "ours_r2_chunks_per_s": round(rate["ours_r2"], 2),
        "r2_vs_ours": round(rate["ours_r2"] / rate["ours"], 3),
        "cosine_r2_windowed": {**cosine("ours_r2", "reference_windowed"),
                               "compares": "ours_r2 vs sentence-transformers on the same windows"},
    }
    vs_ref = cosine("ours_truncated", "reference")
    windowed = cosine("ours", "reference_windowed")
    report = {
        "bench": "embedding",
        "method": (
            "onnxruntime, BERT ops fused (EmbedLayerNorm/Attention/SkipLayerNorm/BiasGelu); "
            + ("dynamic int8 (per-channel weights) for Attention + FFN-up, fp32 for FFN-down + attention "
               "output and for windows <= "
               f"{provider.short_window_tokens} tokens; " if args.precision == "int8" else "fp32; ")
            + "tokenizers directly, each window run on its own (no padding, no neighbours); "
            + f"long chunks: overlapping {max_len}-token windows averaged"
        ),
        "model_id": provider.model_id,
        "cpu": cpu_description(),
        "load_average": [round(value, 1) for value in os.getloadavg()],
        "threads": args.threads,
        "rounds": rounds,
        "n_chunks": n,
        "corpus": {
            "vault": str(args.vault), "chunker": chunker,
            "chars_mean": round(sum(map(len, texts)) / n, 1),
            "tokens_mean": round(sum(full_tokens) / n, 1),
            "chunks_over_window": int((~fits).sum()),
            "windows": len(all_windows),
        },
        "reference_chunks_per_s": round(rate["reference"], 2),
        "ours_chunks_per_s": round(rate["ours"], 2),
        "speedup": round(rate["ours"] / rate["reference"], 3),
        "min_cosine_vs_reference": vs_ref["min"],
        "mean_cosine_vs_reference": vs_ref["mean"],
        "ours_truncated_chunks_per_s": round(rate["ours_truncated"], 2),
        "speedup_like_for_like": round(rate["ours_truncated"] / rate["reference"], 3),
        "reference_windowed_chunks_per_s": round(rate["reference_windowed"], 2),
        "speedup_vs_reference_windowed": round(rate["ours"] / rate["reference_windowed"], 3),
        "cosine_vs_reference": {**vs_ref, "compares": "ours_truncated vs reference, identical 256-token inputs"},
        "cosine_windowed": {**windowed,
                            "compares": "ours vs sentence-transformers on the same windows, same averaging"},
        "cosine_ours_vs_reference_fitting_chunks": cosine("ours", "reference", fits),
        "cosine_ours_vs_truncated_reference_long_chunks": cosine("ours", "reference", ~fits),
        **r2_figures,
        "target": {
            "speedup_2x": rate["ours"] / rate["reference"] >= 2.0,
            "every_vector_cosine_0_99": min(vs_ref["min"], windowed["min"]) >= 0.99,
        },
        "first_load_s": round(load_s, 2),
        "elapsed_s": round(time.perf_counter() - started, 1),
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
