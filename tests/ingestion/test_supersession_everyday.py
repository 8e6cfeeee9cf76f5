"""Everyday changes an assistant hears supersede what they change, through all seven phases: a new routine
time, the name to be called by, a promotion, a replacement, a value "instead of" another, a graduation, a
break-up, a comma-spliced sale, a moved date and a new amount. And what only looks like a change does not.
"""

from __future__ import annotations

import pytest

from memhq.models import Memory, Project
from tests.ingestion.supersession_support import (
    FIRST,
    LATER,
    assert_new_value,
    assert_superseded,
    ingest,
    memory,
)


@pytest.mark.parametrize(
    ("before", "after", "predicate", "old", "new"),
    [
        ("I wake up at 6am every day.", "These days I get up at 7:30.", "wakes_up", "6am", "7:30"),
        ("Please call me Robert.", "Actually, call me Bob.", "preferred_name", "Robert", "Bob"),
        ("My son is 4.", "My son just turned 5.", "age", "4", "5"),
        # "now": a thing of the same name, of another kind, replaces the old one
        (
            "I prefer morning meetings.",
            "I prefer afternoon meetings now.",
            "prefers",
            "morning meetings",
            "afternoon meetings",
        ),
        (
            "I'm a junior developer at Shopify.",
            "I got promoted to senior engineer!",
            "job_title",
            "junior developer",
            "senior engineer",
        ),
    ],
)
def test_a_new_value_supersedes_the_old_one(
    project: Project, before: str, after: str, predicate: str, old: str, new: str
) -> None:
    assert_new_value(project, before, after, predicate, old, new)


@pytest.mark.parametrize(
    ("before", "after", "predicate", "obj", "ending"),
    [
        (
            "We use AWS for hosting.",
            "We migrated our hosting from AWS to Hetzner.",
            "uses",
            "AWS",
            "no_longer_uses",
        ),
        ("Our team uses Jira.", "We replaced Jira with Linear.", "uses", "Jira", "left"),
        (
            "I'm learning Spanish.",
            "I'm learning Japanese now instead of Spanish.",
            "studies",
            "Spanish",
            "no_longer_studies",
        ),
        ("I'm studying at MIT.", "I graduated from MIT in June.", "studies_at", "MIT", "left"),
        ("I have a girlfriend named Sara.", "Sara and I broke up last week.", "partner", "Sara", "left"),
        (
            "I drive a Honda Civic.",
            "Sold the Civic, I'm driving a Tesla now.",
            "drive",
            "a Honda Civic",
            "left",
        ),
        ("I have a standing desk.", "I got rid of my standing desk.", "have", "a standing desk", "left"),
        ("I prefer tea.", "I've gone off tea.", "prefers", "tea", "no_longer_likes"),
    ],
)
def test_a_replacement_ends_what_it_replaces(
    project: Project, before: str, after: str, predicate: str, obj: str, ending: str
) -> None:
    ingest(project, before, FIRST)
    ingest(project, after, LATER)
    [end] = Memory.objects.filter(project=project, predicate=ending)
    assert_superseded(memory(project, predicate, obj), end)


@pytest.mark.parametrize(
    ("before", "after", "new_text"),
    [
        (
            "My flight to Madrid is on March 12.",
            "Actually, my flight is on the 14th, not the 12th.",
            "User's flight is on 14 March 2026.",
        ),
        (
            "My rent is $1,800 a month.",
            "My rent went up to $1,950 a month.",
            "User's rent is $1,950 a month.",
        ),
        ("My batch size is 32.", "I bumped the batch size to 64.", "User's batch size is 64."),
        (
            "My meeting with Dana is on March 10.",
            "My meeting with Dana got moved to the 12th.",
            "User's meeting with Dana is 12 March 2026.",
        ),
    ],
)
def test_a_moved_date_or_a_new_amount_supersedes(
    project: Project, before: str, after: str, new_text: str
) -> None:
    ingest(project, before, FIRST)
    ingest(project, after, "2026-03-05T09:00:00+00:00")
    old = Memory.objects.get(project=project, status="superseded")
    new = Memory.objects.get(project=project, text=new_text)
    assert_superseded(old, new)


@pytest.mark.parametrize(
    ("before", "after", "predicate", "obj"),
    [
        # without "now", a choice: MySQL may still be in use elsewhere
        ("I use MySQL at work.", "I use Postgres rather than MySQL.", "uses", "MySQL"),
        # "Neovim" is tagged a place by the small model; it is not one, and where the user lives stays
        ("I live in Leeds.", "I moved to Neovim last month.", "lives_in", "Leeds"),
        # what friends call the user is not the name the user asked for
        ("Please call me Robert.", "My friends call me Rob.", "preferred_name", "Robert"),
    ],
)
def test_what_only_looks_like_a_change_supersedes_nothing(
    project: Project, before: str, after: str, predicate: str, obj: str
) -> None:
    ingest(project, before, FIRST)
    ingest(project, after, LATER)
    assert memory(project, predicate, obj).status == "active"


def test_a_budget_is_not_an_age(project: Project) -> None:
    ingest(project, "I'm 34.", FIRST)
    ingest(project, "My budget for the trip is $2,000.", LATER)
    assert memory(project, "age", "34").status == "active"


def test_another_flight_on_another_day_is_not_a_correction(project: Project) -> None:
    ingest(project, "My flight to Madrid is on March 12.", FIRST)
    ingest(project, "My flight to Paris is on the 14th.", "2026-03-05T09:00:00+00:00")
    assert not Memory.objects.filter(project=project, status="superseded").exists()


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("Always reply in English.", "From now on, reply in German."),
        ("Always keep your answers brief.", "Keep your answers detailed from now on."),
        (
            "Always format answers as numbered lists.",
            "Please stop using numbered lists.",
        ),  # never what was asked
        ("Don't use tables.", "Always put comparisons in tables."),  # asked for what was never to be done
    ],
)
def test_a_standing_instruction_with_a_new_value_replaces_the_old_one(
    project: Project, before: str, after: str
) -> None:
    ingest(project, before, FIRST)
    ingest(project, after, LATER)
    old, new = Memory.objects.filter(project=project, predicate="instructs_assistant").order_by("valid_from")
    assert_superseded(old, new)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("Never use emojis.", "Never use semicolons."),  # two things to avoid, both hold
        ("Never use emojis.", "Always use headings."),  # another thing
        (
            "Always reply in English.",
            "When I ask about recipes, always answer in Spanish.",
        ),  # a narrower rule
    ],
)
def test_instructions_that_can_both_hold_are_both_kept(project: Project, before: str, after: str) -> None:
    ingest(project, before, FIRST)
    ingest(project, after, LATER)
    statuses = Memory.objects.filter(project=project, predicate="instructs_assistant").values_list(
        "status", flat=True
    )
    assert list(statuses) == ["active", "active"]


def test_another_kind_of_thing_without_now_is_kept_beside_the_first(project: Project) -> None:
    ingest(project, "I prefer morning meetings.", FIRST)
    ingest(project, "I prefer afternoon meetings for deep work.", LATER)
    assert memory(project, "prefers", "morning meetings").status == "active"
    assert memory(project, "prefers", "afternoon meetings for deep work").status == "active"


def test_another_version_of_the_same_tool_is_not_taken_for_the_same_fact(project: Project) -> None:
    ingest(project, "I'm using Next.js 13.", FIRST)
    ingest(project, "I migrated to Next.js 14.", LATER)
    texts = set(Memory.objects.filter(project=project, predicate="uses").values_list("text", flat=True))
    assert texts == {"User is using Next.js 13.", "User migrated to Next.js 14."}
