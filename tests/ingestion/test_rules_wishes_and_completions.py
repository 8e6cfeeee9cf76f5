"""Instructions said as a wish or a need taken away (``ingestion.extractors.rules_wishes``), and a thing
prepared for then done (``ingestion.conflicts_said.completes``), read and then through all seven phases."""

from __future__ import annotations

import pytest

from memhq.models import Memory, MemoryStatus, Project
from tests.ingestion.rules_support import say
from tests.ingestion.rules_support import told as claims
from tests.ingestion.supersession_support import assert_superseded, ingest_both


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "I'd appreciate it if you kept your replies brief.",
            "User wants the assistant to keep the assistant's replies brief.",
        ),
        ("It would help if you used numbered steps.", "User wants the assistant to use numbered steps."),
        ("It'd be great if you could answer in German.", "User wants the assistant to answer in German."),
        (
            "I'd prefer if you wrote in British spelling.",
            "User wants the assistant to write in British spelling.",
        ),
        ("It would be nice if you didn't use emojis.", "User wants the assistant to never use emojis."),
        ("No need to apologize every time.", "User wants the assistant to not apologize every time."),
        (
            "There's no need to summarize my message back to me.",
            "User wants the assistant to not summarize User's message back to User.",
        ),
        (
            "It would be super helpful if you could show options in a table.",
            "User wants the assistant to show options in a table.",
        ),
        ("I'd really appreciate it if you used headings.", "User wants the assistant to use headings."),
        (
            "No need to include citations in every answer, I'm not writing a paper.",
            "User wants the assistant to not include citations in every answer.",
        ),
        (
            "You don't have to explain what a variable is.",
            "User wants the assistant to not explain what a variable is.",
        ),
    ],
)
def test_a_wish_of_the_answers_is_an_instruction(text: str, expected: str) -> None:
    assert claims(text) == [expected]


@pytest.mark.parametrize(
    "text",
    [
        "It would help if you explained this line.",  # a thing at hand: one-off
        "No need to repeat that.",
        "I'd love it if you could come to the party.",  # not what an assistant writes
        "No need to bring anything.",
        "You don't need to call me tomorrow.",
        "It would help if you fixed the bug first.",  # nothing of the answers' form
    ],
)
def test_a_one_off_wish_is_no_instruction(text: str) -> None:
    assert not any("wants the assistant" in claim for claim in claims(text))


def test_a_wish_says_nothing_else() -> None:
    assert claims("I'd appreciate it if you kept your answers short.") == [
        "User wants the assistant to keep the assistant's answers short."
    ]


@pytest.mark.parametrize(
    ("before", "after", "old", "new"),
    [
        ("I'm studying for the GMAT.", "I passed the GMAT!", "is studying for", "passed"),
        ("I'm training for the Leeds half marathon.", "I ran the Leeds half marathon.", "is training", "ran"),
        (
            "I'm working on my dissertation.",
            "I submitted my dissertation today.",
            "is working on",
            "submitted",
        ),
        ("I'm preparing for my citizenship test.", "I took my citizenship test.", "is preparing", "took"),
    ],
)
def test_a_thing_prepared_for_then_done(
    project: Project, before: str, after: str, old: str, new: str
) -> None:
    ingest_both(project, before, after)
    first = Memory.objects.get(project=project, text__contains=old)
    assert_superseded(first, Memory.objects.get(project=project, text__contains=new))


@pytest.mark.parametrize(
    ("before", "after", "kept"),
    [
        ("I'm studying for the GMAT.", "I failed the GMAT.", "is studying for"),  # may well go on studying
        ("I'm studying for the GMAT.", "I passed my driving test.", "is studying for"),  # another thing
    ],
)
def test_a_thing_prepared_for_stays(project: Project, before: str, after: str, kept: str) -> None:
    ingest_both(project, before, after)
    assert Memory.objects.get(project=project, text__contains=kept).status == MemoryStatus.ACTIVE


@pytest.mark.parametrize(
    ("before", "after", "pet"),
    [
        ("We have a rabbit named Clover.", "Clover died on Sunday.", "Clover"),
        ("I have a hamster.", "My hamster died last night.", "hamster"),
        ("I have a beagle named Otis.", "Our beagle died this morning.", "Otis"),
    ],
)
def test_a_pet_that_died_is_no_longer_had(project: Project, before: str, after: str, pet: str) -> None:
    ingest_both(project, before, after)
    had = Memory.objects.get(project=project, predicate="has_pet", object_value=pet)
    assert_superseded(had, Memory.objects.get(project=project, predicate="died"))


def test_a_person_who_died_ends_nothing(project: Project) -> None:
    ingest_both(project, "My aunt Ruth lives in Cork.", "Ruth passed away in the spring.")
    assert Memory.objects.get(project=project, predicate="lives_in").status == MemoryStatus.ACTIVE


def test_the_pet_said_to_have_died_is_not_had() -> None:
    said = [
        (c.subject, c.predicate, c.object)
        for c in say(("user", "Our cat Miso died, but we still have Taz.")).candidates
    ]
    assert ("user's cat", "died", "") in said
    assert ("user", "has_pet", "Miso") not in said


def test_a_new_title_replaces_the_old(project: Project) -> None:
    ingest_both(project, "I'm a backend developer at Corvel.", "I'm now a team lead.")
    old = Memory.objects.get(project=project, predicate="job_title", object_value="backend developer")
    assert_superseded(
        old, Memory.objects.get(project=project, predicate="job_title", object_value="team lead")
    )


def test_pigs_named_in_a_list_are_pets() -> None:
    said = [(c.predicate, c.object) for c in say(("user", "I have two pigs, Hazel and Pip.")).candidates]
    assert ("has_pet", "Hazel") in said and ("has_pet", "Pip") in said


def test_a_pet_keeps_its_kind_in_the_claim() -> None:
    said = [c.claim for c in say(("user", "Waffles, my guinea pig, hates the vacuum.")).candidates]
    assert "User has a guinea pig named Waffles." in said


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("We had to move the gala to October 9 because of the rain.", "User's gala is 9 October 2024."),
        ("I decided to push my review to June 3.", "User's review is 3 June 2024."),
        ("I set the timeout to 45s as you suggested.", "User's timeout is 45s."),
    ],
)
def test_a_value_set_is_cut_before_what_the_verb_says_after_it(text: str, expected: str) -> None:
    assert expected in [c.claim for c in say(("user", text)).candidates]


def test_a_change_still_needed_is_not_made() -> None:
    assert not any(" is " in c.claim for c in say(("user", "I need to move my flight to Friday.")).candidates)
