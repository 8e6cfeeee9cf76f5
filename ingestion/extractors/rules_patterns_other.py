"""Clauses whose grammatical subject is not "I": the speaker's things and the speaker's opinions.

* "My favourite book is Dune" / "Dune is my favourite book" → ``favorite_book = Dune``. When the small
  model misparses the first form (it reads "My favourite show is Breaking Bad" with "Breaking" as the root
  verb and no subject), the words themselves are matched: my/our + favourite + kind + is + value.
* "My hobby is pottery" → ``hobby``; "my job is nursing" → ``job_title``; "my birthday is ..." → ``birthday``;
  "my name is Ana" → ``name``.
* "Our startup pivoted to B2C" (company, startup, team, ...) is about the speaker's own work: subject = the
  speaker, so it can supersede the speaker's ``works_on``.
* Any other "my X ..." clause is a claim about that person or thing: subject "<speaker>'s X" (or X's name
  when given: "my friend Tom lives in Paris" → subject "Tom"), predicates from the usual patterns. Keeping
  that subject apart means "my sister lives in Paris" can never supersede where the speaker lives.
* "SUVs are too big for me" → ``finds`` ("User finds SUVs too big."): an opinion of the speaker's with a
  concrete subject; "it's too big for me" is dropped (the "it" cannot be resolved here).
* Every other non-speaker clause yields nothing.
"""

from __future__ import annotations

from typing import Final

from spacy.tokens import Span, Token

from ingestion.extractors.base import Kind
from ingestion.extractors.predicates import DIED, NO_LONGER_PREFIX, favorite_predicate, is_single_valued
from ingestion.extractors.rules_clauses import Clause
from ingestion.extractors.rules_contacts import CONTACT_NOUNS, holds_contact
from ingestion.extractors.rules_grammar import (
    Fact,
    children,
    core,
    first_child,
    is_negated,
    name_of,
    names_attached,
    phrase,
    prep_object,
    speakers_own,
    text_of,
)
from ingestion.extractors.rules_lexicon import (
    DIETS,
    PET_NOUNS,
    RELATION_NOUNS,
    SPEAKER_BUSINESS_NOUNS,
    VAGUE_SUBJECTS,
)
from ingestion.extractors.rules_my_thing import taste_of_thing
from ingestion.extractors.rules_patterns import speaker_facts
from ingestion.extractors.rules_pay import PAY_NOUNS, salary_said
from ingestion.extractors.rules_rewrite import Speakers
from ingestion.extractors.rules_settings import new_amount
from ingestion.extractors.rules_time_zones import own_zone
from ingestion.extractors.rules_version_fix import version_fix_fact
from ingestion.extractors.rules_work_setting import EMPLOYERS, work_setting_facts

FAVORITE_WORDS: Final = frozenset({"favorite", "favourite", "fave", "fav"})
#: Words of a favourite held now, not of its kind ("my *new* favorite show": a show).
_FOR_NOW: Final = frozenset({"new", "current", "latest"})
#: "my <noun> is X" → predicate.
POSSESSION_SUBJECTS: Final = {
    "hobby": "hobby",
    "hobbies": "hobby",
    "passion": "likes",
    "job": "job_title",
    "occupation": "job_title",
    "profession": "job_title",
    "birthday": "birthday",
    "name": "name",
    "diet": "diet",
}
#: Copula forms of the surface "my favourite X is Y" pattern.
COPULA_FORMS: Final = frozenset({"is", "are", "'s", "was", "were"})
#: The kind of thing in "my favourite <kind> is" has at most this many words ("favourite TV show").
MAX_FAVORITE_KIND_WORDS: Final = 3
#: Where the value of the surface pattern ends ("... is Dune because ...").
VALUE_STOP_POS: Final = frozenset({"SCONJ", "CCONJ", "PUNCT"})
OPINION_VERBS: Final = frozenset({"be", "seem", "look", "sound", "feel", "get"})
OPINION_PREPS: Final = frozenset({"for", "to"})
OPINION_TEMPLATE: Final = "{s} finds {o}."
SPEAKER_OBJECTS: Final = frozenset({"me", "us"})


def _complement(head: Token) -> Token | None:
    return first_child(head, "attr", "acomp", "oprd")


def _favorite_noun(noun: Token) -> Token | None:
    """The noun's "favorite" modifier, if it has one."""
    return next((c for c in noun.children if c.lower_ in FAVORITE_WORDS), None)


def _favorite_fact(thing: Token, value: Token, clause: Clause) -> Fact:
    words = " ".join(t.text for t in core(thing) if t.lower_ not in FAVORITE_WORDS | _FOR_NOW)
    return Fact(favorite_predicate(words), "preference", phrase(value, clause))


def favorite_surface(clause: Clause) -> Fact | None:
    """ "my/our favourite <kind> is <value>" read from the words, whatever the parse says."""
    toks = [t for t in clause.tokens if not t.is_punct]
    for i, tok in enumerate(toks[:-3]):
        if tok.lower_ not in ("my", "our") or toks[i + 1].lower_ not in FAVORITE_WORDS:
            continue
        copula = next((k for k in range(i + 2, len(toks)) if toks[k].lower_ in COPULA_FORMS), None)
        if copula is None or not 0 < copula - (i + 2) <= MAX_FAVORITE_KIND_WORDS:
            return None
        value: list[Token] = []
        for t in toks[copula + 1 :]:
            if t.pos_ in VALUE_STOP_POS or t.lower_ == "because":
                break
            value.append(t)
        kind_words = " ".join(t.text for t in toks[i + 2 : copula])
        return Fact(favorite_predicate(kind_words), "preference", tuple(value)) if value else None
    return None


def possessive_facts(clause: Clause, speakers: Speakers, display_owner: str) -> tuple[str, list[Fact]]:
    """(subject, facts) for a clause whose subject is "my/our <noun>"."""
    subj = clause.subject
    assert subj is not None
    noun = subj.lemma_.lower()
    head = clause.head
    value = _complement(head) if head.lemma_.lower() == "be" else None
    if noun in SPEAKER_BUSINESS_NOUNS:
        return speakers.subject, speaker_facts(clause)
    own = speakers_own(subj)  # not "my sister's name is Ana", "my mom's birthday is …"
    pay = salary_said(clause) if own and noun in PAY_NOUNS else []
    if pay:  # "my salary is 85k", "my salary went up to 90k"
        return speakers.subject, pay
    if not own and noun == "name":
        return speakers.subject, []  # the relation or the pet it names: rules_relations
    if not own:
        noun = ""
    if noun in CONTACT_NOUNS and holds_contact(subj, clause.tokens):
        return speakers.subject, []  # "my email is …": rules_contacts
    zone = own_zone(subj, value) if own else None
    if zone is not None:  # "my time zone is UTC+2"
        return speakers.subject, [zone]
    if own and value is not None and _favorite_noun(subj) is not None:
        return speakers.subject, [_favorite_fact(subj, value, clause)]
    day = (value or prep_object(head, ("on", "in"))) if noun == "birthday" and head.lemma_ == "be" else None
    if day is not None and day.ent_type_ == "DATE":  # "my birthday is (on) March 3rd": as said, no year
        said = f"{day.head.lower_} " if day.head.dep_ == "prep" else ""
        template = f"{{s}}'s birthday is {said}{{o}}."
        return speakers.subject, [
            Fact("birthday", "fact", object_text=text_of(day.subtree), template=template)
        ]
    if value is not None and noun in POSSESSION_SUBJECTS:
        pred = POSSESSION_SUBJECTS[noun]
        if pred == "name" and (value.pos_ not in ("PROPN", "NOUN") or is_negated(head)):
            return speakers.subject, []  # "my name is not important"
        if pred == "diet" and value.lower_ not in DIETS:
            return speakers.subject, []
        kind: Kind = "preference" if pred == "likes" else "fact"
        return speakers.subject, [] if pred == "birthday" else [Fact(pred, kind, phrase(value, clause))]
    if noun in RELATION_NOUNS and value is not None and value.pos_ == "PROPN":
        return speakers.subject, []  # "my wife is Sara": a relationship, see rules_relations
    calls = noun in EMPLOYERS and head.lemma_.lower() == "call"  # not "my boss works from home": the boss's
    setting = work_setting_facts(clause) if calls else []
    if setting:  # "My employer called us back to the office": where the speaker works from
        return speakers.subject, setting
    gone = _gone(clause)
    if gone is not None:  # "My manager left in October": no manager now
        return speakers.subject, [gone]
    names = names_attached(subj) or ([name_of(subj)] if _named_kin(subj) else [])
    owner = text_of(names[0]) if names else f"{display_owner} {_owned_phrase(subj)}"
    changed = new_amount(clause) or death(clause)  # "my grandmother passed away in March"
    return owner, [changed] if changed is not None else speaker_facts(clause)


def _named_kin(subj: Token) -> bool:
    """ "My dog Rex is old", "my brother Luis …": the name is the subject, its relation a compound."""
    kin = [c.lemma_.lower() for c in subj.children if c.dep_ == "compound"]
    return subj.pos_ == "PROPN" and any(k in PET_NOUNS or k in RELATION_NOUNS for k in kin)


def _owned_phrase(subj: Token) -> str:
    """ "my sister" → "sister"; "my daughter's wedding" → "daughter's wedding"."""
    owner = next((c for c in subj.children if c.dep_ == "poss" and c.lower_ not in ("my", "our")), None)
    own = text_of(core(subj))
    return f"{_owned_phrase(owner)}'s {own}" if owner is not None else own


def _opinion(clause: Clause) -> Fact | None:
    head, subj = clause.head, clause.subject
    if subj is None or head.lemma_.lower() not in OPINION_VERBS or subj.lower_ in VAGUE_SUBJECTS:
        return None
    if subj.pos_ not in ("NOUN", "PROPN"):
        return None
    for adj in children(head, "acomp"):
        for prep in adj.children:
            if (
                prep.dep_ == "prep"
                and prep.lower_ in OPINION_PREPS
                and any(o.lower_ in SPEAKER_OBJECTS and o.dep_ == "pobj" for o in prep.children)
            ):
                skip = {t.i for t in prep.subtree}
                adj_tokens = tuple(t for t in adj.subtree if t.i not in skip)
                value = (*phrase(subj, clause), *adj_tokens)
                return Fact("finds", "preference", value, template=OPINION_TEMPLATE)
    return None


def other_facts(clause: Clause, speakers: Speakers) -> tuple[str, list[Fact]]:
    """(subject, facts) for a clause whose subject is someone/something else."""
    head, subj = clause.head, clause.subject
    fixed = version_fix_fact(clause.sent) if head.i == clause.sent.root.i else None
    if fixed is not None:  # "Correction: it's Flask 2.3, not 2.2."
        return speakers.subject, [fixed]
    surface = favorite_surface(clause) or taste_of_thing(clause)  # "my favourite …", "Jazz is my jam"
    if surface is not None:
        return speakers.subject, [surface]
    value = _complement(head) if head.lemma_.lower() == "be" else None
    if subj is not None and value is not None and _favorite_noun(value) is not None and speakers_own(value):
        return speakers.subject, [_favorite_fact(value, subj, clause)]
    died = death(clause) if subj is not None and subj.pos_ == "PROPN" else None
    if died is not None and subj is not None:  # "Milo passed away last week": Milo, whom the text names
        return text_of(name_of(subj)), [died]
    opinion = _opinion(clause)
    return speakers.subject, [opinion] if opinion is not None else []


#: Words that make a death a figure of speech or a near miss ("I almost died", "I'd die for that").
_NOT_A_DEATH: Final = frozenset({"almost", "nearly", "practically", "literally", "basically"})


def death(clause: Clause) -> Fact | None:
    """ "X died", "X passed away": the event, for a relative, a friend or a pet (a possessed or named
    subject, never the speaker); not "almost died", not a modal ("could die"), not "died laughing"."""
    head = clause.head
    if not _dies(head) or is_negated(head):
        return None
    if any(c.tag_ == "MD" or c.lower_ in _NOT_A_DEATH for c in head.children):
        return None
    if any(c.dep_ in ("xcomp", "advcl", "dobj") for c in head.children):
        return None
    return Fact(DIED, "event", object_text="")


def _dies(head: Token) -> bool:
    lemma = head.lemma_.lower()
    away = any(c.dep_ in ("prt", "advmod") and c.lower_ in ("away", "on") for c in head.children)
    return lemma == "die" or (lemma == "pass" and away)


def names_a_death(sent: Span) -> bool:
    """ "Milo passed away last week": a sentence without the speaker's words worth reading all the same."""
    subject = first_child(sent.root, "nsubj")
    return subject is not None and subject.pos_ == "PROPN" and _dies(sent.root)


def deceased(sent: Span) -> tuple[int, int] | None:
    """Where the subject of a death is said ("My dog Biscuit" of "My dog Biscuit passed away"), as
    characters of the text; None when the sentence names no death."""
    subjects = [c for c in sent.root.children if c.dep_ == "nsubj"]  # "Our cat | Miso": two, misparsed
    if not subjects or not _dies(sent.root) or is_negated(sent.root):
        return None
    return subjects[0].left_edge.idx, subjects[-1].right_edge.idx + len(subjects[-1].right_edge)


#: Verbs by which the holder of a single-valued tie of the speaker's goes ("my manager left").
_GOING_VERBS: Final = frozenset({"leave", "quit", "retire", "resign"})


def _gone(clause: Clause) -> Fact | None:
    """ "My manager left in October", "my boss retired", "my girlfriend left me": the ending of that
    single-valued tie of the speaker's (``no_longer_manager``, no object: it ends the tie whoever holds
    it). A partner who "left his job" is still one; a manager who left the company is not."""
    subj, head = clause.subject, clause.head
    predicate = RELATION_NOUNS.get(subj.lemma_.lower()) if subj is not None else None
    if predicate is None or not is_single_valued(predicate) or head.lemma_.lower() not in _GOING_VERBS:
        return None
    if is_negated(head) or any(c.tag_ == "MD" for c in head.children):
        return None
    left = first_child(head, "dobj")
    if left is not None and left.lower_ not in ("me", "us") and predicate != "manager":
        return None
    return Fact(NO_LONGER_PREFIX + predicate, "event")
