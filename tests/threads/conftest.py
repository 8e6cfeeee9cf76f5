from __future__ import annotations

from collections.abc import Iterator

import pytest

from memhq.selectors import threads as thread_selectors
from memhq.threads import pool


@pytest.fixture(autouse=True)
def _fresh_helper_thread() -> Iterator[None]:
    """Each test starts with no remembered thread identities and leaves no helper-thread connection open."""
    thread_selectors._identities.clear()
    yield
    pool.shutdown()
    thread_selectors._identities.clear()
