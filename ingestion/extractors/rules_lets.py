"""A choice the user announces with "let's": "Let's use Tailwind for the styling."

In a chat with an assistant, "let's" plus a verb of choosing is the user deciding for their own work (the
assistant does not use Tailwind): the clause becomes a decision in the future, "User will use Tailwind for
the styling." (``plans_to``, as "I'm going to use Tailwind" is). The parser reads "'s" as the subject of the
second verb, so the clause's subject is not first person and the other rules say nothing about it.

Only verbs of choosing and scheduling count (``CHOOSING_VERBS``): "let's see", "let's go through it step by
step", "let's focus on the inductive step", "let's keep it short" or "let's move on" direct the
conversation, not the user's work; so does a choice made "here" or from the assistant's words ("let's use a
loop here", "let's use the equations you gave"). What is chosen must be named (a capitalised word: "Vite",
"Postgres") or, for a verb of scheduling, dated ("let's book the flights for May 3rd"): on a tutoring
conversation "let's go with the next step" means "move on". "let's" with a
verb of scheduling is a future cue for the dates it carries (``ingestion.temporal_cues``: "let's schedule the
launch for June 3rd", said in May, is this June; "let's look at what I did in March" stays in the past).
"Let's go with that" (a pronoun for what the assistant proposed) is ``rules_accepted``'s; so is any choice
whose object is only a pronoun.
"""

from __future__ import annotations

from typing import Final

from spacy.tokens import Span, Token

from ingestion.extractors.rules_clauses import Clause

#: Verbs whose "let's …" commits the user's own work (lemma, and the particle or preposition it needs).
CHOOSING_VERBS: Final = {
    "use": None,
    "go": "with",
    "stick": "with",
    "switch": "to",
    "migrate": "to",
    "pick": None,
    "choose": None,
    "adopt": None,
    "schedule": None,
    "book": None,
    "plan": None,
    "set": None,
    "deploy": None,
    "launch": None,
    "ship": None,
    "release": None,
}
#: ... of which these are scheduling: they commit the user with a date instead of a name.
SCHEDULING_VERBS: Final = frozenset(
    {"schedule", "book", "plan", "set", "deploy", "launch", "ship", "release"}
)
_US: Final = frozenset({"'s", "us", "’s"})
#: Words that put the choice inside the answer being written, not the user's work.
_THE_ANSWER: Final = frozenset({"here", "you", "your", "yours"})
_PRONOUNS: Final = frozenset({"that", "it", "this", "them", "those", "these", "one"})
TEMPLATE: Final = "{s} will {o}."


def says_lets(sent: Span) -> bool:
    """The sentence has a "let's …" (so it is read, though it has no "I" or "my")."""
    return any(t.lower_ in _US and t.dep_ == "nsubj" and t.head.head.lemma_ == "let" for t in sent)


def lets_choice(clause: Clause) -> tuple[Token, ...] | None:
    """The words of the choice a "let's <choose> X" clause states, from its verb on ("use Tailwind for the
    styling"), or None."""
    head, subject = clause.head, clause.subject
    if subject is None or subject.lower_ not in _US or head.head.lemma_ != "let" or head.head.i == head.i:
        return None
    lemma = head.lemma_.lower()
    if lemma not in CHOOSING_VERBS or head.tag_ != "VB":
        return None
    needed = CHOOSING_VERBS[lemma]
    rest = tuple(t for t in clause.tokens if t.i > head.i)
    if needed is not None and (not rest or rest[0].lower_ != needed):
        return None  # "let's go home", "let's switch it up"
    while rest and (rest[-1].is_punct or rest[-1].lower_ == "then"):
        rest = rest[:-1]  # "let's go with Postgres then"
    words = [t for t in rest if not t.is_punct and t.lower_ != needed]
    if not words or all(t.lower_ in _PRONOUNS or t.pos_ == "DET" for t in words):
        return None  # "let's go with that": what the assistant proposed (rules_accepted)
    if any(t.lower_ in _THE_ANSWER for t in words):
        return None  # "let's use a loop here", "let's use the equations you gave": a step of the answer
    named = any(t.text[:1].isupper() for t in words)  # "Tailwind", "Postgres"
    dated = lemma in SCHEDULING_VERBS and any(t.ent_type_ in ("DATE", "TIME") for t in words)
    return (head, *rest) if named or dated else None  # not "let's go with the next step"
