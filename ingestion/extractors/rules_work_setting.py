"""Where the speaker works from: "I work remotely", "I work from home on Fridays", "I'm back in the office
full time now", "We went hybrid". Before, nothing was stored ("remotely" is no object). One single-valued
predicate, ``work_setting``, whose object is one of three plain values, so "I'm back in the office"
supersedes "I work remotely" whatever the words. A day named, or a share of the week, makes it hybrid
("from home on Fridays", "two days a week"). "I'm in the office today" is where one is, not how one works,
so a present "be" needs a word that says it lasts ("back", "full time", "now", "every day").

A return to the office is one too: "I'm going back to the office full time", "we returned to the office in
March", "My company called everyone back to the office" (the speaker's employer calling its staff back), and
what one has to do: "We have to be in the office three days a week now" (hybrid).
"""

from __future__ import annotations

from typing import Final

from spacy.tokens import Token

from ingestion.extractors.rules_clauses import Clause
from ingestion.extractors.rules_grammar import Fact, is_negated, is_past
from ingestion.temporal import WEEKDAYS

PREDICATE: Final = "work_setting"
REMOTE, OFFICE, HYBRID = "remote", "in the office", "hybrid"
_REMOTE_WORDS: Final = frozenset({"remote", "remotely", "wfh"})
_OFFICE_WORDS: Final = frozenset({"office", "onsite", "on-site"})
#: Words after which a setting holds for a part of the week only.
_PART_OF_WEEK: Final = frozenset({"days", "day", "week", "weekdays"})
#: Words that make "I'm in the office" a setting rather than today's whereabouts.
_LASTING: Final = frozenset({"back", "full", "fully", "now", "permanently", "every", "anymore"})
_FOR_NOW: Final = frozenset({"today", "tonight", "tomorrow", "yesterday", "this"})
#: What one comes back to the office after, for the afternoon.
_BREAKS: Final = frozenset({"lunch", "break", "breakfast", "meeting", "appointment", "errand"})
_VERBS: Final = frozenset({"work", "be", "go", "come", "return", "call"})
#: Verbs of what one must do, whose "to be in the office" is the setting ("we have to be in the office").
_MUST: Final = frozenset({"have", "need"})
#: Who calls the speaker's staff back ("my company", "our boss").
EMPLOYERS: Final = frozenset({"company", "employer", "boss", "firm", "management", "work", "job", "ceo"})


def work_setting_facts(clause: Clause) -> list[Fact]:
    """The speaker's work setting in a present, positive clause (module doc), or none."""
    head = _must_be(clause.head)
    lemma = head.lemma_.lower()
    moving = lemma in ("go", "come", "return", "call")
    if lemma not in _VERBS or is_negated(head) or (is_past(head) and not moving):
        return []
    words = {t.lower_ for t in clause.tokens if t.i > head.i}
    if words & _FOR_NOW:
        return []  # "I'm working from home this week", "I'm in the office today"
    near = _near(head)
    if moving and _back_to_the_office(clause, near, lemma, words):
        return [
            Fact(PREDICATE, "fact", object_text=OFFICE if "full" in words or not _part(words) else HYBRID)
        ]
    if lemma == "call" or (moving and not near & (_REMOTE_WORDS | {HYBRID})):
        return []  # "we went remote", "I went hybrid"; "I went to the office" is a trip
    value = _value(near, words, lemma)
    return [Fact(PREDICATE, "fact", object_text=value)] if value is not None else []


def _must_be(head: Token) -> Token:
    """ "be" of "we have to be in the office", else the head itself."""
    if head.lemma_.lower() not in _MUST:
        return head
    return next((c for c in head.children if c.dep_ == "xcomp" and c.lemma_.lower() == "be"), head)


def _back_to_the_office(clause: Clause, near: set[str], lemma: str, words: set[str]) -> bool:
    """ "return to the office", "go / come back to the office", "(my company) called everyone back to the
    office"."""
    to_office = any(f"to {w}" in near for w in _OFFICE_WORDS) or (
        "back" in words and any(w in words for w in _OFFICE_WORDS) and "to" in words
    )
    if not to_office or (lemma != "return" and "back" not in words):
        return False
    if lemma != "call":
        return _lasts(clause, words)
    subject = clause.subject
    return subject is not None and subject.lemma_.lower() in EMPLOYERS  # "my company called everyone back"


def _lasts(clause: Clause, words: set[str]) -> bool:
    """A return that lasts ("full time", "three days a week", "in March"), not a trip back ("to grab my
    laptop", "after lunch")."""
    if any(c.dep_ in ("xcomp", "advcl") for c in clause.head.children) or words & _BREAKS:
        return False
    dated = any(t.ent_type_ == "DATE" and t.i > clause.head.i for t in clause.tokens)
    return bool(words & (_LASTING | {"time", "starting", "since"})) or _part(words) or dated


def _part(words: set[str]) -> bool:
    """A setting for a part of the week ("two days a week", "on Mondays")."""
    return any(w in _PART_OF_WEEK or w.removesuffix("s") in WEEKDAYS for w in words)


def _near(head: Token) -> set[str]:
    """The words of the head's own modifiers and of its prepositions' objects ("from home", "in the
    office"), not of deeper words ("I work on remote sensing")."""
    mods = [c for c in head.children if c.dep_ in ("advmod", "acomp", "attr", "oprd", "npadvmod")]
    near = {c.lower_ for c in mods}
    preps = [c for c in (*head.children, *(g for m in mods for g in m.children)) if c.dep_ == "prep"]
    for prep in preps:  # "from home", and "back in the office" (the preposition under "back")
        near |= {f"{prep.lower_} {g.lower_}" for g in prep.children if g.dep_ == "pobj"}
    return near


def _value(near: set[str], words: set[str], lemma: str) -> str | None:
    if HYBRID in near:
        return HYBRID
    if near & _REMOTE_WORDS or "from home" in near:
        setting = REMOTE
    elif near & ({f"{p} {w}" for p in ("in", "at") for w in _OFFICE_WORDS} | {"onsite", "on-site"}):
        if lemma == "be" and not words & _LASTING:
            return None  # "I'm in the office": where one is, unless it lasts ("back", "full time")
        setting = OFFICE
    else:
        return None
    return HYBRID if _part(words) and not {"full", "fully", "every"} & words else setting
