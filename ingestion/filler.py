"""Turns that carry nothing to remember: recall never spends a context slot on them (DESIGN §5).

- Any turn made only of chatter (greetings, thanks, acknowledgements, pleasantries:
  ``rules_filters.is_chatter``): "Thanks so much!", "Sounds great, talk soon".
- An assistant turn that is only chatter, exclamations and questions back, short, and naming nothing (no
  capitalised word past a sentence's start, no number): "Exciting! Is anyone else coming along?". What the
  assistant said with content (a plan, a recommendation, code, an explanation) is kept, and so is a question
  that proposes something ("Shall I book Trattoria Roma for 7?") or any longer turn.

A user's own question is never filler: "Can you find a vegan place near my office in Leeds?" says a lot about
the user. The turn after a question is still embedded with it (``ingestion.phases.index``), so the answer to
a filler question keeps its context.
"""

from __future__ import annotations

import re
from typing import Final

from ingestion.extractors.rules_filters import is_chatter

#: An assistant turn of chatter and questions is filler up to this many words.
ASSISTANT_FILLER_MAX_WORDS: Final = 30

#: A sentence of at most this many words ending in "!" is an exclamation ("Exciting!", "How fun!").
EXCLAMATION_MAX_WORDS: Final = 3

_SENTENCES = re.compile(r"(?<=[.!?…])[\"'”’)]*\s+|\n+")
_WORDS = re.compile(r"\w+")
#: How an assistant's sentence of courtesy starts ("Let me know if you need anything else.").
_COURTESY = re.compile(
    r"^(?:let me know|feel free|(?:i )?hope (?:this|that) helps|happy to help|glad (?:i could|to) help|"
    r"you(?:'re| are) (?:very )?welcome|good luck|have fun|enjoy|anything else)\b",
    re.IGNORECASE,
)
#: A courtesy sentence is at most this many words.
COURTESY_MAX_WORDS: Final = 12
#: A name or a number: a capitalised word after the first word of its sentence, or a digit.
_NAMES_SOMETHING = re.compile(r"(?<=\s)[A-Z]\w|\d")


def sentences(text: str) -> list[str]:
    return [part.strip() for part in _SENTENCES.split(text) if part and part.strip()]


def is_filler(role: str, content: str, names: tuple[str, ...] = ()) -> bool:
    parts = sentences(content)
    if all(is_chatter(part, names) for part in parts):
        return True
    if role != "assistant" or len(_WORDS.findall(content)) > ASSISTANT_FILLER_MAX_WORDS:
        return False
    return all(_says_nothing(part) or is_chatter(part, names) for part in parts)


def _says_nothing(sentence: str) -> bool:
    end = sentence.rstrip("\"'”’) ")
    if _COURTESY.match(end) and len(_WORDS.findall(end)) <= COURTESY_MAX_WORDS:
        return True
    if end.endswith("!") and len(_WORDS.findall(end)) <= EXCLAMATION_MAX_WORDS:
        return True
    return end.endswith("?") and not _NAMES_SOMETHING.search(sentence)
