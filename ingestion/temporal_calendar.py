"""Calendar arithmetic for ``ingestion.temporal``: buckets ([start, end) UTC days with a granularity) and the
ordinals that pick "last / this / next" of a period. Month index = year * 12 + month - 1; season ordinal =
year * 4 + (0 spring .. 3), a season named by the year it begins in (winter 2022 is Dec 2022 - Feb 2023).
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Literal

Granularity = Literal["day", "week", "weekend", "month", "season", "year"]
Mode = Literal["last", "next", "past", "future", "nearest"]
Bucket = tuple[date, date, Granularity]

DAYS_PER_WEEK = 7
MONTHS_PER_YEAR = 12
SEASONS_PER_YEAR = 4
MONTHS_PER_SEASON = 3
MARCH_INDEX = 2  # 0-based index of March, where spring (season 0 of a season-year) starts


def pick(current: int, kind: int, period: int, mode: Mode) -> int:
    """The ordinal with ``ordinal % period == kind`` that ``mode`` selects relative to ``current``."""
    ahead = (kind - current) % period
    on_or_after, on_or_before = current + ahead, current + ahead - period if ahead else current
    if mode in ("past", "last"):
        return on_or_before - period if mode == "last" and not ahead else on_or_before
    if mode in ("future", "next"):
        return on_or_after + period if mode == "next" and not ahead else on_or_after
    return on_or_after if on_or_after - current <= current - on_or_before else on_or_before


def days(start: date, count: int, granularity: Granularity) -> Bucket:
    """``count`` days from ``start``."""
    return start, start + timedelta(days=count), granularity


def months(first: int, count: int, granularity: Granularity) -> Bucket:
    """``count`` months from the month index ``first``."""
    (y, m), (ny, nm) = divmod(first, MONTHS_PER_YEAR), divmod(first + count, MONTHS_PER_YEAR)
    return date(y, m + 1, 1), date(ny, nm + 1, 1), granularity


def month_index(d: date) -> int:
    return d.year * MONTHS_PER_YEAR + d.month - 1


def season_ordinal(d: date) -> int:
    return d.year * SEASONS_PER_YEAR + (d.month - 1 - MARCH_INDEX) // MONTHS_PER_SEASON


def containing(granularity: Granularity, d: date, shift: int = 0) -> Bucket:
    """The day/week/month/season/year holding ``d``, moved by ``shift`` units of that size."""
    if granularity == "day":
        return days(d + timedelta(days=shift), 1, "day")
    if granularity == "week":
        return days(d + timedelta(days=shift * DAYS_PER_WEEK - d.weekday()), DAYS_PER_WEEK, "week")
    if granularity == "month":
        return months(month_index(d) + shift, 1, "month")
    if granularity == "season":
        first = (season_ordinal(d) + shift) * MONTHS_PER_SEASON + MARCH_INDEX
        return months(first, MONTHS_PER_SEASON, "season")
    return months((d.year + shift) * MONTHS_PER_YEAR, MONTHS_PER_YEAR, "year")
