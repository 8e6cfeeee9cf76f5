"""Ingest an evaluation set through the real phases, ask its questions, score the answers' provenance."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from ingestion.pipeline import run_inline
from memhq.models import Episode, Project
from memhq.services.episodes import episode_create
from retrieval import config as retrieval_config
from retrieval.config import RetrievalConfig
from retrieval.items import Item, item_from_row
from retrieval.query import signal_names
from retrieval.recall import DEFAULT_LIMIT, DEFAULT_MAX_TOKENS, RecallResult, assemble, fetch
from tooling.evaluation.dataset import EvalEpisode, EvalQuery, load_episodes, load_queries
from tooling.evaluation.metrics import MESSAGE_KS, Scores
from tooling.evaluation.rows import Packed, SavedRows, pack, write_rows

FUSION = "fusion"
#: Enough items per signal for @20 metrics when a signal is scored alone.
PER_SIGNAL_DEPTH = max(MESSAGE_KS)


@dataclass
class EvalReport:
    scores: dict[str, Scores] = field(default_factory=dict)  # "fusion" and, with --signals, one per signal
    ingest_seconds: float = 0.0
    query_seconds: float = 0.0
    episodes: int = 0
    questions: int = 0
    failed_episodes: int = 0
    conversations: list[str] = field(default_factory=list)
    config: RetrievalConfig | None = None  # None: the settings' fusion

    def fusion(self) -> dict[str, Any]:
        return asdict(self.config or retrieval_config.current())

    def as_json(self) -> dict[str, Any]:
        return {
            "conversations": self.conversations,
            "retrieval_config": self.fusion(),
            "episodes": self.episodes,
            "failed_episodes": self.failed_episodes,
            "questions": self.questions,
            "ingest_seconds": round(self.ingest_seconds, 1),
            "query_seconds": round(self.query_seconds, 1),
            "median_context_tokens": self.scores[FUSION].median_context_tokens(),
            "tables": {name: scores.table() for name, scores in self.scores.items()},
            "per_question": {name: scores.questions for name, scores in self.scores.items()},
        }


def ingest(project: Project, episodes: Iterable[EvalEpisode], progress: Callable[[], None]) -> dict[str, str]:
    """Each conversation is its own user; sessions in order. Returns our episode id → dataset episode id."""
    mapping: dict[str, str] = {}
    for item in episodes:
        raw = json.dumps(item.body).encode()
        episode = episode_create(project=project, user_id=item.conv_id, raw_body=raw).episode
        mapping[str(episode.pk)] = item.episode_id
        run_inline(episode.pk)
        progress()
    return mapping


def ingested(project: Project) -> dict[str, str]:
    """What :func:`ingest` returned for a kept project, read back from its episodes' bodies."""
    return {
        str(pk): json.loads(bytes(raw))["metadata"]["episode_id"]
        for pk, raw in Episode.objects.filter(project=project).values_list("pk", "raw_body")
    }


def provenance(items: list[Item], episode_ids: dict[str, str]) -> tuple[list[str], list[str]]:
    """Items in rank order → (message ids, dataset episode ids), each in order of first appearance."""
    messages = [message_id for item in items for message_id in item.message_ids]
    sessions = [
        episode_ids[episode] for item in items for episode in item.episode_ids if episode in episode_ids
    ]
    return messages, sessions


def per_signal_items(rows: list[dict[str, Any]]) -> dict[str, list[Item]]:
    ranked: dict[str, list[Item]] = {}
    for row in sorted((row for row in rows if row["signal"]), key=lambda row: (row["signal"], row["rank"])):
        ranked.setdefault(row["signal"], []).append(item_from_row(row))
    return ranked


#: Other fusions scored beside the configured one with --signals: (name, score_share, rrf_k).
FUSION_VARIANTS = (("fusion (rrf k=60)", 0.0, 60), ("fusion (scores only)", 1.0, 60))


def answer(
    rows: list[dict[str, Any]], query: EvalQuery, config: RetrievalConfig | None = None
) -> RecallResult:
    """What recall answers ``query`` with, from its signals' ``rows`` (``config``: the settings' fusion)."""
    return assemble(
        rows,
        as_of=query.question_time,
        limit=DEFAULT_LIMIT,
        max_tokens=DEFAULT_MAX_TOKENS,
        kinds=None,
        query_text=query.question,
        config=config,
    )


def other_fusions(
    rows: list[dict[str, Any]], query: EvalQuery, config: RetrievalConfig | None = None
) -> dict[str, list[Item]]:
    """The same rows fused as plain RRF and as normalised scores alone, to compare with the configured."""
    configured = config or retrieval_config.current()
    return {
        name: answer(rows, query, replace(configured, score_share=share, rrf_k=k)).items
        for name, share, k in FUSION_VARIANTS
    }


def score(
    report: EvalReport,
    rows: list[dict[str, Any]],
    query: EvalQuery,
    episode_ids: dict[str, str],
    *,
    signals: bool,
    config: RetrievalConfig | None = None,
) -> None:
    """Fuse one question's signal rows (``config``: the settings' fusion) and score the answer's
    provenance; with ``signals`` also each signal alone and the other fusions."""
    if signals:  # every signal is scored on every question, including those before it first fires
        for name in signal_names():
            report.scores.setdefault(name, Scores())
    result = answer(rows, query, config)
    outputs = {FUSION: result.items}
    if signals:
        outputs.update(per_signal_items(rows))
        outputs.update(other_fusions(rows, query, config))
    for name, items in outputs.items():
        messages, sessions = provenance(items[:PER_SIGNAL_DEPTH], episode_ids)
        report.scores.setdefault(name, Scores()).add(
            query.category,
            messages,
            sessions,
            query.gold_messages,
            query.gold_episodes,
            result.context_tokens if name == FUSION else None,
            qid=query.qid,
        )
    if signals:  # a signal that found nothing for this question still counts, with zeros
        for name, scores in report.scores.items():
            if name not in outputs:
                scores.add(query.category, [], [], query.gold_messages, query.gold_episodes, qid=query.qid)


def ask(
    project: Project,
    queries: Iterable[EvalQuery],
    episode_ids: dict[str, str],
    report: EvalReport,
    *,
    signals: bool,
    progress: Callable[[], None],
    config: RetrievalConfig | None = None,
    saved: dict[str, Packed] | None = None,
) -> None:
    """Ask every question through recall's fetch and score it; ``saved`` collects the rows per qid."""
    strings: dict[str, str] = {}
    for query in queries:
        rows = fetch(
            project_id=project.pk,
            user_id=query.conv_id,
            query_text=query.question,
            as_of=query.question_time,
            history=False,
            config=config,
        )
        if saved is not None:
            saved[query.qid] = pack(rows, strings)
        score(report, rows, query, episode_ids, signals=signals, config=config)
        progress()


def evaluate(
    data: Path,
    *,
    conversations: list[str],
    signals: bool,
    keep: bool,
    progress_factory: Callable[[int, str], Callable[[], None]],
    config: RetrievalConfig | None = None,
    save_rows: Path | None = None,
    project_name: str | None = None,
    reuse: bool = False,
) -> EvalReport:
    """Ingest ``conversations`` (ids, in file order) into a fresh project, ask their questions, score.
    ``save_rows``: also write every question's signal rows there (``tooling.evaluation.replay``).
    ``reuse``: ask again in the project named ``project_name``, kept by an earlier run, without ingesting
    (to measure a change on the query side)."""
    episodes = load_episodes(data, set(conversations))
    queries = load_queries(data, set(conversations))
    if reuse:
        project = Project.objects.get(name=project_name)
        keep = True
    else:
        project = Project.objects.create(name=project_name or f"memhq-eval-{uuid.uuid4().hex[:8]}")
    report = EvalReport(
        episodes=len(episodes), questions=len(queries), conversations=list(conversations), config=config
    )
    saved: dict[str, Packed] | None = {} if save_rows else None
    try:
        started = time.perf_counter()
        if reuse:
            mapping = ingested(project)
        else:
            mapping = ingest(project, episodes, progress_factory(len(episodes), "ingest"))
        report.ingest_seconds = time.perf_counter() - started
        report.failed_episodes = Episode.objects.filter(project=project, status="failed").count()
        started = time.perf_counter()
        ask(
            project,
            queries,
            mapping,
            report,
            signals=signals,
            progress=progress_factory(len(queries), "recall"),
            config=config,
            saved=saved,
        )
        report.query_seconds = time.perf_counter() - started
        if save_rows and saved is not None:
            write_rows(save_rows, SavedRows(str(data), list(conversations), queries, mapping, saved))
    finally:
        if not keep:
            project.delete()
    report.scores.setdefault(FUSION, Scores())
    return report
