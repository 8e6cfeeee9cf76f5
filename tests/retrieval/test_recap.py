"""A question asking for a recap of the conversations is searched for by its topic (retrieval/recap.py)."""

from __future__ import annotations

import pytest
from django.utils.timezone import now

from ingestion.pipeline import run_inline
from memhq.models import Project
from retrieval.items import item_from_row
from retrieval.recall import fetch
from retrieval.recap import topic
from tests.ingestion.helpers import make_episode
from tests.retrieval.factories import RecordingEmbedder


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "Can you list the order in which I brought up different aspects of my billing migration "
            "throughout our conversations (mention 6 items in order)?",
            "my billing migration?",
        ),
        (
            "Could you give me a short and clear summary of what I learned about sourdough starters?",
            "sourdough starters?",
        ),
        (
            "Can you provide a detailed overview that captures the full scope of the kitchen renovation, "
            "covering the budget and the permits?",
            "the kitchen renovation, covering the budget and the permits?",
        ),
        ("How did my discussions about the garden redesign progress?", "the garden redesign?"),
        ("Summarize the main points we covered about my marathon training.", "my marathon training."),
        ("Walk me through how I brought up the various topics related to tax returns.", "tax returns."),
        ("Summarize our conversation about the kitchen remodel.", "the kitchen remodel."),
        ("In what order did I mention the apartments I looked at?", "the apartments I looked at?"),
        ("What did I say about my new job in our last session?", "What did I say about my new job?"),
        ("Remind me of what I told you about my sister's wedding.", "my sister's wedding."),
        (
            "Can you recap the main points from our discussions on household budgeting?",
            "household budgeting?",
        ),
        # nothing about the conversations: unchanged
        ("What did I decide about the billing migration?", "What did I decide about the billing migration?"),
        ("How many different point pairs did I use?", "How many different point pairs did I use?"),
        (
            "What trend can I observe in my learning progress?",
            "What trend can I observe in my learning progress?",
        ),
        ("Which features did we ship in our chat app?", "Which features did we ship in our chat app?"),
        # nothing but the frame: unchanged, there is no topic to search for
        ("Can you summarize our conversations so far?", "Can you summarize our conversations so far?"),
    ],
)
def test_topic_keeps_what_the_recap_is_about(question: str, expected: str) -> None:
    assert topic(question) == expected


def test_recall_searches_a_recap_question_by_its_topic(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The keyword signals look for the topic's words only: a message that shares the question's framing
    words ("order", "different", "aspects") but not its topic is no keyword hit, and the query vector is
    the topic's."""
    messages = [
        {
            "role": "user",
            "content": "I sorted the invoices in ascending order and split the different aspects by month.",
        },
        {"role": "assistant", "content": "Sorting by month keeps it readable."},
        {"role": "user", "content": "I'm moving the billing service from cron jobs to a proper queue."},
        {"role": "assistant", "content": "A queue gives you retries for free."},
    ]
    run_inline(make_episode(project, messages, "alice").pk)
    recording = RecordingEmbedder()
    monkeypatch.setattr("retrieval.query_vectors.get_embedder", lambda: recording)
    question = "Can you list the order in which I brought up different aspects of the billing service?"

    rows = fetch(project_id=project.pk, user_id="alice", query_text=question, as_of=now(), history=False)

    keyword_texts = [
        item_from_row(row).text for row in rows if row["signal"] in ("message_keyword", "keyword")
    ]
    assert any("billing" in text for text in keyword_texts)
    assert not any("invoices" in text for text in keyword_texts)
    assert recording.embedded == ["the billing service?"]
