"""Cut a parsed sentence into clauses and say whose clause each one is.

Choices:

* An adverbial clause about the speaker inside a sentence that is not ("it's been hard since I lost my
  job") becomes its own clause.
* A sentence is split at coordinated or comma-spliced clauses that have their own subject
  ("I went to a support group yesterday and it was so powerful" → two clauses; "SUVs are too big for me,
  I mostly do city commuting" → two clauses). A clausal complement stays inside its clause ("I said I love
  it") unless it comes *before* its head (the parser's reading of a comma splice) or hangs off a hedge verb
  ("I think I'm moving" → the hedged clause "I'm moving") or off a subjectless (imperative) head ("Please
  note I'm allergic to peanuts").
* Three more cuts the parser's tree hides: a subjectless past report with its object spliced to the next
  clause with a comma ("Sold the Civic, I'm driving a Tesla now"), a request joined to a statement ("I get
  up at 6, and please call me Kate") and a clause hung under a label's colon ("Quick update: I moved").
* What does not belong to a claim at a clause's start and end is trimmed (``rules_trim``: discourse words,
  connectives, asides, labels, vocatives, trailing punctuation).
* Each clause gets a subject kind: ``speaker`` (I/we, or a coordination that includes "I": "my wife and I
  ..."; the claim keeps the other person as written), ``possessive`` ("my sister ...", "our startup ..."),
  ``implicit`` (a casual subjectless report: "Went hiking yesterday", "Been reading a lot") or ``other``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final, Literal

from spacy.tokens import Span, Token

from ingestion.extractors.rules_filters import HEDGE_VERBS, is_condition_word
from ingestion.extractors.rules_rewrite import FIRST_PERSON_SUBJECTS
from ingestion.extractors.rules_trim import SUBJECT_DEPS, trim

SubjectKind = Literal["speaker", "possessive", "implicit", "other"]

SPLIT_DEPS: Final = frozenset({"conj", "parataxis"})
FIRST_PERSON_POSSESSIVES: Final = frozenset({"my", "our"})

_CASUAL_FUTURE: Final = frozenset({"gon", "gonna", "going"})


@dataclass(frozen=True)
class Clause:
    sent: Span
    head: Token
    tokens: tuple[Token, ...]
    subject: Token | None
    subject_kind: SubjectKind
    hedged_by_verb: bool = False

    @property
    def start_char(self) -> int:
        return self.tokens[0].idx

    @property
    def end_char(self) -> int:
        last = self.tokens[-1]
        return last.idx + len(last.text)

    def has(self, tok: Token) -> bool:
        return any(t.i == tok.i for t in self.tokens)


def subject_of(head: Token) -> Token | None:
    """The head's own subject token, if it has one; of two, not a word set off by a comma ("Ugh, my
    employer called …": the interjection is parsed as a second subject)."""
    found = [c for c in head.children if c.dep_ in SUBJECT_DEPS]
    doc = head.doc
    apart = [c for c in found if len(found) > 1 and c.i + 1 < len(doc) and doc[c.i + 1].text == ","]
    return next((c for c in found if c not in apart), found[0] if found else None)


def is_first_person(tok: Token) -> bool:
    return tok.lower_ in FIRST_PERSON_SUBJECTS and tok.tag_ == "PRP"


def _speaker_head(head: Token) -> bool:
    subj = subject_of(head)
    return subj is not None and is_first_person(subj)


def clause_heads(sent: Span) -> list[Token]:
    """The sentence root plus the heads of coordinated / spliced clauses with their own subject."""
    heads = [sent.root]
    for tok in sent:
        if spliced_report(tok) and _speaker_head(sent.root):
            heads.append(tok)  # "Sold the Civic, I'm driving a Tesla now" → "Sold the Civic"
            continue
        if tok.dep_ == "conj" and subject_of(tok) is None and any(c.lower_ == "please" for c in tok.children):
            heads.append(tok)  # "I get up at 6, and please call me Kate": a request, not the speaker's act
            continue
        if tok.i == sent.root.i or subject_of(tok) is None or tok.pos_ not in ("VERB", "AUX"):
            continue
        if tok.dep_ in SPLIT_DEPS or labelled(tok):
            heads.append(tok)
        elif tok.dep_ == "advcl" and _speaker_head(tok) and not _speaker_head(sent.root):
            heads.append(tok)  # "It's been tough since I lost my job" → "I lost my job"
        elif tok.dep_ == "advcl" and _speaker_head(tok) and _consequence(tok):
            heads.append(tok)  # "I moved to Denver, so I don't go to that gym anymore": two statements
        elif tok.dep_ == "ccomp" and (
            tok.i < tok.head.i
            or (tok.head.dep_ == "ROOT" and subject_of(tok.head) is None)  # "Please note I'm allergic to ..."
            or (tok.head.lemma_.lower() in HEDGE_VERBS and _speaker_head(tok.head))
            or framed(tok)
        ):
            heads.append(tok)
    return sorted(heads, key=lambda t: t.i)


def _consequence(tok: Token) -> bool:
    """A clause that "so" opens, said as a fact: not a purpose ("so that …", "so I can …")."""
    so = next((c for c in tok.children if c.dep_ in ("mark", "advmod") and c.lower_ == "so"), None)
    modal = any(c.dep_ == "aux" and c.tag_ == "MD" for c in tok.children)
    return so is not None and so.i < tok.i and tok.doc[so.i + 1].lower_ != "that" and not modal


def labelled(tok: Token) -> bool:
    """A clause after a label's colon that the parser hung under the label ("Quick update: these days I get
    up at 7:15", with "get" read as a modifier of "update")."""
    if tok.dep_ not in ("acl", "relcl", "appos") or tok.head.dep_ != "ROOT":
        return False
    return any(t.text == ":" for t in tok.doc[tok.head.i + 1 : tok.i])


def spliced_report(tok: Token) -> bool:
    """A subjectless past report with its object, first in a sentence and spliced to the next clause with a
    comma: "Sold the Civic, I'm driving a Tesla now" (the parser hangs it under the second clause as a
    participle; "Born in Ohio, I …" has no object and stays a participle)."""
    if tok.dep_ != "advcl" or tok.tag_ not in ("VBD", "VBN") or tok.i != tok.sent.start:
        return False
    if not any(c.dep_ == "dobj" for c in tok.children):
        return False
    end = max(t.i for t in tok.subtree) + 1
    return end < len(tok.doc) and tok.doc[end].text == ","


def framed(tok: Token) -> bool:
    """``tok`` heads the speaker's statement inside a frame: "The good news is that I got the job", "The
    thing is, I just adopted a puppy" (the root "is" has a subject that is not the speaker's)."""
    frame, subject = tok.head, subject_of(tok)
    if tok.dep_ != "ccomp" or frame.dep_ != "ROOT" or frame.lemma_ != "be" or subject is None:
        return False
    frame_subject = subject_of(frame)
    if frame_subject is None or is_first_person(frame_subject) or owned_by_speaker(frame_subject):
        return False
    return is_first_person(subject) or owned_by_speaker(subject)


def _collect(head: Token, stop: set[int]) -> list[Token]:
    out: list[Token] = []
    stack = [head]
    while stack:
        tok = stack.pop()
        out.append(tok)
        stack.extend(c for c in tok.children if c.i not in stop)
    return sorted(out, key=lambda t: t.i)


#: How many possessors deep "my daughter's friend's wedding" is followed.
MAX_POSSESSIVE_DEPTH: Final = 3


def owned_by_speaker(noun: Token) -> bool:
    """ "my sister", "our startup", and nested: "my daughter's wedding"."""
    for _ in range(MAX_POSSESSIVE_DEPTH):
        owner = next((c for c in noun.children if c.dep_ == "poss"), None)
        if owner is None:  # "my dog Waffles": "my" hung on the compound before the name
            compounds = (c for c in noun.children if c.dep_ == "compound")
            owner = next((g for c in compounds for g in c.children if g.dep_ == "poss"), None)
        if owner is None:
            return False
        if owner.lower_ in FIRST_PERSON_POSSESSIVES:
            return True
        noun = owner
    return False


def _leading_adverb(tok: Token, head: Token) -> bool:
    """An adverb of the head before it ("just", "finally", "already")."""
    return tok.pos_ == "ADV" and tok.dep_ == "advmod" and tok.head.i == head.i and tok.i < head.i


def _subject_kind(head: Token, subject: Token | None, tokens: list[Token]) -> SubjectKind:
    if subject is not None:
        subjects = [c for c in head.children if c.dep_ in SUBJECT_DEPS]  # "Sara and I" parsed as two at times
        if any(is_first_person(c) for s in subjects for c in (s, *s.conjuncts)):
            return "speaker"  # "I ...", "My wife and I moved to Denver", "John and I both love hiking"
        if owned_by_speaker(subject):
            return "possessive"
        return "other"
    first = tokens[0]
    past = next((t for t in tokens if not _leading_adverb(t, head)), first)
    if (past.tag_ == "VBD" and past.i == head.i) or spliced_report(head):
        return "implicit"  # "Went hiking yesterday.", "Just got back from a run.", "Sold the Civic, …"
    if first.lower_ == "been" or (first.lower_ in _CASUAL_FUTURE and first.i <= head.i):
        return "implicit"  # "Been reading a lot." / "Gonna start a new job."
    return "other"


#: Tags of wh-words ("what", "which", "whose", "how").
_WH_TAGS: Final = frozenset({"WDT", "WP", "WP$", "WRB"})


def _asks(head: Token, head_ids: set[int]) -> bool:
    """Whether the clause of ``head`` is interrogative: an auxiliary before its subject ("can you …") or a
    wh-word before its verb ("how should I …", "what snack should I …")."""
    subject = subject_of(head)
    if subject is not None and any(c.dep_ in ("aux", "auxpass") and c.i < subject.i for c in head.children):
        return True
    return any(t.tag_ in _WH_TAGS and t.i < head.i for t in _collect(head, head_ids - {head.i}))


#: Modals a request to the listener inverts or hedges with ("can you check …", "if you could help …").
_REQUEST_MODALS: Final = frozenset({"can", "could", "would", "will"})


def asks_the_listener(token: Token) -> bool:
    """``token`` is the "you" of a request: after its modal ("…, can you check my work?", which the parser
    often hangs below an earlier clause) or with a modal under another verb ("I was wondering if you could
    help", "I was hoping you could review it")."""
    if token.lower_ != "you" or token.dep_ != "nsubj":
        return False
    verb = token.head
    modals = [c for c in verb.children if c.dep_ == "aux" and c.lower_ in _REQUEST_MODALS]
    return any(m.i < token.i for m in modals) or (bool(modals) and verb.dep_ != "ROOT")


#: Words that give a question's reason: "…, since I edit videos?", "…, because I'm vegetarian?".
_REASON_MARKS: Final = frozenset({"since", "because", "as"})
#: … and verbs that do: "…, considering I've already cut it to 10?", "…, given that I prefer PKCE?".
_REASON_VERBS: Final = frozenset({"considering", "given"})


def _gives_reason(tok: Token) -> bool:
    """``tok`` heads a clause of the speaker's ("I …", "my … ") given as a reason (see ``_REASON_*``)."""
    subject = subject_of(tok)
    if subject is None or tok.pos_ not in ("VERB", "AUX"):
        return False
    if not (is_first_person(subject) or owned_by_speaker(subject)):
        return False
    marked = any(c.dep_ == "mark" and c.lower_ in _REASON_MARKS for c in tok.children)
    return marked or (tok.head.lower_ in _REASON_VERBS and tok.dep_ in ("ccomp", "pcomp", "advcl"))


def stated_in_question(sent: Span) -> frozenset[int]:
    """In a question, the heads of the clauses that state something about the speaker; empty for any
    other question ("Do you think I should move?" states nothing):

    - the statement it opens with ("I'm allergic to nuts, can you suggest a snack?", "I work at Stripe
      now, how should I update my resume?"): declarative clauses, not under a condition ("If I move, what
      …?"), before an interrogative clause of the same sentence;
    - the reason it gives after asking ("What should I cook, since I'm vegetarian?", "Can you tune it,
      considering I've already cut the pool to 10?"): a clause of the speaker's after a reason word, and
      the clauses joined to it ("… because I'm vegetarian and my partner hates mushrooms?").

    The heads of reasons are not always clause heads (:func:`clause_heads`): pass the result to
    :func:`split_clauses` as ``extra_heads``."""
    heads = clause_heads(sent)
    head_ids = {head.i for head in heads}
    asking = [head.i for head in heads if _asks(head, head_ids)] + [t.i for t in sent if asks_the_listener(t)]
    if not asking:
        return frozenset()
    opening = {
        head.i
        for head in heads
        if head.i < max(asking)
        and not _asks(head, head_ids)
        and not any(c.dep_ == "mark" and is_condition_word(c) for c in head.children)
    }
    reasons = {tok.i for tok in sent if tok.i > min(asking) and _gives_reason(tok)}
    joined = {head.i for head in heads if head.dep_ in SPLIT_DEPS and head.head.i in reasons}
    return frozenset(opening | reasons | joined)


def conditional_statement(sent: Span, stated: frozenset[int]) -> bool:
    """Whether a condition governs what a question states (``stated``: :func:`stated_in_question`): a
    condition word under a stated head, outside the clauses that ask. "If I get the job I'm moving, can
    you help?" states nothing for sure; "I prefer proofs by algebra, so can you check whether these lines
    are perpendicular, for example if the slopes are 2 and -1/2?" states the preference, and the "if"
    belongs to the request."""
    heads = clause_heads(sent)
    head_ids = {head.i for head in heads}
    asking = [head for head in heads if _asks(head, head_ids)]
    asking += [t.head for t in sent if asks_the_listener(t)]
    question = {t.i for head in asking for t in _collect(head, head_ids - {head.i})}
    return any(is_condition_word(t) for i in stated for t in sent.doc[i].subtree if t.i not in question)


def split_clauses(sent: Span, names: Iterable[str] = (), extra_heads: Iterable[int] = ()) -> list[Clause]:
    """The clauses of ``sent`` with trimmed tokens and subject kinds (empty clauses are left out).
    ``extra_heads``: indexes of tokens that head a clause too (:func:`stated_in_question`)."""
    lowered = {n.lower() for n in names}
    heads = clause_heads(sent)
    head_ids = {h.i for h in heads}
    heads = sorted([*heads, *(sent.doc[i] for i in set(extra_heads) - head_ids)], key=lambda t: t.i)
    head_ids = {h.i for h in heads}
    out: list[Clause] = []
    for head in heads:
        tokens = trim(_collect(head, head_ids - {head.i}), lowered)
        if not tokens:
            continue
        subject = subject_of(head)
        hedged = head.dep_ == "ccomp" and head.head.lemma_.lower() in HEDGE_VERBS and _speaker_head(head.head)
        out.append(Clause(sent, head, tuple(tokens), subject, _subject_kind(head, subject, tokens), hedged))
    return out
