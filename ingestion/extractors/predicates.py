"""The predicate vocabulary shared by every extractor and by the reconcile phase.

A predicate is a snake_case name for the relation between a candidate's subject and its object
("lives_in", "works_at", "likes"). Extractors should emit the canonical names below; anything they emit is
passed through :func:`normalise_predicate` so synonyms ("moved_to", "married_to", "favourite_book") land on
one name and reconcile can compare like with like.

Choices recorded here:

* **Relocations are ``lives_in``.** "I moved to Lisbon" is an *event* candidate whose predicate is
  ``lives_in`` (valid from the move), so it supersedes an earlier "lives in Berlin".
* **``works_on`` is the line of work / product / market the subject is on right now** and is single-valued:
  "I work on B2B SaaS" then "we pivoted to B2C" gives ``works_on=B2C``, which supersedes ``works_on=B2B
  SaaS``. Work that is *additional* ("I also work on a side project") is the multi-valued ``side_project``.
* **``job`` means the job title** (``job_title``); the employer is ``works_at``. **``favorite_<x>``** is an
  open family (favorite_book, ...), every member single-valued; ``favourite_`` is folded into ``favorite_``.
* Relationships to named people (spouse, partner, sibling, friend, ...) carry the person's name as object.
  ``spouse`` and ``partner`` are single-valued (a new one replaces the old), the others accumulate.
* Predicates that are not in the table (the rules extractor's generic fallback uses the verb lemma, e.g.
  ``paint`` or ``not_eat``) are allowed: they are multi-valued and never supersede anything.
* **A change names the state it replaces.** The verbs of change land on the single-valued predicate of the
  state they change, so reconcile supersedes the old value: "I just joined Anthropic" / "I started at X" /
  "I'm now at X" → ``works_at``; "we moved to X" → ``lives_in``; "my new manager is X" / "I report to X" →
  ``manager``; "I switched to TypeScript" → ``main_language`` (for a programming language, else ``uses``);
  "I stopped eating meat" → ``diet=vegetarian`` (plus the ending below).
* **An ending is its own memory.** "I left Google", "I no longer work at Google", "I'm not vegan anymore",
  "I stopped eating meat" say a state ended without naming the new one. They are ``no_longer_<p>``
  candidates ("no_longer_works_at Google", "no_longer_eat meat") or ``left`` ("left Google": whatever live
  memory names Google as employer, home, school, group or partner). Reconcile stores the ending (a true
  statement, active) and supersedes the live memories it ends (:func:`ends`): same subject, an ended
  predicate, the same object (an ending with no object, "I quit my job", ends every value). A plan called
  off (``cancelled``) ends the plan it names (``ingestion.conflicts.cancels``).
* **Opposites end each other**: "dislikes sushi" ends "likes sushi" (and back), and re-stating a state
  ("I work at Google again") ends its "no_longer_" memory.
* **What one watches or reads is media**: the object of ``watch``/``read`` (and re-/binge forms) is typed
  ``media`` over the NER label (the small model calls "Breaking Bad" a PERSON). The object of ``listen``
  is media only when NER has no better label ("listen to Taylor Swift" is a person). So is the object of
  ``favorite_<x>`` for x a kind of work (book, show, TV show, film, song, ...), judged by its last word.
"""

from __future__ import annotations

import functools
import re
from typing import Final

from ingestion.extractors.base import EntityType
from ingestion.extractors.rules_lexicon import words

#: Canonical predicates and what they mean (the table reconcile and the prompts document).
PREDICATES: Final[dict[str, str]] = {
    # where and how the subject lives
    "lives_in": "current home city/country (moves are lives_in events)",
    "is_from": "place the subject comes from",
    "work_location": "city where the subject works",
    "age": "the subject's age",
    "name": "the subject's own name",
    "birthday": "the subject's birthday",
    "wakes_up": "the time the subject gets up on a usual day",
    "bedtime": "the time the subject goes to bed on a usual day",
    "preferred_name": "what the subject wants to be called",
    "timezone": "the subject's time zone ('Eastern', 'UTC+2'; single-valued)",
    "salary": "the subject's pay, the amount with its period as said ('85k a year'; single-valued)",
    "subscription_plan": "the plan or tier of a service the subject is on ('Pro plan'; single-valued)",
    "commutes_by": "the subject's usual way to work or school ('bus', 'bike', 'on foot'; single-valued)",
    "grade": "the grade the subject is in at school ('4th grade'; single-valued)",
    "lives_with": "whom the subject lives with ('User's parents', 'alone'; single-valued)",
    "email_address": "the subject's current email address (single-valued)",
    "phone_number": "the subject's current phone number (single-valued)",
    # work and study
    "works_at": "current employer",
    "job_title": "current job title / occupation",
    "works_on": "current line of work, product or market (single-valued: a pivot replaces it)",
    "side_project": "additional project worked on besides the main one",
    "working_on": "a task or project the subject is busy with now ('is working on X'; several at once)",
    "studies": "subject of study",
    "studies_at": "school or university",
    "member_of": "club, group or team the subject belongs to",
    # tastes
    "likes": "something the subject likes, loves or enjoys",
    "dislikes": "something the subject dislikes",
    "prefers": "something the subject prefers",
    "wants": "something the subject wants or is looking for",
    "interested_in": "something the subject is interested in",
    "finds": "an opinion: how the subject finds something ('finds SUVs too big')",
    "hobby": "an activity the subject does for fun",
    "favorite_*": "favorite thing of a kind (favorite_book, favorite_food, ...)",
    # health
    "diet": "diet the subject follows (vegan, vegetarian, ...)",
    "allergic_to": "an allergy",
    # people and animals
    "spouse": "husband or wife (name)",
    "partner": "boyfriend, girlfriend, fiance(e) or partner (name)",
    "relationship_status": "single, engaged, married, divorced, ...",
    "sibling": "brother or sister",
    "has_child": "son, daughter or children",
    "parent": "mother or father",
    "relative": "other family member",
    "friend": "a friend",
    "colleague": "a colleague or co-worker",
    "manager": "the subject's manager or boss (name; single-valued: a new manager replaces the old)",
    "mentor": "a mentor",
    "has_pet": "a pet (name if given, else the animal)",
    # possessions, intentions, events
    "owns": "something the subject owns",
    "main_language": "the programming language the subject mainly works in (single-valued)",
    "uses": "a tool, product or service the subject uses",
    "left": "something the subject left, quit or gave up: employer, home, group, partner, habit (ends it)",
    "cancelled": "a plan, booking or membership the subject called off (ends it)",
    "plans_to": "something the subject intends to do",
    "decided": "a decision the subject made",
    "visited": "a place the subject went to",
    "attended": "an event, group or occasion the subject went to",
    "died": "the subject (a relative, a friend, a pet) died; no object",
}

#: Synonyms folded onto the canonical predicate.
ALIASES: Final[dict[str, str]] = {
    "moved_to": "lives_in",
    "relocated_to": "lives_in",
    "based_in": "lives_in",
    "home": "lives_in",
    "hometown": "is_from",
    "from": "is_from",
    "employer": "works_at",
    "works_for": "works_at",
    "job": "job_title",
    "works_as": "job_title",
    "occupation": "job_title",
    "pivoted_to": "works_on",
    "business": "works_on",
    "married_to": "spouse",
    "wife": "spouse",
    "husband": "spouse",
    "boyfriend": "partner",
    "girlfriend": "partner",
    "dating": "partner",
    "child": "has_child",
    "pet": "has_pet",
    "love": "likes",
    "loves": "likes",
    "like": "likes",
    "enjoys": "likes",
    "hates": "dislikes",
    "allergy": "allergic_to",
    "plans": "plans_to",
    "intends_to": "plans_to",
    "decision": "decided",
    "went_to": "attended",
    "boss": "manager",
    "reports_to": "manager",
    "main_programming_language": "main_language",
    "programming_language": "main_language",
    "quit": "left",
    "use": "uses",
}

#: Prefix of the open favorite_<x> family; every member is single-valued.
FAVORITE_PREFIX: Final = "favorite_"
_FAVOURITE_PREFIX: Final = "favourite_"

#: Predicates where a new value for the same subject supersedes the old one (the old memory gets
#: valid_until = the new one's valid_from). Everything else accumulates.
SINGLE_VALUED: Final[frozenset[str]] = words(
    """
    lives_in is_from work_location age name birthday works_at job_title works_on diet spouse partner
    relationship_status manager main_language wakes_up bedtime preferred_name work_setting weight salary
    subscription_plan timezone commutes_by grade lives_with email_address phone_number
    """
)

#: Prefix of an ending: ``no_longer_works_at`` ends ``works_at`` memories with the same object.
NO_LONGER_PREFIX: Final = "no_longer_"
#: ``left X`` ends the live memory of a state that names X (employer, home, group, partner, a habit such
#: as "drinks coffee"), whatever its predicate, except the predicates below: a taste, a past event, a
#: family tie or an identity fact does not end when one leaves ("I left Paris" ends ``lives_in`` Paris,
#: not ``visited`` Paris).
LEFT: Final = "left"
NOT_LEAVABLE: Final[frozenset[str]] = frozenset(
    {
        "likes", "dislikes", "prefers", "wants", "interested_in", "finds", "allergic_to", "is_from", "name",
        "age", "birthday", "sibling", "parent", "has_child", "relative", "friend", "mentor", "visited",
        "attended", "decided", "plans_to", LEFT,
    }
)  # fmt: skip
#: A death (of a relative, a friend, a pet): an event with no object, which ends nothing.
DIED: Final = "died"
#: What the ending of a state ends besides the state: no longer liking tea ends preferring it.
ENDS_ALSO: Final[dict[str, frozenset[str]]] = {
    "likes": frozenset({"prefers"}),
    "works_on": frozenset({"working_on"}),  # "I stopped working on X" ends "is working on X"
}
#: What finishing a thing ends doing with it ("finished Dune" ends "is reading Dune").
_DOING: Final = frozenset(
    {"read", "reread", "watch", "studies", "works_on", "working_on", "take", "write", "build"}
)
COMPLETIONS: Final[dict[str, frozenset[str]]] = {"finish": _DOING, "complete": _DOING}
#: Predicates that contradict each other for the same object.
OPPOSITES: Final[dict[str, str]] = {"likes": "dislikes", "dislikes": "likes"}

#: Entity type of the object for predicates whose object is an entity; used when NER gives no type.
OBJECT_ENTITY_TYPE: Final[dict[str, EntityType]] = {
    "lives_in": "location",
    "is_from": "location",
    "work_location": "location",
    "visited": "location",
    "works_at": "organization",
    "studies_at": "organization",
    "member_of": "organization",
    "works_on": "project",
    "side_project": "project",
    "spouse": "person",
    "partner": "person",
    "sibling": "person",
    "has_child": "person",
    "parent": "person",
    "relative": "person",
    "friend": "person",
    "colleague": "person",
    "manager": "person",
    "mentor": "person",
    "has_pet": "other",
    "owns": "product",
    "main_language": "tool",
    "uses": "tool",
    "attended": "event",
    "likes": "concept",
    "dislikes": "concept",
    "prefers": "concept",
    "wants": "concept",
    "interested_in": "concept",
    "finds": "concept",
    "hobby": "concept",
    "studies": "concept",
    "diet": "concept",
    "allergic_to": "concept",
}

#: Predicates whose object type is certain enough to override a (frequently wrong) small-model NER label,
#: e.g. "Dune" tagged PERSON as the object of favorite_book, or "B2C" tagged PERSON as works_on.
STRONG_OBJECT_TYPES: Final[frozenset[str]] = frozenset(
    {
        "lives_in",
        "is_from",
        "work_location",
        "works_at",
        "studies_at",
        "works_on",
        "side_project",
        "spouse",
        "partner",
        "sibling",
        "has_child",
        "parent",
        "friend",
        "manager",
        "has_pet",
        "owns",
    }
)

#: favorite_<x> objects by kind of thing (the last word of x); anything else is a concept.
_FAVORITE_MEDIA: Final = frozenset(
    {
        "book",
        "books",
        "movie",
        "movies",
        "film",
        "films",
        "show",
        "shows",
        "series",
        "sitcom",
        "documentary",
        "anime",
        "song",
        "songs",
        "album",
        "band",
        "game",
        "novel",
        "podcast",
        "author",
        "artist",
        "singer",
    }
)
#: Verbs (generic predicates = lemma) whose object is a work: always media / media unless NER knows better.
MEDIA_VERBS: Final = frozenset({"watch", "rewatch", "binge", "read", "reread", "stream"})
WEAK_MEDIA_VERBS: Final = frozenset({"listen"})

_FAVORITE_FILLER: Final = frozenset(
    {"favorite", "favourite", "fave", "fav", "kind", "type", "sort", "of", "my"}
)
_NON_WORD = re.compile(r"[^a-z0-9]+")


@functools.lru_cache(maxsize=4096)  # pure, and asked for each pair of a new claim and a live memory
def normalise_predicate(predicate: str) -> str:
    """Canonical snake_case name for ``predicate`` (aliases folded, favourite_ → favorite_)."""
    name = _NON_WORD.sub("_", predicate.strip().lower()).strip("_")
    if name.startswith(_FAVOURITE_PREFIX):
        name = FAVORITE_PREFIX + name[len(_FAVOURITE_PREFIX) :]
    return ALIASES.get(name, name)


def favorite_predicate(thing: str) -> str:
    """``favorite_<thing>`` for a noun phrase: "favourite kind of music" → ``favorite_music``."""
    words = [w for w in _NON_WORD.split(thing.lower()) if w and w not in _FAVORITE_FILLER]
    return FAVORITE_PREFIX + "_".join(words) if words else FAVORITE_PREFIX.rstrip("_")


def is_single_valued(predicate: str) -> bool:
    """True when a new value of ``predicate`` supersedes the old one for the same subject."""
    name = normalise_predicate(predicate)
    return name in SINGLE_VALUED or name.startswith(FAVORITE_PREFIX)


def object_entity_type(predicate: str) -> EntityType | None:
    """The entity type an object of ``predicate`` usually has, or None when it is a free value."""
    name = normalise_predicate(predicate)
    if name.startswith(FAVORITE_PREFIX):
        return "media" if name.rsplit("_", 1)[-1] in _FAVORITE_MEDIA else "concept"
    if _verb(name) in MEDIA_VERBS | WEAK_MEDIA_VERBS:
        return "media"
    return OBJECT_ENTITY_TYPE.get(name)


def _verb(name: str) -> str:
    """The verb of a generic predicate: "listen_to" → "listen" (negated ones are not about a work)."""
    return name.split("_", 1)[0]


def has_strong_object_type(predicate: str) -> bool:
    """True when the predicate's object type should win over the NER label."""
    name = normalise_predicate(predicate)
    return name in STRONG_OBJECT_TYPES or name.startswith(FAVORITE_PREFIX) or _verb(name) in MEDIA_VERBS


def ending_base(predicate: str) -> str | None:
    """``no_longer_works_at`` → ``works_at``; None for a predicate that is not an ending."""
    name = normalise_predicate(predicate)
    if name.startswith(NO_LONGER_PREFIX) and len(name) > len(NO_LONGER_PREFIX):
        return normalise_predicate(name[len(NO_LONGER_PREFIX) :])
    return None


def is_change(predicate: str) -> bool:
    """True for predicates that state a change of the subject's situation (announced in the future, they
    are plans, not yet facts)."""
    name = normalise_predicate(predicate)
    return name == LEFT or ending_base(name) is not None or name in ("manager", "main_language")


def ends(predicate: str, other: str) -> bool:
    """Does a new ``predicate`` memory end a live ``other`` memory of the same subject and object?

    Single-valued conflicts (same predicate, another object) are not covered here: see
    :func:`is_single_valued`.
    """
    name, other = normalise_predicate(predicate), normalise_predicate(other)
    if name == LEFT:
        return other not in NOT_LEAVABLE and not other.startswith(FAVORITE_PREFIX)
    return other in ended_predicates(name)


def ended_predicates(predicate: str) -> frozenset[str]:
    """The predicates a new ``predicate`` memory ends (same subject and object); ``left`` is open-ended
    (see :func:`ends`)."""
    name = normalise_predicate(predicate)
    base = ending_base(name)
    if base is not None:
        return frozenset({base}) | ENDS_ALSO.get(base, frozenset())
    ended = {NO_LONGER_PREFIX + name} | COMPLETIONS.get(name, frozenset())
    if name in OPPOSITES:
        ended.add(OPPOSITES[name])
    return frozenset(ended)
