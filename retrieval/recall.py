"""``recall``: what MemHQ knows that is relevant to a message, bounded and time-aware (DESIGN §5).

1. Embed the query once. 2. One SQL round trip runs every signal (retrieval/signals/), each bounded.
3. Fusion (``retrieval.fusion``): per-signal normalised, weighted votes, nudged by importance,
   reinforcement and recency relative to ``as_of`` (``retrieval.rerank``), added up per stored message and
   spread to the best messages' neighbours; items standing for messages a better item carries are dropped.
4. Keep ≤ ``limit`` items whose rendered context fits ``max_tokens``.
5. If anything fails, fall back to the latest live memories and say ``degraded``.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from datetime import datetime

from django.db import DatabaseError
from django.utils import timezone

from memhq.models import Memory, MemoryStatus
from memhq.ops import metrics
from memhq.replicas import routing
from memhq.services.transactions import savepoint_if_in_transaction
from retrieval import config as retrieval_config
from retrieval import query
from retrieval.config import RetrievalConfig
from retrieval.dense_query import dense_text
from retrieval.fusion import Hit, dedupe, raise_instruction, spread, vote
from retrieval.items import Item, item_from_row, row_key
from retrieval.query_vectors import query_vectors
from retrieval.render import fit
from retrieval.rerank import ordered, rerank

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
        return assemble(
            rows, as_of=as_of, limit=limit, max_tokens=max_tokens, kinds=kinds, query_text=query_text
        )
    except Exception as exc:  # any failure of a signal: degrade, never error (DESIGN §5.5)
        if routing.on_replica() and isinstance(exc, DatabaseError):
            raise  # the replica failed: routing.read runs it again on the primary
        logger.exception("recall failed for project %s; answering degraded", project_id)
        return degraded(project_id=project_id, user_id=user_id, as_of=as_of, max_tokens=max_tokens)


def fetch(
    *,
    project_id: uuid.UUID,
    user_id: str,
    query_text: str,
    as_of: datetime,
    history: bool,
    config: RetrievalConfig | None = None,
) -> list[dict[str, object]]:
    """Embed the query once per model (without the people it names: see dense_query; the two models side by
    side: see query_vectors) and run every signal in one SQL round trip."""
    config = config or retrieval_config.current()
    with savepoint_if_in_transaction():
        vector, second = query_vectors(dense_text(project_id, user_id, query_text, config))
        context = query.QueryContext(project_id, user_id, query_text, vector, as_of, history, second)
        return query.run(context)


def assemble(
    rows: list[dict[str, object]],
    *,
    as_of: datetime,
    limit: int,
    max_tokens: int,
    kinds: list[str] | None,
    query_text: str = "",
    config: RetrievalConfig | None = None,
) -> RecallResult:
    """Fuse the signals' rows (``config``: ``retrieval.config.current()`` unless given) and fit the best
    items."""
    processed_through = rows[0]["processed_through"] if rows else None
    items: dict[str, Item] = {}
    hits: list[Hit] = []
    for row in rows:
        if row["signal"] is None:
            continue
        key = row_key(row)
        item = items.get(key)
        if item is None:
            item = items[key] = item_from_row(row)
        signal = str(row["signal"])
        item.ranks.setdefault(signal, int(row["rank"]))  # type: ignore[call-overload]
        hits.append(_hit(row, key))
    config = config or retrieval_config.current()
    voted = vote(items, hits, config)
    candidates = {
        key: item
        for key, item in voted.items()
        if (kinds is None or (item.type == "memory" and item.kind in kinds))
        and not (item.filler and config.filler_weight <= 0)
    }
    scored = spread(rerank(candidates, as_of, config), query_text, config)
    ranked = raise_instruction(ordered(list(scored.values())), hits, config)
    best = relevant(dedupe(ranked, limit), config.min_relative_score)
    kept, context, tokens = fit(best[:limit], max_tokens, as_of)
    return RecallResult(
        items=kept,
        context=context,
        context_tokens=tokens,
        processed_through=processed_through,  # type: ignore[arg-type]
    )


def relevant(ranked: list[Item], share: float) -> list[Item]:
    """``ranked`` without the items scoring below ``share`` of the best one."""
    if not ranked or share <= 0:
        return ranked
    floor = share * ranked[0].score
    return [item for item in ranked if item.score >= floor]


def _hit(row: dict[str, object], key: str) -> Hit:
    score = row.get("score")
    return Hit(
        signal=str(row["signal"]),
        key=key,
        score=float(score) if isinstance(score, int | float) else None,
        rank=int(row["rank"]),  # type: ignore[call-overload]
    )


def degraded(*, project_id: uuid.UUID, user_id: str, as_of: datetime, max_tokens: int) -> RecallResult:
    metrics.RECALL_DEGRADED.inc()
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
    kept, context, tokens = fit(items, max_tokens, as_of)
    return RecallResult(
        items=kept, context=context, context_tokens=tokens, processed_through=None, degraded=True
    )
