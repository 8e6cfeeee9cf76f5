"""Entity mentions of a rules candidate.

* The named speaker is a ``person`` mention with role ``subject`` (the anonymous user is not an entity:
  it is the memory's owner). A named subject other than the speaker ("Tom lives in Paris") is a ``person``
  subject too.
* The object is a mention when it is a name (proper noun or NER entity) or, for taste/interest/possession
  predicates, a noun phrase ("family car", "city commuting" → ``concept``). Its type is the predicate's
  object type when that is certain (``lives_in`` → location, ``favorite_book`` → media), else the NER label,
  else the predicate's usual type. The object of a preposition stands for it ("listen *to* X" → X), and the
  object of a watch/read/listen gerund is a work ("loves watching Breaking Bad" → Breaking Bad, ``media``).
  A proper-noun chain wins over the NER span inside it:
  "Toyota Corolla Hybrid" is one ``product``, not "Toyota" (ORG) + "Corolla Hybrid" (PRODUCT).
* Every other NER entity in the clause is a mention with role ``other`` (dates, numbers and money are not
  entities). The other participant, when the claim names them, is a ``person``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from spacy.tokens import Span, Token

from ingestion.extractors.base import EntityType, Mention
from ingestion.extractors.predicates import (
    MEDIA_VERBS,
    WEAK_MEDIA_VERBS,
    has_strong_object_type,
    object_entity_type,
)
from ingestion.extractors.rules_grammar import core, name_of, text_of

#: spaCy NER label → entity type (labels not listed are not entities).
LABEL_TYPES: Final[dict[str, EntityType]] = {
    "PERSON": "person",
    "ORG": "organization",
    "GPE": "location",
    "LOC": "location",
    "FAC": "location",
    "PRODUCT": "product",
    "WORK_OF_ART": "media",
    "EVENT": "event",
    "NORP": "concept",
    "LANGUAGE": "concept",
    "LAW": "other",
}
#: Object types for which a common-noun phrase is still worth an entity (a taste, a thing owned, ...).
#: Dependencies by which a gerund's object hangs off it (the small model often reads a title as a ccomp).
GERUND_OBJECT_DEPS: Final = frozenset({"dobj", "ccomp", "attr", "oprd"})
COMMON_NOUN_TYPES: Final[frozenset[EntityType]] = frozenset({"concept", "product", "event", "media"})
_STRIP: Final = " \t\n.,;:!?\"'()"


def clean_name(text: str) -> str:
    name = text.strip(_STRIP)
    return name[:-2] if name.endswith("'s") else name


def _root(tokens: Sequence[Token]) -> Token:
    ids = {t.i for t in tokens}
    return next((t for t in tokens if t.head.i not in ids or t.head.i == t.i), tokens[0])


def object_mention(
    predicate: str, tokens: Sequence[Token], literal: str | None
) -> tuple[Mention, set[int]] | None:
    """The object's mention and the token indexes it covers."""
    hint = object_entity_type(predicate)
    if literal is not None:
        return (Mention(literal, hint, "object"), set()) if hint in COMMON_NOUN_TYPES else None
    if not tokens:
        return None
    root = _root(tokens)
    pobj = next((c for c in root.children if c.dep_ == "pobj"), None) if root.pos_ == "ADP" else None
    if pobj is not None:
        root = pobj
    work = _work_of_gerund(root)
    if work is not None:
        root, predicate = work
    return _mention_at(root, predicate)


def _work_of_gerund(root: Token) -> tuple[Token, str] | None:
    """ "watching Breaking Bad" → (Breaking Bad, "watch"): what a media-verb gerund is about; also a name
    modified by one ("binge-watching Severance")."""
    verb = root.lemma_.lower()
    if root.tag_ == "VBG" and verb in MEDIA_VERBS | WEAK_MEDIA_VERBS:
        obj = next((c for c in root.children if c.dep_ in GERUND_OBJECT_DEPS), None)
        if obj is None:
            prep = next((c for c in root.children if c.dep_ == "prep" and c.lower_ == "to"), None)
            obj = next((c for c in prep.children if c.dep_ == "pobj"), None) if prep is not None else None
        return (obj, verb) if obj is not None else None
    if root.pos_ == "PROPN":
        modifier = next(
            (c for c in root.children if c.tag_ == "VBG" and c.lemma_.lower() in MEDIA_VERBS), None
        )
        return (root, modifier.lemma_.lower()) if modifier is not None else None
    return None


#: Words that join two things the small NER takes for one name ("moved from Slack to Teams").
_BETWEEN = frozenset({"to", "from", "into", "vs", "versus"})


def _mention_at(root: Token, predicate: str) -> tuple[Mention, set[int]] | None:
    hint = object_entity_type(predicate)
    label = LABEL_TYPES.get(root.ent_type_)
    if root.pos_ == "PROPN" or label is not None or any(t.pos_ == "PROPN" for t in core(root)):
        chain = name_of(root) if root.pos_ == "PROPN" else core(root)
        if label is not None and root.ent_type_:
            ent = next((e for e in root.doc.ents if e.start <= root.i < e.end), None)
            if ent is not None and len(ent) > len(chain) and not any(t.lower_ in _BETWEEN for t in ent):
                chain = tuple(ent)  # not "Slack to Teams", one span of the NER's: two things
        kind = hint if hint is not None and (has_strong_object_type(predicate) or label is None) else label
        name = clean_name(text_of(chain))
        return (Mention(name, kind or "other", "object"), {t.i for t in chain}) if name else None
    gerund = root.tag_ == "VBG" and not any(c.dep_ == "dobj" for c in root.children)
    if hint in COMMON_NOUN_TYPES and (root.pos_ == "NOUN" or gerund):
        chain = core(root)
        name = clean_name(text_of(chain))
        if name and name.lower() not in ("thing", "things", "stuff", "lot"):
            return Mention(name, hint, "object"), {t.i for t in chain}
    return None


def looks_named(ent: Span) -> bool:
    """Small-model NER also tags lower-case phrases ("the kids & work" as ORG); a name has a capital or a
    proper noun in it."""
    return any(t.pos_ == "PROPN" or t.text[:1].isupper() for t in ent)


def entity_mentions(
    ents: Iterable[Span], clause_ids: set[int], covered: set[int], skip: set[str]
) -> list[Mention]:
    """Mentions for NER entities inside the clause that the object mention does not already cover."""
    out: list[Mention] = []
    for ent in ents:
        kind = LABEL_TYPES.get(ent.label_)
        ids = set(range(ent.start, ent.end))
        if kind is None or not ids <= clause_ids or ids & covered:
            continue
        name = clean_name(ent.text)
        if name and name.lower() not in skip and looks_named(ent):
            out.append(Mention(name, kind, "other"))
    return out


def dedupe(mentions: Iterable[Mention]) -> tuple[Mention, ...]:
    seen: set[str] = set()
    out: list[Mention] = []
    for m in mentions:
        key = m.name.lower()
        if key not in seen:
            seen.add(key)
            out.append(m)
    return tuple(out)
