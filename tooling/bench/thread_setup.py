"""Data for ``memhq_bench thread``: one thread per client, prefilled like a chat in progress; and cleanup.

Each thread gets ``PREFILL_MESSAGES`` messages and a summary covering the oldest ``SUMMARISED`` of them, so
prepare returns a system message and 20 messages like a real conversation after compaction. The first bench
user also gets memories (embedded with the configured embedder) so prepare-and-recall has something to find.
Afterwards the threads, the memories, the compaction tasks the load queued, and the bench project (if the
benchmark made it) are removed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from django.db.models import Q
from django.utils import timezone

from memhq.ai.provider import get_embedder
from memhq.ai.tokens import count_tokens
from memhq.models import Memory, Project, Thread, ThreadMessage
from tooling.bench.cleanup import purge_messages
from tooling.bench.episode import CONVERSATION

USER_PREFIX = "bench-thread-user-"
KEY_PREFIX = "bench-thread-"
PREFILL_MESSAGES = 30
SUMMARISED = 10
SUMMARY = (
    "User: I'm planning a trip to Lisbon with my partner Ana at the end of May.\n"
    "User: Ana is vegetarian and I can't eat shellfish.\n"
    "Assistant: Ao 26 and Prado are good fits for both."
)
MEMORIES = [
    "User lives in Munich.",
    "User works at Siemens since March.",
    "User's partner is Ana.",
    "Ana is vegetarian.",
    "User cannot eat shellfish.",
    "User prefers aisle seats.",
    "User prefers trains over domestic flights.",
    "User plans a trip to Lisbon at the end of May.",
    "User stayed in Alfama on a previous visit to Lisbon.",
    "User loves fado bars.",
] * 4


@dataclass(frozen=True)
class BenchThreads:
    keys: list[str]
    user_ids: list[str]


def user_id(index: int) -> str:
    return f"{USER_PREFIX}{index:03d}"


def make_threads(project: Project, clients: int) -> BenchThreads:
    stamp = datetime.now(tz=UTC).strftime("%Y%m%dT%H%M%S%f")
    now = timezone.now()
    keys = [f"{KEY_PREFIX}{stamp}-{index:03d}" for index in range(clients)]
    users = [user_id(index) for index in range(clients)]
    turns = [CONVERSATION[seq % len(CONVERSATION)] for seq in range(PREFILL_MESSAGES)]
    tokens = [count_tokens(content) for _, content in turns]
    threads = Thread.objects.bulk_create(
        [
            Thread(
                project=project,
                user_id=user,
                key=key,
                message_count=PREFILL_MESSAGES,
                summary=SUMMARY,
                summary_through_seq=SUMMARISED,
                unsummarized_tokens=sum(tokens[SUMMARISED:]),
                last_activity_at=now,
            )
            for key, user in zip(keys, users, strict=True)
        ]
    )
    ThreadMessage.objects.bulk_create(
        [
            ThreadMessage(thread=thread, seq=seq + 1, role=role, content=content, tokens=tokens[seq])
            for thread in threads
            for seq, (role, content) in enumerate(turns)
        ]
    )
    return BenchThreads(keys=keys, user_ids=users)


def make_memories(project: Project, user: str) -> None:
    now = timezone.now()
    vectors = get_embedder().embed(MEMORIES)
    Memory.objects.bulk_create(
        Memory(
            project=project,
            user_id=user,
            text=text,
            kind="fact",
            subject="user",
            predicate="states",
            object_value=text,
            confidence=0.9,
            importance=0.5,
            valid_from=now,
            recorded_at=now,
            last_seen_at=now,
            embedding=vector,
            indexed_at=now,
        )
        for text, vector in zip(MEMORIES, vectors, strict=True)
    )


def clean_up(project_id: str, created: bool) -> dict[str, int | bool]:
    """Remove the bench's threads (messages cascade), memories and queued compactions; the project if ours."""
    threads = Thread.objects.filter(project_id=project_id, key__startswith=KEY_PREFIX)
    removed = purge_messages([str(pk) for pk in threads.values_list("pk", flat=True)])
    thread_count = threads.count()
    if created:
        Project.objects.filter(pk=project_id).delete()
    else:
        threads.delete()
        Memory.objects.filter(Q(project_id=project_id) & Q(user_id__startswith=USER_PREFIX)).delete()
    return {"threads_deleted": thread_count, "messages_removed": removed, "project_deleted": created}
