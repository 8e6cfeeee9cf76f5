"""A question that asks for a recap of the conversations, reduced to its topic.

"Can you walk me through the order in which I brought up different aspects of my billing migration
throughout our conversations (mention 6 items)?" is about the billing migration. The rest describes the
answer's form ("walk me through", "the order in which", "mention 6 items") or points at the conversations
themselves ("I brought up", "throughout our conversations"). Those words are in no message about the topic,
but they are in many others: the keyword signals match "order", "aspects" and "items" wherever the user
sorted a list, and the query's vector leans towards any message that asks for a summary or a walk-through.

``topic`` removes those phrases, so the vector and keyword signals search for the topic alone; everything
else about the question (its dates, the people and types it names) is read from the whole text. A question
without such a phrase is returned unchanged, and so is one that would be left with too few words. The
phrases are about how a person asks an assistant to look back over a conversation, not about any topic.
"""

from __future__ import annotations

import functools
import re
from typing import Final

#: Fewer content words than this left after removing the phrases: keep the question as it was.
MIN_TOPIC_WORDS: Final = 2

_ADJECTIVES = (
    r"(?:(?:brief|short|quick|simple|concise|detailed|thorough|comprehensive|full|complete|overall|"
    r"high-level|clear|general|step-by-step|cohesive)(?:\s*,\s*|\s+and\s+|\s+))*"
)
_FORMS = r"(?:summary|summaries|overview|recap|rundown|review|timeline|breakdown|run-through)"
_TALK = r"(?:conversations?|discussions?|chats?|sessions?|talks?)"
#: A word about the conversations ends the phrase ("in our chat app" is about an app).
_TALK_ENDS = r"\b(?!\s+(?!(?:about|on|so|with|and|or|to|in|where|when|that|regarding)\b)[A-Za-z])"
_RAISED = (
    r"(?:brought\s+up|bring\s+up|mentioned|raised|discussed|asked\s+about|talked\s+about|covered|"
    r"explored|worked\s+(?:on|through)|went\s+through|dealt\s+with)"
)
#: … and as they follow "did": "in what order did I mention …".
_RAISE = r"(?:bring\s+up|mention|raise|discuss|ask\s+about|talk\s+about|cover|explore|work\s+on)"
_PARTS = (
    r"(?:aspects?|topics?|concepts?|parts?|things?|challenges?|examples?|explanations?|phases?|features?|"
    r"issues?|questions?|points?|ideas?|problems?|steps?|improvements?|solutions?|areas?|stages?)"
)

#: Each phrase is removed wherever it stands; a removed phrase leaves a space.
_PHRASES: Final[tuple[re.Pattern[str], ...]] = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        # "(mention 7 items in order)", ", listing 5 points"
        r"[(,]?\s*\b(?:mention|mentioning|list|listing|name|naming|give|giving|include|including)\s+"
        r"(?:at\s+least\s+|the\s+)?\d+\s+(?:items?|points?|things?|steps?|aspects?|topics?|examples?)"
        r"(?:\s+in\s+(?:chronological\s+)?order|\s+in\s+total)?\s*\)?",
        r"\bin\s+(?:chronological\s+)?order\b",
        # "Can you give me a detailed and comprehensive summary that captures the full scope of"
        r"^\s*(?:(?:hey|ok|okay|so|please)\b[,\s]*)*(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?)?"
        r"(?:give|provide|write|create|put\s+together|share|offer|make|prepare)\s+(?:me\s+|us\s+)?(?:with\s+)?"
        r"(?:a|an|the)?\s*" + _ADJECTIVES + _FORMS + r"\b"
        r"(?:\s+(?:that|which)\s+(?:captures?|covers?|ties?\s+(?:\w+\s+)?together|integrates?|includes?)"
        r"(?:\s+(?:the|all|everything|of))*(?:\s+(?:full\s+)?(?:scope|progression|range|breadth))?)?"
        r"(?:\s+of)?(?:\s+(?:everything|all)(?:\s+(?:involved\s+in|related\s+to|about|on))?)?",
        r"^\s*(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?)?(?:summari[sz]e|recap|outline|list|walk\s+me\s+"
        r"through|go\s+over|remind\s+me\s+of|tell\s+me)\b",
        # "the order in which I brought up different aspects of", "how I brought up the concepts related to"
        r"\b(?:in\s+)?(?:the\s+)?order\s+in\s+which\s+(?:I|we)\s+" + _RAISED,
        r"\b(?:in\s+)?(?:what\s+)?order\s+(?:I|we)\s+" + _RAISED,
        r"\b(?:in\s+)?what\s+order\s+did\s+(?:I|we)\s+" + _RAISE,
        r"\bhow\s+(?:I|we)\s+" + _RAISED,
        # "throughout our conversations", "from our recent discussions", "based on our conversations"
        r"\b(?:throughout|across|during|in|from|over|based\s+on)\s+(?:all\s+)?(?:of\s+)?(?:our|these)\s+"
        r"(?:recent\s+|previous\s+|past\s+|earlier\s+|last\s+|many\s+|different\s+)?" + _TALK + _TALK_ENDS,
        # "our conversation about …" (after "summarize"), "what I told you about …", "what you know about …"
        r"\b(?:our|these)\s+(?:recent\s+|previous\s+|last\s+)?"
        + _TALK
        + r"\s+(?:about|on|regarding|concerning)\b",
        r"\bwhat\s+(?:I|we)\s+(?:told\s+you|said|mentioned|discussed)\s+(?:about|regarding|on)\b",
        r"\bwhat\s+you\s+(?:know|remember)\s+about\b",
        r"\b(?:throughout|across|during|in|over)\s+(?:all\s+)?(?:of\s+)?the\s+(?:different\s+|various\s+|many\s+)?"
        r"(?:conversations|discussions|chats|sessions)" + _TALK_ENDS,
        r"\b(?:that|which)\s+came\s+up\b",
        r"\b(?:that|which)\s+(?:we|I)\s+(?:have\s+|had\s+)?" + _RAISED + r"(?:\s+so\s+far)?",
        r"\bwe\s+(?:have\s+|had\s+)?" + _RAISED,
        # "the different aspects of", "the main points about" (after "we covered" went)
        r"\b(?:the\s+)?(?:different|various|several|main|key)\s+"
        + _PARTS
        + r"(?:\s*,?\s*(?:and|or)\s+"
        + _PARTS
        + r")*"
        r"\s+(?:of|related\s+to|about|regarding|concerning|on|involved\s+in|in)\b",
        # "what I learned about X"
        r"\bwhat\s+I(?:'ve|\s+have)?\s+(?:learned|learnt|discussed|asked)\s+(?:about|on|regarding)\b",
        r"\bmy\s+overall\s+",
    )
)
#: "How did my discussions about X progress?" asks about X.
_PROGRESS = re.compile(
    r"\bhow\s+(?:did|has|have)\s+my\s+(?:discussions?|conversations?|questions?|focus|work|thinking)\s+"
    r"(?:about|on|of|with)\s+(?P<topic>.+?)\s+(?:progress|develop|evolve|change)d?(?:\s+over\s+time)?"
    r"(?=\s*[?.!]*\s*$)",
    re.IGNORECASE,
)
_SPACES = re.compile(r"\s+")
_EDGE_PUNCTUATION = re.compile(r"^[\s,;:.\-]+|[\s,;:\-]+(?=[?.!]*$)")
#: A preposition left at the start once its phrase went ("a summary of | about improving my …").
_LEADING_PREPOSITIONS = re.compile(
    r"^(?:(?:of|about|on|regarding|concerning|related\s+to|with)\b[\s,]*)+", re.IGNORECASE
)
_CONTENT_WORD = re.compile(r"[A-Za-z0-9][\w'-]*")
#: Words that make no topic on their own (the conversations themselves included).
_NO_TOPIC = """
    a an the of to in on at for and or but my me i you
    we our us it its that this these those about with how what which when where
    did do does is are was were be been have has had can could would will
    please from by as so far all everything recent conversation conversations discussion discussions
    chat chats session sessions
"""
_FUNCTION_WORDS: Final = frozenset(_NO_TOPIC.split())


@functools.lru_cache(maxsize=256)  # asked twice per recall: for the vector and the keyword signals
def topic(text: str) -> str:
    """``text`` without the phrases that ask for a recap of the conversations; ``text`` itself when it has
    none or when fewer than ``MIN_TOPIC_WORDS`` content words would be left."""
    stripped = text
    for phrase in _PHRASES:
        stripped = phrase.sub(" ", stripped)
    stripped = _PROGRESS.sub(r"\g<topic>", _SPACES.sub(" ", stripped).strip())
    if stripped == _SPACES.sub(" ", text).strip():
        return text
    stripped = _EDGE_PUNCTUATION.sub("", _SPACES.sub(" ", stripped).strip())
    stripped = _LEADING_PREPOSITIONS.sub("", stripped)
    content = [word for word in _CONTENT_WORD.findall(stripped) if word.lower() not in _FUNCTION_WORDS]
    return stripped if len(content) >= MIN_TOPIC_WORDS else text
