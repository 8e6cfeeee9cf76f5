"""The thread-compaction prompt: fold older turns of a running conversation into its summary.

Choices:
- One structured call: the previous summary and the turns to fold go in, ONE new summary comes out (the
  response model has a single field), so a retry never has partial state to reconcile.
- The summary is for the assistant that continues the conversation, not for long-term memory: it keeps what
  was asked, decided, promised and left open, with names, numbers and dates, in the third person.
- A worked example (a user turn with the transcript, an assistant turn with the JSON answer) shows the
  shape; it is built as a ``ThreadSummaryAnswer`` so it cannot drift from the schema.
- The word budget is a hint; the caller still cuts the answer to ``MEMHQ_THREAD_SUMMARY_MAX_TOKENS``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel, Field

SCHEMA_NAME = "thread_summary"
#: Roughly how many words a token budget allows (MiniLM WordPiece tokens per English word ≈ 1.3).
WORDS_PER_TOKEN = 0.75


@dataclass(frozen=True)
class Turn:
    speaker: str  # the name if the message has one, else the role
    content: str


class ThreadSummaryAnswer(BaseModel):
    summary: str = Field(description="the updated summary of the whole conversation so far")


SYSTEM_PROMPT = """\
You keep the running summary of a conversation between a user and an assistant. The assistant will keep
talking to the user and will see your summary instead of the earlier turns, followed by the latest turns.

You get the previous summary (it may be empty) and the turns that have just dropped out of view. Answer with
JSON matching the schema: ONE updated summary of everything so far, at most {max_words} words.

- Keep what the assistant needs to continue: who the people are, what the user asked for, facts they
  stated about themselves, decisions, promises, open questions and tasks, with names, numbers and dates.
- Write in the third person ("The user ...", "The assistant ..."), in plain sentences, oldest first.
- Merge the previous summary and the new turns; drop greetings, small talk and repetition.
- Never invent anything that is not in the previous summary or the turns."""


def render(previous_summary: str, turns: Sequence[Turn]) -> str:
    lines = [f"Previous summary: {previous_summary.strip() or '(none)'}", "Turns to fold in:"]
    lines += [f"{turn.speaker}: {turn.content}" for turn in turns]
    return "\n".join(lines)


def build_messages(previous_summary: str, turns: Sequence[Turn], max_tokens: int) -> list[dict[str, str]]:
    max_words = max(1, int(max_tokens * WORDS_PER_TOKEN))
    messages = [{"role": "system", "content": SYSTEM_PROMPT.format(max_words=max_words)}]
    messages.append({"role": "user", "content": render(EXAMPLE_PREVIOUS, EXAMPLE_TURNS)})
    messages.append({"role": "assistant", "content": EXAMPLE_ANSWER.model_dump_json()})
    messages.append({"role": "user", "content": render(previous_summary, turns)})
    return messages


EXAMPLE_PREVIOUS = "The user, Dana, is planning a birthday dinner for her husband Tom on 14 June."
EXAMPLE_TURNS = (
    Turn("User", "Hi again! So Tom is vegetarian, I forgot to say. About 8 people."),
    Turn("Assistant", "Thanks! For 8 with vegetarian options, Verde or Olive Tree both take groups."),
    Turn("User", "Olive Tree sounds great, can you remind me to call them on Monday?"),
    Turn("Assistant", "Sure, I'll remind you on Monday to call Olive Tree."),
)
EXAMPLE_ANSWER = ThreadSummaryAnswer(
    summary=(
        "The user, Dana, is planning a birthday dinner for her husband Tom on 14 June, for about 8 people; "
        "Tom is vegetarian. The assistant suggested Verde or Olive Tree; Dana chose Olive Tree. The "
        "assistant promised to remind her on Monday to call Olive Tree."
    )
)
