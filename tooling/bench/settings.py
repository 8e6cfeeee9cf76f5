"""Settings of the benchmark's baseline server: MemHQ's settings with the benchmark's URLs."""

from config.settings import *  # noqa: F403

ROOT_URLCONF = "tooling.bench.urls"
WSGI_APPLICATION = "tooling.bench.wsgi.application"
