"""/healthz latency while slow clients send /add bodies (one byte every 2 s), against gunicorn alone and
through the front (config/Caddyfile), both started from the Procfile's lines. Run from a checkout:

    python -m config.devservers --data "$(mktemp -d)" --ephemeral -- \\
        .venv/bin/python tests/faults/measure_slow_clients.py --bare 24 --front 200

Each run starts gunicorn with ``--workers`` (the Procfile's default, 4) × 4 threads, opens the slow clients,
then probes /healthz every 0.5 s for ``--seconds`` with a 10 s timeout (tests/faults/test_slow_clients.py
asserts the same with a 2 s limit).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.getcwd())

import httpx

PROBE_TIMEOUT_S = 10.0
PROBE_EVERY_S = 0.5


def measure(url: str, address: tuple[str, int], clients: int, key: str, seconds: float) -> str:
    from tests.faults.test_slow_clients import SlowClients

    latencies, timeouts = [], 0
    with SlowClients(address, clients, key) as slow:
        time.sleep(1.0)
        started = time.monotonic()
        while time.monotonic() - started < seconds:
            began = time.monotonic()
            try:
                httpx.get(f"{url}/healthz", timeout=PROBE_TIMEOUT_S)
                latencies.append(time.monotonic() - began)
            except httpx.TimeoutException:
                timeouts += 1
            time.sleep(PROBE_EVERY_S)
        connected = slow.connected()
    answered = (
        f"p50 {statistics.median(latencies) * 1000:.0f} ms, max {max(latencies) * 1000:.0f} ms"
        if latencies
        else "none answered"
    )
    return (
        f"{len(latencies) + timeouts} probes: {len(latencies)} answered ({answered}), "
        f"{timeouts} timed out after {PROBE_TIMEOUT_S:g} s; "
        f"{connected}/{clients} slow clients connected at the end"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bare", type=int, default=24, help="slow clients against gunicorn alone (0: skip)")
    parser.add_argument("--front", type=int, default=200, help="slow clients through the front (0: skip)")
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=15.0)
    options = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command

    from memhq.services.tenancy import project_create
    from tests.faults.test_slow_clients import address
    from tests.support.front import free_port, front_process, gunicorn_process, wait_for_app
    from tests.support.worker import worker_env

    call_command("migrate", verbosity=0)
    _, issued = project_create(name=f"measure-{time.time_ns()}")
    directory, env = Path(tempfile.mkdtemp()), worker_env()
    if options.bare:
        port = free_port()
        with gunicorn_process([f"127.0.0.1:{port}"], env, directory / "bare.log", options.workers):
            url = f"http://127.0.0.1:{port}"
            wait_for_app(url, directory / "bare.log")
            result = measure(url, address(url), options.bare, issued.plaintext, options.seconds)
            print(f"gunicorn alone ({options.workers}×4 threads), {options.bare} slow clients: {result}")
    if options.front:
        sock, log = directory / "web.sock", directory / "web.log"
        with (
            gunicorn_process([f"unix:{sock}"], env, log, options.workers),
            front_process(env, directory / "front.log", upstream=f"unix/{sock}") as url,
        ):
            wait_for_app(url, log)
            result = measure(url, address(url), options.front, issued.plaintext, options.seconds)
            print(f"through the front ({options.workers}×4 threads), {options.front} slow clients: {result}")
    print(f"logs: {directory}")


if __name__ == "__main__":
    main()
