"""Batches (every journaled change: an episode's reconciliation, an edit, a consolidation chunk, a revert),
their journal, and reverting one: validate → selector/service → serialize."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.pagination import CursorPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from memhq.api.actors import actor_of
from memhq.api.auth import project_of
from memhq.api.control_serializers import (
    BatchDetailSerializer,
    BatchListQuerySerializer,
    BatchSerializer,
    RevertQuerySerializer,
)
from memhq.api.errors import error_body
from memhq.api.replica_reads import replica_read
from memhq.api.schema import page_of
from memhq.selectors.batches import batch_entries, batch_get, batch_list, batch_reverted_by
from memhq.services.revert import NotRevertible, RevertConflict, batch_revert, revert_plan


class NewestFirst(CursorPagination):
    ordering = ("-created_at", "-id")
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200


class BatchListView(APIView):
    @extend_schema(
        operation_id="v1_memhq_batches_list",
        parameters=[BatchListQuerySerializer],
        responses=page_of(BatchSerializer),
    )
    @replica_read("user")
    def get(self, request: Request) -> Response:
        query = BatchListQuerySerializer(data=request.query_params.dict())
        query.is_valid(raise_exception=True)
        batches = batch_list(
            project=project_of(request),
            user_id=query.validated_data.get("user_id"),
            kind=query.validated_data.get("kind"),
        )
        paginator = NewestFirst()
        page = paginator.paginate_queryset(batches, request, view=self)
        return paginator.get_paginated_response(BatchSerializer(page, many=True).data)


class BatchDetailView(APIView):
    @extend_schema(responses=BatchDetailSerializer)
    @replica_read("project")
    def get(self, request: Request, batch_id: str) -> Response:
        batch = batch_get(project=project_of(request), batch_id=batch_id)
        batch.entry_count = batch.entries.count()  # type: ignore[attr-defined]
        context = {"entries": batch_entries(batch), "reverted_by": batch_reverted_by(batch)}
        return Response(BatchDetailSerializer(batch, context=context).data)


def _refused(code: int, message: str, **extra: object) -> Response:
    body = error_body(code, message)
    body["error"].update(extra)
    return Response(body, status=code)


class BatchRevertView(APIView):
    @extend_schema(parameters=[RevertQuerySerializer], request=None, responses=dict)
    def post(self, request: Request, batch_id: str) -> Response:
        batch = batch_get(project=project_of(request), batch_id=batch_id)
        query = RevertQuerySerializer(data=request.query_params.dict())
        query.is_valid(raise_exception=True)
        dry_run, force = query.validated_data["dry_run"], query.validated_data["force"]
        try:
            if dry_run:
                plan = revert_plan(batch)
                body = {**plan.as_dict(), "dry_run": True, "would_apply": bool(plan.applied)}
                body["would_conflict"] = bool(plan.conflicts) and not force
                return Response(body)
            result = batch_revert(batch=batch, actor=actor_of(request), force=force)
        except NotRevertible as exc:
            return _refused(status.HTTP_409_CONFLICT, str(exc))
        except RevertConflict as exc:
            conflicts = [conflict.as_dict() for conflict in exc.plan.conflicts]
            return _refused(status.HTTP_409_CONFLICT, str(exc), conflicts=conflicts)
        revert = result.revert_batch
        body = {**result.plan.as_dict(), "dry_run": False, "forced": force and bool(result.plan.conflicts)}
        body["revert_batch_id"] = str(revert.pk) if revert else None
        return Response(body)
