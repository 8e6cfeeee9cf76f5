"""Working memory (threads): validate → service/selector → serialize. ``{thread_id}`` is the caller's id."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.exceptions import NotFound
from rest_framework.pagination import CursorPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from memhq.api.auth import project_of
from memhq.api.episodes import raw_json_body
from memhq.api.errors import Conflict
from memhq.api.replica_reads import replica_read
from memhq.api.schema import page_of
from memhq.api.serializers import MessageInSerializer
from memhq.api.thread_serializers import (
    MessageAddedSerializer,
    PrepareAndRecallResponseSerializer,
    PrepareAndRecallSerializer,
    PrepareQuerySerializer,
    PrepareResponseSerializer,
    ThreadCreateSerializer,
    ThreadEndSerializer,
    ThreadListQuerySerializer,
    ThreadSerializer,
)
from memhq.selectors.threads import (
    RecallOptions,
    prepare_and_recall,
    thread_get,
    thread_list,
    thread_prepare,
)
from memhq.services.threads import (
    ThreadClosed,
    ThreadConflict,
    ThreadNotFound,
    message_add,
    thread_create,
    thread_end,
)
from retrieval.recall import RecallResult


class NewestFirst(CursorPagination):
    ordering = ("-created_at", "-id")
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200


def recall_body(result: RecallResult) -> dict[str, Any]:
    return {
        "context": result.context,
        "context_tokens": result.context_tokens,
        "items": [item.as_dict() for item in result.items],
        "fact_count": result.fact_count,
        "processed_through": result.processed_through,
        "degraded": result.degraded,
    }


class ThreadListView(APIView):
    @extend_schema(
        operation_id="v1_memhq_threads_list",
        parameters=[ThreadListQuerySerializer],
        responses=page_of(ThreadSerializer),
    )
    @replica_read("user")
    def get(self, request: Request) -> Response:
        query = ThreadListQuerySerializer(data=request.query_params.dict())
        query.is_valid(raise_exception=True)
        threads = thread_list(
            project=project_of(request),
            user_id=query.validated_data.get("user_id"),
            status=query.validated_data.get("status"),
        )
        paginator = NewestFirst()
        page = paginator.paginate_queryset(threads, request, view=self)
        return paginator.get_paginated_response(ThreadSerializer(page, many=True).data)

    @extend_schema(
        request=ThreadCreateSerializer,
        responses={201: ThreadSerializer, 200: ThreadSerializer},
        summary="Start a thread (201); an existing thread_id of the same user answers 200 with that thread.",
    )
    def post(self, request: Request) -> Response:
        project = project_of(request)
        raw_json_body(request)
        serializer = ThreadCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        try:
            receipt = thread_create(
                project=project,
                user_id=data["user_id"],
                key=data.get("thread_id"),
                temporary=data["temporary"],
            )
        except ThreadConflict:
            raise Conflict("This thread_id belongs to another user or has another temporary flag.") from None
        thread = thread_get(project=project, key=receipt.thread.key)
        code = status.HTTP_201_CREATED if receipt.created else status.HTTP_200_OK
        return Response(ThreadSerializer(thread).data, status=code)


class ThreadDetailView(APIView):
    @extend_schema(responses=ThreadSerializer)
    @replica_read("thread")
    def get(self, request: Request, thread_id: str) -> Response:
        return Response(ThreadSerializer(thread_get(project=project_of(request), key=thread_id)).data)


class ThreadMessagesView(APIView):
    @extend_schema(
        request=MessageInSerializer,
        responses={201: MessageAddedSerializer},
        summary="Add a message: stored at once; the thread's episode is scheduled, compaction runs later.",
    )
    def post(self, request: Request, thread_id: str) -> Response:
        project = project_of(request)
        raw_json_body(request)
        serializer = MessageInSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        try:
            added = message_add(
                project=project,
                key=thread_id,
                role=data["role"],
                content=data["content"],
                name=data.get("name", ""),
                caller_id=data.get("id", ""),
                timestamp=data.get("timestamp"),
            )
        except ThreadNotFound:
            raise NotFound() from None
        except ThreadClosed:
            raise Conflict("This temporary thread has ended; start a new thread.") from None
        body = {  # the shape of MessageAddedSerializer, built directly on this hot path
            "thread_id": thread_id,
            "seq": added.seq,
            "created_at": added.created_at,
            "episode_due_at": added.episode_due_at,
        }
        return Response(body, status=status.HTTP_201_CREATED)


class ThreadPrepareView(APIView):
    @extend_schema(parameters=[PrepareQuerySerializer], responses=PrepareResponseSerializer)
    @replica_read("thread")
    def get(self, request: Request, thread_id: str) -> Response:
        query = PrepareQuerySerializer(data=request.query_params.dict())
        query.is_valid(raise_exception=True)
        prepared = thread_prepare(
            project=project_of(request), key=thread_id, message_limit=query.validated_data["message_limit"]
        )
        return Response({"messages": prepared.messages})


class ThreadEndView(APIView):
    @extend_schema(request=None, responses=ThreadEndSerializer)
    def post(self, request: Request, thread_id: str) -> Response:
        project = project_of(request)
        try:
            _, episodes = thread_end(project=project, key=thread_id)
        except ThreadNotFound:
            raise NotFound() from None
        thread = thread_get(project=project, key=thread_id)
        context = {"new_episode_ids": [episode.pk for episode in episodes]}
        return Response(ThreadEndSerializer(thread, context=context).data)


class ThreadPrepareAndRecallView(APIView):
    @extend_schema(request=PrepareAndRecallSerializer, responses=PrepareAndRecallResponseSerializer)
    @replica_read("project")
    def post(self, request: Request, thread_id: str) -> Response:
        raw_json_body(request)
        serializer = PrepareAndRecallSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        options = RecallOptions(
            query=data["query"],
            limit=data["limit"],
            max_tokens=data["max_tokens"],
            as_of=data.get("as_of"),
            include_history=data["include_history"],
            kinds=data.get("kinds"),
        )
        result = prepare_and_recall(
            project=project_of(request),
            key=thread_id,
            message_limit=data["message_limit"],
            options=options,
        )
        body = {"messages": result.prepared.messages, "recall": recall_body(result.recall)}
        return Response(PrepareAndRecallResponseSerializer(body).data)
