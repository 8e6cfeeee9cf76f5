"""A taste said of the thing rather than of the speaker: "Sci-fi isn't really my thing", "Jazz is my jam",
"Horror movies are not my cup of tea", "Running is not for me" → ``likes`` / ``dislikes`` the clause's
subject, claimed in the clause's own words ("Sci-fi isn't really User's thing."). Before, nothing: the
clause's subject is not the speaker.

Only with the speaker's own "my thing / jam / cup of tea", or "not for me" (an affirmative "is for me" is
as often whom a thing is meant for: "This gift is for me"); not of a pronoun ("It's not my thing": what
"it" is, the sentence does not say), nor a thing with a task ("The bug is not my thing to fix").
"""

from __future__ import annotations

from typing import Final

from spacy.tokens import Token

from ingestion.extractors.rules_clauses import Clause
from ingestion.extractors.rules_grammar import (
    Fact,
    first_child,
    is_negated,
    phrase,
    prep_object,
    speakers_own,
)
from ingestion.extractors.rules_lexicon import words

#: "my thing", "my jam"; "my cup of tea" is read apart.
TASTE_NOUNS: Final = words("thing jam")
SUBJECT_POS: Final = frozenset({"NOUN", "PROPN", "VERB"})  # "Running is not for me": a gerund


def _taste_noun(attr: Token | None) -> bool:
    if attr is None or not speakers_own(attr) or any(c.dep_ in ("relcl", "acl") for c in attr.children):
        return False
    if attr.lower_ in TASTE_NOUNS:
        return True
    tea = prep_object(attr, ("of",))
    return attr.lower_ == "cup" and tea is not None and tea.lower_ == "tea"


def taste_of_thing(clause: Clause) -> Fact | None:
    """``likes`` / ``dislikes`` of "X is (not) my thing" and "X is not for me" (module doc), or None."""
    head = clause.head
    subj = clause.subject or first_child(head, "csubj")
    if head.lemma_ != "be" or subj is None or subj.pos_ not in SUBJECT_POS:
        return None
    negated = is_negated(head)
    if _taste_noun(first_child(head, "attr")):
        predicate = "dislikes" if negated else "likes"
    elif negated and (whom := prep_object(head, ("for",))) is not None and whom.lower_ in ("me", "us"):
        predicate = "dislikes"
    else:
        return None
    return Fact(predicate, "preference", phrase(subj, clause))
