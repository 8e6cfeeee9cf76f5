"""The states of ``test_rules_own_states`` through all seven phases: each new value replaces the old one;
a plan said with "the" and called off ends it; a wedding called off ends "getting married"."""

from __future__ import annotations

import pytest

from memhq.models import Memory, Project
from tests.ingestion.supersession_support import assert_new_value, ingest_both


@pytest.mark.parametrize(
    ("before", "after", "predicate", "old", "new"),
    [
        ("I take the bus to work.", "I cycle to work now.", "commutes_by", "bus", "bike"),
        ("My daughter is in 2nd grade.", "My daughter started 3rd grade.", "grade", "2nd grade", "3rd grade"),
        ("I'm single.", "I've been seeing someone.", "relationship_status", "single", "dating"),
        ("I'm single.", "I have a girlfriend now.", "relationship_status", "single", "in a relationship"),
        ("I'm a vegetarian.", "I started eating fish again.", "diet", "vegetarian", "eats fish"),
        ("My name's Tomas Berg.", "My name is Tom now.", "name", "Tomas Berg", "Tom"),
        ("I live with my parents.", "I live alone now.", "lives_with", "User's parents", "alone"),
        ("I work at Kestrel.", "I've been at Pellucid for a month now.", "works_at", "Kestrel", "Pellucid"),
        ("I'm on the paleo diet.", "I'm vegan now.", "diet", "paleo", "vegan"),
        (
            "My phone number is 555-0142.",
            "My new number is 555-0199.",
            "phone_number",
            "555-0142",
            "555-0199",
        ),
        (
            "My email is ines@example.com.",
            "Use my new email ines.r@example.org.",
            "email_address",
            "ines@example.com",
            "ines.r@example.org",
        ),
        (
            "I'm renting a flat in Bristol.",
            "We bought a house in Bath and moved in.",
            "lives_in",
            "Bristol",
            "Bath",
        ),
        ("I weigh 90 kg.", "I'm down to 84 kg now.", "weight", "90 kg", "84 kg"),
    ],
)
def test_a_new_value_replaces_the_old(
    project: Project, before: str, after: str, predicate: str, old: str, new: str
) -> None:
    assert_new_value(project, before, after, predicate, old, new)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("I'm flying to Riga on May 3rd.", "The Riga trip was cancelled."),
        ("We're getting married in June!", "We called off the wedding."),
        ("We're moving to Tallinn in August.", "We called off the move."),
        (
            "I use Audible every day.",
            "I cancelled my Audible subscription.",
        ),  # the service, not only its plan
        ("I have a climbing gym membership.", "I cancelled my climbing gym membership."),
    ],
)
def test_a_plan_called_off_ends(project: Project, before: str, after: str) -> None:
    ingest_both(project, before, after)
    plan = Memory.objects.exclude(predicate="cancelled").get(project=project)
    cancelled = Memory.objects.get(project=project, predicate="cancelled")
    assert (plan.status, plan.superseded_by_id) == ("superseded", cancelled.pk)


@pytest.mark.parametrize(
    ("before", "after", "predicate"),
    [
        ("I take lisinopril every morning.", "My doctor took me off lisinopril.", "take"),
        ("I'm on the paleo diet.", "I stopped doing paleo.", "diet"),
        ("I'm learning Greek.", "I gave up on learning Greek.", "studies"),
    ],
)
def test_what_one_went_off_ends(project: Project, before: str, after: str, predicate: str) -> None:
    ingest_both(project, before, after)
    assert Memory.objects.get(project=project, predicate=predicate).status == "superseded"


def test_a_way_to_work_no_longer_taken_ends(project: Project) -> None:
    ingest_both(project, "I drive to work.", "I don't drive to work anymore.")
    assert Memory.objects.get(project=project, predicate="commutes_by").status == "superseded"


def test_being_between_jobs_ends_the_employer(project: Project) -> None:
    ingest_both(project, "I work at Kestrel as a data analyst.", "I'm between jobs right now.")
    employer = Memory.objects.get(project=project, predicate="works_at")
    assert employer.status == "superseded"


def test_a_meeting_that_repeats_is_not_called_off_by_one_cancellation(project: Project) -> None:
    ingest_both(project, "I have a team meeting every Monday.", "The meeting was cancelled.")
    meeting = Memory.objects.exclude(predicate="cancelled").get(project=project)
    assert meeting.status == "active"


def test_a_corrected_name_replaces_the_name_spelled_like_it(project: Project) -> None:
    """A relation holds many names, so a new one ends none; a correction ends the one it corrects only."""
    ingest_both(project, "My sisters are Maren and Ilse.", "Sorry, I misspoke: my sister's name is Karen.")
    live = Memory.objects.filter(project=project, predicate="sibling", status="active")
    assert set(live.values_list("object_value", flat=True)) == {"Ilse", "Karen"}
