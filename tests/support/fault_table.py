"""The fault suite's report: after the run, one table of scenario, pass criterion, trials and result.

A fault test is one under tests/faults/ or one marked ``@pytest.mark.fault`` elsewhere (the webhook
receiver scenarios live beside the webhook tests). A plugin of the root conftest, so it sees both. The
scenario is the first sentence of the test module's docstring, the criterion the test's name (each
names what must hold), trials what the test recorded with ``record_property("trials", n)`` (1 when it did
not say). ``make faults`` prints it; inside ``make test`` it is printed for the fault tests that ran."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

import pytest

SCENARIO_CHARS = 60
CRITERION_CHARS = 70


@dataclass
class Row:
    scenario: str
    criterion: str
    trials: str
    result: str
    seconds: float


_rows: dict[str, Row] = {}


def _scenario(item_module: object) -> str:
    doc = " ".join((getattr(item_module, "__doc__", None) or "").split())
    first = doc.split(". ")[0].rstrip(".")
    return textwrap.shorten(first, SCENARIO_CHARS, placeholder="…") or "?"


def _criterion(name: str) -> str:
    words = name.removeprefix("test_").replace("_", " ")
    return textwrap.shorten(words, CRITERION_CHARS, placeholder="…")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test under tests/faults/ is a fault test (``-m fault`` selects the whole suite)."""
    for item in items:
        if "/faults/" in str(item.fspath):
            item.add_marker(pytest.mark.fault)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> object:
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    if item.get_closest_marker("fault") is None:
        return
    row = _rows.setdefault(
        item.nodeid, Row(_scenario(getattr(item, "module", None)), _criterion(item.name), "1", "", 0.0)
    )
    trials = dict(item.user_properties).get("trials")
    if trials is not None:
        row.trials = str(trials)
    row.seconds += report.duration
    if report.failed:
        row.result = "FAILED"
    elif report.skipped and not row.result:
        row.result = "skipped"
    elif report.when == "call" and not row.result:
        row.result = "passed"


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not _rows:
        return
    header = ("scenario", "pass criterion", "trials", "result", "s")
    cells = ((r.scenario, r.criterion, r.trials, r.result or "?", f"{r.seconds:.0f}") for r in _rows.values())
    lines = [header, *cells]
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    terminalreporter.section("fault suite")
    for line in lines:
        padded = (cell.ljust(width) for cell, width in zip(line, widths, strict=True))
        terminalreporter.write_line("  ".join(padded))
