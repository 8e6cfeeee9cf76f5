"""Who holds a phase claim, whether that holder is still alive, and the lease it renews while it works.

A claim names its holder (host name, pid and the process's start time, so a recycled pid is not mistaken
for the holder) and carries a lease, ``claim_expires_at``, in database time. A task that finds the phase
claimed takes the claim over at once when

- the holder ran on this host and its process is gone (a killed pool child: Celery redelivers its task at
  once with ``acks_late`` + ``reject_on_worker_lost``, and the new copy must not wait), or
- the lease ran out (the holder's host is gone; the beat sweep also re-enqueues such episodes).

While a phase runs, a per-process thread renews the lease every third of ``MEMHQ_CLAIM_LEASE_S``; a phase
that runs for an hour keeps its claim, and one whose process froze or died loses it within one lease.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import close_old_connections, connection
from django.db.models import DateTimeField, ExpressionWrapper
from django.db.models.functions import Now

logger = logging.getLogger(__name__)

#: /proc/<pid>/stat fields after the command name: state is the 1st, starttime the 20th.
STAT_STATE, STAT_START_TIME = 0, 19
DEAD_STATES = {"Z", "X"}  # a zombie is dead: its parent has not reaped it yet


@dataclass(frozen=True)
class Holder:
    host: str
    pid: int
    started: int | None


def _stat(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return None


def process_start(pid: int) -> int | None:
    fields = _stat(pid)
    return int(fields[STAT_START_TIME]) if fields else None


_me: tuple[int, Holder] | None = None


def current_holder() -> Holder:
    """This process as a claim holder (recomputed after a fork)."""
    global _me
    pid = os.getpid()
    if _me is None or _me[0] != pid:
        _me = (pid, Holder(host=socket.gethostname(), pid=pid, started=process_start(pid)))
    return _me[1]


def holder_is_dead(host: str, pid: int | None, started: int | None) -> bool:
    """True only when the holder certainly is gone: it ran on this host and its process no longer exists
    (or is a zombie, or the pid now belongs to a process started at another time). A holder on another host
    is never judged here: its lease decides."""
    if not host or pid is None or host != socket.gethostname():
        return False
    if os.path.isdir("/proc"):
        fields = _stat(pid)
        if fields is None or fields[STAT_STATE] in DEAD_STATES:
            return True
        return started is not None and int(fields[STAT_START_TIME]) != started
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def is_own_stale_claim(host: str, pid: int | None, started: int | None, episode_id: str, phase: int) -> bool:
    """The claim names this very process, which is not running that phase: an earlier attempt here failed
    and could not give the claim back (the database was away when it tried), so nobody holds it. Without
    this the retry found its own claim "busy" and the episode waited for the lease and the sweep."""
    me = current_holder()
    return (host, pid, started) == (me.host, me.pid, me.started) and not leases.holds(episode_id, phase)


def lease_expiry() -> ExpressionWrapper:
    """``now() + lease`` in database time (one clock for every host)."""
    return ExpressionWrapper(
        Now() + timedelta(seconds=settings.MEMHQ_CLAIM_LEASE_S), output_field=DateTimeField()
    )


def holder_fields() -> dict[str, Any]:
    me = current_holder()
    return {
        "claim_host": me.host,
        "claim_pid": me.pid,
        "claim_pid_start": me.started,
        "claim_expires_at": lease_expiry(),
    }


CLEARED: dict[str, Any] = {
    "claim_host": "",
    "claim_pid": None,
    "claim_pid_start": None,
    "claim_expires_at": None,
}


class LeaseKeeper:
    """One daemon thread per process renewing the leases of the claims this process holds."""

    def __init__(self) -> None:
        self._claims: dict[tuple[str, int, datetime], None] = {}
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._pid = 0

    def hold(self, episode_id: str, phase: int, token: datetime) -> None:
        with self._lock:
            self._claims[(episode_id, phase, token)] = None
            if self._thread is None or self._pid != os.getpid() or not self._thread.is_alive():
                self._pid = os.getpid()
                self._thread = threading.Thread(target=self._run, name="memhq-lease-keeper", daemon=True)
                self._thread.start()

    def release(self, episode_id: str, phase: int, token: datetime) -> None:
        with self._lock:
            self._claims.pop((episode_id, phase, token), None)

    def holds(self, episode_id: str, phase: int) -> bool:
        """Is a phase of this process (any thread) running ``phase`` of the episode now?"""
        with self._lock:
            return any(key[:2] == (episode_id, phase) for key in self._claims)

    def _run(self) -> None:
        while True:
            self._wake.wait(settings.MEMHQ_CLAIM_LEASE_S / 3)
            with self._lock:
                claims = list(self._claims)
            if not claims:
                connection.close()  # idle: hold no database connection between long phases
                continue
            for episode_id, phase, token in claims:
                try:
                    self.renew(episode_id, phase, token)
                except Exception:  # the database is away: the next turn tries again
                    logger.warning("could not renew the lease of episode %s", episode_id, exc_info=True)
                    close_old_connections()

    @staticmethod
    def renew(episode_id: str, phase: int, token: datetime) -> bool:
        from memhq.models import Episode

        return bool(
            Episode.objects.filter(pk=episode_id, phase_running=phase, progressed_at=token).update(
                claim_expires_at=lease_expiry()
            )
        )


leases = LeaseKeeper()
