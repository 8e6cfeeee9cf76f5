"""States of the speaker's that their own modules read before the verb table does: the plan or tier of a
service, the time zone, dating someone, the usual way to work, the grade at school, a diet left, an employer
one is "at", one's pay, where and when one was born, a home rented or moved into. Each is single-valued, so
the verb table's reading of the same words ("User is on the Pro plan" as ``be``, "User bikes to work" as
``bike``) would leave the old value live beside the new one."""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from ingestion.extractors.rules_activities import activity_facts
from ingestion.extractors.rules_births import birth_facts
from ingestion.extractors.rules_breakups import breakup_facts
from ingestion.extractors.rules_choices import choice_facts
from ingestion.extractors.rules_clauses import Clause
from ingestion.extractors.rules_commute import commute_facts
from ingestion.extractors.rules_dating import dating_facts
from ingestion.extractors.rules_diet import diet_on_facts, diet_return_facts
from ingestion.extractors.rules_employer_at import employer_at_facts
from ingestion.extractors.rules_grammar import Fact
from ingestion.extractors.rules_habits import habit_facts
from ingestion.extractors.rules_homes import home_facts
from ingestion.extractors.rules_patterns_change import no_longer_marked
from ingestion.extractors.rules_pay import pay_facts
from ingestion.extractors.rules_plan_tiers import plan_tier_facts
from ingestion.extractors.rules_school_grades import grade_facts
from ingestion.extractors.rules_self_employed import self_employed_facts
from ingestion.extractors.rules_time_zones import time_zone_facts

READERS: Final[tuple[Callable[[Clause], list[Fact]], ...]] = (
    plan_tier_facts,  # "I upgraded to the Pro plan"
    time_zone_facts,  # "I'm on CET now"
    dating_facts,  # "I'm seeing someone"
    breakup_facts,  # "We broke up"
    commute_facts,  # "I bike to work now"
    grade_facts,  # "My son started 4th grade"
    diet_on_facts,  # "I'm on the keto diet"
    diet_return_facts,  # "I started eating fish again"
    employer_at_facts,  # "I've been at Stripe for three years"
    pay_facts,  # "I make 85k a year", "I got a raise to 95k"
    self_employed_facts,  # "I'm self-employed now", "I went freelance"
    birth_facts,  # "I was born in Leeds on 2 June 1990"
    home_facts,  # "I'm renting a flat in Leeds"
    choice_facts,  # "I'll go with the MacBook Air" (a choice, not a state: read first all the same)
    activity_facts,  # "I run every morning"
    habit_facts,  # "I don't drink", "I can't drive"
)


def own_state_facts(clause: Clause) -> list[Fact]:
    """The facts of the first reader that reads the clause; none for an ending ("I'm no longer on the keto
    diet": ``rules_patterns_change`` reads it, with :func:`rules_diet.diet_on_facts` as its positive)."""
    if no_longer_marked(clause):
        return []
    for read in READERS:
        facts = read(clause)
        if facts:
            return facts
    return []


def positive_state_facts(clause: Clause) -> list[Fact]:
    """The readers that also read a negated clause as if it were not, for its ending ("I don't drive to
    work anymore", "I don't run anymore")."""
    return (
        commute_facts(clause, positive=True)
        or activity_facts(clause, positive=True)
        or habit_facts(clause, positive=True)
    )
