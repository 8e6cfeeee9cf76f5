"""sdk/python/examples/agent_turn.py runs a whole turn against a live MemHQ and a local fake model server."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

from memhq.models import Project, Thread
from tests.fakes import fixtures
from tests.fakes.openai_server import FakeOpenAIServer
from tests.sdk.conftest import SDK

fake_openai = fixtures.fake_openai


def test_the_agent_turn_example_reads_memory_calls_the_model_and_writes_both_turns(
    live_server: Any, project: Project, fake_openai: FakeOpenAIServer
) -> None:
    from memhq_client import MemHQ

    with MemHQ(live_server.url, project.test_key) as memory:  # type: ignore[attr-defined]
        memory.create_memory("alice", "Alice is vegetarian.", "preference")
        memory.create_thread("alice", "chat-1")
        memory.add_message("chat-1", "user", "Hi, I am back.")
    fake_openai.answer("How about a mushroom risotto?")
    env = {
        **os.environ,
        "MEMHQ_URL": live_server.url,
        "MEMHQ_KEY": project.test_key,  # type: ignore[attr-defined]
        "OPENAI_BASE_URL": fake_openai.base_url,
        "OPENAI_MODEL": "fake-model",
        "PYTHONPATH": str(SDK),
    }
    result = subprocess.run(
        [sys.executable, str(SDK / "examples" / "agent_turn.py"), "alice", "chat-1", "Ideas for dinner?"],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "How about a mushroom risotto?"
    sent = fake_openai.requests[0].body["messages"]
    assert sent[0]["role"] == "system" and "Alice is vegetarian." in sent[0]["content"]
    assert [m["content"] for m in sent[1:]] == ["Hi, I am back.", "Ideas for dinner?"]
    thread = Thread.objects.get(project=project, key="chat-1")
    assert [(m.role, m.content) for m in thread.messages.order_by("seq")][-2:] == [
        ("user", "Ideas for dinner?"),
        ("assistant", "How about a mushroom risotto?"),
    ]


def test_the_sdk_builds_as_its_own_distribution_that_needs_only_httpx_and_mcp_as_an_extra(
    tmp_path: Any,
) -> None:
    import shutil

    source = tmp_path / "src"
    shutil.copytree(SDK, source, ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
         str(tmp_path / "dist"), str(source)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
    (wheel,) = (tmp_path / "dist").glob("memhq_client-*.whl")
    import zipfile

    names = zipfile.ZipFile(wheel).namelist()
    assert "memhq_client/py.typed" in names and "memhq_client/_sync_methods.py" in names
    metadata = next(n for n in names if n.endswith("METADATA"))
    requires = [
        line for line in zipfile.ZipFile(wheel).read(metadata).decode().splitlines()
        if line.startswith("Requires-Dist")
    ]  # fmt: skip
    assert requires == ["Requires-Dist: httpx<1,>=0.27", 'Requires-Dist: mcp<2,>=1.20; extra == "mcp"']
