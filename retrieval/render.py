"""Render items as a context block for a system prompt, grouped by anchor, within a token budget."""

from __future__ import annotations

from collections import OrderedDict
from datetime import datetime

from memhq.ai.tokens import count_lines_tokens, count_tokens_batch
from retrieval.items import Item

HEADER = "What you know about this user (most relevant first):"
EXCERPTS = "From earlier conversations:"
SUMMARIES = "Earlier conversations were about:"


def _date(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%d") if value else ""


def period(item: Item, as_of: datetime | None) -> str:
    """When a memory holds, as seen from ``as_of`` (None: now): ended by then → "from to until, no longer
    true"; still true then → its start alone (an end after ``as_of`` is not shown: at ``as_of`` it was
    true, and what came later is not part of that picture)."""
    start = _date(item.valid_from)
    ended = item.valid_until is not None and (as_of is None or item.valid_until <= as_of)
    return f"{start} to {_date(item.valid_until)}, no longer true" if ended else start


def item_line(item: Item, as_of: datetime | None = None) -> str:
    if item.type == "memory":
        when = period(item, as_of)
        return f"- {item.text} ({when})" if when else f"- {item.text}"
    if item.type == "episode_summary":
        return f"- [{_date(item.when)}] {item.text}"
    speaker = f"{item.anchor}: " if item.anchor else ""
    when = f"[{_date(item.when)}] " if item.when else ""
    return f"- {when}{speaker}{item.text}"


def fit(items: list[Item], max_tokens: int, as_of: datetime | None = None) -> tuple[list[Item], str, int]:
    """Keep items in order while the rendered context fits ``max_tokens``; return (kept, text, tokens)."""
    lines = render_lines(items, as_of)
    tokens = count_lines_tokens(lines)
    if tokens <= max_tokens:  # the usual case: everything fits, one count
        return list(items), "\n".join(lines), tokens
    kept: list[Item] = []
    fixed = count_tokens_batch([HEADER, EXCERPTS, SUMMARIES])
    budget = max_tokens - sum(fixed)
    # Group titles cost a few tokens each; count them with the line so the total stays within budget.
    counts = count_tokens_batch([text for item in items for text in (item_line(item, as_of), item.anchor)])
    used = 0
    for position, item in enumerate(items):
        cost = counts[2 * position] + counts[2 * position + 1] + 2
        if used + cost > budget:
            continue
        kept.append(item)
        used += cost
    lines = render_lines(kept, as_of)
    tokens = count_lines_tokens(lines)
    while kept and tokens > max_tokens:  # a guard: the estimates above are meant to be upper bounds
        kept.pop()
        lines = render_lines(kept, as_of)
        tokens = count_lines_tokens(lines)
    return kept, "\n".join(lines), tokens if kept else 0


def render_lines(items: list[Item], as_of: datetime | None = None) -> list[str]:
    groups: OrderedDict[str, list[str]] = OrderedDict()
    excerpts: list[str] = []
    summaries: list[str] = []
    for item in items:
        if item.type == "memory":
            groups.setdefault(item.anchor or "user", []).append(item_line(item, as_of))
        elif item.type == "episode_summary":
            summaries.append(item_line(item, as_of))
        else:
            excerpts.append(item_line(item, as_of))
    parts: list[str] = []
    if groups:
        parts.append(HEADER)
        for anchor, lines in groups.items():
            parts.append(f"{anchor}:")
            parts.extend(lines)
    if excerpts:
        parts.append(EXCERPTS)
        parts.extend(excerpts)
    if summaries:
        parts.append(SUMMARIES)
        parts.extend(summaries)
    return parts
