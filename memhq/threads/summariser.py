"""The offline (extractive) thread summariser: keeps the most informative sentences, no model.

The summary is a list of lines ``Speaker: sentence``, oldest first. Folding turns into it re-scores the
previous summary's lines together with the new turns' sentences and keeps the best ones that fit the token
budget, in their original order, so the summary rolls forward instead of growing without bound.

A sentence scores for being informative (content words), central (sharing content words with other
sentences: the conversation's topics), specific (numbers, names) and a first-person statement; what the
assistant said counts less than what a person said, questions less than statements, and lines already in the
summary get a bonus so that earlier context is not dropped for every new detail. Sentences of fewer than
``MIN_WORDS`` words or ``MIN_CONTENT_WORDS`` content words (greetings, "thanks!", "how can I help?") are
never kept. If nothing qualifies, the best sentence is kept
anyway, cut to the budget, so a fold never loses everything.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Protocol

from memhq.ai.tokens import count_tokens_batch, truncate_to_tokens

MIN_WORDS: Final = 4
MIN_CONTENT_WORDS: Final = 2
MAX_INFO_WORDS: Final = 12
MAX_NAMED: Final = 3
MAX_SHARED_DF: Final = 3
NAMED_BONUS: Final = 0.8
FIRST_PERSON_BONUS: Final = 1.0
PREVIOUS_BONUS: Final = 1.5
QUESTION_WEIGHT: Final = 0.5
ROLE_WEIGHTS: Final = {"user": 1.0, "assistant": 0.6}
OTHER_ROLE_WEIGHT: Final = 0.4
#: Speaker given to summary text without one (e.g. a summary an LLM wrote before a switch to offline mode).
EARLIER: Final = "Earlier"
_STOP_WORDS_TEXT: Final = """
    a about above after again all also am an and any are as at be because been before being below between
    both but by can could did do does doing down during each few for from further had has have having he her
    here hers him his how i if in into is it its just me more most my no nor not now of off on once only or
    other our out over own same she should so some such than that the their them then there these they this
    those through to too under until up very was we were what when where which while who whom why will with
    would you your yours yes ok okay sure thanks thank hi hello hey great good nice well really just like
"""
STOP_WORDS: Final = frozenset(_STOP_WORDS_TEXT.split())
FIRST_PERSON: Final = frozenset({"i", "i'm", "i've", "i'd", "i'll", "my", "me", "mine", "we", "our", "us"})
_WORD_RE = re.compile(r"[A-Za-z][A-Za-z'’-]*|\d[\d.,:/-]*")
_SENTENCE_RE = re.compile(r"(?<=[.!?…])\s+|\n+")
_LINE_SPEAKER_RE = re.compile(r"^(?P<speaker>[^:\n]{1,60}):\s+(?P<text>.+)$")


class TurnLike(Protocol):
    role: str
    name: str
    content: str


@dataclass
class _Unit:
    order: int
    speaker: str
    text: str
    score: float = 0.0

    @property
    def line(self) -> str:
        return f"{self.speaker}: {self.text}"


def speaker_of(turn: TurnLike) -> str:
    return turn.name or turn.role.capitalize()


def sentences(text: str) -> list[str]:
    return [part.strip() for part in _SENTENCE_RE.split(text) if part and part.strip()]


def _content_words(text: str) -> list[str]:
    return [w for w in (m.lower() for m in _WORD_RE.findall(text)) if w not in STOP_WORDS and len(w) > 2]


def _named(text: str) -> int:
    words = _WORD_RE.findall(text)
    specific = sum(1 for i, w in enumerate(words) if w[0].isdigit() or (i > 0 and w[0].isupper()))
    return min(specific, MAX_NAMED)


def _score(unit: _Unit, df: Counter[str], weight: float) -> float:
    words = set(_content_words(unit.text))
    if len(_WORD_RE.findall(unit.text)) < MIN_WORDS or len(words) < MIN_CONTENT_WORDS:
        return 0.0
    info = min(len(words), MAX_INFO_WORDS) / 4
    central = sum(min(df[w] - 1, MAX_SHARED_DF) for w in words) / math.sqrt(len(words) + 1)
    first_person = any(w.lower() in FIRST_PERSON for w in _WORD_RE.findall(unit.text))
    raw = info + central + NAMED_BONUS * _named(unit.text) + (FIRST_PERSON_BONUS if first_person else 0.0)
    question = unit.text.rstrip().endswith("?")
    return raw * weight * (QUESTION_WEIGHT if question else 1.0)


def _units(previous: str, turns: Sequence[TurnLike]) -> tuple[list[_Unit], list[float]]:
    units: list[_Unit] = []
    weights: list[float] = []
    for line in (line.strip() for line in previous.splitlines()):
        if not line:
            continue
        match = _LINE_SPEAKER_RE.match(line)
        speaker, text = (match["speaker"], match["text"]) if match else (EARLIER, line)
        for sentence in sentences(text):
            units.append(_Unit(len(units), speaker, sentence))
            weights.append(-1.0)  # marks a previous line: scored with the bonus below
    for turn in turns:
        weight = ROLE_WEIGHTS.get(turn.role, OTHER_ROLE_WEIGHT)
        for sentence in sentences(turn.content):
            units.append(_Unit(len(units), speaker_of(turn), sentence))
            weights.append(weight)
    return units, weights


def summarise(previous: str, turns: Sequence[TurnLike], max_tokens: int) -> str:
    """The previous summary with ``turns`` folded in, at most ``max_tokens`` tokens."""
    units, weights = _units(previous, turns)
    if not units or max_tokens <= 0:
        return previous.strip()
    df: Counter[str] = Counter()
    for unit in units:
        df.update(set(_content_words(unit.text)))
    for unit, weight in zip(units, weights, strict=True):
        unit.score = _score(unit, df, 1.0) + PREVIOUS_BONUS if weight < 0 else _score(unit, df, weight)
    ranked = sorted(units, key=lambda u: (-u.score, u.order))
    costs = count_tokens_batch([unit.line for unit in ranked])
    chosen: list[_Unit] = []
    seen: set[str] = set()
    used = 0
    for unit, cost in zip(ranked, costs, strict=True):
        key = unit.text.lower()
        if unit.score <= 0 or key in seen or used + cost > max_tokens:
            continue
        chosen.append(unit)
        seen.add(key)
        used += cost + 1  # the newline between lines
    if not chosen:
        return truncate_to_tokens(ranked[0].line, max_tokens)
    return "\n".join(unit.line for unit in sorted(chosen, key=lambda u: u.order))
