"""A question about how things began: "Which versions did I say I was using when I first described my
setup?", "What was my original budget?", "How many rows did my table hold at the start?".

The answer is in the user's earliest messages, and nothing else in such a question points there: what the
user said first is worded like what they said later ("I'm using Python 3.10" and "I've upgraded to Python
3.12" are equally near "which Python version"), and the later turns usually outnumber it. The time signal
(``retrieval.signals.time``) then also searches the user's first messages, as it searches a window a
question names by its dates, and the memory signals search what has changed since (the first value is
usually superseded by now), as ``include_history`` does.

The phrases are about how people speak of a beginning, not about any topic. "First" counts only where it is
someone's first ("my first job", "when I first tried"), not an ordinal ("the first n odd numbers", "first
place", "the first half of May"), and "the beginning of May" is a date (the time signal's own window).
"""

from __future__ import annotations

import re
from typing import Final

_PHRASES: Final = re.compile(
    r"""
    \b(?:i|we|you|he|she|they)\s+(?:first|initially|originally)\b     # "when I first described"
    | \b(?:my|our|your|his|her|their)\s+(?:very\s+)?first\b            # "my first job", not "my first
      (?![\s-]+(?:name|aid|class|floor|hand|half)\b)                    # name" or "our first-aid kit"
    | \bthe\s+first\s+time\b
    | \b(?:initial(?:ly)?|original(?:ly)?|earliest)\b                    # "my initial plan"
    | \b(?:at|from|in|near)\s+the\s+(?:very\s+)?(?:start|beginning|outset)\b(?!\s+of\b)  # not "of May"
    | \bto\s+(?:start|begin|kick\s+off)\s+(?:my|our|the|this|with)\b    # "using to start my project"
    | \bwhen\s+(?:i|we)\s+(?:started|began|set\s+out)\b
    """,
    re.IGNORECASE | re.VERBOSE,
)


def asks_for_beginning(text: str) -> bool:
    """Whether ``text`` asks about how something began (see the module docstring)."""
    return _PHRASES.search(text) is not None
