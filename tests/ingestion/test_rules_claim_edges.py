"""Claims that read on their own: what ties a statement to the talk around it is trimmed, a value keeps its
unit, a casual report keeps its speaker, and a name before the relation names it (``rules_trim``,
``rules_relations``)."""

from __future__ import annotations

import pytest

from tests.ingestion.rules_support import one


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a link to the sentence before is not part of the claim
        ("However, I would like to cut build times.", "Ana would like to cut build times."),
        ("Moreover, my team uses Rust for the backend.", "Ana's team uses Rust for the backend."),
        ("Here's what I have so far: I'm planning to use Redis.", "Ana is planning to use Redis."),
        ("Here is my plan: I'll move to Lisbon in May.", "Ana will move to Lisbon in May 2024."),
        (  # the pasted code is blanked before parsing, so the colon meets a line break
            "Here's what I have so far:\n```python\nx = 1\n```\nI'm not sure how to cache the scores.",
            "Ana is not sure how to cache the scores.",
        ),
        ("Even though I set the timeout to 30 seconds.", "Ana's timeout is 30 seconds."),
        ("1. I use vim for everything.", "Ana uses vim for everything."),  # a list item's number
        ("Thanks for the help, I switched to Postgres.", "Ana switched to Postgres."),
        (
            "Speaking of work, my manager moved the launch to June.",
            "Ana's manager moved the launch to June 2024.",
        ),
        ("Thanks to my sister, I found a flat.", "Thanks to Ana's sister, Ana found a flat."),
        ("2) I moved to Oslo in May.", "Ana moved to Oslo in May 2024."),
        # "however" that is not a connective stays: the clause is a condition, not a statement beside one
        ("However I phrase it, I still love my job.", "However Ana phrases it, Ana still loves Ana's job."),
        # a symbol after a number is part of the value
        ("I cut the latency by 40%.", "Ana cut the latency by 40%."),
        ("My score went from 78% to 92%!", "Ana's score went from 78% to 92%."),
        ("I paid 30€.", "Ana paid 30€."),
        # a casual report without its subject is the speaker's, after an adverb too
        ("Went hiking yesterday.", "Ana went hiking on 9 May 2024."),
        ("Just finished my first marathon!", "Ana just finished Ana's first marathon."),
        ("Just got back from a run with my dog.", "Ana just got back from a run with Ana's dog."),
    ],
)
def test_the_claim_reads_on_its_own(text: str, expected: str) -> None:
    assert [candidate.claim for candidate in one(text, "Ana")] == [expected]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Lena is my sister.", ("sibling", "User's sister is Lena.")),
        ("Tom became my manager.", ("manager", "User's manager is Tom.")),
        ("Rex is my dog.", ("has_pet", "User has a dog named Rex.")),
    ],
)
def test_a_name_before_the_relation_names_it(text: str, expected: tuple[str, str]) -> None:
    assert [(c.predicate, c.claim) for c in one(text)] == [expected]


def test_a_pronoun_before_the_relation_names_nobody() -> None:
    assert one("He is my brother.") == []
