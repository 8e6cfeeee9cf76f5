"""A version corrected with a pronoun: "Correction: it's Flask 2.3, not 2.2", "Sorry, that was Python 3.11,
not 3.10", "Actually it's React 18, not 17". Before, nothing was stored (the sentence has no word of the
speaker's, and "it" names nothing a claim can hold), so "User uses Flask 2.2." stayed live.

What is corrected is a thing of the speaker's named with its version, and the version it rejects: ``uses``
the named version, as a change (an event), with the claim "User uses Flask 2.3, not 2.2."; reconcile's
rule of a new version (``conflicts.new_version``: the same name, another number) ends "uses Flask 2.2".
Only "it" / "that" / "this" is …, a proper name and its number, then ", not" and a number: not "it's
Flask, not Django" (no version), "my app runs Flask 2.3, not 2.2" (a subject of its own: the other rules).
"""

from __future__ import annotations

from typing import Final

from spacy.tokens import Span, Token

from ingestion.extractors.rules_grammar import Fact, first_child

#: Subjects that point at what was just said.
POINTERS: Final = frozenset({"it", "that", "this"})


def version_fix(sent: Span) -> tuple[tuple[Token, Token], str] | None:
    """The name and version the sentence corrects to, and the rejected version's text, or None."""
    root = sent.root
    subject, attr = first_child(root, "nsubj"), first_child(root, "attr")
    if root.lemma_ != "be" or subject is None or subject.lower_ not in POINTERS:
        return None
    if attr is None or attr.pos_ != "PROPN":
        return None
    doc, i = sent.doc, attr.i + 1
    if i + 3 >= sent.end or not doc[i].like_num:
        return None
    if [t.lower_ for t in doc[i + 1 : i + 3]] != [",", "not"] or not doc[i + 3].like_num:
        return None
    return (attr, doc[i]), doc[i + 3].text


def version_fix_fact(sent: Span) -> Fact | None:
    """``uses`` the corrected version (module doc), or None."""
    found = version_fix(sent)
    if found is None:
        return None
    named, rejected = found
    return Fact("uses", "event", named, template=f"{{s}} uses {{o}}, not {rejected}.")
