"""An episode's phases read and write in sets: what a user says again (the common case once they have
talked for a while) costs the same number of statements however many facts it repeats, and reconciling
new facts costs the same however many there are."""

from __future__ import annotations

from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext

from ingestion.phases import MODULES
from ingestion.pipeline import run_inline
from ingestion.runner import run_phase
from memhq.models import Candidate, Episode, EpisodePhase, Project
from tests.ingestion.helpers import make_episode

FACTS = [
    "I live in Bergen.",
    "My brother Tomas lives in Trondheim.",
    "I work at Equinor.",
    "I am allergic to peanuts.",
    "I love hiking in the mountains.",
    "My favourite band is Röyksopp.",
    "I drive a Volvo.",
    "My daughter Ingrid studies at NTNU.",
]


def statements_to_repeat(project: Project, facts: list[str], user_id: str) -> tuple[int, int]:
    """(statements, reinforcements) of an episode that says ``facts`` a second time."""
    messages = [{"role": "user", "content": " ".join(facts)}, {"role": "assistant", "content": "Noted."}]
    run_inline(make_episode(project, messages, user_id=user_id).pk)
    again = make_episode(project, messages, user_id=user_id)
    with CaptureQueriesContext(connection) as queries:
        run_inline(again.pk)
    assert Episode.objects.get(pk=again.pk).status == "completed"
    reinforced = Candidate.objects.filter(episode=again, decision=Candidate.Decision.REINFORCE).count()
    return len(queries.captured_queries), reinforced


def test_repeating_more_facts_costs_no_more_statements(project: Project) -> None:
    few, few_reinforced = statements_to_repeat(project, FACTS[:2], "few")
    many, many_reinforced = statements_to_repeat(project, FACTS, "many")
    assert many_reinforced >= few_reinforced + 4  # the second episode really repeats more facts
    assert many == few


def statements_of_phase(episode: Episode, measured: EpisodePhase) -> int:
    """Run ``episode``'s phases before ``measured``, then count the statements ``measured`` sends."""
    phases = list(MODULES.items())
    position = next(i for i, (phase, _) in enumerate(phases) if phase == measured)
    for phase, module in phases[:position]:
        run_phase(str(episode.pk), phase, module)
    with CaptureQueriesContext(connection) as queries:
        run_phase(str(episode.pk), *phases[position])
    return len(queries.captured_queries)


def statements_to_reconcile(project: Project, facts: list[str], user_id: str) -> tuple[int, int]:
    """(statements of the reconcile phase, memories created) for an episode of new ``facts``, said after
    an earlier episode, so the user has memories to compare them with."""
    run_inline(make_episode(project, [{"role": "user", "content": "I like green tea."}], user_id=user_id).pk)
    episode = make_episode(project, [{"role": "user", "content": " ".join(facts)}], user_id=user_id)
    statements = statements_of_phase(episode, EpisodePhase.RECONCILE)
    created = Candidate.objects.filter(episode=episode, decision=Candidate.Decision.ACCEPT).count()
    return statements, created


def test_reconciling_more_new_facts_costs_no_more_statements(project: Project) -> None:
    few, few_created = statements_to_reconcile(project, FACTS[:2], "few")
    many, many_created = statements_to_reconcile(project, FACTS, "many")
    assert many_created >= few_created + 4
    assert many == few


def statements_to_index(project: Project, turns: int, user_id: str) -> int:
    """Statements of the index phase for an episode of ``turns`` user↔assistant exchanges."""
    messages = [
        message
        for turn in range(turns)
        for message in (
            {"role": "user", "content": f"Question {turn}: how do I rotate the logs of service {turn}?"},
            {"role": "assistant", "content": f"For service {turn}, set up logrotate with a weekly rule."},
        )
    ]
    return statements_of_phase(make_episode(project, messages, user_id=user_id), EpisodePhase.INDEX)


def test_indexing_more_messages_costs_no_more_statements(project: Project) -> None:
    """Every message's vectors are written in one statement, the second embedder's included (a message it
    does not read, an assistant's, once fetched its empty value in a query of its own)."""
    assert settings.MEMHQ_SECOND_EMBEDDER != "off"
    assert statements_to_index(project, 2, "short") == statements_to_index(project, 8, "long")
