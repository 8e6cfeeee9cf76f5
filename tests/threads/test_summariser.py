from __future__ import annotations

from dataclasses import dataclass

from memhq.ai.tokens import count_tokens
from memhq.threads.summariser import EARLIER, summarise


@dataclass
class T:
    role: str
    content: str
    name: str = ""


def test_keeps_what_people_said_and_drops_chatter() -> None:
    summary = summarise(
        "",
        [
            T("user", "Hi!"),
            T("assistant", "Hello! How can I help?"),
            T("user", "I live in Porto and I work as a nurse at Santo António hospital."),
            T("user", "Thanks!"),
        ],
        200,
    )
    assert summary == "User: I live in Porto and I work as a nurse at Santo António hospital."


def test_lines_are_speaker_prefixed_in_conversation_order() -> None:
    summary = summarise(
        "",
        [
            T("user", "My daughter Mia starts school in September.", name="Ana"),
            T("assistant", "Mia will love school; the Lisbon international school has a good reputation."),
        ],
        200,
    )
    lines = summary.splitlines()
    assert lines[0].startswith("Ana: My daughter Mia") and lines[1].startswith("Assistant: Mia will love")


def test_respects_the_token_budget_and_prefers_the_informative() -> None:
    turns = [
        T("user", f"I visited museum number {i} in Paris with my brother Tom last week.") for i in range(20)
    ]
    turns.append(T("assistant", "That sounds like a lot of walking, did you enjoy it?"))
    summary = summarise("", turns, 60)
    assert 0 < count_tokens(summary) <= 60
    assert "Assistant" not in summary


def test_earlier_summary_lines_survive_a_fold() -> None:
    previous = "User: I am allergic to peanuts and shellfish."
    summary = summarise(previous, [T("user", "Today I bought a new bike for commuting to work.")], 200)
    assert summary.splitlines() == [previous, "User: Today I bought a new bike for commuting to work."]


def test_a_summary_without_speakers_is_kept_as_earlier_context() -> None:
    previous = "The user planned a dinner for Tom on 14 June with eight guests."
    summary = summarise(previous, [T("assistant", "Sure.")], 200)
    assert summary == f"{EARLIER}: {previous}"


def test_all_chatter_still_keeps_the_best_line_cut_to_the_budget() -> None:
    summary = summarise("", [T("user", "ok"), T("assistant", "Sure thing!")], 2)
    assert summary and count_tokens(summary) <= 2


def test_nothing_to_fold_returns_the_previous_summary() -> None:
    assert summarise("User: likes tea.", [], 100) == "User: likes tea."
