"""``POST /v1/memhq/recall``: validate → retrieval.recall → serialize."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from memhq.api.auth import project_of
from memhq.api.replica_reads import replica_read
from memhq.api.serializers import JsonBooleanField, JsonIntegerField, StrictSerializer, UserIdField
from memhq.models import MemoryKind
from retrieval.recall import DEFAULT_LIMIT, DEFAULT_MAX_TOKENS, MAX_LIMIT, recall

MAX_QUERY_CHARS = 4000
MIN_MAX_TOKENS = 50
MAX_MAX_TOKENS = 32000


class RecallRequestSerializer(StrictSerializer):
    """An unknown user is not an error: the answer is simply empty."""

    user_id = UserIdField()
    query = serializers.CharField(max_length=MAX_QUERY_CHARS)
    limit = JsonIntegerField(required=False, min_value=1, max_value=MAX_LIMIT, default=DEFAULT_LIMIT)
    max_tokens = JsonIntegerField(
        required=False, min_value=MIN_MAX_TOKENS, max_value=MAX_MAX_TOKENS, default=DEFAULT_MAX_TOKENS
    )
    as_of = serializers.DateTimeField(required=False)
    include_history = JsonBooleanField(required=False, default=False)
    kinds = serializers.ListField(
        child=serializers.ChoiceField(choices=MemoryKind.choices), required=False, allow_empty=False
    )


class ProvenanceSerializer(serializers.Serializer):
    episode_ids = serializers.ListField(child=serializers.CharField())
    message_ids = serializers.ListField(child=serializers.CharField())
    span = serializers.ListField(
        child=serializers.IntegerField(),
        required=False,
        help_text="A passage's [start, end) character offsets in its message's content.",
    )


class RecallItemSerializer(serializers.Serializer):
    id = serializers.CharField()
    type = serializers.ChoiceField(choices=["memory", "message", "passage", "episode_summary"])
    text = serializers.CharField()
    kind = serializers.CharField(allow_null=True)
    status = serializers.CharField(allow_null=True)
    valid_from = serializers.DateTimeField(allow_null=True)
    valid_until = serializers.DateTimeField(allow_null=True)
    score = serializers.FloatField()
    ranks = serializers.DictField(child=serializers.IntegerField())
    provenance = ProvenanceSerializer()


class RecallResponseSerializer(serializers.Serializer):
    context = serializers.CharField()  # type: ignore[assignment]  # DRF pops declared fields off the class
    context_tokens = serializers.IntegerField()
    items = RecallItemSerializer(many=True)
    fact_count = serializers.IntegerField()
    processed_through = serializers.DateTimeField(allow_null=True)
    degraded = serializers.BooleanField()


class RecallView(APIView):
    @extend_schema(request=RecallRequestSerializer, responses=RecallResponseSerializer)
    @replica_read("user")
    def post(self, request: Request) -> Response:
        serializer = RecallRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        result = recall(
            project_id=project_of(request).pk,
            user_id=data["user_id"],
            query_text=data["query"],
            as_of=data.get("as_of"),
            limit=data["limit"],
            max_tokens=data["max_tokens"],
            include_history=data["include_history"],
            kinds=data.get("kinds"),
        )
        body = {
            "context": result.context,
            "context_tokens": result.context_tokens,
            "items": [item.as_dict() for item in result.items],
            "fact_count": result.fact_count,
            "processed_through": result.processed_through,
            "degraded": result.degraded,
        }
        # Already JSON-shaped (DRF's encoder writes datetimes as its DateTimeField does); running the 20 items
        # through RecallResponseSerializer, which documents the shape, would cost ~1 ms per call.
        return Response(body)
