"""Admin for webhooks: endpoints (activate, ping, rotate), events and deliveries (with a replay action).

Imported by ``memhq.admin`` so that Django's admin autodiscovery registers it. Endpoints are created through
the API (which shows the signing secret once); secrets never appear here except once after a rotation.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from memhq.models import WebhookDelivery, WebhookEndpoint, WebhookEvent
from memhq.services.webhooks import (
    DeliveryInProgress,
    EndpointInactive,
    delivery_replay,
    endpoint_ping,
    endpoint_rotate_secret,
    endpoint_update,
)

DELIVERY_FIELDS = (
    "event",
    "endpoint",
    "status",
    "attempts",
    "replay_count",
    "last_attempt_at",
    "last_status_code",
    "last_error",
    "next_attempt_at",
    "delivered_at",
    "created_at",
)


class NoAddAdmin(admin.ModelAdmin):
    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ReadOnlyAdmin(NoAddAdmin):
    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class DeliveryInline(admin.TabularInline):
    model = WebhookDelivery
    fields = DELIVERY_FIELDS
    readonly_fields = DELIVERY_FIELDS
    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(WebhookEndpoint)
class WebhookEndpointAdmin(NoAddAdmin):
    list_display = ("url", "project", "is_active", "event_types", "disabled_reason", "created_at")
    list_filter = ("is_active", "project")
    search_fields = ("url", "description")
    ordering = ("-created_at",)
    fields = (
        "project",
        "url",
        "description",
        "event_types",
        "is_active",
        "disabled_reason",
        "disabled_at",
        "previous_secret_expires_at",
        "created_at",
        "updated_at",
    )
    readonly_fields = (
        "project",
        "url",
        "event_types",
        "disabled_reason",
        "disabled_at",
        "previous_secret_expires_at",
        "created_at",
        "updated_at",
    )
    actions = ["send_test_ping", "rotate_secret"]

    def save_model(self, request: HttpRequest, obj: WebhookEndpoint, form: Any, change: bool) -> None:
        endpoint_update(endpoint=obj, description=obj.description, is_active=obj.is_active)

    @admin.action(description="Send a test ping (webhook.ping)")
    def send_test_ping(self, request: HttpRequest, queryset: QuerySet[WebhookEndpoint]) -> None:
        sent = 0
        for endpoint in queryset:
            try:
                endpoint_ping(endpoint=endpoint)
                sent += 1
            except EndpointInactive:
                messages.warning(request, f"{endpoint.url} is disabled: not pinged.")
        messages.success(request, f"Ping queued for {sent} endpoint(s).")

    @admin.action(description="Rotate the signing secret (the old one stays valid for 24 h)")
    def rotate_secret(self, request: HttpRequest, queryset: QuerySet[WebhookEndpoint]) -> None:
        for endpoint in queryset:
            issued = endpoint_rotate_secret(endpoint=endpoint)
            messages.warning(
                request, f"New secret for {endpoint.url}, shown once — copy it now: {issued.secret}"
            )


@admin.register(WebhookEvent)
class WebhookEventAdmin(ReadOnlyAdmin):
    list_display = ("type", "user_id", "created_at", "project")
    list_filter = ("type", "project")
    search_fields = ("id", "user_id")
    ordering = ("-created_at",)
    inlines = [DeliveryInline]


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(ReadOnlyAdmin):
    list_display = ("id", "event", "endpoint", "status", "attempts", "last_status_code", "next_attempt_at")
    list_filter = ("status", "endpoint__project")
    ordering = ("-created_at",)
    list_select_related = ("event", "endpoint")
    search_fields = ("id", "event__id", "endpoint__url")
    fields = DELIVERY_FIELDS
    actions = ["replay"]

    @admin.action(description="Replay: deliver the same event again with a fresh attempt sequence")
    def replay(self, request: HttpRequest, queryset: QuerySet[WebhookDelivery]) -> None:
        replayed = 0
        for delivery in queryset:
            try:
                delivery_replay(delivery=delivery)
                replayed += 1
            except (DeliveryInProgress, EndpointInactive) as exc:
                messages.warning(request, f"Delivery {delivery.pk}: {exc}")
        messages.success(request, f"Replayed {replayed} deliveries.")
