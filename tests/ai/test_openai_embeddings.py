"""OpenAIEmbedder through the real openai SDK against the fake server."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from memhq.ai.errors import PermanentAIError, TransientAIError
from memhq.ai.llm import LLMConfig, RateLimitedAIError, make_client
from memhq.ai.openai_embeddings import EMBED_BATCH_SIZE, EMBEDDING_DIM, OpenAIEmbedder
from tests.fakes import fixtures
from tests.fakes.openai_server import DEFAULT_EMBEDDING_DIM, FakeOpenAIServer, fake_embedding

fake_openai = fixtures.fake_openai  # the shared fixture, imported explicitly

MODEL = "test-embedding-model"
TEXTS = ["Rosalind moved to Lisbon.", "Mark likes jazz.", "Rosalind lives in Lisbon now.", "tram 28", "hi"]


@pytest.fixture(autouse=True)
def _fresh_clients() -> Iterator[None]:
    make_client.cache_clear()
    yield
    make_client.cache_clear()


def _embedder(
    server: FakeOpenAIServer,
    *,
    timeout_s: float = 5.0,
    dim: int = EMBEDDING_DIM,
    batch_size: int = EMBED_BATCH_SIZE,
    send_dimensions: bool = True,
) -> OpenAIEmbedder:
    config = LLMConfig(base_url=server.base_url, api_key="sk-e", model=MODEL, timeout_s=timeout_s)
    return OpenAIEmbedder(config, dim=dim, batch_size=batch_size, send_dimensions=send_dimensions)


def test_vectors_are_float32_unit_rows_of_the_default_dim(fake_openai: FakeOpenAIServer) -> None:
    vectors = _embedder(fake_openai).embed(TEXTS)

    assert vectors.shape == (len(TEXTS), EMBEDDING_DIM) == (5, 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    # texts sharing words are closer than unrelated ones (the fake's bag of words survives the round trip)
    assert vectors[0] @ vectors[2] > vectors[0] @ vectors[1]


def test_a_query_is_one_row_of_the_same_endpoint(fake_openai: FakeOpenAIServer) -> None:
    vector = _embedder(fake_openai, dim=32).embed_query(TEXTS[0])
    assert vector.shape == (32,) and vector.dtype == np.float32
    np.testing.assert_allclose(vector, fake_embedding(TEXTS[0], 32), rtol=1e-5, atol=1e-6)
    [request] = fake_openai.requests
    assert request.body["input"] == [TEXTS[0]]


def test_request_names_the_model_the_dimensions_and_float_encoding(fake_openai: FakeOpenAIServer) -> None:
    _embedder(fake_openai, dim=64).embed(TEXTS[:2])

    [request] = fake_openai.requests
    assert request.path == "/v1/embeddings"
    assert request.body == {"model": MODEL, "input": TEXTS[:2], "dimensions": 64, "encoding_format": "float"}


def test_texts_are_sent_in_batches_and_rows_keep_input_order(fake_openai: FakeOpenAIServer) -> None:
    vectors = _embedder(fake_openai, dim=32, batch_size=2).embed(TEXTS)

    assert [len(r.body["input"]) for r in fake_openai.requests] == [2, 2, 1]
    expected = np.asarray([fake_embedding(text, 32) for text in TEXTS], dtype=np.float32)
    np.testing.assert_allclose(vectors, expected, atol=1e-6)


def test_embedding_model_can_differ_from_the_configs_model(fake_openai: FakeOpenAIServer) -> None:
    config = LLMConfig(base_url=fake_openai.base_url, api_key="sk-e", model="chat-model", timeout_s=5.0)
    embedder = OpenAIEmbedder(config, model="embed-model")

    embedder.embed(["jazz"])

    assert embedder.name == "openai:embed-model"
    assert fake_openai.requests[0].body["model"] == "embed-model"


def _payload(*rows: tuple[int, list[float]]) -> dict[str, object]:
    data = [{"object": "embedding", "index": index, "embedding": vector} for index, vector in rows]
    return {"object": "list", "data": data, "model": MODEL, "usage": {"prompt_tokens": 2, "total_tokens": 2}}


def test_rows_the_server_did_not_normalise_or_order_are_fixed(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.answer(_payload((1, [0.0, 2.0, 0.0, 0.0]), (0, [3.0, 0.0, 0.0, 4.0])))

    vectors = _embedder(fake_openai, dim=4).embed(["first", "second"])

    np.testing.assert_allclose(vectors, [[0.6, 0.0, 0.0, 0.8], [0.0, 1.0, 0.0, 0.0]], atol=1e-6)


def test_too_few_vectors_are_transient(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.answer(_payload((0, [1.0, 0.0, 0.0, 0.0])))

    with pytest.raises(TransientAIError, match="sent 2 texts, got 1 vectors"):
        _embedder(fake_openai, dim=4).embed(["first", "second"])


def test_a_zero_vector_is_transient(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.answer(_payload((0, [0.0, 0.0, 0.0, 0.0])))

    with pytest.raises(TransientAIError, match="all-zero"):
        _embedder(fake_openai, dim=4).embed(["first"])


def test_empty_input_makes_no_request(fake_openai: FakeOpenAIServer) -> None:
    vectors = _embedder(fake_openai).embed([])

    assert vectors.shape == (0, EMBEDDING_DIM)
    assert fake_openai.requests == []


def test_blank_texts_are_sent_as_a_space_and_keep_their_row(fake_openai: FakeOpenAIServer) -> None:
    vectors = _embedder(fake_openai).embed(["jazz", "", "  "])

    assert fake_openai.requests[0].body["input"] == ["jazz", " ", " "]
    assert vectors.shape == (3, EMBEDDING_DIM)


def test_a_single_string_is_refused(fake_openai: FakeOpenAIServer) -> None:
    with pytest.raises(TypeError):
        _embedder(fake_openai).embed("jazz")


def test_vectors_of_the_wrong_size_are_a_permanent_error(fake_openai: FakeOpenAIServer) -> None:
    # without `dimensions` the fake answers its default size, like a server whose model is not 384-wide
    with pytest.raises(PermanentAIError, match=f"\\[{DEFAULT_EMBEDDING_DIM}\\] dimensions"):
        _embedder(fake_openai, send_dimensions=False).embed(TEXTS)

    assert "dimensions" not in fake_openai.requests[0].body


def test_rate_limit_is_transient(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.rate_limit(retry_after_s=3)

    with pytest.raises(RateLimitedAIError) as caught:
        _embedder(fake_openai).embed(TEXTS)

    assert caught.value.retry_after_s == 3
    assert len(fake_openai.requests) == 1


def test_server_error_in_a_later_batch_fails_the_whole_call(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.proceed()
    fake_openai.server_error()

    with pytest.raises(TransientAIError, match="HTTP 500"):
        _embedder(fake_openai, batch_size=2).embed(TEXTS)

    assert len(fake_openai.requests) == 2


def test_body_that_is_not_json_is_transient(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.answer_invalid_json()

    with pytest.raises(TransientAIError, match="not valid"):
        _embedder(fake_openai).embed(TEXTS)


def test_timeout_is_transient(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.delay(2.0)

    with pytest.raises(TransientAIError, match="timed out"):
        _embedder(fake_openai, timeout_s=0.5).embed(TEXTS)


def test_unauthorized_is_permanent(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.unauthorized()

    with pytest.raises(PermanentAIError, match="401"):
        _embedder(fake_openai).embed(TEXTS)
