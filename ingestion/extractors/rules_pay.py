"""The speaker's pay: "I make 85k a year", "I'm making $95,000 now", "I earn 40 dollars an hour", "I got a
raise to 95k", "My salary is 85k", "My salary went up to 90k". Before, each wording was its own predicate
("make", "earn", "get", "is"), so a new figure never replaced the old one. One single-valued predicate,
``salary``, whose object is the amount as said with its period ("85k a year").

Only an amount of money ("I make pancakes", "I earn my keep", "I'm at 95k steps" are no pay): a token the
parser calls money, a number with a currency sign or word, or a figure in thousands ("85k"). Only the
present ("I made 60k at my first job" is history), save a raise, which says the pay from then on.
"""

from __future__ import annotations

import re
from typing import Final

from spacy.tokens import Token

from ingestion.extractors.rules_clauses import Clause
from ingestion.extractors.rules_grammar import Fact, first_child, is_negated, is_past, prep_object
from ingestion.extractors.rules_lexicon import words

PREDICATE: Final = "salary"
PAY_VERBS: Final = words("make earn")
#: "my salary is …": the nouns whose value is the speaker's pay.
PAY_NOUNS: Final = words("salary pay income wage wages paycheck")
#: "I got a raise to 95k", "a pay bump to 90k".
RAISE_NOUNS: Final = words("raise rise bump promotion")
#: "My salary went up to 90k", "my pay was raised to 90k".
RISE_VERBS: Final = words("go rise increase jump climb raise bump move")
CURRENCY_WORDS: Final = words("dollars dollar euros euro bucks grand usd eur gbp")
CURRENCY_SIGNS: Final = frozenset("$€£¥₹")
_THOUSANDS: Final = re.compile(r"^[$€£¥₹]?\d[\d,.]*k$", re.IGNORECASE)
#: An amount's period: "a year", "per hour", "an hour"; "annually".
PER_WORDS: Final = words("a an per every each")
PERIODS: Final = words("year hour month week day")
PERIOD_ADVERBS: Final = words("annually yearly monthly weekly hourly")


def is_money(tok: Token) -> bool:
    """ "$85,000", "85k", "40 dollars", "€60k" (the token the amount's words hang on)."""
    if _THOUSANDS.match(tok.text) or tok.lower_ in CURRENCY_WORDS:
        return True
    if not tok.like_num:  # "went up to $34": the parser's money entity takes in "up to"
        return False
    return tok.ent_type_ == "MONEY" or any(c.text in CURRENCY_SIGNS for c in tok.children)


def _amount(tok: Token | None, clause: Clause) -> tuple[Token, ...]:
    """The amount's words: its currency sign or word and its period ("$30 an hour", "38 dollars a week")."""
    if tok is None or not is_money(tok):
        return ()
    doc, inside = tok.doc, set(clause.tokens)
    words_ = [doc[tok.i - 1], tok] if tok.i > 0 and doc[tok.i - 1].text in CURRENCY_SIGNS else [tok]
    nxt = tok.i + 1
    if nxt < len(doc) and doc[nxt].lower_ in CURRENCY_WORDS:
        words_.append(doc[nxt])
        nxt += 1
    if nxt + 1 < len(doc) and doc[nxt].lower_ in PER_WORDS and doc[nxt + 1].lemma_.lower() in PERIODS:
        words_ += [doc[nxt], doc[nxt + 1]]
    elif nxt < len(doc) and doc[nxt].lower_ in PERIOD_ADVERBS:
        words_.append(doc[nxt])
    return tuple(t for t in words_ if t in inside)


def _money_after(head: Token, clause: Clause) -> Token | None:
    """The amount said after a verb of pay or of rising, wherever the parse hung it ("I make 72k a year"
    read as the subject of "year"; "went up to €70k" as an object), but not in another preposition's
    phrase ("I make pancakes for 5 dollars")."""
    for tok in clause.tokens:
        if tok.i <= head.i or not is_money(tok):
            continue
        near = head in (tok.head, tok.head.head)
        if near and not (tok.head.dep_ == "prep" and tok.head.lower_ != "to"):
            return tok
    return None


def _raised_to(head: Token, clause: Clause) -> tuple[Token, ...]:
    """ "I got a raise to 95k": the amount after the raise (the parser hangs "to" on either word)."""
    raise_ = first_child(head, "dobj")
    if raise_ is None or raise_.lemma_.lower() not in RAISE_NOUNS:
        return ()
    return _amount(prep_object(raise_, ("to",)) or prep_object(head, ("to",)), clause)


def pay_facts(clause: Clause) -> list[Fact]:
    """The speaker's pay said with a verb of their own (module doc), or none."""
    head = clause.head
    if is_negated(head):
        return []
    lemma = head.lemma_.lower()
    if lemma == "get":
        raised = _raised_to(head, clause)
        return [Fact(PREDICATE, "event", raised)] if raised else []
    if lemma not in PAY_VERBS or is_past(head):
        return []
    amount = _amount(_money_after(head, clause), clause)
    return [Fact(PREDICATE, "fact", amount)] if amount else []


def salary_said(clause: Clause) -> list[Fact]:
    """ "My salary is 85k", "My salary went up to 90k": the clause whose subject is the speaker's pay."""
    head = clause.head
    if is_negated(head):
        return []
    lemma = head.lemma_.lower()
    if lemma == "be" and not is_past(head):
        amount = _amount(first_child(head, "attr", "acomp"), clause)
        return [Fact(PREDICATE, "fact", amount)] if amount else []
    if lemma in RISE_VERBS:
        amount = _amount(_money_after(head, clause), clause)
        return [Fact(PREDICATE, "event", amount)] if amount else []
    return []
