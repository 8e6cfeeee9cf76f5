"""A synthetic user built the way the pipeline builds one, for the recall benchmark (labelled as such).

For ``memories`` memories the user gets, in the ratios a long-lived user of the one-person-and-an-agent
shape has (issue 17): 3 episode messages per memory in episodes of 30 (each episode with its summary and
summary vector), one message in 20 long and cut into passages as the index phase cuts them, one entity per 20
memories (with an alias
each), and one evidence row per memory pointing at the message it came from. Memories name one or two of
the entities, so the entity signal has edges to follow.

Texts are template sentences over a shared vocabulary (so full-text terms match a realistic share of rows);
vectors are a few thousand of those sentences embedded for real, plus small random perturbations, so each
table holds clusters of near-duplicates. Deterministic (seeded). HNSW indexes are dropped during the bulk
insert and rebuilt afterwards exactly as the migrations define them (``pg_indexes``), as a restore would.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import random
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import numpy as np
from django.db import connection
from django.utils import timezone

from ingestion.phases.index import passages_of
from memhq.ai import e5
from memhq.ai.provider import get_embedder
from memhq.models import (
    Entity,
    Episode,
    EpisodeMessage,
    EpisodePhase,
    EpisodeStatus,
    Evidence,
    Memory,
    Passage,
)
from tooling.bench.recall_data import OBJECTS, SEED, VECTOR_NOISE, VERBS

MESSAGES_PER_MEMORY = 3
MESSAGES_PER_EPISODE = 30
MEMORIES_PER_ENTITY = 20
LONG_EVERY = 20  # one message in 20 is long: cut into passages by the index phase's splitter
BASE_TEXTS = 1500
INSERT_BATCH = 2000
SPAN = timedelta(days=730)  # the user's history: two years
EPOCH = datetime(2024, 1, 1, tzinfo=UTC)
BUILD_MEMORY = "1GB"  # maintenance_work_mem while the HNSW indexes are rebuilt
VECTOR_TABLES = ("memhq_memory", "memhq_episodemessage", "memhq_passage", "memhq_entity", "memhq_episode")

FIRST_NAMES = (
    "Ana", "Tom", "Sam", "Lee", "Maya", "Omar", "Ines", "Jon", "Priya", "Kenji", "Lars", "Zoe", "Ravi",
    "Elena", "Marco", "Yuki", "Nora", "Felix", "Aisha", "Hugo", "Lena", "Diego", "Sara", "Ivan", "Mei",
)  # fmt: skip
LAST_NAMES = (
    "Silva", "Berg", "Khan", "Novak", "Rossi", "Tanaka", "Dubois", "Meyer", "Costa", "Larsen", "Singh",
    "Moreau", "Okafor", "Lindqvist", "Haddad", "Ferreira", "Kowalski", "Nakamura", "Varga", "Ahmed",
)  # fmt: skip
NAMES = [f"{first} {last}" for first, last in itertools.product(FIRST_NAMES, LAST_NAMES)]
USER_TURNS = (
    "I {verb} {obj} and I think about it a lot lately.",
    "Quick question about {obj}: my friend {name} {verb} it too.",
    "Last week I told {name} that I {verb} {obj}.",
    "Can you help me plan something around {obj}? {name} will join.",
)
ASSISTANT_TURNS = (
    "Good to know that you {verb} {obj}. Here is a short plan with three steps.",
    "Since {name} is involved, {obj} could work well; shall I list options?",
    "Noted about {obj}. I can remind you next week if you like.",
)
LONG_TAIL = (
    " Step one is to check the schedule and the budget. Step two is to compare a few options and keep"
    " notes about each of them. Step three is to decide together and book early, since prices go up."
) * 8  # ~600 tokens: long enough for the passage splitter to cut


@dataclass(frozen=True)
class Shape:
    memories: int

    @property
    def messages(self) -> int:
        return self.memories * MESSAGES_PER_MEMORY

    @property
    def episodes(self) -> int:
        return max(1, -(-self.messages // MESSAGES_PER_EPISODE))

    @property
    def entities(self) -> int:
        return max(2, self.memories // MEMORIES_PER_ENTITY)


def _texts(rng: random.Random, count: int) -> list[str]:
    templates = USER_TURNS + ASSISTANT_TURNS
    return [
        rng.choice(templates).format(verb=rng.choice(VERBS), obj=rng.choice(OBJECTS), name=rng.choice(NAMES))
        for _ in range(count)
    ]


class Vectors:
    """Real vectors of ``BASE_TEXTS`` template texts; ``near(i)`` is text i's vector, perturbed (and
    ``near_second(i)`` its second embedder's vector, when that is on)."""

    def __init__(self, texts: list[str], seed: int) -> None:
        self.texts = texts
        self.base, self.second = _embedded(tuple(texts), e5.enabled())
        self.rng = np.random.default_rng(seed)

    def near(self, index: int) -> np.ndarray:
        return self._perturbed(self.base, index)

    def near_second(self, index: int) -> np.ndarray | None:
        return None if self.second is None else self._perturbed(self.second, index)

    def _perturbed(self, base: np.ndarray, index: int) -> np.ndarray:
        noise = np.asarray(self.rng.normal(0.0, VECTOR_NOISE, size=base.shape[1]), dtype=np.float32)
        vector = base[index % len(base)] + noise
        return vector / np.linalg.norm(vector)


@functools.cache
def _embedded(texts: tuple[str, ...], second: bool) -> tuple[np.ndarray, np.ndarray | None]:
    """The texts' vectors, and their second embedder's (once per process: tests build several users)."""
    return get_embedder().embed(list(texts)), e5.get_e5_embedder().embed(list(texts)) if second else None


def _batched(rows: Iterator[object], size: int = INSERT_BATCH) -> Iterator[list[object]]:
    batch: list[object] = []
    for row in rows:
        batch.append(row)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def build_user(project_id: uuid.UUID, user_id: str, shape: Shape, vectors: Vectors, seed: int) -> None:
    """Insert one synthetic user of ``shape`` (see the module docstring)."""
    rng = random.Random(seed)
    now = timezone.now()
    texts = vectors.texts
    episodes = [
        Episode(
            project_id=project_id,
            user_id=user_id,
            raw_body=b"{}",
            content_hash=hashlib.sha256(f"{user_id}/{seed}/{n}".encode()).hexdigest(),
            received_at=EPOCH + SPAN * n / shape.episodes,
            status=EpisodeStatus.COMPLETED,
            phase_done=EpisodePhase.NOTIFY,
            publish_from=None,
            summary=" ".join(texts[(n * 7 + k) % len(texts)] for k in range(3)),
            summary_embedding=vectors.near(n * 7),
            completed_at=now,
            indexed_at=now,
        )
        for n in range(shape.episodes)
    ]
    Episode.objects.bulk_create(episodes, batch_size=INSERT_BATCH)

    def messages() -> Iterator[EpisodeMessage]:
        for n in range(shape.messages):
            episode = episodes[n // MESSAGES_PER_EPISODE]
            base = rng.randrange(len(texts))
            long = n % LONG_EVERY == LONG_EVERY - 1
            role = "user" if n % 2 == 0 else "assistant"
            yield EpisodeMessage(
                episode=episode,
                project_id=project_id,
                user_id=user_id,
                index=n % MESSAGES_PER_EPISODE,
                role=role,
                content=texts[base] + (LONG_TAIL if long else ""),
                document_date=episode.received_at,
                embedding=vectors.near(base),
                embedding_e5=vectors.near_second(base) if e5.reads(role) else None,
                passage_count=1 if long else 0,  # the cut (_passages) sets how many
            )

    for batch in _batched(messages()):
        rows: list[EpisodeMessage] = batch  # type: ignore[assignment]
        passages = _passages(rows, vectors, rng)  # before the insert: it sets each message's passage_count
        EpisodeMessage.objects.bulk_create(rows)
        Passage.objects.bulk_create(passages)  # their messages have their ids now

    # Numbered after the user's existing entities, so a user can be grown in steps (names are unique).
    first = Entity.objects.filter(project_id=project_id, user_id=user_id).count()
    entities = [_entity(project_id, user_id, first + n, vectors) for n in range(shape.entities)]
    Entity.objects.bulk_create(entities, batch_size=INSERT_BATCH)

    def memories() -> Iterator[tuple[Memory, int]]:
        for n in range(shape.memories):
            message = n * MESSAGES_PER_MEMORY
            episode = episodes[message // MESSAGES_PER_EPISODE]
            base = rng.randrange(len(texts))
            named = rng.sample(entities, k=min(len(entities), 1 + n % 2))
            yield (
                Memory(
                    project_id=project_id,
                    user_id=user_id,
                    text=f"User {texts[base][2:] if texts[base].startswith('I ') else texts[base]}",
                    kind="fact" if n % 4 else "preference",
                    subject="user",
                    predicate=rng.choice(VERBS).replace(" ", "_"),
                    object_value=rng.choice(OBJECTS),
                    subject_entity_id=None,
                    object_entity_id=named[0].pk,
                    entity_ids=[entity.pk for entity in named],
                    confidence=0.6 + 0.4 * rng.random(),
                    importance=rng.random(),
                    valid_from=episode.received_at,
                    recorded_at=now,
                    last_seen_at=episode.received_at,
                    embedding=vectors.near(base),
                    indexed_at=now,
                    episode=episode,
                ),
                message % MESSAGES_PER_EPISODE,
            )

    for batch in _batched(memories()):
        pairs: list[tuple[Memory, int]] = batch  # type: ignore[assignment]
        created_memories = Memory.objects.bulk_create([memory for memory, _ in pairs])
        Evidence.objects.bulk_create(
            Evidence(memory=memory, episode=memory.episode, message_indexes=[index], quote=memory.text[:80])
            for memory, (_, index) in zip(created_memories, pairs, strict=True)
        )


def _entity(project_id: uuid.UUID, user_id: str, number: int, vectors: Vectors) -> Entity:
    person = NAMES[number % len(NAMES)]
    name = f"{person} {number // len(NAMES) or ''}".strip()
    first_name = person.split()[0]
    return Entity(
        project_id=project_id,
        user_id=user_id,
        name=name,
        normalized_name=name.casefold(),
        type="person" if number % 3 else "organization",
        aliases=[first_name],
        normalized_aliases=[first_name.casefold()],
        embedding=vectors.near(number),
        mention_count=1 + number % 7,
    )


def _passages(messages: list[EpisodeMessage], vectors: Vectors, rng: random.Random) -> list[Passage]:
    """The long messages cut as the index phase cuts them (``passages_of``); the passages it embeds get a
    vector, the rest none (found by full text only), as in the pipeline."""
    passages = []
    for message in messages:
        if not message.passage_count:
            continue
        for passage, embedded in passages_of(message, None):
            if embedded is not None:
                passage.embedding = vectors.near(rng.randrange(len(vectors.texts)))
            passages.append(passage)
    return passages


class VectorIndexesDropped:
    """Drops the HNSW indexes of the vector tables for a bulk insert and rebuilds them from their saved
    definitions on exit (building once is far cheaper than maintaining the graph row by row)."""

    def __enter__(self) -> VectorIndexesDropped:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = ANY(%s) AND indexdef ILIKE %s",
                [list(VECTOR_TABLES), "%USING hnsw%"],
            )
            self.definitions = cursor.fetchall()
            for name, _ in self.definitions:
                cursor.execute(f'DROP INDEX IF EXISTS "{name}"')
        return self

    def __exit__(self, *exc: object) -> None:
        with connection.cursor() as cursor:
            # pgvector builds far faster when the graph fits in memory (its docs' advice for bulk loads).
            cursor.execute(f"SET maintenance_work_mem = '{BUILD_MEMORY}'")
            for _, definition in self.definitions:
                cursor.execute(definition)
            cursor.execute("RESET maintenance_work_mem")


def vectors_for(seed: int = SEED) -> Vectors:
    return Vectors(_texts(random.Random(seed), BASE_TEXTS), seed)
