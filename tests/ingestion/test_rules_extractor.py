"""The rules extractor: the car-shopping example, every fixture conversation, and its pieces."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from ingestion.extractors.base import KINDS, CandidateOut, EpisodeIn, ExtractionResult, MessageIn, TimeMention
from ingestion.extractors.rules import RulesExtractor
from ingestion.extractors.rules_filters import is_chatter, is_question
from ingestion.extractors.rules_nlp import get_nlp
from ingestion.extractors.rules_rewrite import Renderer, Speakers, third_person
from ingestion.temporal import find_time_mentions
from tests.fixtures.conversations import CONVERSATIONS, Conversation, Session

DOC_DATE = datetime(2024, 5, 10, 12, tzinfo=UTC)
EXTRACTOR = RulesExtractor()


def _episode(session: Session) -> EpisodeIn:
    messages = []
    for i, m in enumerate(session.messages):
        when = m.timestamp or session.date
        mentions = tuple(find_time_mentions(m.content, when))
        messages.append(MessageIn(i, m.role, m.content, when, m.name, None, mentions))  # type: ignore[arg-type]
    return EpisodeIn(tuple(messages), session.date)


def _say(*turns: tuple[str, str] | tuple[str, str, str]) -> ExtractionResult:
    msgs = tuple(
        MessageIn(i, t[0], t[1], DOC_DATE, t[2] if len(t) > 2 else None, None,  # type: ignore[arg-type,misc]
                  tuple(find_time_mentions(t[1], DOC_DATE)))
        for i, t in enumerate(turns)
    )
    return EXTRACTOR.extract(EpisodeIn(msgs, DOC_DATE))


def _one(text: str, name: str | None = None) -> list[CandidateOut]:
    return _say(("user", text, name) if name else ("user", text)).candidates


def _claims(result: ExtractionResult) -> list[str]:
    return [c.claim for c in result.candidates]


# -- the car-shopping example ------------------------------------------------------------------------------

CAR_CHAT = (
    ("user", "Hi! I'm looking for a new car, can you help?"),
    ("assistant", "Sure! What are you looking for?"),
    ("user", "I'm interested in the Toyota Corolla Hybrid. SUVs are too big for me, I mostly do city commuting."),
    ("assistant", "The Toyota Corolla Hybrid gets 50 mpg, which is great for the city."),
    ("user", "Nice. I want a family car that is hybrid, easy to park and under $30k. "
             "How does the corola hybrid compare?"),
)


def test_car_chat_yields_the_users_four_facts_and_nothing_else() -> None:
    result = _say(*CAR_CHAT)
    claims = _claims(result)
    assert 3 <= len(claims) <= 5, claims
    for expected in ("User is interested in the Toyota Corolla Hybrid.", "User finds SUVs too big.",
                     "User wants a family car that is hybrid, easy to park and under $30k."):
        assert expected in claims
    assert any("does city commuting" in c for c in claims)
    lowered = " ".join(claims).lower()
    for forbidden in ("50 mpg", "asking", "nice", "how does", "can you help"):
        assert forbidden not in lowered
    assert all(c.source_message_indexes[0] in (0, 2, 4) for c in result.candidates)  # never the assistant's
    assert all(c.subject == "user" for c in result.candidates)


def test_car_chat_types_the_car_as_one_product_mention_and_spans_point_at_the_source() -> None:
    result = _say(*CAR_CHAT)
    interest = next(c for c in result.candidates if c.predicate == "interested_in")
    assert interest.object == "Toyota Corolla Hybrid"
    assert [(m.name, m.type, m.role) for m in interest.mentions] == [("Toyota Corolla Hybrid", "product", "object")]
    for cand in result.candidates:
        source = CAR_CHAT[cand.source_message_indexes[0]][1]
        quoted = source[cand.span_start : cand.span_end]
        assert quoted and cand.object.split()[0].lower() in quoted.lower()


def test_car_chat_summary_names_the_topic_and_key_learnings_are_claims() -> None:
    result = _say(*CAR_CHAT)
    assert "Toyota Corolla Hybrid" in result.summary
    assert "car" in result.summary.lower()
    assert result.key_learnings
    assert set(result.key_learnings) <= set(_claims(result))


# -- every fixture conversation ----------------------------------------------------------------------------


def _extract_all(conv: Conversation) -> list[CandidateOut]:
    return [c for s in conv.sessions for c in EXTRACTOR.extract(_episode(s)).candidates]


def test_there_are_at_least_thirty_fixture_conversations() -> None:
    assert len(CONVERSATIONS) >= 30
    assert len({c.id for c in CONVERSATIONS}) == len(CONVERSATIONS)


@pytest.mark.parametrize("conv", CONVERSATIONS, ids=lambda c: c.id)
def test_fixture_conversation_yields_its_memories(conv: Conversation) -> None:
    candidates = _extract_all(conv)
    if conv.yields_nothing:
        assert candidates == []
    for triple in conv.must:
        assert any(triple.matches(c.subject, c.predicate, c.object) for c in candidates), (
            triple, [(c.subject, c.predicate, c.object) for c in candidates])
    claims = [c.claim.lower() for c in candidates]
    for expected in conv.must_claims:
        assert any(expected.lower() in claim for claim in claims), (expected, claims)
    for forbidden in conv.must_not:
        assert not any(forbidden.lower() in claim for claim in claims), (forbidden, claims)


@pytest.mark.parametrize("conv", [c for c in CONVERSATIONS if c.supersedes], ids=lambda c: c.id)
def test_superseding_pairs_share_subject_and_single_valued_predicate(conv: Conversation) -> None:
    from ingestion.extractors.predicates import is_single_valued

    for old, new in conv.supersedes:
        assert (old.subject, old.predicate) == (new.subject, new.predicate)
        assert old.object != new.object
        assert is_single_valued(new.predicate)
        assert old not in conv.expected_active() and new in conv.expected_active()


@pytest.mark.parametrize("conv", CONVERSATIONS, ids=lambda c: c.id)
def test_candidates_are_well_formed(conv: Conversation) -> None:
    for session in conv.sessions:
        episode = _episode(session)
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
        ("hi", True), ("Thanks so much!", True), ("lol", True), ("That's great!", True), ("ok bye, talk soon", True),
        ("I agree.", True), ("I love it!", True), ("Thanks, Melanie!", True), ("I don't know", True),
        ("I live in Berlin.", False), ("Thanks, I moved to Lisbon.", False), ("I hate cilantro", False),
    ],
)
def test_is_chatter(text: str, expected: bool) -> None:
    assert is_chatter(text, names=["Melanie"]) is expected


def test_questions_chatter_and_fragments_yield_nothing() -> None:
    assert _one("Do you know a good vegan place in Rome?") == []
    assert _one("Hi! Thanks a lot, that's awesome lol") == []
    assert _one("I'm so happy for you.") == []
    assert _one("I'm fine, thanks!") == []


@pytest.mark.parametrize("role", ["assistant", "system", "tool"])
def test_non_person_roles_never_yield_claims(role: str) -> None:
    assert _say((role, "I live in Berlin and I love jazz.")).candidates == []
    assert _say((role, "I live in Berlin and I love jazz.", "Bob")).candidates == []


# -- rewriting to a third-person claim ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("verb", "expected"),
    [("love", "loves"), ("study", "studies"), ("go", "goes"), ("watch", "watches"), ("play", "plays"),
     ("'m", "is"), ("have", "has"), ("do", "does"), ("were", "was")],
)
def test_third_person(verb: str, expected: str) -> None:
    assert third_person(verb) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I'm sure my sister loves our dog.", "Caroline is sure Caroline's sister loves Caroline's dog."),
        ("I don't like it when you cancel.", "Caroline doesn't like it when Melanie cancels."),
        ("We were in Rome and I've been to Milan.", "Caroline was in Rome and Caroline has been to Milan."),
        ("I'd love to see your paintings.", "Caroline would love to see Melanie's paintings."),
    ],
)
def test_pronouns_are_rewritten_to_the_speaker_and_the_other_person(text: str, expected: str) -> None:
    doc = get_nlp()(text)
    renderer = Renderer(doc, Speakers.for_message("Caroline", other="Melanie"))
    assert renderer.render(list(doc)) == expected


def test_unnamed_user_is_written_user_and_you_is_the_assistant() -> None:
    doc = get_nlp()("I told you my address.")
    speakers = Speakers.for_message(None, other="the assistant")
    assert speakers.subject == "user"
    assert Renderer(doc, speakers).render(list(doc)) == "User told the assistant User's address."


def test_named_speakers_are_the_subjects_of_their_own_claims() -> None:
    result = _say(("user", "I moved to Lisbon last month.", "Ana"), ("user", "I moved to Oslo in March.", "Ben"))
    by_subject = {c.subject: c for c in result.candidates}
    assert by_subject["Ana"].object == "Lisbon" and by_subject["Ben"].object == "Oslo"
    assert ("Ana", "person", "subject") in [(m.name, m.type, m.role) for m in by_subject["Ana"].mentions]


# -- dates -------------------------------------------------------------------------------------------------


def _mention(text: str, content: str, start: datetime, end: datetime, granularity: str) -> TimeMention:
    at = content.index(text)
    return TimeMention(text, at, at + len(text), start, end, granularity)  # type: ignore[arg-type]


def test_resolved_time_mentions_replace_relative_dates_and_set_valid_from() -> None:
    content = "I went to a jazz concert yesterday."
    day = datetime(2024, 5, 9, tzinfo=UTC)
    mention = _mention("yesterday", content, day, datetime(2024, 5, 10, tzinfo=UTC), "day")
    message = MessageIn(0, "user", content, DOC_DATE, None, None, (mention,))
    (cand,) = EXTRACTOR.extract(EpisodeIn((message,), DOC_DATE)).candidates
    assert cand.claim == "User went to a jazz concert on 9 May 2024."
    assert cand.kind == "event" and cand.valid_from == day


def test_a_date_after_since_keeps_its_bare_form() -> None:
    content = "I've lived in Berlin since 2019."
    start = datetime(2019, 1, 1, tzinfo=UTC)
    mention = _mention("2019", content, start, datetime(2020, 1, 1, tzinfo=UTC), "year")
    message = MessageIn(0, "user", content, DOC_DATE, None, None, (mention,))
    (cand,) = EXTRACTOR.extract(EpisodeIn((message,), DOC_DATE)).candidates
    assert cand.claim == "User has lived in Berlin since 2019."
    assert (cand.predicate, cand.object, cand.valid_from) == ("lives_in", "Berlin", start)


def test_a_relocation_is_an_event_valid_from_the_mentioned_month() -> None:
    (cand,) = _one("I moved to Lisbon last month.")
    assert (cand.kind, cand.predicate, cand.object) == ("event", "lives_in", "Lisbon")
    assert cand.claim == "User moved to Lisbon in April 2024."
    assert cand.valid_from == datetime(2024, 4, 1, tzinfo=UTC)


def test_a_future_move_is_a_plan_without_valid_from() -> None:
    (cand,) = _one("I'm moving to Austin next month.")
    assert (cand.kind, cand.predicate, cand.object, cand.valid_from) == ("decision", "plans_to", "move to Austin", None)


# -- kinds, predicates, entity types, scores ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "predicate", "kind"),
    [
        ("I live in Berlin.", "lives_in", "fact"),
        ("I love sushi.", "likes", "preference"),
        ("I hate olives.", "dislikes", "preference"),
        ("My favourite book is Dune.", "favorite_book", "preference"),
        ("I decided to learn Spanish.", "decided", "decision"),
        ("I'm going to learn Spanish.", "plans_to", "decision"),
        ("I married Sara in 2020.", "spouse", "relationship"),
        ("My wife Sara is a doctor.", "spouse", "relationship"),
        ("I visited Iceland last summer.", "visited", "event"),
        ("I painted a sunrise last week.", "paint", "event"),
        ("I'm allergic to peanuts.", "allergic_to", "fact"),
    ],
)
def test_kinds_and_predicates(text: str, predicate: str, kind: str) -> None:
    found = {(c.predicate, c.kind) for c in _one(text)}
    assert (predicate, kind) in found, found


@pytest.mark.parametrize(
    ("text", "name", "etype"),
    [
        ("I live in Berlin.", "Berlin", "location"),
        ("I work at Google.", "Google", "organization"),
        ("My wife Sara loves hiking.", "Sara", "person"),
        ("My favourite book is Dune.", "Dune", "media"),
        ("I love hiking.", "hiking", "concept"),
        ("I bought a used Honda Civic.", "Honda Civic", "product"),
    ],
)
def test_entity_mentions_have_types(text: str, name: str, etype: str) -> None:
    mentions = {(m.name, m.type) for c in _one(text) for m in c.mentions}
    assert (name, etype) in mentions, mentions


def test_hedges_lower_confidence() -> None:
    (sure,) = _one("I'm moving to Denver next year.")
    (hedged,) = _one("Maybe I'm moving to Denver next year.")
    assert hedged.confidence < sure.confidence


def test_core_facts_are_more_important_than_generic_ones() -> None:
    (allergy,) = _one("I'm allergic to peanuts.")
    (generic,) = _one("I painted a sunrise last week.")
    assert allergy.importance > generic.importance


def test_relationship_names_become_person_mentions_and_their_own_claims() -> None:
    cands = _one("I went hiking with my wife Sara yesterday.")
    rel = next(c for c in cands if c.kind == "relationship")
    assert (rel.predicate, rel.object, rel.claim) == ("spouse", "Sara", "User's wife is Sara.")
    assert ("Sara", "person", "object") in [(m.name, m.type, m.role) for m in rel.mentions]


# -- summaries ---------------------------------------------------------------------------------------------


def test_summary_of_small_talk_and_of_assistant_only_episodes() -> None:
    assert "small talk" in _say(("user", "hi"), ("assistant", "Hello!"), ("user", "thanks, bye")).summary
    assert _say(("assistant", "The user lives in Paris.")).summary == ""


def test_summary_of_a_questions_only_episode_names_what_was_asked() -> None:
    result = _say(("user", "What's the best way to cook basmati rice?"), ("assistant", "Rinse it first."))
    assert result.candidates == []
    assert "asked about" in result.summary and "basmati rice" in result.summary


def test_summary_of_named_speakers_names_them() -> None:
    result = _say(("user", "I adopted a greyhound named Biscuit!", "Priya"), ("user", "I ran a marathon.", "Marcus"))
    assert result.summary.startswith("Priya and Marcus talked about")
    assert "Biscuit" in result.summary
