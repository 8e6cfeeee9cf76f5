"""ingestion.temporal: time expressions found with exact spans and resolved to calendar buckets.

The document date is Monday 2023-05-08 13:56 UTC unless a test says otherwise; every expected bucket below
was worked out by hand from the rules in the module docstring.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta, timezone

import pytest

from ingestion.extractors.base import TimeMention
from ingestion.temporal import find_time_mentions, format_when

DOC = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)  # a Monday


def utc(y: int, m: int, d: int) -> datetime:
    return datetime(y, m, d, tzinfo=UTC)


def only(text: str, doc: datetime = DOC) -> TimeMention:
    mentions = find_time_mentions(text, doc)
    assert len(mentions) == 1, mentions
    mention = mentions[0]
    assert text[mention.start_char : mention.end_char] == mention.text
    return mention


CASES = [
    # (message, span, start, end (exclusive), granularity)
    ("I saw her yesterday.", "yesterday", date(2023, 5, 7), date(2023, 5, 8), "day"),
    ("Today I cooked.", "Today", date(2023, 5, 8), date(2023, 5, 9), "day"),
    ("We fly tomorrow morning", "tomorrow morning", date(2023, 5, 9), date(2023, 5, 10), "day"),
    ("I quit two weeks ago.", "two weeks ago", date(2023, 4, 24), date(2023, 5, 1), "week"),
    ("It broke 3 days ago", "3 days ago", date(2023, 5, 5), date(2023, 5, 6), "day"),
    ("I met him a few days ago", "a few days ago", date(2023, 5, 1), date(2023, 5, 8), "week"),
    ("Moved a few weeks ago", "a few weeks ago", date(2023, 4, 1), date(2023, 5, 1), "month"),
    ("a couple of days ago it rained", "a couple of days ago", date(2023, 5, 6), date(2023, 5, 7), "day"),
    ("I started last week.", "last week", date(2023, 5, 1), date(2023, 5, 8), "week"),
    ("I moved to Lisbon last month.", "last month", date(2023, 4, 1), date(2023, 5, 1), "month"),
    ("We married last year", "last year", date(2022, 1, 1), date(2023, 1, 1), "year"),
    ("We went to Crete last summer.", "last summer", date(2022, 6, 1), date(2022, 9, 1), "season"),
    ("This winter was brutal", "This winter", date(2022, 12, 1), date(2023, 3, 1), "season"),
    ("We'll camp this summer", "this summer", date(2023, 6, 1), date(2023, 9, 1), "season"),
    ("I hiked in the fall of 2021", "in the fall of 2021", date(2021, 9, 1), date(2021, 12, 1), "season"),
    ("Skiing in winter 2022", "in winter 2022", date(2022, 12, 1), date(2023, 3, 1), "season"),
    ("Any plans for this weekend?", "this weekend", date(2023, 5, 13), date(2023, 5, 15), "weekend"),
    ("I painted last weekend", "last weekend", date(2023, 5, 6), date(2023, 5, 8), "weekend"),
    ("Party next weekend!", "next weekend", date(2023, 5, 13), date(2023, 5, 15), "weekend"),
    ("I read a lot over the weekend", "over the weekend", date(2023, 5, 6), date(2023, 5, 8), "weekend"),
    ("I went skiing in March.", "in March", date(2023, 3, 1), date(2023, 4, 1), "month"),
    ("I went skiing in August.", "in August", date(2022, 8, 1), date(2022, 9, 1), "month"),
    ("It opens in May.", "in May", date(2023, 5, 1), date(2023, 6, 1), "month"),
    ("I'll travel in August", "in August", date(2023, 8, 1), date(2023, 9, 1), "month"),
    # the present progressive of an arrangement is a plan; other progressives keep the past
    ("I'm moving to Oslo in June", "in June", date(2023, 6, 1), date(2023, 7, 1), "month"),
    ("We're getting married in September!", "in September", date(2023, 9, 1), date(2023, 10, 1), "month"),
    ("I'm starting a new job in March", "in March", date(2024, 3, 1), date(2024, 4, 1), "month"),
    ("We're expecting our first child in August", "in August", date(2023, 8, 1), date(2023, 9, 1), "month"),
    ("I was expecting a reply in March", "in March", date(2023, 3, 1), date(2023, 4, 1), "month"),
    # an appointment one has is still to come; one one had is past
    ("I have a dentist appointment on July 2", "on July 2", date(2023, 7, 2), date(2023, 7, 3), "day"),
    ("I've got an interview with Acme on Friday", "on Friday", date(2023, 5, 12), date(2023, 5, 13), "day"),
    ("I had a dentist appointment on July 2", "on July 2", date(2022, 7, 2), date(2022, 7, 3), "day"),
    # what one is training or preparing for is still to come; a state that lasts "until" a date ends later
    (
        "I'm training for a triathlon in September",
        "in September",
        date(2023, 9, 1),
        date(2023, 10, 1),
        "month",
    ),
    ("I'm on sabbatical until February", "February", date(2024, 2, 1), date(2024, 3, 1), "month"),
    ("I've been studying for my finals on June 1", "on June 1", date(2023, 6, 1), date(2023, 6, 2), "day"),
    ("I had been studying for my finals on June 1", "on June 1", date(2022, 6, 1), date(2022, 6, 2), "day"),
    ("I worked in Lyon until February", "February", date(2023, 2, 1), date(2023, 3, 1), "month"),
    ("I was on sabbatical until February", "February", date(2023, 2, 1), date(2023, 3, 1), "month"),
    (
        "I'm having trouble with the essay I wrote in March",
        "in March",
        date(2023, 3, 1),
        date(2023, 4, 1),
        "month",
    ),
    ("We relaxed this past weekend", "this past weekend", date(2023, 5, 6), date(2023, 5, 8), "weekend"),
    ("I've lived here since March", "March", date(2023, 3, 1), date(2023, 4, 1), "month"),
    ("We met last March", "last March", date(2023, 3, 1), date(2023, 4, 1), "month"),
    ("We met next March", "next March", date(2024, 3, 1), date(2024, 4, 1), "month"),
    ("Dinner next Friday?", "next Friday", date(2023, 5, 12), date(2023, 5, 13), "day"),
    ("I ran last Friday", "last Friday", date(2023, 5, 5), date(2023, 5, 6), "day"),
    ("I ran on Friday", "on Friday", date(2023, 5, 5), date(2023, 5, 6), "day"),
    ("I'll see him on Friday", "on Friday", date(2023, 5, 12), date(2023, 5, 13), "day"),
    ("Rent goes up next month", "next month", date(2023, 6, 1), date(2023, 7, 1), "month"),
    ("I retire next year", "next year", date(2024, 1, 1), date(2025, 1, 1), "year"),
    ("We married on May 7, 2023.", "on May 7, 2023", date(2023, 5, 7), date(2023, 5, 8), "day"),
    ("Born 7 May 2023", "7 May 2023", date(2023, 5, 7), date(2023, 5, 8), "day"),
    ("Log from 2023-05-07: ok", "2023-05-07", date(2023, 5, 7), date(2023, 5, 8), "day"),
    ("Signed on 5/7/23", "on 5/7/23", date(2023, 5, 7), date(2023, 5, 8), "day"),
    ("on the 3rd of March we left", "on the 3rd of March", date(2023, 3, 3), date(2023, 3, 4), "day"),
    # a present "is" or a rescheduling right before a date states what is coming; "was" keeps the past
    ("Her party is May 20", "May 20", date(2023, 5, 20), date(2023, 5, 21), "day"),
    ("My flight is on May 20", "on May 20", date(2023, 5, 20), date(2023, 5, 21), "day"),
    ("The deadline is Friday.", "Friday", date(2023, 5, 12), date(2023, 5, 13), "day"),
    ("The demo's now set for Thursday", "Thursday", date(2023, 5, 11), date(2023, 5, 12), "day"),
    ("The launch got pushed to Friday", "Friday", date(2023, 5, 12), date(2023, 5, 13), "day"),
    # a bare month after a rescheduling is a date (not a name: "I gave the book to June")
    ("The fair got pushed to November", "November", date(2023, 11, 1), date(2023, 12, 1), "month"),
    ("We moved the reunion to June", "June", date(2023, 6, 1), date(2023, 7, 1), "month"),
    ("The report is due Wednesday", "Wednesday", date(2023, 5, 10), date(2023, 5, 11), "day"),
    ("My exam is in March", "in March", date(2024, 3, 1), date(2024, 4, 1), "month"),
    ("The party was on Friday", "on Friday", date(2023, 5, 5), date(2023, 5, 6), "day"),
    # a day of the month alone: the nearest past one, or the coming one after a cue
    ("We signed on the 3rd.", "on the 3rd", date(2023, 5, 3), date(2023, 5, 4), "day"),
    ("We met on the 31st.", "on the 31st", date(2023, 3, 31), date(2023, 4, 1), "day"),
    ("My flight is on the 14th, not the 12th.", "on the 14th", date(2023, 5, 14), date(2023, 5, 15), "day"),
    ("The launch got moved to the 20th", "the 20th", date(2023, 5, 20), date(2023, 5, 21), "day"),
    ("We pushed the launch back to Friday", "Friday", date(2023, 5, 12), date(2023, 5, 13), "day"),
    ("I will fly on May 20", "on May 20", date(2023, 5, 20), date(2023, 5, 21), "day"),
    ("I graduated in 2022.", "in 2022", date(2022, 1, 1), date(2023, 1, 1), "year"),
    ("Vegan since 2019", "2019", date(2019, 1, 1), date(2020, 1, 1), "year"),
    ("We moved in March 2021", "in March 2021", date(2021, 3, 1), date(2021, 4, 1), "month"),
    ("It happened a few months ago", "a few months ago", date(2022, 12, 1), date(2023, 3, 1), "season"),
    ("the day before yesterday", "the day before yesterday", date(2023, 5, 6), date(2023, 5, 7), "day"),
    ("That was ten years ago", "ten years ago", date(2013, 1, 1), date(2014, 1, 1), "year"),
    ("Due 3 days from now", "3 days from now", date(2023, 5, 11), date(2023, 5, 12), "day"),
]


@pytest.mark.parametrize(("text", "span", "start", "end", "granularity"), CASES, ids=[c[1] for c in CASES])
def test_expression_resolves_to_its_bucket(
    text: str, span: str, start: date, end: date, granularity: str
) -> None:
    mention = only(text)
    assert mention.text == span
    assert mention.start_char == text.index(span)
    assert mention.start == datetime.combine(start, time(), UTC)
    assert mention.end == datetime.combine(end, time(), UTC)
    assert mention.granularity == granularity
    assert mention.start.tzinfo is UTC and mention.end.tzinfo is UTC


def test_message_without_time_expression_yields_nothing() -> None:
    assert find_time_mentions("I love my new bike and my cat Pixel.", DOC) == []
    assert find_time_mentions("", DOC) == []


def test_an_ordinal_that_counts_something_else_is_no_date() -> None:
    assert find_time_mentions("I live on the 3rd floor", DOC) == []
    assert find_time_mentions("It is on the 2nd shelf and the 5th row", DOC) == []


@pytest.mark.parametrize(
    "text",
    [
        "I may go to the gym.",
        "This may be true.",
        "We march on, whatever happens.",
        "March on!",
        "Give me a second.",
        "I spring into action when I hear it.",
        "Don't fall for it.",
        "The sun was out and we sat outside on Wed night",
        "I paid 2022 euros for it.",
        "I talked to June about April's plans.",
        "I handed the keys to May.",
        "I go swimming on Fridays.",
        "Summer is my favourite season.",
    ],
)
def test_words_that_only_look_like_dates_are_ignored(text: str) -> None:
    assert find_time_mentions(text, DOC) == []


def test_overlapping_candidates_keep_the_longest() -> None:
    mention = only("The wedding was on Sunday, May 7, 2023 in Porto.")
    assert mention.text == "on Sunday, May 7, 2023"
    assert mention.granularity == "day"


def test_several_mentions_come_back_in_text_order_with_exact_offsets() -> None:
    text = "Yesterday I booked flights for next weekend; last summer we went in August and in 2021 too."
    mentions = find_time_mentions(text, DOC)
    assert [m.text for m in mentions] == ["Yesterday", "next weekend", "last summer", "in August", "in 2021"]
    assert all(text[m.start_char : m.end_char] == m.text for m in mentions)
    assert [m.start_char for m in mentions] == sorted(m.start_char for m in mentions)


def test_naive_document_date_is_refused() -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        find_time_mentions("yesterday", datetime(2023, 5, 8, 13, 56))


def test_document_date_in_another_zone_is_read_in_utc() -> None:
    early_morning_in_asia = datetime(2023, 5, 8, 1, 0, tzinfo=timezone(timedelta(hours=5)))  # 7 May 20:00 UTC
    assert only("yesterday", early_morning_in_asia).start == utc(2023, 5, 6)


def test_weekends_relative_to_a_sunday() -> None:
    sunday = datetime(2023, 5, 7, 10, 0, tzinfo=UTC)
    assert only("this weekend", sunday).start == utc(2023, 5, 6)
    assert only("last weekend", sunday).start == utc(2023, 4, 29)
    assert only("over the weekend", sunday).start == utc(2023, 5, 6)


def test_next_weekday_on_that_weekday_is_a_week_later() -> None:
    friday = datetime(2023, 5, 12, 9, 0, tzinfo=UTC)
    assert only("next Friday", friday).start == utc(2023, 5, 19)
    assert only("last Friday", friday).start == utc(2023, 5, 5)
    assert only("on Friday", friday).start == utc(2023, 5, 12)


def test_seasons_around_the_new_year() -> None:
    january = datetime(2024, 1, 15, tzinfo=UTC)
    assert only("this winter", january).start == utc(2023, 12, 1)
    assert only("last winter", january).start == utc(2022, 12, 1)
    assert only("next spring", january).start == utc(2024, 3, 1)


def test_month_name_in_the_current_month_is_the_current_month() -> None:
    assert only("in March", datetime(2023, 3, 20, tzinfo=UTC)).start == utc(2023, 3, 1)
    assert only("last March", datetime(2023, 3, 20, tzinfo=UTC)).start == utc(2022, 3, 1)


@pytest.mark.parametrize(
    ("start", "end", "granularity", "expected", "bare"),
    [
        (utc(2023, 5, 7), utc(2023, 5, 8), "day", "on 7 May 2023", "7 May 2023"),
        (utc(2023, 5, 1), utc(2023, 5, 8), "week", "in the week of 1 May 2023", "the week of 1 May 2023"),
        (
            utc(2023, 5, 6),
            utc(2023, 5, 8),
            "weekend",
            "on the weekend of 6 May 2023",
            "the weekend of 6 May 2023",
        ),
        (utc(2023, 4, 1), utc(2023, 5, 1), "month", "in April 2023", "April 2023"),
        (utc(2023, 6, 1), utc(2023, 9, 1), "season", "in summer 2023", "summer 2023"),
        (utc(2022, 12, 1), utc(2023, 3, 1), "season", "in winter 2022-23", "winter 2022-23"),
        (utc(2022, 1, 1), utc(2023, 1, 1), "year", "in 2022", "2022"),
    ],
)
def test_format_when_renders_each_granularity(
    start: datetime, end: datetime, granularity: str, expected: str, bare: str
) -> None:
    mention = TimeMention("x", 0, 1, start, end, granularity)  # type: ignore[arg-type]
    assert format_when(mention) == expected
    assert format_when(mention, with_preposition=False) == bare


def test_format_when_of_a_found_mention() -> None:
    assert format_when(only("I moved to Lisbon last month and started a new job.")) == "in April 2023"


@pytest.mark.parametrize(
    "text",
    ["I deploy every Friday evening.", "Each spring we repaint the fence.", "Every other Sunday I run."],
)
def test_a_recurring_expression_is_a_habit_not_a_date(text: str) -> None:
    assert find_time_mentions(text, datetime(2026, 3, 2, tzinfo=UTC)) == []


def test_a_date_beside_a_recurring_one_is_still_resolved() -> None:
    found = find_time_mentions(
        "We meet each Monday, and on Friday I fly out.", datetime(2026, 3, 2, tzinfo=UTC)
    )
    assert [(m.text, m.start.date()) for m in found] == [("on Friday", date(2026, 2, 27))]


@pytest.mark.parametrize(
    ("text", "span", "start", "granularity"),
    [
        ("I'm moving to Oslo in two weeks.", "in two weeks", date(2023, 5, 22), "week"),
        ("We're flying out in 10 days", "in 10 days", date(2023, 5, 18), "day"),
        ("I'll start the new role in 3 months", "in 3 months", date(2023, 8, 1), "month"),
    ],
)
def test_in_so_many_units_after_a_future_cue_is_a_date(
    text: str, span: str, start: date, granularity: str
) -> None:
    mention = only(text)
    assert (mention.text, mention.start.date(), mention.granularity) == (span, start, granularity)


@pytest.mark.parametrize("text", ["I finished the course in two weeks.", "It healed in 10 days."])
def test_in_so_many_units_alone_is_a_duration(text: str) -> None:
    assert find_time_mentions(text, DOC) == []


@pytest.mark.parametrize(
    ("text", "start"),
    [
        ("I want to finish the course by October.", date(2023, 10, 1)),  # a deadline one aims at
        ("I had finished it by March.", date(2023, 3, 1)),  # one that passed
    ],
)
def test_by_a_month_is_a_deadline(text: str, start: date) -> None:
    mention = only(text)
    assert (mention.start.date(), mention.granularity) == (start, "month")
