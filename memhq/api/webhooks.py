"""Webhook endpoints and their deliveries: validate → service/selector → serialize."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import exceptions, status
from rest_framework.pagination import CursorPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from memhq.api.auth import project_of
from memhq.api.errors import Conflict
from memhq.api.schema import page_of
from memhq.api.webhook_serializers import (
    DeliveryListQuerySerializer,
    DeliverySerializer,
    EndpointCreateSerializer,
    EndpointSerializer,
    EndpointUpdateSerializer,
    EndpointWithSecretSerializer,
    ListQuerySerializer,
    update_arguments,
)
from memhq.selectors.webhooks import delivery_get, delivery_list, endpoint_get, endpoint_list
from memhq.services.webhooks import (
    AddressRefused,
    DeliveryInProgress,
    EndpointInactive,
    EndpointLimitReached,
    delivery_replay,
    endpoint_create,
    endpoint_delete,
    endpoint_ping,
    endpoint_rotate_secret,
    endpoint_update,
)


class NewestFirst(CursorPagination):
    ordering = ("-created_at", "-id")
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200


def _refused_url(exc: AddressRefused) -> exceptions.ValidationError:
    return exceptions.ValidationError({"url": [str(exc)]})


class WebhookListView(APIView):
    @extend_schema(
        operation_id="v1_memhq_webhooks_list",
        parameters=[ListQuerySerializer],
        responses=page_of(EndpointSerializer),
    )
    def get(self, request: Request) -> Response:
        ListQuerySerializer(data=request.query_params.dict()).is_valid(raise_exception=True)
        paginator = NewestFirst()
        page = paginator.paginate_queryset(endpoint_list(project=project_of(request)), request, view=self)
        return paginator.get_paginated_response(EndpointSerializer(page, many=True).data)

    @extend_schema(
        request=EndpointCreateSerializer,
        responses={201: EndpointWithSecretSerializer},
        summary="Create an endpoint; the response shows its signing secret, once.",
    )
    def post(self, request: Request) -> Response:
        serializer = EndpointCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        try:
            issued = endpoint_create(
                project=project_of(request),
                url=data["url"],
                event_types=data["event_types"],
                description=data["description"],
                is_active=data["active"],
            )
        except AddressRefused as exc:
            raise _refused_url(exc) from None
        except EndpointLimitReached as exc:
            raise exceptions.ValidationError({"non_field_errors": [str(exc)]}) from None
        body = EndpointWithSecretSerializer(issued.endpoint, context={"secret": issued.secret}).data
        return Response(body, status=status.HTTP_201_CREATED)


class WebhookDetailView(APIView):
    @extend_schema(responses=EndpointSerializer)
    def get(self, request: Request, endpoint_id: str) -> Response:
        return Response(
            EndpointSerializer(endpoint_get(project=project_of(request), endpoint_id=endpoint_id)).data
        )

    @extend_schema(request=EndpointUpdateSerializer, responses=EndpointSerializer)
    def patch(self, request: Request, endpoint_id: str) -> Response:
        endpoint = endpoint_get(project=project_of(request), endpoint_id=endpoint_id)
        serializer = EndpointUpdateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        try:
            endpoint = endpoint_update(endpoint=endpoint, **update_arguments(dict(serializer.validated_data)))
        except AddressRefused as exc:
            raise _refused_url(exc) from None
        return Response(EndpointSerializer(endpoint).data)

    @extend_schema(responses={204: None})
    def delete(self, request: Request, endpoint_id: str) -> Response:
        endpoint_delete(endpoint=endpoint_get(project=project_of(request), endpoint_id=endpoint_id))
        return Response(status=status.HTTP_204_NO_CONTENT)


class WebhookRotateSecretView(APIView):
    @extend_schema(
        request=None,
        responses=EndpointWithSecretSerializer,
        summary="A new signing secret (shown once); the old one keeps signing for 24 h.",
    )
    def post(self, request: Request, endpoint_id: str) -> Response:
        endpoint = endpoint_get(project=project_of(request), endpoint_id=endpoint_id)
        issued = endpoint_rotate_secret(endpoint=endpoint)
        return Response(EndpointWithSecretSerializer(issued.endpoint, context={"secret": issued.secret}).data)


class WebhookTestView(APIView):
    @extend_schema(
        request=None,
        responses={202: DeliverySerializer},
        summary="Send a webhook.ping event to this endpoint only.",
    )
    def post(self, request: Request, endpoint_id: str) -> Response:
        endpoint = endpoint_get(project=project_of(request), endpoint_id=endpoint_id)
        try:
            delivery = endpoint_ping(endpoint=endpoint)
        except EndpointInactive as exc:
            raise Conflict(str(exc)) from None
        return Response(DeliverySerializer(delivery).data, status=status.HTTP_202_ACCEPTED)


class WebhookDeliveryListView(APIView):
    @extend_schema(
        operation_id="v1_memhq_webhooks_deliveries_list",
        parameters=[DeliveryListQuerySerializer],
        responses=page_of(DeliverySerializer),
    )
    def get(self, request: Request, endpoint_id: str) -> Response:
        endpoint = endpoint_get(project=project_of(request), endpoint_id=endpoint_id)
        query = DeliveryListQuerySerializer(data=request.query_params.dict())
        query.is_valid(raise_exception=True)
        deliveries = delivery_list(endpoint=endpoint, status=query.validated_data.get("status"))
        paginator = NewestFirst()
        page = paginator.paginate_queryset(deliveries, request, view=self)
        return paginator.get_paginated_response(DeliverySerializer(page, many=True).data)


class DeliveryReplayView(APIView):
    @extend_schema(
        request=None,
        responses={202: DeliverySerializer},
        summary="Deliver the same event again (same webhook-id) with a fresh attempt sequence.",
    )
    def post(self, request: Request, delivery_id: str) -> Response:
        delivery = delivery_get(project=project_of(request), delivery_id=delivery_id)
        try:
            delivery = delivery_replay(delivery=delivery)
        except (DeliveryInProgress, EndpointInactive) as exc:
            raise Conflict(str(exc)) from None
        return Response(DeliverySerializer(delivery).data, status=status.HTTP_202_ACCEPTED)
