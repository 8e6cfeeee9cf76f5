"""Prometheus metrics (prometheus-client), served at ``/metrics`` to a scraper that sends
``Authorization: Bearer $MEMHQ_METRICS_TOKEN`` (404 when the token is not set: metrics are off).

Counted in the process where they happen (web: requests, recall; worker: phases, LLM calls, webhooks):
with several processes (gunicorn workers, Celery's prefork pool) set ``PROMETHEUS_MULTIPROC_DIR`` to a
directory every process of the host can write, emptied before they start (``make run`` and the Docker image
do); ``/metrics`` then adds up every process's files. Without it, ``/metrics`` shows its own process only.

Read from PostgreSQL and Redis at scrape time (the same for every process): episodes by status, the outbox
backlog, webhook deliveries by status, the broker's queue depth, each read replica's state and lag.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from django.conf import settings
from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponse
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector

logger = logging.getLogger(__name__)
if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):  # label-less metrics write their file when defined, below
    Path(os.environ["PROMETHEUS_MULTIPROC_DIR"]).mkdir(parents=True, exist_ok=True)
PHASE_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300)

REQUEST_SECONDS = Histogram(
    "memhq_http_request_duration_seconds",
    "Web request latency by route (the URL pattern), method and status.",
    ["route", "method", "status"],
)
PHASE_SECONDS = Histogram(
    "memhq_phase_duration_seconds",
    "Duration of a phase run that succeeded.",
    ["phase"],
    buckets=PHASE_BUCKETS,
)
PHASE_RETRIES = Counter("memhq_phase_retries", "Phase runs retried after a transient error.", ["phase"])
PHASE_FAILURES = Counter("memhq_phase_failures", "Phases that failed their episode.", ["phase"])
RECALL_DEGRADED = Counter("memhq_recall_degraded", "Recalls answered degraded (latest memories).")
LLM_CALLS = Counter("memhq_llm_calls", "Calls to the LLM, by what they were for.", ["operation"])
LLM_TOKENS = Counter("memhq_llm_tokens", "LLM tokens, by operation and kind.", ["operation", "kind"])
WEBHOOK_ATTEMPTS = Counter("memhq_webhook_attempts", "Webhook delivery attempts, by outcome.", ["outcome"])
READS = Counter(
    "memhq_reads", "Routed reads (memhq/replicas/), by where they ran and why.", ["target", "reason"]
)


def observe_llm(operation: str, prompt_tokens: int, completion_tokens: int) -> None:
    LLM_CALLS.labels(operation).inc()
    LLM_TOKENS.labels(operation, "prompt").inc(prompt_tokens)
    LLM_TOKENS.labels(operation, "completion").inc(completion_tokens)


class DatabaseCollector(Collector):
    """Gauges read at scrape time: one GROUP BY per table, and an LLEN per broker queue."""

    def collect(self) -> Iterator[Metric]:
        from memhq.models import Episode, EpisodeStatus, WebhookDelivery

        episodes = GaugeMetricFamily("memhq_episodes", "Episodes by status.", labels=["status"])
        counts = dict(
            Episode.objects.values_list("status").annotate(n=Count("pk")).values_list("status", "n")
        )
        for status in EpisodeStatus.values:
            episodes.add_metric([status], counts.get(status, 0))
        yield episodes
        backlog = Episode.objects.aggregate(
            queued=Count("pk", filter=Q(status=EpisodeStatus.QUEUED)),
            unpublished=Count("pk", filter=Q(publish_from__isnull=False)),
        )
        outbox = GaugeMetricFamily(
            "memhq_outbox_backlog", "Episodes waiting: queued, or not yet published.", labels=["state"]
        )
        for state, value in backlog.items():
            outbox.add_metric([state], value)
        yield outbox
        deliveries = GaugeMetricFamily("memhq_webhook_deliveries", "Deliveries by status.", labels=["status"])
        for status, n in WebhookDelivery.objects.values_list("status").annotate(n=Count("pk")):
            deliveries.add_metric([status], n)
        yield deliveries
        yield from self._queues()
        yield from self._replicas()

    def _replicas(self) -> Iterator[Metric]:
        from memhq.replicas.pool import POOL

        states = POOL.states(fresh=True)
        if not states:
            return
        families = {
            "up": GaugeMetricFamily(
                "memhq_replica_up", "1 when the replica is read from.", labels=["replica"]
            ),
            "lag_s": GaugeMetricFamily(
                "memhq_replica_lag_seconds", "Replay lag behind the primary.", labels=["replica"]
            ),
            "lag_bytes": GaugeMetricFamily(
                "memhq_replica_lag_bytes", "WAL the replica has not replayed.", labels=["replica"]
            ),
        }
        for state in states:
            families["up"].add_metric([state.alias], int(state.usable))
            families["lag_s"].add_metric([state.alias], state.lag_s)
            families["lag_bytes"].add_metric([state.alias], state.lag_bytes)
        yield from families.values()

    def _queues(self) -> Iterator[Metric]:
        import redis

        from config.broker import queue_client

        depth = GaugeMetricFamily("memhq_queue_depth", "Messages waiting in the broker.", labels=["queue"])
        try:
            client = queue_client(settings.CELERY_BROKER_URL, settings.MEMHQ_BROKER_SENTINEL_MASTER, 1.0)
            for queue in settings.MEMHQ_METRICS_QUEUES:
                depth.add_metric([queue], client.llen(queue))
        except redis.RedisError:
            logger.warning("metrics: the broker did not answer", exc_info=True)
            return
        yield depth


def reset_multiprocess_dir() -> None:
    """Create ``PROMETHEUS_MULTIPROC_DIR`` and empty it; run before the processes start (memhq_bootstrap)."""
    directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if not directory:
        return
    path = Path(directory)
    path.mkdir(parents=True, exist_ok=True)
    for stale in path.glob("*.db"):
        stale.unlink(missing_ok=True)


def registry() -> CollectorRegistry:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        scraped = CollectorRegistry()
        MultiProcessCollector(scraped)
    else:
        scraped = CollectorRegistry()
        scraped.register(_Process())
    scraped.register(DatabaseCollector())
    return scraped


class _Process(Collector):
    """This process's metrics (the default registry), when there is no multiprocess directory."""

    def collect(self) -> Iterator[Metric]:
        yield from REGISTRY.collect()


def metrics_view(request: HttpRequest) -> HttpResponse:
    token = settings.MEMHQ_METRICS_TOKEN
    if not token:
        return HttpResponse(status=404)
    if request.headers.get("Authorization", "") != f"Bearer {token}":
        response = HttpResponse("A bearer token is required.", status=401, content_type="text/plain")
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    return HttpResponse(generate_latest(registry()), content_type=CONTENT_TYPE_LATEST)


class RequestMetricsMiddleware:
    """Times every request the Django app answers (static files are served before it, by WhiteNoise)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        response = self.get_response(request)
        match = getattr(request, "resolver_match", None)
        route = f"/{match.route}" if match is not None and match.route else "unmatched"
        REQUEST_SECONDS.labels(route, request.method or "", str(response.status_code)).observe(
            time.perf_counter() - started
        )
        return response
