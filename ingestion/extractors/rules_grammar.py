"""Small dependency-parse helpers shared by the rules extractor's pattern modules."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Final

from spacy.tokens import Token

from ingestion.extractors.base import Kind
from ingestion.extractors.rules_clauses import Clause
from ingestion.extractors.rules_lexicon import OBJECT_LEADING_DROP

NEGATION_DEPS: Final = frozenset({"neg"})
NEGATION_WORDS: Final = frozenset({"never", "no longer"})
TIME_LABELS: Final = frozenset({"DATE", "TIME"})
NAME_VERBS: Final = frozenset({"name", "call"})
#: Predicates whose coordinated noun objects are separate items (one candidate each).
SPLIT_PREDICATES: Final = frozenset(
    {"allergic_to", "likes", "dislikes", "visited", "owns", "hobby", "has_pet", "prefers", "studies", "uses"}
)
NAME_SLOT_DEPS: Final = frozenset({"oprd", "attr", "dobj", "npadvmod", "appos"})


@dataclass(frozen=True)
class Fact:
    """One (predicate, object) a clause states about its subject.

    ``template`` (with ``{s}`` for the subject and ``{o}`` for the object) gives the claim text when the
    clause's own words would not read as a standalone claim; otherwise the rewritten clause is the claim, or
    the part of it in ``claim_tokens`` (one of two verbs that share a subject: "I finished Dune and started
    a thriller" → "I finished Dune", "I started a thriller").
    """

    predicate: str
    kind: Kind
    object_tokens: tuple[Token, ...] = ()
    object_text: str | None = None
    template: str | None = None
    specific: bool = True
    hedged: bool = False
    claim_tokens: tuple[Token, ...] | None = None


def children(tok: Token, *deps: str) -> list[Token]:
    return [c for c in tok.children if c.dep_ in deps]


def first_child(tok: Token, *deps: str) -> Token | None:
    return next((c for c in tok.children if c.dep_ in deps), None)


def speakers_own(noun: Token) -> bool:
    """ "*my* name", "*our* rent": the speaker owns the noun itself, not through another ("my sister's name";
    ``rules_clauses.owned_by_speaker`` follows such chains)."""
    return any(c.dep_ == "poss" and c.lower_ in ("my", "our") for c in noun.children)


#: Adverbs of direction the parser hangs a verb's preposition under ("moved *back* to Ohio").
DIRECTION_ADVERBS = frozenset({"back", "over", "out", "away", "down", "up"})


def prep_object(tok: Token, preps: Iterable[str]) -> Token | None:
    """The object of a preposition attached to ``tok`` ("interested *in* X" → X), or to its adverb of
    direction ("moved back to Ohio")."""
    wanted = set(preps)
    directions = [c for c in tok.children if c.dep_ == "advmod" and c.lower_ in DIRECTION_ADVERBS]
    for prep in (*tok.children, *(g for d in directions for g in d.children)):
        if prep.dep_ in ("prep", "agent", "dative") and prep.lower_ in wanted:
            obj = first_child(prep, "pobj", "pcomp")
            if obj is not None:
                return obj
    return None


def is_negated(tok: Token) -> bool:
    """ "not", "n't", "never", or a "no" complement ("I'm no writer")."""
    if any(c.dep_ in NEGATION_DEPS or c.lower_ == "never" for c in tok.children):
        return True
    if any(c.dep_ in ("attr", "dobj") and any(d.lower_ == "no" for d in c.children) for c in tok.children):
        return True
    return tok.head.dep_ != "ROOT" and tok.dep_ in ("xcomp", "acomp") and is_negated(tok.head)


def is_past(head: Token) -> bool:
    """Simple past or past progressive ("I moved", "I was living"); present perfect is not past."""
    if head.tag_ == "VBD":
        return True
    return any(c.dep_ in ("aux", "auxpass") and c.tag_ == "VBD" for c in head.children)


def is_progressive(head: Token) -> bool:
    return head.tag_ == "VBG" and any(c.dep_ == "aux" and c.lemma_ == "be" for c in head.children)


def phrase(tok: Token, clause: Clause, *, times: bool = False) -> tuple[Token, ...]:
    """The subtree of ``tok`` inside the clause, without leading determiners or edge punctuation, nor times
    ("every morning"), except a time that names a kind of the thing ("morning meetings") or, with
    ``times``, any ("prefers to work at night")."""
    inside = {t.i for t in clause.tokens}
    toks = [
        t
        for t in tok.subtree
        if t.i in inside and (t.i == tok.i or times or not _a_time(t) or _kind_of(t, tok))
    ]
    while toks and (toks[0].lower_ in OBJECT_LEADING_DROP and toks[0].i != tok.i or toks[0].is_punct):
        toks = toks[1:]
    while toks and (toks[-1].is_punct or toks[-1].pos_ in ("CCONJ", "SPACE") or _bare_prep(toks[-1], toks)):
        toks = toks[:-1]
    return tuple(toks)


#: A count in thousands ("a 10k", "85k"), which the entity model calls a date.
_THOUSANDS: Final = re.compile(r"^\d+k$", re.IGNORECASE)


def _a_time(tok: Token) -> bool:
    return tok.ent_type_ in TIME_LABELS and not _THOUSANDS.match(tok.text)


def _bare_prep(tok: Token, kept: list[Token]) -> bool:
    """A preposition whose object was left out (a time: "work at night" → "work", not "work at")."""
    return (
        tok.dep_ == "prep"
        and any(c.dep_ == "pobj" for c in tok.children)
        and not set(tok.children) & set(kept)
    )


#: Words that set a thing preferred against another ("coffee *over* tea", "flying *to* trains").
AGAINST: Final = frozenset({"over", "to", "instead", "rather"})


def preferred_phrase(tok: Token, clause: Clause) -> tuple[Token, ...]:
    """:func:`phrase` with its times (when is what is preferred: "to work at night") up to what it is
    preferred against: "coffee over green tea" → "coffee"."""
    cut = next((c.i for c in tok.children if c.i > tok.i and c.lower_ in AGAINST), None)
    return tuple(t for t in phrase(tok, clause, times=True) if cut is None or t.i < cut)


def _kind_of(mod: Token, noun: Token) -> bool:
    """``mod`` modifies ``noun`` directly, before it: "*morning* meetings", "*weekend* plans"."""
    return mod.head.i == noun.i and mod.i < noun.i and mod.dep_ in ("compound", "amod", "nmod")


#: Nouns that say little without their "of" ("head of data", "director of engineering", "VP of Sales").
OF_HEADS: Final = frozenset({"head", "director", "vp", "chief", "professor", "dean", "president"})


def core(tok: Token) -> tuple[Token, ...]:
    """A noun with its compounds and adjectives but no clauses/prepositions ("a senior data engineer at X"
    → "senior data engineer"), except the "of" of an ``OF_HEADS`` noun ("head of data")."""
    mods = [c for c in tok.lefts if c.dep_ in ("compound", "amod", "nmod", "nummod") and c.pos_ != "DET"]
    # "a team lead": the tagger may read the noun before as the subject
    mods += [c for c in tok.lefts if c.dep_ == "nsubj" and c.i == tok.i - 1 and c.pos_ == "NOUN"]
    toks = [
        t
        for m in mods
        for t in m.subtree
        if t.dep_ != "poss" and t.pos_ != "DET" and (t.pos_ != "PUNCT" or t.tag_ == "HYPH")
    ]
    of = next((c for c in tok.rights if c.dep_ == "prep" and c.lower_ == "of"), None)
    field = next((c for c in of.children if c.dep_ == "pobj"), None) if of is not None else None
    if of is not None and field is not None and tok.lemma_.lower() in OF_HEADS:  # "head of data"
        return (*sorted(toks, key=lambda t: t.i), tok, of, *core(field))
    return (*sorted(toks, key=lambda t: t.i), tok)


def name_of(tok: Token) -> tuple[Token, ...]:
    """A proper name with its compound parts ("Mary Jane")."""
    parts = [c for c in tok.lefts if c.dep_ == "compound" and c.pos_ == "PROPN"]
    return (*parts, tok)


def names_attached(tok: Token) -> list[tuple[Token, ...]]:
    """Proper names a noun introduces: appositions ("my wife Sara", "two kids, Max and Lily") and
    "named/called X" ("a dog named Rex")."""
    found: list[Token] = []
    for c in tok.children:
        if c.dep_ in ("appos", "conj") and c.pos_ == "PROPN":
            found.append(c)
        elif c.dep_ == "acl" and c.lemma_.lower() in NAME_VERBS:
            found.extend(g for g in c.children if g.dep_ in NAME_SLOT_DEPS and g.pos_ == "PROPN")
    if tok.dep_ == "compound" and tok.head.pos_ == "PROPN":
        found.append(tok.head)  # "my friend Tom" parsed as compound(Tom, friend)
    named: dict[int, Token] = {}
    for name in found:  # with every name joined to it ("Emma, Noah and Liam": a chain of conjuncts)
        for each in (name, *name.conjuncts):
            if each.pos_ == "PROPN" and not _is_pronoun(each) and each.i >= name.i:
                named.setdefault(each.i, each)
    return [name_of(name) for _, name in sorted(named.items())]


def _is_pronoun(tok: Token) -> bool:
    """ "I" glued to a final period ("my husband and I.") is tagged a proper noun; it is never a name."""
    return tok.text.rstrip(".").lower() in ("i", "me", "you", "we")


def a_name(tok: Token) -> bool:
    """A name, also where the tagger calls it a noun ("I'm from Leeds", "a flat in Leeds")."""
    capitalised_noun = tok.pos_ == "NOUN" and tok.text.istitle()
    return tok.pos_ == "PROPN" or tok.ent_type_ in ("GPE", "LOC") or capitalised_noun


def text_of(tokens: Iterable[Token]) -> str:
    """The tokens as written (original spacing; "dairy-free" stays one word)."""
    return " ".join("".join(t.text_with_ws for t in sorted(tokens, key=lambda t: t.i)).split())


def particle(head: Token) -> str:
    prt = first_child(head, "prt")
    return prt.lower_ if prt is not None else ""


def split_conjuncts(fact: Fact, obj: Token, clause: Clause) -> list[Fact]:
    """ "allergic to peanuts and shellfish" → one fact per noun, for predicates whose objects are items."""
    if fact.object_text is not None or fact.predicate not in SPLIT_PREDICATES:
        return [fact]
    items = [obj, *(c for c in obj.conjuncts if c.i > obj.i)]
    if len(items) == 1 or any(t.pos_ not in ("NOUN", "PROPN") for t in items):
        return [fact]
    return [replace(fact, object_tokens=core(t) if t.pos_ == "NOUN" else name_of(t)) for t in items]
