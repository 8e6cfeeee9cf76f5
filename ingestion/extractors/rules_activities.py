"""An activity one does, said with its verb alone: "I run every morning", "I swim twice a week", "I meditate
daily", "I bake on weekends". Before, each stored nothing: a verb without an object and with only words of
time has no content word, so the generic fallback dropped it, and "I don't run anymore" ended nothing.

``hobby`` with the activity's gerund ("running"), the clause as its claim ("User runs every morning."), as
"I play tennis" is ``hobby`` tennis; "I don't run anymore" is its ending. Only verbs of activities
(``ACTIVITY_VERBS``), in the present, without an object or a destination: "I run a bakery" (an object: the
verb table), "I walk to work" (a way to work: ``rules_commute``), "I ran this morning" (one run) are not.
"""

from __future__ import annotations

from typing import Final

from spacy.tokens import Token

from ingestion.extractors.rules_clauses import Clause
from ingestion.extractors.rules_grammar import Fact, is_negated, is_past
from ingestion.extractors.rules_lexicon import words

PREDICATE: Final = "hobby"
ACTIVITY_VERBS: Final = words(
    """
    run jog swim cycle hike climb row ski snowboard surf skate dance sing paint draw sketch cook bake
    meditate garden knit crochet sew write read journal golf box fence sail fish surf kayak lift
    """
)
#: Gerunds that double the last letter ("run" → "running").
_DOUBLED: Final = frozenset({"run", "swim", "jog", "knit"})
#: What makes it no activity of one's own: an object, a complement, a destination.
_NOT_ALONE: Final = frozenset({"dobj", "attr", "xcomp", "ccomp", "prt", "dative", "oprd"})
#: Nouns of a time an activity is done at ("most weekends", "every morning").
TIME_NOUNS: Final = words(
    "day morning evening night weekend week weekday month year winter summer spring autumn fall"
)


def _a_time(tok: Token) -> bool:
    return tok.ent_type_ in ("DATE", "TIME") or tok.lemma_.lower() in TIME_NOUNS


def gerund(lemma: str) -> str:
    """ "run" → "running", "hike" → "hiking", "ski" → "skiing"."""
    if lemma in _DOUBLED:
        return f"{lemma}{lemma[-1]}ing"
    if lemma.endswith("e") and not lemma.endswith("ee"):
        return f"{lemma[:-1]}ing"
    return f"{lemma}ing"


def activity_facts(clause: Clause, *, positive: bool = False) -> list[Fact]:
    """``hobby`` for a present clause that says the subject does an activity of ``ACTIVITY_VERBS``;
    ``positive``: read a negated one as if it were not (for "I don't run anymore")."""
    head = clause.head
    lemma = head.lemma_.lower()
    misread = head.tag_ in ("NN", "NNS") and head.dep_ == "ROOT"  # "My son skis every winter": a noun
    if lemma not in ACTIVITY_VERBS or not (head.tag_ in ("VBP", "VBZ", "VB") or misread) or is_past(head):
        return []
    if is_negated(head) and not positive:
        return []
    if any(c.dep_ in _NOT_ALONE and not _a_time(c) for c in head.children):
        return []  # "I run a bakery"; not "I hike most weekends", read as an object
    if any(c.dep_ == "prep" and c.lower_ in ("to", "into", "for", "through") for c in head.children):
        return []  # "I walk to work", "I run for office", "I read through the contract"
    if any(c.dep_ == "aux" and c.tag_ == "MD" for c in head.children):
        return []  # "I can swim", "I'd cook": an ability or a wish, not what one does
    return [Fact(PREDICATE, "fact", object_text=gerund(lemma))]
