"""Which kinds of entity a query is about, from its words: "anything good on Netflix tonight?" is about
media (shows, films, books, music) even though it names none.

The entity anchor (``retrieval.signals.entity``) takes the user's entities of the hinted types as anchors,
so "my favourite show is Breaking Bad" (Breaking Bad typed ``media`` by the extractor) surfaces for a
question about Netflix. A small, explicit lexicon was chosen over putting the type into the entity
embedding: it is predictable, testable, costs nothing at query time, and needs no re-embedding; a word
missing here only means the other signals have to find the memory on their own.
"""

from __future__ import annotations

import re
from typing import Final

from ingestion.extractors.base import EntityType

_HINTS: Final[dict[EntityType, str]] = {
    "media": """
        movie movies film films cinema show shows series sitcom tv television netflix hbo hulu disney prime
        streaming episode episodes season binge watch watching watched book books novel novels read reading
        author kindle audiobook song songs music album albums band bands singer listen listening playlist
        spotify podcast podcasts
    """,
    "location": """
        city cities country countries town place places travel travelled traveled trip trips vacation
        holiday visit visited abroad
    """,
    "event": "event events conference festival concert party parade workshop meetup wedding ceremony",
    "organization": "company companies employer startup school university college club team",
    "product": "car cars phone gadget laptop bought buy purchase",
}

#: Query word → the entity type it hints at.
TYPE_HINTS: Final[dict[str, EntityType]] = {
    word: kind for kind, words in _HINTS.items() for word in words.split()
}
_WORD = re.compile(r"[a-z]+")


def hinted_types(text: str) -> list[str]:
    """The entity types the query's words hint at, in a stable order."""
    found = {TYPE_HINTS[word] for word in _WORD.findall(text.lower()) if word in TYPE_HINTS}
    return sorted(found)
