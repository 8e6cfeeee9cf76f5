"""Operators inspect everything here. Episodes, evidence and journals are read-only."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.http import HttpRequest
from django.utils.html import format_html, format_html_join

from memhq.admin_base import ReadOnlyAdmin, ReadOnlyInline
from memhq.control.admin import (  # also registers erasure receipts and the cursor
    BatchRevertMixin,
    MemoryControlMixin,
)
from memhq.models import (
    ApiKey,
    Batch,
    Candidate,
    Entity,
    Episode,
    EpisodeMessage,
    Evidence,
    JournalEntry,
    Memory,
    Project,
)
from memhq.services.tenancy import api_key_create
from memhq.threads import admin as threads_admin  # noqa: F401  (registers threads)
from memhq.webhooks import admin as webhooks_admin  # noqa: F401  (registers endpoints, events, deliveries)


class ApiKeyInline(ReadOnlyInline):
    model = ApiKey
    fields = ("prefix", "name", "created_at", "last_used_at", "revoked_at")


@admin.register(Project)
class ProjectAdmin(admin.ModelAdmin):
    list_display = ("name", "id", "created_at")
    search_fields = ("name",)
    inlines = [ApiKeyInline]


@admin.register(ApiKey)
class ApiKeyAdmin(admin.ModelAdmin):
    list_display = ("prefix", "project", "name", "created_at", "last_used_at", "revoked_at")
    list_filter = ("project",)
    fields = ("project", "name", "prefix", "created_at", "last_used_at", "revoked_at")
    readonly_fields = ("prefix", "created_at", "last_used_at")

    def save_model(self, request: HttpRequest, obj: ApiKey, form: Any, change: bool) -> None:
        if change:
            super().save_model(request, obj, form, change)
            return
        issued = api_key_create(project=obj.project, name=obj.name)
        obj.pk, obj.prefix = issued.api_key.pk, issued.api_key.prefix
        messages.warning(request, f"The new API key, shown once — copy it now: {issued.plaintext}")


class EpisodeMessageInline(ReadOnlyInline):
    model = EpisodeMessage
    fields = ("index", "caller_id", "role", "name", "content", "document_date", "time_mentions")
    show_change_link = False


class CandidateInline(ReadOnlyInline):
    model = Candidate
    fields = (
        "ordinal",
        "claim",
        "kind",
        "subject",
        "predicate",
        "object_value",
        "confidence",
        "decision",
        "reason",
        "memory",
    )


@admin.register(Episode)
class EpisodeAdmin(ReadOnlyAdmin):
    list_display = ("id", "project", "user_id", "status", "phase_done", "received_at", "completed_at")
    list_filter = ("status", "project")
    search_fields = ("user_id", "id")
    date_hierarchy = "received_at"
    exclude = ("raw_body", "summary_embedding")
    readonly_fields = ("raw_body_text", "phase_timeline")
    inlines = [EpisodeMessageInline, CandidateInline]

    @admin.display(description="raw body (verbatim)")
    def raw_body_text(self, obj: Episode) -> str:
        return format_html(
            "<pre style='white-space:pre-wrap'>{}</pre>", bytes(obj.raw_body).decode(errors="replace")
        )

    @admin.display(description="phase timeline (ms)")
    def phase_timeline(self, obj: Episode) -> str:
        timings = (obj.stats or {}).get("timings_ms", {})
        return format_html_join("", "<div>{}: {} ms</div>", timings.items()) or "—"


class EvidenceInline(ReadOnlyInline):
    model = Evidence
    fields = ("episode", "message_indexes", "caller_message_ids", "quote", "created_at")


@admin.register(Memory)
class MemoryAdmin(MemoryControlMixin, ReadOnlyAdmin):
    list_display = (
        "text",
        "user_id",
        "kind",
        "status",
        "valid_from",
        "valid_until",
        "reinforce_count",
        "project",
    )
    list_filter = ("status", "kind", "origin", "project")
    search_fields = ("text", "user_id", "predicate", "object_value")
    exclude = ("embedding",)
    inlines = [EvidenceInline]


@admin.register(Entity)
class EntityAdmin(ReadOnlyAdmin):
    list_display = ("name", "type", "user_id", "mention_count", "merged_into", "project")
    list_filter = ("type", "project")
    search_fields = ("name", "normalized_name", "user_id")
    exclude = ("embedding",)


class JournalEntryInline(ReadOnlyInline):
    model = JournalEntry
    fields = ("seq", "op", "table", "row_id", "before", "after")
    show_change_link = False


@admin.register(Batch)
class BatchAdmin(BatchRevertMixin, ReadOnlyAdmin):
    list_display = ("id", "kind", "user_id", "actor", "note", "episode", "created_at", "project")
    list_filter = ("kind", "project")
    inlines = [JournalEntryInline]
