"""``prepare``: a thread's working memory, ready to spread into a chat completion (DESIGN §5). Pure SQL.

ONE round trip: the thread row (found by the caller's thread id, within the project) LEFT JOIN LATERAL its
newest ``message_limit`` messages not covered by the summary (backwards on the unique (thread, seq) index),
returned oldest first. The summary, when there is one, comes first as a ``system`` message. No model call.
Messages already folded into the summary are not repeated; if compaction is behind, the oldest uncovered
messages beyond the limit are simply not shown (compaction exists to keep that set small).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from django.db import connections

from memhq.replicas import routing

SUMMARY_PREFIX = "Summary of earlier turns: "
DEFAULT_MESSAGE_LIMIT = 20
MAX_MESSAGE_LIMIT = 200

PREPARE_SQL = """
SELECT t.id, t.user_id, t.temporary, t.summary, m.role, m.name, m.content
FROM memhq_thread t
LEFT JOIN LATERAL (
    SELECT role, name, content, seq FROM memhq_threadmessage
    WHERE thread_id = t.id AND seq > t.summary_through_seq
    ORDER BY seq DESC
    LIMIT %s
) m ON true
WHERE t.project_id = %s AND t."key" = %s
ORDER BY m.seq
"""


@dataclass(frozen=True)
class Prepared:
    thread_id: uuid.UUID
    user_id: str
    temporary: bool
    messages: list[dict[str, str]] = field(default_factory=list)


def chat_message(role: str, content: str, name: str = "") -> dict[str, str]:
    """A chat-completion message; ``name`` only when there is one (OpenAI rejects an empty name)."""
    return {"role": role, "content": content, "name": name} if name else {"role": role, "content": content}


def prepare(
    *, project_id: uuid.UUID, thread_key: str, message_limit: int = DEFAULT_MESSAGE_LIMIT
) -> Prepared | None:
    """The summary (as a system message) and the newest messages, oldest first; None if no such thread."""
    with connections[routing.current()].cursor() as cursor:
        cursor.execute(PREPARE_SQL, [message_limit, project_id, thread_key])
        rows = cursor.fetchall()
    if not rows:
        return None
    thread_id, user_id, temporary, summary = rows[0][:4]
    messages = [chat_message("system", SUMMARY_PREFIX + summary)] if summary else []
    messages += [chat_message(role, content, name) for *_, role, name, content in rows if role is not None]
    return Prepared(thread_id=thread_id, user_id=user_id, temporary=temporary, messages=messages)
