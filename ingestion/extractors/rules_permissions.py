"""A standing instruction taken back: "You can use bullet points again", "Feel free to add emojis again",
"It's fine to include a summary again". Before, nothing was read ("you" is no speaker) and "never use bullet
points" stayed a rule. By form, as instructions are (``rules_instructions``): a verb of what the assistant
writes (``rules_answer_words.OUTPUT_VERBS``) after "you can / may / could" or "free / fine / ok to", and
"again" after it. It is stored as the ending of an instruction (``no_longer_instructs_assistant``) whose
object is the prohibition of the permitted words ("never use bullet points"; "don't …" is stored as "never
…"), so reconcile ends the live prohibition that holds them, not "always include a summary"; the permission
is a memory of its own ("User lets the assistant use bullet points again.").
"""

from __future__ import annotations

from typing import Final

from spacy.tokens import Span, Token

from ingestion.extractors.predicates import NO_LONGER_PREFIX
from ingestion.extractors.rules_answer_words import OUTPUT_VERBS
from ingestion.extractors.rules_grammar import Fact
from ingestion.extractors.rules_instructions import PREDICATE as INSTRUCTION

#: The two words before the permitted verb.
LEADS: Final = frozenset(
    {
        ("you", "can"),
        ("you", "may"),
        ("you", "could"),
        ("free", "to"),
        ("fine", "to"),
        ("ok", "to"),
        ("okay", "to"),
    }
)
TEMPLATE: Final = "{s} lets the assistant {o} again."


def permission(sent: Span) -> tuple[Token, ...] | None:
    """The permitted words (the verb up to "again"), or None when ``sent`` takes no instruction back."""
    words = [t for t in sent if not (t.is_space or t.is_punct)]
    low = [t.lower_ for t in words]
    if "again" not in low:
        return None
    end = len(low) - 1 - low[::-1].index("again")
    for k in range(2, end):
        if (low[k - 2], low[k - 1]) in LEADS and words[k].lemma_.lower() in OUTPUT_VERBS:
            permitted = tuple(words[k:end])
            return permitted if len(permitted) > 1 else None
    return None


def permission_fact(permitted: str) -> Fact:
    """The ending of the prohibition "never <permitted>" ("don't …" is stored so), said as a permission:
    "You can include a summary again" does not end "always include a summary"."""
    said = permitted.replace("{", "{{").replace("}", "}}")
    return Fact(
        NO_LONGER_PREFIX + INSTRUCTION,
        "event",
        object_text=f"never {permitted}",
        template=TEMPLATE.replace("{o}", said),
    )
