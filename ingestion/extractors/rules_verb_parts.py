"""Verbs that share one subject, each read as its own claim where no pattern reads the clause: "I finished
Dune and started a new thriller" is "I finished Dune" and "I started a new thriller" (the generic fallback
once took "Dune and started a new thriller" as what was finished). Only verbs that say something on their
own are cut off: finite, or in the first verb's own form ("has finished X and started Y", which share
"has"); a gerund run on ("I believe in community and supporting each other") and a copula ("… and am open
to it", often a misparse of a formula) stay in the first verb's words.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final

from spacy.tokens import Token

from ingestion.extractors.rules_clauses import Clause
from ingestion.extractors.rules_grammar import first_child


def shared_subject_verbs(head: Token) -> list[Token]:
    """Verbs coordinated with ``head`` that share its subject ("I quit the bakery and *started* at X")."""
    return [
        c
        for c in head.children
        if c.dep_ == "conj" and c.pos_ in ("VERB", "AUX") and first_child(c, "nsubj", "nsubjpass") is None
    ]


#: Tags of a verb that says something on its own ("and started …"), not a gerund run on ("… and supporting").
_FINITE_TAGS: Final = frozenset({"VBD", "VBZ", "VBP"})


def verbs_of_their_own(head: Token) -> list[Token]:
    """The verbs that share the head's subject (and theirs, "roasts …, tells … and enjoys …"), finite or
    in the head's own form ("has finished X and started Y")."""
    found: list[Token] = []
    todo = [head]
    while todo:
        verbs = [
            v
            for v in shared_subject_verbs(todo.pop())
            if v.pos_ == "VERB" and v.tag_ in _FINITE_TAGS | {head.tag_}  # "… and am open to …" stays
        ]
        found += verbs
        todo += verbs
    return sorted(found, key=lambda t: t.i)


def verb_parts(clause: Clause, verbs: list[Token]) -> list[Clause]:
    """One clause per verb: the subject (and the first verb's auxiliaries, which the others share) with
    that verb's own words; the joining "and" and the other verbs' words left out."""
    head = clause.head
    theirs = {t.i for v in verbs for t in v.subtree} | {c.i for c in head.children if c.dep_ == "cc"}
    shared = {t.i for t in clause.subject.subtree} if clause.subject is not None else set()
    helpers = {c.i for c in head.children if c.dep_ in ("aux", "neg") and c.i < head.i}
    parts = [replace(clause, tokens=tuple(t for t in clause.tokens if t.i not in theirs))]
    for verb in verbs:
        own = {t.i for t in verb.subtree} - {t.i for v in verbs if v.i > verb.i for t in v.subtree}
        own -= {c.i for c in verb.children if c.dep_ == "cc"}
        both = shared | (helpers if verb.tag_ == head.tag_ else set())  # not "has been … and had"
        tokens = tuple(t for t in clause.tokens if t.i in own or t.i in both)
        parts.append(replace(clause, head=verb, tokens=tokens))
    return parts
