"""An employer said with "be at": "I've been at Stripe for three years as a backend engineer", "I'm at Stripe
as a designer", "I've been at Monzo since 2021". Before, a generic ``is`` claim ("User has been at Stripe for
three years as …"), so no employer to supersede or be superseded.

``works_at`` the name, and ``job_title`` what one is there "as". Only with a sign of a job: "as" a job, or a
stay of years or months ("for three years", "since 2021"): "I'm at Starbucks right now" and "I've been at
Disneyland for three days" are places one is at. (And :func:`employer_of`: the verb table's ``works_at``
read again, "started college at X" being a school.)
"""

from __future__ import annotations

from typing import Final

from spacy.tokens import Token

from ingestion.extractors.rules_clauses import Clause
from ingestion.extractors.rules_grammar import Fact, core, first_child, is_negated, phrase, prep_object
from ingestion.extractors.rules_self_employed import SELF_EMPLOYED

#: A stay long enough to be a job.
LONG_UNITS: Final = frozenset({"year", "years", "month", "months"})
#: What an employer's name is not.
PLACE_LABELS: Final = frozenset({"GPE", "LOC", "FAC", "DATE", "TIME"})


def _long_stay(head: Token) -> bool:
    length = prep_object(head, ("for",))
    if length is not None and length.lower_ in LONG_UNITS:
        return True
    since = prep_object(head, ("since",))
    return since is not None and since.ent_type_ == "DATE"


def employer_at_facts(clause: Clause) -> list[Fact]:
    """``works_at`` (and ``job_title``) for "I've been at <Name> for three years as a …" (module doc)."""
    head = clause.head
    if head.lemma_.lower() != "be" or head.tag_ == "VBD" or is_negated(head):
        return []
    employer = prep_object(head, ("at",))
    if employer is None or employer.pos_ != "PROPN" or employer.ent_type_ in PLACE_LABELS:
        return []
    role = next((o for t in clause.tokens if (o := prep_object(t, ("as",))) is not None), None)
    if role is None and not _long_stay(head):
        return []
    facts = [Fact("works_at", "fact", phrase(employer, clause))]
    if role is not None and role.pos_ == "NOUN":
        facts.append(Fact("job_title", "fact", core(role)))
    return facts


#: What one starts "at" a school ("my son started college at Ohio State": he studies there).
SCHOOL_NOUNS: Final = frozenset({"college", "school", "university", "uni", "kindergarten", "preschool"})


def employer_of(obj: Token, clause: Clause) -> tuple[str, str | None] | None:
    """The verb table's ``works_at`` read again: "I work for myself" (self-employed), "started college at X"
    (``studies_at`` X); None to keep it as it is."""
    if obj.lower_ in ("myself", "ourselves"):
        return ("works_at", SELF_EMPLOYED)
    started = first_child(clause.head, "dobj")
    return ("studies_at", None) if started is not None and started.lemma_.lower() in SCHOOL_NOUNS else None
