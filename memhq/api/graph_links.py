"""``POST /v1/memhq/graph/links``: a short-lived signed URL of one user's graph page, to embed in an app."""

from __future__ import annotations

from django.conf import settings
from django.urls import reverse
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from memhq.api.auth import project_of
from memhq.api.serializers import JsonIntegerField, StrictSerializer, UserIdField
from memhq.ops.graph_links import link_sign

MIN_TTL_S = 10


class GraphLinkRequestSerializer(StrictSerializer):
    user_id = UserIdField()
    ttl_s = JsonIntegerField(
        required=False, min_value=MIN_TTL_S, max_value=settings.MEMHQ_GRAPH_LINK_MAX_TTL_S
    )


class GraphLinkSerializer(serializers.Serializer):
    url = serializers.URLField()
    expires_at = serializers.DateTimeField()


class GraphLinkView(APIView):
    @extend_schema(
        request=GraphLinkRequestSerializer,
        responses={201: GraphLinkSerializer},
        summary="A signed link to the user's memory graph page (read-only, expires after ttl_s).",
    )
    def post(self, request: Request) -> Response:
        body = GraphLinkRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        token, expires_at = link_sign(
            project_id=project_of(request).pk,
            user_id=body.validated_data["user_id"],
            ttl_s=body.validated_data.get("ttl_s", settings.MEMHQ_GRAPH_LINK_TTL_S),
        )
        url = request.build_absolute_uri(reverse("graph-embed", args=[token]))
        data = GraphLinkSerializer({"url": url, "expires_at": expires_at}).data
        return Response(data, status=status.HTTP_201_CREATED)
