"""Plans called off and amounts someone else changed, through all seven phases: the cancellation ends the
plan it names, and only that; a polite request about the form of answers is a standing instruction that a
later one of the same kind replaces; a tier, a time zone; a job taken away, a state that used to hold; and a
name that is not the speaker's, which leaves theirs.
"""

from __future__ import annotations

import pytest

from memhq.models import Memory, Project
from tests.ingestion.supersession_support import assert_new_value, assert_superseded, ingest_both, memory


@pytest.mark.parametrize(
    ("before", "after", "predicate", "obj"),
    [
        ("I'm flying to Porto on May 3rd.", "I had to cancel the Porto trip.", "fly", "to Porto"),
        ("I have a dentist appointment on July 2.", "I cancelled my dentist appointment.", "have", None),
        ("I have a membership at the climbing gym.", "I cancelled my climbing gym membership.", "have", None),
    ],
)
def test_a_cancellation_ends_the_plan_it_names(
    project: Project, before: str, after: str, predicate: str, obj: str | None
) -> None:
    ingest_both(project, before, after)
    plan = Memory.objects.get(project=project, predicate=predicate)
    cancelled = Memory.objects.get(project=project, predicate="cancelled")
    assert obj is None or plan.object_value == obj
    assert (plan.status, plan.superseded_by_id, cancelled.status) == ("superseded", cancelled.pk, "active")
    # a plan called off before its day never held: its validity ends where it starts
    assert plan.valid_until == max(plan.valid_from, cancelled.valid_from)


def test_an_appointment_one_has_is_dated_ahead(project: Project) -> None:
    ingest_both(project, "I have a dentist appointment on July 2.", "Thanks!")
    plan = Memory.objects.get(project=project, predicate="have")
    assert plan.text == "User has a dentist appointment on 2 July 2026."


@pytest.mark.parametrize(
    "before",
    [
        "I live in Porto.",  # a state: "the Porto trip" is not the home
        "I visited Porto in 2019.",  # a past event
        "I'm flying to Madrid on May 3rd.",  # another plan
        "I have a Porto trip with the team every spring.",  # what repeats
    ],
)
def test_a_cancellation_leaves_what_it_does_not_name(project: Project, before: str) -> None:
    ingest_both(project, before, "I had to cancel the Porto trip.")
    kept = Memory.objects.exclude(predicate="cancelled").get(project=project)
    assert (kept.status, kept.superseded_by_id) == ("active", None)


def test_an_amount_someone_of_the_speakers_changed(project: Project) -> None:
    assert_new_value(
        project,
        "My rent is $1,800 a month.",
        "My landlord raised the rent to $2,050.",
        "is",
        "$1,800 a month",
        "$2,050",
    )


def test_a_request_about_the_form_of_answers_is_replaced_by_one_of_its_kind(project: Project) -> None:
    ingest_both(project, "Please use metric units.", "Please use imperial units from now on.")
    old = memory(project, "instructs_assistant", "use metric units")
    assert_superseded(old, memory(project, "instructs_assistant", "use imperial units from now on"))


@pytest.mark.parametrize(
    "after", ["My sister's name is Ana.", "We named the new project Falcon.", "I partnered with Acme on it."]
)
def test_a_name_or_partner_that_is_not_the_speakers_leaves_theirs(project: Project, after: str) -> None:
    ingest_both(project, "My name is Sam. My partner is Alex.", after)
    for predicate, obj in (("name", "Sam"), ("partner", "Alex")):
        kept = memory(project, predicate, obj)
        assert (kept.status, kept.superseded_by_id) == ("active", None)


def test_a_degree_finished_ends_the_enrolment(project: Project) -> None:
    ingest_both(project, "I'm enrolled in a part-time MBA at Warwick.", "I graduated from my MBA last week!")
    enrolled = memory(project, "enrol", "in a part-time MBA at Warwick")
    assert_superseded(enrolled, memory(project, "left", "MBA"))


def test_a_move_to_another_tier_replaces_the_old_one(project: Project) -> None:
    assert_new_value(
        project,
        "I'm on the Starter plan.",
        "I upgraded to the Pro plan yesterday.",
        "subscription_plan",
        "Starter plan",
        "Pro plan",
    )


def test_a_new_time_zone_replaces_the_old_one(project: Project) -> None:
    assert_new_value(
        project,
        "My timezone is Pacific.",
        "I'm on Eastern time now since the move.",
        "timezone",
        "Pacific",
        "Eastern",
    )


@pytest.mark.parametrize(
    ("before", "after", "predicate", "obj", "ending"),
    [
        ("I work at Initech.", "I got laid off last week.", "works_at", "Initech", "no_longer_works_at"),
        ("I work at Initech.", "I was fired from Initech.", "works_at", "Initech", "left"),
        ("I work as a nurse.", "I retired in May!", "job_title", "nurse", "no_longer_job_title"),
        ("I live in Berlin.", "I used to live in Berlin, now I'm in Hamburg.", "lives_in", "Berlin", None),
    ],
)
def test_an_ending_said_without_no_longer(
    project: Project, before: str, after: str, predicate: str, obj: str, ending: str | None
) -> None:
    ingest_both(project, before, after)
    ended = memory(project, predicate, obj)
    by = Memory.objects.get(project=project, predicate=ending or f"no_longer_{predicate}")
    assert_superseded(ended, by)


def test_an_ending_that_only_points_at_something_ends_nothing(project: Project) -> None:
    ingest_both(project, "I live in Hereford.", "I had to get rid of her.")  # "her" is no word of "Hereford"
    assert not Memory.objects.filter(project=project, status="superseded").exists()
