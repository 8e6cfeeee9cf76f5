"""Small HTML pieces the admin's change pages show: an episode's phase timeline, the memories it made, a
memory's journal history, the memories that touch an entity. Escaped with format_html throughout."""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlencode

from django.db.models import Q
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from memhq.models import Candidate, Entity, Episode, Memory
from memhq.selectors.episode_timeline import episode_timeline
from memhq.selectors.memory_history import HistoryEvent, memory_history

BAR_MAX_PX = 320
MAX_LISTED = 200
OUTCOME_COLOURS = {"done": "#2e7d32", "failed": "#c62828", "running": "#f9a825", "pending": "#9e9e9e"}


def graph_link(project_id: object, user_id: str) -> SafeString:
    """Links to the admin's per-user page and memory graph page of one user."""
    query = urlencode({"project": str(project_id), "user_id": user_id})
    return format_html(
        '<a class="user-link" href="{}?{}">user</a> · <a class="graph-link" href="{}?{}">graph</a>',
        reverse("admin-user"),
        query,
        reverse("admin-graph"),
        query,
    )


def memory_link(memory: Memory) -> SafeString:
    url = reverse("admin:memhq_memory_change", args=[memory.pk])
    return format_html('<a href="{}">{}</a> <small>({})</small>', url, memory.text, memory.status)


def timeline_html(episode: Episode) -> SafeString:
    rows = episode_timeline(episode)
    longest = max((row.duration_ms or 0.0 for row in rows), default=0.0) or 1.0
    body = format_html_join(
        "",
        '<tr class="phase-row phase-{}"><td>{}</td><td>{}</td><td>{}</td>'
        '<td><span class="phase-bar" style="display:inline-block;height:10px;width:{}px;background:{}">'
        "</span> {}</td><td>{}</td><td>{}</td></tr>",
        (
            (
                row.outcome,
                row.name,
                row.started_at.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3] if row.started_at else "—",
                row.outcome,
                max(2, round(BAR_MAX_PX * (row.duration_ms or 0.0) / longest)) if row.duration_ms else 0,
                OUTCOME_COLOURS[row.outcome],
                f"{row.duration_ms:.1f} ms" if row.duration_ms is not None else "",
                row.retries if row.tries is not None else "—",
                row.error,
            )
            for row in rows
        ),
    )
    head = "<tr><th>phase</th><th>started</th><th>outcome</th><th>duration</th><th>retries</th><th>error</th>"
    return format_html('<table class="phase-timeline">{}</tr>{}</table>', SafeString(head), body)


def episode_memories_html(episode: Episode) -> SafeString:
    ids = Candidate.objects.filter(episode=episode, memory__isnull=False).values("memory_id")
    memories = Memory.objects.defer("embedding").filter(Q(episode=episode) | Q(pk__in=ids)).distinct()
    return _list(memory_link(memory) for memory in memories.order_by("-recorded_at")[:MAX_LISTED])


def entity_memories_html(entity: Entity) -> SafeString:
    memories = Memory.objects.defer("embedding").filter(
        Q(subject_entity=entity) | Q(object_entity=entity) | Q(entity_ids__contains=[entity.pk]),
        project_id=entity.project_id,
        user_id=entity.user_id,
    )
    return _list(memory_link(memory) for memory in memories.order_by("-recorded_at")[:MAX_LISTED])


def _list(items: Iterable[SafeString]) -> SafeString:
    html = format_html_join("", "<li>{}</li>", ((item,) for item in items))
    return format_html("<ul>{}</ul>", html) if html else SafeString("—")


def _event_html(event: HistoryEvent) -> SafeString:
    changes = format_html_join(
        ", ", "{}: {} → {}", ((name, c["before"], c["after"]) for name, c in event.changes.items())
    )
    quotes = format_html_join("", "<blockquote>“{}”</blockquote>", ((row.quote,) for row in event.evidence))
    batch = event.batch
    batch_link = (
        format_html(
            '<a href="{}">{} batch</a> {}',
            reverse("admin:memhq_batch_change", args=[batch.pk]),
            batch.kind,
            batch.actor,
        )
        if batch is not None
        else ""
    )
    return format_html(
        '<tr class="history-event"><td>{}</td><td><b>{}</b></td><td><code>{}</code></td><td>{}</td>'
        "<td>{}{}</td></tr>",
        event.at.isoformat(timespec="seconds"),
        event.action,
        event.memory_id[:8],
        batch_link,
        changes,
        quotes,
    )


def history_html(memory: Memory) -> SafeString:
    history = memory_history(memory)
    versions = format_html_join("", "<li>{}</li>", ((memory_link(version),) for version in history.versions))
    events = format_html_join("", "{}", ((_event_html(event),) for event in history.events))
    return format_html(
        '<p>Versions (oldest first):</p><ol class="history-versions">{}</ol>'
        '<table class="memory-history"><tr><th>when</th><th>what</th><th>version</th><th>batch</th>'
        "<th>changes / evidence</th></tr>{}</table>{}",
        versions,
        events,
        "(more events than shown)" if history.truncated else "",
    )
