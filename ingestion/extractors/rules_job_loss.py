"""A job that ended without "left" or "quit": "I got laid off", "I was fired from Deloitte", "I got let go",
"I lost my job", "I retired in May"; and being without one: "I'm unemployed", "I'm between jobs", "I'm out of
work". Before, nothing was stored for most of them and the employer stayed live.

Each is the end of the employer: ``left`` the employer when one is named ("from Deloitte", "at Acme"),
else ``no_longer_works_at`` with no object, which ends the current one. Retiring ends the job title too
(``no_longer_job_title``). "My brother got laid off" is the brother's (the clause's subject decides), "I
lost my keys" is no job, and "I didn't get fired" changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from spacy.tokens import Token

from ingestion.extractors.predicates import LEFT, NO_LONGER_PREFIX
from ingestion.extractors.rules_clauses import Clause
from ingestion.extractors.rules_grammar import Fact, first_child, is_negated, particle, phrase, prep_object
from ingestion.extractors.rules_lexicon import JOB_NOUNS
from ingestion.extractors.rules_replacements import ENDING_KIND

#: Verbs of a job taken away, with the particle they need ("laid *off*"); "" for none.
LOSS_VERBS: Final = {"fire": "", "sack": "", "lay": "off", "retire": "", "redundant": ""}
EMPLOYER_PREPS: Final = ("from", "at", "by")
FactReader = Callable[[Clause], list[Fact]]


def _lost(head: Token) -> bool:
    lemma = head.lemma_.lower()
    if lemma in LOSS_VERBS:
        return particle(head) == LOSS_VERBS[lemma]
    if lemma == "let":  # "I got let go"
        return any(c.dep_ in ("xcomp", "ccomp", "dobj") and c.lower_ == "go" for c in head.children)
    thing = first_child(head, "dobj")
    return lemma == "lose" and thing is not None and thing.lemma_.lower() in JOB_NOUNS  # "I lost my job"


#: Being without a job: "unemployed", "between jobs", "out of work".
JOBLESS: Final = frozenset({"unemployed", "jobless"})


def _out_of_work(head: Token) -> bool:
    if head.lemma_.lower() != "be" or head.tag_ in ("VBD", "VBN"):
        return False  # "I was unemployed for a year": a past spell
    if any(c.dep_ == "acomp" and c.lower_ in JOBLESS for c in head.children):
        return True
    between = prep_object(head, ("between",))
    if between is not None and between.lemma_.lower() in JOB_NOUNS:
        return True
    out = next((c for c in head.children if c.dep_ == "prep" and c.lower_ == "out"), None)
    work = prep_object(out, ("of",)) if out is not None else None
    return work is not None and (work.lemma_.lower() in JOB_NOUNS or work.lower_ == "work")


def job_loss_facts(clause: Clause, _positive: FactReader | None = None) -> list[Fact] | None:
    """The end of the speaker's job (module doc), or None when the clause says no such thing."""
    head = clause.head
    if _out_of_work(head) and not is_negated(head):  # "I'm between jobs right now"
        return [Fact(NO_LONGER_PREFIX + "works_at", ENDING_KIND, object_text="")]
    helpers = [c for c in head.children if c.dep_ in ("aux", "auxpass")]  # "I didn't *get* fired"
    if not _lost(head) or is_negated(head) or any(is_negated(c) for c in helpers):
        return None
    where = [head, *[c for c in head.children if c.lower_ == "go" or c.lemma_.lower() in JOB_NOUNS]]
    employer = next((o for t in where if (o := prep_object(t, EMPLOYER_PREPS)) is not None), None)
    if employer is not None and employer.pos_ == "PROPN":
        ended = [Fact(LEFT, ENDING_KIND, phrase(employer, clause))]
    else:
        ended = [Fact(NO_LONGER_PREFIX + "works_at", ENDING_KIND, object_text="")]
    if head.lemma_.lower() == "retire":  # the title ends too
        ended.append(
            Fact(NO_LONGER_PREFIX + "job_title", ENDING_KIND, object_text="", template="{s} is retired.")
        )
    return ended
