"""Place names the small NER model misses are known by name (``ingestion.extractors.places``)."""

from __future__ import annotations

import pytest

from ingestion.extractors.places import is_place_name
from tests.ingestion.rules_support import say


@pytest.mark.parametrize("name", ["Bristol", "Kraków", "glasgow", "Peru", "Texas", " Utrecht "])
def test_cities_countries_and_us_states_are_places(name: str) -> None:
    assert is_place_name(name)


@pytest.mark.parametrize("name", ["Supabase", "Kubernetes", "Vercel", "my flat", ""])
def test_tools_and_common_words_are_not(name: str) -> None:
    assert not is_place_name(name)


def test_a_move_to_a_tool_stays_a_change_of_tools() -> None:
    result = say(("user", "We moved to Supabase last month."))
    assert [(c.predicate, c.object) for c in result.candidates] == [("uses", "Supabase")]
