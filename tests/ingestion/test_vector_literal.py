"""memhq.models.vectors: vectors written as nine significant digits come back bit for bit."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from django.db import connection
from pgvector import Vector
from pgvector.django import VectorField as PgVectorField

from memhq.models import EpisodeMessage, Memory
from memhq.models.vectors import MIGRATION_PATH, VectorField, vector_literal


def awkward_vector(seed: int) -> np.ndarray:
    """Values across many magnitudes, the kind a short decimal would round."""
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(384) * rng.choice([1e-7, 1e-3, 1.0, 30.0], 384)).astype(np.float32)


@pytest.mark.django_db
def test_every_float32_round_trips_through_postgresql() -> None:
    vectors = [awkward_vector(seed) for seed in range(20)]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT v::vector::text FROM unnest(%s::text[]) AS v",
            [[vector_literal(vector) for vector in vectors]],
        )
        stored = [np.asarray(Vector.from_text(text).to_numpy()) for (text,) in cursor.fetchall()]
    for vector, back in zip(vectors, stored, strict=True):
        np.testing.assert_array_equal(back, vector)


def test_lists_arrays_pgvector_vectors_and_none() -> None:
    as_list = [0.5, -0.25, 0.125]
    expected = "[0.5,-0.25,0.125]"
    assert vector_literal(as_list) == expected
    assert vector_literal(np.asarray(as_list, dtype=np.float64)) == expected
    assert vector_literal(Vector([0.5, -0.25])) == "[0.5,-0.25]"
    # a float64 is rounded to float32 first, as the column stores it (not rounded twice through 9 digits)
    assert vector_literal([0.1]) == f"[{float(np.float32(0.1)):.9g}]"
    assert vector_literal(None) is None
    with pytest.raises(ValueError, match="ndim"):
        vector_literal(np.zeros((2, 2), dtype=np.float32))


def test_the_models_use_it_and_migrations_see_pgvectors_field() -> None:
    for model in (EpisodeMessage, Memory):
        field = model._meta.get_field("embedding")
        assert isinstance(field, VectorField) and isinstance(field, PgVectorField)
        assert field.deconstruct()[1] == MIGRATION_PATH == "pgvector.django.vector.VectorField"


@pytest.mark.django_db
def test_a_model_saves_and_reads_the_same_vector(project: Any) -> None:
    from tests.ingestion.helpers import make_episode, run_tasks

    episode = run_tasks(make_episode(project, [{"role": "user", "content": "I keep bees on my roof."}]))
    message = EpisodeMessage.objects.get(episode=episode)
    message.embedding = awkward_vector(7)
    message.save(update_fields=["embedding"])
    message.refresh_from_db()
    np.testing.assert_array_equal(np.asarray(message.embedding, dtype=np.float32), awkward_vector(7))
