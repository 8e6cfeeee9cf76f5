"""A new value for a thing of the speaker's, said as a change: stored as the state it leaves, so reconcile
can supersede the old value (``conflicts.changes_value``: the same words, or fewer, with one number or date
changed).

* "My rent went up to $1,950 a month", "my budget got cut to $300" (the thing is the subject) →
  "User's rent is $1,950 a month.";
* "I bumped the batch size to 64", "we pushed the MVP deadline to June 15" (the speaker sets it) →
  "User's batch size is 64.", "User's MVP deadline is on 15 June 2026." (subject "User's batch size");
  so does someone else, for a thing of the speaker's: "The dentist moved my appointment to April 2" →
  "User's appointment is 2 April 2026."; an amount someone of the speaker's raised or lowered is the
  speaker's too ("My landlord raised the rent to $2,050" → "User's rent is $2,050.").

The new value must hold a number, a date or an email address; "my score went from 78% to 92%" keeps its
words (it tells the change itself), and "I moved the meeting to the big room" is no value.
"""

from __future__ import annotations

from typing import Final

from spacy.tokens import Token

from ingestion.extractors.rules_clauses import Clause
from ingestion.extractors.rules_grammar import Fact, core, first_child, is_negated, speakers_own, text_of
from ingestion.extractors.rules_lexicon import RELATION_NOUNS
from ingestion.extractors.rules_trim import UNIT_SYMBOLS

#: Verbs that give a thing a new amount or date: "my rent went up to …", "I bumped the batch size to …".
SETTING_VERBS: Final = frozenset(
    {
        "go", "rise", "increase", "climb", "jump", "drop", "fall", "decrease", "change", "grow", "shrink",
        "cut", "lower", "raise", "reduce", "bump", "set", "push", "move", "up", "adjust", "update", "extend",
        "reschedule", "postpone", "delay", "shift",
    }
)  # fmt: skip
STATE_TEMPLATE: Final = "{s} is {o}."


def _value_after_to(clause: Clause, head: Token) -> tuple[Token, ...] | None:
    """What follows the head's "to" ("went up to …": under the particle too), if it holds a number or a
    date; None when the clause says where the value came "from"."""
    subject = {t.i for t in clause.subject.subtree} if clause.subject is not None else set()
    to = next(  # "went up to $900" hangs "to" under the amount; "my flight *to Madrid*" is the subject's
        (
            t
            for t in clause.tokens
            if t.lower_ == "to" and t.dep_ != "aux" and _under(t, head) and t.i not in subject
        ),
        None,
    )
    if to is None or any(t.lower_ == "from" for t in clause.tokens):
        return None
    after = [t for t in clause.tokens if t.i > to.i]
    adjunct = next((t for t in after if t.head.i == head.i and t.dep_ in _ADJUNCTS), None)  # "because of …"
    end = max(adjunct.left_edge.i, to.i + 1) if adjunct is not None else None  # "as you | suggested"
    kept = [t for t in after if (end is None or t.i < end) and (not t.is_punct or t.text in UNIT_SYMBOLS)]
    while end is not None and kept and kept[-1].pos_ in _LOOSE_ENDS:  # "60s as | suggested"
        kept.pop()
    value = tuple(kept)
    numbered = any(t.like_num or any(ch.isdigit() for ch in t.text) for t in value)
    dated = any(t.ent_type_ in ("DATE", "TIME") for t in value)
    address = any(t.like_email for t in value)  # "I changed my email to sam@example.com"
    return value if value and (numbered or dated or address) else None


#: What the verb says after the value, not part of it ("moved the wedding to May 3 *because of* the venue").
_ADJUNCTS: Final = frozenset({"prep", "advcl", "mark", "cc", "conj"})
#: Words a value cut before an adjunct does not end with ("60s *as* suggested", "as of *to* ensure").
_LOOSE_ENDS: Final = frozenset({"ADP", "SCONJ", "PART", "CCONJ", "DET"})
#: Verbs whose infinitive makes the change ("we had to move the wedding to …", "I decided to push it to …").
_LEADING: Final = frozenset({"have", "decide"})


#: Most steps from "to" up to the verb: "bumped it up to 40mg" may hang "to" under the amount, the amount
#: under "up", "up" under the verb.
TO_DEPTH: Final = 3


def _under(token: Token, head: Token) -> bool:
    """``head`` is among the first :data:`TO_DEPTH` heads above ``token``."""
    for _ in range(TO_DEPTH):
        if token.head.i == token.i:
            return False
        token = token.head
        if token.i == head.i:
            return True
    return False


def _thing(head: Token) -> Token | None:
    """The verb's object: the thing given a new value. The tagger sometimes reads a possessed object as an
    adverbial noun ("increased *my dose* to 40mg")."""
    found = first_child(head, "dobj")
    if found is None:  # only a possessed one: "increased to 90% ->-> 3,32" hangs "3,32" there too
        found = next((c for c in head.children if c.dep_ == "npadvmod" and speakers_own(c)), None)
    return found


def _changing(head: Token) -> bool:
    led = head.dep_ == "xcomp" and head.head.lemma_.lower() in _LEADING and head.head.tag_ != "VB"
    return (
        head.lemma_.lower() in SETTING_VERBS
        and (head.tag_ in ("VBD", "VBN", "VBZ", "VBP") or (led and head.tag_ == "VB"))
        and not is_negated(head)
    )


def _verb(clause: Clause) -> Token:
    """The clause's verb, or the change it leads to ("had to | move")."""
    head = clause.head
    if head.lemma_.lower() not in _LEADING or is_negated(head):
        return head
    return next((c for c in head.children if c.dep_ == "xcomp" and _changing(c)), head)


def new_amount(clause: Clause) -> Fact | None:
    """ "My rent went up to $1,950 a month" → "User's rent is $1,950 a month." (the clause's subject is the
    speaker's thing; module doc)."""
    head = clause.head
    if not _changing(head) or clause.subject is None:
        return None
    if clause.subject.lemma_.lower() in RELATION_NOUNS or clause.subject.pos_ in ("PROPN", "PRON"):
        return None  # "My sister moved to Lisbon last year": a person moves home, no amount changes
    value = _value_after_to(clause, head)
    thing = _thing(head)
    if value is None or (thing is not None and thing not in value):
        return None  # "my manager moved the launch to June": the launch changed, not the manager
    after = [t for t in clause.subject.subtree if t.i > clause.subject.i]  # "my meeting *with Dana*"
    said = " " + text_of(tuple(after)).replace("{", "{{").replace("}", "}}") if after else ""
    return Fact("is", "fact", value, template="{s}" + said + " is {o}.")


def new_setting(clause: Clause, *, by_another: bool = False) -> tuple[str, Fact] | None:
    """ "I bumped the batch size to 64" → ("batch size", "… is 64"): the thing the speaker set, as the
    speaker's, and its new value (module doc). ``by_another``: someone else set it, and it must be the
    speaker's own ("The dentist moved my appointment to April 2"; not "They moved the launch to May")."""
    head = _verb(clause)
    thing = _thing(head)
    if not _changing(head) or thing is None or thing.pos_ != "NOUN":
        return None
    owners = ("my", "our") if by_another and not _speakers_own(clause) else ("the", "my", "our")
    if not any(t.dep_ in ("det", "poss") and t.lower_ in owners for t in thing.subtree if t.i < thing.i):
        return None  # "I cut costs to …": no one thing
    value = _value_after_to(clause, head)
    if value is None or any(t.i < thing.i for t in value):
        return None
    return text_of(core(thing)), Fact("is", "fact", value, template=STATE_TEMPLATE)


#: Verbs that raise or lower an amount ("raised the rent to …"), not ones that move a date.
AMOUNT_VERBS: Final = frozenset({"raise", "increase", "lower", "reduce", "cut", "bump", "up", "decrease"})


def _speakers_own(clause: Clause) -> bool:
    """Someone of the speaker's raised or lowered "the" amount ("*My landlord* raised the rent to …"): it is
    the speaker's. A date they moved may be anyone's ("my manager moved the launch to June")."""
    subject = clause.subject
    return subject is not None and clause.head.lemma_.lower() in AMOUNT_VERBS and speakers_own(subject)
