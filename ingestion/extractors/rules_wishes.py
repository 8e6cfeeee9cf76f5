"""Instructions said as a wish or as a need taken away, not as an imperative: "I'd appreciate it if you
kept your answers short", "It would help if you used bullet points", "I'd prefer if you could answer in
Spanish" (a rule of what the assistant writes, stored as ``rules_instructions`` stores "Please keep your
answers short"); "No need to apologize so much", "There's no need to repeat my question", "You don't need to
explain the basics to me" (stored as "not apologize so much", …).

By form, as ``rules_instructions`` reads: the wish's verb after "if you" (or "could" / "would") is a verb of
what the assistant writes and its words name the answers' form ("if you kept your answers short") or say
"always" / "never"; the verb after "no need to" / "don't need to" / "don't have to" is one of what the
assistant writes. Nothing that points at a thing at hand ("It would help if you explained this", "No need
to repeat that"): a one-off request. "I'd prefer it if you didn't use emojis" is ``rules_instructions``'
reading ("never use emojis"); "It would help if you didn't use emojis" is this module's, the same.
"""

from __future__ import annotations

from typing import Final

from spacy.tokens import Token

from ingestion.extractors.rules_answer_words import AT_HAND, FORM_VERBS, FORM_WORDS, OUTPUT_VERBS
from ingestion.extractors.rules_lexicon import words

#: Words that make a wish a rule for every answer whatever it is about ("if you could always add a summary").
STANDING: Final = frozenset({"always", "never"})

#: "I'd <wish> (it) if you …".
WISH_VERBS: Final = words("appreciate prefer like love")
#: "It would <help | be great> if you …": the words after "it would".
HELPS: Final = (
    ("help",),
    *(("be", word) for word in ("great", "nice", "better", "helpful", "easier", "good")),
)
#: Words of degree that may come between "be" and the adjective ("be really helpful").
DEGREES: Final = words("really very so super truly much")
_WOULD: Final = frozenset({"'d", "would"})
_MODALS: Final = frozenset({"could", "would", "can"})
#: "(there's) no need to …", "you don't need / have to …".
NO_NEED: Final = (
    ("no", "need", "to"),
    ("there", "'s", "no", "need", "to"),
    ("there", "is", "no", "need", "to"),
    ("you", "do", "n't", "need", "to"),
    ("you", "do", "not", "need", "to"),
    ("you", "do", "n't", "have", "to"),
    ("you", "do", "not", "have", "to"),
)
#: Verbs of what the assistant writes that say nothing of its answers on their own ("You don't need to call
#: me", "I'd prefer it if you didn't call me after nine": a call, not an answer).
NOT_WRITING: Final = words("call send make ask")


def wished(tokens: list[Token], i: int) -> tuple[tuple[Token, ...], str, str] | None:
    """The instruction's tokens, opener ("") and the word to say before it ("not" after "no need to"), as
    ``rules_instructions.instruction`` returns them; None when the words at ``tokens[i]`` are not one."""
    said = [t.lower_ for t in tokens[i : i + 8]]
    need = next((len(p) for p in NO_NEED if tuple(said[: len(p)]) == p), None)
    if need is not None:
        verb = i + need
        if verb >= len(tokens) or tokens[verb].lower_ not in OUTPUT_VERBS - NOT_WRITING:
            return None
        return _body(tokens, verb, formal=True, lead="not")
    you = _after_wish(said)
    if you is None or said[you : you + 1] != ["you"]:
        return None
    verb = i + you + 1
    if verb < len(tokens) and tokens[verb].lower_ in _MODALS | {"did"}:  # "if you could …", "didn't …"
        verb += 1
    lead = ""
    if verb < len(tokens) and tokens[verb].lower_ in ("n't", "not"):  # "if you didn't use emojis"
        verb, lead = verb + 1, "never"
    if verb >= len(tokens) or tokens[verb].pos_ not in ("VERB", "AUX"):
        return None
    if tokens[verb].lemma_.lower() not in (OUTPUT_VERBS | FORM_VERBS) - NOT_WRITING:
        return None
    return _body(tokens, verb, formal=False, lead=lead)


def _after_wish(said: list[str]) -> int | None:
    """Where "you" should be after a wish: "I'd (really) appreciate (it) if | you", "It would (really) help
    if | you", "It'd be really helpful if | you"."""
    degree = next((k for k in (2, 3) if said[k : k + 1] and said[k] in DEGREES), None)
    plain = said[:degree] + said[degree + 1 :] if degree is not None else said
    at = _wish_end(plain)
    return None if at is None else at + (degree is not None and degree < at)


def _wish_end(said: list[str]) -> int | None:
    if said[:1] == ["i"] and said[1:2] and said[1] in _WOULD and said[2:3] and said[2] in WISH_VERBS:
        at = 4 if said[3:4] == ["it"] else 3
        return at + 1 if said[at : at + 1] == ["if"] else None
    if said[:1] != ["it"] or not said[1:2] or said[1] not in _WOULD:
        return None
    helps = next((len(h) for h in HELPS if tuple(said[2 : 2 + len(h)]) == h), None)
    if helps is None or said[2 + helps : 3 + helps] != ["if"]:
        return None
    return 3 + helps


def _body(
    tokens: list[Token], verb: int, *, formal: bool, lead: str
) -> tuple[tuple[Token, ...], str, str] | None:
    """From the verb to the sentence's end, unless it points at a thing at hand or (``formal`` False) says
    neither the answers' form nor "always" / "never" ("I'd appreciate it if you could show me a faster way"
    asks once)."""
    body = list(tokens[verb:])
    clause = next((k for k in range(1, len(body) - 1) if _clause_after(body, k)), None)
    body = body[:clause] if clause is not None else body  # "…, I'm a licensed electrician": a statement
    while body and (body[-1].is_punct or body[-1].lower_ == "please"):
        body.pop()
    if not body or any(t.lower_ in AT_HAND for t in body[1:]):
        return None
    said = {t.lower_ for t in body} | {t.lemma_.lower() for t in body}
    if not formal and not said & (FORM_WORDS | STANDING):
        return None
    return tuple(body), "", lead


def _clause_after(body: list[Token], k: int) -> bool:
    """A comma or semicolon before a clause of its own ("…, I'm an electrician"), not a list's next item."""
    return body[k].text in (",", ";") and body[k + 1].dep_ in ("nsubj", "nsubjpass", "expl")
