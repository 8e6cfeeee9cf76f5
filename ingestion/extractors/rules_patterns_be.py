"""Patterns on "be", "have/get" and job nouns for clauses about the speaker.

* "I'm interested in / keen on X" → ``interested_in``; "I'm allergic to X" → ``allergic_to``;
  "I'm vegan" / "I'm a vegetarian" → ``diet``; "I'm married (to X)" → ``relationship_status`` (+ ``spouse``);
  "I'm from X" → ``is_from``; "I'm based in X" → ``lives_in``; "I'm into X" / "a big fan of X" → ``likes``;
  "I'm 34" → ``age``; "I'm a data engineer (at Acme)" → ``job_title`` (+ ``works_at``); "I'm a student at X"
  → ``studies_at``.
* "I have / got a dog named Rex" → ``has_pet`` (the name when given, else the animal); kids, siblings and
  partners likewise; "a peanut allergy" → ``allergic_to``; cars, laptops, ... → ``owns``. "got married" →
  ``relationship_status``.
* "I got / started / landed a job at X as Y" → ``works_at`` + ``job_title`` (never for "lost my job").
"""

from __future__ import annotations

from typing import Final

from spacy.tokens import Token

from ingestion.extractors.base import Kind
from ingestion.extractors.rules_clauses import Clause
from ingestion.extractors.rules_grammar import (
    Fact,
    a_name,
    children,
    core,
    first_child,
    is_negated,
    is_past,
    name_of,
    names_attached,
    phrase,
    prep_object,
    speakers_own,
    split_conjuncts,
)
from ingestion.extractors.rules_lexicon import (
    DIETS,
    GROUP_NOUNS,
    INTEREST_ADJECTIVES,
    JOB_NOUNS,
    JOB_TAKING_VERBS,
    OCCUPATIONS,
    OWNABLE_NOUNS,
    PET_NOUNS,
    RELATION_NOUNS,
    RELATIONSHIP_STATUSES,
    words,
)
from ingestion.temporal import MONTH_WORDS, WEEKDAYS

POSSESSION_VERBS: Final = frozenset({"have", "get", "own"})
NAME_TEMPLATE: Final = "{s}'s name is {o}."
#: The status of one who has a partner ("I have a girlfriend"): it replaces "single".
IN_A_RELATIONSHIP: Final = "in a relationship"
STATUS_PARTNER: Final = {"married": "spouse", "engaged": "partner"}


def _age(clause: Clause) -> str | None:
    for tok in clause.tokens:
        if tok.like_num and (tok.head.lemma_ in ("year", "old") or tok.dep_ in ("attr", "acomp")):
            return tok.text
    return None


def _has_an_age(clause: Clause) -> bool:
    """The clause is about the speaker, a relative or a pet: a bare number after "is" is then an age."""
    if clause.subject_kind == "speaker":
        return True
    noun = clause.subject.lemma_.lower() if clause.subject is not None else ""
    return noun in RELATION_NOUNS or noun in PET_NOUNS


def _named(name: Token, clause: Clause) -> bool:
    """ "I'm Ana": a word spelled as a name follows the copula directly ("I'm binge-watching Severance" is
    no name, and neither is "my base case is n=2" or "my slope is m")."""
    parts = name_of(name)
    spelled = all(t.text[:1].isupper() and t.text.replace("-", "").replace("'", "").isalpha() for t in parts)
    return spelled and parts[0].i == clause.head.i + 1


def _acomp_facts(clause: Clause, acomp: Token) -> list[Fact]:
    lemma, low = acomp.lemma_.lower(), acomp.lower_
    if acomp.pos_ == "PROPN" and _named(acomp, clause):
        return [Fact("name", "fact", name_of(acomp), template=NAME_TEMPLATE)]  # "I'm Ana", read as acomp
    if lemma in INTEREST_ADJECTIVES:
        obj = prep_object(acomp, ("in", "on", "about", "by"))
        return [Fact("interested_in", "preference", phrase(obj, clause))] if obj is not None else []
    if lemma == "allergic":
        obj = prep_object(acomp, ("to",))
        misread = first_child(acomp, "xcomp")  # "allergic to shellfish", "shellfish" read as a verb
        if obj is None and misread is not None:
            return [Fact("allergic_to", "fact", (misread,))]
        return split_conjuncts(Fact("allergic_to", "fact", phrase(obj, clause)), obj, clause) if obj else []
    if low in DIETS:
        return [Fact("diet", "fact", object_text=low)]
    if low in RELATIONSHIP_STATUSES:
        status = Fact("relationship_status", "relationship", object_text=low)
        partner = prep_object(acomp, ("to", "from"))
        if partner is not None and not _a_person(partner):
            return []  # "married to the idea of …", "separated from the rest of the team": no status
        if partner is not None and low in STATUS_PARTNER and partner.i > acomp.i:
            return [Fact(STATUS_PARTNER[low], "relationship", phrase(partner, clause)), status]
        return [status]
    if lemma == "based":
        obj = prep_object(acomp, ("in",))
        return [Fact("lives_in", "fact", phrase(obj, clause))] if obj is not None else []
    if lemma == "old":
        age = _age(clause)
        return [Fact("age", "fact", object_text=age)] if age else []
    return []


def _a_person(noun: Token) -> bool:
    """A name, a person by the NER, or a person of one's own ("my high school sweetheart")."""
    return noun.pos_ == "PROPN" or noun.ent_type_ == "PERSON" or speakers_own(noun)


#: Named things one is "on" that are no tool one uses ("on Broadway", "on Main Street"; a day or a month is
#: read by its name); the model's other labels of product names are many ("React 17" an event, "Vue 3" a
#: date, "MacBook Pro" a person), so those are kept.
NOT_TOOLS: Final = frozenset({"GPE", "LOC", "FAC"})
#: Who studies at a school ("a sophomore at UCLA" is a student there, no employee).
STUDENTS: Final = frozenset({"student", "sophomore", "freshman", "undergrad", "undergraduate", "postgrad"})
#: What one is "at" a company without working there ("a customer at Acme", "a member at the club").
NOT_JOBS: Final = words("member regular customer client patient guest user subscriber visitor resident")


def _a_day(tok: Token) -> bool:
    """ "on Monday", "on March 3rd": a day, not a tool."""
    return tok.lower_ in WEEKDAYS or tok.lower_ in MONTH_WORDS or tok.ent_type_ == "TIME"


def _at_a_company(attr: Token) -> bool:
    """ "an actuary at Pinebrook Insurance": a noun the lexicon does not know, at an organisation the model
    names, is a job all the same."""
    employer = prep_object(attr, ("at", "for"))
    known = employer is not None and employer.ent_type_ == "ORG"
    return known and attr.pos_ == "NOUN" and attr.lemma_.lower() not in NOT_JOBS


def _attr_facts(clause: Clause, attr: Token) -> list[Fact]:
    lemma, low = attr.lemma_.lower(), attr.lower_
    speaker = clause.subject_kind in ("speaker", "implicit")  # not "my sister's favourite book is Emma"
    if speaker and attr.pos_ == "PROPN" and attr.ent_type_ in ("", "PERSON") and _named(attr, clause):
        return [Fact("name", "fact", name_of(attr), template=NAME_TEMPLATE)]  # "I'm Ana"
    if lemma == "fan":
        obj = prep_object(attr, ("of",))
        return [Fact("likes", "preference", phrase(obj, clause))] if obj is not None else []
    if low in DIETS:
        return [Fact("diet", "fact", object_text=low)]
    if attr.like_num and _has_an_age(clause):  # "I'm 34", "my son is 4"; not "my budget is $2,000"
        return [Fact("age", "fact", object_text=attr.text)]
    if lemma in STUDENTS:
        school = prep_object(attr, ("at", "in"))
        facts = [Fact("job_title", "fact", object_text="student")]
        if school is not None:
            facts.append(Fact("studies_at", "fact", phrase(school, clause)))
        return facts
    if lemma in OCCUPATIONS or _at_a_company(attr):
        aged = _years_old(attr)  # "a 34-year-old product manager": an age, and a job without it
        title = tuple(t for t in core(attr) if aged is None or t not in aged[1])
        facts = [Fact("job_title", "fact", title)]
        facts += [Fact("age", "fact", object_text=aged[0].text, template=AGE_TEMPLATE)] if aged else []
        employer = prep_object(attr, ("at", "for", "with"))
        if employer is not None:
            facts.append(Fact("works_at", "fact", phrase(employer, clause)))
        origin = prep_object(attr, ("from",))  # "a nurse, originally from Toronto"; not "from Google"
        if origin is not None and (origin.ent_type_ == "GPE" or _originally(origin)):
            facts.append(Fact("is_from", "fact", phrase(origin, clause)))
        return facts
    return []


AGE_TEMPLATE: Final = "{s} is {o} years old."


def _years_old(noun: Token) -> tuple[Token, frozenset[Token]] | None:
    """The number of "a 34-year-old nurse" / "a 34 year old nurse" and the words that say it."""
    for old in (c for c in noun.lefts if c.dep_ == "amod" and c.lower_ == "old"):
        said = frozenset(old.subtree)
        number = next((t for t in said if t.like_num and t.head.lemma_ == "year"), None)
        if number is not None:
            return number, said
    return None


def _originally(place: Token) -> bool:
    said = (*place.head.children, *place.head.head.children)  # "originally" under "from" or the noun
    return any(c.lower_ == "originally" and c.dep_ == "advmod" for c in said)


def copula_facts(clause: Clause, *, positive: bool = False) -> list[Fact]:
    """Facts from "I am ..." clauses (negated copulas are left to the generic fallback); ``positive``
    reads a negated clause as if it were not (``rules_patterns_change`` turns those facts into endings)."""
    head = clause.head
    if is_negated(head) and not positive:
        attr = first_child(head, "attr")
        if attr is not None and attr.lemma_.lower() == "fan":
            obj = prep_object(attr, ("of",))
            return [Fact("dislikes", "preference", phrase(obj, clause))] if obj is not None else []
        return []
    if is_past(head):
        return []
    facts: list[Fact] = []
    for acomp in children(head, "acomp"):
        facts += _acomp_facts(clause, acomp)
    for attr in children(head, "attr"):
        facts += _attr_facts(clause, attr)
    origin = prep_object(head, ("from",))
    if origin is not None and any(a_name(t) for t in origin.subtree):  # "from Leeds", "from a town in Ohio"
        facts.append(Fact("is_from", "fact", phrase(origin, clause)))
    on = prep_object(head, ("on",))
    if on is not None and on.pos_ == "PROPN" and on.ent_type_ not in NOT_TOOLS and not _a_day(on):
        said = phrase(on, clause, times=True)  # "Vue 3", read as a date
        if not any(t.lemma_.lower() in GROUP_NOUNS for t in said):  # "We're on React 17"; not "on Team X"
            facts.append(Fact("uses", "fact", said))
    liked = prep_object(head, ("into",))
    if liked is not None:
        facts += split_conjuncts(Fact("likes", "preference", phrase(liked, clause)), liked, clause)
    return facts


def _named_or_noun(noun: Token) -> list[tuple[tuple[Token, ...], str | None]]:
    names = names_attached(noun)
    if names:
        return [(n, None) for n in names]
    return [((), noun.lemma_.lower())]


def _more_named(noun: Token, pred: str) -> list[tuple[Token, tuple[Token, ...]]]:
    """The names of more of the same kind joined to the first ("a cat named Luna and a dog named Max"; the
    parse joins "dog" to "Luna"). Only named ones: "two sons and a daughter" is the clause's own claim."""
    named = [noun, *(n for name in names_attached(noun) for n in name)]
    joined = {c.i: c for t in named for c in t.conjuncts if c.pos_ == "NOUN" and c.i > noun.i}
    out: list[tuple[Token, tuple[Token, ...]]] = []
    for other in joined.values():
        lemma = other.lemma_.lower()
        if ("has_pet" if lemma in PET_NOUNS else RELATION_NOUNS.get(lemma)) == pred:
            out += [(other, name) for name in names_attached(other)]
    return out


def _married_to(head: Token) -> Token | None:
    """The name said before "and I" of "Daniel and I got married" (or of its misparse, with the name as the
    root and "I got married" joined to it)."""
    named = next((c for c in head.children if c.dep_ in ("nsubj", "nsubjpass") and c.pos_ == "PROPN"), None)
    if named is not None and any(c.lower_ == "i" for c in named.conjuncts):
        return named
    return head.head if head.dep_ == "conj" and head.head.pos_ == "PROPN" and head.head.i < head.i else None


def possession_facts(clause: Clause) -> list[Fact]:
    """Facts from "I have/got/own ..." clauses."""
    head = clause.head
    lemma = head.lemma_.lower()
    if head.lower_ in RELATIONSHIP_STATUSES and any(c.dep_ == "auxpass" for c in head.children):
        other = prep_object(head, ("to", "from"))  # "separated from the rest of the team": no status
        if other is not None and not _a_person(other):
            return []
        got = Fact("relationship_status", "relationship", object_text=head.lower_)  # "I got married"
        named = _married_to(head)
        if head.lower_ in STATUS_PARTNER and named is not None:
            return [got, Fact(STATUS_PARTNER[head.lower_], "relationship", name_of(named))]
        return [got]
    if lemma not in POSSESSION_VERBS or is_negated(head):
        return []
    kind: Kind = "event" if lemma == "get" and is_past(head) else "fact"
    status = next((t for t in head.children if t.lower_ in RELATIONSHIP_STATUSES), None)
    if lemma == "get" and status is not None:
        return [Fact("relationship_status", "relationship", object_text=status.lower_)]
    dobj = first_child(head, "dobj")
    if dobj is None:
        return []
    noun = dobj.lemma_.lower()
    pred = "has_pet" if noun in PET_NOUNS else RELATION_NOUNS.get(noun)
    if pred == "sibling" and noun == "twin" and lemma == "have" and is_past(head):
        pred = "has_child"  # "my sister just had twins": born to her, not her siblings
    if noun in ("girl", "boy") and any(c.lower_ == "baby" for c in dobj.children):
        pred = "has_child"  # "we had a baby girl"
    if pred is not None and pred not in ("friend", "colleague", "mentor", "manager"):
        rel_kind: Kind = "fact" if pred == "has_pet" else "relationship"
        had = [Fact(pred, rel_kind, tokens, literal) for tokens, literal in _named_or_noun(dobj)]
        had += [
            Fact(pred, rel_kind, name, template=f"{{s}} has a {other.lower_} named {{o}}.")
            for other, name in _more_named(dobj, pred)
        ]
        if pred == "partner" and kind == "fact":  # "I have a boyfriend": no longer single
            had.append(Fact("relationship_status", "relationship", object_text=IN_A_RELATIONSHIP))
        return had
    if noun == "allergy":
        allergen = prep_object(dobj, ("to",))
        tokens = phrase(allergen, clause) if allergen is not None else core(dobj)[:-1]
        return [Fact("allergic_to", "fact", tokens)] if tokens else []
    if noun in OWNABLE_NOUNS or dobj.ent_type_ == "PRODUCT":
        return [Fact("owns", kind, phrase(dobj, clause))]
    return []


def job_noun_facts(clause: Clause) -> list[Fact]:
    """ "I got/started/landed a job at X (as Y)" → works_at X (+ job_title Y)."""
    head = clause.head
    if head.lemma_.lower() not in JOB_TAKING_VERBS or is_negated(head):
        return []
    kind: Kind = "event" if is_past(head) else "fact"
    facts: list[Fact] = []
    for noun in children(head, "dobj"):
        if noun.lemma_.lower() not in JOB_NOUNS:
            continue
        title = prep_object(noun, ("as",)) or prep_object(head, ("as",))
        employer = prep_object(noun, ("at", "with", "for"))
        if employer is None and title is not None:  # "a job as a nurse at St Mary's": "at" under the title
            employer = prep_object(title, ("at", "for"))
            at = prep_object(head, ("at",))  # or on the verb: "… as a hygienist | at Lindqvist Dental"
            if employer is None and at is not None and at.pos_ == "PROPN":
                employer = at
        if employer is not None:
            facts.append(Fact("works_at", kind, phrase(employer, clause)))
        if title is not None:
            facts.append(Fact("job_title", kind, core(title)))
    return facts
