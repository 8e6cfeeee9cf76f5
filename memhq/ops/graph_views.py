"""The memory graph page (cytoscape.js, vendored) and the JSON it draws, reachable two ways:

- from the admin, for any user of any project: ``/admin/memhq-graph/?project=<id>&user_id=<user>`` (staff
  only, through ``admin_site.admin_view``), data at ``/admin/memhq-graph/data?…``;
- embedded by an application for its own user: ``/graph/embed/<token>``, data at ``…/data``, where the token
  is a short-lived signed link issued by ``POST /v1/memhq/graph/links`` (memhq.ops.graph_links).

Both answer ``?as_of=<ISO 8601>`` (default now) with the graph as it was then, bounded like ``GET /graph``.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from urllib.parse import urlencode

from django.contrib import admin
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.views.decorators.http import require_GET

from memhq.api.errors import error_body
from memhq.models import Project
from memhq.ops.graph_data import graph_page_data
from memhq.ops.graph_links import LinkInvalid, link_verify
from memhq.selectors.user_overview import user_overview

TEMPLATE = "memhq/graph.html"


class BadQuery(Exception):
    def __init__(self, fields: dict[str, list[str]]) -> None:
        super().__init__("Invalid query.")
        self.fields = fields


def _as_of(request: HttpRequest) -> datetime | None:
    raw = request.GET.get("as_of", "").strip()
    if not raw:
        return None
    try:
        value = parse_datetime(raw)
    except ValueError:
        value = None
    if value is None:
        raise BadQuery({"as_of": ["An ISO 8601 date-time, e.g. 2024-05-01T12:00:00Z."]})
    return value if timezone.is_aware(value) else value.replace(tzinfo=UTC)


def _admin_target(request: HttpRequest) -> tuple[Project, str]:
    fields: dict[str, list[str]] = {}
    user_id = request.GET.get("user_id", "")
    if not user_id:
        fields["user_id"] = ["Required."]
    try:
        project = Project.objects.get(pk=uuid.UUID(request.GET.get("project", "")))
    except (ValueError, ValidationError, Project.DoesNotExist):
        fields["project"] = ["The id of an existing project."]
    if fields:
        raise BadQuery(fields)
    return project, user_id


def _data(project: Project, user_id: str, request: HttpRequest) -> JsonResponse:
    try:
        as_of = _as_of(request)
    except BadQuery as exc:
        return JsonResponse(error_body(400, "Invalid query.", exc.fields), status=400)
    return JsonResponse(graph_page_data(project=project, user_id=user_id, as_of=as_of))


def _page(request: HttpRequest, *, user_id: str, data_url: str, embedded: bool) -> HttpResponse:
    context = {
        "user_id": user_id,
        "data_url": data_url,
        "embedded": embedded,
        "as_of": request.GET.get("as_of"),
    }
    return render(request, TEMPLATE, context)


@require_GET
def admin_graph_page(request: HttpRequest) -> HttpResponse:
    try:
        project, user_id = _admin_target(request)
    except BadQuery as exc:
        return JsonResponse(error_body(400, "Invalid query.", exc.fields), status=400)
    query = request.GET.copy()
    query.pop("as_of", None)
    data_url = f"{reverse('admin-graph-data')}?{query.urlencode()}"
    return _page(request, user_id=f"{user_id} ({project.name})", data_url=data_url, embedded=False)


@require_GET
def admin_user_page(request: HttpRequest) -> HttpResponse:
    """Everything about one user (memhq.selectors.user_overview), with the graph one click away."""
    try:
        project, user_id = _admin_target(request)
    except BadQuery as exc:
        return JsonResponse(error_body(400, "Invalid query.", exc.fields), status=400)
    query = urlencode({"project": str(project.pk), "user_id": user_id})
    context = {
        **admin.site.each_context(request),
        "title": f"User {user_id}",
        "o": user_overview(project=project, user_id=user_id),
        "graph_url": f"{reverse('admin-graph')}?{query}",
    }
    return render(request, "admin/memhq/user_overview.html", context)


@require_GET
def admin_graph_data(request: HttpRequest) -> JsonResponse:
    try:
        project, user_id = _admin_target(request)
    except BadQuery as exc:
        return JsonResponse(error_body(400, "Invalid query.", exc.fields), status=400)
    return _data(project, user_id, request)


def _linked(token: str) -> tuple[Project, str]:
    try:
        link = link_verify(token)
        return Project.objects.get(pk=link.project_id), link.user_id
    except (LinkInvalid, Project.DoesNotExist):
        raise Http404("This graph link is invalid or has expired.") from None


@require_GET
def embed_graph_page(request: HttpRequest, token: str) -> HttpResponse:
    _, user_id = _linked(token)
    data_url = reverse("graph-embed-data", args=[token])
    return _page(request, user_id=user_id, data_url=data_url, embedded=True)


@require_GET
def embed_graph_data(request: HttpRequest, token: str) -> JsonResponse:
    project, user_id = _linked(token)
    return _data(project, user_id, request)
