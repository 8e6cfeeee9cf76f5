"""The query's vectors: MiniLM's (every dense signal) and, when the second embedder is on, e5's
(``retrieval.signals.second_vector``), computed side by side (``memhq.ai.beside``): a recall waits for the
slower of the two models, not for their sum (a question's two vectors: 8.5-10.7 ms p50 against 14.5-16.5 ms
one after the other, ``docs/benchmarks.md``).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from memhq.ai import e5
from memhq.ai.beside import beside
from memhq.ai.provider import get_embedder

Vector = NDArray[np.float32]


def query_vectors(text: str) -> tuple[Vector, Vector | None]:
    """``text``'s MiniLM vector, and its e5 vector when the second embedder is on (else None)."""
    if not e5.enabled():
        return get_embedder().embed_query(text), None
    second = beside(e5.get_e5_embedder().embed_query, text)  # the model loads on this thread, on first use
    return get_embedder().embed_query(text), second.result()
