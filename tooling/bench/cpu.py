"""CPU time per process group over the measured window: where a request's cost goes on this machine.

Groups: this process (the load generator), the gunicorn tree, the PostgreSQL server (found from this
connection's backend pid), the Redis server (from ``INFO server``), and ``other``: the rest of the machine's
busy time (kernel networking, other processes). Servers that are not local processes are left out.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from urllib.parse import urlsplit

import psutil
import redis
from django.conf import settings
from django.db import connection

logger = logging.getLogger(__name__)

Snapshot = dict[str, dict[int, float]]
CLIENT, WEB, POSTGRES, REDIS, OTHER = (
    "client (load generator)",
    "web (gunicorn)",
    "postgres",
    "redis",
    "other",
)
MACHINE = "__machine__"
MS_PER_S = 1000.0
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
HTTP_PORT = 80


def _tree(pid: int) -> list[psutil.Process]:
    try:
        root = psutil.Process(pid)
        return [root, *root.children(recursive=True)]
    except psutil.Error:
        return []


def _postgres_root() -> int | None:
    """The postmaster's pid when PostgreSQL runs on this machine (our backend's parent)."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            row = cursor.fetchone()
        parent = psutil.Process(int(row[0])).parent() if row else None
    except Exception:  # psutil or database errors: a remote server's pid means nothing here
        logger.debug("postgres is not a local process", exc_info=True)
        return None
    return parent.pid if parent is not None and "postgres" in parent.name() else None


def _redis_pid() -> int | None:
    try:
        client = redis.Redis.from_url(settings.REDIS_URL)
        if client.connection_pool.connection_kwargs.get("host") not in LOCAL_HOSTS:
            return None
        pid = int(client.info("server")["process_id"])
        return pid if "redis" in psutil.Process(pid).name() else None
    except (redis.RedisError, psutil.Error, KeyError, ValueError):
        logger.debug("redis is not a local process", exc_info=True)
        return None


def server_root(url: str) -> int | None:
    """The pid of the local process tree serving ``url`` (e.g. a gunicorn started by ``make run``)."""
    parts = urlsplit(url)
    if parts.hostname not in LOCAL_HOSTS:
        return None
    try:
        listeners = [c for c in psutil.net_connections("tcp") if c.status == psutil.CONN_LISTEN and c.pid]
        pid = next(c.pid for c in listeners if c.laddr and c.laddr.port == (parts.port or HTTP_PORT))
        process = psutil.Process(pid)
        while (parent := process.parent()) is not None and parent.cmdline() == process.cmdline():
            process = parent  # a worker sharing the master's socket → the master
    except (psutil.Error, StopIteration):
        return None
    return process.pid


def probe_for(web_pid: int | None) -> Callable[[], Snapshot]:
    """A function that snapshots cumulative CPU seconds per process of every group, and of the machine."""
    roots = {CLIENT: psutil.Process().pid, WEB: web_pid, POSTGRES: _postgres_root(), REDIS: _redis_pid()}

    def snapshot() -> Snapshot:
        taken: Snapshot = {}
        for group, pid in roots.items():
            if pid is None:
                continue
            taken[group] = {}
            processes = _tree(pid) if group != CLIENT else [psutil.Process(pid)]
            for process in processes:
                try:
                    times = process.cpu_times()
                    taken[group][process.pid] = times.user + times.system
                except psutil.Error:
                    continue
        machine = psutil.cpu_times()
        taken[MACHINE] = {
            0: machine.user
            + machine.system
            + machine.nice
            + getattr(machine, "irq", 0.0)
            + getattr(machine, "softirq", 0.0)
            + getattr(machine, "steal", 0.0)
        }
        return taken

    return snapshot


def cpu_ms(start: Snapshot, end: Snapshot) -> dict[str, float]:
    """CPU milliseconds each group used between two snapshots (processes that appeared count from 0)."""
    used: dict[str, float] = {}
    for group, processes in end.items():
        before = start.get(group, {})
        used[group] = MS_PER_S * sum(cpu - before.get(pid, 0.0) for pid, cpu in processes.items())
    machine = used.pop(MACHINE, 0.0)
    used[OTHER] = max(0.0, machine - sum(used.values()))
    return used
