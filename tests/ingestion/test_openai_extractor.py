"""OpenAIExtractor through the real openai SDK against the fake server, plus the prompt's worked examples."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from ingestion.extractors.base import KINDS, CandidateOut, EpisodeIn, MessageIn, TimeMention
from ingestion.extractors.openai_extractor import OpenAIExtractor, map_candidates
from ingestion.prompts.extract import SCHEMA_NAME, SYSTEM_PROMPT, WORKED_EXAMPLES, build_messages
from memhq.ai.errors import PermanentAIError, TransientAIError
from memhq.ai.llm import LLMConfig, make_client
from tests.fakes import fixtures
from tests.fakes.openai_server import FakeOpenAIServer

fake_openai = fixtures.fake_openai  # the shared fixture, imported explicitly

MODEL = "extract-model"
DAY = datetime(2024, 3, 12, 18, 30, tzinfo=UTC)
CONTENTS = [
    "Hi, I'm Rosalind. I moved to Lisbon yesterday with my husband Mark.",
    "Welcome! Lisbon has 300 sunny days a year.",
    "I love the tram 28, and I work at Spotify now.",
]
YESTERDAY = TimeMention(
    text="yesterday",
    start_char=33,
    end_char=42,
    granularity="day",
    start=datetime(2024, 3, 11, tzinfo=UTC),
    end=datetime(2024, 3, 12, tzinfo=UTC),
)
EPISODE = EpisodeIn(
    messages=(
        MessageIn(
            index=0,
            role="user",
            name="Rosalind",
            content=CONTENTS[0],
            document_date=DAY,
            time_mentions=(YESTERDAY,),
        ),
        MessageIn(index=1, role="assistant", content=CONTENTS[1], document_date=DAY),
        MessageIn(index=2, role="user", name="Rosalind", content=CONTENTS[2], document_date=DAY),
    ),
    received_at=DAY,
)


def _candidate(**overrides: Any) -> dict[str, Any]:
    candidate = {
        "source_message_indexes": [0],
        "span_text": "I moved to Lisbon yesterday",
        "claim": "Rosalind moved to Lisbon on 2024-03-11.",
        "kind": "event",
        "subject": "Rosalind",
        "predicate": "moved_to",
        "object": "Lisbon",
        "mentions": [
            {"name": "Rosalind", "type": "person", "role": "subject"},
            {"name": "Lisbon", "type": "location", "role": "object"},
        ],
        "valid_from": "2024-03-11",
        "confidence": 0.9,
        "importance": 0.8,
    }
    candidate.update(overrides)
    return candidate


def _answer(*candidates: dict[str, Any]) -> dict[str, Any]:
    return {
        "summary": " Rosalind moved to Lisbon. ",
        "key_learnings": ["Rosalind lives in Lisbon.", " "],
        "candidates": list(candidates),
    }


@pytest.fixture(autouse=True)
def _fresh_clients() -> Iterator[None]:
    make_client.cache_clear()
    yield
    make_client.cache_clear()


def _extractor(server: FakeOpenAIServer, timeout_s: float = 5.0) -> OpenAIExtractor:
    config = LLMConfig(base_url=server.base_url, api_key="sk-x", model=MODEL, timeout_s=timeout_s)
    return OpenAIExtractor(config)


def _span(candidate: CandidateOut) -> str:
    content = EPISODE.messages[candidate.source_message_indexes[0]].content
    return content[candidate.span_start : candidate.span_end]


def test_answer_is_mapped_into_candidates(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.answer(_answer(_candidate()))

    result = _extractor(fake_openai).extract(EPISODE)

    [candidate] = result.candidates
    assert candidate.claim == "Rosalind moved to Lisbon on 2024-03-11."
    assert (candidate.kind, candidate.subject, candidate.predicate, candidate.object) == (
        "event",
        "Rosalind",
        "lives_in",  # "moved_to" folded onto the canonical predicate
        "Lisbon",
    )
    assert [(m.name, m.type, m.role) for m in candidate.mentions] == [
        ("Rosalind", "person", "subject"),
        ("Lisbon", "location", "object"),
    ]
    assert candidate.source_message_indexes == (0,)
    assert _span(candidate) == "I moved to Lisbon yesterday"
    assert candidate.valid_from == datetime(2024, 3, 11, tzinfo=UTC)
    assert (candidate.confidence, candidate.importance) == (0.9, 0.8)
    assert result.summary == "Rosalind moved to Lisbon."
    assert result.key_learnings == ["Rosalind lives in Lisbon."]


def test_one_llm_call_and_its_token_usage_are_recorded(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.answer(_answer(), prompt_tokens=1500, completion_tokens=230)

    result = _extractor(fake_openai).extract(EPISODE)

    assert (result.llm_calls, result.prompt_tokens, result.completion_tokens) == (1, 1500, 230)
    assert len(fake_openai.requests) == 1


def test_request_uses_the_json_schema_format_the_model_and_the_rendered_episode(
    fake_openai: FakeOpenAIServer,
) -> None:
    fake_openai.answer(_answer())

    _extractor(fake_openai).extract(EPISODE)

    body = fake_openai.requests[0].body
    assert body["model"] == MODEL
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["name"] == SCHEMA_NAME
    assert body["response_format"]["json_schema"]["strict"] is True
    candidate_schema = body["response_format"]["json_schema"]["schema"]["$defs"]["ExtractedCandidate"]
    assert candidate_schema["properties"]["kind"]["enum"] == list(KINDS)
    transcript = body["messages"][-1]["content"]
    assert f"[0] Rosalind (user) · Tuesday 2024-03-12: {CONTENTS[0]}" in transcript
    assert f"[1] assistant · Tuesday 2024-03-12: {CONTENTS[1]}" in transcript
    assert '"yesterday" = 2024-03-11 (day)' in transcript


def test_unusable_candidates_are_dropped_instead_of_crashing(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.answer(
        _answer(
            _candidate(claim="kept"),
            _candidate(claim="unknown kind", kind="opinion"),
            _candidate(claim="unknown type", mentions=[{"name": "Lisbon", "type": "city", "role": "object"}]),
            _candidate(claim="out of range", source_message_indexes=[0, 7]),
            _candidate(claim="negative index", source_message_indexes=[-1]),
            _candidate(claim="no source", source_message_indexes=[]),
            _candidate(claim="assistant only", source_message_indexes=[1], span_text="300 sunny days"),
            _candidate(claim="  ", predicate="likes"),
            _candidate(claim="no predicate", predicate=" - "),
        )
    )

    result = _extractor(fake_openai).extract(EPISODE)

    assert [candidate.claim for candidate in result.candidates] == ["kept"]


def test_values_are_normalised_clamped_and_parsed(fake_openai: FakeOpenAIServer) -> None:
    odd_role = {"name": "Spotify", "type": "organization", "role": "boss"}
    fake_openai.answer(
        _answer(
            _candidate(
                subject="User",
                predicate="Works At",
                confidence=1.7,
                importance=-0.2,
                valid_from="2024-03",
                mentions=[odd_role, odd_role],
            ),
            _candidate(valid_from="sometime last spring"),
            _candidate(valid_from="2024-03-11T09:00:00+02:00"),
        )
    )

    first, second, third = _extractor(fake_openai).extract(EPISODE).candidates

    assert (first.subject, first.predicate) == ("user", "works_at")
    assert (first.confidence, first.importance) == (1.0, 0.0)
    assert first.valid_from == datetime(2024, 3, 1, tzinfo=UTC)
    assert [(m.name, m.role) for m in first.mentions] == [("Spotify", "other")]
    assert second.valid_from is None
    assert third.valid_from == datetime(2024, 3, 11, 7, tzinfo=UTC)


def test_span_is_found_in_a_later_source_message_which_then_comes_first(
    fake_openai: FakeOpenAIServer,
) -> None:
    fake_openai.answer(
        _answer(
            _candidate(source_message_indexes=[0, 2], span_text='"i WORK at Spotify now"', claim="works"),
        )
    )

    [candidate] = _extractor(fake_openai).extract(EPISODE).candidates

    assert candidate.source_message_indexes == (2, 0)
    assert _span(candidate) == "I work at Spotify now"


def test_span_falls_back_to_the_whole_first_message_when_the_quote_is_not_there(
    fake_openai: FakeOpenAIServer,
) -> None:
    fake_openai.answer(_answer(_candidate(source_message_indexes=[2], span_text="I adore trams")))

    [candidate] = _extractor(fake_openai).extract(EPISODE).candidates

    assert (candidate.span_start, candidate.span_end) == (0, len(CONTENTS[2]))


def test_named_assistant_speaker_is_kept(fake_openai: FakeOpenAIServer) -> None:
    episode = EpisodeIn(
        messages=(
            MessageIn(
                index=0, role="assistant", name="Ines", document_date=DAY, content="I paint landscapes."
            ),
        ),
        received_at=DAY,
    )
    fake_openai.answer(_answer(_candidate(source_message_indexes=[0], span_text="I paint landscapes")))

    assert len(_extractor(fake_openai).extract(episode).candidates) == 1


def test_invalid_json_answer_is_a_transient_error(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.answer_invalid_json()

    with pytest.raises(TransientAIError, match="not valid JSON"):
        _extractor(fake_openai).extract(EPISODE)


@pytest.mark.parametrize("script", ["rate_limit", "server_error"])
def test_rate_limit_and_server_errors_are_transient(fake_openai: FakeOpenAIServer, script: str) -> None:
    getattr(fake_openai, script)()

    with pytest.raises(TransientAIError):
        _extractor(fake_openai).extract(EPISODE)


def test_timeout_is_transient(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.delay(2.0)

    with pytest.raises(TransientAIError, match="timed out"):
        _extractor(fake_openai, timeout_s=0.5).extract(EPISODE)


def test_bad_credentials_are_permanent(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.unauthorized()

    with pytest.raises(PermanentAIError):
        _extractor(fake_openai).extract(EPISODE)


def test_empty_episode_makes_no_call(fake_openai: FakeOpenAIServer) -> None:
    result = _extractor(fake_openai).extract(EpisodeIn(messages=(), received_at=DAY))

    assert (result.candidates, result.llm_calls) == ([], 0)
    assert fake_openai.requests == []


def test_build_messages_puts_system_prompt_then_worked_examples_then_the_episode() -> None:
    messages = build_messages(EPISODE)

    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert messages[0]["content"] == SYSTEM_PROMPT
    assert "[3] assistant · Monday 2024-05-06: The Toyota Corolla Hybrid" in messages[1]["content"]
    assert "[2] Priya (user)" in messages[3]["content"]
    assert "Rosalind (user)" in messages[-1]["content"]


def test_worked_examples_map_cleanly_with_spans_found_and_assistant_facts_left_out() -> None:
    for episode, answer in WORKED_EXAMPLES:
        candidates = map_candidates(answer, episode)
        assert len(candidates) == len(answer.candidates)
        for candidate, raw in zip(candidates, answer.candidates, strict=True):
            content = episode.messages[candidate.source_message_indexes[0]].content
            assert content[candidate.span_start : candidate.span_end] == raw.span_text

    car_claims = [c.claim for c in map_candidates(WORKED_EXAMPLES[0][1], WORKED_EXAMPLES[0][0])]
    assert set(car_claims) == {
        "User is interested in the Toyota Corolla Hybrid.",
        "User finds SUVs too big.",
        "User does city commuting.",
        "User wants a family car that is hybrid, easy to park and under $30k.",
    }
    assert not any("mpg" in claim for claim in car_claims)
    friday = map_candidates(WORKED_EXAMPLES[1][1], WORKED_EXAMPLES[1][0])[0]
    assert "2024-03-08" in friday.claim and "last Friday" not in friday.claim
    assert friday.valid_from == datetime(2024, 3, 8, tzinfo=UTC)
