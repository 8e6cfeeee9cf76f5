"""Ordinary wording of a change supersedes the state it replaces, through all seven phases (issue 13, item 4).

Each case is a sequence of one-message episodes from one user, a day or more apart; the old memory must end
(status superseded, ``valid_until`` = the new memory's ``valid_from``, ``superseded_by`` the new memory) and
the new one must be active, valid from its message's document date.
"""

from __future__ import annotations

from datetime import datetime

import pytest

from memhq.models import Memory, Project
from tests.ingestion.supersession_support import FIRST, LATER, assert_superseded, ingest, memory


@pytest.mark.parametrize(
    ("before", "after", "predicate", "old", "new"),
    [
        ("I work at Google.", "I just joined Anthropic.", "works_at", "Google", "Anthropic"),
        ("I work at Google.", "I started at Stripe this week.", "works_at", "Google", "Stripe"),
        ("I work at Google.", "I'm now at Microsoft.", "works_at", "Google", "Microsoft"),
        ("I work at Google.", "I've started working at Figma.", "works_at", "Google", "Figma"),
        ("I live in Berlin.", "We moved to Denver.", "lives_in", "Berlin", "Denver"),
        # a city the small NER model does not tag as a place is one by name (ingestion.extractors.places)
        ("I live in Leeds.", "I moved to Bristol.", "lives_in", "Leeds", "Bristol"),
        ("I live in Leeds.", "We moved into a flat in Glasgow.", "lives_in", "Leeds", "Glasgow"),
        ("My manager is Priya.", "Tom is my manager now.", "manager", "Priya", "Tom"),
        ("I mostly code in Python.", "I switched to TypeScript.", "main_language", "Python", "TypeScript"),
        ("My manager is Tom.", "My new manager is Priya.", "manager", "Tom", "Priya"),
        ("My boss is Tom.", "I report to Dana now.", "manager", "Tom", "Dana"),
        ("I'm pescatarian.", "I stopped eating meat.", "diet", "pescatarian", "vegetarian"),
        ("I'm vegan.", "I recently became vegetarian.", "diet", "vegan", "vegetarian"),
    ],
)
def test_a_new_value_in_ordinary_wording_supersedes_the_old_one(
    project: Project, before: str, after: str, predicate: str, old: str, new: str
) -> None:
    ingest(project, before, FIRST)
    ingest(project, after, LATER)
    new_memory = memory(project, predicate, new)
    assert_superseded(memory(project, predicate, old), new_memory)
    assert new_memory.valid_from.date() <= datetime.fromisoformat(LATER).date()
    assert list(
        Memory.objects.filter(project=project, predicate=predicate, status="active").values_list(
            "object_value", flat=True
        )
    ) == [new_memory.object_value]


@pytest.mark.parametrize(
    ("before", "after", "predicate", "obj", "ending"),
    [
        ("I work at Google.", "I left Google.", "works_at", "Google", "left"),
        ("I work at Google.", "I quit my job at Google.", "works_at", "Google", "left"),
        ("I work at Google.", "I quit my job.", "works_at", "Google", "no_longer_works_at"),
        ("I work at Google.", "I no longer work at Google.", "works_at", "Google", "no_longer_works_at"),
        ("I work at Google.", "I don't work at Google anymore.", "works_at", "Google", "no_longer_works_at"),
        ("I work at Google.", "I'm no longer at Google.", "works_at", "Google", "no_longer_works_at"),
        ("I have a Honda Civic.", "I sold my Honda Civic.", "owns", "Honda Civic", "left"),
        ("My boyfriend Alex is great.", "Alex and I broke up.", "partner", "Alex", "no_longer_partner"),
        ("I live in Berlin.", "I don't live in Berlin anymore.", "lives_in", "Berlin", "no_longer_lives_in"),
        ("I'm vegan.", "I'm not vegan anymore.", "diet", "vegan", "no_longer_diet"),
        ("I eat meat every day.", "I no longer eat meat.", "eat", "meat every day", "no_longer_eat"),
        ("I drink coffee every morning.", "I gave up coffee.", "drink", "coffee every morning", "left"),
        ("I'm learning Spanish.", "I gave up on Spanish.", "studies", "Spanish", "left"),
        ("I love sushi.", "I don't like sushi anymore.", "likes", "sushi", "no_longer_likes"),
        (
            "I use Notion every day.",
            "I switched from Notion to Obsidian.",
            "uses",
            "Notion",
            "no_longer_uses",
        ),
    ],
)
def test_an_ending_supersedes_the_state_it_ends(
    project: Project, before: str, after: str, predicate: str, obj: str, ending: str
) -> None:
    ingest(project, before, FIRST)
    ingest(project, after, LATER)
    old = memory(project, predicate, obj)
    [end] = Memory.objects.filter(project=project, predicate=ending)
    assert_superseded(old, end)


def test_the_new_memory_is_valid_from_the_document_date(project: Project) -> None:
    ingest(project, "I work at Google.", FIRST)
    ingest(project, "I just joined Anthropic.", LATER)
    anthropic = memory(project, "works_at", "Anthropic")
    assert anthropic.valid_from == datetime.fromisoformat(LATER)
    assert memory(project, "works_at", "Google").valid_until == datetime.fromisoformat(LATER)


def test_a_plan_does_not_supersede_yet(project: Project) -> None:
    ingest(project, "I work at Google.", FIRST)
    ingest(project, "I'm going to quit my job next month.", LATER)
    assert memory(project, "works_at", "Google").status == "active"


def test_someone_elses_move_does_not_supersede_the_users_home(project: Project) -> None:
    ingest(project, "I live in Berlin.", FIRST)
    ingest(project, "My sister moved to Denver.", LATER)
    assert memory(project, "lives_in", "Berlin").status == "active"


def test_joining_a_club_is_not_a_new_employer(project: Project) -> None:
    ingest(project, "I work at Google.", FIRST)
    ingest(project, "I joined a book club.", LATER)
    assert memory(project, "works_at", "Google").status == "active"
    assert memory(project, "member_of", "book club").status == "active"


def test_two_values_in_one_message_are_both_kept(project: Project) -> None:
    ingest(project, "I mostly code in Python and my manager is Tom.", FIRST)
    ingest(project, "I'm vegan and I live in Lisbon.", LATER)
    assert memory(project, "main_language", "Python").status == "active"
    assert memory(project, "lives_in", "Lisbon").status == "active"


def test_leaving_a_city_ends_living_there_not_having_visited_it(project: Project) -> None:
    ingest(project, "I visited Paris in 2019.", "2026-01-05T10:00:00+00:00")
    ingest(project, "I live in Paris.", FIRST)
    ingest(project, "I left Paris last month.", LATER)
    assert memory(project, "lives_in", "Paris").status == "superseded"
    assert memory(project, "visited", "Paris").status == "active"


def test_saying_it_again_ends_the_no_longer(project: Project) -> None:
    ingest(project, "I don't work at Google anymore.", FIRST)
    ingest(project, "I work at Google again.", LATER)
    assert memory(project, "no_longer_works_at", "Google").status == "superseded"
    assert Memory.objects.get(project=project, predicate="works_at").status == "active"
