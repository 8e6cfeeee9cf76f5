"""Benchmarks: ``manage.py memhq_bench <benchmark> [options]``; ``manage.py memhq_bench <benchmark> -h``.

Each benchmark is one module under tooling/bench/ with ``HELP``, ``add_arguments(parser)`` and
``run(options, write) -> dict``; this command only dispatches.
"""

from __future__ import annotations

import signal
from argparse import ArgumentParser
from importlib import import_module
from typing import Any, Protocol, cast

from django.core.management.base import BaseCommand, CommandError

BENCHMARKS = {
    "add": "tooling.bench.add",
    "episode": "tooling.bench.long_episode",
    "ingest": "tooling.bench.ingest",
    "partitions": "tooling.bench.partitions",
    "recall": "tooling.bench.recall",
    "thread": "tooling.bench.thread",
}


class Benchmark(Protocol):
    HELP: str

    def add_arguments(self, parser: ArgumentParser) -> None: ...

    def run(self, options: dict[str, Any], write: Any) -> dict[str, Any]: ...


def _exit_on_sigterm(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def benchmark(name: str) -> Benchmark:
    return cast(Benchmark, import_module(BENCHMARKS[name]))


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser: ArgumentParser) -> None:
        sub = parser.add_subparsers(dest="benchmark", required=True, metavar="BENCHMARK")
        for name in BENCHMARKS:
            module = benchmark(name)
            module.add_arguments(sub.add_parser(name, help=module.HELP, description=module.HELP))

    def handle(self, *args: Any, **options: Any) -> None:
        # SIGTERM (e.g. from config.devservers) must unwind like Ctrl-C so the servers and workers a
        # benchmark started are stopped by its cleanup code rather than orphaned.
        signal.signal(signal.SIGTERM, _exit_on_sigterm)
        try:
            benchmark(options["benchmark"]).run(options, self.stdout.write)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
