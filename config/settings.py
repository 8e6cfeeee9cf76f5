"""MemHQ settings: everything a deployment changes is an environment variable (see docs/configuration.md)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from config import beat, broker, databases, localservers, logging_config, queues
from config.env import (
    ConfigError,
    env_bool,
    env_choice,
    env_float,
    env_int,
    env_list,
    env_str,
    seconds_list,
)

BASE_DIR = Path(__file__).resolve().parent.parent

SECRET_KEY = env_str("DJANGO_SECRET_KEY", "memhq-dev-secret-key-change-me-in-production")
DEBUG = env_bool("DJANGO_DEBUG", False)
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", "*")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_celery_beat",
    "memhq",
    "ingestion",
    *(["tooling"] if (BASE_DIR / "tooling").is_dir() else []),  # bench/eval commands; not in the image
]

MIDDLEWARE = [
    "memhq.api.errors.DatabaseUnavailableMiddleware",  # a database outage is 503 + Retry-After, never 500
    "memhq.ops.query_watchdog.QueryWatchdogMiddleware",  # and so is a frozen one
    "django.middleware.security.SecurityMiddleware",
    # WhiteNoise serves /static/ from STATIC_ROOT in every web process (gunicorn, docker) before any
    # other middleware touches the request: hashed names are cached forever, gzip served when accepted.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "memhq.ops.metrics.RequestMetricsMiddleware",  # request latency per route (memhq/ops/metrics.py)
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ]
        },
    }
]

# pgvector HNSW, set per connection: iterative scans keep returning rows until k rows pass the per-user
# filter (so a filtered kNN never comes back short), and the candidate list size of each scan.
MEMHQ_HNSW_EF_SEARCH = env_int("MEMHQ_HNSW_EF_SEARCH", 64)
# recall's one SQL statement is prepared once per database connection (saves ~3 ms of planning per call).
# Turn off behind a connection pooler that does not support prepared statements (PgBouncer < 1.21).
MEMHQ_RECALL_PREPARED = env_bool("MEMHQ_RECALL_PREPARED", True)
# How long a process remembers whether a user's tables are searched exactly or through HNSW (see
# retrieval/sizes.py); 0 decides on every recall.
MEMHQ_RECALL_SIZES_TTL_S = env_float("MEMHQ_RECALL_SIZES_TTL_S", 60.0)
PREPARE_ONLY_WHEN_ASKED = 2**31 - 1
# DATABASE_URL / REDIS_URL, else the servers of the `make run` running in this checkout (var/servers.json),
# else an error on first use that says so (never a silent localhost, where another server may answer).
MEMHQ_SERVERS_FILE = localservers.servers_file(BASE_DIR)
_database_url = localservers.resolve("DATABASE_URL", MEMHQ_SERVERS_FILE)
_session = databases.Session(
    hnsw_ef_search=MEMHQ_HNSW_EF_SEARCH,
    prepare_threshold=PREPARE_ONLY_WHEN_ASKED if MEMHQ_RECALL_PREPARED else None,
    conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 300),
)
_default_db = databases.connection_settings(
    _database_url.url or "postgresql:///memhq",
    _session,
    connect_timeout_s=env_int("DATABASE_CONNECT_TIMEOUT_S", 3),
)
DATABASES = {
    "default": {
        **_default_db,
        "ENGINE": "django.db.backends.postgresql" if _database_url.url else "config.unreachable_db",
        "MEMHQ_PROBLEM": _database_url.problem,
        "TEST": {"NAME": env_str("DATABASE_TEST_NAME", f"test_{_default_db['NAME']}")},
    },
    # Streaming replicas for reads (memhq/replicas/); none = everything on the primary.
    **databases.replica_databases(
        env_list("DATABASE_REPLICA_URLS", ""),
        _session,
        connect_timeout_s=env_int("DATABASE_REPLICA_CONNECT_TIMEOUT_S", 1),
    ),
}
DATABASE_ROUTERS = ["config.dbrouter.ReplicaRouter"]
# A replica is probed (its replayed position, its lag) at most this often per process, left out while its
# lag exceeds MAX_LAG_S, and not tried again for RETRY_S after it failed. A user's last write position is
# kept in Redis for WRITE_TTL_S (read-your-writes; memhq/replicas/freshness.py).
MEMHQ_REPLICA_CHECK_S = env_float("MEMHQ_REPLICA_CHECK_S", 1.0)
MEMHQ_REPLICA_MAX_LAG_S = env_float("MEMHQ_REPLICA_MAX_LAG_S", 30.0)
MEMHQ_REPLICA_RETRY_S = env_float("MEMHQ_REPLICA_RETRY_S", 5.0)
MEMHQ_REPLICA_WRITE_TTL_S = env_int("MEMHQ_REPLICA_WRITE_TTL_S", 3600)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
# `manage.py collectstatic` (run by memhq_bootstrap, the Docker build and the test session) writes the
# admin's, Swagger UI's and the graph page's files here with content-hashed names and .gz copies; WhiteNoise
# serves them.
STATIC_ROOT = Path(env_str("MEMHQ_STATIC_ROOT", str(BASE_DIR / "var" / "static")))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

# Request limits (DESIGN §6). Bodies over MAX_BODY_BYTES answer 413.
# Retry-After (seconds) on a 503 when the database is unavailable (memhq/api/errors.py); a web request's
# database call still running after REQUEST_QUERY_TIMEOUT_S has its connection cut (0: never).
MEMHQ_RETRY_AFTER_S = env_int("MEMHQ_RETRY_AFTER_S", 5)
MEMHQ_REQUEST_QUERY_TIMEOUT_S = env_float("MEMHQ_REQUEST_QUERY_TIMEOUT_S", 10.0)
MEMHQ_MAX_BODY_BYTES = env_int("MEMHQ_MAX_BODY_BYTES", 1024 * 1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = MEMHQ_MAX_BODY_BYTES
MEMHQ_MAX_MESSAGES = env_int("MEMHQ_MAX_MESSAGES", 500)
MEMHQ_MAX_MESSAGE_BYTES = env_int("MEMHQ_MAX_MESSAGE_BYTES", 32 * 1024)
MEMHQ_MAX_METADATA_BYTES = env_int("MEMHQ_MAX_METADATA_BYTES", 16 * 1024)
MEMHQ_MAX_USER_ID_CHARS = 200
# api keys' last_used_at is written at most this often, so authentication stays a read.
MEMHQ_KEY_TOUCH_INTERVAL = timedelta(seconds=env_int("MEMHQ_KEY_TOUCH_INTERVAL_S", 60))
# How long a web process keeps an API key it has read (revocation bound: memhq/selectors/tenancy.py).
MEMHQ_KEY_CACHE_S = env_float("MEMHQ_KEY_CACHE_S", 5.0)

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["memhq.api.auth.ApiKeyAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["memhq.api.auth.HasProject"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "EXCEPTION_HANDLER": "memhq.api.errors.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_THROTTLE_CLASSES": ["memhq.api.throttling.ProjectRateThrottle"],
    "DEFAULT_THROTTLE_RATES": {"project": env_str("MEMHQ_RATE_LIMIT", "") or None},
    "UNAUTHENTICATED_USER": None,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "MemHQ API",
    "DESCRIPTION": "Long-term memory for LLM agents.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "SERVE_PERMISSIONS": ["rest_framework.permissions.AllowAny"],
    "SERVE_AUTHENTICATION": [],
    # 3.1: the /add body's JSON schema (pydantic) says "null" as a type, which 3.0 cannot.
    "OAS_VERSION": "3.1.0",
    "ENUM_NAME_OVERRIDES": {
        "MemoryKindEnum": "memhq.models.MemoryKind",
        "MemoryStatusEnum": "memhq.models.MemoryStatus",
        "BatchKindEnum": "memhq.models.BatchKind",
        "ThreadStatusEnum": "memhq.models.ThreadStatus",
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "memhq.api.schema.add_error_responses",
    ],
}

# Celery: every task is idempotent, so acks_late + reject_on_worker_lost; results live in tables.
_redis_url = localservers.resolve("REDIS_URL", MEMHQ_SERVERS_FILE)
# Without one, a Unix socket that cannot exist, named so that the connection error says what is missing.
_NO_REDIS = "/REDIS_URL-is-not-set-and-no-make-run-is-running"
REDIS_URL = _redis_url.url or f"unix://{_NO_REDIS}"
CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}}
# The rate limiter's windows live in Redis so every web process shares them (memhq/api/throttling.py); it
# fails open when Redis does not answer within the timeout, and does not ask again for the backoff.
MEMHQ_RATE_LIMIT_REDIS_URL = env_str("MEMHQ_RATE_LIMIT_REDIS_URL", "") or REDIS_URL
MEMHQ_RATE_LIMIT_TIMEOUT_S = env_float("MEMHQ_RATE_LIMIT_TIMEOUT_S", 0.1)
MEMHQ_RATE_LIMIT_BACKOFF_S = env_float("MEMHQ_RATE_LIMIT_BACKOFF_S", 1.0)
# The broker is REDIS_URL's Redis unless CELERY_BROKER_URL names another, e.g. Redis Sentinel for failover:
# sentinel://s1:26379;sentinel://s2:26379 with the monitored master's name in MEMHQ_BROKER_SENTINEL_MASTER.
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", "") or _redis_url.url or f"redis+socket://{_NO_REDIS}"
MEMHQ_BROKER_SENTINEL_MASTER = env_str("MEMHQ_BROKER_SENTINEL_MASTER", "mymaster")
_sentinel = {"master_name": MEMHQ_BROKER_SENTINEL_MASTER} if CELERY_BROKER_URL.startswith("sentinel") else {}
# kombu's Redis transport with late acks after a lost connection dropped, not fatal (config/broker.py).
CELERY_BROKER_TRANSPORT = broker.transport_for(CELERY_BROKER_URL)
CELERY_RESULT_BACKEND = CELERY_BROKER_URL  # only tasks that ask for a result (none of the pipeline's) use it
CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS = _sentinel
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_TIMEOUT = env_float("CELERY_BROKER_CONNECTION_TIMEOUT", 2.0)
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "socket_connect_timeout": 2,
    "socket_timeout": 5,
    "max_retries": 0,
    **_sentinel,
}
CELERY_TASK_PUBLISH_RETRY = False
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Celery's Django fixup closes every connection around each task unless this is set; config/celery.py keeps
# them as Django does between requests (DATABASE_CONN_MAX_AGE, health checks, closed after an error).
CELERY_DB_REUSE_MAX = 1_000_000
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = "UTC"
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
CELERY_BEAT_SCHEDULE = beat.schedule()  # config/beat.py

# Ingestion (DESIGN §3).
MEMHQ_EXTRACTOR = env_choice("MEMHQ_EXTRACTOR", "rules", ("rules", "openai"))
MEMHQ_EMBEDDINGS = env_choice("MEMHQ_EMBEDDINGS", "local", ("local", "openai"))
MEMHQ_EMBEDDING_DIM = 384
# onnxruntime threads per local embedding call (see memhq/ai/embeddings.py and docs/configuration.md).
MEMHQ_EMBED_THREADS = env_int("MEMHQ_EMBED_THREADS", 1)
# Helper threads a phase shares one batch of model work with (local embeddings, spaCy parsing): an
# episode's latency on a core the worker's other processes leave idle (memhq.ai.beside.spread).
MEMHQ_MODEL_HELPERS = env_int("MEMHQ_MODEL_HELPERS", 1)
if not 0 <= MEMHQ_MODEL_HELPERS <= 4:  # memhq.ai.beside.MAX_HELPERS threads in all
    raise ConfigError(f"MEMHQ_MODEL_HELPERS must be 0 to 4, got {MEMHQ_MODEL_HELPERS}")
# Recall's query, and stored texts one per run, on int8 kernels (memhq.ai.int8_kernels; cosine >= 0.99).
MEMHQ_EMBED_INT8_QUERIES = env_bool("MEMHQ_EMBED_INT8_QUERIES", True)
MEMHQ_EMBED_INT8_TEXTS = env_bool("MEMHQ_EMBED_INT8_TEXTS", True)
OPENAI_BASE_URL = env_str("OPENAI_BASE_URL", "") or None
OPENAI_API_KEY = env_str("OPENAI_API_KEY", "")
OPENAI_MODEL = env_str("OPENAI_MODEL", "gpt-4o-mini")
OPENAI_EMBEDDING_MODEL = env_str("OPENAI_EMBEDDING_MODEL", "text-embedding-3-small")
# One model call may take this long. 600 s (the openai SDK's own default) fits a small model on a CPU-only
# server: reading a ~2.5k-token extraction prompt alone took over 60 s on a small CPU-only box (issue 16),
# and a server that serves one request at a time makes the next call wait for the current one too.
OPENAI_TIMEOUT_S = env_float("OPENAI_TIMEOUT_S", 600.0)
# Chat answers are read as they are generated: OPENAI_TIMEOUT_S then bounds the wait for the first token and
# between tokens (a CPU server writing a long answer at ~1 token/s is not cut off), OPENAI_MAX_CALL_S the
# whole call. Off: one response, OPENAI_TIMEOUT_S for all of it.
OPENAI_STREAM = env_bool("OPENAI_STREAM", True)
OPENAI_MAX_CALL_S = env_float("OPENAI_MAX_CALL_S", 1800.0)
# Worked examples in the extraction prompt (0-2; each ~700 tokens). 1 (or 0) shortens a CPU server's first
# call; the prefix is identical on every call, so servers that cache it (llama.cpp, vLLM) read it once.
MEMHQ_EXTRACT_EXAMPLES = env_int("MEMHQ_EXTRACT_EXAMPLES", 2)
if not 0 <= MEMHQ_EXTRACT_EXAMPLES <= 2:
    raise ConfigError(f"MEMHQ_EXTRACT_EXAMPLES must be 0, 1 or 2, got {MEMHQ_EXTRACT_EXAMPLES}")
MEMHQ_TASK_MAX_RETRIES = env_int("MEMHQ_TASK_MAX_RETRIES", 5)
MEMHQ_TASK_RETRY_BACKOFF_MAX_S = env_int("MEMHQ_TASK_RETRY_BACKOFF_MAX_S", 300)
# Phases 1-6 commit without waiting for their WAL to reach the disk (PostgreSQL's synchronous_commit = off,
# for those transactions only): a crash of the database may lose the last fraction of a second of phase
# results, never make them half-written, and the stall sweep below re-runs what was lost from the episode,
# which /add stored durably. Notify (completion) and everything a request writes stay durable.
MEMHQ_PHASE_ASYNC_COMMIT = env_bool("MEMHQ_PHASE_ASYNC_COMMIT", True)
# An episode queued or stuck in a phase longer than this is re-enqueued from its next phase.
MEMHQ_STALL_TIMEOUT_S = env_int("MEMHQ_STALL_TIMEOUT_S", 300)
# ... except a phase that is waiting for a model (extract in LLM mode; resolve_entities and index with
# OpenAI embeddings): its claim stays its own for a whole call plus the stall timeout, so neither the sweep
# nor a redelivery starts a second call while the first is still running (ingestion/runner.py).
_LONGEST_CALL_S = max(OPENAI_TIMEOUT_S, OPENAI_MAX_CALL_S) if OPENAI_STREAM else OPENAI_TIMEOUT_S
MEMHQ_LLM_STALL_TIMEOUT_S = env_float("MEMHQ_LLM_STALL_TIMEOUT_S", _LONGEST_CALL_S + MEMHQ_STALL_TIMEOUT_S)
# The broker hands an unacknowledged task (acks_late) to another worker after this: longer than any phase.
CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"] = env_int(
    "CELERY_VISIBILITY_TIMEOUT_S", max(3600, int(2 * MEMHQ_LLM_STALL_TIMEOUT_S))
)
# An episode pending publication this long (the relay is down or missing) is published by the sweep itself.
MEMHQ_QUEUED_GRACE_S = env_int("MEMHQ_QUEUED_GRACE_S", 30)
# A phase claim's lease (ingestion/claims.py), renewed every third of it while the phase runs. A claim whose
# lease ran out, or whose holder process is gone (same host), is taken over at once.
MEMHQ_CLAIM_LEASE_S = env_float("MEMHQ_CLAIM_LEASE_S", 30.0)
# The outbox relay (ingestion/relay.py): woken by NOTIFY on commit; polls this often anyway; backs off up to
# the max while the broker is unreachable.
MEMHQ_RELAY_POLL_S = env_float("MEMHQ_RELAY_POLL_S", 5.0)
MEMHQ_RELAY_BACKOFF_MAX_S = env_float("MEMHQ_RELAY_BACKOFF_MAX_S", 2.0)
MEMHQ_RELAY_BATCH = env_int("MEMHQ_RELAY_BATCH", 200)
# Workers write a heartbeat row this often while consuming; /healthz wants one fresher than the TTL
# (ingestion/heartbeat.py). An idle worker that received nothing for STALL_S while its queues hold messages
# reconnects its consumer (ingestion/consumer_watchdog.py; 0: off).
MEMHQ_WORKER_HEARTBEAT_S = env_float("MEMHQ_WORKER_HEARTBEAT_S", 5.0)
MEMHQ_WORKER_HEARTBEAT_TTL_S = env_float("MEMHQ_WORKER_HEARTBEAT_TTL_S", 20.0)
MEMHQ_CONSUMER_STALL_S = env_float("MEMHQ_CONSUMER_STALL_S", 30.0)

# A broker queue per kind of work (config/queues.py), so hosts can be specialised (docs/deployment.md). A
# worker without -Q consumes all but the LLM one in LLM mode, which `worker_llm` consumes (Procfile, compose
# profile `llm`), so a slow model call never holds up cheap phases. Empty name: on the cheap queue.
MEMHQ_QUEUE_CHEAP = env_str("MEMHQ_QUEUE_CHEAP", "celery") or "celery"
MEMHQ_LLM_QUEUE = env_str("MEMHQ_LLM_QUEUE", "llm")
MEMHQ_QUEUES = {
    "cheap": MEMHQ_QUEUE_CHEAP,
    "embed": env_str("MEMHQ_QUEUE_EMBED", "embed") or MEMHQ_QUEUE_CHEAP,
    "llm": MEMHQ_LLM_QUEUE or MEMHQ_QUEUE_CHEAP,
    "webhooks": env_str("MEMHQ_QUEUE_WEBHOOKS", "webhooks") or MEMHQ_QUEUE_CHEAP,
    "sweeps": env_str("MEMHQ_QUEUE_SWEEPS", "sweeps") or MEMHQ_QUEUE_CHEAP,
}
CELERY_TASK_DEFAULT_QUEUE = MEMHQ_QUEUE_CHEAP
CELERY_TASK_ROUTES = queues.routes(MEMHQ_QUEUES, llm_mode=MEMHQ_EXTRACTOR == "openai")
CELERY_TASK_QUEUES = queues.consumed(MEMHQ_QUEUES, llm_mode=MEMHQ_EXTRACTOR == "openai")

# Retrieval (DESIGN §5).
# Long messages are indexed as passages (ingestion/passages.py); the first this many of each message are
# embedded, the rest found by full text only (1, the message's own vector: docs/benchmarks.md).
MEMHQ_PASSAGES_EMBEDDED = env_int("MEMHQ_PASSAGES_EMBEDDED", 1)
# A second dense signal over what the user said (memhq/ai/e5.py): on by default since it runs on
# onnxruntime (both development sets gain, cross-validated); "off" saves its ingest and recall CPU
# (docs/configuration.md).
MEMHQ_SECOND_EMBEDDER = env_choice("MEMHQ_SECOND_EMBEDDER", "e5", ("off", "e5"))
# Recall's ranking parameters (fusion weights, RRF k, boosts, neighbours, recency) are properties of the
# method, not of a deployment: they live with their defaults and reasons in retrieval/config.py
# (RetrievalConfig) and are tuned with `memhq_eval`, so none is an environment variable.

# Working memory (threads). A thread's pending messages become an episode this long after its last message
# (a project may override it: Project.settings["auto_episode_interval"], seconds).
MEMHQ_AUTO_EPISODE_INTERVAL_S = env_float("MEMHQ_AUTO_EPISODE_INTERVAL_S", 1800.0)
# A temporary thread inactive this long is ended by the inactivity sweep (its messages are deleted).
MEMHQ_TEMPORARY_THREAD_EXPIRY_S = env_float("MEMHQ_TEMPORARY_THREAD_EXPIRY_S", 86400.0)
# Compaction starts when the messages not covered by the summary exceed either threshold, and keeps the
# newest ones (at most this many messages and tokens) verbatim; the summary is capped at SUMMARY_MAX_TOKENS.
MEMHQ_THREAD_COMPACT_AFTER_MESSAGES = env_int("MEMHQ_THREAD_COMPACT_AFTER_MESSAGES", 40)
MEMHQ_THREAD_COMPACT_AFTER_TOKENS = env_int("MEMHQ_THREAD_COMPACT_AFTER_TOKENS", 4000)
MEMHQ_THREAD_KEEP_RECENT_MESSAGES = env_int("MEMHQ_THREAD_KEEP_RECENT_MESSAGES", 20)
MEMHQ_THREAD_KEEP_RECENT_TOKENS = env_int("MEMHQ_THREAD_KEEP_RECENT_TOKENS", 2000)
MEMHQ_THREAD_SUMMARY_MAX_TOKENS = env_int("MEMHQ_THREAD_SUMMARY_MAX_TOKENS", 400)
# A compaction requested this long ago and not done (broker down, lost task) is enqueued again.
# (in LLM mode, at least one model call longer, so a summary still being written is not asked for twice).
MEMHQ_THREAD_COMPACTION_RETRY_S = env_float(
    "MEMHQ_THREAD_COMPACTION_RETRY_S",
    max(300.0, _LONGEST_CALL_S + 60.0) if MEMHQ_EXTRACTOR == "openai" else 300.0,
)
# prepare-and-recall runs prepare on a helper thread (own connection) beside recall; 0: one after the other.
MEMHQ_PREPARE_AND_RECALL_CONCURRENT = env_bool("MEMHQ_PREPARE_AND_RECALL_CONCURRENT", True)

# Webhooks: deliveries to private/loopback addresses are refused unless allowed (tests allow loopback).
MEMHQ_WEBHOOKS_ALLOW_PRIVATE = env_bool("MEMHQ_WEBHOOKS_ALLOW_PRIVATE", False)
MEMHQ_WEBHOOKS_TIMEOUT_S = env_float("MEMHQ_WEBHOOKS_TIMEOUT_S", 15.0)
# Seconds to wait after the 1st, 2nd, … failed attempt (Standard Webhooks' schedule); then it is dead.
MEMHQ_WEBHOOKS_RETRY_SCHEDULE_S = seconds_list(
    "MEMHQ_WEBHOOKS_RETRY_SCHEDULE_S",
    env_list("MEMHQ_WEBHOOKS_RETRY_SCHEDULE_S", "5,300,1800,7200,18000,36000,50400,72000,86400"),
)
MEMHQ_WEBHOOKS_RETRY_JITTER = env_float("MEMHQ_WEBHOOKS_RETRY_JITTER", 0.1)  # each delay × (1 ± this)
MEMHQ_WEBHOOKS_RETRY_AFTER_MAX_S = env_float("MEMHQ_WEBHOOKS_RETRY_AFTER_MAX_S", 86400.0)
MEMHQ_WEBHOOKS_REQUEUE_AFTER_S = env_float("MEMHQ_WEBHOOKS_REQUEUE_AFTER_S", 60.0)
MEMHQ_WEBHOOKS_SECRET_ROTATION_GRACE_S = env_float("MEMHQ_WEBHOOKS_SECRET_ROTATION_GRACE_S", 86400.0)
MEMHQ_WEBHOOKS_MAX_ENDPOINTS = env_int("MEMHQ_WEBHOOKS_MAX_ENDPOINTS", 20)

# Memory control (docs/memory-control.md). The graph view returns at most this many nodes and edges; a
# memory's history at most this many events (oldest first).
MEMHQ_GRAPH_MAX_NODES = env_int("MEMHQ_GRAPH_MAX_NODES", 500)
MEMHQ_GRAPH_MAX_EDGES = env_int("MEMHQ_GRAPH_MAX_EDGES", 1000)
MEMHQ_HISTORY_MAX_EVENTS = env_int("MEMHQ_HISTORY_MAX_EVENTS", 1000)
# Signed links to a user's graph page (POST /v1/memhq/graph/links, for an app to embed): default and
# longest lifetime, seconds.
MEMHQ_GRAPH_LINK_TTL_S = env_int("MEMHQ_GRAPH_LINK_TTL_S", 900)
MEMHQ_GRAPH_LINK_MAX_TTL_S = env_int("MEMHQ_GRAPH_LINK_MAX_TTL_S", 3600)
# An erasure waits this long for the user's in-flight writes (/add, phases) before answering 409.
MEMHQ_ERASURE_LOCK_TIMEOUT_S = env_float("MEMHQ_ERASURE_LOCK_TIMEOUT_S", 5.0)
# Deep consolidation (beat, every MEMHQ_CONSOLIDATION_EVERY_S): each chunk examines at most CHUNK_SIZE rows
# of one user and commits as one journaled batch; a sweep runs at most MAX_CHUNKS chunks, pausing PAUSE_S
# after each (so it never hogs the database), and the next sweep resumes where it stopped.
MEMHQ_CONSOLIDATION_CHUNK_SIZE = env_int("MEMHQ_CONSOLIDATION_CHUNK_SIZE", 200)
MEMHQ_CONSOLIDATION_MAX_CHUNKS = env_int("MEMHQ_CONSOLIDATION_MAX_CHUNKS", 500)
MEMHQ_CONSOLIDATION_CHUNK_PAUSE_S = env_float("MEMHQ_CONSOLIDATION_CHUNK_PAUSE_S", 0.0)
# A failed episode whose error was transient is retried once it has been failed this long, at most
# MAX_EPISODE_RETRIES times.
MEMHQ_CONSOLIDATION_RETRY_AFTER_S = env_float("MEMHQ_CONSOLIDATION_RETRY_AFTER_S", 600.0)
MEMHQ_CONSOLIDATION_MAX_EPISODE_RETRIES = env_int("MEMHQ_CONSOLIDATION_MAX_EPISODE_RETRIES", 3)
# Importance decay: a memory not seen for more than DECAY_AFTER_DAYS has its importance capped at
# 0.5 ** ((days unseen - DECAY_AFTER_DAYS) / HALF_LIFE_DAYS), never below FLOOR (and never raised).
MEMHQ_IMPORTANCE_DECAY_AFTER_DAYS = env_float("MEMHQ_IMPORTANCE_DECAY_AFTER_DAYS", 90.0)
MEMHQ_IMPORTANCE_HALF_LIFE_DAYS = env_float("MEMHQ_IMPORTANCE_HALF_LIFE_DAYS", 180.0)
MEMHQ_IMPORTANCE_FLOOR = env_float("MEMHQ_IMPORTANCE_FLOOR", 0.1)

# Prometheus metrics at /metrics (memhq/ops/metrics.py) for a scraper sending "Authorization: Bearer <this>";
# empty = /metrics answers 404. The broker queues whose depth it reports.
MEMHQ_METRICS_TOKEN = env_str("MEMHQ_METRICS_TOKEN", "")
MEMHQ_METRICS_QUEUES = env_list("MEMHQ_METRICS_QUEUES", ",".join(dict.fromkeys(MEMHQ_QUEUES.values())))

# Logs (memhq/ops/logs.py, config/logging_config.py): plain lines or one JSON object per line.
LOG_FORMAT = env_choice("LOG_FORMAT", "plain", ("plain", "json"))
LOGGING = logging_config.dict_config(LOG_FORMAT, env_str("LOG_LEVEL", "INFO"))
