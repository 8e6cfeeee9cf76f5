"""Synthetic memories for the recall benchmark (labelled as such): a few thousand template sentences,
embedded for real, then multiplied by small random perturbations of their vectors so the table holds
clusters of near-duplicates the way a long-lived user's memory does. Deterministic (seeded)."""

from __future__ import annotations

import itertools
import random
import uuid
from datetime import UTC, datetime

import numpy as np
from django.utils import timezone

from memhq.ai.provider import get_embedder
from memhq.models import Memory

SEED = 20261129
BASE_SENTENCES = 2000
VECTOR_NOISE = 0.04
INSERT_BATCH = 2000
SYNTHETIC_EPOCH = datetime(2020, 1, 1, tzinfo=UTC)

SUBJECTS = ("User", "User's sister Ana", "User's colleague Tom", "User's partner Sam", "User's friend Lee")
VERBS = ("likes", "visited", "is learning", "bought", "wants to try", "recommended", "is allergic to", "owns")
OBJECTS = (
    "Italian food", "the Alps", "Spanish", "a road bike", "sushi", "Lisbon", "jazz records",
    "a sourdough starter", "rock climbing", "Kyoto", "chess", "a vintage camera", "peanuts",
    "a standing desk", "Norwegian", "yoga",
    "Breaking Bad", "a Tesla Model 3", "the Louvre", "salsa dancing", "oat milk", "a golden retriever",
    "Python", "marathon training", "Iceland", "board games", "a piano", "the Berlin Philharmonic", "tennis",
)  # fmt: skip
QUERIES = (
    "What food does the user like?", "Where has the user travelled?", "What languages is the user learning?",
    "Does the user have any allergies?", "What sports does the user do?", "What does Ana like?",
    "What did Tom recommend?", "anything good on Netflix tonight?", "Which pets are around?",
    "What music is the user into?", "gift ideas for Sam", "Where should we go on holiday?",
)  # fmt: skip


def base_sentences(count: int) -> list[str]:
    combos = list(itertools.product(SUBJECTS, VERBS, OBJECTS))
    random.Random(SEED).shuffle(combos)
    return [f"{subject} {verb} {obj}." for subject, verb, obj in combos[:count]]


def insert_memories(project_id: uuid.UUID, user_id: str, start: int, stop: int) -> None:
    """Insert synthetic memories number ``start`` … ``stop - 1`` for the user."""
    texts = base_sentences(BASE_SENTENCES)
    vectors = get_embedder().embed(texts)
    rng = np.random.default_rng(SEED + start)
    now = timezone.now()
    for first in range(start, stop, INSERT_BATCH):
        batch = range(first, min(first + INSERT_BATCH, stop))
        rows = []
        for number in batch:
            base = number % len(texts)
            noise = np.asarray(rng.normal(0.0, VECTOR_NOISE, size=vectors.shape[1]), dtype=np.float32)
            vector = vectors[base] + noise
            rows.append(
                Memory(
                    project_id=project_id,
                    user_id=user_id,
                    text=f"{texts[base][:-1]} (synthetic #{number}).",
                    kind="fact",
                    subject="user",
                    predicate="synthetic",
                    object_value=str(number),
                    confidence=0.9,
                    importance=0.5,
                    valid_from=SYNTHETIC_EPOCH,
                    recorded_at=now,
                    last_seen_at=now,
                    embedding=vector / np.linalg.norm(vector),
                    indexed_at=now,
                )
            )
        Memory.objects.bulk_create(rows)
