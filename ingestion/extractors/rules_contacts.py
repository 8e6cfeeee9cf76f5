"""How to reach the speaker: "My email is sam@example.com", "My new number is 555-0199", "Please use my new
email sam.k@example.org", "You can reach me at +44 7700 900123". Before, "My email is …" stored nothing (an
address is no content word), "Please use my new email …" nothing (an imperative about no answer), and "My
phone number is …" / "My new number is …" were two generic facts of two subjects, both live.

Two single-valued predicates, ``email_address`` and ``phone_number``, whose object is the address or the
number as written, so a new one supersedes the old. Only the speaker's own and current one: not "my
sister's email", "my old number was …", nor a work one beside a personal one ("my work email is …" stays as
it is said).
"""

from __future__ import annotations

import re
from typing import Final

from spacy.tokens import Span, Token

from ingestion.extractors.rules_grammar import Fact, speakers_own
from ingestion.extractors.rules_lexicon import words
from ingestion.extractors.rules_relations import RelationFact

_EMAIL: Final = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_PHONE: Final = re.compile(r"\+?\(?\d[\d ().-]{5,}\d")
MIN_PHONE_DIGITS: Final = 7
#: The nouns of each way to reach someone ("my *email address*", "my *cell*").
NOUNS: Final = {
    "email_address": words("email e-mail address"),
    "phone_number": words("number phone cell mobile"),
}
CONTACT_NOUNS: Final = NOUNS["email_address"] | NOUNS["phone_number"]
#: Words that make it another one than the speaker's current one.
NOT_CURRENT: Final = words("work office business school old previous former")
#: Verbs of "you can reach me at …".
REACH_VERBS: Final = words("reach call text email contact")
#: How far before the value its noun may be ("my new cell phone number is").
NOUN_REACH: Final = 6
TEMPLATES: Final = {"email_address": "{s}'s email is {o}.", "phone_number": "{s}'s phone number is {o}."}


def holds_contact(noun: Token, tokens: tuple[Token, ...]) -> bool:
    """Whether the words of the speaker's ``noun`` ("my email") hold its current address or number: their
    generic claim is left out, the sentence's :func:`contact_facts` state it."""
    if {c.lower_ for c in noun.children} & NOT_CURRENT or any(t.lower_ in ("was", "were") for t in tokens):
        return False
    text = " ".join(t.text for t in tokens)
    phones = (m.group() for m in _PHONE.finditer(text))
    return _EMAIL.search(text) is not None or any(_digits(p) >= MIN_PHONE_DIGITS for p in phones)


def _digits(text: str) -> int:
    return sum(ch.isdigit() for ch in text)


def _values(sent: Span) -> list[tuple[str, int, int]]:
    """(predicate, start, end) of each email address and phone number in the sentence (document offsets)."""
    found = [("email_address", m.start(), m.end()) for m in _EMAIL.finditer(sent.text)]
    for m in _PHONE.finditer(sent.text):
        if _digits(m.group()) >= MIN_PHONE_DIGITS and not any(s <= m.start() < e for _, s, e in found):
            found.append(("phone_number", m.start(), m.end()))
    return [(pred, sent.start_char + s, sent.start_char + e) for pred, s, e in found]


def _owned_noun(before: list[Token], predicate: str) -> Token | None:
    """The speaker's noun of this way to reach them among the words before the value ("my new email")."""
    for tok in reversed(before):
        if tok.lower_ not in NOUNS[predicate]:
            continue
        owner = tok if speakers_own(tok) else tok.head if speakers_own(tok.head) else None
        if owner is None:
            return None
        mods = {c.lower_ for c in (*tok.children, *owner.children)}
        return None if mods & NOT_CURRENT else tok
    return None


def _reach_me(before: list[Token]) -> bool:
    """ "… reach me at", "call me on": the speaker's own, said without a noun."""
    said = [t.lower_ for t in before[-4:]]
    return len(said) >= 3 and said[-1] in ("at", "on") and said[-2] == "me" and said[-3] in REACH_VERBS


def contact_facts(sent: Span) -> list[RelationFact]:
    """``email_address`` / ``phone_number`` for each current one of the speaker's in the sentence (module
    doc)."""
    out = []
    for predicate, start, end in _values(sent):
        before = [t for t in sent if t.idx + len(t) <= start][-NOUN_REACH:]
        if any(t.lower_ in ("was", "were", "used") for t in before):
            continue  # "my old number was …", "I used to have …"
        noun = _owned_noun(before, predicate)
        if noun is None and not _reach_me(before):
            continue
        value = sent.doc.text[start:end]
        fact = Fact(predicate, "fact", object_text=value, template=TEMPLATES[predicate])
        out.append(RelationFact(fact, (noun.idx if noun is not None else before[0].idx), end))
    return out
