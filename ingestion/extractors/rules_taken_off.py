"""Taken off a medicine, a treatment or anything one was on: "My doctor took me off metformin", "I came off
antidepressants in May", "My manager took me off the project". Before, "User's doctor took User off
metformin." was a claim about the doctor, and "User takes metformin twice a day." stayed live.

Each is ``left`` what was taken (the speaker's, whoever took them off it), which ends the live memory that
names it. Only "me" / "us" taken off (the speaker), not "took her off the list"; and not "went off": "I've
gone off tea" is a taste that ended (``rules_replacements``), "the alarm went off" nothing.

And put on one by another: "My doctor put me on insulin", "she started me on iron tablets", "My doctor
switched me from metformin to insulin" → ``uses`` the new thing (and ``left`` the one named after "from"),
the speaker's; "My boss put me on the new project" → ``assigned_to`` it. Before, "User's doctor uses
insulin."
"""

from __future__ import annotations

from typing import Final

from spacy.tokens import Token

from ingestion.extractors.predicates import LEFT
from ingestion.extractors.rules_clauses import Clause
from ingestion.extractors.rules_grammar import Fact, first_child, is_negated, particle, phrase, prep_object
from ingestion.extractors.rules_lexicon import GROUP_NOUNS, WORKPLACE_NOUNS
from ingestion.extractors.rules_nlp import verb_forms
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


#: "put / started me on X", "switched me to X": whom another puts on a thing.
PUT_ON_VERBS: Final = {"put": ("on",), "start": ("on",), "switch": ("to", "onto")}
#: A thing one is put on at work is no thing one uses: one is ``assigned_to`` it ("put me on a project").
NOT_USED: Final = WORKPLACE_NOUNS | GROUP_NOUNS
ASSIGNED: Final = "assigned_to"
OFF_TEMPLATE: Final = "{s} is no longer on {o}."


def put_on(clause: Clause) -> list[Fact]:
    """``uses`` the thing another put the speaker on, and ``left`` what it replaced (module doc); a task,
    a shift or a team is ``assigned_to`` ("put me on the new project", "switched me to the night shift")."""
    head = clause.head
    preps = PUT_ON_VERBS.get(head.lemma_.lower())
    whom = first_child(head, "dobj")
    if preps is None or whom is None or whom.lower_ not in SPEAKER_OBJECTS or is_negated(head):
        return []
    before = prep_object(head, ("from",))
    after = (before, before.head) if before is not None else ()  # "from X to Y": "to" under X or "from"
    thing = prep_object(head, preps) or next((o for t in after if (o := prep_object(t, preps))), None)
    thing = thing or _misread(head)
    if thing is None or thing.pos_ not in ("NOUN", "PROPN", "VERB"):
        return []  # (the parser reads some drugs' names as verbs: "switched me to insulin")
    if thing.lemma_.lower() in NOT_USED:
        return [Fact(ASSIGNED, "event", phrase(thing, clause))]
    used = Fact("uses", "event", tuple(t for t in phrase(thing, clause) if t.dep_ != "aux"))
    if before is None:
        return [used]
    return [used, Fact(LEFT, ENDING_KIND, phrase(before, clause), template=OFF_TEMPLATE)]


def _misread(head: Token) -> Token | None:
    """ "switched me to levothyroxine" parsed as an infinitive: a "to" clause whose verb is no verb."""
    return next(
        (
            c
            for c in head.children
            if c.dep_ in ("advcl", "xcomp")
            and c.lower_ not in verb_forms()
            and any(a.lower_ == "to" and a.dep_ == "aux" for a in c.children)
        ),
        None,
    )
