"""Find time expressions in a message and resolve them against the message's document date.

Choices (each covered by tests/ingestion/test_temporal.py):

- A small grammar of precompiled regexes finds the spans; ``dateparser`` resolves the explicit dates it is
  good at ("May 7, 2023", "7th of May", "2023-05-07", "5/7/23", the year of "May 7"). ``dateparser.search``
  is not used: on a typical message it took ~2 ms and returned "may", "a second" and "last month and" as
  dates, without offsets. A cheap prefilter returns [] for text with no date-ish token.
- Buckets are UTC calendar units, start inclusive / end exclusive at midnight. Weeks start on Monday; a
  weekend is Saturday 00:00 to Monday 00:00; seasons are northern-hemisphere meteorological (spring Mar-May,
  summer Jun-Aug, autumn Sep-Nov, winter Dec-Feb, named by the year they begin in).
- "last X" is the latest X strictly before the current one, "next X" the first strictly after it ("next
  Friday" on a Monday is that week's Friday; "last weekend" is the latest one already over). "this
  <weekday>" is the coming one (today included), "this <season>" the nearest, "this March" the current
  year's. Bare weekdays, months, seasons, "the weekend" and dates without a year resolve to the nearest
  occurrence in the past, the current one included, unless the sentence before them has a future cue
  ("will", "'ll", "going to", ...): then to the nearest in the future.
- "N days ago" is that day; "N weeks/months/years ago" the week/month/year holding that point. "a few" and
  "several" count as 3 and widen the bucket one step (days -> week, weeks -> month, months -> season) so a
  claim carries no false precision; "a couple (of)" is exactly 2.
- False positives avoided: "may"/"march"/"mar" count only capitalised or after in/last/next ("this may be",
  "we march on" are not dates); bare months need in/during or since/until/early/... ("March on", "I may go"
  are not); bare years need in/during or since/until/before/after/early/late/mid ("paid 2022 euros" is not);
  seasons need a preposition, last/this/next or a year ("I spring into action" is not); weekday
  abbreviations ("sun", "sat", "wed") and "a second" never match; plurals ("on Fridays") are habits.
- Spans absorb a leading in/on/during/over/at ("in March", "on Friday"): ``format_when`` brings its own
  preposition. Context words ("since", "until", "early") stay outside the span.
- Not handled: times of day, "in two weeks" (often a duration), "the other day", durations, dotted numeric
  dates (day/month order is ambiguous), holidays, counts that look like years after "in" ("in 2000 cases").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from datetime import UTC, date, datetime, timedelta
from typing import Literal

import dateparser

from ingestion.extractors.base import TimeMention

Granularity = Literal["day", "week", "weekend", "month", "season", "year"]
Mode = Literal["last", "next", "past", "future", "nearest"]
Bucket = tuple[date, date, Granularity]

DAYS_PER_WEEK = 7
MONTHS_PER_YEAR = 12
SEASONS_PER_YEAR = 4
MONTHS_PER_SEASON = 3
MARCH_INDEX = 2  # 0-based index of March, the first month of spring, the first season of a season-year
SATURDAY_OFFSET = 5  # days from Monday
SATURDAY_KIND = (SATURDAY_OFFSET + 1) % DAYS_PER_WEEK  # date.toordinal() % 7 of a Saturday
WEEKEND_DAYS = 2
VAGUE_COUNT = 3  # "a few" / "several"
CONTEXT_LOOKBACK_CHARS = 24  # how far back "since", "until", ... may be before a bare month or year
SEASONS = ("spring", "summer", "autumn", "winter")
MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
               "October", "November", "December")
WIDER: dict[Granularity, Granularity] = {"day": "week", "week": "month", "month": "season", "year": "year"}

_MONTHS = {n: i for i, names in enumerate(("january jan", "february feb", "march mar", "april apr", "may",
                                           "june jun", "july jul", "august aug", "september sept sep",
                                           "october oct", "november nov", "december dec")) for n in names.split()}
_AMBIGUOUS_MONTHS = frozenset({"may", "march", "mar"})
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
            "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20,
            "thirty": 30, "a couple of": 2, "a couple": 2, "couple of": 2}
_VAGUE = ("a few", "few", "several")


def _alternation(words: Iterable[str]) -> str:
    """A regex alternation, longest first, any run of whitespace allowed between words."""
    return "|".join(r"\s+".join(map(re.escape, w.split())) for w in sorted(words, key=len, reverse=True))


_MON = f"(?P<mon>{_alternation(_MONTHS)})"
_WD = f"(?P<wd>{_alternation(_WEEKDAYS)})"
_SEASON = r"(?P<season>spring|summer|autumn|fall|winter)"
_REL = r"(?P<rel>this\s+past|this\s+coming|last|this|next|past|coming)"
_YEAR = r"(?P<year>(?:19|20)\d{2})"
_QTY = f"(?P<qty>\\d{{1,3}}|{_alternation([*_NUMBERS, *_VAGUE])})"
_ORD = r"(?:st|nd|rd|th)?"
_IN = r"(?:(?P<prep>in|during|throughout)\s+)?"

_PREFILTER = re.compile(
    r"\d|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|(?:mon|tues|wednes|thurs|fri|satur|sun)day"
    r"|yesterday|today|tonight|tomorrow|ago|from\s+now|week|month|year|spring|summer|autumn|fall|winter"
    r"|night)", re.I)
_MONTH_CONTEXT = re.compile(r"\b(?:since|until|till|before|after|through|around|of|early|late|mid)[\s-]+$", re.I)
_YEAR_CONTEXT = re.compile(r"\b(?:since|until|till|before|after|early|late|mid|(?:end|start|middle) of)"
                           r"[\s-]+$", re.I)
_FUTURE_CUE = re.compile(r"\b(?:will|shall|going\s+to|gonna|plan(?:ning)?\s+to|about\s+to|hope\s+to"
                         r"|can'?t\s+wait|looking\s+forward|upcoming)\b|\w['’]ll\b", re.I)
_SENTENCE_END = re.compile(r"[.!?\n][^.!?\n]*$")


class _Ctx:
    """What a resolver needs: the text and the document date (an aware UTC instant and its UTC day)."""

    def __init__(self, text: str, now: datetime) -> None:
        self.text, self.now, self.today = text, now, now.date()

    def future(self, start: int) -> bool:
        """Whether the sentence up to ``start`` has a future-tense cue."""
        head = self.text[:start]
        tail = _SENTENCE_END.search(head)
        return _FUTURE_CUE.search(tail.group() if tail else head) is not None

    def after(self, pattern: re.Pattern[str], start: int) -> bool:
        return pattern.search(self.text[max(0, start - CONTEXT_LOOKBACK_CHARS):start]) is not None


# -- calendar arithmetic -------------------------------------------------------------------------------------

def _pick(current: int, kind: int, period: int, mode: Mode) -> int:
    """The ordinal with ``ordinal % period == kind`` that ``mode`` selects relative to ``current``."""
    ahead = (kind - current) % period
    on_or_after = current + ahead
    on_or_before = on_or_after - period if ahead else current
    if mode in ("past", "last"):
        return on_or_before - period if mode == "last" and not ahead else on_or_before
    if mode in ("future", "next"):
        return on_or_after + period if mode == "next" and not ahead else on_or_after
    return on_or_after if on_or_after - current <= current - on_or_before else on_or_before


def _day(d: date) -> Bucket:
    return d, d + timedelta(days=1), "day"


def _week(d: date) -> Bucket:
    monday = d - timedelta(days=d.weekday())
    return monday, monday + timedelta(days=DAYS_PER_WEEK), "week"


def _weekend(saturday: date) -> Bucket:
    return saturday, saturday + timedelta(days=WEEKEND_DAYS), "weekend"


def _month(index: int) -> Bucket:
    """``index`` counts months: year * 12 + (month - 1)."""
    (y, m), (ny, nm) = divmod(index, MONTHS_PER_YEAR), divmod(index + 1, MONTHS_PER_YEAR)
    return date(y, m + 1, 1), date(ny, nm + 1, 1), "month"


def _season(ordinal: int) -> Bucket:
    """``ordinal`` counts seasons: year * 4 + (0 spring, 1 summer, 2 autumn, 3 winter)."""
    first = ordinal * MONTHS_PER_SEASON + MARCH_INDEX
    return _month(first)[0], _month(first + MONTHS_PER_SEASON)[0], "season"


def _year(y: int) -> Bucket:
    return date(y, 1, 1), date(y + 1, 1, 1), "year"


def _month_index(d: date) -> int:
    return d.year * MONTHS_PER_YEAR + d.month - 1


def _season_ordinal(d: date) -> int:
    return (_month_index(d) - MARCH_INDEX) // MONTHS_PER_SEASON


def _bucket_of(granularity: Granularity, d: date) -> Bucket:
    if granularity in ("day", "week"):
        return _day(d) if granularity == "day" else _week(d)
    if granularity in ("month", "season"):
        return _month(_month_index(d)) if granularity == "month" else _season(_season_ordinal(d))
    return _year(d.year)


def _mode(rel: str | None, future: bool) -> Mode:
    if not rel:
        return "future" if future else "past"
    return {"past": "last", "last": "last", "coming": "next", "next": "next"}.get(rel.split()[-1].lower(), "nearest")


# -- resolvers: a match to a bucket, or None to reject it -----------------------------------------------------

Resolver = Callable[[re.Match[str], _Ctx], Bucket | None]


def _usable_month(word: str, lenient: bool = False) -> bool:
    """"may"/"march" are dates when capitalised, or when ``lenient`` (after "in", "last", "next")."""
    return lenient or word.lower() not in _AMBIGUOUS_MONTHS or word[0].isupper()


def _explicit_day(m: re.Match[str], ctx: _Ctx) -> Bucket | None:
    groups = m.groupdict()
    yearless = groups.get("mon") is not None and groups.get("year") is None
    if yearless and not _usable_month(groups["mon"]):
        return None
    future = yearless and ctx.future(m.start())
    base = ctx.now.replace(tzinfo=None)  # dateparser compares naive datetimes; both sides are UTC
    settings = {"RELATIVE_BASE": base - timedelta(days=1) if future else base, "DATE_ORDER": "MDY",
                "PREFER_DATES_FROM": "future" if future else "past", "PREFER_DAY_OF_MONTH": "first"}
    parsed: datetime | None = dateparser.parse(m.group("date"), languages=["en"], settings=settings)
    return _day(parsed.date()) if parsed is not None else None


def _month_year(m: re.Match[str], ctx: _Ctx) -> Bucket | None:
    return _month(int(m.group("year")) * MONTHS_PER_YEAR + _MONTHS[m.group("mon").lower()])


def _year_only(m: re.Match[str], ctx: _Ctx) -> Bucket | None:
    return _year(int(m.group("year"))) if m.group("prep") or ctx.after(_YEAR_CONTEXT, m.start()) else None


def _month_name(m: re.Match[str], ctx: _Ctx) -> Bucket | None:
    rel, prep = m.group("rel"), m.group("prep")
    lenient = bool(prep) or (rel or "").lower() in ("last", "next")
    if not _usable_month(m.group("mon"), lenient) or not (rel or prep or ctx.after(_MONTH_CONTEXT, m.start())):
        return None
    kind = _MONTHS[m.group("mon").lower()]
    if rel and rel.lower() == "this":
        return _month(ctx.today.year * MONTHS_PER_YEAR + kind)
    return _month(_pick(_month_index(ctx.today), kind, MONTHS_PER_YEAR, _mode(rel, ctx.future(m.start()))))


def _weekday(m: re.Match[str], ctx: _Ctx) -> Bucket | None:
    kind = (_WEEKDAYS.index(m.group("wd").lower()) + 1) % DAYS_PER_WEEK  # date.toordinal() % 7 of that day
    rel = m.group("rel")
    mode: Mode = "future" if rel and rel.lower() == "this" else _mode(rel, ctx.future(m.start()))
    return _day(date.fromordinal(_pick(ctx.today.toordinal(), kind, DAYS_PER_WEEK, mode)))


def _weekend_rel(m: re.Match[str], ctx: _Ctx) -> Bucket | None:
    rel, today = (m.group("rel") or "").lower(), ctx.today
    if rel == "this":
        return _weekend(_week(today)[0] + timedelta(days=SATURDAY_OFFSET))
    if not rel and not m.group("prep"):
        return None
    mode = _mode(rel, ctx.future(m.start()))
    # Saturdays are compared with a shifted today: "last" must be over, a bare "the weekend" may be now.
    shift = {"last": WEEKEND_DAYS, "future": 1}.get(mode, 0)
    saturday = _pick(today.toordinal() - shift, SATURDAY_KIND, DAYS_PER_WEEK, "past" if mode == "last" else mode)
    return _weekend(date.fromordinal(saturday))


def _season_name(m: re.Match[str], ctx: _Ctx) -> Bucket | None:
    name = m.group("season").lower()
    kind = SEASONS.index("autumn" if name == "fall" else name)
    if m.group("year"):
        return _season(int(m.group("year")) * SEASONS_PER_YEAR + kind)
    if not (m.group("rel") or m.group("prep")):
        return None
    mode = _mode(m.group("rel"), ctx.future(m.start()))
    return _season(_pick(_season_ordinal(ctx.today), kind, SEASONS_PER_YEAR, mode))


def _relative_unit(m: re.Match[str], ctx: _Ctx) -> Bucket | None:
    step = {"last": -1, "this": 0, "next": 1}[m.group("rel").lower()]
    unit, today = m.group("unit").lower(), ctx.today
    if unit == "week":
        return _week(today + timedelta(weeks=step))
    return _month(_month_index(today) + step) if unit == "month" else _year(today.year + step)


def _day_word(m: re.Match[str], ctx: _Ctx) -> Bucket | None:
    word = " ".join(m.group("word").lower().split())
    offset = {"yesterday": -1, "last night": -1, "tomorrow": 1, "the day before yesterday": -2,
              "the day after tomorrow": 2}.get(word, 0)
    return _day(ctx.today + timedelta(days=offset))


def _ago(m: re.Match[str], ctx: _Ctx) -> Bucket | None:
    qty, unit = " ".join(m.group("qty").lower().split()), m.group("unit").lower()
    vague = qty in _VAGUE
    count = VAGUE_COUNT if vague else int(qty) if qty.isdigit() else _NUMBERS[qty]
    sign = -1 if m.group("dir").lower() == "ago" else 1
    if unit in ("minute", "hour"):
        return _day((ctx.now + sign * timedelta(**{unit + "s": count})).date())
    if unit in ("day", "week"):
        point = ctx.today + sign * timedelta(**{unit + "s": count})
    else:
        point = _month(_month_index(ctx.today) + sign * count * (MONTHS_PER_YEAR if unit == "year" else 1))[0]
    granularity: Granularity = "day" if unit == "day" else "week" if unit == "week" else (
        "month" if unit == "month" else "year")
    return _bucket_of(WIDER[granularity] if vague else granularity, point)


# -- the grammar: every pattern names the mention's span "m" ------------------------------------------------

_GRAMMAR: tuple[tuple[re.Pattern[str], Resolver], ...] = tuple((re.compile(p, re.I), r) for p, r in (
    (rf"(?P<m>\b(?:on\s+)?(?:{_WD},?\s+)?(?P<date>{_MON}\.?\s+\d{{1,2}}{_ORD}\b(?:,?\s+{_YEAR})?))\b", _explicit_day),
    (rf"(?P<m>\b(?:on\s+)?(?:{_WD},?\s+)?(?P<date>(?:the\s+)?\d{{1,2}}{_ORD}\s+(?:of\s+)?{_MON}(?:,?\s+{_YEAR})?))\b",
     _explicit_day),
    (r"(?P<m>\b(?:on\s+)?(?P<date>\d{4}[-/]\d{1,2}[-/]\d{1,2}|\d{1,2}/\d{1,2}/(?:\d{4}|\d{2})))(?![\d/-])",
     _explicit_day),
    (rf"(?P<m>\b{_IN}{_MON}\.?,?\s+(?:of\s+)?{_YEAR})\b", _month_year),
    (rf"(?P<m>\b{_IN}(?:the\s+year\s+)?{_YEAR})\b", _year_only),
    (rf"(?P<m>\b{_IN}(?:{_REL}\s+)?{_MON})\b(?!['’]s)", _month_name),
    (rf"(?P<m>\b(?:on\s+)?(?:{_REL}\s+)?{_WD}(?:\s+(?:morning|afternoon|evening|night))?)\b", _weekday),
    (rf"(?P<m>\b(?:(?P<prep>on|over|at|during)\s+)?(?:{_REL}|the)\s+weekend)\b", _weekend_rel),
    (rf"(?P<m>\b(?:(?P<prep>in|during|over|throughout)\s+)?(?:the\s+)?(?:{_REL}\s+)?{_SEASON}"
     rf"(?:\s+(?:of\s+)?{_YEAR})?)\b", _season_name),
    (r"(?P<m>\b(?P<rel>last|this|next)\s+(?P<unit>week|month|year))\b", _relative_unit),
    (r"(?P<m>\b(?P<word>the\s+day\s+before\s+yesterday|the\s+day\s+after\s+tomorrow|yesterday|today|tonight"
     r"|tomorrow|last\s+night|this\s+(?:morning|afternoon|evening))(?:\s+(?:morning|afternoon|evening|night))?)\b",
     _day_word),
    (rf"(?P<m>\b{_QTY}\s+(?P<unit>minute|hour|day|week|month|year)s?\s+(?P<dir>ago|from\s+now))\b", _ago),
))


def _utc(d: date) -> datetime:
    return datetime(d.year, d.month, d.day, tzinfo=UTC)


def find_time_mentions(text: str, document_date: datetime) -> list[TimeMention]:
    """Time expressions in ``text`` resolved against ``document_date``, in text order, never overlapping.

    Where candidates overlap the longest wins (then the earliest). ``document_date`` must be aware.
    """
    if document_date.tzinfo is None:
        raise ValueError("document_date must be timezone-aware")
    if not _PREFILTER.search(text):
        return []
    ctx = _Ctx(text, document_date.astimezone(UTC))
    found: list[tuple[int, int, Bucket]] = []
    for pattern, resolve in _GRAMMAR:
        for match in pattern.finditer(text):
            bucket = resolve(match, ctx)
            if bucket is not None:
                found.append((*match.span("m"), bucket))
    found.sort(key=lambda f: (f[0] - f[1], f[0]))
    taken: list[tuple[int, int, Bucket]] = []
    for start, end, bucket in found:
        if all(end <= s or start >= e for s, e, _ in taken):
            taken.append((start, end, bucket))
    return [TimeMention(text[s:e], s, e, _utc(b[0]), _utc(b[1]), b[2]) for s, e, b in sorted(taken)]


def format_when(mention: TimeMention, *, with_preposition: bool = True) -> str:
    """Render a resolved mention for a claim: "on 7 May 2023", "in April 2023", "in summer 2023", ...

    Day-first English, independent of the process locale. ``with_preposition=False`` gives the bare form
    ("7 May 2023") for use after "since", "until" and the like.
    """
    start, granularity = mention.start, mention.granularity
    month_year = f"{MONTH_NAMES[start.month - 1]} {start.year}"
    day = f"{start.day} {month_year}"
    prep, body = {"day": ("on", day), "week": ("in", f"the week of {day}"),
                  "weekend": ("on", f"the weekend of {day}"), "month": ("in", month_year),
                  "year": ("in", str(start.year))}.get(granularity, ("in", ""))
    if granularity == "season":
        name = SEASONS[_season_ordinal(start.date()) % SEASONS_PER_YEAR]
        body = f"{name} {start.year}-{(start.year + 1) % 100:02d}" if name == "winter" else f"{name} {start.year}"
    return f"{prep} {body}" if with_preposition else body
