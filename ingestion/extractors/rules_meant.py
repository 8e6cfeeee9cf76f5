"""A slip corrected in the next message: "I'm 34 and I live in Leeds." then "Sorry, I meant 43, typo." The
earlier message is read again with the value put right, and what it yields replaces what it yielded (so the
slip is never stored: not a memory superseded, a memory that was never true). The correction says which
value it replaces ("I meant Thursday, not Tuesday"), or gives a number, a weekday or a month where the
earlier message had exactly one of that kind ("I meant 43", "Oops, I meant Friday"); anything else ("I meant
the other one") is not read.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Final

from ingestion.extractors.base import CandidateOut, MessageIn
from ingestion.temporal import MONTH_NAMES, WEEKDAYS, find_time_mentions

#: "(Sorry,) I meant X(, not Y)(, typo)." as the whole message.
MEANT: Final = re.compile(
    r"^\W*(?:(?:sorry|oops|wait|actually|ugh|sry|no)\W+)*i\s+meant\s+(?P<new>[^,.;!?]+?)"
    r"(?:\s*,?\s*not\s+(?P<old>[^,.;!?]+?))?(?:\s*[,;-]?\s*(?:typo|sorry|my bad|oops)\b)*\s*[.!]*\s*$",
    re.IGNORECASE,
)
_NUMBER: Final = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)?(?![\w.])")
#: Values of one kind: a number, a weekday, a month ("I meant Friday" replaces the one weekday said before).
_KINDS: Final = (
    _NUMBER,
    re.compile(rf"\b(?:{'|'.join(WEEKDAYS)})\b", re.IGNORECASE),
    re.compile(rf"\b(?:{'|'.join(MONTH_NAMES)})\b", re.IGNORECASE),
)


@dataclass(frozen=True)
class Amended:
    """The earlier message with the value put right, where the new value starts, and by how many
    characters the text after it moved."""

    position: int  # the earlier message's place in the episode's messages
    message: MessageIn
    at: int
    shift: int


def amended(messages: Sequence[MessageIn], position: int) -> Amended | None:
    """The same speaker's message before ``messages[position]``, amended by it; None when the message is no
    such correction or the value it replaces is not found exactly once."""
    said = MEANT.match(messages[position].content.strip())
    if said is None:
        return None
    me = messages[position]
    before = [k for k in range(position) if messages[k].role == me.role and messages[k].name == me.name]
    if not before:
        return None
    earlier = messages[before[-1]]
    new, old = said.group("new").strip(), said.group("old")
    if old is not None:
        found = list(re.finditer(rf"(?<!\w){re.escape(old.strip())}(?!\w)", earlier.content, re.IGNORECASE))
    else:
        kind = next((k for k in _KINDS if k.fullmatch(new)), None)
        if kind is None:
            return None
        found = list(kind.finditer(earlier.content))
    if len(found) != 1:
        return None
    start, end = found[0].span()
    content = earlier.content[:start] + new + earlier.content[end:]
    mentions = tuple(find_time_mentions(content, earlier.document_date))
    message = replace(earlier, content=content, time_mentions=mentions)
    return Amended(before[-1], message, start, len(new) - (end - start))


def respanned(candidate: CandidateOut, fix: Amended, length: int) -> CandidateOut:
    """A candidate of the amended text with its span in the words the speaker typed (``length``: theirs)."""

    def back(offset: int) -> int:
        return min(length, offset - fix.shift if offset > fix.at else offset)

    return replace(candidate, span_start=back(candidate.span_start), span_end=back(candidate.span_end))
