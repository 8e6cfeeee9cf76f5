"""Response shapes and query validation for memories and entities."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from memhq.api.serializers import StrictSerializer, UserIdField
from memhq.models import Entity, Evidence, Memory, MemoryStatus

STATUS_FILTERS = [MemoryStatus.ACTIVE, MemoryStatus.SUPERSEDED, MemoryStatus.DISABLED]


class EvidenceSerializer(serializers.ModelSerializer):
    message_ids = serializers.ListField(source="caller_message_ids", child=serializers.CharField())

    class Meta:
        model = Evidence
        fields = ["id", "episode", "message_indexes", "message_ids", "quote", "created_at"]


class MemorySerializer(serializers.ModelSerializer):
    object = serializers.CharField(source="object_value")

    class Meta:
        model = Memory
        fields = [
            "id",
            "user_id",
            "text",
            "kind",
            "subject",
            "subject_entity",
            "predicate",
            "object",
            "object_entity",
            "entity_ids",
            "confidence",
            "importance",
            "status",
            "valid_from",
            "valid_until",
            "recorded_at",
            "expired_at",
            "superseded_by",
            "reinforce_count",
            "last_seen_at",
            "origin",
            "episode",
            "indexed_at",
        ]


class MemoryDetailSerializer(MemorySerializer):
    evidence = EvidenceSerializer(many=True)
    supersedes = serializers.SerializerMethodField()
    superseded_by_chain = serializers.SerializerMethodField()

    class Meta(MemorySerializer.Meta):
        fields = [*MemorySerializer.Meta.fields, "evidence", "supersedes", "superseded_by_chain"]

    @extend_schema_field(MemorySerializer(many=True))
    def get_supersedes(self, memory: Memory) -> list[dict[str, object]]:
        return MemorySerializer(self.context["older"], many=True).data  # type: ignore[return-value]

    @extend_schema_field(MemorySerializer(many=True))
    def get_superseded_by_chain(self, memory: Memory) -> list[dict[str, object]]:
        return MemorySerializer(self.context["newer"], many=True).data  # type: ignore[return-value]


class MemoryListQuerySerializer(StrictSerializer):
    user_id = UserIdField()
    status = serializers.ChoiceField(required=False, choices=STATUS_FILTERS)
    as_of = serializers.DateTimeField(required=False)
    cursor = serializers.CharField(required=False)
    page_size = serializers.IntegerField(required=False, min_value=1, max_value=200)


class EntitySerializer(serializers.ModelSerializer):
    class Meta:
        model = Entity
        fields = ["id", "user_id", "name", "type", "aliases", "mention_count", "created_at", "updated_at"]


class EntityDetailSerializer(EntitySerializer):
    memories = serializers.SerializerMethodField()

    class Meta(EntitySerializer.Meta):
        fields = [*EntitySerializer.Meta.fields, "memories"]

    @extend_schema_field(MemorySerializer(many=True))
    def get_memories(self, entity: Entity) -> list[dict[str, object]]:
        return MemorySerializer(self.context["memories"], many=True).data  # type: ignore[return-value]


class EntityListQuerySerializer(StrictSerializer):
    user_id = UserIdField()
    type = serializers.CharField(required=False, max_length=20)
    cursor = serializers.CharField(required=False)
    page_size = serializers.IntegerField(required=False, min_value=1, max_value=200)
