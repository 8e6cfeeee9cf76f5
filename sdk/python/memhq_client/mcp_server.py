"""An MCP server that gives an agent MemHQ's memory: remember, recall, prepare a thread, list/edit/forget.

    pip install './sdk/python[mcp]'
    MEMHQ_URL=http://127.0.0.1:8000 MEMHQ_KEY=mhq_… MEMHQ_USER_ID=alice memhq-mcp            # stdio
    MEMHQ_KEY=… MEMHQ_USER_ID=alice memhq-mcp --transport streamable-http --port 8765      # http://…/mcp

Choices:
- **One user per server process** (MEMHQ_USER_ID), not a ``user_id`` tool argument. An MCP server is started
  by the client for its session (a desktop assistant for its owner, an agent run for one end user), so the
  user is known when it starts; and a model that can name the user in an argument can be talked into reading
  or writing someone else's memory. A multi-user application should call the API (or the SDK) itself.
- Built on the official ``mcp`` SDK's FastMCP (tool schemas from the type hints), calling MemHQ through
  ``AsyncMemHQ`` (retries and an Idempotency-Key per ``remember``).
- Tools answer JSON-able dicts (structured output) and short texts a model can read; recall returns the
  ready-to-use ``context`` plus the items' ids, so a later ``edit_memory`` / ``forget_memory`` can name one.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any, Literal

from mcp.server.fastmcp import FastMCP
from pydantic import BaseModel, Field

from memhq_client import AsyncMemHQ

USER_ENV = "MEMHQ_USER_ID"
INSTRUCTIONS = (
    "Long-term memory about the user you are helping. Call `recall` with the user's message before "
    "answering when earlier conversations may matter; call `remember` with the turns worth keeping "
    "(MemHQ distils durable facts from them in the background). Memories can be listed, corrected and "
    "forgotten when the user asks."
)


class Turn(BaseModel):
    role: Literal["user", "assistant"] = Field(description="who said it")
    content: str = Field(description="what was said, verbatim")


def build_server(user_id: str, memory: AsyncMemHQ, **settings: Any) -> FastMCP:
    """The server with its tools bound to one user and one MemHQ client."""
    server = FastMCP("memhq", instructions=INSTRUCTIONS, **settings)

    @server.tool()
    async def remember(turns: list[Turn], thread_id: str | None = None) -> dict[str, Any]:
        """Store conversation turns (an episode); durable facts about the user are extracted from them."""
        added = await memory.add(user_id, [turn.model_dump() for turn in turns], thread_id=thread_id)
        return {"episode_id": added["episode_id"], "status": added["status"]}

    @server.tool()
    async def recall(query: str, as_of: str | None = None, limit: int = 10) -> dict[str, Any]:
        """What is known about the user that is relevant to `query`. `as_of` (ISO-8601) asks what was
        true at that time. Returns `context` (text for your prompt) and the items with their ids."""
        found = await memory.recall(user_id, query, as_of=as_of, limit=limit)
        items = [
            {"id": i["id"], "type": i["type"], "text": i["text"], "valid_from": i.get("valid_from")}
            for i in found["items"]
        ]
        return {"context": found["context"], "items": items, "degraded": found["degraded"]}

    @server.tool()
    async def prepare_thread(thread_id: str, message_limit: int = 20) -> dict[str, Any]:
        """A conversation thread's working memory: its summary and newest messages, oldest first."""
        await memory.create_thread(user_id, thread_id)
        return {"messages": (await memory.prepare(thread_id, message_limit=message_limit))["messages"]}

    @server.tool()
    async def add_to_thread(
        thread_id: str, role: Literal["user", "assistant"], content: str
    ) -> dict[str, Any]:
        """Append one turn to a thread (it becomes long-term memory when the thread goes quiet)."""
        await memory.create_thread(user_id, thread_id)
        added = await memory.add_message(thread_id, role, content)
        return {"thread_id": added["thread_id"], "seq": added["seq"]}

    @server.tool()
    async def list_memories(status: Literal["active", "superseded", "disabled"] = "active") -> dict[str, Any]:
        """The user's memories, newest first (the first 50)."""
        page = await memory.memories(user_id, status=status, page_size=50)
        rows = [{"id": m["id"], "text": m["text"], "kind": m["kind"]} for m in page["results"]]
        return {"memories": rows, "more": bool(page["next"])}

    @server.tool()
    async def edit_memory(memory_id: str, text: str) -> dict[str, Any]:
        """Correct a memory's text. The correction is a new memory (its id is returned); the old one is kept
        in history as superseded."""
        changed = await memory.update_memory(memory_id, text=text)
        return {"id": changed["id"], "text": changed["text"], "supersedes": memory_id}

    @server.tool()
    async def forget_memory(memory_id: str) -> dict[str, Any]:
        """Delete a memory: it no longer reaches recall or lists (its history stays, and can be reverted)."""
        deleted = await memory.delete_memory(memory_id)
        return {"id": memory_id, "status": deleted.get("status", "deleted")}

    return server


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="memhq-mcp", description=__doc__.split("\n\n")[0])
    parser.add_argument("--transport", choices=["stdio", "streamable-http"], default="stdio")
    parser.add_argument("--host", default="127.0.0.1", help="streamable-http only")
    parser.add_argument("--port", type=int, default=8765, help="streamable-http only")
    args = parser.parse_args(argv)
    user_id = os.environ.get(USER_ENV, "")
    if not user_id:
        print(f"memhq-mcp: set {USER_ENV} to the user whose memory this server serves", file=sys.stderr)
        return 2
    memory = AsyncMemHQ()  # MEMHQ_URL, MEMHQ_KEY
    server = build_server(user_id, memory, host=args.host, port=args.port, log_level="WARNING")
    server.run(transport=args.transport)
    return 0


if __name__ == "__main__":
    sys.exit(main())
