"""Typed readers for environment variables that fail loudly on a bad value."""

from __future__ import annotations

import os
from dataclasses import dataclass
from urllib.parse import parse_qs, unquote, urlparse


class ConfigError(RuntimeError):
    pass


def env_str(name: str, default: str) -> str:
    return os.environ.get(name, default)


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError as exc:
        raise ConfigError(f"{name} must be an integer, got {raw!r}") from exc


def env_float(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        return float(raw)
    except ValueError as exc:
        raise ConfigError(f"{name} must be a number, got {raw!r}") from exc


_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    if raw.lower() in _TRUE:
        return True
    if raw.lower() in _FALSE:
        return False
    raise ConfigError(f"{name} must be a boolean (1/0, true/false), got {raw!r}")


def env_choice(name: str, default: str, choices: tuple[str, ...]) -> str:
    value = os.environ.get(name, default)
    if value not in choices:
        raise ConfigError(f"{name} must be one of {', '.join(choices)}, got {value!r}")
    return value


def env_list(name: str, default: str) -> list[str]:
    return [part.strip() for part in os.environ.get(name, default).split(",") if part.strip()]


def seconds_list(name: str, items: list[str]) -> list[float]:
    """``env_list`` items as non-negative seconds, e.g. a retry schedule."""
    try:
        values = [float(item) for item in items]
    except ValueError as exc:
        raise ConfigError(f"{name} must be comma-separated seconds, got {','.join(items)!r}") from exc
    if any(value < 0 for value in values):
        raise ConfigError(f"{name} may not hold negative seconds")
    return values


@dataclass(frozen=True)
class DatabaseUrl:
    name: str
    user: str
    password: str
    host: str
    port: str
    options: dict[str, str]


def parse_database_url(url: str) -> DatabaseUrl:
    """Parse ``postgresql://user:pass@host:port/db?opt=v``; ``?host=/socket/dir`` selects a Unix socket."""
    parsed = urlparse(url)
    if parsed.scheme not in ("postgres", "postgresql"):
        raise ConfigError(f"DATABASE_URL must start with postgresql://, got {parsed.scheme!r}")
    query = {key: values[-1] for key, values in parse_qs(parsed.query).items()}
    host = query.pop("host", None) or (parsed.hostname or "")
    return DatabaseUrl(
        name=unquote(parsed.path.lstrip("/")) or "postgres",
        user=unquote(parsed.username or ""),
        password=unquote(parsed.password or ""),
        host=host,
        port=str(parsed.port or ""),
        options=query,
    )
