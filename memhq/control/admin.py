"""Admin for memory control: the batch revert action (dry-run diff on a confirmation page first), memory
disable/enable/delete actions, erasure receipts and the consolidation cursor (read-only).

Imported by ``memhq.admin``, whose ``BatchAdmin`` and ``MemoryAdmin`` mix in ``BatchRevertMixin`` and
``MemoryControlMixin``.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.db.models import QuerySet
from django.http import Http404, HttpRequest
from django.template.response import TemplateResponse

from memhq.models import Batch, ConsolidationCursor, ErasureReceipt, Memory, MemoryStatus
from memhq.services.memory_control import MemoryNotCurrent, memory_delete, memory_set_status
from memhq.services.revert import NotRevertible, RevertConflict, batch_revert, revert_plan

CONFIRMATION_TEMPLATE = "admin/memhq/batch/revert_confirmation.html"


def admin_actor(request: HttpRequest) -> str:
    return f"admin:{request.user.get_username()}"


class BatchRevertMixin(admin.ModelAdmin):
    """Adds "Revert" to a batch admin: one batch → its exact diff → confirm (or force) → a REVERT batch."""

    actions = ["revert_batch"]

    def has_revert_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.has_perm("memhq.change_batch"))

    @admin.action(description="Revert the selected batch (shows the changes first)", permissions=["revert"])
    def revert_batch(self, request: HttpRequest, queryset: QuerySet[Batch]) -> TemplateResponse | None:
        batches = list(queryset[:2])
        if len(batches) != 1:
            messages.error(request, "Select exactly one batch to revert.")
            return None
        batch = batches[0]
        if request.POST.get("confirm") == "yes":
            self._apply(request, batch, force=request.POST.get("force") == "on")
            return None
        try:
            plan = revert_plan(batch)
        except NotRevertible as exc:
            messages.error(request, f"Batch {batch.pk} cannot be reverted: {exc}")
            return None
        context = {
            **self.admin_site.each_context(request),
            "title": f"Revert {batch.kind} batch {batch.pk}?",
            "opts": self.model._meta,
            "batch": batch,
            "plan": plan,
            "changes": [change.as_dict() for change in plan.rows],
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, CONFIRMATION_TEMPLATE, context)

    def _apply(self, request: HttpRequest, batch: Batch, *, force: bool) -> None:
        try:
            result = batch_revert(batch=batch, actor=admin_actor(request), force=force)
        except RevertConflict as exc:
            later = ", ".join(conflict.batch_id for conflict in exc.plan.conflicts)
            messages.error(request, f"{exc} Later batches: {later}.")
            return None
        except NotRevertible as exc:
            messages.error(request, f"Batch {batch.pk} cannot be reverted: {exc}")
            return None
        if result.revert_batch is None:
            messages.info(request, f"Batch {batch.pk}: nothing to revert, every row is already as it was.")
        else:
            count = len(result.plan.applied)
            messages.success(
                request, f"Reverted batch {batch.pk}: {count} row(s) in batch {result.revert_batch.pk}."
            )
        return None


class MemoryControlMixin(admin.ModelAdmin):
    """Disable, enable or delete (status) memories from the admin, journaled as ``admin:<username>``."""

    actions = ["disable_memories", "enable_memories", "delete_memories"]

    def has_control_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.has_perm("memhq.change_memory"))

    def _each(self, request: HttpRequest, queryset: QuerySet[Memory], change: Any, verb: str) -> None:
        done = 0
        for memory in queryset.select_related("project"):
            try:
                result = change(project=memory.project, memory_id=memory.pk, actor=admin_actor(request))
            except (MemoryNotCurrent, Http404) as exc:
                messages.warning(request, f"Memory {memory.pk}: {str(exc) or 'already deleted'}")
                continue
            done += result.batch is not None
        messages.success(request, f"{verb} {done} memories.")

    @admin.action(description="Disable (out of recall, still listed)", permissions=["control"])
    def disable_memories(self, request: HttpRequest, queryset: QuerySet[Memory]) -> None:
        self._each(request, queryset, partial(memory_set_status, status=MemoryStatus.DISABLED), "Disabled")

    @admin.action(description="Enable", permissions=["control"])
    def enable_memories(self, request: HttpRequest, queryset: QuerySet[Memory]) -> None:
        self._each(request, queryset, partial(memory_set_status, status=MemoryStatus.ACTIVE), "Enabled")

    @admin.action(description="Delete (status deleted; history kept)", permissions=["control"])
    def delete_memories(self, request: HttpRequest, queryset: QuerySet[Memory]) -> None:
        self._each(request, queryset, memory_delete, "Deleted")


class _ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(ErasureReceipt)
class ErasureReceiptAdmin(_ReadOnly):
    list_display = ("id", "project", "finished_at", "actor", "ids_sha256")
    list_filter = ("project",)
    search_fields = ("id", "user_id_sha256", "ids_sha256")
    ordering = ("-finished_at",)


@admin.register(ConsolidationCursor)
class ConsolidationCursorAdmin(_ReadOnly):
    list_display = ("name", "pass_started_at", "step", "user_id", "chunks", "passes_completed", "updated_at")
