"""Long messages are cut into passages along their own structure; short ones stay whole. Filler turns are
recognised."""

from __future__ import annotations

from ingestion import passages
from ingestion.filler import is_filler
from memhq.ai.tokens import count_tokens


def prose(sentences: int, topic: str = "garden") -> str:
    return " ".join(
        f"Sentence {n} says something about the {topic} and the weather of that week in some detail."
        for n in range(sentences)
    )


def test_a_short_message_stays_whole() -> None:
    assert passages.split("I moved to Porto last spring and I love it.") == []
    assert passages.first_passage("Short.") == "Short."


def test_a_long_message_is_cut_into_bounded_passages_whose_spans_point_at_their_text() -> None:
    text = prose(60)
    found = passages.split(text)
    assert len(found) >= 3
    for part in found:
        assert text[part.start : part.end] == part.text
        assert passages.MIN_TOKENS <= count_tokens(part.text) <= passages.MAX_TOKENS + 40
        assert part.text.startswith("Sentence") and part.text.endswith(".")  # cut at sentence ends
    assert [part.start for part in found] == sorted(part.start for part in found)
    assert found[0].start == 0 and found[-1].end == len(text)


def test_a_code_block_that_fits_is_never_cut() -> None:
    code = "```python\n" + "\n".join(f"total_{n} = compute(value_{n})" for n in range(12)) + "\n```"
    text = f"{prose(12)}\n\n{code}\n\n{prose(12, 'kitchen')}"
    found = passages.split(text)
    assert count_tokens(code) < passages.MAX_TOKENS
    assert any(code in part.text for part in found)
    assert not any(part.text.startswith("total_") for part in found)


def test_a_huge_block_without_sentence_ends_is_cut_at_lines_then_words() -> None:
    listing = "\n".join(f"- item {n} with a short note" for n in range(120))
    one_line = " ".join(f"word{n}" for n in range(900))
    for text in (listing, one_line):
        found = passages.split(text)
        assert len(found) > 2
        assert all(count_tokens(part.text) <= passages.MAX_TOKENS + passages.MIN_TOKENS for part in found)
        assert "".join(part.text for part in found).replace("\n", "").replace(" ", "") == text.replace(
            "\n", ""
        ).replace(" ", "")


def test_first_passage_marks_the_cut() -> None:
    text = prose(60)
    shown = passages.first_passage(text)
    assert shown.endswith(" …") and text.startswith(shown[:-2])
    assert count_tokens(shown) < count_tokens(text) / 2


def test_filler_is_chatter_or_an_assistants_empty_question_back_and_nothing_with_content() -> None:
    assert is_filler("assistant", "Exciting! Is anyone else coming along?")
    assert is_filler("assistant", "You're welcome! Let me know if you need anything else.")
    assert is_filler("user", "Thanks so much!")
    assert not is_filler("assistant", "Shall I book a table at Trattoria Roma for Friday at 7?")
    assert not is_filler("assistant", "Great choice! The place has vegetarian options and opens at noon.")
    assert not is_filler("user", "Can you find a vegan place near my office?")


def test_first_passage_of_a_huge_message_is_cut_from_its_head_alone() -> None:
    text = prose(2000)  # far more than FIRST_PASSAGE_WITHIN_CHARS
    assert passages.first_passage(text) == f"{passages.split(text)[0].text} …"


def test_one_encoding_counts_every_piece_as_tokenising_it_alone_would() -> None:
    """split() counts the tokens of its blocks, sentences and pieces from one encoding of the message; that
    holds because every cut is at whitespace or punctuation (code, accents, CJK and a long word included)."""
    code = "```js\nconst total = items.reduce((sum, x) => sum + x.price, 0);\n```"
    odd = f"Café naïve résumé 東京タワー {'x' * 150} end."
    text = f"{prose(20)}\n\n{code}\n\n{odd}\n" + "- a list line\n" * 40
    counts = passages._Counts(text)
    pieces = passages._pieces(text, counts)
    assert len(pieces) > 10
    for start, end in pieces:
        assert counts(start, end) == count_tokens(text[start:end])
    assert len(counts.starts) == count_tokens(text)
