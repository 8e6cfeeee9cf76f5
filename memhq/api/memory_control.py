"""The user's memory list: state, edit, disable/enable, delete a memory, and read its whole history.

The read endpoints (list, detail) are ``memhq.api.memories``; these views extend them with the writes.
Validate → service → serialize; every change is a journaled batch whose id the response carries.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from memhq.api.actors import actor_of
from memhq.api.auth import project_of
from memhq.api.control_serializers import (
    MemoryChangeSerializer,
    MemoryCreateSerializer,
    MemoryDeletedSerializer,
    MemoryHistorySerializer,
    MemoryUpdateSerializer,
)
from memhq.api.errors import Conflict
from memhq.api.memories import MemoryDetailView, MemoryListView
from memhq.api.replica_reads import replica_read
from memhq.models import Memory, MemoryStatus
from memhq.selectors.memories import memory_chain, memory_get
from memhq.selectors.memory_history import memory_get_any, memory_history
from memhq.services.memory_control import (
    MemoryChange,
    MemoryNotCurrent,
    memory_add_by_user,
    memory_delete,
    memory_edit,
    memory_set_status,
)


def change_response(request: Request, change: MemoryChange, code: int = status.HTTP_200_OK) -> Response:
    memory = memory_get(project=project_of(request), memory_id=change.memory.pk)
    older, newer = memory_chain(memory)
    context = {"older": older, "newer": newer, "batch": change.batch}
    return Response(MemoryChangeSerializer(memory, context=context).data, status=code)


class MemoryCollectionView(MemoryListView):
    @extend_schema(request=MemoryCreateSerializer, responses={201: MemoryChangeSerializer})
    def post(self, request: Request) -> Response:
        serializer = MemoryCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        optional = {
            name: data[key]
            for name, key in (
                ("subject", "subject"),
                ("predicate", "predicate"),
                ("object_value", "object"),
                ("importance", "importance"),
                ("valid_from", "valid_from"),
            )
            if key in data
        }
        change = memory_add_by_user(
            project=project_of(request),
            user_id=data["user_id"],
            text=data["text"],
            kind=data["kind"],
            actor=actor_of(request),
            **optional,
        )
        return change_response(request, change, status.HTTP_201_CREATED)


class MemoryItemView(MemoryDetailView):
    @extend_schema(request=MemoryUpdateSerializer, responses=MemoryChangeSerializer)
    def patch(self, request: Request, memory_id: str) -> Response:
        project = project_of(request)
        memory_get(project=project, memory_id=memory_id)  # 404 before validating the body
        serializer = MemoryUpdateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        try:
            change = memory_edit(
                project=project,
                memory_id=memory_id,
                actor=actor_of(request),
                text=data.get("text"),
                object_value=data.get("object"),
                kind=data.get("kind"),
                importance=data.get("importance"),
                status=data.get("status"),
            )
        except MemoryNotCurrent as exc:
            raise Conflict(str(exc)) from None
        return change_response(request, change)

    @extend_schema(responses=MemoryDeletedSerializer)
    def delete(self, request: Request, memory_id: str) -> Response:
        change = memory_delete(project=project_of(request), memory_id=memory_id, actor=actor_of(request))
        body = {
            "id": change.memory.pk,
            "status": change.memory.status,
            "deleted_at": change.memory.expired_at,
            "deleted_by": change.batch.actor if change.batch else "",
            "batch_id": change.batch.pk if change.batch else None,
        }
        return Response(MemoryDeletedSerializer(body).data)


class _MemoryStatusView(APIView):
    target: str = MemoryStatus.ACTIVE

    @extend_schema(request=None, responses=MemoryChangeSerializer)
    def post(self, request: Request, memory_id: str) -> Response:
        try:
            change = memory_set_status(
                project=project_of(request), memory_id=memory_id, status=self.target, actor=actor_of(request)
            )
        except MemoryNotCurrent as exc:
            raise Conflict(str(exc)) from None
        return change_response(request, change)


class MemoryDisableView(_MemoryStatusView):
    """Disabled memories never appear in recall, and stay listed (``status=disabled``)."""

    target = MemoryStatus.DISABLED


class MemoryEnableView(_MemoryStatusView):
    target = MemoryStatus.ACTIVE


class MemoryHistoryView(APIView):
    @extend_schema(responses=MemoryHistorySerializer)
    @replica_read("project")
    def get(self, request: Request, memory_id: str) -> Response:
        memory: Memory = memory_get_any(project=project_of(request), memory_id=memory_id)
        return Response(MemoryHistorySerializer(memory_history(memory)).data)
