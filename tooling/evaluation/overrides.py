"""``memhq_eval --set NAME=VALUE``: fusion settings for one run, onto ``retrieval.config.RetrievalConfig``.

``NAME`` is a field of RetrievalConfig; the value takes the field's current type: ``rrf_k=30``,
``speaker_boost=0.5``. A mapping field takes a JSON object for the whole mapping
(``neighbour_weights={"1": 0.4, "-1": 0.2}``) or ``FIELD.KEY=VALUE`` for one entry
(``weights.message_keyword=1.5``); keys take the type of the mapping's existing keys (the neighbour
offsets are integers).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import fields, replace
from typing import Any

from retrieval.config import RetrievalConfig

BOOLEANS = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False}


class OverrideError(ValueError):
    """An assignment that names no fusion setting or whose value does not fit it."""


def _key(mapping: Mapping[Any, Any], raw: str) -> Any:
    if mapping and all(isinstance(key, int) for key in mapping):
        try:
            return int(raw)
        except ValueError as error:
            raise OverrideError(f"{raw!r}: this mapping's keys are integers") from error
    return raw


def _number(current: Any, raw: str, name: str) -> Any:
    """``raw`` as the type of ``current``: bool (true/false/1/0), int, str, or else a float."""
    if isinstance(current, bool):
        if raw.lower() not in BOOLEANS:
            raise OverrideError(f"{name} takes true or false, not {raw!r}")
        return BOOLEANS[raw.lower()]
    if isinstance(current, str):
        return raw
    try:
        return int(raw) if isinstance(current, int) and not isinstance(current, bool) else float(raw)
    except ValueError as error:
        kind = "an integer" if isinstance(current, int) else "a number"
        raise OverrideError(f"{name} takes {kind}, not {raw!r}") from error


def _mapping(current: Mapping[Any, Any], raw: str, name: str) -> dict[Any, float]:
    try:
        parsed = json.loads(raw)
    except json.JSONDecodeError as error:
        raise OverrideError(f'{name} takes a JSON object, e.g. {name}={{"key": 1.0}}') from error
    if not isinstance(parsed, dict):
        raise OverrideError(f"{name} takes a JSON object")
    return {_key(current, key): _number(1.0, str(value), f"{name}.{key}") for key, value in parsed.items()}


def apply(config: RetrievalConfig, assignments: Iterable[str]) -> RetrievalConfig:
    """``config`` with each ``NAME=VALUE`` (or ``NAME.KEY=VALUE``) applied, in order."""
    known = {field.name for field in fields(RetrievalConfig)}
    for assignment in assignments:
        target, equals, raw = assignment.partition("=")
        target, raw = target.strip(), raw.strip()
        name, dot, key = target.partition(".")
        if not equals or not name:
            raise OverrideError(f"{assignment!r}: write NAME=VALUE")
        if name not in known:
            raise OverrideError(f"{name!r} is not a fusion setting; known: {', '.join(sorted(known))}")
        current = getattr(config, name)
        if isinstance(current, Mapping):
            if dot:
                value: Any = {**current, _key(current, key): _number(1.0, raw, target)}
            else:
                value = _mapping(current, raw, name)
        elif dot:
            raise OverrideError(f"{name} is not a mapping; write {name}=VALUE")
        else:
            value = _number(current, raw, name)
        config = replace(config, **{name: value})
    return config
