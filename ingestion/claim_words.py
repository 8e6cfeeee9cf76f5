"""A claim's words and numbers as reconcile's rules compare them (``ingestion.conflicts``,
``ingestion.cancellations``): lower-cased letters and digits, without articles and the speaker's
possessives; the numbers and dates it states."""

from __future__ import annotations

import re

from ingestion.temporal import MONTH_WORDS

_WORDS = re.compile(r"[a-z0-9]+")
_ARTICLES = frozenset({"a", "an", "the", "my", "our"})


def words(text: str) -> list[str]:
    return [w for w in _WORDS.findall(text.casefold()) if w not in _ARTICLES]


_MONTH = "(?:" + "|".join(sorted(MONTH_WORDS, key=len, reverse=True)) + ")"
#: Numbers said in words ("three times a week"), read as their digits; "one" is as often a pronoun.
NUMBER_WORDS = {
    word: str(k)
    for k, word in enumerate(
        ["two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"], 2
    )
}
_NUMBER_WORD = r"\b(?:" + "|".join(NUMBER_WORDS) + r")\b"
#: A date is one value ("1 March 2027", "March 1, 2027", "May 2024"); other numbers as written.
_NUMBERS = re.compile(
    rf"\b\d{{1,2}}\s+{_MONTH}\b(?:\s+\d{{4}})?|\b{_MONTH}\s+\d{{1,2}}\b(?:,?\s+\d{{4}})?|\b{_MONTH}\s+\d{{4}}"
    rf"|\d+(?:[.,:/]\d+)*|{_NUMBER_WORD}",
    re.IGNORECASE,
)


def numbers(text: str) -> frozenset[str]:
    """The numbers and dates ``text`` states ("3.10", "12,500", "9:30", "1 march 2027", "three" as "3"),
    case and spacing aside."""
    found = (" ".join(match.casefold().split()) for match in _NUMBERS.findall(text))
    return frozenset(NUMBER_WORDS.get(value, value) for value in found)


def unnumbered(text: str) -> list[str]:
    """:func:`words` of ``text`` without its numbers and dates ("Python 3.12" → ["python"])."""
    return words(_NUMBERS.sub(" ", text))
