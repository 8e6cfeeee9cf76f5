"""What the rules extractor refuses to turn into memories: questions, chatter, hedged filler, fragments.

Choices:

* A question keeps only what it states about the speaker: the statement it opens with ("I'm allergic to
  nuts, can you suggest a snack?") and the reason it gives ("…, since I'm vegetarian?";
  ``rules_clauses.stated_in_question``); a question that states nothing ("Do you think I should move?") is
  dropped whole. Questions without a question mark are caught by their shape (a question
  word or an auxiliary before the subject). A clause that asks the listener ("I was wondering if you could
  help", "I was hoping you could review it") or asks "whether" ("I'm not sure if it works") states nothing.
* Chatter is judged on the sentence's words: if every word is a greeting, thanks, acknowledgement, filler or
  a participant's name ("Hi!", "thanks so much!", "lol", "that's great", "I agree", "I love it"), it goes.
* A clause that survives must still say something: at least one substantive word (a noun, a name, a number,
  or a verb that is not a light/reporting verb) besides its subject.
* Hedges ("maybe", "I think", "probably", "kind of") do not drop a clause; they lower its confidence
  (see ``rules_scoring``).
* Hypotheticals are not facts: a sentence with a condition ("If I moved to Tokyo, ...", "Unless I get the
  job, ...", "What if I quit?") is dropped whole (an "if" that means "whether", after "not sure",
  "wondering", "know", "tell me" …, is no condition: ``WHETHER_HEADS``), and so is a clause whose verb
  carries a modal of possibility ("I would learn Japanese", "I could work remotely"; "I might move" is a
  hedged plan, kept with a lower confidence); a wish stays a wish ("I'd love to visit Rome" → ``wants``,
  see ``rules_patterns``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Final

from spacy.tokens import Span, Token

from ingestion.extractors.rules_lexicon import words

#: Words that make up greetings, thanks, acknowledgements and filler.
CHATTER_WORDS: Final = words(
    """
    hi hello hey heya hiya yo howdy greetings morning evening afternoon night good bye goodbye cya later
    soon talk care cheers thanks thank thx ty tysm you ya u so much very really lot a lots all for it that
    this that's thats it's its is was be been sounds sound looks look seems great good nice cool awesome
    amazing wonderful fantastic perfect lovely sweet wow whoa woah oh ah aha ahh hmm hm um uh er erm lol
    lmao rofl haha hahaha hehe ok okay k kk sure yes yeah yep yup yea no nope nah right true exactly indeed
    totally absolutely definitely agree agreed i me my i'm im am 'm see know understand get got gotcha mean
    fine well alright glad happy hear to too same here there np problem welcome congrats congratulations
    love like omg omw btw anyway anyways again also just still now then and but the an of on in what
    haha! please thx! xoxo hug hugs yay woohoo
    """
)

#: Whole-sentence filler that the word test would not catch on its own.
FILLER_PHRASES: Final = frozenset(
    {
        "i don't know",
        "i dont know",
        "not sure",
        "i'm not sure",
        "i guess so",
        "maybe",
        "i hope so",
        "me too",
        "same here",
        "you too",
        "no worries",
        "never mind",
        "take care",
        "talk to you soon",
        "see you soon",
        "good to see you",
        "how about you",
    }
)

#: Words that open a question when they start a sentence.
WH_WORDS: Final = frozenset({"what", "how", "why", "where", "when", "who", "whom", "whose", "which"})
QUESTION_AUXILIARIES: Final = frozenset(
    {
        "do",
        "does",
        "did",
        "can",
        "could",
        "would",
        "will",
        "should",
        "shall",
        "is",
        "are",
        "was",
        "were",
        "have",
        "has",
        "had",
        "may",
        "might",
        "must",
        "am",
    }
)

#: Hedge markers that lower confidence.
HEDGE_WORDS: Final = frozenset(
    {
        "maybe",
        "probably",
        "perhaps",
        "possibly",
        "might",
        "guess",
        "suppose",
        "unsure",
        "hopefully",
        "supposedly",
        "apparently",
        "somewhat",
    }
)
HEDGE_PHRASES: Final = ("not sure", "kind of", "sort of", "i think", "i feel like", "i believe")

#: Verbs of thinking that turn their complement into a hedged statement ("I think I'm moving").
HEDGE_VERBS: Final = frozenset({"think", "guess", "suppose", "believe", "reckon", "feel", "imagine", "bet"})

#: Verbs that do not carry content on their own ("I know", "I agree", "I'm here").
LIGHT_VERBS: Final = frozenset(
    {
        "be",
        "have",
        "do",
        "get",
        "know",
        "think",
        "see",
        "hope",
        "mean",
        "guess",
        "agree",
        "appreciate",
        "thank",
        "feel",
        "say",
        "tell",
        "wish",
        "bet",
        "suppose",
        "believe",
        "understand",
        "wonder",
        "let",
        "seem",
        "look",
        "sound",
        "miss",
        "love",
        "like",
        "want",
        "need",
        "can",
        "will",
        "would",
    }
)

#: Adjectives for passing moods and states: not worth a memory on their own ("I'm so tired").
PASSING_STATES: Final = words(
    """
    tired exhausted excited happy sad bored busy sorry glad thrilled stoked nervous stressed ready hungry
    thirsty sleepy upset angry mad annoyed worried scared afraid curious proud grateful thankful blessed
    lucky jealous confused surprised shocked relieved calm okay ok fine good great awesome amazing cool nice
    sure certain free late early back off sick ill better worse lonely pumped psyched keen fun
    """
)

#: Time words that never make a clause worth keeping on their own ("I'm so tired today").
TIME_WORDS: Final = frozenset(
    {
        "today",
        "tonight",
        "yesterday",
        "tomorrow",
        "now",
        "lately",
        "recently",
        "morning",
        "evening",
        "night",
        "afternoon",
        "week",
        "weekend",
        "month",
        "year",
        "day",
        "days",
        "moment",
        "time",
    }
)

#: Part-of-speech tags that count as substantive content.
SUBSTANTIVE_POS: Final = frozenset({"NOUN", "PROPN", "NUM"})

_WORD: Final = re.compile(r"[a-z']+|\d+")


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower().replace("\u2019", "'"))


def is_question(sent: Span) -> bool:
    """True for questions: a final "?" or question word order (wh-word / auxiliary before the subject)."""
    text = sent.text.rstrip()
    if text.endswith("?"):
        return True
    words = [t for t in sent if not t.is_punct and not t.is_space]
    if not words:
        return False
    first = words[0].lower_
    if first not in WH_WORDS and first not in QUESTION_AUXILIARIES:
        return False
    subjects = [t for t in sent.root.children if t.dep_ in ("nsubj", "nsubjpass", "expl")]
    if not subjects:
        return False
    # "Do you ...", "What did you ..." : an auxiliary of the root comes before its subject.
    return any(c.dep_ in ("aux", "auxpass") and c.i < subjects[0].i for c in sent.root.children) or (
        first in QUESTION_AUXILIARIES and words[0].i < subjects[0].i and words[0] == sent.root
    )


def is_chatter(text: str, names: Iterable[str] = ()) -> bool:
    """True when ``text`` is only greetings, thanks, acknowledgements, filler or names."""
    words = _words(text)
    if not words:
        return True
    normalised = " ".join(words)
    if normalised in FILLER_PHRASES:
        return True
    allowed = CHATTER_WORDS | {n.lower() for name in names for n in _words(name)}
    return all(w in allowed for w in words)


def hedged(tokens: Iterable[Token]) -> bool:
    """True when the clause carries a hedge marker."""
    toks = list(tokens)
    if any(t.lower_ in HEDGE_WORDS for t in toks):
        return True
    text = " ".join(t.lower_ for t in toks)
    return any(p in text for p in HEDGE_PHRASES)


#: A race's distance, which the small model's NER takes for a date ("training for a 10k").
DISTANCE: Final = re.compile(r"\d+(?:\.\d+)?(?:k|km|mi)")


def substantive_count(tokens: Iterable[Token], subject: Token | None) -> int:
    """Number of content-carrying tokens in a clause, its subject excluded."""
    count = 0
    for t in tokens:
        if subject is not None and t.i == subject.i:
            continue
        if (t.ent_type_ in ("DATE", "TIME") and not DISTANCE.fullmatch(t.lower_)) or t.lower_ in TIME_WORDS:
            continue
        noun = t.pos_ in SUBSTANTIVE_POS and t.lower_ not in CHATTER_WORDS
        verb = t.pos_ == "VERB" and t.lemma_.lower() not in LIGHT_VERBS
        # adjectives that are lasting traits count ("left-handed", "diabetic", "retired"), moods do not
        trait = t.pos_ == "ADJ" and t.lower_ not in CHATTER_WORDS and t.lower_ not in PASSING_STATES
        if noun or verb or trait:
            count += 1
    return count


#: Subordinators that make a sentence a condition, not a statement of fact.
CONDITION_WORDS: Final = frozenset({"if", "unless", "suppose", "supposing", "imagine"})
#: Modals of possibility on a clause's verb.
#: ("might"/"may" are hedges, not hypotheticals: "I might move to Denver next year" is a hedged plan.)
HYPOTHETICAL_MODALS: Final = frozenset({"would", "could", "'d", "should"})
#: Verbs that keep their meaning under "would" ("I'd love to ...", "I'd rather ...": wishes and tastes).
WISH_VERBS: Final = frozenset({"love", "like", "prefer", "want", "rather", "enjoy", "hate"})


#: Words after which "if" means "whether" ("I'm not sure if it works", "I was wondering if you could help",
#: "can you tell me if …"): it opens an indirect question, not a condition. Lemmas, so "wondering" and
#: "knew" count; a pronoun may stand between ("tell me if", "ask you if").
WHETHER_HEADS: Final = words(
    "wonder sure unsure certain uncertain know curious check see ask tell verify confirm determine decide "
    "doubt clear unclear test"
)


_CONDITION_DEPS: Final = frozenset({"mark", "advmod", "ROOT", "dep"})
_OBJECT_PRONOUNS: Final = words("me you us him her them")
_ALTERNATIVES: Final = words("or and")
_STRETCH_ENDS: Final = frozenset({",", ";", ":", "if", "."})


def _word_before_if(token: Token) -> Token:
    """The word an "if" follows, past an object pronoun ("ask *you* if"), or for "… or if" the word that
    asks whether before it ("not sure how to fix it or if it matters")."""
    before = token.doc[token.i - 1]
    if before.lower_ in _OBJECT_PRONOUNS and before.i > token.sent.start:
        before = token.doc[before.i - 1]
    if before.lower_ in _ALTERNATIVES:
        before = _whether_head_before(before)
    return before


def is_condition_word(token: Token) -> bool:
    """``token`` opens a condition ("if", "unless", ...), not an indirect question ("not sure if …")."""
    if token.lower_ not in CONDITION_WORDS or token.dep_ not in _CONDITION_DEPS:
        return False
    if token.lower_ != "if" or token.i == token.sent.start:
        return True
    before = _word_before_if(token)
    if before.lower_ == "out" and before.dep_ == "prt":  # "figure out if", "find out if": whether
        return False
    return before.lemma_.lower() not in WHETHER_HEADS and before.lower_ not in WHETHER_HEADS


def _whether_head_before(conjunction: Token) -> Token:
    """The nearest word before ``conjunction`` that asks whether, within the stretch of words that ends
    there (no comma or other "if" between); ``conjunction`` itself when there is none."""
    for index in range(conjunction.i - 1, conjunction.sent.start - 1, -1):
        word = conjunction.doc[index]
        if word.lower_ in _STRETCH_ENDS:
            break
        if word.lemma_.lower() in WHETHER_HEADS or word.lower_ in WHETHER_HEADS:
            return word
    return conjunction


def _in_adverbial_clause(token: Token, inside: set[int]) -> bool:
    """``token`` sits in an adverbial clause below the head of the clause made of ``inside``: "I'm
    measuring the gap *to check if it fits*" is a purpose, and the clause around it states something."""
    current = token
    while current.head.i != current.i and current.head.i in inside:
        if current.dep_ == "advcl" or _purpose_after_object(current):
            return True
        current = current.head
    return False


def _purpose_after_object(verb: Token) -> bool:
    """An infinitive after its head's object, which the parser calls an open complement: "I'm profiling
    *the app* to figure out …" (a purpose), not "I need to find out …" (what is needed)."""
    return verb.dep_ == "xcomp" and any(c.dep_ == "dobj" and c.i < verb.i for c in verb.head.children)


def asks_whether(tokens: Sequence[Token]) -> bool:
    """``tokens`` hold an indirect question ("I'm not sure if it works", "I don't know if I should go"):
    a question in other words, which states nothing. An "if" after a purpose ("… to confirm if it
    matches") asks nothing of the clause around it."""
    inside = {t.i for t in tokens}
    marks = [c for t in tokens for c in t.children if c.dep_ == "mark" and c.i not in inside]  # trimmed off
    return any(
        t.lower_ == "if"
        and t.dep_ in _CONDITION_DEPS
        and not is_condition_word(t)
        and not _in_adverbial_clause(_word_before_if(t), inside)
        for t in (*tokens, *marks)
    )


def is_conditional(sent: Span) -> bool:
    """A sentence with a condition: "If I moved to Tokyo, I'd ...", "Even if I left, ..."; an "if" that
    means "whether" ("I'm not sure if it's right") is no condition, nor one of the listener's said after
    the statement ("My email is … if you need it", "I live in Leeds, if that helps")."""
    return any(is_condition_word(t) and not _for_the_listener(t) for t in sent)


#: Verbs of a condition that is only the listener's use of what is said ("if you need it").
LISTENER_CONDITION_VERBS: Final = frozenset({"need", "want", "help", "matter", "care", "wonder"})


def _for_the_listener(word: Token) -> bool:
    verb = word.head
    subject = next((c for c in verb.children if c.dep_ == "nsubj"), None)
    listener = subject is not None and subject.lower_ in ("you", "that", "it", "this")
    return word.i > word.sent.root.i and listener and verb.lemma_.lower() in LISTENER_CONDITION_VERBS


def is_hypothetical(head: Token) -> bool:
    """A clause whose verb carries a modal of possibility ("I would learn", "I could work"); "I'd" before a
    participle is "had" ("I'd moved"), and wishes ("I'd love to") stay."""
    if head.lemma_.lower() in WISH_VERBS or head.tag_ == "VBN":
        return False
    return any(c.dep_ == "aux" and c.lower_ in HYPOTHETICAL_MODALS for c in head.children)
