"""Taken off a medicine, a treatment or anything one was on: "My doctor took me off metformin", "I came off
antidepressants in May", "My manager took me off the project". Before, "User's doctor took User off
metformin." was a claim about the doctor, and "User takes metformin twice a day." stayed live.

Each is ``left`` what was taken (the speaker's, whoever took them off it), which ends the live memory that
names it. Only "me" / "us" taken off (the speaker), not "took her off the list"; and not "went off": "I've
gone off tea" is a taste that ended (``rules_replacements``), "the alarm went off" nothing.
"""

from __future__ import annotations

from typing import Final

from ingestion.extractors.predicates import LEFT
from ingestion.extractors.rules_clauses import Clause
from ingestion.extractors.rules_grammar import Fact, first_child, is_negated, particle, phrase, prep_object
from ingestion.extractors.rules_replacements import ENDING_KIND

#: Verbs of going off a thing oneself ("I went off the pill", "I came off antidepressants").
GO_OFF_VERBS: Final = frozenset({"come"})
SPEAKER_OBJECTS: Final = frozenset({"me", "us"})


def taken_off(clause: Clause) -> Fact | None:
    """``left`` the thing the speaker was taken off or came off (module doc), or None."""
    head = clause.head
    lemma = head.lemma_.lower()
    if is_negated(head):
        return None
    if lemma == "take":
        whom = first_child(head, "dobj")
        if whom is None or whom.lower_ not in SPEAKER_OBJECTS:
            return None
        thing = prep_object(head, ("off",))
    elif lemma in GO_OFF_VERBS and clause.subject_kind in ("speaker", "implicit"):
        thing = prep_object(head, ("off",))
        if thing is None and particle(head) == "off":
            thing = first_child(head, "dobj")  # "I came off antidepressants", "off" read as a particle
    else:
        return None
    if thing is None or thing.pos_ not in ("NOUN", "PROPN"):
        return None
    return Fact(LEFT, ENDING_KIND, phrase(thing, clause))
