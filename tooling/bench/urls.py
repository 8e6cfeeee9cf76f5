"""URLs of the benchmark's own server: everything in config.urls, plus the baseline when asked for."""

from __future__ import annotations

from typing import cast

from django.urls import URLPattern, URLResolver, path

from config.env import env_bool
from config.urls import handler404, handler500
from config.urls import urlpatterns as memhq_urlpatterns
from tooling.bench.baseline import BASELINE_ROUTE, baseline_add

BASELINE_ENV = "MEMHQ_BENCH_BASELINE"

urlpatterns = cast(list[URLPattern | URLResolver], list(memhq_urlpatterns))
if env_bool(BASELINE_ENV, False):
    urlpatterns.append(path(BASELINE_ROUTE, baseline_add, name="bench-baseline-add"))

__all__ = ["handler404", "handler500", "urlpatterns"]
