"""Typed shapes of the API's requests and answers (``TypedDict``s: the answers are plain JSON dicts).

Each answer type is named after its component in the server's OpenAPI schema (``/v1/memhq/openapi.json``);
the test suite checks every key here against that schema (and that every key the schema requires is here).
They are ``total=False`` because a newer server may add fields and some are absent on some answers.
"""

from __future__ import annotations

from typing import Any, Generic, Literal, TypedDict, TypeVar

T = TypeVar("T")

Role = Literal["user", "assistant", "system", "tool"]
MemoryKind = Literal["fact", "preference", "decision", "relationship", "event"]


class Message(TypedDict, total=False):
    """One turn sent to /add or a thread: ``role`` and ``content`` are required."""

    role: Role
    content: str
    name: str
    timestamp: str
    id: str


class Page(TypedDict, Generic[T]):
    """One page of a list (newest first); ``next`` is the URL of the next page, or None."""

    next: str | None
    previous: str | None
    results: list[T]


class AddResponse(TypedDict, total=False):
    episode_id: str
    status: str
    received_at: str


class Episode(TypedDict, total=False):
    id: str
    user_id: str
    thread_id: str | None
    status: Literal["queued", "running", "completed", "failed"]
    phase_done: int
    phase_done_name: str
    phase_running: int | None
    attempts: int
    error: str
    error_phase: int | None
    enqueued: bool
    timings_ms: dict[str, float]
    stats: dict[str, Any]
    summary: str
    received_at: str
    completed_at: str | None
    indexed_at: str | None


class Provenance(TypedDict, total=False):
    episode_ids: list[str]
    message_ids: list[str]


class RecallItem(TypedDict, total=False):
    id: str
    type: str
    text: str
    kind: str
    status: str
    valid_from: str | None
    valid_until: str | None
    score: float
    ranks: dict[str, int]
    provenance: Provenance


class RecallResponse(TypedDict, total=False):
    context: str
    context_tokens: int
    items: list[RecallItem]
    fact_count: int
    processed_through: str | None
    degraded: bool


class ChatMessage(TypedDict, total=False):
    role: str
    content: str
    name: str


class PrepareResponse(TypedDict, total=False):
    messages: list[ChatMessage]


class PrepareAndRecallResponse(TypedDict, total=False):
    messages: list[ChatMessage]
    recall: RecallResponse


class Thread(TypedDict, total=False):
    thread_id: str
    user_id: str
    temporary: bool
    status: Literal["open", "ended"]
    message_count: int
    pending_messages: int
    episode_due_at: str | None
    summary: str
    summary_through: int
    created_at: str
    last_activity_at: str
    ended_at: str | None
    episode_ids: list[str]


class ThreadEnd(Thread, total=False):
    new_episode_ids: list[str]


class MessageAdded(TypedDict, total=False):
    thread_id: str
    seq: int
    created_at: str
    episode_due_at: str | None


class Evidence(TypedDict, total=False):
    id: int
    episode: str | None
    message_indexes: list[int]
    message_ids: list[str]
    quote: str
    created_at: str


class Memory(TypedDict, total=False):
    id: str
    user_id: str
    text: str
    kind: str
    subject: str
    subject_entity: str | None
    predicate: str
    object: str
    object_entity: str | None
    entity_ids: list[str]
    confidence: float
    importance: float
    status: str
    valid_from: str | None
    valid_until: str | None
    recorded_at: str
    expired_at: str | None
    superseded_by: str | None
    reinforce_count: int
    last_seen_at: str
    origin: str
    episode: str | None
    indexed_at: str | None


class MemoryDetail(Memory, total=False):
    evidence: list[Evidence]
    supersedes: list[dict[str, Any]]
    superseded_by_chain: list[dict[str, Any]]


class MemoryChange(MemoryDetail, total=False):
    batch_id: str | None


class MemoryHistory(TypedDict, total=False):
    memory_id: str
    current_id: str
    versions: list[dict[str, Any]]
    events: list[dict[str, Any]]
    truncated: bool


class Graph(TypedDict, total=False):
    as_of: str
    nodes: list[dict[str, Any]]
    edges: list[dict[str, Any]]
    truncated: bool


class Entity(TypedDict, total=False):
    id: str
    user_id: str
    name: str
    type: str
    aliases: list[str]
    mention_count: int
    created_at: str
    updated_at: str


class EntityDetail(Entity, total=False):
    memories: list[Memory]


class Batch(TypedDict, total=False):
    id: str
    user_id: str
    kind: str
    episode: str | None
    actor: str
    note: str
    reverts: str | None
    created_at: str
    entry_count: int


class BatchDetail(Batch, total=False):
    reverted_by: list[str]
    entries: list[dict[str, Any]]


class Endpoint(TypedDict, total=False):
    id: str
    url: str
    description: str
    event_types: list[str]
    active: bool
    disabled_reason: str
    disabled_at: str | None
    previous_secret_expires_at: str | None
    created_at: str
    updated_at: str


class EndpointWithSecret(Endpoint, total=False):
    secret: str


class Delivery(TypedDict, total=False):
    id: str
    endpoint_id: str
    event_id: str
    event_type: str
    status: str
    attempts: int
    replay_count: int
    last_attempt_at: str | None
    last_status_code: int | None
    last_error: str
    next_attempt_at: str | None
    delivered_at: str | None
    created_at: str


#: Answer types and the schema components they mirror (checked by the test suite).
SCHEMA_COMPONENTS: dict[str, type] = {
    "AddResponse": AddResponse,
    "Episode": Episode,
    "Provenance": Provenance,
    "RecallItem": RecallItem,
    "RecallResponse": RecallResponse,
    "ChatMessage": ChatMessage,
    "PrepareResponse": PrepareResponse,
    "PrepareAndRecallResponse": PrepareAndRecallResponse,
    "Thread": Thread,
    "ThreadEnd": ThreadEnd,
    "MessageAdded": MessageAdded,
    "Evidence": Evidence,
    "Memory": Memory,
    "MemoryDetail": MemoryDetail,
    "MemoryChange": MemoryChange,
    "MemoryHistory": MemoryHistory,
    "Graph": Graph,
    "Entity": Entity,
    "EntityDetail": EntityDetail,
    "Batch": Batch,
    "BatchDetail": BatchDetail,
    "Endpoint": Endpoint,
    "EndpointWithSecret": EndpointWithSecret,
    "Delivery": Delivery,
    "MessageIn": Message,
}
