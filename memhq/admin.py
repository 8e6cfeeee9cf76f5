"""Operators inspect everything here. Episodes, evidence and journals are read-only."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils.html import format_html
from django.utils.safestring import SafeString

from memhq.admin_base import ReadOnlyAdmin, ReadOnlyInline
from memhq.control.admin import (  # also registers erasure receipts and the cursor
    BatchRevertMixin,
    MemoryControlMixin,
    admin_actor,
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
from memhq.ops import admin_html
from memhq.services.episode_retry import EpisodeNotFailed, episode_retry
from memhq.services.tenancy import api_key_create
from memhq.threads import admin as threads_admin  # noqa: F401  (registers threads)
from memhq.webhooks import admin as webhooks_admin  # noqa: F401  (registers endpoints, events, deliveries)


class ApiKeyInline(ReadOnlyInline):
    model = ApiKey
    fields = ("prefix", "name", "created_at", "last_used_at", "revoked_at")


@admin.register(Project)
class ProjectAdmin(admin.ModelAdmin):
    list_display = ("name", "id", "created_at")
    ordering = ("-created_at",)
    search_fields = ("name",)
    inlines = [ApiKeyInline]


@admin.register(ApiKey)
class ApiKeyAdmin(admin.ModelAdmin):
    list_display = ("prefix", "project", "name", "created_at", "last_used_at", "revoked_at")
    list_filter = ("project",)
    search_fields = ("prefix", "name")
    ordering = ("-created_at",)
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
    list_display = (
        "id",
        "project",
        "user_id",
        "status",
        "phase_done",
        "error_phase",
        "received_at",
        "completed_at",
        "graph",
    )
    list_filter = ("status", "error_phase", "error_kind", "project", "received_at")
    search_fields = ("=id", "user_id", "thread_key", "error")
    ordering = ("-received_at",)
    date_hierarchy = "received_at"
    readonly_fields = ("phase_timeline", "memories_made", "graph", "raw_body_text")
    # The journey first (what happened, where it failed, what it made); the record's details after.
    fieldsets = (
        (
            None,
            {"fields": ("project", "user_id", "status", "error_phase", "error_kind", "error", "attempts")},
        ),
        ("Journey", {"fields": ("phase_timeline", "memories_made", "graph")}),
        ("Raw body", {"fields": ("raw_body_text",)}),
        (
            "Details",
            {
                "classes": ("collapse",),
                "fields": (
                    "thread_key",
                    "thread",
                    "content_hash",
                    "idempotency_key",
                    "received_at",
                    "phase_done",
                    "phase_running",
                    "progressed_at",
                    "publish_from",
                    "stats",
                    "summary",
                    "key_learnings",
                    "completed_at",
                    "indexed_at",
                ),
            },
        ),
    )
    inlines = [EpisodeMessageInline, CandidateInline]
    actions = ["retry_episodes"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Episode]:
        return super().get_queryset(request).defer("raw_body", "summary_embedding")

    @admin.display(description="raw body (verbatim)")
    def raw_body_text(self, obj: Episode) -> str:
        raw = Episode.objects.filter(pk=obj.pk).values_list("raw_body", flat=True).first() or b""
        return format_html("<pre style='white-space:pre-wrap'>{}</pre>", bytes(raw).decode(errors="replace"))

    @admin.display(description="phase timeline")
    def phase_timeline(self, obj: Episode) -> SafeString:
        return admin_html.timeline_html(obj)

    @admin.display(description="user · graph")
    def graph(self, obj: Episode) -> SafeString:
        return admin_html.graph_link(obj.project_id, obj.user_id)

    @admin.display(description="memories made")
    def memories_made(self, obj: Episode) -> SafeString:
        return admin_html.episode_memories_html(obj)

    def has_retry_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.has_perm("memhq.change_episode"))

    @admin.action(
        description="Retry the selected failed episodes from their failed phase", permissions=["retry"]
    )
    def retry_episodes(self, request: HttpRequest, queryset: QuerySet[Episode]) -> None:
        done = 0
        for episode in queryset.select_related("project").only("pk", "project"):
            try:
                episode_retry(project=episode.project, episode_id=episode.pk, actor=admin_actor(request))
            except (EpisodeNotFailed, Http404) as exc:
                messages.warning(request, f"Episode {episode.pk}: {exc or 'not found'}")
                continue
            done += 1
        messages.success(request, f"Retried {done} episode(s).")


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
        "graph",
    )
    list_filter = ("status", "kind", "origin", "project", "recorded_at")
    search_fields = ("=id", "text", "user_id", "predicate", "object_value")
    ordering = ("-recorded_at",)
    date_hierarchy = "recorded_at"
    exclude = ("embedding",)
    readonly_fields = ("history", "graph")
    inlines = [EvidenceInline]

    @admin.display(description="user · graph")
    def graph(self, obj: Memory) -> SafeString:
        return admin_html.graph_link(obj.project_id, obj.user_id)

    @admin.display(description="history (from the journal)")
    def history(self, obj: Memory) -> SafeString:
        return admin_html.history_html(obj)

    def history_view(self, request: HttpRequest, object_id: str, extra_context: Any = None) -> HttpResponse:
        """The "History" button: the memory's journal (versions, supersessions, reinforcements, edits,
        evidence), not Django's admin log, which never sees these changes."""
        memory = self.get_object(request, object_id)
        if memory is None or not self.has_view_permission(request, memory):
            raise Http404
        context = {
            **self.admin_site.each_context(request),
            "title": f"History: {memory.text}",
            "opts": self.model._meta,
            "object": memory,
            "history": admin_html.history_html(memory),
        }
        return TemplateResponse(request, "admin/memhq/memory/journal_history.html", context)


@admin.register(Entity)
class EntityAdmin(ReadOnlyAdmin):
    list_display = ("name", "type", "user_id", "mention_count", "merged_into", "project", "graph")
    list_filter = ("type", "project", "created_at")
    search_fields = ("=id", "name", "normalized_name", "user_id")
    ordering = ("-created_at",)
    exclude = ("embedding",)
    readonly_fields = ("alias_list", "memories", "graph")

    @admin.display(description="user · graph")
    def graph(self, obj: Entity) -> SafeString:
        return admin_html.graph_link(obj.project_id, obj.user_id)

    @admin.display(description="aliases")
    def alias_list(self, obj: Entity) -> str:
        return ", ".join(obj.aliases) or "—"

    @admin.display(description="memories touching it")
    def memories(self, obj: Entity) -> SafeString:
        return admin_html.entity_memories_html(obj)


class JournalEntryInline(ReadOnlyInline):
    model = JournalEntry
    fields = ("seq", "op", "table", "row_id", "before", "after")
    show_change_link = False


@admin.register(Batch)
class BatchAdmin(BatchRevertMixin, ReadOnlyAdmin):
    list_display = ("id", "kind", "user_id", "actor", "note", "episode", "created_at", "project")
    list_filter = ("kind", "project", "created_at")
    search_fields = ("=id", "user_id", "actor", "note")
    ordering = ("-created_at",)
    inlines = [JournalEntryInline]
