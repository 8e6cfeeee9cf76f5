"""Find time expressions in a message and resolve them against the message's document date.

Choices (tested in tests/ingestion/test_temporal.py):

- Precompiled regexes, each gated by cheap substring cues, find the spans; ``dateparser``
  resolves explicit dates ("May 7, 2023", "7th of May", "5/7/23", the year of "May 7"). ``dateparser.search``
  is not used: ~2 ms a message, no offsets, and it took "may", "a second", "last month and" for dates.
- Buckets are UTC calendar units, [start, end) at midnight: Monday weeks, Saturday-Sunday weekends, northern
  meteorological seasons (spring Mar-May ... winter Dec-Feb, named by the year it begins in).
- "last X": the latest X strictly before the current one; "next X": the first strictly after ("next Friday"
  on a Monday is that week's). "this <weekday>": the coming one; "this <season>": the nearest. Bare
  weekdays, months, seasons, "the weekend", yearless dates: the nearest occurrence in the past (the current
  one included), or in the future if the sentence so far has a future cue ("will", "'ll", "going to") or
  the present progressive of an arrangement just before the date ("I'm moving to Oslo in June").
- "on / to / until / by the 14th" (a day of the month alone, before punctuation or a joining word, not "on
  the 3rd floor"): the nearest such day in the past, or in the future after a cue, as for a bare weekday.
- "N days ago" is that day, "N weeks/months/years ago" the unit holding that point; "a few"/"several" mean 3
  and widen the bucket one step (days -> week, weeks -> month, months -> season); "a couple" means 2.
- Not dates: lower-case "may"/"march" unless after in/last/next ("this may be"); bare months or years
  without in/during/since/until/early/... ("March on", "paid 2022 euros"); seasons without a preposition,
  last/this/next or a year ("I spring into action"); "sun", "sat"; "a second"; plurals ("on Fridays").
- Spans absorb a leading in/on/during/over/at ("in March") since ``format_when`` adds its own preposition.
- "in N days/weeks/months" is "N … from now" only after a future cue ("I'm moving in two weeks"); alone it
  is often a duration ("I finished it in two weeks") and not a date.
- Not handled: times of day, "the other day", dotted dates, holidays.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable, Iterable
from datetime import UTC, date, datetime, time, timedelta
from typing import cast

import dateparser

from ingestion import temporal_cues
from ingestion.extractors.base import TimeMention
from ingestion.temporal_calendar import (
    DAYS_PER_WEEK,
    MARCH_INDEX,
    MONTHS_PER_SEASON,
    MONTHS_PER_YEAR,
    SEASONS_PER_YEAR,
    Bucket,
    Granularity,
    Mode,
    containing,
    days,
    month_index,
    months,
    pick,
    season_ordinal,
)

Resolver = Callable[[re.Match[str], "_Ctx"], Bucket | None]  # a match to a bucket, or None to reject it

SATURDAY_OFFSET = 5  # days from Monday
SATURDAY_KIND = (SATURDAY_OFFSET + 1) % DAYS_PER_WEEK  # date.toordinal() % 7 of a Saturday
WEEKEND_DAYS = 2
VAGUE_COUNT = 3  # "a few" / "several"
SEASONS = ("spring", "summer", "autumn", "winter")
_MONTH_WORDS = (
    "january jan",
    "february feb",
    "march mar",
    "april apr",
    "may",
    "june jun",
    "july jul",
    "august aug",
    "september sept sep",
    "october oct",
    "november nov",
    "december dec",
)
MONTH_NAMES = tuple(words.split()[0].capitalize() for words in _MONTH_WORDS)
#: Every word that names a month, abbreviations included, lower-case.
MONTH_WORDS = tuple(name for words in _MONTH_WORDS for name in words.split())
WIDER: dict[str, Granularity] = {"day": "week", "week": "month", "month": "season", "year": "year"}

_MONTHS = {name: i for i, words in enumerate(_MONTH_WORDS) for name in words.split()}
_AMBIGUOUS_MONTHS = frozenset({"may", "march", "mar"})  # as typed; capitalised ones are always months
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "fifteen": 15,
    "twenty": 20,
    "thirty": 30,
    "a couple of": 2,
    "a couple": 2,
    "couple of": 2,
}
_VAGUE = ("a few", "few", "several")
_REL_MODES: dict[str, Mode] = {
    "last": "last",
    "past": "last",
    "next": "next",
    "coming": "next",
    "this": "nearest",
}
_DAY_WORDS = {
    "yesterday": -1,
    "last night": -1,
    "tomorrow": 1,
    "the day before yesterday": -2,
    "the day after tomorrow": 2,
    "today": 0,
    "tonight": 0,
    "this morning": 0,
    "this afternoon": 0,
    "this evening": 0,
}


def _alternation(words: Iterable[str]) -> str:
    return "|".join(r"\s+".join(map(re.escape, w.split())) for w in sorted(words, key=len, reverse=True))


_MON = f"(?P<mon>{_alternation(_MONTHS)})"
_WD = f"(?P<wd>{_alternation(WEEKDAYS)})"
_REL = r"(?P<rel>this\s+past|this\s+coming|last|this|next|past|coming)"
_YEAR = r"(?P<year>(?:19|20)\d{2})"
_IN = r"(?:(?P<prep>in|during|throughout)\s+)?"
_ON_WD = rf"(?:on\s+)?(?:{_WD},?\s+)?"
_ORD = r"(?:st|nd|rd|th)?"
_PART = r"(?:\s+(?:morning|afternoon|evening|night))?"
_CUES = {  # substrings of the lower-cased text that a pattern needs before it is worth running
    "month": ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"),
    "unit": ("week", "month", "year", "day", "night", "tomorrow", "morning", "afternoon", "evening"),
    "season": ("spring", "summer", "autumn", "fall", "winter"),
    "dom": ("on the ", "to the ", "until the ", "till the ", "by the "),
    "digit": tuple("0123456789"),
    "day": ("day",),
    "weekend": ("weekend",),
    "ago": ("ago", "now"),
    "in": ("in ",),
}


class _Ctx:
    """What a resolver needs: the text and the document date (an aware UTC instant and its UTC day)."""

    def __init__(self, text: str, now: datetime) -> None:
        self.text, self.now, self.today = text, now, now.date()

    def future(self, start: int) -> bool:
        return temporal_cues.future(self.text, start)


def _mode(rel: str | None, future: bool) -> Mode:
    """ "last/past" -> last, "next/coming" -> next, "this" -> nearest; none: past, or future after a cue."""
    return _REL_MODES[rel.split()[-1].lower()] if rel else "future" if future else "past"


def _explicit_day(m: re.Match[str], ctx: _Ctx) -> Bucket | None:
    groups = m.groupdict()
    yearless = groups.get("mon") is not None and groups.get("year") is None
    if yearless and groups["mon"] in _AMBIGUOUS_MONTHS:  # lower-case: capitalised ones are not in the set
        return None
    future = yearless and ctx.future(m.start())
    base = ctx.now.replace(tzinfo=None)  # dateparser compares naive datetimes; both sides are UTC
    settings = {
        "RELATIVE_BASE": base - timedelta(days=1) if future else base,
        "DATE_ORDER": "MDY",
        "PREFER_DATES_FROM": "future" if future else "past",
        "PREFER_DAY_OF_MONTH": "first",
    }
    parsed: datetime | None = dateparser.parse(m.group("date"), languages=["en"], settings=settings)
    return days(parsed.date(), 1, "day") if parsed is not None else None


def _day_of_month(m: re.Match[str], ctx: _Ctx) -> Bucket | None:
    """ "on the 14th": that day of this month, else of the nearest month before (after, with a future cue)."""
    day, future = int(m.group("dom")), ctx.future(m.start())
    month = month_index(ctx.today)
    for _ in range(MONTHS_PER_YEAR):
        year, index = divmod(month, MONTHS_PER_YEAR)
        if day <= calendar.monthrange(year, index + 1)[1]:
            candidate = date(year, index + 1, day)
            if (candidate >= ctx.today) if future else (candidate <= ctx.today):
                return days(candidate, 1, "day")
        month += 1 if future else -1
    return None


def _month_or_year(m: re.Match[str], ctx: _Ctx) -> Bucket | None:
    """A month ("in March", "last March", "March 2021") or a year ("in 2022", "since 2019")."""
    groups = m.groupdict()
    rel, prep = (groups.get("rel") or "").lower(), groups["prep"]
    word, year = groups.get("mon"), groups.get("year")
    if word is None:
        year_ok = prep or temporal_cues.year_context(ctx.text, m.start())
        return months(int(m.group("year")) * MONTHS_PER_YEAR, MONTHS_PER_YEAR, "year") if year_ok else None
    kind = _MONTHS[word.lower()]
    if year:
        return months(int(year) * MONTHS_PER_YEAR + kind, 1, "month")
    if word in _AMBIGUOUS_MONTHS and not (prep or rel in ("last", "next")):
        return None
    if rel == "this":
        return months(ctx.today.year * MONTHS_PER_YEAR + kind, 1, "month")
    if not (rel or prep or temporal_cues.month_context(ctx.text, m.start())):
        return None
    mode = _mode(rel, ctx.future(m.start()))
    return months(pick(month_index(ctx.today), kind, MONTHS_PER_YEAR, mode), 1, "month")


def _weekday(m: re.Match[str], ctx: _Ctx) -> Bucket | None:
    """A weekday ("last Friday", "on Friday") or a weekend ("this weekend", "over the weekend")."""
    rel, today = (m.group("rel") or "").lower(), ctx.today
    if m.groupdict().get("wd"):
        kind = (WEEKDAYS.index(m.group("wd").lower()) + 1) % DAYS_PER_WEEK  # its date.toordinal() % 7
        mode: Mode = "future" if rel == "this" else _mode(rel, ctx.future(m.start()))
        return days(date.fromordinal(pick(today.toordinal(), kind, DAYS_PER_WEEK, mode)), 1, "day")
    if rel == "this":
        return days(containing("week", today)[0] + timedelta(days=SATURDAY_OFFSET), WEEKEND_DAYS, "weekend")
    if not rel and not m.group("prep"):
        return None
    mode = _mode(rel, ctx.future(m.start()))
    # Saturdays are compared with a shifted today: "last" must be over, a bare "the weekend" may be now.
    shift = {"last": WEEKEND_DAYS, "future": 1}.get(mode, 0)
    pick_mode: Mode = "past" if mode == "last" else mode
    saturday = pick(today.toordinal() - shift, SATURDAY_KIND, DAYS_PER_WEEK, pick_mode)
    return days(date.fromordinal(saturday), WEEKEND_DAYS, "weekend")


def _season_name(m: re.Match[str], ctx: _Ctx) -> Bucket | None:
    name = m.group("season").lower()
    kind = SEASONS.index("autumn" if name == "fall" else name)
    if m.group("year"):
        ordinal = int(m.group("year")) * SEASONS_PER_YEAR + kind
    elif m.group("rel") or m.group("prep"):
        mode = _mode(m.group("rel"), ctx.future(m.start()))
        ordinal = pick(season_ordinal(ctx.today), kind, SEASONS_PER_YEAR, mode)
    else:
        return None
    return months(ordinal * MONTHS_PER_SEASON + MARCH_INDEX, MONTHS_PER_SEASON, "season")


def _relative(m: re.Match[str], ctx: _Ctx) -> Bucket | None:
    """ "last/this/next week|month|year", or a day word ("yesterday", "tonight", "the day after tomorrow")."""
    if m.group("word"):
        return containing("day", ctx.today, _DAY_WORDS[" ".join(m.group("word").lower().split())])
    step = {"last": -1, "this": 0, "next": 1}[m.group("rel").lower()]
    return containing(cast(Granularity, m.group("unit").lower()), ctx.today, step)


def _ago(m: re.Match[str], ctx: _Ctx) -> Bucket | None:
    qty, unit = " ".join(m.group("qty").lower().split()), m.group("unit").lower()
    vague = qty in _VAGUE
    shift = (VAGUE_COUNT if vague else int(qty) if qty.isdigit() else _NUMBERS[qty]) * (
        -1 if m.group("dir").lower() == "ago" else 1
    )
    if unit in ("minute", "hour"):
        return days((ctx.now + timedelta(**{unit + "s": shift})).date(), 1, "day")
    bucket = containing(cast(Granularity, unit), ctx.today, shift)
    return containing(WIDER[unit], bucket[0]) if vague else bucket


def _in_time(m: re.Match[str], ctx: _Ctx) -> Bucket | None:
    """ "I'm moving to Austin in two weeks": as "two weeks from now" after a future cue; without one "in two
    weeks" is as often how long something took ("I finished the course in two weeks")."""
    return _ago(m, ctx) if ctx.future(m.start()) else None


# -- the grammar: (cues needed, pattern, resolver); every pattern names the mention's span "m" --------------
_GRAMMAR: tuple[tuple[frozenset[str], re.Pattern[str], Resolver], ...] = tuple(
    (frozenset(cues.split()), re.compile(pattern, re.I), resolve)
    for cues, pattern, resolve in (
        (
            "month digit",
            rf"(?P<m>\b{_ON_WD}(?P<date>{_MON}\.?\s+\d{{1,2}}{_ORD}\b(?:,?\s+{_YEAR})?))\b",
            _explicit_day,
        ),
        (
            "month digit",
            rf"(?P<m>\b{_ON_WD}(?P<date>(?:the\s+)?\d{{1,2}}{_ORD}\s+(?:of\s+)?{_MON}"
            rf"(?:,?\s+{_YEAR})?))\b",
            _explicit_day,
        ),
        (
            "digit",
            r"(?P<m>\b(?:on\s+)?(?P<date>(?:19|20)\d\d[-/]\d\d?[-/]\d\d?"
            r"|\d\d?/\d\d?/(?:(?:19|20)\d\d|\d\d)))(?![\d/-])",
            _explicit_day,
        ),
        (
            "dom",
            r"(?P<m>(?:\bon\s+|(?<=\bto\s)|(?<=\buntil\s)|(?<=\btill\s)|(?<=\bby\s))"
            r"the\s+(?P<dom>[1-9]|[12]\d|3[01])(?:st|nd|rd|th))\b"
            r"(?=\s*(?:$|[.,;:!?)]|(?:at|in|and|or|but|so|instead|rather|because|when|if|not)\b))",
            _day_of_month,
        ),
        ("month digit", rf"(?P<m>\b{_IN}{_MON}\.?,?\s+(?:of\s+)?{_YEAR})\b", _month_or_year),
        ("digit", rf"(?P<m>\b{_IN}(?:the\s+year\s+)?{_YEAR})\b", _month_or_year),
        ("month", rf"(?P<m>\b{_IN}(?:{_REL}\s+)?{_MON})\b(?!['’]s)", _month_or_year),
        ("day", rf"(?P<m>\b(?:on\s+)?(?:{_REL}\s+)?{_WD}{_PART})\b", _weekday),
        ("weekend", rf"(?P<m>\b(?:(?P<prep>on|over|at|during)\s+)?(?:{_REL}|the)\s+weekend)\b", _weekday),
        (
            "season",
            rf"(?P<m>\b(?:(?P<prep>in|during|over|throughout)\s+)?(?:the\s+)?(?:{_REL}\s+)?"
            rf"(?P<season>spring|summer|autumn|fall|winter)(?:\s+(?:of\s+)?{_YEAR})?)\b",
            _season_name,
        ),
        (
            "unit",
            rf"(?P<m>\b(?:(?P<rel>last|this|next)\s+(?P<unit>week|month|year)"
            rf"|(?P<word>{_alternation(_DAY_WORDS)}){_PART}))\b",
            _relative,
        ),
        (
            "ago",
            rf"(?P<m>\b(?P<qty>\d{{1,3}}|{_alternation([*_NUMBERS, *_VAGUE])})\s+"
            r"(?P<unit>minute|hour|day|week|month|year)s?\s+(?P<dir>ago|from\s+now))\b",
            _ago,
        ),
        (
            "in unit",
            rf"(?P<m>\b(?P<dir>in)\s+(?P<qty>\d{{1,3}}|{_alternation([*_NUMBERS, *_VAGUE])})\s+"
            r"(?P<unit>day|week|month|year)s?)\b",
            _in_time,
        ),
    )
)


def find_time_mentions(text: str, document_date: datetime) -> list[TimeMention]:
    """Time expressions in ``text`` resolved against the aware ``document_date``, in text order, never
    overlapping (of overlapping candidates the longest wins, then the earliest)."""
    if document_date.tzinfo is None:
        raise ValueError("document_date must be timezone-aware")
    lowered = text.lower()
    cues = {name for name, words in _CUES.items() if any(w in lowered for w in words)}
    if not cues:
        return []
    ctx = _Ctx(text, document_date.astimezone(UTC))
    found = [
        (*match.span("m"), bucket)
        for needs, pattern, resolve in _GRAMMAR
        if needs <= cues
        for match in pattern.finditer(text)
        if not temporal_cues.recurring(text, match.start("m")) and (bucket := resolve(match, ctx)) is not None
    ]
    taken: list[tuple[int, int, Bucket]] = []
    for start, end, bucket in sorted(found, key=lambda f: (f[0] - f[1], f[0])):
        if all(end <= s or start >= e for s, e, _ in taken):
            taken.append((start, end, bucket))
    midnight = time(tzinfo=UTC)
    return [
        TimeMention(text[s:e], s, e, datetime.combine(a, midnight), datetime.combine(z, midnight), g)
        for s, e, (a, z, g) in sorted(taken)
    ]


def format_when(mention: TimeMention, *, with_preposition: bool = True) -> str:
    """Render a resolved mention for a claim: "on 7 May 2023", "in April 2023", "in winter 2022-23"...

    Day-first English, not the process locale; ``with_preposition=False`` gives the bare "7 May 2023"."""
    start, granularity = mention.start, mention.granularity
    month_year = f"{MONTH_NAMES[start.month - 1]} {start.year}"
    day = f"{start.day} {month_year}"
    season = SEASONS[season_ordinal(start.date()) % SEASONS_PER_YEAR]
    year = f"{start.year}-{(start.year + 1) % 100:02d}" if season == "winter" else str(start.year)
    prep, body = {
        "day": ("on", day),
        "week": ("in", f"the week of {day}"),
        "month": ("in", month_year),
        "weekend": ("on", f"the weekend of {day}"),
        "season": ("in", f"{season} {year}"),
        "year": ("in", str(start.year)),
    }[granularity]
    return f"{prep} {body}" if with_preposition else body
