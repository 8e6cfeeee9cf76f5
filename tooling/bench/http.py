"""The load generator: N concurrent HTTP/1.1 connections driven from one asyncio loop.

Why raw sockets on asyncio and not httpx: the server, Postgres, Redis and this client share the same few
cores, so every microsecond the client spends is taken from the server. A pre-encoded request and a minimal
response parser cost ~0.2 ms of CPU per request here (user + system; the kernel's TCP connect and close,
which gunicorn's sync workers force on every request, are a good part of it); httpx.AsyncClient measured
~1.2 ms. Blocking sockets in threads cost a little less CPU but make the open-loop schedule depend on GIL
hand-offs. The report prints the client's CPU per request and share of a core, so it is never hidden.

Two modes:
- closed loop (default): each client sends, waits for the answer, sends again. Throughput is what the server
  can do; latency ≈ clients / throughput (Little's law), so it says little about one request's cost.
- open loop (``rate``): requests are scheduled at a fixed arrival rate and handed to the first free
  connection. Latency is measured from the *scheduled* time, so a stalled server is not hidden by a client
  that waited before sending (no coordinated omission).

Gunicorn's sync workers answer ``Connection: close``; the client then reconnects, and the connect time is part
of the measured latency, as it would be for any real client of that server.
"""

from __future__ import annotations

import asyncio
import gc
import itertools
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from tooling.bench.connection import Connection, ResponseError

REQUEST_TIMEOUT_S = 10.0
OPEN_LOOP_DRAIN_S = 5.0  # after the window, scheduled requests still waiting this long are counted unsent
NS_PER_S = 1_000_000_000


@dataclass(frozen=True)
class Target:
    """One endpoint to load: pre-encoded requests, one per client (clients cycle through them)."""

    url: str
    bodies: Sequence[bytes]
    headers: dict[str, str] = field(default_factory=dict)
    #: False: client i always sends body i (mod the count); True: every client sends all the bodies in turn,
    #: client i starting at body i (a mix of requests, e.g. recall's queries, rather than one per client).
    rotate: bool = False

    @property
    def host(self) -> str:
        return urlsplit(self.url).hostname or "127.0.0.1"

    @property
    def port(self) -> int:
        parts = urlsplit(self.url)
        return parts.port or (443 if parts.scheme == "https" else 80)

    def client_requests(self, client: int) -> Iterator[bytes]:
        """What client number ``client`` sends, request after request."""
        requests = self.requests()
        first = client % len(requests)
        if self.rotate:
            return itertools.cycle(requests[first:] + requests[:first])
        return itertools.repeat(requests[first])

    def requests(self) -> list[bytes]:
        parts = urlsplit(self.url)
        if parts.scheme != "http":
            raise ValueError(f"only http:// URLs are supported, got {self.url!r}")
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        head = [f"POST {path} HTTP/1.1", f"Host: {parts.netloc}", "Content-Type: application/json"]
        head += [f"{name}: {value}" for name, value in self.headers.items()]
        return [
            ("\r\n".join([*head, f"Content-Length: {len(body)}", "", ""])).encode() + body
            for body in self.bodies
        ]


@dataclass(frozen=True)
class Load:
    clients: int
    seconds: float
    warmup_s: float
    rate: float | None = None  # None = closed loop

    @property
    def mode(self) -> str:
        return "closed" if self.rate is None else "open"


@dataclass
class LoadResult:
    load: Load
    latencies_ns: list[int]  # requests of the measured window that succeeded (2xx)
    done_s: list[float]  # when each of them completed, seconds into the window (throughput over time)
    errors: Counter[str]  # requests of the measured window that failed, by status or exception
    window_s: float
    client_cpu_s: float  # CPU this process used for the whole run (warm-up included)
    requests_total: int  # every request sent in the run (warm-up included), for the per-request CPU
    elapsed_s: float
    probes: dict[str, Any] = field(default_factory=dict)  # what the window hooks returned

    @property
    def ok(self) -> int:
        return len(self.latencies_ns)

    @property
    def error_count(self) -> int:
        return sum(self.errors.values())


Record = tuple[int, int, str | None]  # (origin ns, done ns, error or None); origin = start or scheduled time


async def _one(connection: Connection, request: bytes) -> str | None:
    try:
        async with asyncio.timeout(REQUEST_TIMEOUT_S):
            status = await connection.post(request)
    except TimeoutError:
        return "timeout"
    except (
        OSError,
        asyncio.IncompleteReadError,
        asyncio.LimitOverrunError,
        ResponseError,
        ValueError,
    ) as exc:
        return type(exc).__name__
    return None if 200 <= status < 300 else f"HTTP {status}"


async def _closed_client(
    connection: Connection, requests: Iterator[bytes], stop_ns: int, records: list[Record]
) -> None:
    while (start := time.perf_counter_ns()) < stop_ns:
        error = await _one(connection, next(requests))
        records.append((start, time.perf_counter_ns(), error))


async def _open_client(
    connection: Connection,
    requests: Iterator[bytes],
    queue: asyncio.Queue[int | None],
    give_up_ns: int,
    records: list[Record],
) -> None:
    while (scheduled := await queue.get()) is not None:
        if time.perf_counter_ns() > give_up_ns:
            records.append((scheduled, give_up_ns, "unsent (client backlog)"))
            continue
        error = await _one(connection, next(requests))
        records.append((scheduled, time.perf_counter_ns(), error))


async def _dispatch(
    queue: asyncio.Queue[int | None], rate: float, start_ns: int, stop_ns: int, clients: int
) -> None:
    """Queue each request's scheduled time when it is due (all the due ones at once after a late wake-up)."""
    sent = 0
    while True:
        now = time.perf_counter_ns()
        while (due := start_ns + int(sent * NS_PER_S / rate)) <= min(now, stop_ns - 1):
            queue.put_nowait(due)
            sent += 1
        if due >= stop_ns:
            break
        await asyncio.sleep((due - time.perf_counter_ns()) / NS_PER_S)
    for _ in range(clients):
        queue.put_nowait(None)


Probe = Callable[[], Any]


async def _run(
    target: Target, load: Load, probe: Probe | None
) -> tuple[list[Record], int, int, dict[str, Any]]:
    loop = asyncio.get_running_loop()
    connections = [Connection(target.host, target.port) for _ in range(load.clients)]
    start_ns = time.perf_counter_ns()
    window_start_ns = start_ns + int(load.warmup_s * NS_PER_S)
    stop_ns = window_start_ns + int(load.seconds * NS_PER_S)
    records: list[Record] = []
    probes: dict[str, Any] = {}

    async def probe_at(name: str, at_ns: int) -> None:
        await asyncio.sleep(max(0, at_ns - time.perf_counter_ns()) / NS_PER_S)
        if probe is not None:
            probes[name] = await loop.run_in_executor(None, probe)

    tasks = [probe_at("start", window_start_ns), probe_at("end", stop_ns)]
    if load.rate is None:
        tasks += [
            _closed_client(conn, target.client_requests(i), stop_ns, records)
            for i, conn in enumerate(connections)
        ]
    else:
        queue: asyncio.Queue[int | None] = asyncio.Queue()
        give_up_ns = stop_ns + int(OPEN_LOOP_DRAIN_S * NS_PER_S)
        tasks.append(_dispatch(queue, load.rate, start_ns, stop_ns, load.clients))
        tasks += [
            _open_client(conn, target.client_requests(i), queue, give_up_ns, records)
            for i, conn in enumerate(connections)
        ]
    await asyncio.gather(*tasks)
    for conn in connections:
        conn.close()
    return records, window_start_ns, stop_ns, probes


def run_load(target: Target, load: Load, probe: Probe | None = None) -> LoadResult:
    """Drive ``load`` against ``target``; ``probe`` runs at the start and the end of the measured window."""
    gc.collect()
    gc.disable()  # the records list grows by ~1k tuples/s; a collection pause would land in some latency
    cpu_before, wall_before = time.process_time(), time.perf_counter()
    try:
        records, window_start, window_stop, probes = asyncio.run(_run(target, load, probe))
    finally:
        gc.enable()
    cpu, elapsed = time.process_time() - cpu_before, time.perf_counter() - wall_before
    # Closed loop: what completed inside the window. Open loop: what was scheduled inside it, however late.
    if load.rate is None:
        window = [r for r in records if window_start <= r[1] < window_stop]
    else:
        window = [r for r in records if window_start <= r[0] < window_stop]
    return LoadResult(
        load=load,
        latencies_ns=[done - origin for origin, done, error in window if error is None],
        done_s=[(done - window_start) / NS_PER_S for _, done, error in window if error is None],
        errors=Counter(error for _, _, error in window if error is not None),
        window_s=(window_stop - window_start) / NS_PER_S,
        client_cpu_s=cpu,
        requests_total=len(records),
        elapsed_s=elapsed,
        probes=probes,
    )
