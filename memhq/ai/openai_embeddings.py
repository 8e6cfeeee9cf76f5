"""Embeddings from an OpenAI-compatible ``/embeddings`` endpoint, shaped like the local embedder's output.

Pure Python (no Django): the caller passes the shared ``LLMConfig`` (server, key, timeout) and the embedding
``model`` (default: the config's own ``model``).

Choices:
- Output: float32 array of shape (n, dim), every row L2-normalised (cosine = dot product), in input order;
  an empty input gives shape (0, dim) without calling the server.
- Batches of ``EMBED_BATCH_SIZE`` texts per request (OpenAI accepts up to 2048 inputs per call, local
  servers much less comfortably); one failing batch fails the whole call, so the index task retries it all.
- ``dimensions=dim`` is sent by default (OpenAI's text-embedding-3 models shorten natively). Servers that
  reject the parameter can be used with ``send_dimensions=False`` if their model natively has ``dim``
  dimensions (e.g. all-MiniLM on Ollama: 384). A vector of any other length is a ``PermanentAIError``: the
  configuration is wrong and retrying will not fix it.
- ``encoding_format="float"`` is sent explicitly: the SDK otherwise asks for base64, which not every
  OpenAI-compatible server implements.
- Blank texts are sent as a single space (OpenAI rejects empty strings) so the output keeps one row per input.
- Errors are mapped as in ``memhq.ai.llm``; a wrong count, non-finite values or a zero vector in the answer
  are ``TransientAIError``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import openai

from memhq.ai.errors import PermanentAIError, TransientAIError
from memhq.ai.llm import LLMConfig, ai_errors, client_timeout_s, make_client

#: The vector size stored in Postgres (``vector(384)``), shared with the local embedder.
EMBEDDING_DIM = 384
#: Texts per ``/embeddings`` request.
EMBED_BATCH_SIZE = 128
#: What a blank text is sent as.
BLANK_TEXT_STANDIN = " "

FloatMatrix = npt.NDArray[np.float32]


class OpenAIEmbedder:
    def __init__(
        self,
        config: LLMConfig,
        *,
        model: str | None = None,
        dim: int = EMBEDDING_DIM,
        batch_size: int = EMBED_BATCH_SIZE,
        send_dimensions: bool = True,
    ) -> None:
        if dim <= 0 or batch_size <= 0:
            raise ValueError("dim and batch_size must be positive")
        self.config = config
        self.model = model or config.model
        self.dim = dim
        self.batch_size = batch_size
        self.send_dimensions = send_dimensions
        self.name = f"openai:{self.model}"

    def embed(self, texts: Sequence[str]) -> FloatMatrix:
        """One L2-normalised float32 row per text, in order."""
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts, not a single string")
        items = [text if text.strip() else BLANK_TEXT_STANDIN for text in texts]
        out = np.empty((len(items), self.dim), dtype=np.float32)
        if not items:
            return out
        client = make_client(self.config)
        for start in range(0, len(items), self.batch_size):
            batch = items[start : start + self.batch_size]
            out[start : start + len(batch)] = self._embed_batch(client, batch)
        return out

    def embed_query(self, text: str) -> FloatMatrix:
        """One text's row (the server has no faster path for a single query)."""
        return self.embed([text])[0]

    def _embed_batch(self, client: openai.OpenAI, batch: list[str]) -> FloatMatrix:
        operation = f"embeddings call to {self.model}"
        dimensions = self.dim if self.send_dimensions else openai.omit
        with ai_errors(operation, timeout_s=client_timeout_s(client)):
            response = client.embeddings.create(
                model=self.model, input=batch, dimensions=dimensions, encoding_format="float"
            )
        data = sorted(response.data, key=lambda item: item.index)
        if [item.index for item in data] != list(range(len(batch))):
            raise TransientAIError(f"{operation}: sent {len(batch)} texts, got {len(data)} vectors back")
        wrong = {len(item.embedding) for item in data} - {self.dim}
        if wrong:
            raise PermanentAIError(
                f"{operation}: vectors have {sorted(wrong)} dimensions, expected {self.dim} "
                "(does the model support the `dimensions` parameter?)"
            )
        vectors = np.asarray([item.embedding for item in data], dtype=np.float32)
        if not np.isfinite(vectors).all():
            raise TransientAIError(f"{operation}: the answer has non-finite values")
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        if (norms == 0).any():
            raise TransientAIError(f"{operation}: the answer has an all-zero vector")
        return (vectors / norms).astype(np.float32)
