"""memhq-client: a typed Python client for MemHQ (sync ``MemHQ`` and async ``AsyncMemHQ``).

from memhq_client import MemHQ
memory = MemHQ()                       # MEMHQ_URL (default http://127.0.0.1:8000) and MEMHQ_KEY
memory.add("alice", [{"role": "user", "content": "I moved to Lisbon."}])
memory.recall("alice", "Where do I live?")["context"]
"""

from memhq_client._async_methods import AsyncMethods
from memhq_client._base import EpisodeFailed
from memhq_client._sync_methods import SyncMethods
from memhq_client.errors import (
    APIError,
    AuthenticationError,
    ConflictError,
    MemHQConnectionError,
    MemHQError,
    NotFoundError,
    RateLimitError,
    ServerError,
    ValidationError,
)
from memhq_client.webhooks import WebhookVerificationError, verify_webhook


class MemHQ(SyncMethods):
    """The synchronous client. Use as a context manager, or call ``close()``."""


class AsyncMemHQ(AsyncMethods):
    """The asynchronous client. Use as ``async with``, or call ``await aclose()``."""


__all__ = [
    "APIError",
    "AsyncMemHQ",
    "AuthenticationError",
    "ConflictError",
    "EpisodeFailed",
    "MemHQ",
    "MemHQConnectionError",
    "MemHQError",
    "NotFoundError",
    "RateLimitError",
    "ServerError",
    "ValidationError",
    "WebhookVerificationError",
    "verify_webhook",
]
