"""Working for oneself: "I'm self-employed now", "I went freelance last year", "I freelance as a UX
designer", "I'm a freelancer", "I run my own business". Before, each was a generic fact ("User employ now")
or nothing, and the last employer stayed live. Each is ``works_at`` "self-employed", as "I work for myself"
already was, so it replaces the employer (``works_at`` holds one value); "as a UX designer" is the job
title too.

Not a past spell ("I was self-employed for years", "I freelanced in college"), a denial ("I'm not
self-employed"), someone else ("my sister is a freelancer": the clause's subject decides), or a business
that is not one's own ("I run the marketing team").
"""

from __future__ import annotations

from typing import Final

from spacy.tokens import Token

from ingestion.extractors.rules_clauses import Clause
from ingestion.extractors.rules_grammar import Fact, first_child, is_negated, is_past, phrase, prep_object
from ingestion.extractors.rules_lexicon import SPEAKER_BUSINESS_NOUNS

SELF_EMPLOYED: Final = "self-employed"
#: Verbs of one's own business ("I run / have / own my own business").
OWN_BUSINESS_VERBS: Final = frozenset({"run", "have", "own"})
_FREELANCE: Final = frozenset({"freelance", "freelancer", "contractor"})


def _self_employed(head: Token) -> bool:
    """ "I'm self-employed": the parse makes "employed" the root with "self" before it."""
    if head.lemma_.lower() == "employ":
        return any(c.lower_ == "self" for c in head.children)
    return any(c.dep_ == "acomp" and c.lower_ == "self-employed" for c in head.children)


def _freelance(head: Token) -> bool:
    """ "I freelance", "I'm freelancing", "I went freelance", "I'm a freelancer", "I work freelance"."""
    lemma = head.lemma_.lower()
    if lemma == "freelance" and head.pos_ == "VERB":
        return True
    if lemma not in ("be", "go", "work"):
        return False
    said = [c for c in head.children if c.dep_ in ("attr", "acomp", "advmod", "oprd", "dobj", "npadvmod")]
    return any(c.lower_ in _FREELANCE and not list(c.children) for c in said) or any(
        c.dep_ == "attr" and c.lemma_.lower() == "freelancer" for c in head.children
    )


def _own_business(head: Token) -> bool:
    """ "I run my own business", "I have my own company"."""
    if head.lemma_.lower() not in OWN_BUSINESS_VERBS:
        return False
    thing = first_child(head, "dobj")
    own = thing is not None and any(c.lower_ == "own" for c in thing.children)
    return own and thing is not None and thing.lemma_.lower() in SPEAKER_BUSINESS_NOUNS


def self_employed_facts(clause: Clause) -> list[Fact]:
    """``works_at`` "self-employed" (and the title said with "as") for a present, positive clause (module
    doc), or none."""
    head = clause.head
    if is_negated(head) or (is_past(head) and head.lemma_.lower() != "go"):
        return []
    if not (_self_employed(head) or _freelance(head) or _own_business(head)):
        return []
    facts = [Fact("works_at", "fact", object_text=SELF_EMPLOYED)]
    title = prep_object(head, ("as",))
    if title is not None:
        facts.append(Fact("job_title", "fact", phrase(title, clause)))
    return facts
