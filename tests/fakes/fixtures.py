"""Pytest fixtures for the fakes; a conftest (or a test module) imports them explicitly."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakes.openai_server import FakeOpenAIServer


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAIServer]:
    """A running fake OpenAI-compatible server on 127.0.0.1, stopped after the test."""
    with FakeOpenAIServer() as server:
        yield server
