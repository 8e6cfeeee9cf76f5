"""The extraction prompt: response model, system prompt, two worked examples and ``build_messages``.

Choices:
- The worked examples are real chat turns (user: transcript, assistant: JSON answer) placed before the
  episode, rendered by the same code as the episode, and built as ``ExtractionAnswer`` objects, so they can
  never drift from the schema (tests map them through the extractor and check the expected claims survive).
- The schema sent is strict and lists the allowed kinds, entity types and roles as enums, but the model
  validates them as plain strings: a server that does not enforce the schema and answers with an unknown kind
  loses that one candidate (dropped by the extractor), not the whole answer.
- Fields are ordered so the model grounds before it writes: source indexes and the quoted span come before
  the claim. Each message is shown with its index, speaker (name, else role), document date with weekday
  (for "last Friday"), and the time expressions the anchor_dates phase already resolved.
- Predicate names in the prompt are examples only, except the predicates of states that change and of
  endings (rule 11), which reconcile needs to supersede the old value; the canonical list lives with the
  rules extractor (``ingestion/extractors/predicates.py``), and the extractor folds synonyms onto it.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Annotated, Literal

from pydantic import BaseModel, Field, WithJsonSchema

from ingestion.extractors.base import (
    ENTITY_TYPES,
    KINDS,
    USER_SUBJECT,
    EpisodeIn,
    MessageIn,
    Role,
    TimeMention,
)

#: The ``json_schema.name`` sent with the request (also shows up in error messages).
SCHEMA_NAME = "memory_extraction"
MentionRole = Literal["subject", "object", "other"]
MENTION_ROLES: tuple[MentionRole, ...] = ("subject", "object", "other")
DATE_FORMAT = "%Y-%m-%d"
MAX_KEY_LEARNINGS = 5

KindText = Annotated[str, WithJsonSchema({"type": "string", "enum": list(KINDS)})]
EntityTypeText = Annotated[str, WithJsonSchema({"type": "string", "enum": list(ENTITY_TYPES)})]
RoleText = Annotated[str, WithJsonSchema({"type": "string", "enum": list(MENTION_ROLES)})]
IsoDateOrNull = Annotated[str | None, WithJsonSchema({"anyOf": [{"type": "string"}, {"type": "null"}]})]


class ExtractedMention(BaseModel):
    name: str = Field(description="the entity's name as written in the conversation")
    type: EntityTypeText
    role: RoleText


class ExtractedCandidate(BaseModel):
    source_message_indexes: list[int] = Field(description="indexes of the messages it comes from, main first")
    span_text: str = Field(description="the exact words of the first source message that state it")
    claim: str = Field(description="standalone third-person sentence with absolute dates")
    kind: KindText
    subject: str
    predicate: str = Field(description="snake_case, e.g. lives_in")
    object: str
    mentions: list[ExtractedMention]
    valid_from: IsoDateOrNull = Field(description="YYYY-MM-DD when it started being true, or null")
    confidence: float = Field(description="0 to 1")
    importance: float = Field(description="0 to 1")


class ExtractionAnswer(BaseModel):
    summary: str
    key_learnings: list[str]
    candidates: list[ExtractedCandidate]


SYSTEM_PROMPT = f"""\
You extract long-term memories from a conversation, for an assistant that will talk to these people again.

Each message is shown as: [index] speaker (role) · document date: text. The document date is the day the
message was written. Answer with JSON that matches the schema: a summary, key learnings, and candidates.

Rules for candidates:
1. A claim is ONE standalone sentence in the third person that makes sense without the conversation.
   Attribute it to the speaker who said it: use their name when the message shows one ("Priya works at
   Figma."), otherwise "User" ("User lives in Porto."). One piece of information per claim.
2. Keep durable information about the people: facts about them, preferences, decisions and plans,
   relationships, and events in their lives.
3. Resolve every relative date ("yesterday", "last Friday", "two weeks ago", "in June") to an absolute date
   using the document date of the message it appears in, and write the absolute date in the claim ("on
   2024-03-08", "in June 2024"). Never leave "yesterday", "recently" or "next week" in a claim. Time
   expressions listed under a message are already resolved: use those dates.
4. valid_from: the date (YYYY-MM-DD) the claim started being true when the conversation says so, else null.
5. Drop questions, greetings, small talk, hypotheticals, and anything only the assistant said (its
   suggestions, general knowledge, product specifications) unless a person confirms it about themselves.
6. kind: "fact" (a stable attribute or state), "preference" (likes, dislikes, wants, opinions), "decision"
   (a choice or plan), "relationship" (a tie between two people, or a person and a group), "event"
   (something that happened or will happen at a time).
7. subject: "{USER_SUBJECT}" for the unnamed user, else the name of the person the claim is about.
   predicate: a short snake_case verb phrase such as lives_in, works_at, likes, dislikes, wants, spouse,
   sibling, has_pet, interested_in, plans_to_move_to. object: the value, as short as possible.
8. mentions: every named or specific entity in the claim, the subject person included when named (not the
   unnamed user), with its role ({", ".join(MENTION_ROLES)}) and its type, one of:
   {", ".join(ENTITY_TYPES)}.
   Write names as they appear in the conversation.
9. source_message_indexes: the messages the claim comes from, the one that states it first. span_text: the
   words of that first message that state the claim, copied exactly.
10. confidence (0 to 1): how clearly it is stated (explicit 0.9 or more, implied 0.6 to 0.8, a guess 0.3).
    importance (0 to 1): how useful it is to remember (identity, family, health, work, home and long-term
    plans high; passing tastes low).
11. States that change: use these predicates, so a new value replaces the old one: lives_in, works_at,
    job_title, manager, main_language (programming language), diet, spouse, partner, relationship_status.
    A change is stated with the new value ("I just joined Anthropic" → works_at Anthropic; "we moved to
    Denver" → lives_in Denver; "my new manager is Priya" → manager Priya). When a state ends without a new
    value, use no_longer_<predicate> with the old object ("I don't work at Google anymore" →
    no_longer_works_at Google; "I'm not vegan anymore" → no_longer_diet vegan) or left for something the
    person left, quit, sold or gave up ("I left Google" → left Google; "I gave up coffee" → left coffee).
    A plan or a hypothetical is not a change ("I'm thinking about moving to Seattle" → plans_to, "if I
    left ..." → nothing).
12. If nothing is worth remembering, return an empty candidates list.

summary: one to three sentences on what the conversation was about. key_learnings: at most
{MAX_KEY_LEARNINGS} short takeaways about the people, most useful first."""


def render_episode(episode: EpisodeIn) -> str:
    """The episode as the transcript the model reads."""
    received = episode.received_at.strftime(f"{DATE_FORMAT} %H:%M UTC")
    lines = [f"Conversation received {received}. Messages:"]
    for message in episode.messages:
        lines.append(f"[{message.index}] {_speaker(message)} · {_day(message)}: {message.content}")
        lines.extend(f"    time expression: {_time_hint(mention)}" for mention in message.time_mentions)
    return "\n".join(lines)


def build_messages(episode: EpisodeIn, examples: int | None = None) -> list[dict[str, str]]:
    """System prompt, the first ``examples`` worked examples (all by default) as chat turns, then the episode.

    Everything before the episode is the same on every call, so servers that cache a prompt prefix
    (llama.cpp, vLLM) read it once; fewer examples make the first call of a slow CPU server shorter.
    """
    messages = [{"role": "system", "content": SYSTEM_PROMPT}]
    for example_episode, answer in WORKED_EXAMPLES[: len(WORKED_EXAMPLES) if examples is None else examples]:
        messages.append({"role": "user", "content": render_episode(example_episode)})
        messages.append({"role": "assistant", "content": answer.model_dump_json()})
    messages.append({"role": "user", "content": render_episode(episode)})
    return messages


def _speaker(message: MessageIn) -> str:
    return f"{message.name} ({message.role})" if message.name else message.role


def _day(message: MessageIn) -> str:
    return message.document_date.strftime(f"%A {DATE_FORMAT}")


def _time_hint(mention: TimeMention) -> str:
    first = mention.start.strftime(DATE_FORMAT)
    last = (mention.end - timedelta(microseconds=1)).strftime(DATE_FORMAT)  # end is exclusive
    dates = first if first == last else f"{first} to {last}"
    return f'"{mention.text}" = {dates} ({mention.granularity})'


# -- worked examples ---------------------------------------------------------------------------------------


Turn = tuple[Role, str | None, str]  # role, speaker name, content


def _example_episode(day: str, turns: list[Turn], hints: dict[int, TimeMention]) -> EpisodeIn:
    date = datetime.fromisoformat(day).replace(tzinfo=UTC)
    messages = tuple(
        MessageIn(
            index=i,
            role=role,
            name=name,
            content=text,
            document_date=date,
            time_mentions=(hints[i],) if i in hints else (),
        )
        for i, (role, name, text) in enumerate(turns)
    )
    return EpisodeIn(messages=messages, received_at=date)


def _c(
    indexes: list[int],
    span: str,
    claim: str,
    kind: str,
    spo: tuple[str, str, str],
    mentions: list[tuple[str, str, str]],
    valid_from: str | None,
    confidence: float,
    importance: float,
) -> ExtractedCandidate:
    return ExtractedCandidate(
        source_message_indexes=indexes,
        span_text=span,
        claim=claim,
        kind=kind,
        subject=spo[0],
        predicate=spo[1],
        object=spo[2],
        valid_from=valid_from,
        confidence=confidence,
        importance=importance,
        mentions=[ExtractedMention(name=name, type=type_, role=role) for name, type_, role in mentions],
    )


_CAR_SHOPPING = _example_episode(
    "2024-05-06T10:00:00",
    [
        ("user", None, "Hi! I need a new car. It's mostly for city commuting, but it's our family car too."),
        ("assistant", None, "Happy to help! What's your budget, and any must-haves?"),
        ("user", None, "Under $30k. I want a hybrid that's easy to park, SUVs are way too big for me."),
        ("assistant", None, "The Toyota Corolla Hybrid could fit: it gets about 50 mpg and it's compact."),
        ("user", None, "Ooh, the Corolla Hybrid sounds interesting. How much is it?"),
    ],
    {},
)
_CAR_SHOPPING_ANSWER = ExtractionAnswer(
    summary="User is shopping for a hybrid family car for city commuting and likes the Corolla Hybrid.",
    key_learnings=[
        "User is shopping for a car: hybrid, easy to park, family-sized, under $30k.",
        "User is interested in the Toyota Corolla Hybrid.",
    ],
    candidates=[
        _c(
            [4, 3],
            "the Corolla Hybrid sounds interesting",
            "User is interested in the Toyota Corolla Hybrid.",
            "preference",
            ("user", "interested_in", "Toyota Corolla Hybrid"),
            [("Toyota Corolla Hybrid", "product", "object"), ("Toyota", "organization", "other")],
            None,
            0.9,
            0.6,
        ),
        _c(
            [2],
            "SUVs are way too big for me",
            "User finds SUVs too big.",
            "preference",
            ("user", "dislikes", "SUVs"),
            [("SUVs", "concept", "object")],
            None,
            0.95,
            0.5,
        ),
        _c(
            [0],
            "It's mostly for city commuting",
            "User does city commuting.",
            "fact",
            ("user", "commutes_in", "the city"),
            [],
            None,
            0.85,
            0.5,
        ),
        _c(
            [2, 0],
            "Under $30k. I want a hybrid that's easy to park",
            "User wants a family car that is hybrid, easy to park and under $30k.",
            "preference",
            ("user", "wants", "family car: hybrid, easy to park, under $30k"),
            [],
            None,
            0.95,
            0.7,
        ),
    ],
)

_FRIDAY = "last Friday"
_RELOCATION_TURNS: list[Turn] = [
    ("user", "Priya", f"Tom! I signed the lease on a flat in Lisbon {_FRIDAY}. I'm moving there in June."),
    ("user", "Tom", "Congrats! Are you staying at Figma?"),
    ("user", "Priya", "Yes, they're letting me work remotely. My sister Ana lives in Lisbon too!"),
    ("user", "Tom", "Lovely. I started training for the Berlin Marathon two weeks ago, it's in September."),
]
_FRIDAY_START = _RELOCATION_TURNS[0][2].index(_FRIDAY)
_RELOCATION = _example_episode(
    "2024-03-12T18:30:00",
    _RELOCATION_TURNS,
    {
        0: TimeMention(
            text=_FRIDAY,
            start_char=_FRIDAY_START,
            end_char=_FRIDAY_START + len(_FRIDAY),
            granularity="day",
            start=datetime(2024, 3, 8, tzinfo=UTC),
            end=datetime(2024, 3, 9, tzinfo=UTC),
        )
    },
)
_RELOCATION_ANSWER = ExtractionAnswer(
    summary="Priya tells Tom she is moving to Lisbon in June 2024 and keeping her job at Figma remotely; "
    "Tom is training for the Berlin Marathon.",
    key_learnings=[
        "Priya is moving to Lisbon in June 2024.",
        "Priya works remotely for Figma.",
        "Priya's sister Ana lives in Lisbon.",
        "Tom is training for the Berlin Marathon.",
    ],
    candidates=[
        _c(
            [0],
            "I signed the lease on a flat in Lisbon last Friday",
            "Priya signed the lease on a flat in Lisbon on 2024-03-08.",
            "event",
            ("Priya", "signed_lease_in", "Lisbon"),
            [("Priya", "person", "subject"), ("Lisbon", "location", "object")],
            "2024-03-08",
            0.95,
            0.7,
        ),
        _c(
            [0],
            "I'm moving there in June",
            "Priya plans to move to Lisbon in June 2024.",
            "decision",
            ("Priya", "plans_to_move_to", "Lisbon"),
            [("Priya", "person", "subject"), ("Lisbon", "location", "object")],
            None,
            0.9,
            0.8,
        ),
        _c(
            [2, 1],
            "they're letting me work remotely",
            "Priya works at Figma remotely.",
            "fact",
            ("Priya", "works_at", "Figma"),
            [("Priya", "person", "subject"), ("Figma", "organization", "object")],
            None,
            0.85,
            0.8,
        ),
        _c(
            [2],
            "My sister Ana",
            "Ana is Priya's sister.",
            "relationship",
            ("Priya", "sibling", "Ana"),
            [("Priya", "person", "subject"), ("Ana", "person", "object")],
            None,
            0.95,
            0.8,
        ),
        _c(
            [2],
            "Ana lives in Lisbon",
            "Ana lives in Lisbon.",
            "fact",
            ("Ana", "lives_in", "Lisbon"),
            [("Ana", "person", "subject"), ("Lisbon", "location", "object")],
            None,
            0.9,
            0.5,
        ),
        _c(
            [3],
            "I started training for the Berlin Marathon two weeks ago",
            "Tom started training for the Berlin Marathon around 2024-02-27.",
            "event",
            ("Tom", "training_for", "Berlin Marathon"),
            [("Tom", "person", "subject"), ("Berlin Marathon", "event", "object")],
            "2024-02-27",
            0.9,
            0.6,
        ),
    ],
)

#: (episode, expected answer) pairs shown to the model before the real episode.
WORKED_EXAMPLES: tuple[tuple[EpisodeIn, ExtractionAnswer], ...] = (
    (_CAR_SHOPPING, _CAR_SHOPPING_ANSWER),
    (_RELOCATION, _RELOCATION_ANSWER),
)
