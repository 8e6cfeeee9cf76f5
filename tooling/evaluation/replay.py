"""Re-score a run from its saved signal rows (``tooling.evaluation.rows``): fusion only, no database."""

from __future__ import annotations

import time
from collections.abc import Callable, Collection

from retrieval.config import RetrievalConfig
from tooling.evaluation.metrics import Scores
from tooling.evaluation.rows import SavedRows
from tooling.evaluation.runner import FUSION, EvalReport, score


def replay(
    saved: SavedRows,
    conversations: Collection[str],
    *,
    signals: bool,
    config: RetrievalConfig | None,
    progress: Callable[[], None] = lambda: None,
) -> EvalReport:
    """Score the saved questions of ``conversations`` with ``config`` (None: the settings' fusion)."""
    queries = [query for query in saved.queries if query.conv_id in conversations]
    kept = [conv_id for conv_id in saved.conversations if conv_id in conversations]
    report = EvalReport(questions=len(queries), conversations=kept, config=config)
    started = time.perf_counter()
    for query in queries:
        rows = saved.question_rows(query.qid)
        score(report, rows, query, saved.episode_ids, signals=signals, config=config)
        progress()
    report.query_seconds = time.perf_counter() - started
    report.scores.setdefault(FUSION, Scores())
    return report
