"""Rewrite first-person text into a standalone third-person claim with absolute dates.

"I went to a pottery class yesterday" said by Rosalind on 8 May 2023 becomes
"Rosalind went to a pottery class on 7 May 2023".

Choices:

* I/me/we/us → the speaker's name ("User" for an unnamed user); my/our/mine/ours → "<name>'s";
  myself/ourselves → "themselves" (no gender is guessed). "we" is read as the speaker, so "we pivoted to
  B2C" is a claim about the speaker's work.
* "we both" / "we're both" is the speaker and someone the text does not name (a partner, a friend, not
  necessarily the other participant), so the claim is about the speaker alone and the "both" goes:
  "We both love hiking" said by Maria → "Maria loves hiking". A claim never names a person the text does
  not.
* you/your → the other participant: the other named speaker in a two-person conversation, "the assistant"
  when the user talks to an assistant. Unresolvable "you" is left as written.
* Verbs agree with the new third-person subject: "I am"/"I'm" → "is", "we were" → "was",
  "I have"/"I've" → "has", "I don't" → "doesn't", "I love" → "loves"; "I'd" → "would" (or "had" before a
  participle), "I'll" → "will".
* A resolved time mention is replaced by ``ingestion.temporal.format_when`` ("yesterday" → "on 7 May 2023");
  after a preposition it keeps ("since", "until", "early", ...) the bare form is used ("since 2022").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from spacy.tokens import Doc, Token

from ingestion.extractors.base import USER_SUBJECT, TimeMention
from ingestion.extractors.rules_lexicon import words
from ingestion.extractors.rules_nlp import is_irregular_past
from ingestion.temporal import format_when

#: How an unnamed user and the assistant are written in claims.
USER_DISPLAY: Final = "User"
ASSISTANT_DISPLAY: Final = "the assistant"
NEUTRAL_REFLEXIVE: Final = "themselves"

FIRST_PERSON_SUBJECTS: Final = frozenset({"i", "we"})
_SELF: Final = frozenset({"i", "me", "we", "us"})
_SELF_POSSESSIVE: Final = frozenset({"my", "our", "mine", "ours"})
_SELF_REFLEXIVE: Final = frozenset({"myself", "ourselves"})
_OTHER: Final = frozenset({"you"})
_OTHER_POSSESSIVE: Final = frozenset({"your", "yours"})
_OTHER_REFLEXIVE: Final = frozenset({"yourself", "yourselves"})

#: Third-person forms of the irregular and contracted verbs.
_THIRD_PERSON: Final = {
    "am": "is",
    "'m": "is",
    "m": "is",
    "are": "is",
    "'re": "is",
    "re": "is",
    "were": "was",
    "have": "has",
    "'ve": "has",
    "ve": "has",
    "do": "does",
    "go": "goes",
}
#: Words that date a sentence in the past ("I quit smoking three years *ago*").
PAST_WORDS: Final = frozenset({"ago", "yesterday", "earlier", "formerly"})
#: Verbs whose simple past is their base form; the tagger often reads them as present.
SAME_PAST_FORMS: Final = frozenset(
    {
        "quit",
        "put",
        "set",
        "cut",
        "hit",
        "let",
        "read",
        "cost",
        "hurt",
        "shut",
        "spread",
        "bet",
        "split",
        "upset",
    }
)
#: Of those, the ones a first-person present rarely means ("I hurt my knee", "I quit smoking"): past unless
#: the sentence says it is a habit ("I always cut my own hair").
PAST_LEANING_FORMS: Final = frozenset({"quit", "hurt", "cut", "upset", "shut"})
#: Words that make a present of a habit.
HABIT_WORDS: Final = words("always usually often sometimes never every each daily weekly whenever normally")
#: Words that join a second verb to the first ("… and are renting").
_JOINERS: Final = frozenset({"and", "but", "or", ","})
_CONTRACTIONS: Final = {"'ll": "will", "ll": "will"}
#: How the parser attaches "both" right after the verb when it qualifies the subject ("we're both"), not the
#: object ("we love both of them": dobj).
_BOTH_AFTER_VERB_DEPS: Final = frozenset({"dep", "advmod", "appos", "predet", "preconj"})
_CLITICS: Final = frozenset({"m", "re", "ve", "ll", "d", "s"})
_PREPOSITION_BEFORE_BARE_DATE: Final = frozenset(
    {
        "since",
        "until",
        "till",
        "by",
        "from",
        "before",
        "after",
        "through",
        "around",
        "of",
        "early",
        "late",
        "mid",
        "end",
        "start",
        "in",
        "on",
        "during",
        "over",
        "at",
        "for",  # "set for March 1" → "set for 1 March 2024", not "for on 1 March 2024"
        "to",  # "pushed it to Friday"
        "between",
        "than",  # "no later than June 3"
    }
)


@dataclass(frozen=True)
class Speakers:
    """Who "I" and "you" are in one message."""

    subject: str  # CandidateOut.subject: USER_SUBJECT or the speaker's name
    display: str  # how the speaker is written in claims ("User", "Rosalind")
    other: str | None = None  # how "you" is written, if known
    named: bool = False  # True for a named person (LoCoMo style), False for the anonymous user

    @classmethod
    def for_message(cls, name: str | None, other: str | None) -> Speakers:
        if name:
            return cls(subject=name, display=name, other=other, named=True)
        return cls(subject=USER_SUBJECT, display=USER_DISPLAY, other=other, named=False)

    @property
    def possessive(self) -> str:
        return f"{self.display}'s"


def third_person(text: str) -> str:
    """Third-person singular present of a non-3rd-person verb form ("love" → "loves", "'m" → "is")."""
    low = text.lower()
    if low in _THIRD_PERSON:
        out = _THIRD_PERSON[low]
    elif low.endswith(("s", "sh", "ch", "x", "z", "o")):
        out = low + "es"
    elif low.endswith("y") and len(low) > 1 and low[-2] not in "aeiou":
        out = low[:-1] + "ies"
    else:
        out = low + "s"
    return out.capitalize() if text[:1].isupper() else out


def _finite_verb(verb: Token, subject: Token) -> Token:
    """The token carrying tense/person for ``verb``: its first auxiliary after the subject, else itself."""
    auxes = [c for c in verb.children if c.dep_ in ("aux", "auxpass") and c.tag_ != "TO" and c.i > subject.i]
    return min(auxes, key=lambda t: t.i) if auxes else verb


def joint_both(tok: Token) -> Token | None:
    """The "both" qualifying a "we" subject ("we both love", "we're both on"), if ``tok`` is such a "we"."""
    if tok.lower_ != "we" or tok.dep_ not in ("nsubj", "nsubjpass"):
        return None
    head = tok.head
    after_verb = (c for c in head.children if c.i == head.i + 1 and c.dep_ in _BOTH_AFTER_VERB_DEPS)
    return next((c for c in (*tok.children, *after_verb) if c.lower_ == "both" and c.i > tok.i), None)


def _sharing_verbs(head: Token) -> list[Token]:
    """Verbs joined to ``head`` that share its subject: "I work at X and live in Y"; also where the parse
    hangs the second verb on the first one's complement ("I'm vegan and hate spicy food"), there only a
    present verb (VBP)."""
    found = []
    for child in head.children:
        if child.dep_ == "conj" and child.pos_ in ("VERB", "AUX") and not _has_subject(child):
            found.append(child)
        elif child.dep_ in ("attr", "acomp"):
            found += [
                g
                for g in child.children
                if g.dep_ == "conj" and g.tag_ == "VBP" and g.pos_ == "VERB" and not _has_subject(g)
            ]
    return found


def _present_after_present(verb: Token, head: Token) -> bool:
    """A base form joined to a present verb, without an auxiliary of its own: read as present too ("I'm 34
    and live in Utrecht"; not "let's …", "… and be advocates")."""
    if verb.dep_ != "conj" or verb.tag_ != "VB" or head.tag_ != "VBP" or verb.lemma_ in ("be", "let"):
        return False
    if head.dep_ != "ROOT" or any(t.lower_ == "so" for t in verb.doc[max(verb.i - 2, 0) : verb.i]):
        return False  # "… what I believe in and reach out", "so just shoot me a question"
    if any(head.i < c.i < verb.i and c.dep_ in ("xcomp", "advcl") for c in head.children):
        return False  # "I use a whiteboard to stay on track, visualize goals": the infinitive's list
    return not any(c.dep_ in ("aux", "auxpass") for c in (*verb.children, *head.children))


def _has_subject(verb: Token) -> bool:
    return any(g.dep_ in ("nsubj", "nsubjpass") for g in verb.children)


def agreement_indexes(doc: Doc, rewritten_subjects: Iterable[str]) -> set[int]:
    """Indexes of finite verbs whose first/second-person subject is rewritten to a third-person name."""
    subjects = set(rewritten_subjects)
    out: set[int] = set()
    for tok in doc:
        if tok.dep_ not in ("nsubj", "nsubjpass") or tok.lower_ not in subjects or tok.tag_ != "PRP":
            continue
        verbs = [tok.head, *_sharing_verbs(tok.head)]
        past_context = any(t.tag_ == "VBD" or t.lower_ in PAST_WORDS for t in tok.sent)
        habit = any(t.lower_ in HABIT_WORDS for t in tok.sent)
        for verb in verbs:
            finite = _finite_verb(verb, tok)
            now_after = any(t.lower_ == "now" and t.i > finite.i for t in tok.sent)  # "… and now I …"
            if finite.lower_ in SAME_PAST_FORMS and (
                past_context or now_after or (finite.lower_ in PAST_LEANING_FORMS and not habit)
            ):
                continue  # "I quit the bakery and started at X": "quit" is past, not "quits"
            if finite.tag_ == "VBP" and is_irregular_past(finite.text):
                continue  # "We rewrote the frontend", tagged a present: not "rewrotes"
            joined = finite.i > 0 and doc[finite.i - 1].lower_ in _JOINERS  # "… and are renting"
            if verb.i != tok.head.i and finite.lower_ == "are" and not joined:
                continue  # "… and their slopes are equal", misread as a second verb of the speaker's
            if finite.i > tok.i and (finite.tag_ == "VBP" or finite.lower_ in ("were", "'re")):
                out.add(finite.i)
            elif finite is verb and finite.tag_ == "VB" and verb.dep_ == "ROOT":
                out.add(finite.i)  # "I no longer eat meat": a present verb the tagger read as a base form
            elif finite is verb and _present_after_present(verb, tok.head):
                out.add(finite.i)  # "I'm 34 and live in Utrecht": the same, after a present verb
    return out


#: Prepositions that lead into a time and say nothing without it ("until June", "since March").
_TIME_LEAD_INS: Final = frozenset(
    {"until", "till", "since", "by", "through", "before", "after", "from", "for", "on", "in", "at", "during"}
)
#: "the end / start / middle of" a time.
_PART_OF_A_TIME: Final = frozenset({"end", "start", "beginning", "middle"})


class Renderer:
    """Renders token sequences of one parsed message as third-person text for one speaker."""

    def __init__(
        self,
        doc: Doc,
        speakers: Speakers,
        mentions: Sequence[TimeMention] = (),
        referents: Mapping[int, str] | None = None,
    ) -> None:
        self.doc = doc
        self.speakers = speakers
        self.referents = dict(referents or {})  # a "she" said of the speaker's sister → "User's sister"
        rewritten = set(FIRST_PERSON_SUBJECTS) | ({"you"} if speakers.other else set())
        self.dropped = frozenset(b.i for tok in doc if (b := joint_both(tok)) is not None)
        self.agree = agreement_indexes(doc, rewritten)
        self.time_first: dict[int, TimeMention] = {}
        self.time_last: dict[int, int] = {}
        self.time_tokens: set[int] = set()
        for mention in mentions:
            inside = [t.i for t in doc if mention.start_char <= t.idx < mention.end_char]
            if inside:
                self.time_first[inside[0]] = mention
                self.time_last[inside[0]] = inside[-1]
                self.time_tokens.update(inside)

    def mentions_in(self, tokens: Iterable[Token]) -> list[TimeMention]:
        """The time mentions whose first token is among ``tokens``."""
        return [self.time_first[t.i] for t in tokens if t.i in self.time_first]

    def word(self, tok: Token) -> str:
        """The replacement text for one token (without whitespace)."""
        low, sp = tok.lower_, self.speakers
        if tok.i in self.referents:
            return self.referents[tok.i]
        if tok.tag_ in ("PRP", "PRP$"):
            if low in _SELF:
                return sp.display
            if low in _SELF_POSSESSIVE:
                return sp.possessive
            if low in _SELF_REFLEXIVE:
                return NEUTRAL_REFLEXIVE
            if sp.other and low in _OTHER:
                return sp.other
            if sp.other and low in _OTHER_POSSESSIVE:
                return f"{sp.other}'s"
            if sp.other and low in _OTHER_REFLEXIVE:
                return sp.other
        if tok.i in self.agree:
            return third_person(tok.text)
        if low == "'d" and tok.tag_ == "MD":
            return "had" if tok.head.tag_ == "VBN" else "would"  # "I'd never felt" / "I'd love to"
        return _CONTRACTIONS.get(low, tok.text)

    def _when(self, tok: Token, mention: TimeMention) -> str:
        prev = tok.nbor(-1).lower_ if tok.i > 0 else ""
        bare = prev in _PREPOSITION_BEFORE_BARE_DATE and not mention.text[:1].isspace()
        return format_when(mention, with_preposition=not bare)

    def _lead_in(self, first: int) -> list[int]:
        """The words that lead into the time mention starting at ``first`` and mean nothing without it: its
        preposition, and "the end of" ("until the end of August")."""
        found, i = [], first - 1
        if i >= 2 and self.doc[i].lower_ == "of" and self.doc[i - 1].lower_ in _PART_OF_A_TIME:
            found += [i, i - 1]
            i -= 2
            if self.doc[i].lower_ == "the":
                found.append(i)
                i -= 1
        if i >= 0 and self.doc[i].tag_ == "IN" and self.doc[i].lower_ in _TIME_LEAD_INS:
            found.append(i)
        return found

    def render(self, tokens: Sequence[Token], *, drop_times: bool = False) -> str:
        """Third-person text of ``tokens`` (in document order); gaps between tokens become one space."""
        parts: list[str] = []
        prev: Token | None = None
        leading = {i for first in self.time_first for i in self._lead_in(first)} if drop_times else set()
        for tok in tokens:
            if tok.i in self.dropped or (tok.i in self.time_tokens and tok.i not in self.time_first):
                continue
            if tok.i in leading:  # "on leave until June" → "on leave", not "on leave until"
                continue
            if tok.i in self.time_first:
                if drop_times:
                    continue
                text = self._when(tok, self.time_first[tok.i])
            else:
                text = self.word(tok)
            if parts and not parts[-1].endswith(" "):
                gap = prev is not None and tok.i != prev.i + 1
                clitic = text != tok.text and tok.lower_.lstrip("'") in _CLITICS
                if gap or clitic or tok.i in self.time_first:
                    parts.append(" ")
            # a replaced time mention ends where its last token ends
            last = self.doc[self.time_last[tok.i]] if tok.i in self.time_first else tok
            parts.append(text + last.whitespace_)
            prev = last
        return "".join(parts).strip()
