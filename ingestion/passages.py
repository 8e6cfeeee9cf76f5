"""Long messages as passages (DESIGN §3.6): what recall searches and returns for a long turn is the part that
matched, not the whole turn.

A message longer than ``SPLIT_ABOVE_TOKENS`` is cut into passages of at most ``MAX_TOKENS`` tokens (the
embedder's WordPiece tokens, ``memhq.ai.tokens``), each with its character span in the message. Cuts follow
the text's own structure, coarsest first:

1. blocks: fenced code blocks (```…```) stay whole when they fit, paragraphs are separated by blank lines;
2. a block too long for one passage is cut at sentence ends (prose) or line ends (code, lists);
3. a single sentence or line still too long is cut at word boundaries.

The pieces are then packed in order: a passage grows while it stays within ``MAX_TOKENS``, and a piece that
would overflow starts the next passage, unless the passage so far is shorter than ``MIN_TOKENS`` (then it
overflows a little rather than leaving a fragment). A message at or below ``SPLIT_ABOVE_TOKENS`` stays whole:
one passage would only repeat it.

Why these sizes: 100-200 tokens is a few sentences or one code block: enough context to be understood
alone, small enough that two or three of them never fill a 2,000-token context. The embedder reads the
first 128 tokens of an embedded passage (``memhq.ai.embeddings.MAX_TOKENS``); all of it is full-text indexed.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass
from typing import Final

from memhq.ai.tokens import token_starts

#: Messages longer than this are indexed as passages.
SPLIT_ABOVE_TOKENS: Final = 250
#: A passage holds at most this many tokens (a piece longer than that alone is cut at words).
MAX_TOKENS: Final = 200
#: A passage shorter than this takes the next piece even past MAX_TOKENS (no tiny fragments).
MIN_TOKENS: Final = 60

_FENCE = re.compile(r"```.*?(?:```|$)", re.DOTALL)
_BLANK_LINES = re.compile(r"\n[ \t]*\n")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"'”’)\]]*\s+(?=[\"'“‘(\[]?[A-Z0-9])")
_LINE_END = re.compile(r"\n")
_WORD_GAP = re.compile(r"\s+")


@dataclass(frozen=True)
class Passage:
    start: int  # character offsets in the message content: content[start:end]
    end: int
    text: str


def _cut(text: str, start: int, end: int, pattern: re.Pattern[str]) -> list[tuple[int, int]]:
    """``text[start:end]`` cut after every match of ``pattern`` (a separator stays with the piece before)."""
    pieces: list[tuple[int, int]] = []
    position = start
    for match in pattern.finditer(text, start, end):
        if match.end() > position:
            pieces.append((position, match.end()))
            position = match.end()
    if position < end:
        pieces.append((position, end))
    return pieces


def _blocks(text: str) -> list[tuple[int, int, bool]]:
    """Fenced code blocks and the paragraphs between them, as (start, end, is_code)."""
    blocks: list[tuple[int, int, bool]] = []
    position = 0
    for fence in _FENCE.finditer(text):
        blocks.extend((s, e, False) for s, e in _cut(text, position, fence.start(), _BLANK_LINES))
        blocks.append((fence.start(), fence.end(), True))
        position = fence.end()
    blocks.extend((s, e, False) for s, e in _cut(text, position, len(text), _BLANK_LINES))
    return [(s, e, code) for s, e, code in blocks if text[s:e].strip()]


class _Counts:
    """Token counts of slices of one text from a single encoding of it (``memhq.ai.tokens.token_starts``):
    every cut here is at whitespace or punctuation, where a slice's tokens are the text's tokens inside it.
    A long message used to be tokenised four times over (whole, blocks, sentences, pieces)."""

    def __init__(self, text: str) -> None:
        self.starts = token_starts(text)

    def __call__(self, start: int, end: int) -> int:
        return bisect_left(self.starts, end) - bisect_left(self.starts, start)


def _pieces(text: str, counts: _Counts) -> list[tuple[int, int]]:
    """The smallest pieces that need no cut inside them, in order (each ≤ MAX_TOKENS where possible)."""
    pieces: list[tuple[int, int]] = []
    for start, end, code in _blocks(text):
        if counts(start, end) <= MAX_TOKENS:
            pieces.append((start, end))
            continue
        finer = _cut(text, start, end, _LINE_END if code else _SENTENCE_END)
        if not code and len(finer) == 1:  # prose without sentence ends: lists, logs
            finer = _cut(text, start, end, _LINE_END)
        for s, e in finer:
            piece_size = counts(s, e)
            pieces.extend([(s, e)] if piece_size <= MAX_TOKENS else _by_words(text, s, e, piece_size))
    return pieces


def _by_words(text: str, start: int, end: int, size: int) -> list[tuple[int, int]]:
    """A piece too long on its own, cut at word gaps into runs of about MAX_TOKENS tokens."""
    gaps = [match.end() for match in _WORD_GAP.finditer(text, start, end)]
    parts = -(-size // MAX_TOKENS)  # ceil
    if not gaps or parts < 2:
        return [(start, end)]
    cuts = sorted({gaps[min(len(gaps) - 1, len(gaps) * step // parts)] for step in range(1, parts)})
    bounds = [start, *cuts, end]
    return [(s, e) for s, e in zip(bounds, bounds[1:], strict=False) if e > s]


def split(text: str) -> list[Passage]:
    """The passages of a message's content; ``[]`` when it is short enough to stay whole."""
    counts = _Counts(text)
    if len(counts.starts) <= SPLIT_ABOVE_TOKENS:
        return []
    spans: list[tuple[int, int]] = []
    used = 0
    for start, end in _pieces(text, counts):
        size = counts(start, end)
        if spans and (used + size <= MAX_TOKENS or used < MIN_TOKENS):
            spans[-1] = (spans[-1][0], end)
            used += size
        else:
            spans.append((start, end))
            used = size
    passages = []
    for start, end in spans:
        # Trim the whitespace at both ends; the span still points at exactly the text kept.
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if end > start:
            passages.append(Passage(start, end, text[start:end]))
    return passages


#: The first passage lies within this many characters (MAX_TOKENS tokens are rarely over 1,500 characters):
#: only this much is cut when recall shows a long message, so showing one costs no full tokenisation.
FIRST_PASSAGE_WITHIN_CHARS: Final = 4 * 1024
#: Ends what is shown of a message cut short.
CUT_MARK: Final = " …"


def first_passage(text: str) -> str:
    """What a long message is shown as when recall found the message itself, not one of its passages (a
    neighbour of a hit, a message of an episode not indexed yet): its first passage, marked as cut."""
    if len(text) <= SPLIT_ABOVE_TOKENS:  # fewer characters than tokens to split above: short
        return text
    head = text[:FIRST_PASSAGE_WITHIN_CHARS]
    passages = split(head) if len(head) < len(text) else split(text)
    if not passages:  # the head alone is short: the message is long only past it
        return f"{head}{CUT_MARK}" if len(head) < len(text) else text
    return f"{passages[0].text}{CUT_MARK}"
