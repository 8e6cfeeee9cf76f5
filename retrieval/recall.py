"""``recall``: what MemHQ knows that is relevant to a message, bounded and time-aware (DESIGN §5).

1. Embed the query once. 2. One SQL round trip runs every signal (retrieval/signals/), each bounded.
3. Reciprocal Rank Fusion, then a rerank by importance, reinforcement and recency relative to ``as_of``.
4. Keep ≤ ``limit`` items whose rendered context fits ``max_tokens``.
5. If anything fails, fall back to the latest live memories and say ``degraded``.
"""

from __future__ import annotations

import logging
import uuid
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.utils import timezone

from memhq.ai.provider import get_embedder
from memhq.models import Memory, MemoryStatus
from memhq.services.transactions import savepoint_if_in_transaction
from retrieval import query
from retrieval.fusion import rrf
from retrieval.items import Item
from retrieval.render import fit
from retrieval.rerank import rerank

logger = logging.getLogger(__name__)

DEFAULT_LIMIT = 20
MAX_LIMIT = 50
DEFAULT_MAX_TOKENS = 2000
DEGRADED_LIMIT = 20


@dataclass
class RecallResult:
    items: list[Item]
    context: str
    context_tokens: int
    processed_through: datetime | None
    degraded: bool = False

    @property
    def fact_count(self) -> int:
        return sum(1 for item in self.items if item.type == "memory")


def recall(
    *,
    project_id: uuid.UUID,
    user_id: str,
    query_text: str,
    as_of: datetime | None = None,
    limit: int = DEFAULT_LIMIT,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    include_history: bool = False,
    kinds: list[str] | None = None,
) -> RecallResult:
    as_of = as_of or timezone.now()
    try:
        rows = fetch(
            project_id=project_id,
            user_id=user_id,
            query_text=query_text,
            as_of=as_of,
            history=include_history,
        )
        return assemble(rows, as_of=as_of, limit=limit, max_tokens=max_tokens, kinds=kinds)
    except Exception:  # any failure of a signal: degrade, never error (DESIGN §5.5)
        logger.exception("recall failed for project %s; answering degraded", project_id)
        return degraded(project_id=project_id, user_id=user_id, as_of=as_of, max_tokens=max_tokens)


def fetch(
    *, project_id: uuid.UUID, user_id: str, query_text: str, as_of: datetime, history: bool
) -> list[dict[str, object]]:
    """Embed the query once and run every signal in one SQL round trip."""
    vector = get_embedder().embed([query_text])[0]
    context = query.QueryContext(project_id, user_id, query_text, vector, as_of, history)
    with savepoint_if_in_transaction():
        return query.run(context)


def assemble(
    rows: list[dict[str, object]], *, as_of: datetime, limit: int, max_tokens: int, kinds: list[str] | None
) -> RecallResult:
    from retrieval.items import item_from_row

    processed_through = rows[0]["processed_through"] if rows else None
    items: dict[str, Item] = {}
    ranked: dict[str, list[str]] = defaultdict(list)
    for row in rows:
        if row["signal"] is None:
            continue
        item = items.setdefault(_key(row), item_from_row(row))
        signal = str(row["signal"])
        item.ranks.setdefault(signal, int(row["rank"]))  # type: ignore[call-overload]
        ranked[signal].append(item.key)
    candidates = [
        item for item in items.values() if kinds is None or (item.type == "memory" and item.kind in kinds)
    ]
    fused = rrf(ranked, k=settings.MEMHQ_RRF_K, weights=settings.MEMHQ_SIGNAL_WEIGHTS)
    ordered = rerank(candidates, fused, as_of)
    kept, context, tokens = fit(ordered[:limit], max_tokens)
    return RecallResult(
        items=kept,
        context=context,
        context_tokens=tokens,
        processed_through=processed_through,  # type: ignore[arg-type]
    )


def _key(row: dict[str, object]) -> str:
    if row["memory_id"] is not None:
        return f"memory:{row['memory_id']}"
    if row["message_id"] is not None:
        return f"message:{row['message_id']}"
    if row["summary_episode_id"] is not None:
        return f"summary:{row['summary_episode_id']}"
    return f"raw:{row['raw_episode_id']}:{row['raw_index']}"


def degraded(*, project_id: uuid.UUID, user_id: str, as_of: datetime, max_tokens: int) -> RecallResult:
    memories = (
        Memory.objects.filter(project_id=project_id, user_id=user_id, status=MemoryStatus.ACTIVE)
        .defer("embedding")
        .order_by("-last_seen_at")[:DEGRADED_LIMIT]
    )
    items = [
        Item(
            key=f"memory:{memory.pk}",
            id=str(memory.pk),
            type="memory",
            text=memory.text,
            anchor=memory.subject,
            kind=memory.kind,
            status=memory.status,
            valid_from=memory.valid_from,
            valid_until=memory.valid_until,
            importance=memory.importance,
            when=memory.valid_from,
        )
        for memory in memories
    ]
    kept, context, tokens = fit(items, max_tokens)
    return RecallResult(
        items=kept, context=context, context_tokens=tokens, processed_through=None, degraded=True
    )
