"""The MCP server (memhq_client.mcp_server) through the official `mcp` client, over stdio and streamable
HTTP, against a live MemHQ."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from typing import Any

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from memhq.models import Episode, Memory, Project
from tests.sdk.conftest import SDK

TOOLS = {
    "remember",
    "recall",
    "prepare_thread",
    "add_to_thread",
    "list_memories",
    "edit_memory",
    "forget_memory",
}


def server_env(live_server: Any, project: Project, user_id: str = "alice") -> dict[str, str]:
    return {
        **os.environ,
        "MEMHQ_URL": live_server.url,
        "MEMHQ_KEY": project.test_key,  # type: ignore[attr-defined]
        "MEMHQ_USER_ID": user_id,
        "PYTHONPATH": str(SDK),
    }


def data(result: Any) -> dict[str, Any]:
    assert not result.isError, result.content
    return dict(result.structuredContent) if result.structuredContent else json.loads(result.content[0].text)


async def exercise(session: ClientSession) -> dict[str, Any]:
    await session.initialize()
    tools = {tool.name: tool for tool in (await session.list_tools()).tools}
    found = data(await session.call_tool("recall", {"query": "What does Alice eat?"}))
    listed = data(await session.call_tool("list_memories", {}))
    remembered = data(
        await session.call_tool(
            "remember", {"turns": [{"role": "user", "content": "I started learning the cello."}]}
        )
    )
    await session.call_tool("add_to_thread", {"thread_id": "t-1", "role": "user", "content": "Hello there."})
    prepared = data(await session.call_tool("prepare_thread", {"thread_id": "t-1"}))
    return {"tools": tools, "found": found, "listed": listed, "remembered": remembered, "prepared": prepared}


def test_over_stdio_an_agent_lists_tools_recalls_a_memory_remembers_edits_and_forgets(
    live_server: Any, project: Project
) -> None:
    from memhq_client import MemHQ

    with MemHQ(live_server.url, project.test_key) as memory:  # type: ignore[attr-defined]
        stated = memory.create_memory("alice", "Alice is vegetarian.", "preference")
        memory.create_memory("bob", "Bob is vegetarian too.", "preference")
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "memhq_client.mcp_server"], env=server_env(live_server, project)
    )

    async def run() -> dict[str, Any]:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            seen = await exercise(session)
            edited = data(
                await session.call_tool("edit_memory", {"memory_id": stated["id"], "text": "Alice is vegan."})
            )
            forgotten = data(await session.call_tool("forget_memory", {"memory_id": edited["id"]}))
            missing = await session.call_tool(
                "forget_memory", {"memory_id": "00000000-0000-0000-0000-000000000000"}
            )
            return {**seen, "edited": edited, "forgotten": forgotten, "missing": missing}

    seen = asyncio.run(run())
    assert set(seen["tools"]) == TOOLS
    assert "user_id" not in json.dumps(seen["tools"]["recall"].inputSchema)  # one user per server
    assert "as_of" in seen["tools"]["recall"].inputSchema["properties"]
    assert "Alice is vegetarian." in seen["found"]["context"]
    assert "Bob" not in seen["found"]["context"]  # only the configured user's memory
    assert stated["id"] in [item["id"] for item in seen["found"]["items"]]
    assert [m["text"] for m in seen["listed"]["memories"]] == ["Alice is vegetarian."]
    episode = Episode.objects.get(pk=seen["remembered"]["episode_id"])
    assert episode.user_id == "alice"
    assert [m["content"] for m in seen["prepared"]["messages"]] == ["Hello there."]
    assert seen["edited"]["supersedes"] == stated["id"]
    assert Memory.objects.get(pk=stated["id"]).status == "superseded"
    assert Memory.objects.get(pk=seen["edited"]["id"]).status == "deleted"
    assert seen["missing"].isError and "404" in seen["missing"].content[0].text


def test_the_server_refuses_to_start_without_a_user(live_server: Any, project: Project) -> None:
    env = server_env(live_server, project)
    env.pop("MEMHQ_USER_ID")
    result = subprocess.run(
        [sys.executable, "-m", "memhq_client.mcp_server"], env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2 and "MEMHQ_USER_ID" in result.stderr


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_over_streamable_http_the_same_tools_answer(live_server: Any, project: Project) -> None:
    from memhq_client import MemHQ

    with MemHQ(live_server.url, project.test_key) as memory:  # type: ignore[attr-defined]
        memory.create_memory("carol", "Carol plays chess on Sundays.", "event")
    port = _free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "memhq_client.mcp_server",
            "--transport",
            "streamable-http",
            "--port",
            str(port),
        ],
        env=server_env(live_server, project, "carol"),
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert process.poll() is None and time.monotonic() < deadline, "the MCP server did not start"
                time.sleep(0.2)

        async def run() -> dict[str, Any]:
            async with (
                streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write, _),
                ClientSession(read, write) as session,
            ):
                return await exercise(session)

        seen = asyncio.run(run())
    finally:
        process.terminate()
        process.wait(10)
    assert set(seen["tools"]) == TOOLS
    assert "Carol plays chess on Sundays." in seen["found"]["context"]
    assert Episode.objects.get(pk=seen["remembered"]["episode_id"]).user_id == "carol"
