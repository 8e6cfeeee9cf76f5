"""Entity anchor: entities named in the query (alias- and typo-tolerant, by trigram word similarity), the
query's nearest entities by embedding, and the user's entities of the kinds the query hints at
(``retrieval.type_hints``: "Netflix" → media) → every live memory touching them (one hop).

Names are read from the (project, user, name) btree; aliases and near spellings from their GIN indexes, the
user's test a filter in a form no index answers (``owner_unindexed``): the statement is prepared,
and its generic plan took any user for 1/n_distinct of the table (7 entities beside 1,000 other users), so
for a user with 5,000 entities it read all of them once per query word n-gram to test the trigrams: 105 ms
of a recall (issue 17's 100k-memory user).

A name is matched fuzzily only among the entities the trigram index finds near one of the query's word
n-grams (``%``: similarity above ``pg_trgm.similarity_threshold``, 0.3 unless a server changes it), not by
computing ``word_similarity`` for each of the user's entities: that took ~9 µs an entity, 9 ms of a recall
for a user with 1,000 entities (issue 17); the index cannot answer ``word_similarity`` in this direction
(the name within the query). A name that passes ``NAMED_SIMILARITY`` is similar to the query's words that
spell it well above 0.3; the same anchors came out for every question of both development sets. Near
spellings are looked up for the n-grams of one or two words with a word that is not a stop word
(``MAX_FUZZY_GRAM_WORDS``): a three-word name shares most of its trigrams with its first two words, and a
long question has dozens of n-grams, each an index scan (beam-dev's questions, asked twice on the same stored
data: the statement 28.0 → 25.1 ms p50, every row of both sets the same).

Only informative anchors count: an entity mentioned in more than ``MAX_ANCHOR_SHARE`` of the user's
episodes (the user themself, the friend every conversation is with) says nothing about which memory is
relevant, so it is dropped; the others weigh by strength (named > hinted type > nearest) × IDF over the
user's episodes (``Entity.mention_count`` against the episode count: both cheap, where counting the
memories touching an entity costs a GIN bitmap of all of them). Memories touching the heaviest anchors come
first, then the closest to the query.
"""

from __future__ import annotations

from typing import Final

from retrieval.signals import (
    LIVE_MEMORY,
    SIGNAL_LIMIT,
    SignalSQL,
    hits_select,
    nearest,
    owned_by_user,
    owner_unindexed,
)

NAME = "entity"
#: pg_trgm word_similarity(entity name, query) above which the query is taken to name the entity.
NAMED_SIMILARITY: Final = 0.75
#: How many nearest entities by embedding are taken as anchors, and the cosine floor they must pass.
NEAREST_ENTITIES: Final = 3
NEAREST_MIN_COSINE: Final = 0.3
#: How many entities of a hinted type are taken (the closest to the query).
TYPED_ENTITIES: Final = 5
#: Names shorter than this are only matched exactly (trigrams of "al" match too much).
MIN_FUZZY_NAME_CHARS: Final = 4
#: Near spellings are looked up for the query's word n-grams of at most this many words, and only those
#: with a word that is not a stop word (each looked-up n-gram is one trigram index scan).
MAX_FUZZY_GRAM_WORDS: Final = 2
#: Anchor strengths: named in the query, of a type the query hints at, nearest by embedding.
NAMED_STRENGTH: Final = 2.0
TYPED_STRENGTH: Final = 1.5
NEAREST_STRENGTH: Final = 1.0
#: An anchor mentioned in more than this share of the user's episodes is not informative...
MAX_ANCHOR_SHARE: Final = 0.3
#: ...unless it was mentioned at most this many times (a new user's entities are all anchors).
MIN_ANCHOR_MENTIONS: Final = 3
#: Episodes are counted up to this many (beyond, every anchor is rare enough).
EPISODE_CAP: Final = 10000
#: At most this many anchors, the heaviest (then the closest to the query): what the signal costs grows with
#: the memories touching its anchors, and a first name shared by many of the user's people ("Ana" as the
#: alias of 40 entities) made a thousand of them.
MAX_ANCHORS: Final = 10


def build(limit: int = SIGNAL_LIMIT) -> SignalSQL:
    # The memories touching the anchors: the user's test left to a filter. The anchors are the user's own
    # entities, so the entity GIN alone finds them; with the per-user index in the condition too, Postgres
    # ANDed a bitmap of all the user's memories (20,000: 0.6 ms) with the few touching an anchor.
    touching = owner_unindexed(LIVE_MEMORY, "m")
    scope = f"{owned_by_user('e')} AND e.merged_into_id IS NULL"
    # Names come from the (project, user, name) btree; aliases and near spellings from their GIN indexes,
    # the user's test a filter no index answers (see the module docstring). The aliases are varchar[]: the
    # query's words are cast to it, as the GIN does not serve the column cast to text[].
    by_index = owner_unindexed(scope, "e")
    inner = f"""
        WITH anchors AS (
            SELECT e.id, {NAMED_STRENGTH}::float8 AS strength FROM memhq_entity e
            WHERE {scope} AND e.normalized_name::text = ANY((SELECT qwords FROM q)::text[])
            UNION ALL
            SELECT e.id, {NAMED_STRENGTH}::float8 FROM memhq_entity e
            WHERE {by_index} AND e.normalized_aliases && (SELECT qwords FROM q)::varchar[]
            UNION ALL
            SELECT DISTINCT e.id, {NAMED_STRENGTH}::float8
            FROM unnest((SELECT qwords FROM q)) AS gram
            CROSS JOIN LATERAL (
                SELECT 1 WHERE cardinality(string_to_array(gram, ' ')) <= {MAX_FUZZY_GRAM_WORDS}
                  AND length(to_tsvector('english', gram)) > 0) AS worded
            CROSS JOIN LATERAL (
                SELECT e.id, e.normalized_name FROM memhq_entity e
                WHERE e.normalized_name %% gram AND {by_index} OFFSET 0) AS e
            WHERE length(e.normalized_name) >= {MIN_FUZZY_NAME_CHARS}
              AND word_similarity(e.normalized_name, (SELECT qtext FROM q)) >= {NAMED_SIMILARITY}
            UNION ALL
            SELECT id, {NEAREST_STRENGTH}::float8 FROM (
                {
        nearest(
            table="memhq_entity e", alias="e", where=scope, exact="entities_exact", limit=NEAREST_ENTITIES
        )
    }
            ) AS closest WHERE distance <= {1 - NEAREST_MIN_COSINE}
            UNION ALL
            SELECT id, {TYPED_STRENGTH}::float8 FROM (
                SELECT e.id FROM memhq_entity e
                WHERE cardinality((SELECT type_hints FROM q)) > 0
                  AND {scope} AND e.type::text = ANY((SELECT type_hints FROM q)::text[])
                ORDER BY e.embedding <=> (SELECT v FROM q) NULLS LAST, e.id LIMIT {TYPED_ENTITIES}
            ) AS typed
        ), episodes AS (
            SELECT count(*)::float8 AS n FROM (
                SELECT 1 FROM memhq_episode
                WHERE project_id = (SELECT project_id FROM q) AND user_id = (SELECT user_id FROM q)
                LIMIT {EPISODE_CAP}) AS counted
        ), weighted AS (
            SELECT e.id, max(a.strength) * ln(1 + episodes.n / greatest(e.mention_count, 1)) AS weight
            FROM anchors a
            JOIN memhq_entity e ON e.id = a.id
            CROSS JOIN episodes
            WHERE e.mention_count <= greatest({MIN_ANCHOR_MENTIONS}, {MAX_ANCHOR_SHARE} * episodes.n)
            GROUP BY e.id, episodes.n
            ORDER BY weight DESC, e.embedding <=> (SELECT v FROM q) NULLS LAST, e.id
            LIMIT {MAX_ANCHORS}
        )
        SELECT m.id, touched.weight + 1 - (m.embedding <=> (SELECT v FROM q)) AS score
        FROM memhq_memory m
        JOIN LATERAL (
            SELECT sum(w.weight) AS weight FROM weighted w WHERE w.id = ANY(m.entity_ids)
        ) AS touched ON touched.weight IS NOT NULL
        WHERE {touching} AND m.entity_ids && (SELECT array_agg(id) FROM weighted)
        ORDER BY touched.weight DESC, m.embedding <=> (SELECT v FROM q), m.id
        LIMIT {limit}
    """
    return SignalSQL(NAME, hits_select(NAME, inner, memory_id="id", score="score"))
