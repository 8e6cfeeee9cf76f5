"""memhq.ai.embeddings: the local all-MiniLM-L6-v2 int8 embedder on the real model files."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memhq.ai import beside
from memhq.ai.embeddings import (
    DIM,
    MAX_TOKENS,
    Embedder,
    LocalMiniLMEmbedder,
    default_model_path,
    get_local_embedder,
)
from memhq.ai.tokens import ModelIntegrityError, default_tokenizer_path

TEXTS = [
    "I live in Berlin",
    "",
    "My sister adopted a cat named Pixel last week and she sends me photos every morning.",
    "ok",
    "We are planning a two-week trip to Japan in October: Tokyo, Kyoto, and maybe Hokkaido if it is cheap.",
    "I like pizza",
]


@pytest.fixture(scope="module")
def embedder() -> LocalMiniLMEmbedder:
    return get_local_embedder()


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b)


def test_vectors_are_384_float32_unit_rows(embedder: LocalMiniLMEmbedder) -> None:
    vectors = embedder.embed(TEXTS)
    assert vectors.shape == (len(TEXTS), DIM) == (6, 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert isinstance(embedder, Embedder)
    assert (embedder.name, embedder.dim) == ("all-MiniLM-L6-v2-onnx-int8", 384)


def test_same_text_gives_the_same_vector(embedder: LocalMiniLMEmbedder) -> None:
    first = embedder.embed(["I moved to Lisbon last month."])
    again = embedder.embed(["I moved to Lisbon last month."])
    np.testing.assert_array_equal(first, again)


def test_batch_equals_one_by_one_and_keeps_the_order() -> None:
    small_batches = LocalMiniLMEmbedder(batch_size=2)  # several batches, each padded, sorted by length
    batched = small_batches.embed(TEXTS)
    one_by_one = np.vstack([small_batches.embed([text]) for text in TEXTS])
    np.testing.assert_allclose(batched, one_by_one, atol=1e-5)


def test_paraphrase_is_closer_than_an_unrelated_sentence(embedder: LocalMiniLMEmbedder) -> None:
    berlin, home, pizza = embedder.embed(["I live in Berlin", "My home is in Berlin", "I like pizza"])
    assert cosine(berlin, home) > cosine(berlin, pizza) + 0.3
    assert cosine(berlin, home) > cosine(home, pizza) + 0.3


def test_text_beyond_the_token_limit_is_ignored(embedder: LocalMiniLMEmbedder) -> None:
    long_text = " ".join(["memory"] * (MAX_TOKENS * 2))
    longer, with_tail = embedder.embed([long_text, long_text + " pizza pasta Rome Berlin"])
    np.testing.assert_allclose(longer, with_tail, atol=1e-6)


def test_empty_input_gives_zero_rows(embedder: LocalMiniLMEmbedder) -> None:
    vectors = embedder.embed([])
    assert vectors.shape == (0, 384)
    assert vectors.dtype == np.float32


def test_a_single_string_is_refused(embedder: LocalMiniLMEmbedder) -> None:
    with pytest.raises(TypeError):
        embedder.embed("I live in Berlin")


def test_loaded_once_per_process() -> None:
    assert get_local_embedder() is get_local_embedder()


def test_threads_come_from_the_setting_and_do_not_change_the_vectors(
    embedder: LocalMiniLMEmbedder, settings: Any
) -> None:
    settings.MEMHQ_EMBED_THREADS = 2
    get_local_embedder.cache_clear()
    try:
        threaded = get_local_embedder()
        assert threaded.intra_op_threads == 2
        assert embedder.intra_op_threads == 1
        np.testing.assert_allclose(threaded.embed(TEXTS), embedder.embed(TEXTS), atol=1e-5)
    finally:
        get_local_embedder.cache_clear()


def tampered_copy(source: Path, directory: Path) -> Path:
    copy = directory / source.name
    shutil.copyfile(source, copy)
    data = bytearray(copy.read_bytes())
    data[len(data) // 2] ^= 0x01
    copy.write_bytes(bytes(data))
    return copy


@pytest.mark.parametrize("int8_texts", [True, False])
def test_tampered_model_file_is_refused(tmp_path: Path, int8_texts: bool) -> None:
    with pytest.raises(ModelIntegrityError, match="sha256 mismatch"):
        LocalMiniLMEmbedder(model_path=tampered_copy(default_model_path(), tmp_path), int8_texts=int8_texts)


def test_tampered_tokenizer_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ModelIntegrityError, match="sha256 mismatch"):
        LocalMiniLMEmbedder(tokenizer_path=tampered_copy(default_tokenizer_path(), tmp_path))


def test_untampered_copy_with_the_wrong_expected_hash_is_refused(tmp_path: Path) -> None:
    copy = tmp_path / "tokenizer.json"
    shutil.copyfile(default_tokenizer_path(), copy)
    LocalMiniLMEmbedder(tokenizer_path=copy)  # the intact copy loads
    with pytest.raises(ModelIntegrityError):
        LocalMiniLMEmbedder(tokenizer_path=copy, tokenizer_sha256="0" * 64)


@pytest.mark.parametrize("int8_texts", [True, False])
def test_helper_threads_do_not_change_the_vectors(int8_texts: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(beside, "spare_cores", lambda: 8)  # lent whatever else the box runs
    alone = LocalMiniLMEmbedder(int8_texts=int8_texts)
    shared = LocalMiniLMEmbedder(int8_texts=int8_texts, helpers=2)
    np.testing.assert_array_equal(shared.embed(TEXTS * 3), alone.embed(TEXTS * 3))
