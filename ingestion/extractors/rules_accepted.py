"""A suggestion of the assistant's that the user takes up without repeating it.

"I'd recommend the 14-inch model with 32 GB of RAM." — "Perfect, let's go with that." The user's turn says
nothing on its own, and what the assistant proposes is never the user's (a suggestion the user lets pass
stays out of memory). Together the two turns are a decision, so the user's turn yields one claim with the
assistant's words: "User went with the assistant's suggestion: the 14-inch model with 32 GB of RAM." Its
sources are both turns. A user who names the choice ("I'm naming her Maple") is read by the other rules.

Read from the text, no parse:

- the user's turn is short (``MAX_ACCEPTING_WORDS``) and opens by taking something up: "let's go with
  that", "I'll take the second one", "yes please" (this one only for an offer: "Shall I book …?"), or names
  one of the options before "it is" ("Miso it is!"), before "is perfect" ("Milo is perfect!") or after a
  verb of taking ("I'll take the ThinkPad": the one option with those words);
- the assistant's turn just before it proposes one thing: "I'd recommend …", "how about …", "you could try
  …", "shall I …". Of its proposals the last one counts (the one the user answers). "That"/"it" over two
  options ("Biscuit or Maple?") is left alone; "the second one" picks from them. Options are said with
  "or": a comma alone joins the words of one ("an upper/lower split, four days a week");
- or the assistant lists options by number ("Option 1: … Option 2: …", "1. … 2. …") and the user picks
  one ("Let's go with option 2", "I'll make number 2": ``rules_listed_options``).

"you"/"your" in the proposal are the user, as in every claim.
"""

from __future__ import annotations

import re
from typing import Final

from ingestion.extractors.base import CandidateOut, Mention, MessageIn
from ingestion.extractors.rules_listed_options import listed_options, picked
from ingestion.extractors.rules_rewrite import Speakers
from ingestion.extractors.rules_scoring import confidence, importance

#: A longer turn says more than "yes": the other rules read it.
MAX_ACCEPTING_WORDS: Final = 16
#: A proposal longer than this is an explanation, not one thing to take up.
MAX_PROPOSAL_WORDS: Final = 16
PREDICATE: Final = "decided"

_OPENER = (
    r"(?:ok(?:ay)?|yes|yeah|yep|sure|great|perfect|awesome|cool|nice|alright|right|thanks|thank you|"
    r"sounds (?:good|great|perfect)|that (?:works|sounds (?:good|great|perfect))|deal|love (?:it|that)|"
    r"i like (?:it|that))\b[\s,.!-]*"
)
_TAKING = re.compile(
    rf"(?:{_OPENER})*(?:let'?s|i'?ll|we'?ll|i will|we will|i'?m going to|we'?re going to|i'?d like to)\s+"
    r"(?:go (?:with|for)|do|use|try|take|book|pick|choose|get|order|follow)\s+"
    r"(?P<what>that|it|this|them|those|these|the (?P<ordinal>first|second|third|last) (?:one|option)|"
    r"your (?:suggestion|recommendation|idea|plan)|the (?:plan|suggestion|recommendation))\b",
    re.IGNORECASE,
)
#: A plain yes, which takes up an offer ("Shall I book a table for 7?" — "Yes please"); not "Thanks!", which
#: may close the topic as well.
_YES = re.compile(
    r"(?:(?:yes|yeah|yep|sure|ok(?:ay)?|alright|please do|go ahead|do it|go for it)\b[\s,.!-]*)+"
    r"(?:please\b[\s,]*)?(?:go ahead|do it|go for it|book it|do that|please do)?[\s.!]*$",
    re.IGNORECASE,
)
_PROPOSALS = re.compile(
    r"\b(?:i(?:'d| would)? (?:recommend|suggest)(?: going with| using| trying)?|"
    r"my (?:recommendation|suggestion|pick) (?:is|would be)|how about|what about|"
    r"you (?:could|might|should|can) (?:try|use|go with|consider|pick|choose)|"
    r"(?P<offer>shall i|should i|would you like me to|do you want me to|want me to))\s+(?P<what>[^.!?\n]+)",
    re.IGNORECASE,
)
#: One of the options, taken up by its name: "Miso it is!", "OK, the ThinkPad T14 it is.", "Milo is
#: perfect!", "I'll take the ThinkPad, I prefer Linux."
_NAMED = (
    re.compile(rf"(?:{_OPENER})*(?P<name>[\w'’ -]{{1,40}}?)\s+it is\b[\s.!]*$", re.IGNORECASE),
    re.compile(
        rf"(?:{_OPENER})*(?P<name>[\w'’ -]{{1,40}}?)\s+(?:is|sounds|would be)\s+"
        r"(?:perfect|great|good|lovely|ideal|the one)\b[\s.!]*$",
        re.IGNORECASE,
    ),
    re.compile(
        rf"(?:{_OPENER})*(?:let'?s|i'?ll|we'?ll|i will|we will|i'?m going to|we'?re going to)\s+"
        r"(?:go (?:with|for)|use|try|take|book|pick|choose|get|order)\s+"
        r"(?P<name>[\w'’ -]{1,40}?)(?=\s*(?:[,.!;]|$))",
        re.IGNORECASE,
    ),
)
_TAIL = re.compile(r",?\s+(?:which|since|because|as|so that|so|if|for example)\b.*$|[\s,;:]+$", re.IGNORECASE)
_OPTIONS = re.compile(r",\s*(?:or\s+)?|\s+or\s+", re.IGNORECASE)
_OR = re.compile(r"\bor\b", re.IGNORECASE)
_ORDINALS: Final = {"first": 0, "second": 1, "third": 2, "last": -1}
_YOU = ((re.compile(r"\byour\b", re.IGNORECASE), "{s}'s"), (re.compile(r"\byou\b", re.IGNORECASE), "{s}"))
_WORD = re.compile(r"\w+")


def accepted(previous: MessageIn | None, message: MessageIn, speakers: Speakers) -> CandidateOut | None:
    """The decision of a user turn that takes up the assistant's proposal just before it, else None."""
    if previous is None or previous.role != "assistant" or message.role != "user":
        return None
    if len(_WORD.findall(message.content)) > MAX_ACCEPTING_WORDS:
        return None
    listed = listed_options(previous.content)  # "Option 1: … Option 2: …" — "Let's go with option 2."
    chosen = picked(message.content, listed) if listed else None
    found = (*chosen, False) if chosen is not None else _proposed(previous, message)
    if found is None:
        return None
    what, matched, offer = found
    if len(_WORD.findall(what)) > MAX_PROPOSAL_WORDS:
        return None
    shown = speakers.display
    for pattern, replacement in _YOU:
        what = pattern.sub(replacement.format(s=shown), what)
    if offer:
        claim = f"{shown} agreed to the assistant's offer to {what}."
    else:
        claim = f"{shown} went with the assistant's suggestion: {what}."
    return CandidateOut(
        claim=claim,
        kind="decision",
        subject=speakers.subject,
        predicate=PREDICATE,
        object=what,
        mentions=(Mention(speakers.subject, "person", "subject"),) if speakers.named else (),
        source_message_indexes=(message.index, previous.index),
        span_start=matched.start(),
        span_end=matched.end(),
        confidence=confidence(specific=True, hedged=False, implicit_subject=False, about_other=False),
        importance=importance("decision", PREDICATE, specific=True),
    )


def _proposed(previous: MessageIn, message: MessageIn) -> tuple[str, re.Match[str], bool] | None:
    """(what is taken up, the words that take it, whether it was an offer) of a proposal in the
    assistant's words ("I'd recommend …" — "Let's go with that"), or None."""
    proposals = list(_PROPOSALS.finditer(previous.content))
    if not proposals:
        return None
    last = proposals[-1]
    offer = last.group("offer") is not None
    taking = _TAKING.match(message.content)
    named = None if taking or offer else _named(message.content)  # "Miso it is!"
    # a plain yes takes up an offer; to a recommendation it may only agree that it is good
    matched = taking or named or (_YES.match(message.content) if offer else None)
    if matched is None:
        return None
    proposal = _TAIL.sub("", last.group("what")).strip()
    if named is not None:
        what = _named_option(proposal, named.group("name"))
    else:
        what = _choice(proposal, taking.group("ordinal") if taking else None)
    return (what, matched, offer) if what is not None else None


def _options(proposal: str) -> list[str]:
    """The options of a proposal said with "or" ("Miso, Pepper or Biscuit"); a comma alone joins the words
    of one ("an upper/lower split, four days a week")."""
    if not _OR.search(proposal):
        return [proposal.strip()]
    return [option.strip() for option in _OPTIONS.split(proposal) if option.strip()]


def _choice(proposal: str, ordinal: str | None) -> str | None:
    """The proposal, or the option ``ordinal`` names of those it lists; None when "that" would have to pick
    one of several."""
    options = _options(proposal)
    if ordinal is None:
        return proposal if len(options) == 1 else None
    index = _ORDINALS[ordinal.lower()]
    if len(options) < 2 or index >= len(options):
        return None
    return options[index]


def _named(content: str) -> re.Match[str] | None:
    return next((m for pattern in _NAMED if (m := pattern.match(content)) is not None), None)


def _named_option(proposal: str, name: str) -> str | None:
    """The option of the proposal the user names ("Miso" of "Miso or Pepper"; "the ThinkPad" of "the
    MacBook Air M3 or the ThinkPad X1 Carbon": the one option with the name's words in it), None for any
    other name."""
    options = [option.strip(" ?!.") for option in _options(proposal)]
    wanted = _WORD.findall(name.lower().removeprefix("the "))
    exact = [o for o in options if _WORD.findall(o.lower().removeprefix("the ")) == wanted]
    within = [o for o in options if _inside(wanted, _WORD.findall(o.lower()))]
    return exact[0] if exact else within[0] if wanted and len(within) == 1 else None


def _inside(wanted: list[str], words: list[str]) -> bool:
    return any(words[i : i + len(wanted)] == wanted for i in range(len(words) - len(wanted) + 1))
