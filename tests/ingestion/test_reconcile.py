"""Reconciliation scenarios through the real phases (run in-process, in order)."""

from __future__ import annotations

from typing import Any

from ingestion.phases import MODULES
from ingestion.phases.reconcile import CONFIDENCE_FLOOR
from ingestion.pipeline import run_inline
from ingestion.runner import run_phase
from memhq.models import Batch, Candidate, Entity, EpisodePhase, Evidence, JournalEntry, Memory, Project
from tests.ingestion.helpers import make_episode, run_tasks


def ingest(project: Project, content: str, timestamp: str, user_id: str = "u1", **message: Any) -> Any:
    episode = make_episode(
        project, [{"role": "user", "content": content, **message}], user_id=user_id, timestamp=timestamp
    )
    run_inline(episode.pk)
    episode.refresh_from_db()
    assert episode.status == "completed", episode.error
    return episode


def active(project: Project, predicate: str) -> list[str]:
    return sorted(
        Memory.objects.filter(project=project, predicate=predicate, status="active").values_list(
            "object_value", flat=True
        )
    )


def test_a_relocation_supersedes_the_old_city_from_the_anchored_date(project: Project) -> None:
    ingest(project, "I live in Berlin.", "2023-01-10T10:00:00Z")
    ingest(project, "I moved to Lisbon last month.", "2023-05-08T10:00:00Z")
    assert active(project, "lives_in") == ["Lisbon"]
    berlin = Memory.objects.get(object_value="Berlin")
    lisbon = Memory.objects.get(object_value="Lisbon")
    assert (berlin.status, berlin.valid_until, berlin.superseded_by_id) == (
        "superseded",
        lisbon.valid_from,
        lisbon.pk,
    )
    assert berlin.expired_at is not None


def test_a_pivot_supersedes_what_the_user_works_on(project: Project) -> None:
    ingest(project, "I work on B2B SaaS.", "2023-01-10T10:00:00Z")
    ingest(project, "We recently pivoted to B2C.", "2023-03-10T10:00:00Z")
    assert active(project, "works_on") == ["B2C"]
    assert Memory.objects.get(object_value="B2B SaaS").status == "superseded"


def test_the_same_fact_twice_is_reinforced_not_duplicated(project: Project) -> None:
    ingest(project, "I am allergic to peanuts.", "2023-01-10T10:00:00Z", id="a")
    second = ingest(project, "I'm allergic to peanuts.", "2023-02-10T10:00:00Z", id="b")
    memory = Memory.objects.get(predicate="allergic_to")
    assert memory.reinforce_count == 1
    assert memory.confidence > Candidate.objects.filter(memory=memory).first().confidence  # type: ignore[union-attr]
    assert memory.last_seen_at.month == 2
    assert Candidate.objects.get(episode=second).decision == "reinforce"
    assert sorted(Evidence.objects.filter(memory=memory).values_list("caller_message_ids", flat=True)) == [
        ["a"],
        ["b"],
    ]


def test_the_same_statement_with_other_numbers_is_a_changed_value(project: Project) -> None:
    # One vector for both claims (cosine above the reinforcement threshold), two values: the later one
    # replaces the earlier, which stays as history.
    ingest(project, "My service runs on Python 3.9 in production.", "2023-01-10T10:00:00Z")
    second = ingest(project, "My service runs on Python 3.10 in production.", "2023-04-10T10:00:00Z")
    old = Memory.objects.get(project=project, text__contains="3.9")
    new = Memory.objects.get(project=project, text__contains="3.10")
    assert (old.status, old.superseded_by_id, old.valid_until) == ("superseded", new.pk, new.valid_from)
    assert new.status == "active"
    decided = Candidate.objects.get(episode=second)
    assert (decided.decision, decided.reason) == ("supersede", f"a number changed; replaces {old.pk}")
    # The same number said again is the same fact.
    third = ingest(project, "My service runs on Python 3.10 in production.", "2023-05-10T10:00:00Z")
    assert Candidate.objects.get(episode=third).decision == "reinforce"


def test_a_moved_date_is_a_changed_value(project: Project) -> None:
    # "on 1 March 2027" is one value (the parse leaves the object empty: the date is only in the claim).
    ingest(project, "My thesis deadline is March 1, 2027.", "2026-02-02T08:00:00Z")
    ingest(project, "My thesis deadline is April 15, 2027.", "2026-02-20T08:00:00Z")
    deadlines = {m.status: m.text for m in Memory.objects.filter(project=project, text__contains="deadline")}
    assert "March" in deadlines["superseded"] and "April" in deadlines["active"], deadlines


def test_an_event_with_other_numbers_is_another_event(project: Project) -> None:
    ingest(project, "I ran 5 km this morning.", "2023-01-10T10:00:00Z")
    ingest(project, "I ran 8 km this morning.", "2023-01-17T10:00:00Z")
    runs = Memory.objects.filter(project=project, text__contains=" km")
    assert sorted((memory.kind, memory.status) for memory in runs) == [("event", "active")] * 2, [
        memory.text for memory in runs
    ]


def test_a_statement_with_several_other_numbers_is_about_another_thing(project: Project) -> None:
    ingest(project, "I'm stuck on the equation 2x + 3 = 7.", "2023-01-10T10:00:00Z")
    ingest(project, "I'm stuck on the equation 5x + 1 = 11.", "2023-01-17T10:00:00Z")
    stuck = Memory.objects.filter(project=project, text__contains="equation")
    assert sorted(memory.status for memory in stuck) == ["active", "active"], [m.text for m in stuck]


def test_episodes_processed_out_of_order_still_end_right(project: Project) -> None:
    ingest(project, "I moved to Lisbon last month.", "2023-05-08T10:00:00Z")
    ingest(project, "I live in Berlin.", "2023-01-10T10:00:00Z")  # older news arriving late
    assert active(project, "lives_in") == ["Lisbon"]
    berlin = Memory.objects.get(object_value="Berlin")
    lisbon = Memory.objects.get(object_value="Lisbon")
    assert berlin.status == "superseded"
    assert berlin.valid_until == lisbon.valid_from
    assert berlin.superseded_by_id == lisbon.pk


def test_users_never_share_memories(project: Project) -> None:
    ingest(project, "I live in Berlin.", "2023-01-10T10:00:00Z", user_id="a")
    ingest(project, "I moved to Lisbon last month.", "2023-05-08T10:00:00Z", user_id="b")
    assert Memory.objects.get(user_id="a").status == "active"
    assert Memory.objects.get(user_id="b").status == "active"


def test_every_write_is_journaled_in_the_episode_batch(project: Project) -> None:
    ingest(project, "I live in Berlin.", "2023-01-10T10:00:00Z")
    second = ingest(project, "I moved to Lisbon last month.", "2023-05-08T10:00:00Z")
    batch = Batch.objects.get(episode=second)
    entries = list(JournalEntry.objects.filter(batch=batch).values_list("op", "table"))
    assert ("insert", "memhq_memory") in entries
    assert ("insert", "memhq_evidence") in entries
    update = JournalEntry.objects.get(batch=batch, op="update", table="memhq_memory")
    assert update.before["status"] == "active" and update.after["status"] == "superseded"  # type: ignore[index]


def test_candidates_below_the_confidence_floor_are_rejected_with_a_reason(project: Project) -> None:
    episode = make_episode(project, [{"role": "user", "content": "I live in Madrid."}])
    for phase in (EpisodePhase.PERSIST, EpisodePhase.ANCHOR_DATES, EpisodePhase.EXTRACT):
        run_phase(str(episode.pk), phase, MODULES[phase])
    Candidate.objects.filter(episode=episode).update(confidence=CONFIDENCE_FLOOR / 2)
    run_inline(episode.pk)
    candidate = Candidate.objects.get(episode=episode)
    assert candidate.decision == "reject"
    assert "below the floor" in candidate.reason
    assert candidate.memory_id is None
    assert not Memory.objects.filter(project=project).exists()


def test_running_every_task_twice_leaves_no_duplicates(project: Project) -> None:
    episode = make_episode(
        project, [{"role": "user", "content": "My wife Sara loves hiking. I live in Oslo."}]
    )
    run_tasks(episode, times=2)
    assert episode.status == "completed"
    memories = list(Memory.objects.filter(project=project).values_list("text", flat=True))
    assert len(memories) == len(set(memories)) == Candidate.objects.filter(episode=episode).count()
    names = list(Entity.objects.filter(project=project).values_list("normalized_name", "type"))
    assert len(names) == len(set(names))
    assert Batch.objects.filter(episode=episode).count() == 1


def test_one_episode_that_moves_twice_ends_with_the_last_home(project: Project) -> None:
    """Decisions inside one episode see the ones before them, though nothing is written until the end."""
    ingest(project, "I live in Berlin.", "2023-01-10T10:00:00Z")
    episode = make_episode(
        project,
        [
            {"role": "user", "content": "I moved to Lisbon."},
            {"role": "assistant", "content": "How exciting, congratulations!"},
            {"role": "user", "content": "Actually it did not work out, so I moved to Porto."},
        ],
        timestamp="2023-06-01T10:00:00Z",
    )
    run_inline(episode.pk)
    assert active(project, "lives_in") == ["Porto"]
    berlin, lisbon = (Memory.objects.get(object_value=city) for city in ("Berlin", "Lisbon"))
    porto = Memory.objects.get(object_value="Porto")
    assert (berlin.status, berlin.superseded_by_id) == ("superseded", lisbon.pk)
    assert (lisbon.status, lisbon.superseded_by_id) == ("superseded", porto.pk)
    decisions = (
        Candidate.objects.filter(episode=episode).order_by("ordinal").values_list("decision", flat=True)
    )
    assert list(decisions) == ["supersede", "supersede"]


def test_a_value_said_again_after_this_episode_ended_it_is_a_new_memory(project: Project) -> None:
    """The nearest memory read up front (Berlin) was superseded earlier in the same episode: it is not
    reinforced, the claim is compared with what is live now."""
    ingest(project, "I live in Berlin.", "2023-01-10T10:00:00Z")
    episode = make_episode(
        project,
        [
            {"role": "user", "content": "I moved to Lisbon."},
            {"role": "user", "content": "Scratch that, I live in Berlin."},
        ],
        timestamp="2023-06-01T10:00:00Z",
    )
    run_inline(episode.pk)
    assert active(project, "lives_in") == ["Berlin"]
    assert Memory.objects.filter(object_value="Berlin").count() == 2
    assert Memory.objects.get(object_value="Lisbon").status == "superseded"
