"""Retrieval evaluation: ingest a data set through the real phases, ask its questions, score provenance.

    manage.py memhq_eval --data ../shared/eval/locomo-dev [--conversations N|ID,ID] [--folds K --fold I
        [--train]] [--signals] [--json out.json] [--save-rows rows.pkl.gz] [--set NAME=VALUE ...]
    manage.py memhq_eval --data ... --keep --project NAME, later --data ... --project NAME --reuse
    manage.py memhq_eval --from-rows rows.pkl.gz [--folds K --fold I [--train]] [--set NAME=VALUE ...]
    manage.py memhq_eval --compare BEFORE.json AFTER.json

The data format and the metrics are described in ``../shared/eval/README.md``; the options in
docs/evaluation.md. A run uses a fresh project, deleted afterwards unless --keep is given. --from-rows and
--compare need no database.
"""

from __future__ import annotations

import json
from argparse import ArgumentParser
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from retrieval import config as retrieval_config
from retrieval.config import RetrievalConfig
from tooling.evaluation import compare, overrides, replay, rows, selection, tuning
from tooling.evaluation.runner import FUSION, EvalReport, evaluate

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
        parser.add_argument("--data", type=Path, help="folder with episodes.jsonl and queries.jsonl")
        parser.add_argument(
            "--conversations", default=None, help="N (the first N) or comma-separated conversation ids"
        )
        parser.add_argument("--folds", type=int, default=None, help="split the conversations into K folds")
        parser.add_argument("--fold", type=int, default=None, help="evaluate fold I (0-based) of --folds")
        parser.add_argument("--train", action="store_true", help="evaluate every fold except --fold")
        parser.add_argument("--signals", action="store_true", help="also score each signal alone")
        parser.add_argument("--json", type=Path, default=None, help="write the figures to this file")
        parser.add_argument("--keep", action="store_true", help="keep the evaluation project afterwards")
        parser.add_argument("--project", default=None, help="name the evaluation project (with --keep)")
        parser.add_argument(
            "--reuse", action="store_true", help="ask again in the kept --project, without ingesting"
        )
        parser.add_argument("--save-rows", type=Path, default=None, help="save each question's signal rows")
        parser.add_argument("--from-rows", type=Path, default=None, help="re-score saved rows (no ingest)")
        parser.add_argument(
            "--set", action="append", default=[], metavar="NAME=VALUE", help="a fusion setting for this run"
        )
        parser.add_argument(
            "--grid", action="append", default=[], metavar="NAME=V1,V2", help="cross-validate these values"
        )
        parser.add_argument("--objective", default="frac@10", help="what --grid maximises (all questions)")
        parser.add_argument(
            "--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"), help="compare two --json reports"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["compare"]:
            self.compare(*options["compare"])
            return
        try:
            config = overrides.apply(retrieval_config.current(), options["set"]) if options["set"] else None
            if options["grid"]:
                report, extra = self.tune(options, config or retrieval_config.current())
            else:
                run = self.replay if options["from_rows"] else self.evaluate
                report, extra = run(options, config), {}
        except (selection.SelectionError, overrides.OverrideError, rows.RowsFileError) as error:
            raise CommandError(str(error)) from error
        self.print_report(report)
        if options["json"]:
            options["json"].write_text(json.dumps({**report.as_json(), **extra}, indent=2))

    def select(self, order: list[str], options: dict[str, Any]) -> list[str]:
        chosen = selection.select(
            order, options["conversations"], options["folds"], options["fold"], train=options["train"]
        )
        self.stdout.write(f"conversations: {', '.join(chosen)}")
        return chosen

    def evaluate(self, options: dict[str, Any], config: RetrievalConfig | None) -> EvalReport:
        if options["reuse"] and not options["project"]:
            raise CommandError("--reuse asks again in a kept project: name it with --project")
        data: Path | None = options["data"]
        if data is None or not (data / "episodes.jsonl").exists() or not (data / "queries.jsonl").exists():
            raise CommandError("--data must be a folder holding episodes.jsonl and queries.jsonl")
        conversations = self.select(selection.conversation_order(data), options)
        bars: list[tqdm[Any]] = []

        def progress(total: int, label: str) -> Callable[[], None]:
            bar = tqdm(total=total, desc=label, unit="item", file=self.stderr._out, leave=True)
            bars.append(bar)
            return lambda: bar.update(1)

        report = evaluate(
            data,
            conversations=conversations,
            signals=options["signals"],
            keep=options["keep"],
            progress_factory=progress,
            config=config,
            save_rows=options["save_rows"],
            project_name=options["project"],
            reuse=options["reuse"],
        )
        for bar in bars:
            bar.close()
        return report

    def replay(self, options: dict[str, Any], config: RetrievalConfig | None) -> EvalReport:
        if options["save_rows"] or options["data"]:
            raise CommandError("--from-rows replays saved rows: --data and --save-rows do not apply")
        saved = rows.read_rows(options["from_rows"])
        conversations = self.select(saved.conversations, options)
        return replay.replay(saved, set(conversations), signals=options["signals"], config=config)

    def tune(self, options: dict[str, Any], base: RetrievalConfig) -> tuple[EvalReport, dict[str, Any]]:
        if not options["from_rows"] or options["folds"] is None:
            raise CommandError("--grid needs --from-rows and --folds K")
        if options["fold"] is not None or options["train"] or options["data"]:
            raise CommandError("--grid chooses on each fold in turn: --fold, --train and --data do not apply")
        saved = rows.read_rows(options["from_rows"])
        conversations = self.select(saved.conversations, {**options, "folds": None})
        grid = tuning.candidates(saved, conversations, base, options["grid"])
        result = tuning.cross_validate(saved, conversations, grid, options["folds"], options["objective"])
        for line in tuning.describe(result):
            self.stdout.write(line)
        pooled = result.scores
        report = EvalReport(scores={FUSION: pooled}, questions=len(pooled.questions))
        report.conversations, report.config = conversations, base
        extra = {"cross_validation": tuning.as_json(result, options["grid"])}
        return report, extra

    def compare(self, before: Path, after: Path) -> None:
        try:
            result = compare.compare(compare.load_rows(before), compare.load_rows(after))
        except compare.CompareError as error:
            raise CommandError(str(error)) from error
        self.stdout.write(f"BEFORE {before}\nAFTER  {after}")
        for line in compare.format_comparison(result):
            self.stdout.write(line)

    def print_report(self, report: EvalReport) -> None:
        summary = report.as_json()
        ingested = (
            f"{report.episodes} episodes ({report.failed_episodes} failed) ingested in "
            f"{report.ingest_seconds:.1f}s"
            if report.episodes
            else "from saved rows"
        )
        self.stdout.write(
            f"\n{ingested}; {report.questions} questions in {report.query_seconds:.1f}s; "
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
