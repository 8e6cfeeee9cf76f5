"""Map a clause about the speaker to (predicate, object, kind) facts.

The verb table below is tried row by row on the clause's head verb; every row whose slot is filled gives a
fact (so "I work at Acme as a data engineer" yields ``works_at`` and ``job_title``). Copulas, possession
("I have a dog named Rex") and jobs ("I got a job at Stripe") have their own functions in
``rules_patterns_be``. A clause that matches nothing keeps a generic fact whose predicate is the verb lemma
("I painted a sunrise" → ``paint``), so its claim is still remembered; ``specific=False`` marks it.

Choices:

* Stative work/home rows (live, work, study, own) only fire in the present or present perfect:
  "I lived in Berlin" is a past event, not ``lives_in``.
* Negation flips likes → dislikes; any other negated pattern falls back to the generic ``not_<verb>``.
* "going to <verb>" and "planning to" are decisions (``plans_to``); "went to <place>" is ``visited`` when the
  place is a location and ``attended`` otherwise ("went to a support group").
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Final

from spacy.tokens import Token

from ingestion.extractors.base import Kind
from ingestion.extractors.predicates import is_single_valued
from ingestion.extractors.rules_clauses import Clause
from ingestion.extractors.rules_diet import diet_on_facts
from ingestion.extractors.rules_employer_at import employer_of
from ingestion.extractors.rules_filters import substantive_count
from ingestion.extractors.rules_grammar import (
    NAME_SLOT_DEPS,
    NAME_VERBS,
    Fact,
    first_child,
    is_negated,
    is_past,
    is_progressive,
    name_of,
    names_attached,
    particle,
    phrase,
    preferred_phrase,
    prep_object,
    split_conjuncts,
    text_of,
)
from ingestion.extractors.rules_household import household_facts
from ingestion.extractors.rules_lexicon import (
    ADDITIVE_WORDS,
    DIETS,
    DWELLINGS,
    GROUP_NOUNS,
    NO_EMPLOYER,
    PET_NOUNS,
    PLACE_NOUNS,
    RELATION_NOUNS,
    TIMETABLE_VERBS,
    WORKPLACE_NOUNS,
)
from ingestion.extractors.rules_measures import weight_facts
from ingestion.extractors.rules_patterns_be import copula_facts, job_noun_facts, possession_facts
from ingestion.extractors.rules_patterns_change import change_facts
from ingestion.extractors.rules_replacements import instead_endings
from ingestion.extractors.rules_routines import routine_facts
from ingestion.extractors.rules_states import own_state_facts, positive_state_facts
from ingestion.extractors.rules_verb_parts import shared_subject_verbs, verb_parts, verbs_of_their_own
from ingestion.extractors.rules_work_setting import work_setting_facts
from ingestion.temporal import WEEKDAYS

#: Fewest content words (besides the subject) a generic clause needs to be kept.
MIN_SUBSTANTIVE_WORDS: Final = 1
#: Verbs whose past tense describes a state, not an event.
STATIVE_VERBS: Final = frozenset(
    {"be", "have", "feel", "know", "think", "seem", "want", "need", "like", "love"}
)
CASUAL_FUTURE_WORDS: Final = frozenset({"gon", "gonna"})
#: Predicates whose object is the name when one is given ("a dog named Rex" → Rex).
NAMED_OBJECT_PREDICATES: Final = frozenset({"has_pet", "has_child", "spouse", "partner"})
#: Modals that turn a "we" clause into encouragement rather than a fact.
COLLECTIVE_MODALS: Final = frozenset({"can", "could", "should", "must", "might", "may", "ca"})
#: Verbs whose table rows still hold with a particle ("I moved over to Lisbon" is rare; "look for" is a prep).
PHRASAL_OK: Final = frozenset({"move"})
LOCATION_LABELS: Final = frozenset({"GPE", "LOC", "FAC"})
_LIKE_TO_DISLIKE: Final = {"likes": "dislikes"}


@dataclass(frozen=True)
class VerbRule:
    lemmas: frozenset[str]
    predicate: str
    kind: Kind
    slots: tuple[str, ...]  # "dobj", "xcomp", "ccomp", "acomp", "attr", "oprd", "prep:in,at"
    present_only: bool = False  # stative rows: not in the simple past
    past_only: bool = False
    progressive_only: bool = False


def _row(lemmas: str, predicate: str, kind: Kind, *slots: str, **flags: bool) -> VerbRule:
    return VerbRule(frozenset(lemmas.split()), predicate, kind, slots, **flags)


#: The verb table, in priority order.
VERB_RULES: Final[tuple[VerbRule, ...]] = (
    _row("live reside", "lives_in", "fact", "prep:in", present_only=True),
    _row("base", "lives_in", "fact", "prep:in", present_only=True),
    _row("move relocate", "lives_in", "event", "prep:to"),
    _row("work", "works_at", "fact", "prep:at,for", present_only=True),
    _row("work", "job_title", "fact", "prep:as", present_only=True),
    _row("work", "works_on", "fact", "prep:on,in", present_only=True),
    _row("pivot", "works_on", "event", "prep:to,into"),
    _row("hire employ", "works_at", "event", "prep:at,by"),
    _row("start begin", "works_at", "event", "prep:at"),
    _row("start begin", "job_title", "event", "prep:as"),
    _row("study major", "studies_at", "fact", "prep:at", present_only=True),
    _row("study learn", "studies", "fact", "dobj", present_only=True),
    _row("major", "studies", "fact", "prep:in", present_only=True),
    _row("love like enjoy adore", "likes", "preference", "dobj", "xcomp", "rest"),
    _row("stand", "likes", "preference", "dobj"),  # only ever negated: "I can't stand X" → dislikes
    _row("prefer", "prefers", "preference", "dobj", "xcomp", "rest"),
    _row("hate dislike detest loathe", "dislikes", "preference", "dobj", "xcomp", "rest"),
    _row("want need", "wants", "preference", "dobj", "xcomp"),
    _row("look search", "wants", "preference", "prep:for"),
    _row("decide", "decided", "decision", "xcomp", "ccomp", "prep:on"),
    _row("choose pick select", "decided", "decision", "dobj", "xcomp"),
    _row("opt settle", "decided", "decision", "prep:for,on", "xcomp"),
    _row("plan intend aim", "plans_to", "decision", "xcomp", "prep:on", "dobj"),
    _row("become turn go switch", "diet", "event", "acomp", "attr", "dobj", "oprd", "prep:to"),
    _row("turn", "age", "event", "dobj", "attr", "npadvmod"),  # "I just turned 30", "my son turned 5"
    _row("go", "plans_to", "decision", "xcomp", progressive_only=True),
    _row("go", "hobby", "fact", "xcomp", present_only=True),
    _row("go travel fly drive head", "visited", "event", "prep:to", past_only=True),
    _row("visit tour", "visited", "event", "dobj"),
    _row("attend", "attended", "event", "dobj"),
    _row("own", "owns", "fact", "dobj", present_only=True),
    _row("use", "uses", "fact", "dobj", present_only=True),
    _row("buy purchase", "owns", "event", "dobj"),
    _row("adopt rescue", "has_pet", "event", "dobj"),
    _row("marry", "spouse", "relationship", "dobj"),
    _row("date", "partner", "relationship", "dobj", progressive_only=True),
    _row("play practice practise collect", "hobby", "fact", "dobj", present_only=True),
    _row("join", "member_of", "event", "dobj"),
)


def _slot(head: Token, slot: str, clause: Clause) -> Token | None:
    """The token filling ``slot``; "rest" = the first content word after the verb (for mis-parsed objects:
    "I hate cilantro" with "cilantro" read as an adverb)."""
    if slot.startswith("prep:"):
        preps = slot[len("prep:") :].split(",")
        found = prep_object(head, preps)
        if found is None and "as" in preps:  # "at a startup called Loop as a designer": "as" under "called"
            named = (t for t in clause.tokens if t.dep_ == "acl" and t.lemma_.lower() in NAME_VERBS)
            found = next((o for t in named if (o := prep_object(t, ("as",))) is not None), None)
        return found
    if slot == "rest":
        return next((t for t in clause.tokens if t.i > head.i and t.pos_ in ("NOUN", "PROPN", "ADJ")), None)
    return first_child(head, slot)


def _diet_word(obj: Token) -> str | None:
    for tok in obj.subtree:
        if tok.lower_ in DIETS:
            return tok.lower_
    return None


def _refine(rule: VerbRule, obj: Token, clause: Clause) -> tuple[str, str | None] | None:
    """Adjust a row's predicate to its object (None rejects the row); second item = literal object value."""
    pred = rule.predicate
    if pred == "age":
        return (pred, obj.text) if obj.like_num else None
    if pred in ("lives_in", "visited", "works_on") and (
        obj.ent_type_ in ("DATE", "TIME") or obj.lower_.removesuffix("s") in (*WEEKDAYS, "weekend")
    ):
        return None  # "the meeting got moved to Thursday" is no move home
    if pred == "lives_in" and rule.kind == "fact" and not _a_home(obj):
        return None  # "I live in fear of deadlines", "I live in the moment": no home
    if pred == "works_at" and (obj.ent_type_ in ("DATE", "TIME", "CARDINAL") or obj.lower_ in NO_EMPLOYER):
        return None  # "I work at night", "I work at a fast pace", "I work at home", "My shift starts at 7"
    if pred == "works_at" and (other := employer_of(obj, clause)) is not None:
        return other  # "I work for myself", "my son started college at X": a school
    if pred == "job_title" and obj.lemma_.lower() in GROUP_NOUNS:
        return None  # "I work as a team with my sister": how, not what as
    if pred == "lives_in" and particle(clause.head) == "on":
        return None  # "I'm moving on to Phase 2": the next step, not a new home
    if pred == "lives_in" and rule.kind == "event" and not _a_place_to_live(obj):
        return None  # "User moves from an ellipse to a parabola"
    if pred == "lives_in" and obj.lemma_.lower() in GROUP_NOUNS | WORKPLACE_NOUNS:
        return None  # "I've been moved to the search team", "… to the Munich office"
    moved = (
        first_child(obj.head.head, "dobj") if obj.head.head.lemma_.lower() in ("move", "relocate") else None
    )
    if pred == "lives_in" and moved is not None and moved.pos_ in ("NOUN", "PROPN"):
        return None  # "I moved the meeting to the big room": something else moved
    if pred == "diet":
        word = _diet_word(obj)
        return (pred, word) if word else None
    if pred == "works_on":
        if obj.ent_type_ in LOCATION_LABELS:
            return ("work_location", None)
        if any(t.lower_ in ADDITIVE_WORDS for t in clause.tokens):
            return ("side_project", None)
        if clause.head.tag_ == "VBG" and any(
            c.lemma_ == "be" for c in clause.head.children if c.dep_ == "aux"
        ):
            return ("working_on", None)  # "I'm working on the login page": a task, one of several
    if pred == "visited" and (obj.pos_ not in ("NOUN", "PROPN") or obj.lemma_.lower() in ("work", "bed")):
        return None  # "I went back to work": no visit
    if pred == "visited" and obj.ent_type_ not in LOCATION_LABELS and obj.pos_ != "PROPN":
        return ("attended", None)
    if pred == "has_pet":
        noun = obj.lemma_.lower()
        if RELATION_NOUNS.get(noun) == "has_child":
            return ("has_child", None)
        return (pred, None) if noun in PET_NOUNS or names_attached(obj) else None
    if pred == "hobby" and obj.head.lemma_ == "go" and obj.tag_ != "VBG":
        return None  # "I go bouldering" is a hobby, "I go to work" is not
    if pred in ("works_at", "studies_at", "member_of"):
        called = next((c for c in obj.children if c.dep_ == "acl" and c.lemma_.lower() in NAME_VERBS), None)
        slots = called.children if called is not None else ()
        name = next((g for g in slots if g.dep_ in NAME_SLOT_DEPS and g.pos_ == "PROPN"), None)
        if name is not None:
            return (pred, text_of(name_of(name)))  # "a small fintech called Tink" → Tink
    if pred == "works_at" and obj.tag_ == "NNS" and not any(t.pos_ == "PROPN" for t in obj.subtree):
        return None  # "I work on SaaS for dental clinics": customers, not an employer
    beside = (c for c in obj.children if c.dep_ == "prep" and (pred == "uses" or c.lower_ == "with"))
    if pred in ("uses", "lives_in") and obj.pos_ == "PROPN" and next(beside, None) is not None:
        return (pred, text_of(name_of(obj)))  # "I use Notion for my notes" → Notion; "in Leeds with …"
    if pred == "member_of" and obj.ent_type_ == "ORG" and obj.lemma_.lower() not in GROUP_NOUNS:
        return ("works_at", None)
    return (pred, None)


def _a_home(obj: Token) -> bool:
    """Where one lives: a place (:func:`_a_place_to_live`), or a thing one can live in, said as one ("a van",
    "my car"), not a state ("fear", "the moment")."""
    if _a_place_to_live(obj) or obj.lemma_.lower() in DWELLINGS:
        return True
    return any(c.dep_ in ("det", "poss") and c.lower_ in ("a", "an", "my", "our") for c in obj.children)


def _a_place_to_live(obj: Token) -> bool:
    """What a move can be to: a place by the NER or a name, or a common noun of a place ("the suburbs")."""
    return obj.ent_type_ in LOCATION_LABELS or obj.pos_ == "PROPN" or obj.lemma_.lower() in PLACE_NOUNS


def _tense_allows(rule: VerbRule, head: Token, *, positive: bool = False) -> bool:
    past = is_past(head)
    if rule.present_only and past and not positive:
        return False
    if rule.past_only and not past:
        return False
    return not (rule.progressive_only and not is_progressive(head))


def verb_facts(clause: Clause, *, positive: bool = False) -> list[Fact]:
    """Facts from the verb table for the clause's head (``positive``: read a negated head as if it were not,
    and let stative rows take the simple past, for ``rules_patterns_change``)."""
    head = clause.head
    lemma = head.lemma_.lower()
    if particle(head) and lemma not in PHRASAL_OK:
        return []  # "pick up", "give up", "take up": the particle changes the verb's meaning
    negated = is_negated(head) and not positive
    facts: list[Fact] = []
    seen: set[str] = set()
    for rule in VERB_RULES:
        if lemma not in rule.lemmas or not _tense_allows(rule, head, positive=positive):
            continue
        for slot in rule.slots:
            obj = _slot(head, slot, clause)
            if obj is None:
                continue
            refined = _refine(rule, obj, clause)
            if refined is None:
                continue
            pred, literal = refined
            names = names_attached(obj) if pred in NAMED_OBJECT_PREDICATES else []
            if negated:
                if pred not in _LIKE_TO_DISLIKE:
                    return []
                pred = _LIKE_TO_DISLIKE[pred]
            if pred in seen:
                break
            seen.add(pred)
            if lemma in ("love", "like") and any(c.lower_ in ("would", "'d") for c in head.children):
                pred = "wants"  # "I'd love to ..." is a wish, not a taste
            if names:  # "adopted a greyhound named Biscuit" → the pet is Biscuit
                facts += [Fact(pred, rule.kind, name) for name in names]
            else:
                said = preferred_phrase(obj, clause) if pred == "prefers" else phrase(obj, clause)
                facts += split_conjuncts(Fact(pred, rule.kind, said, literal), obj, clause)
            break
    return facts


def generic_fact(clause: Clause) -> Fact | None:
    """The fallback: predicate = verb lemma (+ particle, "not_" if negated), object = rest of the clause."""
    head, subject = clause.head, clause.subject
    rest = [t for t in clause.tokens if t.i != head.i]
    # "our launch is planned for …", "my lease ends in August"
    said = head.lemma_ == "be" or first_child(head, "auxpass") is not None or head.lemma_ in TIMETABLE_VERBS
    dated = said and subject is not None and subject.pos_ == "NOUN"
    dated = dated and any(t.ent_type_ in ("DATE", "TIME") for t in rest)  # "my standup is at 9:30"
    if substantive_count(rest, subject) < MIN_SUBSTANTIVE_WORDS and not dated:
        return None
    we = subject is not None and subject.lower_ == "we"
    if we and any(c.dep_ == "aux" and c.lower_ in COLLECTIVE_MODALS for c in head.children):
        return None  # "Together we can make a difference": encouragement, not a fact
    lemma = head.lemma_.lower()
    copula = next((c for c in head.children if c.dep_ in ("aux", "auxpass") and c.lemma_ == "be"), None)
    copular = head.pos_ in ("ADJ", "NOUN", "PROPN") and copula is not None  # "I'm left-handed"
    pred = "is" if lemma == "be" or copular else lemma
    if pred == "use" and (is_past(head) or first_child(head, "auxpass") is not None):
        pred = "used"  # "I used the distance formula", "I'm used to it": not the tool one uses (``uses``)
    if is_single_valued(pred):  # "we named the project Falcon", "I partnered with Acme": no name, no partner
        pred = f"{pred}s"
    prt = particle(head)
    if prt:
        pred = f"{pred}_{prt}"
    if is_negated(head):
        pred = f"not_{pred}"
    subject_ids = {t.i for t in clause.subject.subtree} if clause.subject is not None else set()
    after = copula.i if copular and copula is not None else head.i
    skip = subject_ids | {c.i for c in head.children if c.dep_ in ("neg", "prt")}
    obj = [t for t in clause.tokens if t.i > after and t.i not in skip]
    while obj and (obj[0].pos_ in ("CCONJ", "SCONJ", "PUNCT") or obj[0].is_punct):
        obj = obj[1:]
    if not obj:
        return None  # "... one I will always remember": nothing left to remember
    kind: Kind = "event" if is_past(head) and lemma not in STATIVE_VERBS else "fact"
    return Fact(pred, kind, tuple(obj), specific=False)


def casual_plan(clause: Clause) -> Fact | None:
    """ "Gonna continue my studies" / "I'm gonna buy a bike" → plans_to (object = what follows)."""
    marker = next((t for t in clause.tokens if t.lower_ in CASUAL_FUTURE_WORDS), None)
    if marker is None or marker.i > clause.head.i:
        return None
    rest = tuple(t for t in clause.tokens if t.i > marker.i and t.lower_ not in ("na", "to"))
    return Fact("plans_to", "decision", rest) if rest else None


def _positive_facts(clause: Clause) -> list[Fact]:
    """The clause's usual facts read as if it were not negated (for endings: "I don't work at X anymore")."""
    if clause.head.lemma_.lower() == "be":
        return copula_facts(clause, positive=True) or diet_on_facts(clause, positive=True)
    # "I stopped getting up at 6", "I don't drive to work anymore"
    own = routine_facts(clause) or positive_state_facts(clause)
    return own or verb_facts(clause, positive=True) + possession_facts(clause) + job_noun_facts(clause)


def speaker_facts(clause: Clause) -> list[Fact]:
    """All facts for a clause whose subject is the speaker (or the speaker's own thing)."""
    plan = casual_plan(clause)
    if plan is not None:
        return [plan]
    facts: list[Fact] = []
    for head in (clause.head, *shared_subject_verbs(clause.head)):
        part = clause if head is clause.head else replace(clause, head=head)
        own = own_state_facts(part)  # "upgraded to the Pro plan", "I'm seeing someone", "I bike to work"
        if own:
            facts += own
            continue
        changed = change_facts(part, _positive_facts)
        if changed is not None:
            facts += changed
            continue
        facts += work_setting_facts(part)  # "I work remotely for a startup": a setting and an employer
        facts += weight_facts(part)
        routine = routine_facts(part)
        if routine:
            facts += routine
            continue
        if head.lemma_.lower() == "be":
            facts += copula_facts(part)
        else:
            facts += verb_facts(part) + possession_facts(part)
        facts += job_noun_facts(part)
        facts += household_facts(part)  # "I live in Leeds with my sister": a home and a household
    if not facts:
        facts = generic_facts(clause)
    return instead_endings(clause, facts)


def generic_facts(clause: Clause) -> list[Fact]:
    """The fallback for a whole clause, or for each verb of several that share its subject ("I finished
    Dune and started a new thriller": what was finished is not "Dune and started …"), each with its own part
    of the clause as its claim."""
    verbs = verbs_of_their_own(clause.head)
    if not verbs:
        fallback = generic_fact(clause)
        return [fallback] if fallback is not None else []
    out: list[Fact] = []
    for part in verb_parts(clause, verbs):
        fact = generic_fact(part)
        if fact is not None:
            out.append(replace(fact, claim_tokens=part.tokens))
    return out
