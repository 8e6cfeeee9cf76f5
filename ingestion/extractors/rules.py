"""The offline rules extractor: spaCy parse + first-person patterns, no model calls.

Flow per episode: parse every message a person wrote (role ``user``) in batched ``nlp.pipe`` passes; for each
sentence drop questions and chatter; cut it into clauses; keep the clauses about the speaker (I/we, my X,
"X is too big for me", casual subjectless reports, "let's" choices: ``rules_lets``); map each to
(predicate, object, kind) facts; rewrite it as a standalone third-person claim with absolute dates; add
relationship candidates for named "my wife Sara"-style mentions; then an extractive summary and key
learnings.

Choices:

* Only ``user`` messages yield claims. Assistant, system and tool messages are never parsed (they are also
  the long ones, so this is most of the speed): what the assistant says about a car is not a memory about
  the user, unless the user takes it up in the next turn ("let's go with that": ``rules_accepted``). A named
  ``user`` message is a person speaking (LoCoMo: two named friends), and claims are about that person
  ("Rosalind went to ...").
* "you" is the other participant: the other named speaker of the conversation (the previous different one
  when there are more than two), else "the assistant" when one is present.
* Candidates are de-duplicated within the episode on (subject, predicate, object) and on claim text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Final

from spacy.tokens import Doc, Span, Token

from ingestion.deaths import PET
from ingestion.extractors.base import CandidateOut, EpisodeIn, ExtractionResult, MessageIn
from ingestion.extractors.predicates import LEFT, is_change
from ingestion.extractors.rules_accepted import accepted
from ingestion.extractors.rules_cancellations import calls_off_the_plan, cancellation
from ingestion.extractors.rules_candidates import (
    CHANGE_PREDICATES,
    MessageContext,
    as_plan,
    build_candidate,
    is_future,
)
from ingestion.extractors.rules_clauses import (
    Clause,
    asks_the_listener,
    conditional_statement,
    split_clauses,
    stated_in_question,
)
from ingestion.extractors.rules_contacts import contact_facts
from ingestion.extractors.rules_filters import (
    asks_whether,
    is_chatter,
    is_conditional,
    is_hypothetical,
    is_question,
)
from ingestion.extractors.rules_given_up import CLAIM_TEMPLATE as GIVEN_UP_TEMPLATE
from ingestion.extractors.rules_given_up import given_up
from ingestion.extractors.rules_grammar import Fact
from ingestion.extractors.rules_instructions import (
    Found,
    asks_to_stop,
    condition_of,
    instruction,
    instruction_fact,
    preferred_name,
    states_beside,
)
from ingestion.extractors.rules_lets import TEMPLATE as LETS_TEMPLATE
from ingestion.extractors.rules_lets import lets_choice, says_lets
from ingestion.extractors.rules_lexicon import SPEAKER_WORDS
from ingestion.extractors.rules_meant import amended, respanned
from ingestion.extractors.rules_nlp import add_entities, parse_all
from ingestion.extractors.rules_patterns import speaker_facts
from ingestion.extractors.rules_patterns_other import deceased, names_a_death, other_facts, possessive_facts
from ingestion.extractors.rules_permissions import permission, permission_fact
from ingestion.extractors.rules_pronouns import has_subject_pronoun, referents
from ingestion.extractors.rules_relations import relation_facts
from ingestion.extractors.rules_replacements import ENDING_KIND
from ingestion.extractors.rules_rewrite import ASSISTANT_DISPLAY, Renderer, Speakers
from ingestion.extractors.rules_settings import new_setting
from ingestion.extractors.rules_taken_off import put_on, taken_off
from ingestion.extractors.rules_version_fix import version_fix
from ingestion.extractors.summary import summarise

#: Words that join a statement to the instruction after it ("I'm vegan, so please never …").
JOINING_WORDS: Final = frozenset({"so", "and", "but", "please", "then"})
#: Roles whose messages are a person speaking.
PERSON_ROLES: Final = frozenset({"user"})


def _facts(clause: Clause, speakers: Speakers) -> tuple[str, list[Fact]]:
    cancelled = cancellation(clause)
    if cancelled is not None:  # "I had to cancel the Lisbon trip", "my flight got cancelled"
        return speakers.subject, [cancelled]
    ended = taken_off(clause)
    if ended is not None:  # "My doctor took me off metformin", "I came off the pill"
        return speakers.subject, [ended]
    placed = put_on(clause)
    if placed:  # "My doctor put me on insulin"
        return speakers.subject, placed
    if clause.subject_kind in ("speaker", "implicit"):
        setting = new_setting(clause)
        if setting is not None:  # "I bumped the batch size to 64": "User's batch size is 64."
            thing, fact = setting
            return f"{speakers.subject}'s {thing}", [fact]
        return speakers.subject, speaker_facts(clause)
    setting = new_setting(clause, by_another=True)
    if setting is not None:  # "The dentist moved my appointment to April 2.", "My boss pushed our review …"
        return f"{speakers.subject}'s {setting[0]}", [setting[1]]
    if clause.subject_kind == "possessive":
        return possessive_facts(clause, speakers, f"{speakers.subject}'s")
    return other_facts(clause, speakers)


def _states_a_name(clause: Clause) -> bool:
    """ "I'm Maria": a copula right before a proper noun (not chatter, even when Maria is the speaker)."""
    head = clause.head
    nxt = head.doc[head.i + 1] if head.i + 1 < len(head.doc) else None
    named = nxt is not None and nxt.pos_ == "PROPN"
    return head.lemma_ == "be" and named and clause.subject_kind == "speaker"


#: Verbs of the speaker's own words ("I misspoke", "I meant …"): what they correct is read on its own.
TALK_ABOUT_TALK: Final = frozenset({"misspeak", "misspoke", "mean"})


def _clause_candidates(clause: Clause, ctx: MessageContext) -> list[CandidateOut]:
    called = preferred_name(clause) if clause.subject_kind == "other" else None
    if called is not None:  # "Please call me Bob."
        span = (clause.start_char, clause.end_char)
        cand = build_candidate(
            ctx, called, ctx.speakers.subject, clause.tokens, span, clause=clause, primary=True
        )
        return [cand] if cand is not None else []
    choice = lets_choice(clause) if clause.subject_kind == "other" else None
    if choice is not None:  # "Let's use Tailwind for the styling."
        value = ctx.renderer.render(choice).strip(" .,!")
        fact = Fact("plans_to", "decision", choice, object_text=value, template=LETS_TEMPLATE)
        span = (clause.start_char, clause.end_char)
        cand = build_candidate(
            ctx, fact, ctx.speakers.subject, clause.tokens, span, clause=clause, primary=True
        )
        return [cand] if cand is not None else []
    text = " ".join(t.text for t in clause.tokens)
    chatter = is_chatter(text, ctx.skip_names) and not _states_a_name(clause)
    asks = asks_whether(clause.tokens) or any(asks_the_listener(t) for t in clause.tokens)
    if chatter or is_hypothetical(clause.head) or asks:
        return []  # "I was wondering if you could help me …", "I'm not sure if it works": they ask
    if clause.head.lemma_.lower() in TALK_ABOUT_TALK and clause.subject_kind == "speaker":
        return []  # "Sorry, I misspoke: my sister's name is Klara": the name is the sentence's relation
    referent = ctx.referents.get(clause.subject.i) if clause.subject is not None else None
    if referent is not None:  # "My sister moved to Lisbon. She works as a nurse there."
        subject, facts = referent, speaker_facts(clause)
    else:
        subject, facts = _facts(clause, ctx.speakers)
    future = is_future(clause, ctx)
    out: list[CandidateOut] = []
    for fact in facts:
        if (
            future
            and (fact.predicate in CHANGE_PREDICATES or is_change(fact.predicate))
            and fact.kind != "decision"
        ):
            fact = as_plan(fact, clause, ctx)
        cand = build_candidate(
            ctx,
            fact,
            subject,
            clause.tokens,
            (clause.start_char, clause.end_char),
            clause=clause,
            primary=not out,
        )
        if cand is not None:
            out.append(cand)
    return out


def worth_reading(sent: Span, names: Sequence[str]) -> bool:
    """Can this sentence yield a candidate? Not a question, not chatter, not a condition, and it mentions the
    speaker (I/me/my/we/us/our..., "let's") or is a casual subjectless report ("Went hiking yesterday",
    "Just got back from a run")."""
    if is_question(sent) and not asks_to_stop(sent):
        stated = stated_in_question(sent)
        return bool(stated) and not conditional_statement(sent, stated)
    if instruction(sent) is not None:  # "Always show me X when I ask about Y": a condition, but kept
        return True
    if is_chatter(sent.text, names) or is_conditional(sent):
        return False
    if any(t.lower_ in SPEAKER_WORDS and t.tag_ in ("PRP", "PRP$") for t in sent) or says_lets(sent):
        return True
    if names_a_death(sent) or permission(sent) is not None:  # "Milo passed away", "You can use X again"
        return True
    if has_subject_pronoun(sent):  # "She works as a nurse": the speaker's sister? (rules_pronouns)
        return True
    if version_fix(sent) is not None:  # "Correction: it's Flask 2.3, not 2.2."
        return True
    if calls_off_the_plan(sent):  # "The Lisbon trip was cancelled."
        return True
    first = next((t for t in sent if not t.is_punct and t.pos_ not in ("INTJ", "CCONJ", "ADV")), None)
    return first is not None and (first.tag_ == "VBD" or first.lower_ in ("been", "gon", "gonna"))


def _beside(clause: Clause, instruction_tokens: tuple[Token, ...]) -> Clause:
    """A statement beside an instruction without the instruction's words, when the parse hung the
    instruction under it ("Always use metric units, I live in Germany": "use" under "live"). One the
    instruction carries keeps its words ("Always remember that my sister lives in Porto")."""
    if clause.head in instruction_tokens:
        return clause
    kept = [
        t
        for t in clause.tokens
        if t not in instruction_tokens
        and not (t.head in instruction_tokens and t.dep_ in ("aux", "neg", "punct"))  # its "do n't"
    ]
    while kept and (kept[-1].is_punct or kept[-1].lower_ in JOINING_WORDS):  # "I'm vegan, so | never …"
        kept.pop()
    return replace(clause, tokens=tuple(kept))


def _without(clause: Clause, said: tuple[Token, ...]) -> Clause:
    """A clause without a phrase the parser hung under it ("no more coffee for me, | I switched to tea")."""
    kept = [t for t in clause.tokens if t not in said]
    while kept and kept[0].is_punct:
        kept.pop(0)
    return replace(clause, tokens=tuple(kept))


def _instruction_candidate(found: Found, ctx: MessageContext) -> CandidateOut | None:
    tokens, opener, lead = found
    condition = condition_of(tokens)
    main = tuple(t for t in tokens if t not in condition)
    while main and main[0].is_punct:  # the comma after a condition said first
        main = main[1:]
    said = ctx.renderer.render(main)
    if main and main[0].tag_ in ("VBG", "VBD"):  # "stop suggesting X" → "never suggest X", "if you kept"
        said = " ".join((main[0].lemma_, ctx.renderer.render(main[1:])))
    fact = instruction_fact(said, ctx.renderer.render(condition), opener, lead)
    span = (tokens[0].idx, tokens[-1].idx + len(tokens[-1]))
    return build_candidate(ctx, fact, ctx.speakers.subject, tokens, span, clause=None, primary=True)


def _sentence_candidates(sent: Span, ctx: MessageContext, names: Sequence[str]) -> list[CandidateOut]:
    if is_question(sent) and not asks_to_stop(sent):  # only the statement it opens with ("I'm vegan, can …?")
        return _stated_candidates(sent, ctx, names)
    # "you" is another person: "Never give up!" cheers them on, it instructs no assistant
    to_assistant = ctx.speakers.other in (None, ASSISTANT_DISPLAY)
    allowed = permission(sent) if to_assistant else None
    if allowed is not None:  # "You can use bullet points again."
        span = (allowed[0].idx, allowed[-1].idx + len(allowed[-1]))
        fact = permission_fact(ctx.renderer.render(allowed))
        cand = build_candidate(ctx, fact, ctx.speakers.subject, allowed, span, clause=None, primary=True)
        return [cand] if cand is not None else []
    found = instruction(sent) if to_assistant else None
    standing = _instruction_candidate(found, ctx) if found is not None else None
    out: list[CandidateOut] = [standing] if standing is not None else []
    gave = given_up(sent)  # "No more coffee for me, I switched to tea"
    if gave is not None:
        fact = Fact(LEFT, ENDING_KIND, gave[1], template=GIVEN_UP_TEMPLATE)
        span = (gave[0][0].idx, gave[0][-1].idx + len(gave[0][-1]))
        cand = build_candidate(ctx, fact, ctx.speakers.subject, gave[0], span, clause=None, primary=True)
        out += [cand] if cand is not None else []
    for clause in split_clauses(sent, names):
        if gave is not None:
            if clause.head in gave[0]:
                continue
            clause = _without(clause, gave[0])
        if found is None:
            out += _clause_candidates(clause, ctx)
        elif states_beside(clause, found[0]):  # not the instruction itself, its condition or wish
            out += _clause_candidates(_beside(clause, found[0]), ctx)
    dead = deceased(sent)
    for rel in (*relation_facts(sent), *contact_facts(sent)):
        if dead and rel.fact.predicate == PET and dead[0] <= rel.start_char and rel.end_char <= dead[1]:
            continue  # "My dog Biscuit passed away": no longer a pet the user has
        tokens = tuple(t for t in sent if rel.start_char <= t.idx < rel.end_char)
        span = (rel.start_char, rel.end_char)
        cand = build_candidate(ctx, rel.fact, ctx.speakers.subject, tokens, span, clause=None, primary=False)
        if cand is not None:
            out.append(cand)
    return out


def _stated_candidates(sent: Span, ctx: MessageContext, names: Sequence[str]) -> list[CandidateOut]:
    stated = stated_in_question(sent)
    out: list[CandidateOut] = []
    for clause in split_clauses(sent, names, extra_heads=stated):
        if clause.head.i in stated:
            out += _clause_candidates(clause, ctx)
    return out


def message_candidates(
    message: MessageIn,
    sentences: Sequence[Span],
    doc: Doc,
    speakers: Speakers,
    names: Sequence[str],
    earlier: Doc | None = None,
) -> list[CandidateOut]:
    """All candidates of one parsed person message (``sentences``: its sentences worth reading; ``earlier``:
    the same speaker's message before, where a "she" of this one may have been named)."""
    refs = referents(doc, earlier, (speakers.subject, speakers.display))
    ctx = MessageContext(
        message=message,
        speakers=speakers,
        renderer=Renderer(doc, speakers, message.time_mentions, {i: r.display for i, r in refs.items()}),
        skip_names=frozenset({speakers.subject.lower()}),
        referents={i: r.subject for i, r in refs.items()},
    )
    out: list[CandidateOut] = []
    for sent in sentences:
        out += _sentence_candidates(sent, ctx, names)
    return out


def _other_speaker(messages: Sequence[MessageIn], position: int, names: Sequence[str]) -> str | None:
    """Who "you" is for the speaker of ``messages[position]``."""
    me = messages[position].name
    if me:
        others = [n for n in names if n != me]
        if len(others) == 1:
            return others[0]
        for m in reversed(messages[:position]):
            if m.name and m.name != me and m.role in PERSON_ROLES:
                return m.name
    return ASSISTANT_DISPLAY if any(m.role == "assistant" for m in messages) else None


def _dedupe(candidates: list[CandidateOut]) -> list[CandidateOut]:
    seen: set[tuple[str, str, str]] = set()
    claims: set[str] = set()
    out: list[CandidateOut] = []
    for c in candidates:
        key = (c.subject.lower(), c.predicate, c.object.lower())
        if key in seen or c.claim.lower() in claims:
            continue
        seen.add(key)
        claims.add(c.claim.lower())
        out.append(c)
    return out


def _reread(message: MessageIn, speakers: Speakers, names: Sequence[str]) -> list[CandidateOut]:
    """The candidates of one message parsed on its own (an amended one: ``rules_meant``)."""
    (doc,) = parse_all([message.content])
    sents = [s for s in doc.sents if worth_reading(s, names)]
    add_entities(sents)
    return message_candidates(message, sents, doc, speakers, names)


class RulesExtractor:
    """Extractor protocol implementation; stateless apart from the process-wide spaCy model."""

    name = "rules"

    def extract(self, episode: EpisodeIn) -> ExtractionResult:
        messages = episode.messages
        positions = [i for i, m in enumerate(messages) if m.role in PERSON_ROLES]
        docs = parse_all(messages[i].content for i in positions)
        names = list(dict.fromkeys(m.name for m in messages if m.name and m.role in PERSON_ROLES))
        readable = [[s for s in doc.sents if worth_reading(s, names)] for doc in docs]
        add_entities([s for sents in readable for s in sents])
        by_message: dict[int, list[CandidateOut]] = {}
        last: dict[tuple[str, str | None], Doc] = {}  # each speaker's message before
        for pos, doc, sents in zip(positions, docs, readable, strict=True):
            message = messages[pos]
            earlier = last.get((message.role, message.name))
            last[(message.role, message.name)] = doc
            speakers = Speakers.for_message(message.name, _other_speaker(messages, pos, names))
            fix = amended(messages, pos)  # "Sorry, I meant 43": the earlier message read again, put right
            if fix is not None:
                other = _other_speaker(messages, fix.position, names)
                again = _reread(fix.message, Speakers.for_message(fix.message.name, other), names)
                typed = len(messages[fix.position].content)
                by_message[fix.position] = [respanned(c, fix, typed) for c in again]
                continue
            found = message_candidates(message, sents, doc, speakers, names, earlier)
            taken = accepted(messages[pos - 1] if pos else None, message, speakers)  # "let's go with that"
            if taken is not None:  # "User will take the second one." says nothing beside it
                found = [c for c in found if c.span_end <= taken.span_start or c.span_start >= taken.span_end]
                found.append(taken)
            by_message[pos] = found
        candidates = [c for pos in sorted(by_message) for c in by_message[pos]]
        questions_only = all(is_question(s) or is_chatter(s.text, names) for doc in docs for s in doc.sents)
        candidates = _dedupe(candidates)
        summary, learnings = summarise(
            candidates,
            docs,
            names,
            with_assistant=any(m.role == "assistant" for m in messages),
            only_questions=questions_only,
        )
        return ExtractionResult(candidates=candidates, summary=summary, key_learnings=learnings)
