from __future__ import annotations

import uuid

from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVector, SearchVectorField
from django.db import models
from django.db.models import Value
from pgvector.django import HnswIndex

from memhq.models.tenancy import Project
from memhq.models.vectors import VectorField

EMBEDDING_DIM = 384
FULL_TEXT_CONFIG = "english"


class EpisodeStatus(models.TextChoices):
    QUEUED = "queued"
    RUNNING = "running"
    COMPLETED = "completed"
    FAILED = "failed"


class EpisodeErrorKind(models.TextChoices):
    """Why a failed episode failed, as the task that failed it knew: a transient error (the database, the
    broker or a model server away, retried until the task gave up: worth retrying later) or a permanent
    one (a bug or bad data: retrying repeats it)."""

    TRANSIENT = "transient"
    PERMANENT = "permanent"


class EpisodePhase(models.IntegerChoices):
    """The seven phases in chain order; ``Episode.phase_done`` is the last one finished (0 = none)."""

    PERSIST = 1
    ANCHOR_DATES = 2
    EXTRACT = 3
    RESOLVE_ENTITIES = 4
    RECONCILE = 5
    INDEX = 6
    NOTIFY = 7


class Episode(models.Model):
    """One payload sent to /add (or cut from a thread). ``raw_body``: the request bytes, never changed."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="episodes")
    user_id = models.CharField(max_length=200)
    thread_key = models.CharField(max_length=200, blank=True, default="")
    thread = models.ForeignKey(
        "memhq.Thread", null=True, blank=True, on_delete=models.SET_NULL, related_name="episodes"
    )
    raw_body = models.BinaryField()
    content_hash = models.CharField(max_length=64)
    idempotency_key = models.CharField(max_length=200, null=True, blank=True)
    received_at = models.DateTimeField()
    # Columns /add leaves out of its INSERT carry database defaults too (``db_default``): the front door
    # writes the row in one hand-written statement (memhq/services/episodes.py).
    status = models.CharField(
        max_length=16,
        choices=EpisodeStatus.choices,
        default=EpisodeStatus.QUEUED,
        db_default=EpisodeStatus.QUEUED,
    )
    phase_done = models.PositiveSmallIntegerField(default=0, db_default=0)
    phase_running = models.PositiveSmallIntegerField(null=True, blank=True)
    progressed_at = models.DateTimeField(null=True, blank=True)  # last claim or completion of a phase
    attempts = models.PositiveIntegerField(default=0, db_default=0)
    error = models.TextField(blank=True, default="", db_default="")
    error_phase = models.PositiveSmallIntegerField(null=True, blank=True)
    error_kind = models.CharField(
        max_length=16, choices=EpisodeErrorKind.choices, blank=True, default="", db_default=""
    )
    # Who holds the running phase's claim (ingestion/claims.py): a redelivered task takes the claim over at
    # once when the holder's process is gone (same host) or its lease, renewed while the phase runs, ran out.
    claim_host = models.CharField(max_length=255, blank=True, default="", db_default="")
    claim_pid = models.PositiveIntegerField(null=True, blank=True)
    claim_pid_start = models.BigIntegerField(
        null=True, blank=True
    )  # the holder's start time (/proc), or null
    claim_expires_at = models.DateTimeField(null=True, blank=True)
    # The outbox (ingestion/outbox.py): the phase the episode's chain must be published from, null once the
    # relay has handed it to the broker. New rows are pending from phase 1; a re-enqueue sets it again.
    publish_from = models.PositiveSmallIntegerField(null=True, blank=True, default=1, db_default=1)
    stats = models.JSONField(default=dict, blank=True, db_default=Value({}, output_field=models.JSONField()))
    summary = models.TextField(blank=True, default="", db_default="")
    key_learnings = models.JSONField(
        default=list, blank=True, db_default=Value([], output_field=models.JSONField())
    )
    summary_embedding = VectorField(dimensions=EMBEDDING_DIM, null=True, blank=True)
    completed_at = models.DateTimeField(null=True, blank=True)
    indexed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["project", "idempotency_key"],
                condition=models.Q(idempotency_key__isnull=False),
                name="episode_idempotency_key_per_project",
            )
        ]
        indexes = [
            models.Index(fields=["project", "user_id", "-received_at"], name="episode_user_recent"),
            models.Index(fields=["status", "phase_done"], name="episode_status_phase"),
            models.Index(
                fields=["received_at"],
                name="episode_outbox_pending",
                condition=models.Q(publish_from__isnull=False),
            ),
        ]

    def __str__(self) -> str:
        return f"episode {self.id} ({self.user_id})"


class EpisodeMessage(models.Model):
    """One turn of an episode, parsed from the raw body by the persist phase."""

    episode = models.ForeignKey(Episode, on_delete=models.CASCADE, related_name="messages")
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="+")
    user_id = models.CharField(max_length=200)
    index = models.PositiveIntegerField()
    caller_id = models.CharField(max_length=200, blank=True, default="")
    role = models.CharField(max_length=16)
    name = models.CharField(max_length=200, blank=True, default="")
    content = models.TextField()
    timestamp = models.DateTimeField(null=True, blank=True)
    document_date = models.DateTimeField(null=True, blank=True)
    time_mentions = models.JSONField(default=list, blank=True)
    embedding = VectorField(dimensions=EMBEDDING_DIM, null=True, blank=True)
    #: The second embedder's vector (``memhq.ai.e5``), when ``MEMHQ_SECOND_EMBEDDER`` is on.
    embedding_e5 = VectorField(dimensions=EMBEDDING_DIM, null=True, blank=True)
    #: How many passages the index phase cut the message into (0: short, searched and shown whole; else
    #: recall searches its passages instead of it).
    passage_count = models.PositiveSmallIntegerField(default=0, db_default=0)
    #: Chatter or an empty question back (``ingestion.filler``), set by the index phase: recall skips it.
    filler = models.BooleanField(default=False, db_default=False)
    search_vector = models.GeneratedField(
        expression=SearchVector("name", "content", config=FULL_TEXT_CONFIG),
        output_field=SearchVectorField(),
        db_persist=True,
    )

    class Meta:
        constraints = [models.UniqueConstraint(fields=["episode", "index"], name="episode_message_index")]
        indexes = [
            # A user's messages, and their messages in a time window (recall's time signal).
            models.Index(fields=["project", "user_id", "document_date"], name="message_user_date"),
            HnswIndex(
                name="message_embedding_hnsw",
                fields=["embedding"],
                m=16,
                ef_construction=64,
                opclasses=["vector_cosine_ops"],
            ),
            HnswIndex(
                name="message_embedding_e5_hnsw",
                fields=["embedding_e5"],
                m=16,
                ef_construction=64,
                opclasses=["vector_cosine_ops"],
            ),
            # Per-user full text (btree_gin, migration 0007): the GIN scan skips to this user's postings.
            GinIndex(fields=["project", "user_id", "search_vector"], name="message_user_fts"),
        ]

    def __str__(self) -> str:
        return f"{self.episode_id}#{self.index}"


class Candidate(models.Model):
    """What extraction proposed, with what reconciliation decided about it."""

    class Decision(models.TextChoices):
        ACCEPT = "accept"
        SUPERSEDE = "supersede"
        REINFORCE = "reinforce"
        REJECT = "reject"

    episode = models.ForeignKey(Episode, on_delete=models.CASCADE, related_name="candidates")
    ordinal = models.PositiveIntegerField()
    claim = models.TextField()
    kind = models.CharField(max_length=16)
    subject = models.CharField(max_length=200)
    predicate = models.CharField(max_length=100)
    object_value = models.TextField(blank=True, default="")
    mentions = models.JSONField(default=list, blank=True)
    entity_ids = models.JSONField(default=list, blank=True)
    source_message_indexes = ArrayField(models.PositiveIntegerField(), default=list)
    span_start = models.PositiveIntegerField(default=0)
    span_end = models.PositiveIntegerField(default=0)
    confidence = models.FloatField()
    importance = models.FloatField()
    valid_from = models.DateTimeField(null=True, blank=True)
    decision = models.CharField(max_length=16, choices=Decision.choices, blank=True, default="")
    reason = models.TextField(blank=True, default="")
    memory = models.ForeignKey(
        "memhq.Memory", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        constraints = [models.UniqueConstraint(fields=["episode", "ordinal"], name="candidate_ordinal")]

    def __str__(self) -> str:
        return self.claim
