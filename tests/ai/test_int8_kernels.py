"""memhq.ai.int8_kernels and ``LocalMiniLMEmbedder.embed_query``: recall's query through the int8 graph."""

from __future__ import annotations

import contextlib
import shutil
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from memhq.ai import int8_kernels
from memhq.ai.embeddings import DIM, LocalMiniLMEmbedder, default_model_path, get_local_embedder
from memhq.ai.tokens import ModelIntegrityError

TEXTS = [
    "What food does the user like?",
    "Where does Ana live now?",
    "I moved to Lisbon last month.",
    "Rosalind: I went to a pottery class yesterday and it was so calming.",
    "ok",
    "",
]
#: all-MiniLM-L6-v2: 6 layers x (query, key, value, attention output, feed-forward in, feed-forward out).
WEIGHT_MATMULS = 36


@pytest.fixture(scope="module")
def int8_embedder() -> LocalMiniLMEmbedder:
    return LocalMiniLMEmbedder(int8_queries=True)


def test_every_weight_matmul_of_the_model_uses_the_int8_weights() -> None:
    rewritten = int8_kernels.rewrite(default_model_path().read_bytes())
    assert rewritten.replaced == WEIGHT_MATMULS
    model = onnx.load_from_string(rewritten.model)
    ops = Counter(node.op_type for node in model.graph.node)
    assert ops["DynamicQuantizeMatMul"] == WEIGHT_MATMULS
    original = Counter(node.op_type for node in onnx.load(str(default_model_path())).graph.node)
    # the 36 dequantising Cast → Mul pairs are gone; attention's own MatMuls stay fp32
    assert original["MatMul"] - ops["MatMul"] == WEIGHT_MATMULS
    assert original["Cast"] - ops["Cast"] == WEIGHT_MATMULS
    assert original["Mul"] - ops["Mul"] == WEIGHT_MATMULS
    onnx.checker.check_model(model)


def test_query_vectors_are_unit_float32_and_close_to_the_fp32_ones(
    int8_embedder: LocalMiniLMEmbedder,
) -> None:
    stored = int8_embedder.embed(TEXTS)
    for text, fp32 in zip(TEXTS, stored, strict=True):
        query = int8_embedder.embed_query(text)
        assert query.shape == (DIM,) and query.dtype == np.float32
        assert abs(float(np.linalg.norm(query)) - 1.0) < 1e-5
        # questions agree to >= 0.99; a one-word text has the fewest activations to share a scale
        assert float(query @ fp32) >= (0.99 if len(text.split()) > 2 else 0.97), text


def test_the_int8_graph_is_really_used(int8_embedder: LocalMiniLMEmbedder) -> None:
    text = TEXTS[0]
    assert not np.array_equal(int8_embedder.embed_query(text), int8_embedder.embed([text])[0])
    np.testing.assert_array_equal(int8_embedder.embed_query(text), int8_embedder.embed_query(text))


def test_int8_query_ranks_a_paraphrase_first(int8_embedder: LocalMiniLMEmbedder) -> None:
    home, pizza, rome = int8_embedder.embed(["My home is in Berlin", "I like pizza", "We visited Rome"])
    query = int8_embedder.embed_query("Where do I live? Berlin")
    assert float(query @ home) > max(float(query @ pizza), float(query @ rome)) + 0.2


def test_the_int8_session_is_built_on_the_first_query_from_the_verified_file(tmp_path: Path) -> None:
    copy = tmp_path / "model.onnx"
    shutil.copyfile(default_model_path(), copy)
    embedder = LocalMiniLMEmbedder(model_path=copy, int8_queries=True)
    assert embedder._int8_session is None  # a worker that never asks a query never builds it
    embedder.embed_query(TEXTS[0])
    assert embedder._int8_session is not None


def test_a_model_file_tampered_with_before_the_first_query_is_refused(tmp_path: Path) -> None:
    copy = tmp_path / "model.onnx"
    shutil.copyfile(default_model_path(), copy)
    embedder = LocalMiniLMEmbedder(model_path=copy, int8_queries=True)
    data = bytearray(copy.read_bytes())
    data[len(data) // 2] ^= 0x01
    copy.write_bytes(bytes(data))
    with pytest.raises(ModelIntegrityError, match="sha256 mismatch"):
        embedder.embed_query(TEXTS[0])
    assert embedder.embed([TEXTS[0]]).shape == (1, DIM)  # the loaded fp32 session is unaffected


def test_without_int8_queries_a_query_is_embedded_like_a_stored_text() -> None:
    plain = LocalMiniLMEmbedder(int8_queries=False)
    for text in TEXTS:
        np.testing.assert_array_equal(plain.embed_query(text), plain.embed([text])[0])


@contextlib.contextmanager
def process_embedder(settings: Any, *, queries: bool, texts: bool) -> Iterator[LocalMiniLMEmbedder]:
    """The process-wide embedder as built under these two settings (and forgotten afterwards)."""
    settings.MEMHQ_EMBED_INT8_QUERIES = queries
    settings.MEMHQ_EMBED_INT8_TEXTS = texts
    get_local_embedder.cache_clear()
    try:
        yield get_local_embedder()
    finally:
        get_local_embedder.cache_clear()


def test_the_settings_turn_int8_off(settings: Any) -> None:
    with process_embedder(settings, queries=False, texts=False) as embedder:
        np.testing.assert_array_equal(embedder.embed_query(TEXTS[2]), embedder.embed([TEXTS[2]])[0])
        assert embedder._int8_session is None


def test_int8_texts_are_embedded_one_per_run_like_a_query() -> None:
    """A stored text's vector never depends on the other texts of the call (the int8 activations share
    one scale per run), and equals the query vector of the same text: stored and asked go the same way."""
    embedder = LocalMiniLMEmbedder(int8_queries=True, int8_texts=True)
    together = embedder.embed(TEXTS)
    for text, vector in zip(TEXTS, together, strict=True):
        np.testing.assert_array_equal(vector, embedder.embed([text])[0])
        np.testing.assert_array_equal(vector, embedder.embed_query(text))
        assert abs(float(np.linalg.norm(vector)) - 1.0) < 1e-5


def test_with_both_settings_on_the_fp32_session_is_never_built() -> None:
    embedder = LocalMiniLMEmbedder(int8_queries=True, int8_texts=True)
    embedder.embed(TEXTS)
    embedder.embed_query(TEXTS[0])
    assert embedder._fp32_session is None and embedder._int8_session is not None  # ~170 MB not held


def test_int8_texts_stay_close_to_the_fp32_vectors(int8_embedder: LocalMiniLMEmbedder) -> None:
    """Vectors stored before the setting was turned on (fp32) stay comparable with the new ones."""
    int8_texts = LocalMiniLMEmbedder(int8_texts=True).embed(TEXTS)
    fp32 = int8_embedder.embed(TEXTS)
    for text, new, old in zip(TEXTS, int8_texts, fp32, strict=True):
        assert float(new @ old) >= (0.99 if len(text.split()) > 2 else 0.97), text


def test_the_setting_turns_int8_texts_on(settings: Any) -> None:
    with process_embedder(settings, queries=True, texts=True) as embedder:
        np.testing.assert_array_equal(embedder.embed([TEXTS[2]])[0], embedder.embed_query(TEXTS[2]))
        assert embedder._fp32_session is None


def _tiny_model(weight: np.ndarray, *, dequantised: bool) -> bytes:
    """y = x @ W, with W stored as int8 and dequantised (Cast → Mul by a per-column scale) or as fp32."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, weight.shape[0]])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, weight.shape[1]])
    if dequantised:
        scale = np.full((1, weight.shape[1]), 0.5, dtype=np.float32)
        inits = [numpy_helper.from_array(weight.astype(np.int8), "w"), numpy_helper.from_array(scale, "s")]
        nodes = [
            helper.make_node("Cast", ["w"], ["w_f"], to=TensorProto.FLOAT, name="cast"),
            helper.make_node("Mul", ["w_f", "s"], ["w_deq"], name="mul"),
            helper.make_node("MatMul", ["x", "w_deq"], ["y"], name="matmul"),
        ]
    else:
        inits = [numpy_helper.from_array(weight.astype(np.float32), "w")]
        nodes = [helper.make_node("MatMul", ["x", "w"], ["y"], name="matmul")]
    graph = helper.make_graph(nodes, "tiny", [x], [y], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model.SerializeToString()


def _run(model: bytes, x: np.ndarray) -> np.ndarray:
    session = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    return np.asarray(session.run(None, {"x": x})[0])


def test_a_dequantised_matmul_gives_the_same_product_with_int8_kernels() -> None:
    rng = np.random.default_rng(7)
    weight = rng.integers(-100, 100, size=(16, 8))
    model = _tiny_model(weight, dequantised=True)
    rewritten = int8_kernels.rewrite(model)
    assert rewritten.replaced == 1
    x = rng.normal(size=(1, 16)).astype(np.float32)
    exact = x @ (weight.astype(np.float32) * 0.5)
    got = _run(rewritten.model, x)
    assert float(np.abs(got - exact).max()) <= 0.02 * float(np.abs(exact).max())


def test_a_graph_without_int8_weights_is_left_as_it_is() -> None:
    weight = np.arange(16 * 8, dtype=np.float32).reshape(16, 8) / 100
    rewritten = int8_kernels.rewrite(_tiny_model(weight, dequantised=False))
    assert rewritten.replaced == 0
    x = np.ones((1, 16), dtype=np.float32)
    np.testing.assert_allclose(_run(rewritten.model, x), x @ weight, rtol=1e-6)
