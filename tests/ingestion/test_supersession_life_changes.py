"""Changes of a life that supersede what they change, through all seven phases: a new version of a thing
used or had, a habit's number said in words, where one works from, a book finished, a date someone else
moved, a thing named in other words ("budget for the trip" / "trip budget"). And what only looks like one.
"""

from __future__ import annotations

import pytest

from memhq.models import Memory, Project
from tests.ingestion.supersession_support import assert_new_value, assert_superseded, ingest_both, memory


@pytest.mark.parametrize(
    ("before", "after", "predicate", "old", "new"),
    [
        (
            "I use Python 3.9 for everything.",
            "We upgraded to Python 3.12 last week.",
            "uses",
            "Python 3.9",
            "Python 3.12",
        ),
        ("I have an iPhone 12.", "I just bought an iPhone 15.", "owns", "iPhone 12", "iPhone 15"),
        (
            "I go to the gym three times a week.",
            "I've been going to the gym five times a week lately.",
            "go",
            "to the gym three times a week",
            "to the gym five times a week lately",
        ),
        (
            "I work remotely.",
            "I'm back in the office full time now.",
            "work_setting",
            "remote",
            "in the office",
        ),
        ("I work from home on Fridays.", "I'm fully remote now.", "work_setting", "hybrid", "remote"),
        ("I weigh 180 pounds.", "I'm down to 165 pounds now.", "weight", "180 pounds", "165 pounds"),
        (
            "We live in Austin.",
            "We sold our house in Austin and moved into an apartment in Seattle.",
            "lives_in",
            "Austin",
            "Seattle",
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
            "I'm allergic to shellfish.",
            "Turns out I'm not allergic to shellfish after all.",
            "allergic_to",
            "shellfish",
            "no_longer_allergic_to",
        ),
        (
            "I drink coffee every morning.",
            "I've cut out coffee completely.",
            "drink",
            "coffee every morning",
            "left",
        ),
        (
            "I drink coffee every morning.",
            "I don't drink coffee anymore, only green tea.",
            "drink",
            "coffee every morning",
            "no_longer_drink",
        ),
        (
            "I'm on the keto diet.",
            "I'm no longer on the keto diet; I'm doing intermittent fasting now.",
            "diet",  # a diet one is on (rules_diet), ended by name
            "keto",
            "no_longer_diet",
        ),
    ],
)
def test_an_ending_ends_what_it_names(
    project: Project, before: str, after: str, predicate: str, obj: str, ending: str
) -> None:
    ingest_both(project, before, after)
    assert_superseded(memory(project, predicate, obj), Memory.objects.get(project=project, predicate=ending))


def test_a_manager_who_left_is_no_longer_the_manager(project: Project) -> None:
    ingest_both(project, "My manager is Dana.", "My manager left in October.")
    assert_superseded(memory(project, "manager", "Dana"), memory(project, "no_longer_manager", ""))


def test_a_count_said_in_words_changes(project: Project) -> None:
    ingest_both(project, "I have two kids.", "We have three kids now!")
    old = Memory.objects.get(project=project, text="User has two kids.")
    assert_superseded(old, Memory.objects.get(project=project, text="User has three kids now."))


def test_a_finished_book_is_no_longer_being_read(project: Project) -> None:
    ingest_both(project, "I'm reading Middlemarch.", "I finished Middlemarch and started a new thriller.")
    assert_superseded(memory(project, "read", "Middlemarch"), memory(project, "finish", "Middlemarch"))
    assert memory(project, "start", "a new thriller").status == "active"


@pytest.mark.parametrize(
    ("before", "after", "new_text"),
    [
        (
            "My dentist appointment is on March 20.",
            "The dentist moved my appointment to March 27.",
            "User's appointment is 27 March 2026.",
        ),
        (
            "My budget for the trip is $2,000.",
            "I raised my trip budget to $3,000.",
            "User's trip budget is $3,000.",
        ),
    ],
)
def test_the_same_thing_in_other_words_gets_its_new_value(
    project: Project, before: str, after: str, new_text: str
) -> None:
    ingest_both(project, before, after, "2026-03-05T09:00:00+00:00")
    old = Memory.objects.get(project=project, status="superseded")
    assert_superseded(old, Memory.objects.get(project=project, text=new_text))


@pytest.mark.parametrize(
    ("before", "after"),
    [
        # one more version, said as one more: both in use
        ("I use Python 3.9 for the API.", "I also use Python 3.12 for scripts."),
        # two things of one name: the client's version is not the server's
        ("I upgraded my Socket.io client to v4.6.2.", "I upgraded my Socket.io server to v4.6.3."),
        # two people, two ages
        ("My sister is 30.", "My older brother is 34."),
    ],
)
def test_what_only_looks_like_a_new_value_supersedes_nothing(
    project: Project, before: str, after: str
) -> None:
    ingest_both(project, before, after)
    assert not Memory.objects.filter(project=project, status="superseded").exists()


@pytest.mark.parametrize(
    ("before", "after", "obj"),
    [
        ("Don't use bullet points.", "You can use bullet points again.", "never use bullet points"),
        ("Please stop using emojis.", "You can use emojis again.", "never use emojis"),
        (
            "Never add emojis to your replies.",
            "Feel free to add emojis again!",
            "never add emojis to the assistant's replies",
        ),
    ],
)
def test_a_permission_ends_the_prohibition(project: Project, before: str, after: str, obj: str) -> None:
    ingest_both(project, before, after)
    ending = Memory.objects.get(project=project, predicate="no_longer_instructs_assistant")
    assert_superseded(memory(project, "instructs_assistant", obj), ending)


def test_a_permission_leaves_an_instruction_to_do_the_thing(project: Project) -> None:
    ingest_both(project, "Always include a summary at the end.", "You can include a summary again.")
    assert memory(project, "instructs_assistant", "always include a summary at the end").status == "active"


def test_the_new_tool_of_a_move_from_one_to_another_stays_live(project: Project) -> None:
    # the small NER reads "Slack to Teams" as one name: the ending of Slack must not end Teams
    ingest_both(project, "We use Slack at work.", "We moved from Slack to Teams.")
    assert_superseded(memory(project, "uses", "Slack"), memory(project, "no_longer_uses", "Slack"))
    assert memory(project, "uses", "Teams").status == "active"


def test_a_death_is_kept_beside_what_was_known(project: Project) -> None:
    ingest_both(project, "My cat is named Biscuit.", "Biscuit passed away last week.")
    died = Memory.objects.get(project=project, predicate="died")
    assert (died.subject, died.kind, died.status) == ("Biscuit", "event", "active")
