"""Request validation and response shapes for webhook endpoints and deliveries."""

from __future__ import annotations

from typing import Any

from django.core.validators import URLValidator
from rest_framework import serializers

from memhq.api.serializers import JsonBooleanField, StrictSerializer
from memhq.models import DeliveryStatus, WebhookDelivery, WebhookEndpoint
from memhq.models.webhooks import EVENT_TYPES

MAX_URL_CHARS = 2000
MAX_DESCRIPTION_CHARS = 500
URL_SCHEMES = ["http", "https"]


def url_field(*, required: bool) -> serializers.URLField:
    return serializers.URLField(
        required=required, max_length=MAX_URL_CHARS, validators=[URLValidator(schemes=URL_SCHEMES)]
    )


def event_types_field(*, required: bool) -> serializers.ListField:
    return serializers.ListField(
        required=required,
        child=serializers.ChoiceField(choices=EVENT_TYPES),
        allow_empty=False,
        help_text=f"Any of: {', '.join(EVENT_TYPES)}.",
    )


class EndpointCreateSerializer(StrictSerializer):
    url = url_field(required=True)
    event_types = event_types_field(required=True)
    description = serializers.CharField(
        required=False, allow_blank=True, max_length=MAX_DESCRIPTION_CHARS, default=""
    )
    active = JsonBooleanField(required=False, default=True)


class EndpointUpdateSerializer(StrictSerializer):
    url = url_field(required=False)
    event_types = event_types_field(required=False)
    description = serializers.CharField(required=False, allow_blank=True, max_length=MAX_DESCRIPTION_CHARS)
    active = JsonBooleanField(required=False)


class EndpointSerializer(serializers.ModelSerializer):
    active = serializers.BooleanField(source="is_active")

    class Meta:
        model = WebhookEndpoint
        fields = [
            "id",
            "url",
            "description",
            "event_types",
            "active",
            "disabled_reason",
            "disabled_at",
            "previous_secret_expires_at",
            "created_at",
            "updated_at",
        ]


class EndpointWithSecretSerializer(EndpointSerializer):
    """Creation and rotation only: the signing secret, shown this once."""

    secret = serializers.SerializerMethodField()

    class Meta(EndpointSerializer.Meta):
        fields = [*EndpointSerializer.Meta.fields, "secret"]

    def get_secret(self, endpoint: WebhookEndpoint) -> str:
        return str(self.context["secret"])


class DeliverySerializer(serializers.ModelSerializer):
    event_id = serializers.UUIDField(source="event.id")
    event_type = serializers.CharField(source="event.type")
    endpoint_id = serializers.UUIDField()

    class Meta:
        model = WebhookDelivery
        fields = [
            "id",
            "endpoint_id",
            "event_id",
            "event_type",
            "status",
            "attempts",
            "replay_count",
            "last_attempt_at",
            "last_status_code",
            "last_error",
            "next_attempt_at",
            "delivered_at",
            "created_at",
        ]


class DeliveryListQuerySerializer(StrictSerializer):
    status = serializers.ChoiceField(required=False, choices=DeliveryStatus.choices)
    cursor = serializers.CharField(required=False)
    page_size = serializers.IntegerField(required=False, min_value=1, max_value=200)


class ListQuerySerializer(StrictSerializer):
    cursor = serializers.CharField(required=False)
    page_size = serializers.IntegerField(required=False, min_value=1, max_value=200)


def update_arguments(data: dict[str, Any]) -> dict[str, Any]:
    """Validated PATCH fields → ``endpoint_update`` keyword arguments."""
    renamed = {"active": "is_active"}
    return {renamed.get(name, name): value for name, value in data.items()}
