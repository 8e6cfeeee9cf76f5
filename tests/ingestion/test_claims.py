"""A claim names its holder: a dead holder on this host loses it at once, a live one keeps it, a holder on
another host keeps it until its lease runs out, and a running phase renews its lease."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from typing import Any

from ingestion.claims import LeaseKeeper, current_holder, holder_is_dead, process_start
from ingestion.runner import Claim, claim_phase
from memhq.models import Episode, EpisodePhase, Project
from tests.ingestion.helpers import make_episode

MESSAGES = [{"role": "user", "content": "I live in Oslo."}]


def dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_a_claim_records_this_process_as_its_holder_with_a_lease(project: Project, settings: Any) -> None:
    episode = make_episode(project, MESSAGES)
    assert claim_phase(str(episode.pk), EpisodePhase.PERSIST)[0] == Claim.CLAIMED
    row = Episode.objects.get(pk=episode.pk)
    me = current_holder()
    assert (row.claim_host, row.claim_pid, row.claim_pid_start) == (me.host, os.getpid(), me.started)
    assert row.claim_expires_at is not None and row.progressed_at is not None
    assert row.claim_expires_at > row.progressed_at


def test_a_claim_held_by_a_dead_process_on_this_host_is_taken_over_at_once(project: Project) -> None:
    episode = make_episode(project, MESSAGES)
    claim_phase(str(episode.pk), EpisodePhase.PERSIST)
    Episode.objects.filter(pk=episode.pk).update(claim_pid=dead_pid())
    assert claim_phase(str(episode.pk), EpisodePhase.PERSIST)[0] == Claim.CLAIMED
    row = Episode.objects.get(pk=episode.pk)
    assert (row.claim_pid, row.attempts) == (os.getpid(), 2)


def test_a_claim_held_by_a_live_process_is_respected(project: Project) -> None:
    episode = make_episode(project, MESSAGES)
    claim_phase(str(episode.pk), EpisodePhase.PERSIST)
    other = os.getppid()  # a live process of this host (a claim of this process it no longer runs is stale)
    Episode.objects.filter(pk=episode.pk).update(claim_pid=other, claim_pid_start=process_start(other))
    assert claim_phase(str(episode.pk), EpisodePhase.PERSIST)[0] == Claim.BUSY


def test_a_recycled_pid_is_not_mistaken_for_the_holder(project: Project) -> None:
    episode = make_episode(project, MESSAGES)
    claim_phase(str(episode.pk), EpisodePhase.PERSIST)
    started = process_start(os.getpid())
    assert started is not None
    Episode.objects.filter(pk=episode.pk).update(claim_pid_start=started - 1)  # "an earlier process"
    assert claim_phase(str(episode.pk), EpisodePhase.PERSIST)[0] == Claim.CLAIMED


def test_a_claim_held_on_another_host_waits_for_its_lease(project: Project, settings: Any) -> None:
    episode = make_episode(project, MESSAGES)
    claim_phase(str(episode.pk), EpisodePhase.PERSIST)
    Episode.objects.filter(pk=episode.pk).update(claim_host="another-host", claim_pid=dead_pid())
    assert claim_phase(str(episode.pk), EpisodePhase.PERSIST)[0] == Claim.BUSY
    assert not holder_is_dead("another-host", dead_pid(), None)


def test_the_lease_keeper_renews_the_leases_of_running_phases(
    transactional_db: None, project: Project, settings: Any
) -> None:
    settings.MEMHQ_CLAIM_LEASE_S = 0.6  # renewed every 0.2 s
    episode = make_episode(project, MESSAGES)
    _, token, _ = claim_phase(str(episode.pk), EpisodePhase.PERSIST)
    assert token is not None
    first = Episode.objects.get(pk=episode.pk).claim_expires_at
    keeper = LeaseKeeper()
    keeper.hold(str(episode.pk), EpisodePhase.PERSIST, token)
    time.sleep(1.0)
    renewed = Episode.objects.get(pk=episode.pk).claim_expires_at
    keeper.release(str(episode.pk), EpisodePhase.PERSIST, token)
    assert first is not None and renewed is not None and renewed > first
    # Still held after longer than one lease: another worker would find it BUSY, not stale.
    other = os.getppid()
    Episode.objects.filter(pk=episode.pk).update(claim_pid=other, claim_pid_start=process_start(other))
    assert claim_phase(str(episode.pk), EpisodePhase.PERSIST)[0] == Claim.BUSY
