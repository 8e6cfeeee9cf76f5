"""Standing instructions to the assistant: "Always give me a shell one-liner when I ask about log rotation",
"Never use emojis in your replies", "From now on, answer in Spanish". They are what a user states once and
relies on weeks later, so each becomes one preference memory in the user's words, third person, its
condition first ("When User asks about log rotation, User wants the assistant to always give User a shell
one-liner.").

Recognised by form, not topic: an imperative (a base-form verb) after "always" or "never" (a condition may
come first: "When I ask about X, always …"), or after an opener that makes it standing ("from now on",
"going forward", "in future"), optionally after "please"; or "don't" before a verb of what the assistant
writes ("Don't use emojis", "Please do not repeat my question": said as "never use emojis"; "Don't forget
the tent" is a one-off request, ``OUTPUT_VERBS``), or "stop" before one's gerund ("Please stop suggesting
wine pairings": said as "never suggest wine pairings", so a later "you can suggest them again" ends it).
The small tagger often reads a sentence-initial verb that is also a noun or an adjective as one ("Always
*state* the base cases", "Always *store* dates in UTC", "Always *close* with a table"): right after
"always"/"never" or an opener nothing but a verb fits, so a word the lemmatizer knows as a verb counts there
("From now on, *reply* in Portuguese").
"Call me Bob" (or "you can call me Bob") is what the user wants to be called: ``preferred_name``, single-
valued, so "Actually, call me Rob" later replaces it. "Don't call me Bob" and "my friends call me Bob" are
not.
The instruction's own clause and its conditions ("when I ask about …") yield nothing else; a statement it
carries does ("Always remember that my sister lives in Porto": also "User's sister lives in Porto").
"""

from __future__ import annotations

from typing import Final

from spacy.tokens import Span, Token

from ingestion.extractors.rules_answer_words import (
    ANSWERS,
    AT_HAND,
    FORM_OBJECTS,
    FORM_VERBS,
    FORM_WORDS,
    OUTPUT_VERBS,
)
from ingestion.extractors.rules_clauses import Clause
from ingestion.extractors.rules_grammar import Fact, is_negated, name_of
from ingestion.extractors.rules_lexicon import words
from ingestion.extractors.rules_nlp import verb_forms
from ingestion.extractors.rules_wishes import wished

#: Adverbs that make an imperative a standing rule.
STANDING: Final = frozenset({"always", "never"})
#: Openers that do the same, as lower-cased word sequences.
OPENERS: Final = (("from", "now", "on"), ("going", "forward"), ("from", "here", "on"), ("in", "future"))
#: Verbs that are idioms after "never", not instructions ("Never mind, I found it").
IDIOMS: Final = frozenset({"mind"})
#: Subordinators of a condition ("when I ask about X"): the instruction's, not a statement.
CONDITIONS: Final = frozenset({"when", "whenever", "if", "unless", "once", "while", "before", "after"})
#: Words that may come before the instruction.
LEAD_INS: Final = frozenset({"please", "also", "and", "ok", "okay", "so", "actually", "oh", "but"})
PREDICATE: Final = "instructs_assistant"
NAME_PREDICATE: Final = "preferred_name"
NAME_TEMPLATE: Final = "{s} wants to be called {o}."
_NAME_DEPS: Final = frozenset({"oprd", "attr", "dobj", "npadvmod", "appos"})
TEMPLATE: Final = "{s} wants the assistant to {o}"


def _words(sent: Span) -> list[Token]:
    return [t for t in sent if not t.is_space]


def _opener_at(tokens: list[Token], i: int) -> tuple[str, ...] | None:
    for phrase in OPENERS:
        if tuple(t.lower_ for t in tokens[i : i + len(phrase)]) == phrase:
            return phrase
    return None


#: Tags the tagger gives a verb it misreads after "always"/"never" or an opener (noun, adjective).
MISREAD_TAGS: Final = frozenset({"NN", "NNS", "JJ", "VBD", "VBN"})  # "Always put …": "put" read as a past


#: Imperatives that are standing on their own, without "always" ("Avoid jargon", "so skip the wine pairings").
STANDING_VERBS: Final = frozenset({"avoid", "skip"})


def _standing_verb(tokens: list[Token], i: int) -> bool:
    """A ``STANDING_VERBS`` verb about no thing at hand ("avoid *this* route", "avoid *it*": one-off)."""
    return tokens[i].lower_ in STANDING_VERBS and not any(t.lower_ in AT_HAND for t in tokens[i + 1 :])


def _imperative(verb: Token, *, after_standing: bool) -> bool:
    """A base-form verb without a subject (spaCy tags a sentence-initial imperative VB or VBP; right after
    "always"/"never" or an opener, also a known verb it tagged as a noun, an adjective or a past)."""
    if verb.lower_ in IDIOMS:
        return False
    misread = after_standing and verb.tag_ in MISREAD_TAGS and verb.lower_ in verb_forms()
    if verb.tag_ not in ("VB", "VBP") and not misread:
        return False
    return not any(child.dep_ in ("nsubj", "nsubjpass", "expl") for child in verb.children)


#: An instruction's tokens, the opener said after it, the word said before it (``instruction``).
Found = tuple[tuple[Token, ...], str, str]


def instruction(sent: Span) -> Found | None:
    """The instruction's tokens (from "always"/"never" or its verb on), the opener to say after it ("from
    now on"; "" when none) and the word to say before it ("never" for "don't …"; "" when none); None when
    ``sent`` is not a standing instruction."""
    tokens = _words(sent)
    i = _past_lead_ins(tokens, 0)
    condition = None
    asks = False
    if i < len(tokens) and tokens[i].lower_ in CONDITIONS:  # "When I ask about X, always answer in Y"
        condition = tokens[i].i
        comma = next((k for k in range(i, len(tokens)) if tokens[k].text == ","), None)
        asks = comma is not None and _user_asks(tokens[i:comma])
        i = _past_lead_ins(tokens, comma + 1) if comma is not None else len(tokens)
    opener = _opener_at(tokens, i)
    if opener is not None:
        i = _past_lead_ins(tokens, i + len(opener))
    trailing = None
    if opener is None and condition is None:  # "Give me detailed answers from now on.": said where it is
        trailing = next((o for o in OPENERS if _ends_with(tokens, o)), None)
    i = _past_request(tokens, i) if opener is None and condition is None else i
    found = _from(tokens, i, opener or trailing, condition, asks=asks)
    if found is not None and trailing is not None:
        found = (found[0], "", found[2])
    if found is None and opener is None and condition is None:  # "Please use metric units."
        found = _form_request(tokens, i)
    if found is None and opener is None and condition is None:  # "It would help if you used bullet points."
        found = wished(tokens, i)
    if found is None and opener is None:  # "I'm allergic to shellfish, so please never suggest …"
        later = next((k for k in range(1, len(tokens)) if _gives_way(tokens, k)), None)
        found = _from(tokens, _past_lead_ins(tokens, later + 1), None) if later is not None else None
    return found


def _form_request(tokens: list[Token], i: int) -> Found | None:
    """ "Please use metric units", "Please keep your answers short", "Answer in Spanish, please": a polite
    imperative about the form of the answers (``FORM_VERBS`` with a ``FORM_WORDS`` word), a rule for every
    later answer, unlike "Please explain this code" or "Please write the email in formal English". Without
    "please" when what it shapes is the answers themselves, in the plural: "Keep your answers short",
    "Limit your responses to three paragraphs" (not "Keep it short": the answer at hand)."""
    if i >= len(tokens):
        return None
    verb = tokens[i]
    thing = next((c for c in verb.children if c.dep_ == "dobj"), None)
    asked = any(t.lower_ == "please" for t in tokens[:i]) or _ends_with(tokens, ("please",))
    every = (  # "Keep your answers short": every answer; not "the answers" of a quiz
        thing is not None and thing.lower_ in ANSWERS and not any(c.dep_ == "det" for c in thing.children)
    )
    if not (asked or every):
        return None
    if verb.lemma_.lower() not in FORM_VERBS or not _imperative(verb, after_standing=True):
        return None
    said = [t for t in verb.subtree if t.i > verb.i]
    if thing is not None and thing.lower_ not in FORM_OBJECTS:
        return None
    formal = any(t.lower_ in FORM_WORDS or t.lemma_.lower() in FORM_WORDS for t in said)  # "shorter"
    if not formal or any(t.lower_ in AT_HAND for t in said):
        return None
    body = [t for t in verb.subtree if t.i >= verb.i]
    while body and (body[-1].is_punct or body[-1].lower_ == "please"):
        body.pop()
    return tuple(body), "", ""


def _ends_with(tokens: list[Token], phrase: tuple[str, ...]) -> bool:
    words = [t.lower_ for t in tokens if not t.is_punct]
    return tuple(words[-len(phrase) :]) == phrase


def _past_lead_ins(tokens: list[Token], i: int) -> int:
    while i < len(tokens) and (tokens[i].is_punct or tokens[i].lower_ in LEAD_INS):
        i += 1
    return i


def _gives_way(tokens: list[Token], k: int) -> bool:
    """ ", so" or a "please" after a comma or a conjunction: where an instruction may follow a statement."""
    word, before = tokens[k].lower_, tokens[k - 1]
    if word == "so":
        return before.is_punct
    return word == "please" and (before.is_punct or before.lower_ in ("and", "but", "so"))


def _from(
    tokens: list[Token],
    i: int,
    opener: tuple[str, ...] | None,
    condition: int | None = None,
    *,
    asks: bool = False,
) -> Found | None:
    """The instruction starting at ``tokens[i]`` (after ``opener``, if any), or None; ``condition``: where a
    condition said before it starts (its words are the instruction's too); ``asks``: the condition is about
    the user's requests ("when I ask for code, use TypeScript": an imperative of a verb of what the assistant
    writes is a standing rule then, without "always")."""
    if i >= len(tokens):
        return None
    start = i
    standing = tokens[i].lower_ in STANDING
    lead = ""
    rather = False  # "I'd rather you didn't suggest X": the verb has "you" for a subject
    if standing:
        i += 1
        while i < len(tokens) and tokens[i].lower_ == "please":
            i += 1
    elif _negated_output(tokens, i):  # "Don't use emojis": "never use emojis"
        i += 2
        start, lead, standing = i, "never", True
    elif _stops_output(tokens, i):  # "Please stop suggesting wine pairings": "never suggest wine pairings"
        i += 1
        start, lead, standing = i, "never", True
    elif (verb_at := _rather_not(tokens, i)) is not None:  # "I'd rather you didn't suggest X"
        i, rather = verb_at, True
        start, lead, standing = i, "never", True
    elif (asks and tokens[i].lower_ in OUTPUT_VERBS) or _standing_verb(tokens, i):
        standing = True  # "when I ask for code, use TypeScript"; "avoid jargon": a rule for every answer
    elif opener is None:
        return None
    stopped = lead == "never" and i < len(tokens) and (tokens[i].tag_ == "VBG" or rather)
    if i >= len(tokens) or not (
        stopped or _imperative(tokens[i], after_standing=standing or opener is not None)
    ):
        return None
    verb = tokens[i]
    if verb.lemma_.lower() == "call" and any(c.lower_ == "me" for c in verb.children):
        return None  # "From now on, call me Kate": the name to be called by (preferred_name)
    # the verb's own words, without a clause set beside it; a verb the tagger misread heads nothing: the rest
    parsed = verb.tag_ in ("VB", "VBP") and verb.dep_ not in ("compound", "amod", "nmod")  # "Avoid jargon."
    words = verb.subtree if parsed else tokens[start:]
    beside = {t.i for child in verb.children if _own_clause(child) for t in child.subtree}
    first = min(tokens[start].i, condition) if condition is not None else tokens[start].i
    body = [t for t in words if t.i >= first and t.i not in beside]
    while body and (body[-1].is_punct or body[-1].lower_ == "please"):  # "…, | I hate them.", "…, please."
        body.pop()
    return tuple(body), " ".join(opener or ()), lead


def _own_clause(token: Token) -> bool:
    """A clause with a subject of its own set beside the instruction after a comma: "Never use semicolons, I
    hate them" (not what the instruction says: "Always remember that my sister lives in Porto")."""
    if token.dep_ not in ("ccomp", "parataxis", "conj"):
        return False
    has_subject = any(c.dep_ in ("nsubj", "nsubjpass", "expl") for c in token.children)
    first = token.left_edge
    after_break = first.i > 0 and token.doc[first.i - 1].is_punct
    return has_subject and after_break and not any(c.dep_ == "mark" for c in token.children)


#: Verbs of the user's requests, in a condition that makes an instruction standing ("when I ask for code").
REQUEST_VERBS: Final = words("ask request want need send share paste")
#: Polite question openers of a request ("can you stop …?", "could you please stop …?").
_ASKING: Final = (("can", "you"), ("could", "you"), ("would", "you"))


def _user_asks(condition: list[Token]) -> bool:
    """ "when I ask for code", or of the answer itself: "when you give me code", "if you write SQL"."""
    said = [t.lower_ for t in condition]
    if "you" in said:
        return any(t.lemma_.lower() in OUTPUT_VERBS for t in condition)
    return "i" in said and any(t.lemma_.lower() in REQUEST_VERBS for t in condition)


def _past_request(tokens: list[Token], i: int) -> int:
    """Past "can you" / "could you please" when "stop" follows ("Can you stop using so many bullet
    points?"); else ``i``."""
    for opener in _ASKING:
        if tuple(t.lower_ for t in tokens[i : i + 2]) == opener:
            k = _past_lead_ins(tokens, i + 2)
            return k if _stops_output(tokens, k) else i
    return i


def asks_to_stop(sent: Span) -> bool:
    """A question that is a standing request: "Can you stop using so many bullet points?"."""
    tokens = _words(sent)
    i = _past_lead_ins(tokens, 0)
    return _past_request(tokens, i) != i


def _rather_not(tokens: list[Token], i: int) -> int | None:
    """Where the verb is in "I'd rather you didn't <verb>" / "I would prefer (it if) you not <verb>" / "I
    don't want you to <verb>", a verb of what the assistant writes; None for anything else."""
    said = [t.lower_ for t in tokens[i : i + 9]]
    if said[:6] in (["i", "do", "n't", "want", "you", "to"], ["i", "do", "not", "want", "you", "to"]):
        wanted = i + 6  # "I don't want you to use emojis"
        return wanted if wanted < len(tokens) and tokens[wanted].lower_ in OUTPUT_VERBS else None
    if (
        len(said) < 6
        or said[0] != "i"
        or said[1] not in ("'d", "would")
        or said[2] not in ("rather", "prefer")
    ):
        return None
    you = 5 if said[3:5] == ["it", "if"] else 3  # "I'd prefer it if you didn't use emojis"
    if said[you : you + 1] != ["you"]:
        return None
    after = said[you + 1 : you + 3]
    verb = you + 2 if after[:1] == ["not"] else you + 3 if after in (["did", "n't"], ["did", "not"]) else None
    return i + verb if verb is not None and verb < len(said) and said[verb] in OUTPUT_VERBS else None


def _negated_output(tokens: list[Token], i: int) -> bool:
    """ "Don't" / "do not" before a verb of what the assistant writes ("don't use emojis", "do not repeat
    the question"): a rule for its answers, not a one-off request ("don't forget the tent")."""
    if i + 2 >= len(tokens) or tokens[i].lower_ != "do" or tokens[i + 1].lower_ not in ("n't", "not"):
        return False
    return tokens[i + 2].lower_ in OUTPUT_VERBS


def _stops_output(tokens: list[Token], i: int) -> bool:
    """ "Stop" before the gerund of a verb of what the assistant writes ("stop suggesting wine", "stop using
    emojis"): a rule for its answers from now on."""
    if i + 1 >= len(tokens) or tokens[i].lower_ != "stop":
        return False
    return tokens[i + 1].tag_ == "VBG" and tokens[i + 1].lemma_.lower() in OUTPUT_VERBS


def condition_of(tokens: tuple[Token, ...]) -> tuple[Token, ...]:
    """The tokens of the instruction's condition ("when I ask about X"), or () when it has none."""
    inside = {t.i for t in tokens}
    for verb in tokens:
        marker = next(
            (c for c in verb.children if c.dep_ in ("mark", "advmod") and c.lower_ in CONDITIONS), None
        )
        if verb.dep_ == "advcl" and marker is not None and marker.i in inside:  # not "prefer it if you …"
            return tuple(t for t in verb.subtree if t.i in inside and not t.is_punct)
    return ()


def instruction_fact(text: str, condition: str, opener: str, lead: str = "") -> Fact:
    """The preference fact of an instruction: its rendered (third-person) text without the condition, and
    the rendered condition, said first ("When User asks about X, User wants the assistant to …"): a later
    question is about the condition's topic, so the claim starts with it."""
    body = text.rstrip(" .!,")
    body = body[:1].lower() + body[1:]
    if lead:
        body = f"{lead} {body}"
    if opener:
        body = f"{body} {opener}"
    template = TEMPLATE
    if condition:
        template = (
            condition[:1].upper() + condition[1:].replace("{", "{{").replace("}", "}}") + ", " + TEMPLATE
        )
    return Fact(predicate=PREDICATE, kind="preference", object_text=body, template=template)


#: Verbs of a wish whose clause holds the instruction ("I'd prefer it if you didn't use emojis").
WISHING: Final = words("prefer rather want appreciate")
#: Most words from the wish to the instruction's verb ("prefer | it if you did n't | use").
WISH_REACH: Final = 7


def states_beside(clause: Clause, instruction: tuple[Token, ...] = ()) -> bool:
    """Whether a clause of an instruction sentence states something of its own: it has a subject (the
    instruction's imperative has none), is not one of its conditions, nor the wish the instruction is said
    in ("I'd prefer it if you didn't …": not a preference for "it")."""
    if clause.subject is None or clause.subject_kind == "implicit":
        return False
    if instruction and clause.head.lemma_.lower() in WISHING and _holds(clause.head, instruction[0]):
        return False
    return not any(c.dep_ in ("mark", "advmod") and c.lower_ in CONDITIONS for c in clause.head.children)


def _holds(head: Token, verb: Token) -> bool:
    """Whether ``verb`` is said inside ``head``'s clause, a few words after it (an object or a condition of
    it, not a verb joined to it by "and")."""
    if not 0 < verb.i - head.i <= WISH_REACH:
        return False
    while verb.i != head.i and verb.dep_ != "conj" and verb.head.i != verb.i:
        verb = verb.head
    return verb.i == head.i


def preferred_name(clause: Clause) -> Fact | None:
    """ "Call me Bob", "you can call me Bob" → ``preferred_name`` Bob (module doc)."""
    head = clause.head
    if head.lemma_.lower() != "call" or is_negated(head):
        return None
    if clause.subject is not None and clause.subject.lower_ != "you":
        return None  # "my friends call me Lizzie": a nickname, not what the assistant should say
    if not any(c.dep_ == "dobj" and c.lower_ == "me" for c in head.children):
        return None
    name = next((c for c in head.children if c.dep_ in _NAME_DEPS and c.pos_ == "PROPN"), None)
    return Fact(NAME_PREDICATE, "preference", name_of(name), template=NAME_TEMPLATE) if name else None
