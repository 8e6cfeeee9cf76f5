"""The rules extractor end to end: the car-shopping example, every fixture conversation, the filters and
the summary."""

from __future__ import annotations

import pytest

from ingestion.extractors.base import KINDS
from ingestion.extractors.predicates import is_single_valued
from ingestion.extractors.rules_filters import is_chatter, is_question
from ingestion.extractors.rules_nlp import get_nlp
from tests.fixtures.conversations import CONVERSATIONS, Conversation
from tests.ingestion.rules_support import EXTRACTOR, claims, episode_of, extract_all, one, say

# -- the car-shopping example ------------------------------------------------------------------------------

CAR_CHAT = (
    ("user", "Hi! I'm looking for a new car, can you help?"),
    ("assistant", "Sure! What are you looking for?"),
    (
        "user",
        "I'm interested in the Toyota Corolla Hybrid. SUVs are too big for me, I mostly do city commuting.",
    ),
    ("assistant", "The Toyota Corolla Hybrid gets 50 mpg, which is great for the city."),
    (
        "user",
        "Nice. I want a family car that is hybrid, easy to park and under $30k. "
        "How does the corola hybrid compare?",
    ),
)


def test_car_chat_yields_the_users_four_facts_and_nothing_else() -> None:
    result = say(*CAR_CHAT)
    found = claims(result)
    assert 3 <= len(found) <= 5, found
    for expected in (
        "User is interested in the Toyota Corolla Hybrid.",
        "User finds SUVs too big.",
        "User wants a family car that is hybrid, easy to park and under $30k.",
    ):
        assert expected in found
    assert any("does city commuting" in c for c in found)
    lowered = " ".join(found).lower()
    for forbidden in ("50 mpg", "asking", "nice", "how does", "can you help"):
        assert forbidden not in lowered
    assert all(c.source_message_indexes[0] in (0, 2, 4) for c in result.candidates)  # never the assistant's
    assert all(c.subject == "user" for c in result.candidates)


def test_car_chat_types_the_car_as_one_product_mention_and_spans_point_at_the_source() -> None:
    result = say(*CAR_CHAT)
    interest = next(c for c in result.candidates if c.predicate == "interested_in")
    assert interest.object == "Toyota Corolla Hybrid"
    mentions = [(m.name, m.type, m.role) for m in interest.mentions]
    assert mentions == [("Toyota Corolla Hybrid", "product", "object")]
    for cand in result.candidates:
        source = CAR_CHAT[cand.source_message_indexes[0]][1]
        quoted = source[cand.span_start : cand.span_end]
        assert quoted and cand.object.split()[0].lower() in quoted.lower()


def test_car_chat_summary_names_the_topic_and_key_learnings_areclaims() -> None:
    result = say(*CAR_CHAT)
    assert "Toyota Corolla Hybrid" in result.summary
    assert "car" in result.summary.lower()
    assert result.key_learnings
    assert set(result.key_learnings) <= set(claims(result))


# -- every fixture conversation ----------------------------------------------------------------------------


def test_there_are_at_least_thirty_fixture_conversations() -> None:
    assert len(CONVERSATIONS) >= 30
    assert len({c.id for c in CONVERSATIONS}) == len(CONVERSATIONS)


@pytest.mark.parametrize("conv", CONVERSATIONS, ids=lambda c: c.id)
def test_fixture_conversation_yields_its_memories(conv: Conversation) -> None:
    candidates = extract_all(conv)
    if conv.yields_nothing:
        assert candidates == []
    for triple in conv.must:
        assert any(triple.matches(c.subject, c.predicate, c.object) for c in candidates), (
            triple,
            [(c.subject, c.predicate, c.object) for c in candidates],
        )
    claims = [c.claim.lower() for c in candidates]
    for expected in conv.must_claims:
        assert any(expected.lower() in claim for claim in claims), (expected, claims)
    for forbidden in conv.must_not:
        assert not any(forbidden.lower() in claim for claim in claims), (forbidden, claims)


@pytest.mark.parametrize("conv", [c for c in CONVERSATIONS if c.supersedes], ids=lambda c: c.id)
def test_superseding_pairs_share_subject_and_single_valued_predicate(conv: Conversation) -> None:
    for old, new in conv.supersedes:
        assert (old.subject, old.predicate) == (new.subject, new.predicate)
        assert old.object != new.object
        assert is_single_valued(new.predicate)
        assert old not in conv.expected_active() and new in conv.expected_active()


@pytest.mark.parametrize("conv", CONVERSATIONS, ids=lambda c: c.id)
def test_candidates_are_well_formed(conv: Conversation) -> None:
    for session in conv.sessions:
        episode = episode_of(session)
        for cand in EXTRACTOR.extract(episode).candidates:
            message = episode.messages[cand.source_message_indexes[0]]
            assert message.role == "user"
            assert cand.kind in KINDS
            assert 0.0 < cand.confidence <= 1.0 and 0.0 < cand.importance <= 1.0
            assert 0 <= cand.span_start < cand.span_end <= len(message.content)
            assert cand.claim[0].isupper() and cand.claim.endswith(".")
            assert cand.valid_from is None or cand.valid_from.tzinfo is not None


# -- filters -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("How does the corola hybrid compare?", True),
        ("Do you think basmati is better than jasmine", True),
        ("What did you cook", True),
        ("I'm looking for a new car, can you help?", True),
        ("When I was young I lived in Rome.", False),
        ("I live in Berlin.", False),
        ("Do your research first.", False),
    ],
)
def test_is_question(text: str, expected: bool) -> None:
    sent = next(get_nlp()(text).sents)
    assert is_question(sent) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("hi", True),
        ("Thanks so much!", True),
        ("lol", True),
        ("That's great!", True),
        ("ok bye, talk soon", True),
        ("I agree.", True),
        ("I love it!", True),
        ("Thanks, Ines!", True),
        ("I don't know", True),
        ("I live in Berlin.", False),
        ("Thanks, I moved to Lisbon.", False),
        ("I hate cilantro", False),
    ],
)
def test_is_chatter(text: str, expected: bool) -> None:
    assert is_chatter(text, names=["Ines"]) is expected


def test_questions_chatter_and_fragments_yield_nothing() -> None:
    assert one("Do you know a good vegan place in Rome?") == []
    assert one("Hi! Thanks a lot, that's awesome lol") == []
    assert one("I'm so happy for you.") == []
    assert one("I'm fine, thanks!") == []
    assert one("Should I move to Berlin?") == []
    assert one("Can I bring my dog to the office") == []


@pytest.mark.parametrize("role", ["assistant", "system", "tool"])
def test_non_person_roles_never_yieldclaims(role: str) -> None:
    assert say((role, "I live in Berlin and I love jazz.")).candidates == []
    assert say((role, "I live in Berlin and I love jazz.", "Bob")).candidates == []


# -- summaries ---------------------------------------------------------------------------------------------


def test_summary_of_small_talk_and_of_assistant_only_episodes() -> None:
    assert "small talk" in say(("user", "hi"), ("assistant", "Hello!"), ("user", "thanks, bye")).summary
    assert say(("assistant", "The user lives in Paris.")).summary == ""


def test_summary_of_a_questions_only_episode_names_what_was_asked() -> None:
    result = say(("user", "What's the best way to cook basmati rice?"), ("assistant", "Rinse it first."))
    assert result.candidates == []
    assert "asked about" in result.summary and "basmati rice" in result.summary


def test_summary_of_named_speakers_names_them() -> None:
    result = say(
        ("user", "I adopted a greyhound named Biscuit!", "Priya"), ("user", "I ran a marathon.", "Marcus")
    )
    assert result.summary.startswith("Priya and Marcus talked about")
    assert "Biscuit" in result.summary
