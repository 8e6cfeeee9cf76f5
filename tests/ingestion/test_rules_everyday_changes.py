"""Everyday changes and routines an assistant hears, read by the rules extractor: a replacement, a value
said "instead of" another, a promotion, a graduation, a break-up, a new routine time, the name to be called
by, a new amount, a comma-spliced report (``rules_patterns_change``, ``rules_routines``,
``rules_instructions``, ``rules_patterns_other``, ``rules_clauses``)."""

from __future__ import annotations

import pytest

from tests.ingestion.rules_support import one


def facts(text: str) -> list[tuple[str, str, str]]:
    return [(c.predicate, c.object, c.claim) for c in one(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "We migrated our hosting from AWS to Hetzner.",
            [
                ("uses", "Hetzner", "User migrated User's hosting from AWS to Hetzner."),
                ("no_longer_uses", "AWS", "User no longer uses AWS."),
            ],
        ),
        (
            "I replaced my old Kindle with a Kobo.",
            [
                ("left", "Kindle", "User replaced User's old Kindle with a Kobo."),
                ("uses", "Kobo", "User uses Kobo."),
            ],
        ),
        (
            "I'm learning Japanese now instead of Spanish.",
            [
                ("studies", "Japanese", "User is learning Japanese now instead of Spanish."),
                ("no_longer_studies", "Spanish", "User no longer studies Spanish."),
            ],
        ),
        (
            "I got promoted to senior engineer!",
            [("job_title", "senior engineer", "User got promoted to senior engineer.")],
        ),
        ("I graduated from MIT in June.", [("left", "MIT", "User graduated from MIT in June 2023.")]),
        ("Sara and I broke up.", [("left", "Sara", "Sara and User broke up.")]),
        ("I wake up at 6am every day.", [("wakes_up", "6am", "User wakes up at 6am every day.")]),
        ("These days I get up at 7:30.", [("wakes_up", "7:30", "These days User gets up at 7:30.")]),
        ("I usually go to bed around 11pm.", [("bedtime", "11pm", "User usually goes to bed around 11pm.")]),
        ("I've started waking up at 5:45.", [("wakes_up", "5:45", "User has started waking up at 5:45.")]),
        ("Please call me Robert.", [("preferred_name", "Robert", "User wants to be called Robert.")]),
        ("I just turned 30.", [("age", "30", "User just turned 30.")]),
        (
            "I've gone off tea, it's coffee for me now.",
            [("no_longer_likes", "tea", "User has gone off tea.")],
        ),
        (
            "I got rid of my standing desk.",
            [("left", "standing desk", "User got rid of User's standing desk.")],
        ),
        # a time that names a kind of the thing stays in the object
        (
            "I prefer afternoon meetings now.",
            [("prefers", "afternoon meetings", "User prefers afternoon meetings now.")],
        ),
        (
            "Actually, give me detailed answers from now on.",
            [
                (
                    "instructs_assistant",
                    "give User detailed answers from now on",
                    "User wants the assistant to give User detailed answers from now on.",
                )
            ],
        ),
        ("My son is 4.", [("age", "4", "User's son is 4.")]),
        ("You can call me Bobby.", [("preferred_name", "Bobby", "User wants to be called Bobby.")]),
        ("My rent went up to $1,950 a month.", [("is", "$1,950 a month", "User's rent is $1,950 a month.")]),
        ("My budget got bumped up to $900.", [("is", "$900", "User's budget is $900.")]),
        ("I bumped the batch size to 64.", [("is", "64", "User's batch size is 64.")]),
        (
            "We pushed the MVP deadline to June 15.",
            [("is", "15 June 2024", "User's MVP deadline is 15 June 2024.")],
        ),
        (
            "My flight to Madrid got moved to the 14th.",
            [("is", "14 May 2024", "User's flight to Madrid is 14 May 2024.")],
        ),
        (
            "Sold the Civic, I'm driving a Tesla now.",
            [
                ("left", "Civic", "User sold the Civic."),
                ("drive", "a Tesla now", "User is driving a Tesla now."),
            ],
        ),
    ],
)
def test_an_everyday_change_is_read(text: str, expected: list[tuple[str, str, str]]) -> None:
    assert facts(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # without "now" a value said "rather than" another is a choice: the other may never have held
        (
            "I use Postgres rather than MySQL.",
            [("uses", "Postgres", "User uses Postgres rather than MySQL.")],
        ),
        # a new day is not a tool
        (
            "I switched my gym day to Thursdays.",
            [("switch", "User's gym day to Thursdays", "User switched User's gym day to Thursdays.")],
        ),
        # the small model tags "Neovim" a place; no town of that name: a change of tools, not a move home
        ("I moved to Neovim last month.", [("uses", "Neovim", "User moved to Neovim in April 2024.")]),
        # something moved to a room is no move home, and no new value
        (
            "I moved the meeting to the big room.",
            [("move", "the meeting to the big room", "User moved the meeting to the big room.")],
        ),
        # a team or an office one is moved to is no home
        (
            "I've been moved to the search team.",
            [("move", "to the search team", "User has been moved to the search team.")],
        ),
        # a meeting moved to another day is no move home: its new date
        (
            "My meeting with Dana got moved to Thursday.",
            [("is", "16 May 2024", "User's meeting with Dana is 16 May 2024.")],
        ),
        # a number in a thing's description is not an age
        ("My budget for the trip is $2,000.", [("is", "$2,000", "User's budget for the trip is $2,000.")]),
        ("My score went from 78% to 92%!", [("go", "from 78% to 92%", "User's score went from 78% to 92%.")]),
        # a nickname others use, and a name not to use, are not the name to be called by
        ("My friends call me Lizzie.", [("call", "User Lizzie", "User's friends call User Lizzie.")]),
        (
            "I got up at 5 today to catch the train.",
            [("get_up", "at 5 to catch the train", "User got up at 5 on 10 May 2024 to catch the train.")],
        ),
    ],
)
def test_what_only_looks_like_one_is_not(text: str, expected: list[tuple[str, str, str]]) -> None:
    assert facts(text) == expected


def test_a_correction_keeps_the_value_it_states() -> None:
    [claim] = [c.claim for c in one("Actually, my flight is on the 14th, not the 12th.")]
    assert claim == "User's flight is on 14 May 2024."


def test_an_ending_of_a_generic_verb_agrees_with_its_subject() -> None:
    assert ("no_longer_do", "French", "User no longer does French.") in facts(
        "I'm doing German now instead of French."
    )


def test_an_irregular_past_the_tagger_reads_as_a_present_stays_past() -> None:
    assert [c.claim for c in one("We rewrote the frontend in Svelte.")] == [
        "User rewrote the frontend in Svelte."
    ]
