"""Entity anchor: entities named in the query (alias- and typo-tolerant, by trigram word similarity) plus the
query's nearest entities by embedding → every live memory touching them (one hop), closest to the query
first."""

from __future__ import annotations

from retrieval.signals import LIVE_MEMORY, SIGNAL_LIMIT, SignalSQL, hits_select

NAME = "entity"
#: pg_trgm word_similarity(entity name, query) above which the query is taken to name the entity.
NAMED_SIMILARITY = 0.75
#: How many nearest entities by embedding are taken as anchors, and the cosine floor they must pass.
NEAREST_ENTITIES = 3
NEAREST_MIN_COSINE = 0.3
#: Names shorter than this are only matched exactly (trigrams of "al" match too much).
MIN_FUZZY_NAME_CHARS = 4


def build(limit: int = SIGNAL_LIMIT) -> SignalSQL:
    scope = """e.project_id = (SELECT project_id FROM q) AND e.user_id = (SELECT user_id FROM q)
               AND e.merged_into_id IS NULL"""
    inner = f"""
        WITH anchors AS (
            SELECT e.id, 2 AS strength FROM memhq_entity e
            WHERE {scope} AND (
                (length(e.normalized_name) >= {MIN_FUZZY_NAME_CHARS}
                 AND word_similarity(e.normalized_name, (SELECT qtext FROM q)) >= {NAMED_SIMILARITY})
                OR e.normalized_name::text = ANY((SELECT qwords FROM q)::text[])
                OR e.normalized_aliases::text[] && (SELECT qwords FROM q))
            UNION
            SELECT id, 1 AS strength FROM (
                SELECT e.id, e.embedding <=> (SELECT v FROM q) AS distance FROM memhq_entity e
                WHERE {scope} AND e.embedding IS NOT NULL
                ORDER BY e.embedding <=> (SELECT v FROM q) LIMIT {NEAREST_ENTITIES}
            ) AS nearest WHERE distance <= {1 - NEAREST_MIN_COSINE}
        )
        SELECT m.id FROM memhq_memory m
        JOIN LATERAL (
            SELECT max(a.strength) AS strength FROM anchors a WHERE a.id = ANY(m.entity_ids)
        ) AS touched ON touched.strength IS NOT NULL
        WHERE {LIVE_MEMORY} AND m.entity_ids && (SELECT array_agg(id) FROM anchors)
        ORDER BY touched.strength DESC, m.embedding <=> (SELECT v FROM q)
        LIMIT {limit}
    """
    return SignalSQL(NAME, hits_select(NAME, inner, memory_id="id"))
