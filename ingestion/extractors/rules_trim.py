"""What a clause's claim leaves out at its start and end (``rules_clauses`` cuts the clauses).

* Leading discourse words ("so", "well", "oh", "anyway", "by the way"), connectives before a comma
  ("however,", "moreover,"; not "now" or "then", which date what follows), "even though", interjections,
  list numbers ("1. I use vim"), asides ("thanks for the help,", "speaking of work,"; not "thanks to my
  sister,"), asides about the telling ("just so you know,", "for future reference,"), labels ("Update:",
  "Heads up -", "Here's what I have so far:"), conjunctions and vocatives (a participant's name used to
  address them) are trimmed from the start.
* Trailing punctuation, a correction's rejected value (", not the 12th": "My flight is on the 14th, not the
  12th" states the 14th; the number it rejects would read as a second value), a trailing "by the way",
  "too"/"either" and a link to the clause cut off after it ("…, so") are trimmed from the end; a symbol
  that belongs to the number before it ("40%") is kept.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Final

from spacy.tokens import Token

#: Dependencies that make a token its clause's subject.
SUBJECT_DEPS: Final = frozenset({"nsubj", "nsubjpass", "expl", "csubj"})

#: Words trimmed from the start of a clause.
DISCOURSE_WORDS: Final = frozenset(
    {
        "so",
        "well",
        "also",
        "anyway",
        "anyways",
        "actually",
        "honestly",
        "btw",
        "plus",
        "besides",
        "oh",
        "ah",
        "yeah",
        "yes",
        "yep",
        "no",
        "nope",
        "ok",
        "okay",
        "hey",
        "hi",
        "hello",
        "lol",
        "haha",
        "wow",
        "omg",
        "and",
        "but",
        "or",
        "though",
        "basically",
        "like",
        "um",
        "uh",
        "hmm",
        "ugh",
        "welp",
        "guess",
        "right",
    }
)
_BY_THE_WAY: Final = ("by", "the", "way")
#: Two-word openers trimmed from a clause start.
DISCOURSE_OPENERS: Final = frozenset(
    {
        ("big", "news"),
        ("guess", "what"),
        ("heads", "up"),
        ("fun", "fact"),
        ("good", "news"),
        ("bad", "news"),
        ("great", "news"),
        ("quick", "update"),
        ("side", "note"),
        ("in", "fact"),
    }
)
#: Connectives trimmed from a clause start when a comma follows ("However, I ..."): they link the clause
#: to the one before it, which the claim does not carry. Not "now" or "then", which date what follows.
CONNECTIVES: Final = frozenset(
    {"however", "additionally", "furthermore", "moreover", "nevertheless", "nonetheless", "meanwhile"}
)
#: Words that open an aside ending in a comma, trimmed with it: "Thanks for the help, …", "Speaking of
#: work, …"; at most this many tokens before the comma.
ASIDES: Final = {"thanks": "for", "speaking": "of"}
MAX_ASIDE_TOKENS: Final = 8
#: Fixed asides about the telling itself, trimmed with the comma after them.
TELLING_ASIDES: Final = (
    ("just", "so", "you", "know"),
    ("so", "you", "know"),
    ("just", "so"),  # "you know" is dropped before as filler
    ("just", "so", "you", "'re", "aware"),
    ("for", "future", "reference"),
    ("for", "the", "record"),
    ("for", "context"),
    ("fyi",),
)
#: Longest "label:" prefix trimmed from a clause start ("Quick update:").
MAX_LABEL_TOKENS: Final = 3
#: ... and the longest "here's …:" prefix ("Here's what I've tried so far:").
MAX_PRESENTING_TOKENS: Final = 16
LABEL_MARKS: Final = frozenset({":", "-", "—"})
_TRAILING_ADDITIVES: Final = frozenset({"too", "either", "also"})
#: Symbols written after a number that belong to its value ("92%").
UNIT_SYMBOLS: Final = frozenset({"%", "‰", "°", "€", "£", "¥", "$"})
_TRIM_POS: Final = frozenset({"PUNCT", "CCONJ", "SCONJ", "INTJ", "SPACE", "SYM"})
#: Dependencies of a name that is an argument, not a vocative.
_ARGUMENT_DEPS: Final = frozenset(
    {"nsubj", "nsubjpass", "dobj", "pobj", "poss", "attr", "dative", "conj", "compound", "appos", "oprd"}
)
_VOCATIVE_DEPS: Final = frozenset({"npadvmod", "intj", "dep", "vocative", "meta"})
#: The only dependents a vocative name has (a surname, a comma).
_VOCATIVE_CHILD_DEPS: Final = frozenset({"compound", "flat", "punct"})
#: The longest ", not …" tail trimmed as the value a correction rejects.
MAX_REJECTED_TOKENS: Final = 5
#: A link to the clause cut off after it: "I prefer worked examples, so | can you show one?".
_TRAILING_LINKS: Final = frozenset({"so", "then", "thus", "hence"})


def is_vocative(tok: Token, names: Collection[str] = ()) -> bool:
    """A name used to address someone: a participant's name that is not an argument, or a proper noun
    hanging off the verb as an adverbial next to a comma ("Hey Mel, I went ...", "I love it, Mel!")."""
    if tok.text.lower() in names and tok.dep_ not in _ARGUMENT_DEPS:
        return True
    if tok.pos_ != "PROPN" or tok.dep_ not in _VOCATIVE_DEPS:
        return False
    if any(child.dep_ not in _VOCATIVE_CHILD_DEPS for child in tok.children):
        return False  # a name with its own words is an item, not an address ("..., Flask 2.2 for the API")
    doc = tok.doc
    before = doc[tok.i - 1].text if tok.i > 0 else ""
    after = doc[tok.i + 1].text if tok.i + 1 < len(doc) else ""
    return before in (",", "") or after in (",", "!", ".", "")


def _label_mark(tok: Token) -> bool:
    """A mark ending a "label:" prefix; not a hyphen inside a word ("one-year-old", "well-known")."""
    doc = tok.doc
    spaced_after = bool(tok.whitespace_) or tok.i + 1 == len(doc) or doc[tok.i + 1].is_space  # "far:\n"
    glued = tok.i > 0 and not doc[tok.i - 1].whitespace_ and not spaced_after
    return tok.text in LABEL_MARKS and not glued


def _presents(toks: list[Token]) -> bool:
    """A clause that opens by presenting what follows a colon: "Here's what I have so far: …"."""
    return len(toks) > 1 and toks[0].lower_ == "here" and toks[1].lemma_ == "be"


def _aside(toks: list[Token]) -> int | None:
    """Where a leading "thanks for …," or "speaking of …," ends (its comma), if the clause starts with one:
    the phrase, up to the comma, is the first word's own subtree."""
    first = toks[0]
    if first.lower_ not in ASIDES or first.dep_ in SUBJECT_DEPS or first.dep_ == "ROOT":
        return None
    if len(toks) < 2 or toks[1].lower_ != ASIDES[first.lower_]:
        return None  # not "thanks to my sister, …" (who helped is part of what happened)
    comma = next((k for k, t in enumerate(toks[: MAX_ASIDE_TOKENS + 1]) if t.text == ","), None)
    if comma is None:
        return None
    inside = {t.i for t in first.subtree}
    return comma if all(t.i in inside for t in toks[:comma]) else None


def _set_off(toks: list[Token]) -> bool:
    """The first word stands apart, a comma after it ("Ugh, my employer …", where it is parsed a subject)."""
    return len(toks) > 1 and toks[1].text == ","


def _said_aside(toks: list[Token]) -> int | None:
    """Where a fixed aside about the telling ends ("just so you know", "for future reference", "FYI"), when
    a comma or a colon follows it."""
    said = [t.lower_ for t in toks[: max(map(len, TELLING_ASIDES)) + 1]]
    for aside in TELLING_ASIDES:
        n = len(aside)
        if tuple(said[:n]) == aside and len(said) > n and said[n] in (",", ":"):
            return n + 1
    return None


def _unit_of(toks: list[Token]) -> bool:
    """The last token is a symbol of the number before it ("92%", "40 °C"): part of the value, kept."""
    last = toks[-1]
    return len(toks) > 1 and (last.text in UNIT_SYMBOLS or last.pos_ == "SYM") and toks[-2].like_num


def _says_no_more(toks: list[Token]) -> bool:
    """ "No more coffee", "no longer": a "no" that is the clause's own word, not an answer's."""
    return toks[0].lower_ == "no" and len(toks) > 1 and toks[1].lower_ in ("more", "longer")


def _rejected(toks: list[Token]) -> int | None:
    """Where a trailing ", not <value>" starts (its comma): a short phrase without a verb."""
    for k in range(max(0, len(toks) - MAX_REJECTED_TOKENS - 2), len(toks) - 2):
        if toks[k].text == "," and toks[k + 1].lower_ == "not":
            rest = toks[k + 2 :]
            return None if any(t.pos_ in ("VERB", "AUX") for t in rest) else k
    return None


def trim(tokens: list[Token], names: set[str]) -> list[Token]:
    """``tokens`` without what does not belong to the claim at their start and end (module doc)."""
    vocatives = {t.i for t in tokens if is_vocative(t, names)}
    toks = [  # the name addressed, with its first names ("Thanks, Anna Berg, I ...")
        t
        for t in tokens
        if t.i not in vocatives and not (t.head.i in vocatives and t.dep_ in ("compound", "flat"))
    ]
    while toks:
        first = toks[0]
        presents = _presents(toks)
        window = MAX_PRESENTING_TOKENS if presents else MAX_LABEL_TOKENS
        label = next((k for k, t in enumerate(toks[: window + 1]) if _label_mark(t)), None)
        prefix = toks[:label] if label is not None else []
        if label is not None and (
            presents or not any(t.pos_ in ("VERB", "AUX") or t.dep_ in SUBJECT_DEPS for t in prefix)
        ):
            toks = toks[label + 1 :]  # "Update: I moved ...", "Heads up - I went vegan", "Here's my plan:"
        elif tuple(t.lower_ for t in toks[:2]) in DISCOURSE_OPENERS:
            toks = toks[2:]  # "Big news, I ...", "Guess what, I ..."
        elif tuple(t.lower_ for t in toks[:3]) == _BY_THE_WAY:
            toks = toks[3:]
        elif (said := _said_aside(toks)) is not None:
            toks = toks[said:]  # "Just so you know, I ...", "For future reference, I ..."
        elif first.lower_ in CONNECTIVES and len(toks) > 1 and toks[1].text == ",":
            toks = toks[2:]
        elif (aside := _aside(toks)) is not None:
            toks = toks[aside + 1 :]  # "Thanks for the tips, I ...", "Speaking of work, I ..."
        elif first.lower_ == "even" and len(toks) > 1 and toks[1].lower_ == "though":
            toks = toks[2:]  # "Even though I set it to 30 s." said on its own: what it concedes is stated
        elif (
            first.pos_ in _TRIM_POS
            or first.dep_ == "intj"  # "Thanks, I ...": tagged a noun, used as an interjection
            or first.tag_ == "LS"  # a list item's number: "1. I use vim", "2) I moved"
            or (first.lower_ in DISCOURSE_WORDS and (first.dep_ not in SUBJECT_DEPS or _set_off(toks)))
        ) and not _says_no_more(toks):
            toks = toks[1:]
        else:
            break
    while toks:
        if tuple(t.lower_ for t in toks[-3:]) == _BY_THE_WAY:
            toks = toks[:-3]
        elif (rejected := _rejected(toks)) is not None:
            toks = toks[:rejected]
        elif (
            ((toks[-1].pos_ in _TRIM_POS or toks[-1].is_punct) and not _unit_of(toks))
            or (toks[-1].lower_ in _TRAILING_ADDITIVES and toks[-1].dep_ == "advmod")
            or (toks[-1].lower_ in _TRAILING_LINKS and len(toks) > 1 and toks[-2].is_punct)
        ):
            toks = toks[:-1]
        else:
            break
    return toks
