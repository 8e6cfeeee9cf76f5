"""Where `make run`'s embedded servers are, for processes it did not start (a second shell's manage.py).

`config.devservers` writes ``<data dir>/servers.json`` (``var/servers.json`` for `make run`) with the URLs of
the servers it started and its own process id, and removes it when it stops. Settings read it for
DATABASE_URL / REDIS_URL when those are unset, but only while that process is alive: a stale file (after a
``kill -9``) or no file at all gives a clear error on first use, never a silent fall-back to
``localhost:5432`` / ``localhost:6379``, where another PostgreSQL or Redis on the machine may answer.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

SERVERS_FILE_NAME = "servers.json"
# The variable that names another servers file (tests; a data directory other than ./var).
SERVERS_FILE_ENV = "MEMHQ_SERVERS_FILE"
DEVSERVERS_MODULE = "config.devservers"


def servers_file(base_dir: Path) -> Path:
    override = os.environ.get(SERVERS_FILE_ENV)
    return Path(override) if override else base_dir / "var" / SERVERS_FILE_NAME


def write(path: Path, urls: dict[str, str]) -> None:
    """Record ``urls`` (e.g. {"DATABASE_URL": ...}) for this process; atomic, readable by its owner only."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"pid": os.getpid(), "urls": urls}, indent=2))
    tmp.chmod(0o600)
    tmp.replace(path)


def remove(path: Path) -> None:
    """Remove the file if it is this process's (a second `make run` must not delete the first one's)."""
    try:
        if json.loads(path.read_text()).get("pid") == os.getpid():
            path.unlink()
    except (OSError, ValueError):
        pass


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    cmdline = Path(f"/proc/{pid}/cmdline")
    if cmdline.exists():  # a reused pid is some other program
        return DEVSERVERS_MODULE.encode() in cmdline.read_bytes()
    return True


@dataclass(frozen=True)
class Resolved:
    url: str | None  # None: nothing to connect to, see ``problem``
    problem: str = ""


def resolve(name: str, path: Path) -> Resolved:
    """The value for the setting ``name``: the environment's, else the live `make run`'s, else a problem."""
    value = os.environ.get(name)
    if value:
        return Resolved(value)
    unset = f"{name} is not set"
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        return Resolved(
            None,
            f"{unset} and no `make run` is running here (no {path}). Start `make run` in another shell "
            f"(this command then uses its servers) or set {name}.",
        )
    except (OSError, ValueError) as exc:
        return Resolved(None, f"{unset} and {path} cannot be read ({exc}); set {name}.")
    pid = data.get("pid")
    if not isinstance(pid, int) or not _alive(pid):
        return Resolved(
            None,
            f"{unset} and the `make run` that wrote {path} (pid {pid}) has stopped. Start `make run` again "
            f"or set {name}.",
        )
    url = data.get("urls", {}).get(name)
    if not url:
        return Resolved(
            None, f"{unset} and the running `make run` was given it rather than starting one; set {name}."
        )
    return Resolved(str(url))
