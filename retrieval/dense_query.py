"""The text the dense signals embed: the query without the people it names.

A question such as "What activities does Ines partake in?" embeds mostly as "Ines": the nearest
messages are then the ones that greet or mention her, not the ones about activities. The people a query
names are matched by the structured signals already (the entity anchor, and the speaker boost of
fusion.spread), so the vector signals embed the rest of the question: the topic.

Measured with ``memhq_eval`` on locomo-dev (same database, only the query vector changed): frac@10
0.800 → 0.810, all@10 0.743 → 0.761, multi-hop all@10 0.289 → 0.324, message vectors alone 0.502 → 0.632.

Only people known to the user's memory (live ``person`` entities, by name or alias) are removed, and never
when nothing of the question would be left ("Ines?" embeds as it is).
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterable

from retrieval import recap
from retrieval.config import RetrievalConfig
from retrieval.query import name_ngrams, prepared_cursor

_WORD = re.compile(r"\w+")
_SPACES = re.compile(r"\s+")
#: A possessive left behind by a removed name ("Ines's kids" → "kids").
_POSSESSIVE = r"(?:['’]s\b|['’](?!\w))?"

#: Names from the (project, user, name) btree, aliases from their GIN with the user's test in a form no index
#: answers (as ``retrieval.signals.owner_unindexed`` writes it): the statement is prepared, and its generic
#: plan took any user for a few entities, so it read all of a big user's (5,000: ~2 ms) to test each.
PEOPLE_SQL = """
SELECT n FROM (
    SELECT e.normalized_name, e.normalized_aliases FROM memhq_entity e
    WHERE e.project_id = %(project)s AND e.user_id = %(user)s AND e.normalized_name = ANY(%(grams)s)
      AND e.type = 'person' AND e.merged_into_id IS NULL
    UNION ALL
    SELECT e.normalized_name, e.normalized_aliases FROM memhq_entity e
    WHERE e.normalized_aliases && %(grams)s::varchar[]
      AND coalesce(e.project_id = %(project)s, false) AND coalesce(e.user_id = %(user)s, false)
      AND e.type = 'person' AND e.merged_into_id IS NULL
) AS e, unnest(array_prepend(e.normalized_name, e.normalized_aliases)) AS n
WHERE n = ANY(%(grams)s)
"""


def people_named(project_id: uuid.UUID, user_id: str, grams: list[str]) -> list[str]:
    """Normalised names and aliases of the user's live person entities that are among the query's n-grams.

    Names that are themselves possessive phrases ("rosalind s dream", an extraction artefact) are left out:
    removing them would remove the topic too."""
    if not grams:
        return []
    with prepared_cursor() as cursor:  # on every recall: planned once per connection, like recall's statement
        cursor.execute(PEOPLE_SQL, {"project": project_id, "user": user_id, "grams": grams})
        names = {row[0] for row in cursor.fetchall()}
    return sorted((name for name in names if "s" not in name.split()), key=len, reverse=True)


def without_people(text: str, names: Iterable[str]) -> str:
    """``text`` with every mention of ``names`` (normalised, so matched case-insensitively and across
    punctuation) and its possessive removed; ``text`` itself when no word would be left."""
    stripped = text
    for name in names:
        words = name.split()
        if not words:
            continue
        pattern = r"\b" + r"\W+".join(re.escape(word) for word in words) + r"\b" + _POSSESSIVE
        stripped = re.sub(pattern, " ", stripped, flags=re.IGNORECASE)
    stripped = _SPACES.sub(" ", stripped).strip()
    return stripped if _WORD.search(stripped) else text


def dense_text(project_id: uuid.UUID, user_id: str, text: str, config: RetrievalConfig) -> str:
    """What the dense signals embed for the query ``text``: its topic (``retrieval.recap``), without the
    people it names when ``config.embed_without_people``."""
    embedded = recap.topic(text)
    if config.embed_without_people:
        embedded = without_people(embedded, people_named(project_id, user_id, name_ngrams(embedded)))
    return embedded
