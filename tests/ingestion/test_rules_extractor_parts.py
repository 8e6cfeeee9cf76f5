"""The rules extractor's pieces: third-person rewriting, dates, predicates and kinds, entity types, scores."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from ingestion.extractors.base import EpisodeIn, MessageIn, TimeMention
from ingestion.extractors.predicates import (
    favorite_predicate,
    is_single_valued,
    normalise_predicate,
    object_entity_type,
)
from ingestion.extractors.rules_candidates import close_marks
from ingestion.extractors.rules_nlp import get_nlp
from ingestion.extractors.rules_rewrite import Renderer, Speakers, third_person
from tests.ingestion.rules_support import DOC_DATE, EXTRACTOR, one, say

# -- rewriting to a third-person claim ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("verb", "expected"),
    [
        ("love", "loves"),
        ("study", "studies"),
        ("go", "goes"),
        ("watch", "watches"),
        ("play", "plays"),
        ("'m", "is"),
        ("have", "has"),
        ("do", "does"),
        ("were", "was"),
    ],
)
def test_third_person(verb: str, expected: str) -> None:
    assert third_person(verb) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I'm sure my sister loves our dog.", "Rosalind is sure Rosalind's sister loves Rosalind's dog."),
        ("I don't like it when you cancel.", "Rosalind doesn't like it when Ines cancels."),
        ("We were in Rome and I've been to Milan.", "Rosalind was in Rome and Rosalind has been to Milan."),
        ("I'd love to see your paintings.", "Rosalind would love to see Ines's paintings."),
        # "we both": the speaker and someone the text does not name; the claim is about the speaker alone
        ("We both love helping others.", "Rosalind loves helping others."),
        ("We're both on the same team.", "Rosalind is on the same team."),
        ("We both helped with the painting.", "Rosalind helped with the painting."),
        ("We love both of them.", "Rosalind loves both of them."),
        # a second verb of the same subject agrees too, also where the parse hangs it on a complement
        ("I work at a bakery and live in Leeds.", "Rosalind works at a bakery and lives in Leeds."),
        ("I'm vegan and hate spicy food.", "Rosalind is vegan and hates spicy food."),
        ("I'm 34 and live with my partner.", "Rosalind is 34 and lives with Rosalind's partner."),
        ("I can swim and run for hours.", "Rosalind can swim and run for hours."),
        ("I love it, so just send me a photo.", "Rosalind loves it, so just send Rosalind a photo."),
    ],
)
def test_pronouns_are_rewritten_to_the_speaker_and_the_other_person(text: str, expected: str) -> None:
    doc = get_nlp()(text)
    renderer = Renderer(doc, Speakers.for_message("Rosalind", other="Ines"))
    assert renderer.render(list(doc)) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Our one-year-old is so cute.", "Ana's one-year-old is so cute."),
        ("My two-year-old son loves trains.", "Ana's two-year-old son loves trains."),
        ("My well-known friend moved to Paris.", "Ana's well-known friend moved to Paris."),
        ("Heads up - I went vegan.", "Ana went vegan."),  # a spaced dash still ends a label
        ("Update: I moved to Lisbon.", "Ana moved to Lisbon."),
    ],
)
def test_a_hyphen_inside_a_word_is_not_a_label_mark(text: str, expected: str) -> None:
    assert [candidate.claim for candidate in one(text, "Ana")] == [expected]


def test_unnamed_user_is_written_user_and_you_is_the_assistant() -> None:
    doc = get_nlp()("I told you my address.")
    speakers = Speakers.for_message(None, other="the assistant")
    assert speakers.subject == "user"
    assert Renderer(doc, speakers).render(list(doc)) == "User told the assistant User's address."


def test_we_both_never_makes_the_assistant_a_partner() -> None:
    # A user telling an assistant "we both ..." means someone else: the claim stays about the user alone.
    doc = get_nlp()("We both love hiking.")
    claim = Renderer(doc, Speakers.for_message(None, other="the assistant")).render(list(doc))
    assert claim == "User loves hiking."


def test_we_both_never_names_the_other_participant_the_text_does_not_name() -> None:
    # Maria tells John "we both love hiking": the other one may be her sister, not John.
    result = say(("user", "We both love hiking.", "Maria"), ("user", "Nice, see you Sunday.", "John"))
    texts = [c.claim for c in result.candidates]
    assert texts == ["Maria loves hiking."]
    assert all("John" not in c.claim and all(m.name != "John" for m in c.mentions) for c in result.candidates)


def test_a_second_person_named_in_the_text_is_kept() -> None:
    result = say(("user", "John and I both love hiking.", "Maria"), ("user", "True!", "John"))
    assert any("John" in c.claim and "Maria" in c.claim for c in result.candidates)


def test_a_name_that_opens_a_list_item_is_not_taken_for_a_vocative() -> None:
    """A proper noun after a comma, hanging off the verb, is dropped as a vocative ("Hey Sam, I ...") only
    when it stands alone: one with its own words ("Flask 2.2 for the API") is an item of the sentence."""
    claims = [
        c.claim for c in say(("user", "I'm using Postgres 16 for storage, Celery 5.4 for jobs.")).candidates
    ]
    assert claims == ["User is using Postgres 16 for storage, Celery 5.4 for jobs."]
    addressed = [c.claim for c in say(("user", "Hey Sam, I moved to Porto last year.", "Ines")).candidates]
    assert addressed and not any("Sam" in claim for claim in addressed)


@pytest.mark.parametrize(
    "text",
    [
        "Thanks, I moved to Lisbon.",
        "Thanks Claude, I moved to Lisbon.",
        "Thanks, Anna Berg, I moved to Lisbon.",
    ],
)
def test_a_thank_you_and_the_name_addressed_are_not_part_of_the_claim(text: str) -> None:
    assert [c.claim for c in say(("user", text)).candidates] == ["User moved to Lisbon."]


def test_named_speakers_are_the_subjects_of_their_ownclaims() -> None:
    result = say(
        ("user", "I moved to Lisbon last month.", "Ana"), ("user", "I moved to Oslo in March.", "Ben")
    )
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
    (cand,) = one("I moved to Lisbon last month.")
    assert (cand.kind, cand.predicate, cand.object) == ("event", "lives_in", "Lisbon")
    assert cand.claim == "User moved to Lisbon in April 2024."
    assert cand.valid_from == datetime(2024, 4, 1, tzinfo=UTC)


def test_a_future_move_is_a_plan_without_valid_from() -> None:
    (cand,) = one("I'm moving to Austin next month.")
    assert (cand.kind, cand.predicate, cand.object) == ("decision", "plans_to", "move to Austin")
    assert cand.valid_from is None


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
    found = {(c.predicate, c.kind) for c in one(text)}
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
    mentions = {(m.name, m.type) for c in one(text) for m in c.mentions}
    assert (name, etype) in mentions, mentions


def test_hedges_lower_confidence() -> None:
    (sure,) = one("I'm moving to Denver next year.")
    (hedged,) = one("Maybe I'm moving to Denver next year.")
    assert hedged.confidence < sure.confidence


def test_core_facts_are_more_important_than_generic_ones() -> None:
    (allergy,) = one("I'm allergic to peanuts.")
    (generic,) = one("I painted a sunrise last week.")
    assert allergy.importance > generic.importance


def test_relationship_names_become_person_mentions_and_their_ownclaims() -> None:
    cands = one("I went hiking with my wife Sara yesterday.")
    rel = next(c for c in cands if c.kind == "relationship")
    assert (rel.predicate, rel.object, rel.claim) == ("spouse", "Sara", "User's wife is Sara.")
    assert ("Sara", "person", "object") in [(m.name, m.type, m.role) for m in rel.mentions]


def test_each_name_of_a_plural_relation_is_one_relative() -> None:
    cands = one("My two brothers, Tomas and Jonas, live in Kaunas.")
    assert [c.claim for c in cands if c.kind == "relationship"] == [
        "User's brother is Tomas.",
        "User's brother is Jonas.",
    ]


# -- the predicate vocabulary ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "canonical"),
    [
        ("moved_to", "lives_in"),
        ("Married To", "spouse"),
        ("favourite_food", "favorite_food"),
        ("job", "job_title"),
        ("likes", "likes"),
        ("paint", "paint"),
    ],
)
def test_predicates_are_normalised(raw: str, canonical: str) -> None:
    assert normalise_predicate(raw) == canonical


@pytest.mark.parametrize(
    ("predicate", "single"),
    [
        ("lives_in", True),
        ("moved_to", True),
        ("works_at", True),
        ("works_on", True),
        ("job_title", True),
        ("diet", True),
        ("spouse", True),
        ("relationship_status", True),
        ("favorite_book", True),
        ("favourite_colour", True),
        ("likes", False),
        ("has_pet", False),
        ("side_project", False),
        ("allergic_to", False),
        ("paint", False),
    ],
)
def test_single_valued_predicates(predicate: str, single: bool) -> None:
    assert is_single_valued(predicate) is single


def test_favorite_predicates_and_object_types() -> None:
    assert favorite_predicate("favourite kind of music") == "favorite_music"
    assert object_entity_type("favorite_book") == "media"
    assert object_entity_type("favorite_food") == "concept"
    assert object_entity_type("lives_in") == "location"
    assert object_entity_type("paint") is None


# -- pasted code -------------------------------------------------------------------------------------------


def test_fenced_code_is_not_read_as_a_statement_and_the_sentences_around_it_still_are() -> None:
    text = (
        "I'm building a billing service in Go. Here's my handler:\n```go\nfunc Pay(w http.ResponseWriter) {\n"
        '  fmt.Println("paid") }\n```\nI want to make sure I handle retries correctly.'
    )
    claims = [c.claim for c in say(("user", text)).candidates]
    assert "User is building a billing service in Go." in claims
    assert "User wants to make sure User handles retries correctly." in claims
    assert not any("Println" in claim or "```" in claim for claim in claims), claims


def test_an_unclosed_fence_blanks_the_rest_and_offsets_stay_those_of_the_content() -> None:
    text = "I live in Lisbon.\n```python\nimport os  # I live in a paste that goes on past the cut"
    result = say(("user", text))
    assert [c.claim for c in result.candidates] == ["User lives in Lisbon."]
    found = result.candidates[0]
    assert text[found.span_start : found.span_end].startswith("I live in Lisbon")


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("My thesis defense is scheduled for March 4, 2024.", "for 4 March 2024"),
        ("I'm renting a flat in Porto up to March 4, 2024.", "to 4 March 2024"),
        # a value set "to" a date is stored as the state: the bare date after "is"
        ("I pushed my dentist appointment to March 4, 2024.", "appointment is 4 March 2024"),
    ],
)
def test_a_date_after_for_or_to_keeps_its_bare_form(content: str, expected: str) -> None:
    claims = [cand.claim for cand in one(content)]
    assert claims and all(" on 4 March" not in claim for claim in claims)
    assert any(expected in claim for claim in claims), claims


# -- a claim's brackets and quotes ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("User was given the points (1,3) and (4,-2", "User was given the points (1,3) and (4,-2)"),
        ('User loves "Spirited Away', 'User loves "Spirited Away"'),
        ('User likes (a [b "c', 'User likes (a [b "c"])'),
        ('User said "hi" (twice)', 'User said "hi" (twice)'),
        ("User's cat isn't shy", "User's cat isn't shy"),  # apostrophes are not quotes
        ("User ran `make test", "User ran `make test`"),
    ],
)
def test_close_marks(text: str, expected: str) -> None:
    assert close_marks(text) == expected


def test_a_claim_ending_inside_brackets_closes_them() -> None:
    said = "I've been given the points (2,5) and (7,-1), and I want to check my work."
    texts = [c.claim for c in one(said)]
    spans = [text for text in texts if "(7,-1" in text]
    assert spans and all(text.count("(") == text.count(")") for text in spans), texts
