"""One agent turn with MemHQ and the OpenAI SDK.

Before the model call, read the thread's working memory and what MemHQ knows about the user, in parallel;
call the model with both; then write both turns to the thread (MemHQ turns the thread into long-term memory
when it goes quiet, or at ``end_thread``).

    export MEMHQ_URL=http://127.0.0.1:8000 MEMHQ_KEY=$(cat var/demo-api-key)
    export OPENAI_API_KEY=sk-…              # or OPENAI_BASE_URL=http://127.0.0.1:11434/v1 for a local server
    python sdk/python/examples/agent_turn.py alice chat-1 "Any ideas for dinner tonight?"
"""

from __future__ import annotations

import asyncio
import os
import sys

from memhq_client import AsyncMemHQ
from openai import AsyncOpenAI

INSTRUCTIONS = "You are a helpful assistant. Use what you know about the user when it helps; never invent it."


async def turn(
    memory: AsyncMemHQ, llm: AsyncOpenAI, model: str, user_id: str, thread_id: str, text: str
) -> str:
    await memory.create_thread(user_id, thread_id)  # the existing thread when it is there already
    working, known = await asyncio.gather(
        memory.prepare(thread_id, message_limit=20),
        memory.recall(user_id, text, max_tokens=1500),
    )
    system = INSTRUCTIONS + ("\n\n" + known["context"] if known.get("context") else "")
    messages = [
        {"role": "system", "content": system},
        *working["messages"],
        {"role": "user", "content": text},
    ]
    completion = await llm.chat.completions.create(model=model, messages=messages)  # type: ignore[arg-type]
    reply = completion.choices[0].message.content or ""
    await memory.add_message(thread_id, "user", text)
    await memory.add_message(thread_id, "assistant", reply)
    return reply


async def main(user_id: str, thread_id: str, text: str) -> None:
    model = os.environ.get("OPENAI_MODEL", "gpt-4o-mini")
    async with AsyncMemHQ() as memory:
        llm = AsyncOpenAI(api_key=os.environ.get("OPENAI_API_KEY") or "not-needed")
        print(await turn(memory, llm, model, user_id, thread_id, text))
        await llm.close()


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(f"usage: {sys.argv[0]} USER_ID THREAD_ID MESSAGE")
    asyncio.run(main(*sys.argv[1:]))
