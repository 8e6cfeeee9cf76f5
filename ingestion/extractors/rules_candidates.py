"""Turn (clause, fact) pairs into ``CandidateOut``: claim text, object value, dates, mentions, scores.

Choices:

* The first fact of a clause uses the rewritten clause as its claim ("User moved to Lisbon in April 2024.");
  further facts of the same clause get a short templated claim ("User works as data engineer.") so no two
  candidates of an episode share a claim text (reconcile would fold identical texts into one memory).
* ``valid_from`` is the start of the first resolved time mention in the clause, for events, facts and
  relationships ("I moved to Lisbon last month" → 1 April 2024; "vegan since 2020" → 1 January 2020).
  Preferences and decisions get none: the date in "I'm going to Paris next week" is when the trip is, not
  when the decision started being true. Without a mention ``valid_from`` stays None and reconcile uses the
  document date.
* A change announced for the future ("I'm moving to Lisbon next month", "I'll join Stripe") is a
  ``plans_to`` decision, never a ``lives_in``/``works_at`` that would supersede the present value early.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Final

from spacy.tokens import Token

from ingestion.extractors.base import CandidateOut, Mention, MessageIn
from ingestion.extractors.predicates import DIED, ending_base, normalise_predicate
from ingestion.extractors.rules_clauses import Clause
from ingestion.extractors.rules_filters import hedged
from ingestion.extractors.rules_grammar import Fact
from ingestion.extractors.rules_lexicon import BARE_PRONOUNS, SPEAKER_BUSINESS_NOUNS
from ingestion.extractors.rules_mentions import clean_name, dedupe, entity_mentions, object_mention
from ingestion.extractors.rules_rewrite import Renderer, Speakers, third_person
from ingestion.extractors.rules_scoring import confidence, importance

#: Claims for the second and later facts of one clause (the first uses the clause itself).
SECONDARY_TEMPLATES: Final = {
    "lives_in": "{s} lives in {o}.",
    "is_from": "{s} is from {o}.",
    "works_at": "{s} works at {o}.",
    "job_title": "{s} works as {o}.",
    "works_on": "{s} works on {o}.",
    "side_project": "{s} has a side project: {o}.",
    "working_on": "{s} is working on {o}.",
    "studies": "{s} studies {o}.",
    "studies_at": "{s} studies at {o}.",
    "member_of": "{s} is a member of {o}.",
    "likes": "{s} likes {o}.",
    "dislikes": "{s} dislikes {o}.",
    "prefers": "{s} prefers {o}.",
    "wants": "{s} wants {o}.",
    "interested_in": "{s} is interested in {o}.",
    "hobby": "{s} has the hobby {o}.",
    "allergic_to": "{s} is allergic to {o}.",
    "diet": "{s} is {o}.",
    "spouse": "{s}'s spouse is {o}.",
    "partner": "{s}'s partner is {o}.",
    "has_child": "{s} has a child named {o}.",
    "has_pet": "{s} has a pet: {o}.",
    "sibling": "{s} has a sibling named {o}.",
    "relationship_status": "{s} is {o}.",
    "owns": "{s} owns {o}.",
    "visited": "{s} visited {o}.",
    "attended": "{s} attended {o}.",
    "plans_to": "{s} plans to {o}.",
    "decided": "{s} decided on {o}.",
    "uses": "{s} uses {o}.",
    "wakes_up": "{s} gets up at {o}.",
    "bedtime": "{s} goes to bed at {o}.",
    "preferred_name": "{s} wants to be called {o}.",
    "main_language": "{s} mainly programs in {o}.",
    "manager": "{s}'s manager is {o}.",
    "left": "{s} left {o}.",
    "lives_with": "{s} lives with {o}.",
    "grade": "{s} is in {o}.",
}
DEFAULT_TEMPLATE: Final = "{s}: {p} {o}."
FUTURE_AUXILIARIES: Final = frozenset({"will", "'ll", "ll", "shall", "wo"})
FUTURE_HEADS: Final = frozenset({"going", "gon", "gonna", "planning", "about"})
#: Predicates whose announcement in the future is a plan, not yet a fact.
CHANGE_PREDICATES: Final = frozenset(
    {
        "lives_in",
        "works_at",
        "job_title",
        "works_on",
        "diet",
        "owns",
        "visited",
        "attended",
        "spouse",
        "relationship_status",
        "member_of",
        "studies_at",
        "has_pet",
    }
)
VALID_FROM_KINDS: Final = frozenset({"event", "fact", "relationship"})
_IMPLICIT_PREFIX: Final = {"been": "{s} has ", "gon": "{s} is ", "gonna": "{s} is ", "going": "{s} is "}
_SPACES: Final = re.compile(r"\s+")
_SPACE_BEFORE_PUNCT: Final = re.compile(r"\s+([,.;:!?])")


@dataclass(frozen=True)
class MessageContext:
    message: MessageIn
    speakers: Speakers
    renderer: Renderer
    skip_names: frozenset[str]  # lower-cased names never emitted as "other" mentions (the speaker)
    referents: Mapping[int, str] = field(default_factory=dict)  # a resolved "she": its subject


#: Marks a claim closes when its span opened one and ended before the closer ("OpenCV(4.7.0" → "…4.7.0)").
_CLOSERS: Final = {"(": ")", "[": "]", "{": "}"}
#: Marks that close themselves: an odd count leaves one open.
_SELF_CLOSING: Final = ('"', "`")


def close_marks(text: str) -> str:
    """``text`` with the brackets and quotes its span left open closed at its end, innermost first: a clause
    ends where its words end, and a closing bracket or quote after the last word ("(4,−2), and I …",
    'called "Cyberpunk 2077".') fell outside it. Single quotes are left alone (they are apostrophes too)."""
    opened: list[str] = []
    for char in text:
        if char in _CLOSERS:
            opened.append(_CLOSERS[char])
        elif opened and char == opened[-1] and char not in _SELF_CLOSING:
            opened.pop()
        elif char in _SELF_CLOSING:
            if opened and opened[-1] == char:
                opened.pop()
            else:
                opened.append(char)
    return text + "".join(reversed(opened))


def finish_sentence(text: str) -> str:
    text = _SPACE_BEFORE_PUNCT.sub(r"\1", _SPACES.sub(" ", text)).strip(" ,;:-–—")
    text = close_marks(text.rstrip(".!?…")) + "."
    return text[:1].upper() + text[1:]


def is_future(clause: Clause, ctx: MessageContext) -> bool:
    head = clause.head
    if any(c.lower_ in FUTURE_AUXILIARIES for c in head.children if c.dep_ == "aux"):
        return True
    if head.dep_ == "xcomp" and head.head.lower_ in FUTURE_HEADS:
        return True
    date = ctx.message.document_date
    return any(m.start > date for m in ctx.renderer.mentions_in(clause.tokens))


def as_plan(fact: Fact, clause: Clause, ctx: MessageContext) -> Fact:
    """A future change restated as a plan: object = the clause from its verb on ("move to Lisbon")."""
    head = clause.head
    rest = tuple(t for t in clause.tokens if t.i > head.i)
    value = f"{head.lemma_} {ctx.renderer.render(rest, drop_times=True)}".strip(" .,!")
    return Fact("plans_to", "decision", (head, *rest), object_text=value, specific=fact.specific)


def _clause_claim(clause: Clause, ctx: MessageContext) -> str:
    text = ctx.renderer.render(clause.tokens)
    if clause.subject_kind == "implicit":
        first = clause.tokens[0]
        prefix = _IMPLICIT_PREFIX.get(first.lower_, "{s} ").format(s=ctx.speakers.display)
        if first.lower_ == "been" or first.pos_ != "PROPN":
            text = text[:1].lower() + text[1:]
        text = prefix + text
    return text


def object_value(fact: Fact, ctx: MessageContext) -> str:
    if fact.object_text is not None:
        return fact.object_text
    return clean_name(ctx.renderer.render(fact.object_tokens, drop_times=True))


def secondary_claim(predicate: str, subject: str, value: str) -> str:
    """A short templated claim; an ending reads "<s> no longer <state>" ("User no longer uses Notion.")."""
    base = ending_base(predicate)
    if base is not None:
        state = SECONDARY_TEMPLATES.get(base)
        if state is not None and state.startswith("{s} "):
            return state.replace("{s} ", "{s} no longer ", 1).format(s=subject, o=value)
        verb, *rest = base.split("_")  # a generic predicate is a verb's lemma: "User no longer does French."
        return " ".join([subject, "no longer", third_person(verb), *rest, value]) + "."
    template = SECONDARY_TEMPLATES.get(predicate, DEFAULT_TEMPLATE)
    return template.format(s=subject, o=value, p=predicate.replace("_", " "))


def _display(subject: str, speakers: Speakers) -> str:
    if subject == speakers.subject:
        return speakers.display
    if subject.startswith(f"{speakers.subject}'s "):
        return speakers.possessive + subject[len(speakers.subject) + 2 :]
    return subject


#: Words for one's employer that name none ("my company", "our startup").
WORKPLACE_WORDS: Final = SPEAKER_BUSINESS_NOUNS | frozenset(
    {"employer", "workplace", "job", "work", "office"}
)


def _own_workplace(value: str, possessive: str) -> bool:
    """ "User's company", "User's current startup": the speaker's employer said without its name."""
    if not value.startswith(possessive):
        return False
    rest = value[len(possessive) :].split()
    return 0 < len(rest) <= 2 and rest[-1].casefold() in WORKPLACE_WORDS


#: Most words a claim about a bare pronoun has after its subject and still says nothing ("is loving it").
PRONOUN_CLAIM_WORDS: Final = 3


def _says_little(claim: str, shown: str) -> bool:
    """ "User hates them.", "User is loving it."; not "User read that book and loved it."."""
    return len(claim.strip(" ,;:").removeprefix(shown).split()) <= PRONOUN_CLAIM_WORDS


def build_candidate(
    ctx: MessageContext,
    fact: Fact,
    subject: str,
    tokens: tuple[Token, ...],
    span: tuple[int, int],
    *,
    clause: Clause | None,
    primary: bool,
) -> CandidateOut | None:
    """One candidate; None when the fact has no usable object."""
    value = object_value(fact, ctx)
    if not value and fact.template is not None and fact.object_tokens:  # a date is the value: "… is 15 June"
        value = ctx.renderer.render(fact.object_tokens).strip(" .,!")
    if fact.specific and not value and ending_base(fact.predicate) is None and fact.predicate != DIED:
        return None
    predicate = normalise_predicate(fact.predicate)
    if predicate == "works_at" and _own_workplace(value, ctx.speakers.possessive):
        return None  # "the only designer at my company": the employer already known, not a new one
    shown = _display(subject, ctx.speakers)
    if fact.template is not None:
        claim = fact.template.format(s=shown, o=value)
    elif fact.claim_tokens is not None and clause is not None:
        claim = _clause_claim(replace(clause, tokens=fact.claim_tokens), ctx)
    elif primary and clause is not None:
        claim = _clause_claim(clause, ctx)
    else:
        claim = secondary_claim(predicate, shown, value)
    if fact.kind == "preference" and value.casefold() in BARE_PRONOUNS and _says_little(claim, shown):
        return None  # "Don't suggest mushrooms, I hate them": "User hates them." says nothing on its own
    mentions_in = ctx.renderer.mentions_in(tokens)
    valid_from = mentions_in[0].start if mentions_in and fact.kind in VALID_FROM_KINDS else None
    is_hedged = fact.hedged or hedged(tokens) or (clause is not None and clause.hedged_by_verb)
    return CandidateOut(
        claim=finish_sentence(claim),
        kind=fact.kind,
        subject=subject,
        predicate=predicate,
        object=value,
        mentions=_mentions(ctx, fact, predicate, subject, tokens, claim),
        source_message_indexes=(ctx.message.index,),
        span_start=span[0],
        span_end=span[1],
        confidence=confidence(
            specific=fact.specific,
            hedged=is_hedged,
            implicit_subject=clause is not None and clause.subject_kind == "implicit",
            about_other=subject != ctx.speakers.subject,
        ),
        importance=importance(fact.kind, predicate, specific=fact.specific),
        valid_from=valid_from,
    )


def _mentions(
    ctx: MessageContext, fact: Fact, predicate: str, subject: str, tokens: tuple[Token, ...], claim: str
) -> tuple[Mention, ...]:
    """Subject, object and other mentions; "other" ones only when the claim text names them."""
    sp = ctx.speakers
    found: list[Mention] = []
    if sp.named and subject == sp.subject:
        found.append(Mention(sp.subject, "person", "subject"))
    elif subject != sp.subject and "'s " not in subject:
        found.append(Mention(subject, "person", "subject"))
    covered: set[int] = set()
    obj = object_mention(predicate, fact.object_tokens, fact.object_text)
    if obj is not None:
        found.append(obj[0])
        covered = obj[1]
    if tokens:
        ids = {t.i for t in tokens}
        others = entity_mentions(tokens[0].doc.ents, ids, covered, set(ctx.skip_names))
        if sp.named and sp.other and any(t.lower_ in ("you", "your") for t in tokens):
            others.append(Mention(sp.other, "person", "other"))
        lowered = claim.lower()
        found += [m for m in others if m.name.lower() in lowered]
    return dedupe(found)
