from __future__ import annotations

import os
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from ingestion.claims import leases, process_start
from ingestion.phases import MODULES, anchor_dates, persist
from ingestion.runner import Claim, _run_claimed, claim_phase, release_phase, run_phase
from memhq.models import Episode, EpisodeMessage, EpisodePhase, Project
from tests.ingestion.helpers import make_episode

MESSAGES = [
    {
        "role": "user",
        "content": "I moved to Lisbon last month.",
        "id": "a1",
        "timestamp": "2023-05-08T13:56:00Z",
    },
    {"role": "assistant", "content": "How do you like it?", "id": "a2"},
    {"role": "user", "content": "Love it. Yesterday I went surfing.", "name": "Sam"},
]


def test_persist_parses_messages_and_leaves_the_raw_body_alone(project: Project) -> None:
    episode = make_episode(project, MESSAGES)
    raw_before = bytes(episode.raw_body)
    assert run_phase(str(episode.pk), EpisodePhase.PERSIST, persist) == Claim.CLAIMED
    rows = list(EpisodeMessage.objects.filter(episode=episode).order_by("index"))
    assert [(row.index, row.caller_id, row.role, row.name) for row in rows] == [
        (0, "a1", "user", ""),
        (1, "a2", "assistant", ""),
        (2, "", "user", "Sam"),
    ]
    assert rows[0].timestamp == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert rows[0].project_id == project.pk and rows[0].user_id == "u1"
    episode.refresh_from_db()
    assert bytes(episode.raw_body) == raw_before
    assert episode.phase_done == EpisodePhase.PERSIST
    assert episode.phase_running is None
    assert episode.status == "running"
    assert "persist" in episode.stats["timings_ms"]


def test_a_phase_that_is_done_is_not_redone(project: Project) -> None:
    episode = make_episode(project, MESSAGES)
    run_phase(str(episode.pk), EpisodePhase.PERSIST, persist)
    assert run_phase(str(episode.pk), EpisodePhase.PERSIST, persist) == Claim.DONE
    assert EpisodeMessage.objects.filter(episode=episode).count() == 3


def test_a_phase_cannot_run_before_the_previous_one(project: Project) -> None:
    episode = make_episode(project, MESSAGES)
    assert run_phase(str(episode.pk), EpisodePhase.ANCHOR_DATES, anchor_dates) == Claim.BUSY
    assert Episode.objects.get(pk=episode.pk).phase_done == 0


def test_a_fresh_claim_held_by_another_worker_is_respected(project: Project) -> None:
    episode = make_episode(project, MESSAGES)
    assert claim_phase(str(episode.pk), EpisodePhase.PERSIST)[0] == Claim.CLAIMED
    other = os.getppid()  # a live process of this host that is not this one: another worker
    Episode.objects.filter(pk=episode.pk).update(claim_pid=other, claim_pid_start=process_start(other))
    assert claim_phase(str(episode.pk), EpisodePhase.PERSIST)[0] == Claim.BUSY


def test_the_claim_returns_the_episode_as_it_left_it(project: Project) -> None:
    """The claim and the read of the episode are one statement (UPDATE … RETURNING)."""
    episode = make_episode(project, MESSAGES)
    with CaptureQueriesContext(connection) as queries:
        claim, token, claimed = claim_phase(str(episode.pk), EpisodePhase.PERSIST)
    assert claim == Claim.CLAIMED and claimed is not None
    assert [q["sql"].split()[0] for q in queries.captured_queries] == ["UPDATE"]
    assert "RETURNING" in queries.captured_queries[0]["sql"]
    stored = Episode.objects.get(pk=episode.pk)
    assert claimed.progressed_at == token == stored.progressed_at
    assert (claimed.phase_running, claimed.status, claimed.attempts) == (EpisodePhase.PERSIST, "running", 1)
    assert claimed.claim_expires_at == stored.claim_expires_at and claimed.raw_body == stored.raw_body
    assert "summary_embedding" in claimed.get_deferred_fields()


def test_a_claim_this_process_holds_while_running_the_phase_is_respected(project: Project) -> None:
    episode = make_episode(project, MESSAGES)
    claim, token, _ = claim_phase(str(episode.pk), EpisodePhase.PERSIST)
    assert claim == Claim.CLAIMED and token is not None
    leases.hold(str(episode.pk), EpisodePhase.PERSIST, token)  # what run_phase does while the phase runs
    try:
        assert claim_phase(str(episode.pk), EpisodePhase.PERSIST)[0] == Claim.BUSY
    finally:
        leases.release(str(episode.pk), EpisodePhase.PERSIST, token)


def test_a_claim_of_this_process_it_could_not_give_back_is_taken_over_at_once(project: Project) -> None:
    """An attempt failed while the database was away, so its release failed too: its retry, in the same
    process, must not find its own claim busy (it waited for the lease and the sweep)."""
    episode = make_episode(project, MESSAGES)
    assert claim_phase(str(episode.pk), EpisodePhase.PERSIST)[0] == Claim.CLAIMED  # never released
    assert claim_phase(str(episode.pk), EpisodePhase.PERSIST)[0] == Claim.CLAIMED
    assert Episode.objects.get(pk=episode.pk).attempts == 2


def test_a_claim_whose_lease_ran_out_can_be_taken_over(project: Project, settings: object) -> None:
    episode = make_episode(project, MESSAGES)
    settings.MEMHQ_CLAIM_LEASE_S = -1  # type: ignore[attr-defined]
    assert claim_phase(str(episode.pk), EpisodePhase.PERSIST)[0] == Claim.CLAIMED
    settings.MEMHQ_CLAIM_LEASE_S = 30  # type: ignore[attr-defined]
    assert claim_phase(str(episode.pk), EpisodePhase.PERSIST)[0] == Claim.CLAIMED
    assert Episode.objects.get(pk=episode.pk).attempts == 2


def test_a_deleted_episode_is_gone(project: Project) -> None:
    episode = make_episode(project, MESSAGES)
    episode_id = str(episode.pk)
    episode.delete()
    assert claim_phase(episode_id, EpisodePhase.PERSIST)[0] == Claim.GONE


def test_anchor_dates_uses_message_then_episode_timestamp_and_resolves_expressions(project: Project) -> None:
    episode = make_episode(project, MESSAGES, timestamp="2023-06-01T09:00:00")
    run_phase(str(episode.pk), EpisodePhase.PERSIST, persist)
    run_phase(str(episode.pk), EpisodePhase.ANCHOR_DATES, anchor_dates)
    rows = list(EpisodeMessage.objects.filter(episode=episode).order_by("index"))
    assert rows[0].document_date == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert rows[1].document_date == datetime(2023, 6, 1, 9, 0, tzinfo=UTC)  # naive → UTC
    (last_month,) = rows[0].time_mentions
    assert last_month["text"] == "last month"
    assert last_month["start"].startswith("2023-04-01")
    assert last_month["granularity"] == "month"
    (yesterday,) = rows[2].time_mentions
    assert yesterday["text"].lower() == "yesterday"
    assert yesterday["start"].startswith("2023-05-31")


def test_anchor_dates_falls_back_to_the_time_received(project: Project) -> None:
    episode = make_episode(project, [{"role": "user", "content": "hello there"}])
    run_phase(str(episode.pk), EpisodePhase.PERSIST, persist)
    run_phase(str(episode.pk), EpisodePhase.ANCHOR_DATES, anchor_dates)
    assert EpisodeMessage.objects.get(episode=episode).document_date == episode.received_at


def test_a_worker_never_stores_into_a_claim_taken_over_by_another(project: Project, settings: object) -> None:
    episode = make_episode(project, MESSAGES)
    settings.MEMHQ_CLAIM_LEASE_S = -1  # type: ignore[attr-defined]
    _, first, _ = claim_phase(str(episode.pk), EpisodePhase.PERSIST)
    _, second, _ = claim_phase(str(episode.pk), EpisodePhase.PERSIST)  # a second worker takes the stale claim
    assert first is not None and second is not None and first != second
    release_phase(str(episode.pk), EpisodePhase.PERSIST, first)  # the first worker's release is a no-op
    assert Episode.objects.get(pk=episode.pk).phase_running == EpisodePhase.PERSIST


def test_a_store_that_collides_with_the_new_holders_writes_is_a_lost_claim_not_a_failure(
    project: Project, settings: object
) -> None:
    """The claim is checked by the "done" update, after the store: a worker whose claim was taken over
    while it computed fails in its store (the messages the new holder inserted) and must step aside."""
    episode = make_episode(project, MESSAGES)
    settings.MEMHQ_CLAIM_LEASE_S = -1  # type: ignore[attr-defined]
    _, first, _ = claim_phase(str(episode.pk), EpisodePhase.PERSIST)
    assert first is not None
    assert run_phase(str(episode.pk), EpisodePhase.PERSIST, persist) == Claim.CLAIMED  # took it over
    assert _run_claimed(str(episode.pk), EpisodePhase.PERSIST, persist, first) == Claim.BUSY
    episode.refresh_from_db()
    assert (episode.status, episode.phase_done) == ("running", EpisodePhase.PERSIST)
    assert EpisodeMessage.objects.filter(episode=episode).count() == len(MESSAGES)


def test_the_sweep_never_takes_a_claim_made_after_it_read_the_episode(
    project: Project, settings: object
) -> None:
    from ingestion.sweeps import outbox_sweep

    episode = make_episode(project, MESSAGES)
    Episode.objects.filter(pk=episode.pk).update(
        progressed_at=timezone.now() - timedelta(hours=1), publish_from=None
    )
    settings.MEMHQ_STALL_TIMEOUT_S = 60  # type: ignore[attr-defined]
    original = Episode.objects.filter

    def claim_in_between(*args: object, **kwargs: object) -> object:
        result = original(*args, **kwargs)
        if "progressed_at" in kwargs:  # the sweep's conditional update: a worker claims just before it
            claim_phase(str(episode.pk), EpisodePhase.PERSIST)
        return result

    from unittest import mock

    with mock.patch.object(Episode.objects, "filter", side_effect=claim_in_between):
        assert outbox_sweep() == 0
    assert Episode.objects.get(pk=episode.pk).phase_running == EpisodePhase.PERSIST


ASYNC = "set_config('synchronous_commit'"


def _updates_of_episode(run: Callable[[], object]) -> list[str]:
    """The UPDATE statements on the episode row that ``run`` sends (the claim, the "done" update)."""
    with CaptureQueriesContext(connection) as queries:
        run()
    return [q["sql"] for q in queries.captured_queries if q["sql"].startswith('UPDATE "memhq_episode"')]


def test_a_phase_claims_and_records_without_waiting_for_the_disk(project: Project) -> None:
    episode = make_episode(project, MESSAGES)
    updates = _updates_of_episode(lambda: run_phase(str(episode.pk), EpisodePhase.PERSIST, persist))
    assert len(updates) == 2 and all(ASYNC in sql for sql in updates)  # the claim, then "done"
    with connection.cursor() as cursor:  # the setting holds for the rest of the transaction it was set in
        cursor.execute("SELECT current_setting('synchronous_commit')")
        assert cursor.fetchone()[0] == "off"


def test_phases_commit_durably_when_the_setting_is_off(project: Project, settings: object) -> None:
    settings.MEMHQ_PHASE_ASYNC_COMMIT = False  # type: ignore[attr-defined]
    episode = make_episode(project, MESSAGES)
    updates = _updates_of_episode(lambda: run_phase(str(episode.pk), EpisodePhase.PERSIST, persist))
    assert len(updates) == 2 and not any(ASYNC in sql for sql in updates)


def test_the_completion_commits_durably(project: Project) -> None:
    episode = make_episode(project, MESSAGES)
    for phase, module in list(MODULES.items())[:-1]:
        assert run_phase(str(episode.pk), phase, module) == Claim.CLAIMED
    updates = _updates_of_episode(
        lambda: run_phase(str(episode.pk), EpisodePhase.NOTIFY, MODULES[EpisodePhase.NOTIFY])
    )
    assert len(updates) == 2 and not any(ASYNC in sql for sql in updates)
    assert Episode.objects.get(pk=episode.pk).status == "completed"
