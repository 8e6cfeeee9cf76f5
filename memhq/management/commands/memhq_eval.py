"""Retrieval evaluation: ingest a data set through the real phases, ask its questions, score provenance.

    manage.py memhq_eval --data ../shared/eval/locomo-dev [--conversations N] [--signals] [--json out.json]

The data format and the metrics are described in ``../shared/eval/README.md``. The run uses a fresh project,
deleted afterwards unless --keep is given.
"""

from __future__ import annotations

import json
from argparse import ArgumentParser
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from retrieval.evaluation.runner import FUSION, EvalReport, evaluate

COLUMNS = (
    "n",
    "frac@5",
    "frac@10",
    "frac@20",
    "all@10",
    "any@10",
    "all@20",
    "session_all@1",
    "session_all@3",
    "session_all@5",
)


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument(
            "--data", required=True, type=Path, help="folder with episodes.jsonl and queries.jsonl"
        )
        parser.add_argument("--conversations", type=int, default=None, help="only the first N conversations")
        parser.add_argument("--signals", action="store_true", help="also score each signal alone")
        parser.add_argument("--json", type=Path, default=None, help="write the figures to this file")
        parser.add_argument("--keep", action="store_true", help="keep the evaluation project afterwards")

    def handle(self, *args: Any, **options: Any) -> None:
        data: Path = options["data"]
        if not (data / "episodes.jsonl").exists() or not (data / "queries.jsonl").exists():
            raise CommandError(f"{data} must hold episodes.jsonl and queries.jsonl")
        bars: list[tqdm[Any]] = []

        def progress(total: int, label: str) -> Callable[[], None]:
            bar = tqdm(total=total, desc=label, unit="item", file=self.stderr._out, leave=True)
            bars.append(bar)
            return lambda: bar.update(1)

        report = evaluate(
            data,
            conversations=options["conversations"],
            signals=options["signals"],
            keep=options["keep"],
            progress_factory=progress,
        )
        for bar in bars:
            bar.close()
        self.print_report(report)
        if options["json"]:
            options["json"].write_text(json.dumps(report.as_json(), indent=2))

    def print_report(self, report: EvalReport) -> None:
        summary = report.as_json()
        self.stdout.write(
            f"\n{report.episodes} episodes ({report.failed_episodes} failed) ingested in "
            f"{report.ingest_seconds:.1f}s; {report.questions} questions in {report.query_seconds:.1f}s; "
            f"median context {summary['median_context_tokens']} tokens\n"
        )
        for name, scores in sorted(report.scores.items(), key=lambda pair: pair[0] != FUSION):
            self.stdout.write(f"\n[{name}]")
            self.stdout.write(f"{'category':<14}" + "".join(f"{column:>15}" for column in COLUMNS))
            for category, row in scores.table().items():
                cells = "".join(
                    f"{int(row[column]):>15}" if column == "n" else f"{row[column]:>15.3f}"
                    for column in COLUMNS
                )
                self.stdout.write(f"{category:<14}{cells}")
