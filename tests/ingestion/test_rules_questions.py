"""What the rules extractor keeps of questions, requests and indirect questions: the statement a question
opens with or the reason it gives, an "if" that means "whether", a statement in a frame."""

from __future__ import annotations

import pytest

from tests.ingestion.rules_support import say


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I'm allergic to nuts, can you suggest a snack?", ["User is allergic to nuts."]),
        ("I work at Stripe now, how should I update my resume?", ["User works at Stripe now."]),
        (
            "I'm using Postgres 16 for storage, but how do I tune autovacuum?",
            ["User is using Postgres 16 for storage."],
        ),
        # the reason it gives after asking is a statement too
        ("Can you suggest a snack, since I'm allergic to nuts?", ["User is allergic to nuts."]),
        (
            "What should I cook tonight, because I'm vegetarian and my partner hates onions?",
            ["User is vegetarian.", "User's partner hates onions."],
        ),
        (
            "How should I size the pool, considering I've already cut it from 20 to 12?",
            ["User has already cut it from 20 to 12."],
        ),
        (
            "Which flow should I use, given that I prefer PKCE for public clients?",
            ["User prefers PKCE for public clients."],
        ),
        ("Do you think I should move, since the rent went up?", []),  # not the speaker's
        ("Can you help me, since you know Python?", []),
        ("If I move to Denver, what should I do?", []),  # a condition, not a statement
        ("If I get the job I'm moving to Berlin, what should I pack?", []),
        # … but an "if" inside the request does not make the statement before it a condition
        (
            "I prefer unit tests over mocks for parsers, so can you check this one, "
            "for example if the input is empty?",
            ["User prefers unit tests over mocks for parsers."],
        ),
        (  # the link to the request is no part of the statement
            "I prefer worked examples over definitions, so can you show me one for recursion?",
            ["User prefers worked examples over definitions."],
        ),
        (
            "I'm moving to Berlin in May, what should I pack if it gets cold?",
            ["User is moving to Berlin in May 2024."],
        ),
        ("Do you think I should move to Denver?", []),
        ("Which city do I live in again?", []),
        ("Can you suggest a name for my new puppy?", []),
    ],
)
def test_a_question_keeps_only_the_statement_it_opens_with(text: str, expected: list[str]) -> None:
    assert [c.claim for c in say(("user", text)).candidates] == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # "if" after sure / wonder / know asks "whether": the sentence around it still states things
        (
            "I'm migrating my blog to Hugo, but I'm not sure if the old permalinks will survive.",
            ["User is migrating User's blog to Hugo."],  # the doubt is a question in other words
        ),
        (
            "I keep bees on my balcony, and I was wondering if you could help me plan the winter feeding.",
            ["User keeps bees on User's balcony."],
        ),
        ("I sold my old bike, and I was hoping you could suggest a new one.", ["User sold User's old bike."]),
        # the request the parser hangs below an earlier clause still closes the statement part
        (
            "I'm rewriting the billing module in Rust, but I'm not sure if it's idiomatic, can you check it?",
            ["User is rewriting the billing module in Rust."],
        ),
        # "whether" after a purpose asks nothing of the clause around it
        (
            "I'm timing the build to check if the cache helps.",
            ["User is timing the build to check if the cache helps."],
        ),
        (
            "I'm profiling the app to figure out if the pool is too small.",
            ["User is profiling the app to figure out if the pool is too small."],
        ),
        ("I need to find out if the venue is free.", []),
        # "… or if …" goes on with the question before it
        (
            "I'm tiling the bathroom with hexagons, but I'm not sure how to cut the edges "
            "or if I need a wet saw.",
            ["User is tiling the bathroom with hexagons.", "User is not sure how to cut the edges."],
        ),
        # a condition is still a condition
        ("I'll take the train, or if the strike goes on I'll drive.", []),
        ("I'll repaint the kitchen if the landlord agrees.", []),
        ("If I get the grant, I'll hire two students.", []),
        ("Let me know if you need anything.", []),
        ("I don't know if I should take the job.", []),
    ],
)
def test_an_if_that_means_whether_is_not_a_condition(text: str, expected: list[str]) -> None:
    assert [c.claim for c in say(("user", text)).candidates] == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The good news is that I got the job at the bakery!", ["User got the job at the bakery."]),
        ("The thing is, I just adopted a puppy.", ["User just adopted a puppy."]),
        ("The hardest part was that we had to sell the farm.", ["User had to sell the farm."]),
        ("The problem is that the server crashes every night.", []),  # not the speaker's statement
    ],
)
def test_a_statement_framed_by_the_x_is_that_is_kept(text: str, expected: list[str]) -> None:
    assert [c.claim for c in say(("user", text)).candidates] == expected
