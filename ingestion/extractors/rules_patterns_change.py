"""Clauses about the speaker that say their situation changed: the new value, or that the old one ended.

The point is supersession (``ingestion/extractors/predicates.py``, "A change names the state it replaces"):
every verb of change lands on the single-valued predicate of the state it changes, or on an ending that
reconcile matches against the live memory it ends.

* "I joined / I'm now at / I'm at X now" with X a named organisation → ``works_at`` X. ("I joined a book
  club" stays ``member_of``; a person or place is never an employer.)
* "I switched / moved / migrated / changed (from Y) to X" with X a programming language → ``main_language``
  X; any other X → ``uses`` X (a name with its version: "Python 3.12"), and "from Y" → ``no_longer_uses`` Y.
  "I upgraded (Redis) to X": ``uses`` X, or the thing and its version ("Redis v7.0.5"); never a common
  noun. A diet ("switched to vegan") is left to the verb table (``diet``), a place ("moved to Denver"; a
  place by the NER or by name: ``ingestion.extractors.places``) to ``lives_in``, as is a home in one ("moved
  into a flat in Leeds").
* Replacements ("I replaced Jira with Linear", "I got rid of X", "I've gone off X", a value "now instead of
  Y"): ``rules_replacements``.
* "I got promoted to X" → ``job_title`` X; "I graduated from X" → ``left`` X (ends ``studies_at`` X).
* "I moved in with ... in X" → ``lives_in`` X. "I report to X" → ``manager`` X (see ``rules_relations``
  for "my new manager is X").
* Endings. "I no longer / don't ... anymore / am not ... anymore" + a pattern the other modules know →
  ``no_longer_<predicate>`` with the same object ("I don't work at Google anymore" → ``no_longer_works_at``
  Google; "I'm not vegan anymore" → ``no_longer_diet`` vegan). A plain negation of a single-valued state
  ("I don't live in Berlin") is an ending too: it contradicts any live value. "I stopped / quit / gave up
  V-ing O" → the same, for V's pattern (``no_longer_works_at``) or the generic ``no_longer_<verb>`` O
  ("I stopped eating meat" → ``no_longer_eat`` meat). Not eating meat is also ``diet`` vegetarian.
* "I left / quit / sold / gave up / gave away / dropped X" → ``left`` X (reconcile ends whatever live
  memory of a state names X: employer, home, school, group, partner, a thing owned, a habit such as
  "drinks coffee"); "I quit my job (at X)" → ``left`` X, or ``no_longer_works_at`` with no object (ends
  the current employer) when no employer is named. "I broke up with X", "X and I broke up", "I divorced X"
  → ``left`` X.
* "I started V-ing ..." ("I've started working at Figma") → V's own pattern.

Anything else returns no facts and the clause goes through the usual patterns.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import Final

from spacy.tokens import Token

from ingestion.extractors.places import is_place_name, is_small_place_name
from ingestion.extractors.predicates import LEFT, NO_LONGER_PREFIX, is_single_valued
from ingestion.extractors.rules_clauses import Clause
from ingestion.extractors.rules_grammar import (
    Fact,
    core,
    first_child,
    is_negated,
    name_of,
    particle,
    phrase,
    prep_object,
    text_of,
)
from ingestion.extractors.rules_job_loss import job_loss_facts
from ingestion.extractors.rules_lexicon import (
    DIETS,
    GROUP_NOUNS,
    HOME_NOUNS,
    JOB_NOUNS,
    MEAT_WORDS,
    PROGRAMMING_LANGUAGES,
)
from ingestion.extractors.rules_replacements import (
    ENDING_KIND,
    NOW_WORDS,
    name_or_phrase,
    replacement_facts,
    unowned,
)
from ingestion.temporal import WEEKDAYS

FactReader = Callable[[Clause], list[Fact]]

#: Verbs that end what their gerund / object names ("stopped eating", "quit my job", "gave up coffee").
STOP_VERBS: Final = frozenset({"stop", "quit", "cease", "abandon", "drop"})
STOP_PHRASALS: Final = frozenset(
    {("give", "up"), ("break", "up"), ("split", "up"), ("move", "out"), ("give", "away"), ("cut", "out")}
)
LEAVE_VERBS: Final = frozenset({"leave", "quit", "divorce", "exit", "sell"})
#: Multi-valued predicates a plain negation takes back ("I'm not allergic to shellfish after all").
DENIABLE: Final = frozenset({"allergic_to"})
SWITCH_VERBS: Final = frozenset(
    {"switch", "move", "migrate", "change", "transition", "convert", "upgrade", "downgrade"}
)
START_VERBS: Final = frozenset({"start", "begin"})
CODE_VERBS: Final = frozenset({"code", "program", "write", "develop", "work", "use"})
#: Verbs that say a language is the speaker's main one on their own ("I code in Go"); "use" needs a word
#: from ``MAIN_WORDS`` ("I mostly use Python"), else it is ``uses``.
MAIN_CODE_VERBS: Final = frozenset({"code", "program", "develop"})
MAIN_WORDS: Final = frozenset({"mostly", "mainly", "primarily", "main", "most", "usually", "exclusively"})
ANYMORE_WORDS: Final = frozenset({"anymore"})
#: NER labels that are never an employer.
NOT_EMPLOYER_LABELS: Final = frozenset({"PERSON", "GPE", "LOC", "FAC", "DATE", "TIME", "NORP"})
#: Parts of "since / from Y to X" naming where a switch came from.
FROM_PREPS: Final = ("from",)
DIET_WITHOUT_MEAT: Final = "vegetarian"


def no_longer_marked(clause: Clause) -> bool:
    """ "no longer", "anymore", "any more" in the clause."""
    words = [t.lower_ for t in clause.tokens]
    pairs = set(zip(words, words[1:], strict=False))
    return bool(ANYMORE_WORDS & set(words)) or ("no", "longer") in pairs or ("any", "more") in pairs


def _ending(fact: Fact) -> Fact:
    """``fact`` as the end of its state: ``works_at Google`` → ``no_longer_works_at Google``."""
    return replace(fact, predicate=NO_LONGER_PREFIX + fact.predicate, kind=ENDING_KIND, template=None)


def _is_language(tok: Token | None) -> bool:
    return tok is not None and tok.lower_ in PROGRAMMING_LANGUAGES


def _language_fact(tok: Token) -> Fact:
    return Fact("main_language", "fact", (tok,))


def _named_org(tok: Token | None) -> bool:
    """A proper name that can be an employer: not a person, place or date, not a club or group."""
    if tok is None or tok.ent_type_ in NOT_EMPLOYER_LABELS:
        return False
    if tok.pos_ != "PROPN" and not (tok.pos_ in ("NOUN", "X") and tok.text[:1].isupper()):
        return False  # a capitalised noun is a name the tagger missed ("PwC." read as one NN token)
    return not any(t.lemma_.lower() in GROUP_NOUNS for t in tok.subtree)


def _meat_facts(base: str, obj: tuple[Token, ...]) -> list[Fact]:
    """Not eating meat (any meat, not "red meat") is a vegetarian diet."""
    meat = [t for t in obj if t.lemma_.lower() in MEAT_WORDS]
    if base == "eat" and meat and not any(c.dep_ in ("amod", "compound") for t in meat for c in t.children):
        return [Fact("diet", "event", object_text=DIET_WITHOUT_MEAT)]
    return []


def _gerund_endings(clause: Clause, gerund: Token, positive: FactReader) -> list[Fact]:
    """ "stopped eating meat": the gerund's own pattern, else the generic ``no_longer_<verb>``."""
    sub = replace(clause, head=gerund)
    known = [_ending(f) for f in positive(sub) if f.predicate != "plans_to"]
    if known:
        return known
    base = gerund.lemma_.lower()
    # what was done, without how completely it stopped ("stopped drinking alcohol completely")
    manner = {t.i for c in (*gerund.children, *clause.head.children) if c.dep_ == "advmod" for t in c.subtree}
    obj = tuple(t for t in clause.tokens if t.i > gerund.i and not t.is_punct and t.i not in manner)
    if base == "do" and obj:  # "I stopped doing keto": "do" says nothing; keto itself ended
        return [Fact(LEFT, ENDING_KIND, obj)]
    return [Fact(NO_LONGER_PREFIX + base, ENDING_KIND, obj), *_meat_facts(base, obj)]


def _left(clause: Clause, obj: Token) -> list[Fact]:
    """ "I left Google", "I quit my job at Google", "I quit my job"."""
    if obj.lemma_.lower() in JOB_NOUNS:
        employer = prep_object(obj, ("at", "with", "for")) or prep_object(clause.head, ("at", "with", "for"))
        if employer is None:
            return [Fact(NO_LONGER_PREFIX + "works_at", ENDING_KIND, object_text="")]
        return [Fact(LEFT, ENDING_KIND, phrase(employer, clause))]
    return [Fact(LEFT, ENDING_KIND, unowned(phrase(obj, clause)))]


def _stop_facts(clause: Clause, positive: FactReader) -> list[Fact] | None:
    head = clause.head
    lemma, prt = head.lemma_.lower(), particle(head)
    phrasal = (lemma, prt) in STOP_PHRASALS
    if lemma not in STOP_VERBS | LEAVE_VERBS and not phrasal:
        return None
    if is_negated(head):
        return []  # "I didn't quit": nothing changed
    gerund = next((c for c in head.children if c.dep_ in ("xcomp", "dobj") and c.tag_ == "VBG"), None)
    if gerund is not None and (lemma in STOP_VERBS or phrasal):
        return _gerund_endings(clause, gerund, positive)
    partner = prep_object(head, ("with",)) if phrasal and prt == "up" and lemma != "give" else None
    if partner is not None:
        return [Fact(LEFT, ENDING_KIND, phrase(partner, clause))]  # "broke up with Sam"
    if phrasal and prt == "up" and lemma != "give" and clause.subject is not None:
        subjects = [c for c in head.children if c.dep_ == "nsubj"]  # "Sara and I" is two subjects at times
        together = [c for s in subjects for c in (s, *s.conjuncts) if c.pos_ == "PROPN"]
        if together:  # "Alex and I broke up"
            return [Fact(LEFT, ENDING_KIND, name_of(together[0]))]
        other = head.head
        if head.dep_ == "conj" and other.pos_ == "PROPN" and other.i < head.i:  # "Marco" + "I broke up"
            said = tuple(head.doc[other.i : clause.tokens[-1].i + 1])
            return [Fact(LEFT, ENDING_KIND, name_of(other), claim_tokens=said)]
    obj = first_child(head, "dobj")
    if obj is None and (lemma, prt) == ("give", "up"):
        obj = prep_object(head, ("on",))  # "I gave up on Spanish"
        if obj is not None and obj.tag_ == "VBG":  # "I gave up on learning Spanish"
            return _gerund_endings(clause, obj, positive)
    if obj is None:
        return None
    if lemma in LEAVE_VERBS:
        return _left(clause, obj)
    return [Fact(LEFT, ENDING_KIND, unowned(phrase(obj, clause)))]  # "gave up coffee", "dropped the class"


#: Verbs of a new version of the same thing: what they move to must be a name or a version.
UPGRADE_VERBS: Final = frozenset({"upgrade", "downgrade"})
_VERSION: Final = re.compile(r"v?\d+(?:\.\d+)*")


def _switch_facts(clause: Clause) -> list[Fact] | None:
    head = clause.head
    lemma = head.lemma_.lower()
    if lemma not in SWITCH_VERBS or is_negated(head) or particle(head) == "on":
        return None  # "moving on to Phase 2" goes on, it switches nothing
    source = next((c for c in head.children if c.dep_ == "prep" and c.lower_ in FROM_PREPS), None)
    thing = first_child(head, "dobj")  # "migrated our hosting from AWS to Hetzner"
    old = prep_object(head, FROM_PREPS) or (prep_object(thing, FROM_PREPS) if thing is not None else None)
    new = prep_object(head, ("to", "into")) or (prep_object(source, ("to", "into")) if source else None)
    if new is None or any(t.lower_ in DIETS for t in new.subtree):
        return None  # "switched to a vegan diet": the verb table's diet row
    if new.ent_type_ in ("DATE", "TIME") or new.lower_.removesuffix("s") in WEEKDAYS:
        return None  # "switched my gym day to Thursdays": a new time, not a tool
    if any(c.dep_ == "nummod" and c.i < new.i for c in new.children):
        return None  # "upgraded my laptop to 32GB of RAM": an amount, not a tool ("Pixel 8" is one)
    if lemma in UPGRADE_VERBS:
        return _upgrade_facts(clause, thing, new)
    if _is_language(new) and not any(c.dep_ == "nummod" for c in new.children):
        facts = [_language_fact(new)]  # "switched to Go"; "upgraded to Python 3.12" is a version used
    elif head.lemma_.lower() == "move" and new.lemma_.lower() in HOME_NOUNS:  # "into a flat in X"
        # the place of what one moved into, or of the move; not the clause's first ("sold our house in
        # Austin and moved into …")
        where = prep_object(head, ("in",))
        found = (*new.subtree, *(where.subtree if where is not None else ()))
        place = next((t for t in found if t.pos_ == "PROPN" and _a_place(t)), None)
        return [Fact("lives_in", "event", name_of(place))] if place is not None else None
    elif head.lemma_.lower() == "move" and (new.pos_ != "PROPN" or _a_place(new)):
        return None  # a move to a place is lives_in (the verb table)
    else:
        facts = [Fact("uses", "event", name_or_phrase(new, clause))]
    if old is not None:
        facts.append(Fact(NO_LONGER_PREFIX + "uses", ENDING_KIND, name_or_phrase(old, clause)))
    return facts


def _upgrade_facts(clause: Clause, thing: Token | None, new: Token) -> list[Fact] | None:
    """ "I upgraded to a Pixel 8" → uses Pixel 8; "I upgraded Redis to v7.0.5" → uses Redis v7.0.5 (the
    thing and its version, so the client's version is not the server's); not "… to the latest versions"."""
    if _VERSION.fullmatch(new.lower_):
        if thing is None:
            return None
        return [Fact("uses", "event", (*unowned(name_or_phrase(thing, clause)), new))]
    return [Fact("uses", "event", name_or_phrase(new, clause))] if new.pos_ == "PROPN" else None


def _a_place(tok: Token) -> bool:
    """A place by name, where the small model's NER misses it ("Bristol"), or by the NER for several words
    ("the Bay Area") or capitals ("NYC"). A one-word name the NER alone calls a place must be a town of
    1,000 people or more: it tags "Neovim" and "Heroku" GPE. A town the NER misses and the first list does
    not know stays a tool ("moved to Totnes"): taking every small town's name would read "moved to Vite"
    or "moved to Oracle" as a move home, which ends where the user lives."""
    name = name_of(tok)
    text = text_of(name)
    if is_place_name(text):
        return True
    if tok.ent_type_ not in ("GPE", "LOC", "FAC"):
        return False
    return len(name) > 1 or text.isupper() or is_small_place_name(text)


def _new_value_facts(clause: Clause, positive: FactReader) -> list[Fact] | None:
    head = clause.head
    lemma = head.lemma_.lower()
    if is_negated(head):
        return None
    if lemma == "join":
        obj = first_child(head, "dobj")
        return (
            [Fact("works_at", "event", phrase(obj, clause))] if obj is not None and _named_org(obj) else None
        )
    if lemma == "be":
        at = prep_object(head, ("at",))
        now = any(c.lower_ in NOW_WORDS for c in head.children)
        passing = any(t.lower_ in ("right", "moment", "today", "tonight") for t in clause.tokens)
        now = now and not passing  # "I'm at Starbucks right now": where one is, not the employer
        return (
            [Fact("works_at", "fact", phrase(at, clause))]
            if now and at is not None and _named_org(at)
            else None
        )
    if lemma == "move" and particle(head) == "in":  # "I moved in with my girlfriend in Liverpool"
        place = next((t for t in clause.tokens if t.ent_type_ in ("GPE", "LOC") and t.pos_ == "PROPN"), None)
        return [Fact("lives_in", "event", name_of(place))] if place is not None else None
    if lemma == "promote":  # "I got promoted to senior engineer"
        title = prep_object(head, ("to",))
        if title is not None:
            return [Fact("job_title", "event", core(title))]
        verb = first_child(head, "xcomp", "advcl")  # "promoted to team lead", read as "to (team) lead"
        if verb is None or not any(c.lower_ == "to" for c in verb.children):
            return None
        return [Fact("job_title", "event", tuple(t for t in verb.subtree if t.lower_ != "to"))]
    if lemma == "graduate":  # "I graduated from MIT": the event, which ends studying there
        school = prep_object(head, ("from",))
        return [Fact(LEFT, "event", unowned(phrase(school, clause)))] if school is not None else None
    if lemma == "report":
        boss = prep_object(head, ("to",))
        return (
            [Fact("manager", "relationship", phrase(boss, clause))]
            if boss is not None and boss.pos_ == "PROPN"
            else None
        )
    if lemma in CODE_VERBS:
        lang = prep_object(head, ("in", "with")) or first_child(head, "dobj")
        mainly = lemma in MAIN_CODE_VERBS or any(t.lower_ in MAIN_WORDS for t in clause.tokens)
        return [_language_fact(lang)] if mainly and lang is not None and _is_language(lang) else None
    if lemma in START_VERBS:
        gerund = next((c for c in head.children if c.dep_ in ("xcomp", "dobj") and c.tag_ == "VBG"), None)
        if gerund is not None:
            found = positive(replace(clause, head=gerund))
            return [replace(f, kind="event") for f in found if f.predicate != "plans_to"] or None
    return None


def _negated_facts(clause: Clause, positive: FactReader) -> list[Fact] | None:
    """ "I don't work at Google anymore", "I'm no longer vegetarian", "I no longer eat meat"."""
    head = clause.head
    marked = no_longer_marked(clause)
    if not (is_negated(head) or marked):
        return None
    found = positive(clause)
    endings = [
        _ending(f)
        for f in found
        if f.predicate != "plans_to" and (marked or is_single_valued(f.predicate) or f.predicate in DENIABLE)
    ]
    if endings:
        return endings
    at = prep_object(head, ("at",)) if head.lemma_.lower() == "be" else None
    if at is not None and _named_org(at):  # "I'm no longer at Google", "I'm not at Google anymore"
        return [Fact(NO_LONGER_PREFIX + "works_at", ENDING_KIND, phrase(at, clause))]
    if not marked or head.pos_ not in ("VERB", "AUX"):
        return None
    base = "is" if head.lemma_.lower() == "be" else head.lemma_.lower()  # "I'm no longer on the keto diet"
    obj = _ended_words(clause)
    return [Fact(NO_LONGER_PREFIX + base, ENDING_KIND, obj), *_meat_facts(base, obj)] if obj else None


#: Endings "used to" does not make: a thing had then may be another than the one had now.
HAD_BEFORE: Final = frozenset({NO_LONGER_PREFIX + p for p in ("has_pet", "owns", "has_child")})


def _used_to_facts(clause: Clause, positive: FactReader) -> list[Fact] | None:
    """ "I used to live in Berlin", "I used to love horror movies": a state that held, so its ending."""
    head = clause.head
    if head.lemma_.lower() != "use" or head.tag_ != "VBD" or is_negated(head):
        return None
    after = head.doc[head.i + 1] if head.i + 1 < len(head.doc) else None
    if after is None or after.lower_ != "to":
        return None  # "I used Wireshark to find the dropped packets": a tool used, not a past habit
    inner = next((c for c in head.children if c.dep_ == "xcomp" and c.tag_ == "VB"), None)
    if inner is None:
        return None
    ended = [f for f in _gerund_endings(clause, inner, positive) if f.predicate not in HAD_BEFORE]
    return ended or None  # "we used to have a dog": maybe another one than the dog one has now


def _ended_words(clause: Clause) -> tuple[Token, ...]:
    """The words after the head up to the first comma, without the ending's own words: "I don't drink coffee
    anymore, only green tea" → "coffee"; "I'm no longer on the keto diet" → "on the keto diet"."""
    out: list[Token] = []
    for t in clause.tokens:
        if t.i <= clause.head.i or t.lower_ in ANYMORE_WORDS | {"any", "more", "no", "not", "n't"}:
            continue
        if t.lower_ == "longer" and t.i > 0 and t.doc[t.i - 1].lower_ == "no":
            continue
        if t.is_punct:
            break
        out.append(t)
    return tuple(out)


def change_facts(clause: Clause, positive: FactReader) -> list[Fact] | None:
    """Facts for a clause that states a change; None when it states none (``positive`` reads a clause's
    usual facts as if it were not negated)."""
    replaced = replacement_facts(clause)
    if replaced is not None:
        return replaced
    for reader in (_stop_facts, _negated_facts, _used_to_facts, job_loss_facts):
        found = reader(clause, positive)
        if found is not None:
            return found
    switched = _switch_facts(clause)
    if switched is not None:
        return switched
    return _new_value_facts(clause, positive)
