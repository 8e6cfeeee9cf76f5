"""Named people and pets introduced by a possessive: "my wife Sara", "Sara, my wife", "my friend Tom",
"my wife's name is Sara", "my sister is Anna", "Anna is my sister", "Tom became my manager", "my dog Rex",
"my two kids, Max and Lily"; a pet the speaker got, named in the words after it ("We adopted a puppy. His
name is Mochi."); and a name said with the contraction "name's" ("My name's Priya", "my wife's name's Sara"),
which the parser reads as a possessive ("name's Priya" like "Ana's Priya").

Each gives its own relationship candidate with a templated claim ("User's wife is Sara.",
"User has a dog named Rex."), alongside whatever the sentence itself says. An unnamed "my sister" gives no
relationship candidate: there is no entity to link and the sentence's own claim already keeps it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from spacy.tokens import Span, Token

from ingestion.extractors.base import Kind
from ingestion.extractors.rules_grammar import Fact, first_child, name_of, names_attached, speakers_own
from ingestion.extractors.rules_lexicon import PET_NOUNS, RELATION_NOUNS
from ingestion.extractors.rules_patterns_be import NAME_TEMPLATE

RELATION_TEMPLATE: Final = "{s}'s %s is {o}."
#: What a relation's claim says when the sentence corrects a name said before ("Sorry, I misspoke: my
#: sister's name is Klara"): reconcile then replaces the name it corrects (``ingestion.corrections``).
CORRECTED: Final = " (corrected)"
_CORRECTING: Final = re.compile(r"\b(?:misspoke|mis-spoke|typo|i meant|i mean(?! it\b)|correction)\b", re.I)
PET_TEMPLATE: Final = "{s} has a %s named {o}."
CHILD_TEMPLATE: Final = "{s} has a %s named {o}."
_PLURAL_TO_SINGULAR: Final = {"kids": "kid", "children": "child", "parents": "parent"}


@dataclass(frozen=True)
class RelationFact:
    fact: Fact
    start_char: int
    end_char: int


def _predicate_for(noun: Token) -> str | None:
    lemma = noun.lemma_.lower()
    if lemma in PET_NOUNS or noun.lower_ in PET_NOUNS:
        return "has_pet"
    return RELATION_NOUNS.get(lemma) or RELATION_NOUNS.get(noun.lower_)


def _names(noun: Token) -> list[tuple[Token, ...]]:
    names = names_attached(noun)
    if noun.dep_ == "appos" and noun.head.pos_ == "PROPN":
        names.append(name_of(noun.head))  # "Sara, my wife"
    head = noun.head
    if noun.dep_ == "poss" and head.lemma_.lower() == "name":  # "my wife's name is Sara"
        value = first_child(head.head, "attr") if head.dep_ == "nsubj" else _contracted(head)
        if value is not None and value.pos_ == "PROPN":
            names.append(name_of(value))
    if noun.dep_ == "nsubj" and head.lemma_ == "be":  # "my sister is Anna", "my sisters are Ana and Eva"
        value = first_child(head, "attr", "acomp")
        if value is not None and value.pos_ == "PROPN":
            names += [name_of(v) for v in (value, *value.conjuncts) if v.pos_ == "PROPN"]
    if noun.dep_ == "attr" and head.lemma_ in ("be", "become"):  # "Anna is my sister", "Tom became my boss"
        subject = first_child(head, "nsubj")
        if subject is not None and subject.pos_ == "PROPN" and subject.ent_type_ in ("", "PERSON"):
            names.append(name_of(subject))
    if not names and noun.i + 1 < len(noun.doc):
        nxt = noun.doc[noun.i + 1]  # "with my wife Sara" mis-parsed: Sara hangs off the verb
        if nxt.pos_ == "PROPN" and nxt.ent_type_ in ("", "PERSON"):
            names.append(_adjacent_name(nxt))
    return names


def _contracted(name: Token) -> Token | None:
    """The name after "name's" ("my wife's name's *Sara*"): the parser makes "name" a possessive of it."""
    doc = name.doc
    after = doc[name.i + 1] if name.i + 1 < len(doc) else None
    if name.dep_ != "poss" or after is None or after.lower_ != "'s" or after.dep_ != "case":
        return None
    return name.head if name.head.pos_ == "PROPN" and name.head.i > after.i else None


def own_name(sent: Span) -> list[RelationFact]:
    """ "My name's Priya Nair": the speaker's name, said with the contraction the parser misreads."""
    for name in sent:
        mine = any(c.lower_ == "my" and c.dep_ == "poss" for c in name.children)
        if name.lemma_.lower() != "name" or not mine:
            continue
        value = _contracted(name)
        if value is not None and value.ent_type_ in ("", "PERSON"):
            told = name_of(value)
            fact = Fact("name", "fact", told, template=NAME_TEMPLATE)
            return [RelationFact(fact, name.idx, told[-1].idx + len(told[-1].text))]
    return []


def _adjacent_name(first: Token) -> tuple[Token, ...]:
    toks = [first]
    while toks[-1].i + 1 < len(first.doc) and first.doc[toks[-1].i + 1].pos_ == "PROPN":
        toks.append(first.doc[toks[-1].i + 1])
    return tuple(toks)


def _template(pred: str, noun: Token) -> str:
    """The claim's template, with the relation in the singular: each name is one of "my two sisters"."""
    plural = noun.tag_ in ("NNS", "NNPS")
    word = _PLURAL_TO_SINGULAR.get(noun.lower_, noun.lemma_.lower() if plural else noun.lower_)
    if pred == "has_pet":  # the kind with its compounds: "a guinea pig", "a golden retriever"
        kind = [c.lower_ for c in noun.lefts if c.dep_ == "compound" and c.lower_ in PET_NOUNS]
        return PET_TEMPLATE % " ".join((*kind, word))
    if pred == "has_child" and noun.lower_ in _PLURAL_TO_SINGULAR:
        return CHILD_TEMPLATE % word
    return RELATION_TEMPLATE % word


#: Pronouns a pet's name is told with, in the words after it ("*His* name is Mochi", "*she*'s called Pepper").
PET_PRONOUNS: Final = frozenset({"he", "she", "it", "they", "him", "her", "his", "its", "their", "them"})
SPEAKER_SUBJECTS: Final = frozenset({"i", "we"})


def _gets_pet(noun: Token) -> bool:
    """ "We adopted *a puppy*", "I rescued a kitten": a pet the speaker got, not yet named."""
    lemma = noun.lemma_.lower()
    if noun.dep_ != "dobj" or not (lemma in PET_NOUNS or noun.lower_ in PET_NOUNS):
        return False
    return any(c.dep_ == "nsubj" and c.lower_ in SPEAKER_SUBJECTS for c in noun.head.children)


def _tells_name(value: Token) -> bool:
    """ "His name is *Mochi*", "she's called *Pepper*", "he is named *Rex*", "we named her *Biscuit*"."""
    head = value.head
    kids = {(c.dep_, c.lower_) for c in head.children}
    if value.dep_ == "attr" and head.lemma_ == "be":
        name = first_child(head, "nsubj")
        return (
            name is not None
            and name.lemma_ == "name"
            and any(c.dep_ == "poss" and c.lower_ in PET_PRONOUNS for c in name.children)
        )
    if value.dep_ not in ("oprd", "dobj", "attr") or head.lemma_.lower() not in ("call", "name"):
        return False
    told = any(dep == "nsubjpass" and word in PET_PRONOUNS for dep, word in kids)
    return told or any(dep == "nsubj" and word in SPEAKER_SUBJECTS for dep, word in kids)


def named_pet(sent: Span) -> list[RelationFact]:
    """A pet the speaker got, and its name told in the same or the next sentence ("We adopted a puppy. His
    name is Mochi." → "User has a puppy named Mochi.")."""
    pets = [t for t in sent if t.pos_ == "NOUN" and _gets_pet(t)]
    if len(pets) != 1 or pets[0].conjuncts:  # "a puppy and a kitten. His name is …": which one?
        return []
    pet, doc = pets[0], sent.doc
    after = doc[sent.end].sent.end if sent.end < len(doc) else sent.end
    value = next((t for t in doc[pet.i + 1 : after] if t.pos_ == "PROPN" and _tells_name(t)), None)
    if value is None:
        return []
    fact = Fact("has_pet", "fact", name_of(value), template=_template("has_pet", pet))
    return [RelationFact(fact, pet.idx, value.idx + len(value.text))]


def _owns_name(noun: Token) -> bool:
    """ "*My* dog Rex is old": the parser hangs "my" on the name and the relation on it as a compound."""
    return noun.dep_ == "compound" and noun.head.pos_ == "PROPN" and speakers_own(noun.head)


def relation_facts(sent: Span) -> list[RelationFact]:
    """Relationship/pet facts for every named "my <relation>" in the sentence, a pet named after it
    (:func:`named_pet`) and the speaker's own name said as "my name's …" (:func:`own_name`)."""
    out: list[RelationFact] = named_pet(sent) + own_name(sent)
    for noun in sent:
        if noun.pos_ != "NOUN" or not (speakers_own(noun) or _owns_name(noun)):
            continue
        pred = _predicate_for(noun)
        if pred is None:
            continue
        kind: Kind = "fact" if pred == "has_pet" else "relationship"
        for name in _names(noun):
            tokens = sorted({*name, noun}, key=lambda t: t.i)
            start, end = tokens[0].idx, tokens[-1].idx + len(tokens[-1].text)
            template = _template(pred, noun)
            if _CORRECTING.search(sent.text) and template.startswith("{s}'s "):
                template = template.removesuffix(".") + CORRECTED + "."
            out.append(RelationFact(Fact(pred, kind, name, template=template), start, end))
    return out
