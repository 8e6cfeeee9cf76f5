"""A thing given up, said as "no more": "No more coffee for me, I switched to tea", "I got contacts last
week, no more glasses!", "No more late nights at the office for me" → ``left`` the thing, claimed as "User
has given up coffee." (``left`` ends whatever live memory of the speaker's names it: "drinks coffee every
morning", "wears glasses").

By form: "no more" opens the sentence or follows a comma, dash or semicolon, and the words after it up to
the next punctuation name a thing (a noun), optionally followed by "for me / us". The sentence must be the
speaker's: "for me" said, or another of its words is "I / we / my …" ("No more excuses!" alone is a cheer).
Not what the assistant writes ("No more emojis, please" is an instruction, ``rules_instructions``' to read),
nor an amount ("no more than two", "I have no more questions": "no more" does not open a phrase there),
nor a pause ("No more questions for now").
"""

from __future__ import annotations

from typing import Final

from spacy.tokens import Span, Token

from ingestion.extractors.rules_answer_words import FORM_OBJECTS
from ingestion.extractors.rules_lexicon import SPEAKER_WORDS, words
from ingestion.extractors.rules_trim import DISCOURSE_WORDS

#: What may come before "no more": nothing, or the punctuation that sets a phrase off.
OPENERS: Final = frozenset({",", "-", "–", "—", ";", ":"})
#: "for me", "for us": whose giving up it is.
FOR_SPEAKER: Final = words("me us")
#: Words after the thing that leave it whole ("No more coffee for me now", "no more glasses anymore").
AFTER_WORDS: Final = words("now anymore again")
#: "for now", "for today", "for the moment": a pause ("No more questions for now, thanks").
FOR_A_WHILE: Final = words("now today tonight the this")
CLAIM_TEMPLATE: Final = "{s} has given up {o}."
#: The thing's parts of speech; the parser reads some nouns after "more" as verbs ("no more gluten").
THING_POS: Final = frozenset({"NOUN", "PROPN", "VERB"})


def _opens(sent: Span, no: Token) -> bool:
    before = [t for t in sent if t.i < no.i and not t.is_space]
    return not before or before[-1].text in OPENERS or all(t.lower_ in DISCOURSE_WORDS for t in before)


def _thing(sent: Span, start: int) -> tuple[list[Token], list[Token]]:
    """The thing's words after "no more", and the words of the whole phrase up to its end."""
    thing: list[Token] = []
    said: list[Token] = []
    toks = [t for t in sent if t.i >= start]
    i = 0
    while i < len(toks) and not toks[i].is_punct:
        tok = toks[i]
        if tok.lower_ == "for" and i + 1 < len(toks) and toks[i + 1].lower_ in FOR_A_WHILE:
            return [], []  # "No more questions for now": a pause, nothing given up
        if tok.lower_ == "for" and i + 1 < len(toks) and toks[i + 1].lower_ in FOR_SPEAKER:
            said += toks[i : i + 2]
            i += 2
            continue
        if tok.lower_ in AFTER_WORDS:
            said.append(tok)
        elif said:  # words after "for me": not a phrase that ends there
            return [], []
        else:
            thing.append(tok)
        i += 1
    return thing, thing + said


def given_up(sent: Span) -> tuple[tuple[Token, ...], tuple[Token, ...]] | None:
    """(the phrase's words, the thing's words) of the sentence's "no more X", or None (module doc)."""
    toks = list(sent)
    for k, no in enumerate(toks[:-2]):
        if no.lower_ != "no" or toks[k + 1].lower_ != "more" or not _opens(sent, no):
            continue
        thing, phrase = _thing(sent, toks[k + 2].i)
        named = [t for t in thing if t.pos_ in THING_POS]
        if not named or thing[0].pos_ in ("ADP", "SCONJ", "PRON") or any(t.lower_ == "than" for t in thing):
            return None
        if any(t.lemma_.lower() in FORM_OBJECTS or t.lower_ == "please" for t in sent):
            return None  # "No more emojis, please": what the assistant writes
        mine = any(t.lower_ in FOR_SPEAKER for t in phrase) or any(
            t.lower_ in SPEAKER_WORDS and t.tag_ in ("PRP", "PRP$") for t in sent if t not in phrase
        )
        return ((no, toks[k + 1], *phrase), tuple(thing)) if mine else None
    return None
