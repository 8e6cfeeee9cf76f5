"""Working memory: a running conversation whose messages become episodes after inactivity or on end.

Counters on the thread row make every hot-path decision a single-row read: ``message_count`` is the ``seq``
of the newest message, messages with ``seq <= episode_through_seq`` are already in an episode, and messages
with ``seq <= summary_through_seq`` are folded into ``summary`` (``unsummarized_tokens`` counts the rest).
"""

from __future__ import annotations

import uuid

from django.db import models
from django.utils import timezone

from memhq.models.episodes import Episode
from memhq.models.tenancy import Project


class ThreadStatus(models.TextChoices):
    OPEN = "open"
    ENDED = "ended"


class Thread(models.Model):
    """A conversation of one user. ``key`` is the caller's own thread id (unique per project)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="threads")
    user_id = models.CharField(max_length=200)
    key = models.CharField(max_length=200)
    temporary = models.BooleanField(default=False)
    status = models.CharField(max_length=8, choices=ThreadStatus.choices, default=ThreadStatus.OPEN)
    created_at = models.DateTimeField(default=timezone.now)
    last_activity_at = models.DateTimeField(default=timezone.now)
    ended_at = models.DateTimeField(null=True, blank=True)
    message_count = models.PositiveIntegerField(default=0)
    # Pending messages (seq > episode_through_seq) become an episode at this time; null when none pend.
    episode_through_seq = models.PositiveIntegerField(default=0)
    episode_due_at = models.DateTimeField(null=True, blank=True)
    summary = models.TextField(blank=True, default="")
    summary_through_seq = models.PositiveIntegerField(default=0)
    summary_updated_at = models.DateTimeField(null=True, blank=True)
    unsummarized_tokens = models.PositiveIntegerField(default=0)
    compaction_requested_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["project", "key"], name="thread_key_per_project")]
        indexes = [
            models.Index(fields=["project", "user_id", "-created_at"], name="thread_user_recent"),
            models.Index(
                fields=["episode_due_at"],
                name="thread_episode_due",
                condition=models.Q(episode_due_at__isnull=False),
            ),
            models.Index(
                fields=["last_activity_at"],
                name="thread_temporary_open",
                condition=models.Q(temporary=True, status="open"),
            ),
            models.Index(
                fields=["compaction_requested_at"],
                name="thread_compaction_requested",
                condition=models.Q(compaction_requested_at__isnull=False),
            ),
        ]

    def __str__(self) -> str:
        return f"thread {self.key} ({self.user_id})"

    @property
    def pending_messages(self) -> int:
        """Messages waiting to become an episode (never any for a temporary thread)."""
        return 0 if self.temporary else self.message_count - self.episode_through_seq


class ThreadMessage(models.Model):
    """One turn of a thread, in ``seq`` order (1, 2, …). ``episode`` is set when it is cut into one."""

    thread = models.ForeignKey(Thread, on_delete=models.CASCADE, related_name="messages")
    seq = models.PositiveIntegerField()
    caller_id = models.CharField(max_length=200, blank=True, default="")
    role = models.CharField(max_length=16)
    name = models.CharField(max_length=200, blank=True, default="")
    content = models.TextField()
    timestamp = models.DateTimeField(null=True, blank=True)  # the caller's, if given
    created_at = models.DateTimeField(default=timezone.now)
    tokens = models.PositiveIntegerField(default=0)
    episode = models.ForeignKey(Episode, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["thread", "seq"], name="thread_message_seq")]

    def __str__(self) -> str:
        return f"{self.thread_id}#{self.seq}"
