"""Builds the ONNX graph of a BERT sentence encoder straight from its safetensors weights: no torch.

The offline embedder (:mod:`cognivault.models.embedded`) needs an ONNX file of
all-MiniLM-L6-v2 to run it with ONNX Runtime. Exporting one through torch made
``pip install '.[embedded]'`` pull in 2 GB of torch for a one-time step; this
module writes the graph itself with ``onnx.helper``, reading the weights with
``safetensors.numpy``.

The graph uses ONNX Runtime's fused BERT operators (domain ``com.microsoft``),
the same ones its transformer optimizer would fuse a torch export into:

- ``EmbedLayerNormalization``: word + position + token-type embeddings, LayerNorm,
  and each row's token count from the attention mask;
- per layer ``Attention`` (one QKV projection, ``num_heads`` heads, softmax over
  each row's first token-count tokens, so padding must be on the right, as the
  embedder always pads; the padded tail is not attended to, and costs less), the output
  projection, ``SkipLayerNormalization``
  (residual + bias + LayerNorm), the FFN up-projection with ``BiasGelu`` (exact
  erf GELU, BERT's ``"gelu"``), the down-projection and a second
  ``SkipLayerNormalization``.

Inputs ``input_ids``, ``attention_mask``, ``token_type_ids`` (int64, batch x
sequence), output ``last_hidden_state`` (batch x sequence x hidden). Pooling and
normalization stay with the caller, as the sentence-transformers config says.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cognivault.errors import CogniVaultError

MS_DOMAIN = "com.microsoft"
OPSET = 17
IR_VERSION = 8  # old enough for every onnxruntime that has these contrib ops
INPUT_NAMES = ("input_ids", "attention_mask", "token_type_ids")
OUTPUT_NAME = "last_hidden_state"


class UnsupportedModel(CogniVaultError, ValueError):
    """The folder's config or weights are not a plain BERT encoder this builder knows."""

    code = "unsupported_model"


@dataclass(frozen=True)
class BertShape:
    """The parts of a Hugging Face ``config.json`` the graph depends on."""

    hidden_size: int
    num_heads: int
    num_layers: int
    intermediate_size: int
    layer_norm_eps: float

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> BertShape:
        if config.get("model_type") != "bert":
            raise UnsupportedModel(f"model_type {config.get('model_type')!r} is not 'bert'")
        if config.get("hidden_act", "gelu") != "gelu":
            raise UnsupportedModel(f"hidden_act {config.get('hidden_act')!r} is not 'gelu'")
        if config.get("position_embedding_type", "absolute") != "absolute":
            raise UnsupportedModel("only absolute position embeddings are supported")
        return cls(
            hidden_size=int(config["hidden_size"]),
            num_heads=int(config["num_attention_heads"]),
            num_layers=int(config["num_hidden_layers"]),
            intermediate_size=int(config["intermediate_size"]),
            layer_norm_eps=float(config.get("layer_norm_eps", 1e-12)),
        )


def _weights(model_dir: Path) -> dict[str, np.ndarray]:
    from safetensors.numpy import load_file

    path = model_dir / "model.safetensors"
    if not path.is_file():
        raise UnsupportedModel(f"{model_dir} has no model.safetensors")
    tensors = load_file(str(path))
    prefix = "bert." if "bert.embeddings.word_embeddings.weight" in tensors else ""
    return {name[len(prefix):]: array for name, array in tensors.items() if name.startswith(prefix)}


class _GraphWriter:
    """Collects nodes and float32 initializers under unique names."""

    def __init__(self, weights: dict[str, np.ndarray]) -> None:
        self.weights = weights
        self.nodes: list[Any] = []
        self.initializers: list[Any] = []

    def weight(self, name: str, transpose: bool = False) -> np.ndarray:
        try:
            array = self.weights[name]
        except KeyError:
            raise UnsupportedModel(f"the weights have no tensor {name!r}") from None
        array = np.asarray(array, dtype=np.float32)
        return np.ascontiguousarray(array.T) if transpose else array

    def constant(self, name: str, array: np.ndarray) -> str:
        from onnx import numpy_helper

        self.initializers.append(numpy_helper.from_array(np.ascontiguousarray(array, dtype=np.float32), name))
        return name

    def param(self, name: str, transpose: bool = False) -> str:
        return self.constant(name, self.weight(name, transpose))

    def node(self, op: str, inputs: list[str], outputs: list[str], name: str, **attributes: Any) -> list[str]:
        from onnx import helper

        domain = "" if op in ("Cast", "MatMul") else MS_DOMAIN
        self.nodes.append(helper.make_node(op, inputs, outputs, name=name, domain=domain, **attributes))
        return outputs

    def dense_add_norm(self, block: str, inputs: str, residual: str, output: str, eps: float) -> str:
        """BERT's ``<block>.dense`` projection, + bias + ``residual``, then ``<block>.LayerNorm``."""
        (projected,) = self.node("MatMul", [inputs, self.param(f"{block}.dense.weight", transpose=True)],
                                 [f"{block}.projected"], name=block)
        (normed,) = self.node(
            "SkipLayerNormalization",
            [projected, residual, self.param(f"{block}.LayerNorm.weight"), self.param(f"{block}.LayerNorm.bias"),
             self.param(f"{block}.dense.bias")],
            [output], name=f"{block}.norm", epsilon=eps,
        )
        return normed


def build_bert_encoder(model_dir: Path) -> Any:
    """The fp32 ``onnx.ModelProto`` of the BERT encoder in ``model_dir`` (config.json + model.safetensors)."""
    from onnx import TensorProto, checker, helper

    model_dir = Path(model_dir)
    shape = BertShape.from_config(json.loads((model_dir / "config.json").read_text("utf-8")))
    if shape.hidden_size % shape.num_heads:
        raise UnsupportedModel(f"hidden size {shape.hidden_size} is not divisible by {shape.num_heads} heads")
    graph = _GraphWriter(_weights(model_dir))
    eps = shape.layer_norm_eps

    for name in INPUT_NAMES:
        graph.node("Cast", [name], [f"{name}_int32"], name=f"cast_{name}", to=TensorProto.INT32)
    hidden, token_counts = graph.node(
        "EmbedLayerNormalization",
        ["input_ids_int32", "token_type_ids_int32",
         graph.param("embeddings.word_embeddings.weight"),
         graph.param("embeddings.position_embeddings.weight"),
         graph.param("embeddings.token_type_embeddings.weight"),
         graph.param("embeddings.LayerNorm.weight"), graph.param("embeddings.LayerNorm.bias"),
         "attention_mask_int32"],
        ["embeddings", "token_counts"], name="embeddings", epsilon=eps,
    )
    for layer in range(shape.num_layers):
        at = f"encoder.layer.{layer}."
        qkv = [f"{at}attention.self.{part}" for part in ("query", "key", "value")]
        qkv_weight = graph.constant(f"{at}attention.qkv.weight", np.concatenate(
            [graph.weight(f"{part}.weight", transpose=True) for part in qkv], axis=1))
        qkv_bias = graph.constant(f"{at}attention.qkv.bias", np.concatenate(
            [graph.weight(f"{part}.bias") for part in qkv]))
        (context,) = graph.node("Attention", [hidden, qkv_weight, qkv_bias, token_counts],
                                [f"{at}attention.context"], name=f"{at}attention", num_heads=shape.num_heads)
        attended = graph.dense_add_norm(f"{at}attention.output", context, hidden, f"{at}attention.out", eps)
        (up,) = graph.node("MatMul", [attended, graph.param(f"{at}intermediate.dense.weight", True)],
                           [f"{at}intermediate.up"], name=f"{at}intermediate")
        (activated,) = graph.node("BiasGelu", [up, graph.param(f"{at}intermediate.dense.bias")],
                                  [f"{at}intermediate.gelu"], name=f"{at}intermediate.gelu")
        hidden = graph.dense_add_norm(f"{at}output", activated, attended,
                                      OUTPUT_NAME if layer == shape.num_layers - 1 else f"{at}out", eps)

    dims = ["batch", "sequence"]
    model = helper.make_model(
        helper.make_graph(
            graph.nodes, "bert_encoder",
            [helper.make_tensor_value_info(name, TensorProto.INT64, dims) for name in INPUT_NAMES],
            [helper.make_tensor_value_info(OUTPUT_NAME, TensorProto.FLOAT, [*dims, shape.hidden_size])],
            graph.initializers,
        ),
        opset_imports=[helper.make_opsetid("", OPSET), helper.make_opsetid(MS_DOMAIN, 1)],
        producer_name="cognivault",
    )
    model.ir_version = IR_VERSION
    checker.check_model(model, full_check=False)
    return model
