"""Request validation and response shapes for memory control: edits, history, graph, batches, erasure."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from memhq.api.memory_serializers import EvidenceSerializer, MemoryDetailSerializer, MemorySerializer
from memhq.api.serializers import StrictSerializer, UserIdField
from memhq.models import Batch, BatchKind, JournalEntry, MemoryKind, MemoryStatus

MAX_TEXT_CHARS = 4000
MAX_SUBJECT_CHARS = 200
MAX_PREDICATE_CHARS = 100
SWITCHABLE = [MemoryStatus.ACTIVE, MemoryStatus.DISABLED]


def _importance() -> serializers.FloatField:
    return serializers.FloatField(required=False, min_value=0.0, max_value=1.0)


class MemoryCreateSerializer(StrictSerializer):
    """``POST /memories``: a memory the user states (``origin=user``)."""

    user_id = UserIdField()
    text = serializers.CharField(max_length=MAX_TEXT_CHARS)
    kind = serializers.ChoiceField(choices=MemoryKind.choices)
    subject = serializers.CharField(required=False, max_length=MAX_SUBJECT_CHARS)
    predicate = serializers.CharField(required=False, max_length=MAX_PREDICATE_CHARS, allow_blank=True)
    object = serializers.CharField(required=False, max_length=MAX_TEXT_CHARS, allow_blank=True)
    importance = _importance()
    valid_from = serializers.DateTimeField(required=False)


class MemoryUpdateSerializer(StrictSerializer):
    """``PATCH /memories/{id}``: at least one field."""

    text = serializers.CharField(required=False, max_length=MAX_TEXT_CHARS)
    object = serializers.CharField(required=False, max_length=MAX_TEXT_CHARS, allow_blank=True)
    kind = serializers.ChoiceField(required=False, choices=MemoryKind.choices)
    importance = _importance()
    status = serializers.ChoiceField(required=False, choices=SWITCHABLE)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if not attrs:
            raise serializers.ValidationError("Give at least one of: text, object, kind, importance, status.")
        return attrs


class MemoryChangeSerializer(MemoryDetailSerializer):
    """The memory's current version after a change, with the batch that made it (null: nothing changed)."""

    batch_id = serializers.SerializerMethodField()

    class Meta(MemoryDetailSerializer.Meta):
        fields = [*MemoryDetailSerializer.Meta.fields, "batch_id"]

    def get_batch_id(self, memory: Any) -> str | None:
        batch = self.context.get("batch")
        return str(batch.pk) if batch is not None else None


class MemoryDeletedSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    status = serializers.CharField()
    deleted_at = serializers.DateTimeField(allow_null=True)
    deleted_by = serializers.CharField()
    batch_id = serializers.UUIDField(allow_null=True)


class HistoryBatchSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    kind = serializers.CharField()
    actor = serializers.CharField()
    episode = serializers.UUIDField(source="episode_id", allow_null=True)


class HistoryEventSerializer(serializers.Serializer):
    at = serializers.DateTimeField()
    action = serializers.CharField()
    memory_id = serializers.CharField()
    op = serializers.CharField()
    batch = HistoryBatchSerializer(allow_null=True)
    changes = serializers.DictField()
    snapshot = serializers.DictField(allow_null=True)
    evidence = EvidenceSerializer(many=True)


class MemoryHistorySerializer(serializers.Serializer):
    memory_id = serializers.UUIDField(source="memory.pk")
    current_id = serializers.UUIDField(source="current.pk")
    versions = MemorySerializer(many=True)
    events = HistoryEventSerializer(many=True)
    truncated = serializers.BooleanField()


class GraphQuerySerializer(StrictSerializer):
    user_id = UserIdField()
    as_of = serializers.DateTimeField(required=False)


class GraphSerializer(serializers.Serializer):
    as_of = serializers.DateTimeField()
    nodes = serializers.ListField(child=serializers.DictField())
    edges = serializers.ListField(child=serializers.DictField())
    truncated = serializers.BooleanField()


class BatchListQuerySerializer(StrictSerializer):
    user_id = UserIdField(required=False)
    kind = serializers.ChoiceField(required=False, choices=BatchKind.choices)
    cursor = serializers.CharField(required=False)
    page_size = serializers.IntegerField(required=False, min_value=1, max_value=200)


class BatchSerializer(serializers.ModelSerializer):
    entry_count = serializers.IntegerField(read_only=True)

    class Meta:
        model = Batch
        fields = ["id", "user_id", "kind", "episode", "actor", "note", "reverts", "created_at", "entry_count"]


class JournalEntrySerializer(serializers.ModelSerializer):
    class Meta:
        model = JournalEntry
        fields = ["seq", "op", "table", "row_id", "before", "after"]


class BatchDetailSerializer(BatchSerializer):
    entries = serializers.SerializerMethodField()
    reverted_by = serializers.SerializerMethodField()

    class Meta(BatchSerializer.Meta):
        fields = [*BatchSerializer.Meta.fields, "reverted_by", "entries"]

    def get_entries(self, batch: Batch) -> list[dict[str, Any]]:
        return JournalEntrySerializer(self.context["entries"], many=True).data  # type: ignore[return-value]

    def get_reverted_by(self, batch: Batch) -> list[str]:
        return [str(batch_id) for batch_id in self.context["reverted_by"]]


class RevertQuerySerializer(StrictSerializer):
    dry_run = serializers.BooleanField(required=False, default=False)
    force = serializers.BooleanField(required=False, default=False)


class ErasureReceiptSerializer(serializers.Serializer):
    receipt_id = serializers.UUIDField(source="receipt.pk")
    user_id = serializers.CharField()
    started_at = serializers.DateTimeField(source="receipt.started_at")
    finished_at = serializers.DateTimeField(source="receipt.finished_at")
    duration_ms = serializers.FloatField()
    counts = serializers.DictField(source="receipt.counts", child=serializers.IntegerField())
    total = serializers.IntegerField()
    ids_sha256 = serializers.CharField(source="receipt.ids_sha256")
