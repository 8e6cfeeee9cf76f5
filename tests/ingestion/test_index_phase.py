"""Phase 6 embeds each message as "<speaker>: <content>", a reply to a question after the start of that
question (so "Yep! It's about loss." is findable by what it answers); full text stays the message alone."""

from __future__ import annotations

import numpy as np
import pytest

from ingestion.phases.index import QUESTION_CONTEXT_CHARS, REPLY_VECTOR_CHARS, embedded_text, passages_of
from memhq.ai.provider import get_embedder
from memhq.models import EpisodeMessage, Project
from tests.ingestion.helpers import make_episode, run_tasks


def message(content: str, name: str = "Nate", role: str = "user") -> EpisodeMessage:
    return EpisodeMessage(content=content, name=name, role=role)


def test_a_reply_to_a_question_is_embedded_after_it() -> None:
    question = message("Wow, is that your third novel?", name="Nate")
    reply = message("Yes! It's about memory, travel, and family.", name="Greta")
    assert embedded_text(reply, question) == (
        "Nate: Wow, is that your third novel?\nGreta: Yes! It's about memory, travel, and family."
    )


@pytest.mark.parametrize(
    "previous",
    [
        "Cool! What type of guitar? [shares a photo: a red guitar]",  # a note after the question
        'He asked "really?"',
        "(is it the red one?)",
    ],
)
def test_a_question_followed_by_notes_or_quotes_still_counts(previous: str) -> None:
    assert embedded_text(message("Acoustic."), message(previous, name="Ana")).startswith("Ana: ")


@pytest.mark.parametrize("previous", [None, "I went hiking.", "Really? I doubt it.", "What? No."])
def test_other_messages_are_embedded_alone(previous: str | None) -> None:
    before = None if previous is None else message(previous, name="Ana")
    assert embedded_text(message("Acoustic."), before) == "Nate: Acoustic."


def test_only_the_start_of_a_long_question_is_kept() -> None:
    question = message("x" * 500 + "?", name="Ana")
    text = embedded_text(message("Yes.", name="Bo"), question)
    head, reply = text.split("\n")
    assert len(head) == QUESTION_CONTEXT_CHARS and head.startswith("Ana: xxx") and reply == "Bo: Yes."


def test_an_assistant_reply_is_read_to_its_start_cut_at_a_space() -> None:
    question = message("How do I cache the parsed resumes?", role="user", name="")
    body = "Use a keyed cache. " + "Store each parsed resume under its file hash. " * 20
    reply = message(body, role="assistant", name="")
    head, text = embedded_text(reply, question).split("\n")
    assert head == "user: How do I cache the parsed resumes?"
    assert text.startswith("assistant: Use a keyed cache. Store each") and len(text) <= REPLY_VECTOR_CHARS
    assert reply.content.startswith(text.removeprefix("assistant: ")) and not text.endswith(" ")
    assert (text.removeprefix("assistant: ") + " ") in reply.content + " "  # whole words only


def test_a_long_replys_first_passage_is_read_to_its_start_too() -> None:
    question = message("Can you walk me through the cache?", role="user", name="")
    body = "\n\n".join(
        f"Step {n}: store the parsed resume under its file hash and expire it." * 6 for n in range(9)
    )
    parts = passages_of(message(body, role="assistant", name=""), question)
    assert len(parts) > 1
    first = parts[0][1]
    assert first is not None and first.startswith(
        "user: Can you walk me through the cache?\nassistant: Step 0"
    )
    assert len(first.split("\n", 1)[1]) <= REPLY_VECTOR_CHARS


def test_what_a_person_says_is_read_whole() -> None:
    long = "I moved the parser into a worker and it now takes two seconds per resume. " * 6
    assert embedded_text(message(long, name="", role="user"), None) == f"user: {long}"
    assert embedded_text(message(long, name="Greta"), None) == f"Greta: {long}"


def test_the_phase_stores_the_contextual_vectors_and_plain_full_text(project: Project) -> None:
    turns = [
        {"role": "user", "name": "Nate", "content": "Is that your third novel?"},
        {"role": "user", "name": "Greta", "content": "Yes! It's about memory and travel."},
        {"role": "user", "name": "Nate", "content": "Sounds deep."},
    ]
    episode = run_tasks(make_episode(project, turns))
    assert episode.status == "completed"
    rows = list(EpisodeMessage.objects.filter(episode=episode).order_by("index"))
    expected = get_embedder().embed(
        [
            "Nate: Is that your third novel?",
            "Nate: Is that your third novel?\nGreta: Yes! It's about memory and travel.",
            "Nate: Sounds deep.",  # after a statement: alone
        ]
    )
    for row, vector in zip(rows, expected, strict=True):
        assert np.allclose(np.asarray(row.embedding), vector, atol=1e-5)
    assert rows[1].content == "Yes! It's about memory and travel."
    found = EpisodeMessage.objects.filter(episode=episode, search_vector="novel").count()
    assert found == 1  # full text is the message alone: the reply does not match its question's words
