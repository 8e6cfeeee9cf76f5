"""The plan or tier of a service the speaker is on: "I'm on the Starter plan", "we're on the free tier", "I
upgraded to the Pro plan", "I upgraded to premium", "I switched to the annual subscription", "I signed up
for the Family plan". Before, "User is on the Starter plan" and "User upgraded to the Pro plan" were two
facts of two predicates, both live.

One single-valued predicate, ``subscription_plan``, whose object is the plan's name with its noun ("Pro
plan"), so a move to another plan supersedes the old one whatever the verb. A plan is a tier only when its
name is one: a capitalised name, or a word of :data:`TIER_WORDS` after "the" / "my" ("the free tier"; "a
basic plan in place" is an outline). "a training plan for the marathon", "a business plan" and "a plan" are
not. "I'm not on the Pro plan" states none.
"""

from __future__ import annotations

from typing import Final

from spacy.tokens import Token

from ingestion.extractors.base import Kind
from ingestion.extractors.rules_clauses import Clause
from ingestion.extractors.rules_grammar import Fact, is_negated, particle, prep_object
from ingestion.extractors.rules_lexicon import words

PREDICATE: Final = "subscription_plan"
TIER_NOUNS: Final = words("plan tier subscription package")
#: Words that name a tier without a capital ("the free tier", "the annual plan").
TIER_WORDS: Final = words(
    "free basic standard premium pro plus starter family student annual monthly yearly enterprise team "
    "individual unlimited paid trial"
)
#: Verbs that put the speaker on a plan, and the preposition before it ("upgraded *to* the Pro plan").
VERB_PREPS: Final = {
    "be": ("on",),
    "stay": ("on",),
    "upgrade": ("to",),
    "downgrade": ("to",),
    "switch": ("to",),
    "move": ("to",),
    "change": ("to",),
    "subscribe": ("to",),
    "sign": ("for",),  # "signed up for"
}
#: Verbs whose object is the plan ("I have the Pro plan", "I bought the annual subscription").
OBJECT_VERBS: Final = words("have get buy pick choose")


def _tier(noun: Token | None) -> tuple[Token, ...] | None:
    """The plan's name and noun ("Pro plan"), when ``noun`` is a plan noun whose name says a tier."""
    if noun is None or noun.lemma_.lower() not in TIER_NOUNS:
        return None
    name = [c for c in noun.lefts if c.dep_ in ("compound", "amod", "nmod", "npadvmod")]
    capitalised = any(t.text[:1].isupper() and t.i > 0 for t in name)
    known = any(c.dep_ in ("det", "poss") and c.lower_ in ("the", "my", "our") for c in noun.children)
    if not (capitalised or (known and any(t.lower_ in TIER_WORDS for t in name))):
        return None  # "a basic plan in place": an outline, not a tier
    first = min(t.left_edge.i for t in name)
    return tuple(t for t in noun.doc[first : noun.i + 1] if t.dep_ not in ("det", "poss"))


def plan_tier_facts(clause: Clause) -> list[Fact]:
    """The speaker's ``subscription_plan`` in a positive clause (module doc), or none."""
    head = clause.head
    if is_negated(head):
        return []
    lemma = head.lemma_.lower()
    if lemma == "sign" and particle(head) != "up":
        return []
    preps = VERB_PREPS.get(lemma)
    noun = prep_object(head, preps) if preps else None
    if noun is None and lemma in OBJECT_VERBS:
        noun = next((c for c in head.children if c.dep_ == "dobj"), None)
    tier = _tier(noun)
    if tier is None and noun is not None and lemma in ("upgrade", "downgrade") and noun.lower_ in TIER_WORDS:
        tier = (noun,)  # "I upgraded to premium": the tier without its noun
    kind: Kind = "fact" if lemma in ("be", "stay", "have") else "event"
    return [Fact(PREDICATE, kind, tier)] if tier is not None else []
