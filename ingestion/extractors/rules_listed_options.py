"""Options the assistant lists by number, and the one the user picks (``rules_accepted`` makes it the
decision): "Option 1: upper/lower twice a week. Option 2: push/pull/legs plus a full-body day." — "Let's go
with option 2." / "The second one." / "#2 please" → the second option's words.

Read from the text, no parse. The options are "Option N: …" (up to the next option or the end of its
line), or the lines of a numbered list ("1. …", "2) …"); numbered from 1 without a gap, at least two. The
user's turn is short and picks one by "option N", "number N", "#N", or "the first / second / third / last
(one | option)", alone or with a word of taking ("go with", "take", "it is"); not a question, not "not".
"""

from __future__ import annotations

import re
from typing import Final

from ingestion.extractors.rules_lexicon import words

#: Fewest options that make a list to pick from.
MIN_OPTIONS: Final = 2
_OPTION = re.compile(r"\boption\s+(?P<n>\d)\s*[:.)-]\s*(?P<what>.+?)(?=\s*\boption\s+\d\s*[:.)-]|\n|$)", re.I)
_NUMBERED = re.compile(r"^\s*(?P<n>\d)[.)]\s+(?P<what>.+?)\s*$", re.M)
_ORDINALS: Final = {"first": 0, "second": 1, "third": 2, "fourth": 3, "last": -1}
_PICK = re.compile(
    r"\b(?:(?:option|number|no\.?)\s*|#)(?P<n>\d)\b|\bthe\s+(?P<ord>first|second|third|fourth|last)\s+"
    r"(?:one|option)\b",
    re.I,
)
#: Words that take the option up ("Let's go with option 2", "I'll make number 2", "Option 2 it is").
_TAKES = re.compile(
    r"\b(?:go(?:ing)? (?:with|for)|take|do|use|try|pick|choose|book|make|get|order|want|prefer|it is"
    r"|sounds? (?:good|great|perfect)|please)\b",
    re.I,
)
#: A turn that asks or says no takes nothing ("Not option 2", "What about option 2?").
_NOT_TAKEN = re.compile(r"n't\b|\b(?:not|never|no)\b|\?", re.I)
#: A pick said alone ("Option 2.", "OK, the second one then!") takes it; other words need a word of taking.
BARE_WORDS: Final = words("ok okay yes yeah yep sure great perfect cool alright then i guess hmm")
_WORD = re.compile(r"[a-z']+")
#: Words of markup around an option's text ("**Option 2:** …").
_MARKUP: Final = "*_`#: "


def listed_options(text: str) -> list[str]:
    """The options the text lists by number, in order; [] when it lists fewer than two or skips one."""
    for pattern in (_OPTION, _NUMBERED):
        found = [(int(m.group("n")), _said(m.group("what"))) for m in pattern.finditer(text)]
        if len(found) >= MIN_OPTIONS and [n for n, _ in found] == list(range(1, len(found) + 1)):
            return [what for _, what in found]
    return []


def picked(content: str, options: list[str]) -> tuple[str, re.Match[str]] | None:
    """The option the user's turn picks, with the words that pick it; None when it picks none or several."""
    picks = list(_PICK.finditer(content))
    if len(picks) != 1 or _NOT_TAKEN.search(content):
        return None
    rest = _WORD.findall((content[: picks[0].start()] + content[picks[0].end() :]).lower())
    if not _TAKES.search(content) and not set(rest) <= BARE_WORDS:
        return None  # "Option 2 looks expensive": a remark, not a choice
    pick = picks[0]
    index = int(pick.group("n")) - 1 if pick.group("n") else _ORDINALS[pick.group("ord").lower()]
    if pick.group("n") and index < 0 or not -len(options) <= index < len(options):
        return None
    return options[index], pick


def _said(option: str) -> str:
    return option.strip(_MARKUP).rstrip(" .")
