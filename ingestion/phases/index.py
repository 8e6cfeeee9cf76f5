"""Phase 6 — embed the episode's messages, passages and summary (batched) and make its memories visible to
recall.

Filler turns (``ingestion.filler``: chatter, an assistant's empty question back) are marked, and embedded
like any turn: how much recall lets them count is a ranking choice (``RetrievalConfig.filler_weight``),
tunable on one ingest. A long message is also cut into passages
(``ingestion.passages``); the first ``MEMHQ_PASSAGES_EMBEDDED`` (1) are embedded and the message's own vector
is its first passage's (the embedder reads only a text's first 128 tokens anyway), so a long message costs
one vector, like a short one.

With ``MEMHQ_SECOND_EMBEDDER`` on, the user's messages (a long one as its first passage) also get the
second embedder's vector (``memhq.ai.e5``), read from the same texts on a helper thread while MiniLM
reads on the phase's own (``memhq.ai.beside``).

Memories created by reconcile already carry the embedding of their claim (computed there to compare with
existing memories), so only memories still missing one are embedded here. A memory is visible to recall
from ``indexed_at`` on. Full-text vectors are generated columns and need nothing.

A reply to a question is embedded with the start of that question before it (``QUESTION_CONTEXT_CHARS``):
"Yes! It's about memory, travel, and family." says what it is about only after "Is that your third
novel?". On locomo-dev (``memhq_eval``, fresh ingests) frac@10 0.810-0.813 → 0.817, all@10
0.758-0.761 → 0.766, multi-hop all@10 0.345-0.359 → 0.366, single-hop frac@10 0.880 → 0.887. Tried:
300 characters (0.817, multi-hop 0.352), 80 (0.812 / 0.359), the question's last 150 characters
(0.816 / 0.352), and the previous turn before every message, question or not (0.811, multi-hop 0.310: a
turn that starts a new topic is blurred by the last one). Only the vector is contextual: full text, the
stored content and what recall shows are the message alone.

An assistant's reply is read only to its start (``REPLY_VECTOR_CHARS``, after the question it answers; a
long reply's first passage likewise): replies are the longer half of a user↔assistant conversation and are
nearly always cut at the embedder's 128 tokens, their start says what they answer, and fusion counts their
votes at a tenth (``RetrievalConfig.assistant_weight``). On beam-dev's median episodes this took the index
phase from 7.7 to 5.2 s (this box; ``memhq_bench episode``) and the whole ingest from 985 to 803 s; a fresh
ingest, paired, frac@10 +0.008 [+0.001, +0.020] (docs/benchmarks.md). What a person says is read whole.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final

import numpy as np
from django.conf import settings
from django.utils import timezone

from ingestion import passages as splitter
from ingestion.filler import is_filler
from ingestion.runner import PhaseOutcome
from memhq.ai import e5
from memhq.ai.beside import beside
from memhq.ai.provider import get_embedder
from memhq.models import Episode, EpisodeMessage, Memory, Passage
from memhq.services.bulk import rows_update


@dataclass
class Embedded:
    messages: list[EpisodeMessage]
    memories: list[Memory]
    summary: np.ndarray | None
    passages: list[Passage] = field(default_factory=list)


#: How much of the question a reply is embedded with (the start of "<speaker>: <question>").
QUESTION_CONTEXT_CHARS: Final = 150
#: How much of an assistant's reply its vector reads ("assistant: " and the reply's start, after the question
#: it answers): the start says what the reply is about, and every token the model reads costs time (the
#: embedder reads a text up to 128 tokens; a reply is always that long). See the module docstring.
REPLY_VECTOR_CHARS: Final = 200
#: A message that ends with a question mark, maybe followed by bracketed notes ("[shares a photo: …]").
_ENDS_WITH_QUESTION: Final = re.compile(r"\?[\"'”’)]*\s*(?:\[[^\]]*\]\s*)*$")


def message_text(message: EpisodeMessage) -> str:
    """A message as ``<speaker>: <content>``: the speaker matters for "what did Rosalind say about …"."""
    speaker = message.name or message.role
    return f"{speaker}: {message.content}"


def vector_text(message: EpisodeMessage, text: str) -> str:
    """``text`` (``<speaker>: <content>`` of a message or of its first passage) as its vector reads it: an
    assistant's reply only to ``REPLY_VECTOR_CHARS``, cut at a space."""
    if message.role != "assistant" or len(text) <= REPLY_VECTOR_CHARS:
        return text
    cut = text[:REPLY_VECTOR_CHARS]
    head = cut.rpartition(" ")[0]
    return head if len(head) > REPLY_VECTOR_CHARS // 2 else cut


def question_prefix(previous: EpisodeMessage | None) -> str:
    """The start of the question a message answers (with a line break), or "" when the turn before is not
    a question."""
    if previous is None or not _ENDS_WITH_QUESTION.search(previous.content):
        return ""
    return f"{message_text(previous)[:QUESTION_CONTEXT_CHARS]}\n"


def embedded_text(message: EpisodeMessage, previous: EpisodeMessage | None) -> str:
    """What a message is embedded as: :func:`message_text`, after the start of the question it answers."""
    return question_prefix(previous) + vector_text(message, message_text(message))


def passages_of(message: EpisodeMessage, previous: EpisodeMessage | None) -> list[tuple[Passage, str | None]]:
    """A long message's passages (``ingestion.passages``), each with the text it is embedded as: the
    speaker and the passage (the first one after the start of the question it answers, like a message);
    None past the first ``MEMHQ_PASSAGES_EMBEDDED`` (those are found by full text only)."""
    found = splitter.split(message.content)
    message.passage_count = len(found)
    speaker = message.name or message.role
    question = question_prefix(previous)
    return [
        (
            Passage(
                message=message,
                episode_id=message.episode_id,
                project_id=message.project_id,
                user_id=message.user_id,
                message_index=message.index,
                ordinal=ordinal,
                start=part.start,
                end=part.end,
                text=part.text,
                document_date=message.document_date,
            ),
            f"{question if ordinal == 0 else ''}{vector_text(message, f'{speaker}: {part.text}')}"
            if ordinal < settings.MEMHQ_PASSAGES_EMBEDDED
            else None,
        )
        for ordinal, part in enumerate(found)
    ]


def compute(episode: Episode) -> Embedded:
    # store() writes embedding_e5 of every message: read it too, or each message e5 does not read (an
    # assistant's) would fetch its deferred value in a query of its own
    second_column = ("embedding_e5",) if e5.enabled() else ()
    messages = list(
        EpisodeMessage.objects.filter(episode=episode)
        .order_by("index")
        .only(
            "episode_id",
            "project_id",
            "user_id",
            "index",
            "name",
            "role",
            "content",
            "document_date",
            *second_column,
        )
    )
    missing = list(Memory.objects.filter(episode=episode, embedding__isnull=True).only("pk", "text"))
    names = tuple({m.name for m in messages if m.name})
    for message in messages:
        message.filler = is_filler(message.role, message.content, names)
    searched = searched_messages(messages)
    parts = [part for m, previous in searched for part in passages_of(m, previous)]
    whole = [(m, previous) for m, previous in searched if not m.passage_count]
    texts = [embedded_text(m, previous) for m, previous in whole]
    embedded = [(passage, text) for passage, text in parts if text is not None]
    texts += [text for _, text in embedded]
    texts += [m.text for m in missing]
    if episode.summary:
        texts.append(episode.summary)
    second = None
    if e5.enabled():  # e5 reads beside MiniLM (memhq.ai.beside): the phase waits for the slower of the two
        first = {passage.message_index: text for passage, text in embedded if passage.ordinal == 0}
        second = beside(second_vectors, searched, first)
    vectors = get_embedder().embed(texts) if texts else np.zeros((0, 0), dtype=np.float32)
    if second is not None:
        second.result()
    for (message, _), vector in zip(whole, vectors[: len(whole)], strict=True):
        message.embedding = vector
    offset = len(whole)
    for (passage, _), vector in zip(embedded, vectors[offset : offset + len(embedded)], strict=True):
        passage.embedding = vector
        if passage.ordinal == 0:  # a long message's own vector is its first passage's: no second pass
            passage.message.embedding = vector
    offset += len(embedded)
    for memory, vector in zip(missing, vectors[offset : offset + len(missing)], strict=True):
        memory.embedding = vector
    summary = vectors[-1] if episode.summary else None
    return Embedded(
        messages=messages, memories=missing, summary=summary, passages=[passage for passage, _ in parts]
    )


Searched = list[tuple[EpisodeMessage, EpisodeMessage | None]]


def searched_messages(messages: list[EpisodeMessage]) -> Searched:
    """Each message of an episode (in order) with the one before it."""
    return [(m, messages[i - 1] if i else None) for i, m in enumerate(messages)]


def first_passages(searched: Searched) -> dict[int, str]:
    """A long message's first passage as it is embedded, by message index (for rows stored earlier)."""
    return {
        passage.message_index: text
        for m, previous in searched
        for passage, text in passages_of(m, previous)[:1]
        if text is not None
    }


def second_vectors(searched: Searched, first: dict[int, str]) -> int:
    """The second embedder's vectors (``memhq.ai.e5``) of the user's messages (``e5.READS``), each read as
    MiniLM reads it (a long message as its first passage: ``first``); returns how many."""
    read = [
        (m, first.get(m.index) or embedded_text(m, previous)) for m, previous in searched if e5.reads(m.role)
    ]
    vectors = e5.get_e5_embedder().embed([text for _, text in read])
    for (message, _), vector in zip(read, vectors, strict=True):
        message.embedding_e5 = vector
    return len(read)


def store(episode: Episode, data: Embedded) -> PhaseOutcome:
    now = timezone.now()
    second = ["embedding_e5"] if e5.enabled() else []
    rows_update(data.messages, ["embedding", "passage_count", "filler", *second])
    Passage.objects.filter(episode=episode).delete()  # a retried phase writes them again, once
    Passage.objects.bulk_create(data.passages)
    rows_update(data.memories, ["embedding"])
    indexed = Memory.objects.filter(episode=episode, indexed_at__isnull=True).update(indexed_at=now)
    return PhaseOutcome(
        episode_fields={"summary_embedding": data.summary, "indexed_at": now},
        counts={
            "messages_embedded": sum(1 for message in data.messages if message.embedding is not None),
            "filler": sum(1 for message in data.messages if message.filler),
            "passages": len(data.passages),
            "memories_indexed": indexed,
        },
    )
