"""Extraction quality on the hand-labelled user↔assistant set: precision, recall, supersession accuracy.

    manage.py memhq_extraction_eval [--extractor rules|openai] [--recorded FILE] [--cases ID ...]
                                    [--data FILE] [--verbose] [--json out.json] [--keep]

Every case runs through the real seven phases (as its own user, in a fresh project deleted afterwards
unless --keep); the labels, the matching rules and the three figures are defined in
``tooling/extraction_eval.py``. ``--extractor openai`` uses the configured OpenAI-compatible server
(``OPENAI_BASE_URL``, ``OPENAI_MODEL``); with ``--recorded FILE`` it uses instead the local fake server of
the test suite (``tests/fakes/openai_server.py``, the real ``openai`` SDK over HTTP) answering each episode
with the answer recorded for it in FILE (``{"<case id>": [answer for episode 0, ...]}``), and only the
cases that have recorded answers are measured. Needs a database (``config.devservers`` gives one:
``python -m config.devservers --data "$(mktemp -d)" --ephemeral -- sh -c 'python manage.py migrate -v0 &&
python manage.py memhq_extraction_eval'``).
"""

from __future__ import annotations

import json
from argparse import ArgumentParser
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from memhq.ai import provider
from memhq.ai.llm import make_client
from memhq.services.tenancy import project_create
from tooling.extraction_eval import DEFAULT_DATA, BeforeEpisode, Case, Report, evaluate, load_cases

DEFAULT_RECORDED = DEFAULT_DATA.with_name("extraction_labelled_openai.json")


@contextmanager
def extractor_settings(name: str, base_url: str | None = None) -> Iterator[None]:
    """Run with ``MEMHQ_EXTRACTOR`` (and optionally ``OPENAI_BASE_URL``) set, restoring them afterwards."""
    saved = {key: getattr(settings, key) for key in ("MEMHQ_EXTRACTOR", "OPENAI_BASE_URL", "OPENAI_API_KEY")}
    settings.MEMHQ_EXTRACTOR = name
    if base_url is not None:
        settings.OPENAI_BASE_URL = base_url
        settings.OPENAI_API_KEY = settings.OPENAI_API_KEY or "recorded"
    provider.get_extractor.cache_clear()
    make_client.cache_clear()
    try:
        yield
    finally:
        for key, value in saved.items():
            setattr(settings, key, value)
        provider.get_extractor.cache_clear()
        make_client.cache_clear()


def run(cases: list[Case], *, extractor: str, recorded: Path | None = None, keep: bool = False) -> Report:
    """Evaluate ``cases`` with ``extractor`` in a fresh project (deleted afterwards unless ``keep``)."""
    project, _ = project_create(name=f"extraction-eval-{extractor}")
    try:
        if recorded is None:
            with extractor_settings(extractor):
                return evaluate(project, cases)
        from tests.fakes.openai_server import FakeOpenAIServer  # dev tool: the test suite's fake server

        answers: dict[str, list[Any]] = json.loads(recorded.read_text())
        cases = [case for case in cases if case.id in answers]

        with FakeOpenAIServer() as server, extractor_settings(extractor, server.base_url):

            def script(case: Case, position: int) -> None:
                server.answer(answers[case.id][position])

            before: BeforeEpisode = script
            return evaluate(project, cases, before)
    finally:
        if not keep:
            project.delete()


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--extractor", choices=("rules", "openai"), default="rules")
        parser.add_argument(
            "--recorded",
            nargs="?",
            type=Path,
            const=DEFAULT_RECORDED,
            default=None,
            help="openai only: answer from recorded answers through the local fake server",
        )
        parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the labelled set (JSON)")
        parser.add_argument("--cases", nargs="*", default=(), help="only these case ids")
        parser.add_argument("--verbose", action="store_true", help="print misses and unexpected memories")
        parser.add_argument("--json", type=Path, default=None, help="write the figures to this file")
        parser.add_argument("--keep", action="store_true", help="keep the evaluation project afterwards")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["recorded"] is not None and options["extractor"] != "openai":
            raise CommandError("--recorded needs --extractor openai")
        if not options["data"].exists():
            raise CommandError(f"no labelled set at {options['data']}")
        cases = load_cases(options["data"], options["cases"])
        if not cases:
            raise CommandError("no case selected")
        report = run(
            cases, extractor=options["extractor"], recorded=options["recorded"], keep=options["keep"]
        )
        if options["verbose"]:
            for case in report.cases:
                for line in (
                    *(f"  missed: {m}" for m in case.missed),
                    *(f"  unexpected: {u}" for u in case.unexpected),
                    *(f"  check failed: {f}" for f in case.failed_checks),
                ):
                    self.stdout.write(f"{case.id}{line}")
        figures = report.figures()
        self.stdout.write(
            f"extractor {options['extractor']}{' (recorded)' if options['recorded'] else ''}: "
            f"{figures['cases']} cases, {figures['stored']} memories stored, {figures['required']} required, "
            f"{figures['checks']} supersession checks"
        )
        self.stdout.write(
            f"precision {report.precision:.3f}  recall {report.recall:.3f}  "
            f"supersession accuracy {report.supersession_accuracy:.3f}"
        )
        if options["json"] is not None:
            options["json"].write_text(json.dumps(figures, indent=2))
