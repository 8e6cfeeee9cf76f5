"""Admin for threads: each thread with its summary, its messages and the episodes cut from it (read-only).

Imported by ``memhq.admin`` so that Django's admin autodiscovery registers it.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from memhq.admin_base import ReadOnlyInline
from memhq.models import Episode, Thread, ThreadMessage


class ThreadMessageInline(ReadOnlyInline):
    model = ThreadMessage
    fields = ("seq", "role", "name", "content", "caller_id", "timestamp", "created_at", "tokens", "episode")
    ordering = ("seq",)


class ThreadEpisodeInline(ReadOnlyInline):
    model = Episode
    fields = ("id", "status", "phase_done", "received_at", "completed_at")
    ordering = ("received_at",)
    show_change_link = True
    verbose_name_plural = "episodes cut from this thread"


@admin.register(Thread)
class ThreadAdmin(admin.ModelAdmin):
    list_display = (
        "key",
        "user_id",
        "project",
        "status",
        "temporary",
        "message_count",
        "last_activity_at",
        "episode_due_at",
    )
    list_filter = ("status", "temporary", "project")
    search_fields = ("key", "user_id")
    ordering = ("-last_activity_at",)
    date_hierarchy = "created_at"
    inlines = [ThreadEpisodeInline, ThreadMessageInline]

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
