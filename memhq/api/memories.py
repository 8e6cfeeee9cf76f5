"""Read-only views of what ingestion produced: memories (with evidence and history) and entities."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.pagination import CursorPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from memhq.api.auth import project_of
from memhq.api.memory_serializers import (
    EntityDetailSerializer,
    EntityListQuerySerializer,
    EntitySerializer,
    MemoryDetailSerializer,
    MemoryListQuerySerializer,
    MemorySerializer,
)
from memhq.api.replica_reads import replica_read
from memhq.api.schema import page_of
from memhq.selectors.memories import (
    entity_get,
    entity_list,
    entity_memories,
    memory_chain,
    memory_get,
    memory_list,
)

ENTITY_MEMORIES_SHOWN = 200


class RecentFirst(CursorPagination):
    ordering = ("-recorded_at", "-id")
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200


class MostMentionedFirst(RecentFirst):
    ordering = ("-mention_count", "id")


class MemoryListView(APIView):
    @extend_schema(
        operation_id="v1_memhq_memories_list",
        parameters=[MemoryListQuerySerializer],
        responses=page_of(MemorySerializer),
    )
    @replica_read("user")
    def get(self, request: Request) -> Response:
        query = MemoryListQuerySerializer(data=request.query_params.dict())
        query.is_valid(raise_exception=True)
        memories = memory_list(
            project=project_of(request),
            user_id=query.validated_data["user_id"],
            status=query.validated_data.get("status"),
            as_of=query.validated_data.get("as_of"),
        )
        paginator = RecentFirst()
        page = paginator.paginate_queryset(memories, request, view=self)
        return paginator.get_paginated_response(MemorySerializer(page, many=True).data)


class MemoryDetailView(APIView):
    @extend_schema(responses=MemoryDetailSerializer)
    @replica_read("project")
    def get(self, request: Request, memory_id: str) -> Response:
        memory = memory_get(project=project_of(request), memory_id=memory_id)
        older, newer = memory_chain(memory)
        return Response(MemoryDetailSerializer(memory, context={"older": older, "newer": newer}).data)


class EntityListView(APIView):
    @extend_schema(
        operation_id="v1_memhq_entities_list",
        parameters=[EntityListQuerySerializer],
        responses=page_of(EntitySerializer),
    )
    @replica_read("user")
    def get(self, request: Request) -> Response:
        query = EntityListQuerySerializer(data=request.query_params.dict())
        query.is_valid(raise_exception=True)
        entities = entity_list(
            project=project_of(request),
            user_id=query.validated_data["user_id"],
            type_=query.validated_data.get("type"),
        )
        paginator = MostMentionedFirst()
        page = paginator.paginate_queryset(entities, request, view=self)
        return paginator.get_paginated_response(EntitySerializer(page, many=True).data)


class EntityDetailView(APIView):
    @extend_schema(responses=EntityDetailSerializer)
    @replica_read("project")
    def get(self, request: Request, entity_id: str) -> Response:
        entity = entity_get(project=project_of(request), entity_id=entity_id)
        memories = list(entity_memories(entity)[:ENTITY_MEMORIES_SHOWN])
        return Response(EntityDetailSerializer(entity, context={"memories": memories}).data)
