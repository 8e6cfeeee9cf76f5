"""The words of what the assistant writes, which the readers of instructions (``rules_instructions``,
``rules_wishes``) and of permissions (``rules_permissions``) share."""

from __future__ import annotations

from typing import Final

from ingestion.extractors.rules_lexicon import INSTRUCTION_VALUE_KINDS, words

#: Verbs of what the assistant writes: "don't" before one of them is a standing rule, like "never".
OUTPUT_VERBS: Final = words(
    """
    use add include write give show mention suggest recommend put start end begin repeat apologize apologise
    explain format bold number translate reply respond answer call say send assume ask make summarize
    summarise list quote cite abbreviate shorten capitalize capitalise
    """
)
#: Verbs of a request about the form of every answer ("Please use metric units", "please answer in Spanish").
FORM_VERBS: Final = words("use answer reply respond write keep speak talk format stick limit")
#: The answers themselves, in the plural: a request that shapes them shapes every answer.
ANSWERS: Final = words("answers replies responses explanations")
#: What such a request is about: the value words of ``INSTRUCTION_VALUE_KINDS`` ("metric", "Spanish",
#: "short"), or a noun of the answers' form.
FORM_WORDS: Final = frozenset().union(*INSTRUCTION_VALUE_KINDS) | words(
    """
    units measurements spelling answers replies responses explanations tone bullet bullets emojis emoji
    markdown table tables steps numbered headings headers
    """
)
#: The nouns an object of such a request may be ("use *British spelling*"; not "write *the email* in
#: formal English": one piece of writing).
FORM_OBJECTS: Final = FORM_WORDS | words("language english format style points sentences paragraphs")
#: Words that point at one thing at hand: a one-off request ("Please translate this into Spanish").
AT_HAND: Final = words("this that it these those above below here")
