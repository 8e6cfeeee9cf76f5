"""Standing instructions to the assistant: "Always give me a shell one-liner when I ask about log rotation",
"Never use emojis in your replies", "From now on, answer in Spanish". They are what a user states once and
relies on weeks later, so each becomes one preference memory in the user's words, third person, its
condition first ("When User asks about log rotation, User wants the assistant to always give User a shell
one-liner.").

Recognised by form, not topic: an imperative (a base-form verb) after "always" or "never", or after an
opener that makes it standing ("from now on", "going forward", "in future"), optionally after "please".
The small tagger often reads a sentence-initial verb that is also a noun or an adjective as one ("Always
*state* the base cases", "Always *store* dates in UTC", "Always *close* with a table"): right after
"always"/"never" or an opener nothing but a verb fits, so a word the lemmatizer knows as a verb counts there
("From now on, *reply* in Portuguese").
The instruction's own clause and its conditions ("when I ask about …") yield nothing else; a statement it
carries does ("Always remember that my sister lives in Porto": also "User's sister lives in Porto").
"""

from __future__ import annotations

from typing import Final

from spacy.tokens import Span, Token

from ingestion.extractors.rules_clauses import Clause
from ingestion.extractors.rules_grammar import Fact
from ingestion.extractors.rules_nlp import verb_forms

#: Adverbs that make an imperative a standing rule.
STANDING: Final = frozenset({"always", "never"})
#: Openers that do the same, as lower-cased word sequences.
OPENERS: Final = (("from", "now", "on"), ("going", "forward"), ("from", "here", "on"), ("in", "future"))
#: Verbs that are idioms after "never", not instructions ("Never mind, I found it").
IDIOMS: Final = frozenset({"mind"})
#: Subordinators of a condition ("when I ask about X"): the instruction's, not a statement.
CONDITIONS: Final = frozenset({"when", "whenever", "if", "unless", "once", "while", "before", "after"})
#: Words that may come before the instruction.
LEAD_INS: Final = frozenset({"please", "also", "and", "ok", "okay", "so"})
PREDICATE: Final = "instructs_assistant"
TEMPLATE: Final = "{s} wants the assistant to {o}"


def _words(sent: Span) -> list[Token]:
    return [t for t in sent if not t.is_space]


def _opener_at(tokens: list[Token], i: int) -> tuple[str, ...] | None:
    for phrase in OPENERS:
        if tuple(t.lower_ for t in tokens[i : i + len(phrase)]) == phrase:
            return phrase
    return None


#: Tags the tagger gives a verb it misreads after "always"/"never" or an opener (noun, adjective).
MISREAD_TAGS: Final = frozenset({"NN", "NNS", "JJ"})


def _imperative(verb: Token, *, after_standing: bool) -> bool:
    """A base-form verb without a subject (spaCy tags a sentence-initial imperative VB or VBP; right after
    "always"/"never" or an opener, also a known verb it tagged as a noun or an adjective)."""
    if verb.lower_ in IDIOMS:
        return False
    misread = after_standing and verb.tag_ in MISREAD_TAGS and verb.lower_ in verb_forms()
    if verb.tag_ not in ("VB", "VBP") and not misread:
        return False
    return not any(child.dep_ in ("nsubj", "nsubjpass", "expl") for child in verb.children)


def instruction(sent: Span) -> tuple[tuple[Token, ...], str] | None:
    """The instruction's tokens (from "always"/"never" or its verb on) and the opener to say after it
    ("from now on"; "" when none); None when ``sent`` is not a standing instruction."""
    tokens = _words(sent)
    i = 0
    while i < len(tokens) and (tokens[i].is_punct or tokens[i].lower_ in LEAD_INS):
        i += 1
    opener = _opener_at(tokens, i)
    if opener is not None:
        i += len(opener)
        while i < len(tokens) and (tokens[i].is_punct or tokens[i].lower_ in LEAD_INS):
            i += 1
    if i >= len(tokens):
        return None
    start = i
    standing = tokens[i].lower_ in STANDING
    if standing:
        i += 1
        while i < len(tokens) and tokens[i].lower_ == "please":
            i += 1
    elif opener is None:
        return None
    if i >= len(tokens) or not _imperative(tokens[i], after_standing=standing or opener is not None):
        return None
    body = tuple(t for t in tokens[start:] if not (t.is_punct and t.i == sent.end - 1))
    return body, " ".join(opener or ())


def condition_of(tokens: tuple[Token, ...]) -> tuple[Token, ...]:
    """The tokens of the instruction's condition ("when I ask about X"), or () when it has none."""
    inside = {t.i for t in tokens}
    for verb in tokens:
        marker = next(
            (c for c in verb.children if c.dep_ in ("mark", "advmod") and c.lower_ in CONDITIONS), None
        )
        if verb.dep_ == "advcl" and marker is not None:
            return tuple(t for t in verb.subtree if t.i in inside and not t.is_punct)
    return ()


def instruction_fact(text: str, condition: str, opener: str) -> Fact:
    """The preference fact of an instruction: its rendered (third-person) text without the condition, and
    the rendered condition, said first ("When User asks about X, User wants the assistant to …"): a later
    question is about the condition's topic, so the claim starts with it."""
    body = text.rstrip(" .!,")
    body = body[:1].lower() + body[1:]
    if opener:
        body = f"{body} {opener}"
    template = TEMPLATE
    if condition:
        template = (
            condition[:1].upper() + condition[1:].replace("{", "{{").replace("}", "}}") + ", " + TEMPLATE
        )
    return Fact(predicate=PREDICATE, kind="preference", object_text=body, template=template)


def states_beside(clause: Clause) -> bool:
    """Whether a clause of an instruction sentence states something of its own: it has a subject (the
    instruction's imperative has none) and is not one of its conditions."""
    if clause.subject is None or clause.subject_kind == "implicit":
        return False
    return not any(c.dep_ in ("mark", "advmod") and c.lower_ in CONDITIONS for c in clause.head.children)
