"""Settings of the benchmark's baseline server: MemHQ's settings with the benchmark's URLs."""

from config.settings import *  # noqa: F403

ROOT_URLCONF = "memhq.bench.urls"
WSGI_APPLICATION = "memhq.bench.wsgi.application"
