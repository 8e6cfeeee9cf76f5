"""Transaction helpers."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from django.db import transaction


@contextlib.contextmanager
def savepoint_if_in_transaction() -> Iterator[None]:
    """A savepoint when the caller is in a transaction (so an error does not poison it); nothing otherwise.

    Outside a transaction each statement commits on its own, and wrapping it in ``atomic`` would only add a
    BEGIN and a COMMIT round trip to a hot path.
    """
    if transaction.get_connection().in_atomic_block:
        with transaction.atomic():
            yield
    else:
        yield
