"""``GET /v1/memhq/graph?user_id=&as_of=``: a user's entities and live memories as nodes and edges."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from memhq.api.auth import project_of
from memhq.api.control_serializers import GraphQuerySerializer, GraphSerializer
from memhq.api.replica_reads import replica_read
from memhq.selectors.graph import user_graph


class GraphView(APIView):
    @extend_schema(parameters=[GraphQuerySerializer], responses=GraphSerializer)
    @replica_read("user")
    def get(self, request: Request) -> Response:
        query = GraphQuerySerializer(data=request.query_params.dict())
        query.is_valid(raise_exception=True)
        graph = user_graph(
            project=project_of(request),
            user_id=query.validated_data["user_id"],
            as_of=query.validated_data.get("as_of"),
        )
        return Response(GraphSerializer(graph).data)
