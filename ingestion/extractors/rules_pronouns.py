"""Who "he" / "she" is, when the speaker has just said: "My sister moved to Lisbon. She works as a nurse
there." → "User's sister works as a nurse there."; "My brother Luis got married. He lives in Leeds now." →
"Luis lives in Leeds now."; "My sister lives in Lisbon." then "Wait, she lives in Porto, not Lisbon." (the
speaker's next message) → the sister's home put right. Before, a clause whose subject was a pronoun said
nothing.

Only a subject "he" / "she", and only when the nearest person said before it (in its sentence, the three
sentences before, then the same speaker's message before) is the speaker's own relation of that gender
("my sister", "my dad"), or a name given to one ("my sister Ana"). Any other person nearer ("I met my mom's
friend. She was lovely": the friend, of no known gender) leaves the pronoun unread, as before.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Final

from spacy.tokens import Doc, Token

from ingestion.extractors.rules_grammar import name_of, names_attached, speakers_own
from ingestion.extractors.rules_lexicon import RELATION_NOUNS, words

FEMALE: Final = words(
    "sister mom mother mum wife daughter aunt grandma grandmother girlfriend niece fiancee fiancée stepmom "
    "stepdaughter granddaughter"
)
MALE: Final = words(
    "brother dad father husband son uncle grandpa grandfather boyfriend nephew fiance fiancé stepdad stepson "
    "grandson"
)
GENDERS: Final = {"she": FEMALE, "he": MALE}
#: Nouns of a person: one of them nearer than the relation makes the pronoun another's.
PEOPLE: Final = frozenset(RELATION_NOUNS) | words(
    "neighbour neighbor teacher doctor nurse woman man girl guy lady person therapist coach client customer"
)
#: How many sentences before the pronoun's (in the same message) an antecedent may be.
MAX_SENTENCES_BACK: Final = 3
SUBJECT_DEPS: Final = frozenset({"nsubj", "nsubjpass"})


@dataclass(frozen=True)
class Referent:
    subject: str  # the candidate's subject ("user's sister", "Luis")
    display: str  # as a claim says it ("User's sister", "Luis")


def _before(pronoun: Token, earlier: Doc | None) -> Iterator[Token]:
    """The tokens before the pronoun, nearest first, within the window the module doc sets."""
    doc = pronoun.doc
    sents = list(doc.sents)
    here = next(k for k, s in enumerate(sents) if s.start <= pronoun.i < s.end)
    yield from reversed(doc[sents[max(0, here - MAX_SENTENCES_BACK)].start : pronoun.i])
    if here < MAX_SENTENCES_BACK and earlier is not None:
        last = list(earlier.sents)[-(MAX_SENTENCES_BACK - here) :]
        yield from reversed(earlier[last[0].start : last[-1].end])


def _relation_of(name: Token) -> Token | None:
    """The relation noun a name is given to: "my sister Ana" (either way the parser joins them)."""
    kin = [c for c in name.children if c.dep_ == "compound" and c.pos_ == "NOUN"]
    if name.dep_ == "appos" and name.head.pos_ == "NOUN":
        kin.append(name.head)
    return kin[0] if kin else None


def _owned(noun: Token) -> bool:
    return speakers_own(noun) or (noun.dep_ == "compound" and speakers_own(noun.head))


def _referent(pronoun: Token, earlier: Doc | None, owner: tuple[str, str]) -> Referent | None:
    gender = GENDERS[pronoun.lower_]
    for tok in _before(pronoun, earlier):
        if tok.pos_ == "PROPN" and (tok.ent_type_ == "PERSON" or _relation_of(tok) is not None):
            kin = _relation_of(tok)
            if kin is None or kin.lemma_.lower() not in gender or not _owned(kin):
                return None
            name = " ".join(t.text for t in name_of(tok))
            return Referent(name, name)
        if tok.pos_ == "NOUN" and tok.lemma_.lower() in PEOPLE:
            if tok.lemma_.lower() not in gender or not _owned(tok):
                return None
            names = names_attached(tok)
            if names:
                name = " ".join(t.text for t in names[0])
                return Referent(name, name)
            return Referent(f"{owner[0]}'s {tok.lower_}", f"{owner[1]}'s {tok.lower_}")
        if tok.pos_ == "PRON" and tok.lower_ in GENDERS and tok.lower_ != pronoun.lower_:
            return None  # "she … he": two people in play
    return None


def referents(doc: Doc, earlier: Doc | None, owner: tuple[str, str]) -> dict[int, Referent]:
    """Each subject "he" / "she" of ``doc`` that the module doc's rule resolves, by token index (``owner``:
    the speaker as a subject and as a claim says it; ``earlier``: the speaker's message before)."""
    found = {}
    for tok in doc:
        if tok.lower_ in GENDERS and tok.dep_ in SUBJECT_DEPS:
            referent = _referent(tok, earlier, owner)
            if referent is not None:
                found[tok.i] = referent
    return found


def has_subject_pronoun(tokens: Iterable[Token]) -> bool:
    """A subject "he" / "she" among ``tokens``: a sentence :func:`referents` may make the speaker's."""
    return any(t.lower_ in GENDERS and t.dep_ in SUBJECT_DEPS for t in tokens)
