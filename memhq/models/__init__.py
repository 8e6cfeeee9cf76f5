from memhq.models.control import ConsolidationCursor, ConsolidationStep, ErasureReceipt
from memhq.models.entities import Entity
from memhq.models.episodes import (
    Candidate,
    Episode,
    EpisodeErrorKind,
    EpisodeMessage,
    EpisodePhase,
    EpisodeStatus,
)
from memhq.models.journal import Batch, BatchKind, JournalEntry
from memhq.models.memories import Evidence, Memory, MemoryKind, MemoryOrigin, MemoryStatus
from memhq.models.passages import Passage
from memhq.models.tenancy import ApiKey, Project
from memhq.models.threads import Thread, ThreadMessage, ThreadStatus
from memhq.models.webhooks import DeliveryStatus, WebhookDelivery, WebhookEndpoint, WebhookEvent
from memhq.models.workers import WorkerHeartbeat

__all__ = [
    "ApiKey",
    "Batch",
    "BatchKind",
    "Candidate",
    "ConsolidationCursor",
    "ConsolidationStep",
    "DeliveryStatus",
    "Entity",
    "Episode",
    "EpisodeMessage",
    "EpisodeErrorKind",
    "EpisodePhase",
    "EpisodeStatus",
    "ErasureReceipt",
    "Evidence",
    "JournalEntry",
    "Memory",
    "MemoryKind",
    "MemoryOrigin",
    "MemoryStatus",
    "Passage",
    "Project",
    "Thread",
    "ThreadMessage",
    "ThreadStatus",
    "WebhookDelivery",
    "WebhookEndpoint",
    "WebhookEvent",
    "WorkerHeartbeat",
]
