"""The words around a time expression that change how it is read (``ingestion.temporal``): a future cue
before it in the same sentence (an arrangement's progressive, an appointment one has, a timetable's
present: "my lease ends in August", a deadline one aims at: "by October"), a present "is" or a
rescheduling right before it, "since"/"until" or a rescheduling
before a bare month, "since"/"until" before a bare year, "every" before a habit."""

from __future__ import annotations

import re
from typing import Final

#: How far before a bare month or year "since", "until", ... may be.
CONTEXT_LOOKBACK_CHARS: Final = 24
_SENTENCE_ENDS: Final = ".!?\n"

_MONTH_CONTEXT = re.compile(
    r"\b(?:since|until|till|before|after|through|around|of|early|late|mid|by)[\s-]+$", re.I
)
_YEAR_CONTEXT = re.compile(
    r"\b(?:since|until|till|before|after|early|late|mid|(?:end|start|middle)\s+of)"
    r"[\s-]+$",
    re.I,
)
_FUTURE_CUE = re.compile(
    r"\b(?:will|shall|going\s+to|gonna|plan(?:ning)?\s+to|about\s+to|hope\s+to"
    r"|can'?t\s+wait|looking\s+forward|upcoming"
    r"|let['’]s\s+(?:schedule|book|plan|set|meet|launch|ship|release|deploy|aim|target))\b|\w['’]ll\b",
    re.I,
)


#: The present progressive of an arrangement, a few words before the date: "I'm starting a new job in March",
#: "We're getting married in September", "My sister is moving to Oslo in June" are plans, not memories.
#: Only verbs of arrangements, and at most ``ARRANGEMENT_GAP_WORDS`` words between: "I'm having trouble with
#: the report I wrote in March" stays in the past.
ARRANGEMENT_GAP_WORDS: Final = 4
_ARRANGEMENT_CUE = re.compile(
    r"(?:\b(?:am|is|are)|['’](?:m|s|re))\s+(?:\w+ly\s+)?"
    r"(?:moving|relocating|starting|beginning|joining|leaving|quitting|retiring|graduating|getting|flying"
    r"|traveling|travelling|visiting|meeting|hosting|throwing|attending|launching|releasing|opening|expecting"
    r"|coming|going|heading|returning|switching|taking)\b"
    rf"(?:\s+[^\s.!?]+){{0,{ARRANGEMENT_GAP_WORDS}}}\s+$",
    re.I,
)
#: What one is (or has been) training, preparing, saving or studying for, a few words before the date: "I'm
#: training for a marathon in May", "I've been studying for my exam on June 1" (not "I had been …"); the
#: name of what is prepared for may be longer than an arrangement's words ("the AWS Solutions Architect
#: exam in June").
PREPARING_GAP_WORDS: Final = 6
_PREPARING_CUE = re.compile(
    r"(?:\b(?:am|is|are)|['’](?:m|s|re)|(?<!had )(?<!['’]d )\bbeen)\s+(?:\w+ly\s+)?"
    r"(?:training|preparing|saving|cramming|studying|revising)\s+for"
    rf"(?:\s+[^\s.!?]+){{0,{PREPARING_GAP_WORDS}}}\s+$",
    re.I,
)
#: Right before the date, a present "is" ("My flight is on March 12", "The deadline's Friday", "Her party is
#: May 20") or a rescheduling ("pushed to Thursday", "moved the launch to the 14th", "due Monday") states
#: what is coming:
#: a past event is told with "was". Only filler words may stand between ("is now set for", "is still on").
_RESCHEDULING = (
    r"\b(?:push|move|postpone|reschedule|delay|bump|change|shift|bring|brought|slip|slipp)(?:e?d)?"
    r"(?:\s+[\w'’-]+){0,4}?\s+(?:to|until|till|for)"
)
_SCHEDULED_CUE = re.compile(
    rf"(?:\b(?:is|are)|\w['’](?:s|re)|\bdue|{_RESCHEDULING})"
    r"(?:\s+(?:now|still|actually|due|set|scheduled|planned|booked|on|for|at|until|till))*\s+$",
    re.I,
)
#: A thing's timetable in the simple present, a few words before the date: "My lease ends in August", "my son
#: starts kindergarten in September", "I start my new job in March" are still to come ("ended", "started" are
#: past). At most ``ARRANGEMENT_GAP_WORDS`` words between.
_TIMETABLE_CUE = re.compile(
    r"\b(?:starts|begins|ends|expires|leaves|departs|arrives|opens|closes|finishes|renews"
    r"|(?:i|we)\s+(?:start|begin|leave|fly))\b"
    rf"(?:\s+[^\s.!?]+){{0,{ARRANGEMENT_GAP_WORDS}}}\s+$",
    re.I,
)
#: A present "have" of an appointment, a few words before the date: "I have a dentist appointment on July 2",
#: "I've got an interview with Acme on Friday" are still to come ("I had an interview on Friday" is past).
APPOINTMENT_GAP_WORDS: Final = 3
_APPOINTMENT_CUE = re.compile(
    r"(?:\b(?:have|has)|['’]ve\s+got|\bgot)\s+(?:[^\s.!?]+\s+){0,3}"
    r"(?:appointment|meeting|interview|flight|reservation|booking|exam|surgery|checkup|check-up|deadline)s?"
    rf"(?:\s+[^\s.!?]+){{0,{APPOINTMENT_GAP_WORDS}}}\s+$",
    re.I,
)
#: "until" right before the date, after a present "am / is / are" in the sentence: "I'm on parental leave
#: until June", "I'm staying with my parents till Friday" end later; "I worked there until March" ended.
_UNTIL_CUE = re.compile(
    r"\b(?:until|till|til)\s+(?:(?:the\s+)?(?:end|middle|start)\s+of\s+|mid-?\s*|early\s+|late\s+)?$", re.I
)
#: "by" right before the date, after a wish or an aim in the sentence: "I want to run a 10k by October",
#: "I need the report done by Friday" set a deadline to come ("I had paid it off by March" did not).
_BY = re.compile(r"\bby\s+$", re.I)
_AIM = re.compile(
    r"\b(?:want|wants|need|needs|hope|hoping|plan|planning|aim|aiming|goal|trying|have\s+to|has\s+to|got\s+to"
    r"|gotta|should|must|['’]d\s+like|would\s+like)\b",
    re.I,
)
_PRESENT_BE = re.compile(r"\b(?:am|is|are)\b|\w['’](?:m|re)\b", re.I)
_PAST_BE = re.compile(r"\b(?:was|were|had)\b", re.I)
#: "every Friday", "each spring": a habit, not a date (resolving it stored "deploys every on 27 February").
_RECURRING = re.compile(r"\b(?:every|each)(?:\s+other)?\s+$", re.IGNORECASE)


def future(text: str, start: int) -> bool:
    """A future cue ("will", "going to", an arrangement's progressive) in the sentence before ``start``, a
    present "is" or a rescheduling right before it, or "until" right before it in a present sentence."""
    sentence_start = max(text.rfind(c, 0, start) for c in _SENTENCE_ENDS) + 1
    if _FUTURE_CUE.search(text, sentence_start, start) is not None:
        return True
    if _SCHEDULED_CUE.search(text, sentence_start, start) is not None:
        return True
    if _APPOINTMENT_CUE.search(text, sentence_start, start) is not None:
        return True
    if _PREPARING_CUE.search(text, sentence_start, start) is not None:
        return True
    if _TIMETABLE_CUE.search(text, sentence_start, start) is not None:
        return True
    if _BY.search(text, sentence_start, start) is not None and _AIM.search(text, sentence_start, start):
        return True
    if _UNTIL_CUE.search(text, sentence_start, start) is not None:
        said = text[sentence_start:start]
        return _PRESENT_BE.search(said) is not None and _PAST_BE.search(said) is None
    return _ARRANGEMENT_CUE.search(text, sentence_start, start) is not None


#: A rescheduling right before a bare month: "The launch got pushed to November", "we moved the trip to June".
_RESCHEDULED_TO = re.compile(_RESCHEDULING + r"\s+$", re.I)


def month_context(text: str, start: int) -> bool:
    """A word that makes a bare month a date ("since March", "early May") or a rescheduling ("pushed to
    November") just before ``start``."""
    if _MONTH_CONTEXT.search(text[max(0, start - CONTEXT_LOOKBACK_CHARS) : start]) is not None:
        return True
    sentence_start = max(text.rfind(c, 0, start) for c in _SENTENCE_ENDS) + 1
    return _RESCHEDULED_TO.search(text, sentence_start, start) is not None


def year_context(text: str, start: int) -> bool:
    """A word that makes a bare year a date ("since 2019", "end of 2021") just before ``start``."""
    return _YEAR_CONTEXT.search(text[max(0, start - CONTEXT_LOOKBACK_CHARS) : start]) is not None


def recurring(text: str, start: int) -> bool:
    """ "every" / "each" right before ``start``: the expression is a habit."""
    return _RECURRING.search(text, 0, start) is not None
