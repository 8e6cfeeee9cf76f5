"""`memhq_project key list / revoke` and the `make run` banner."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from memhq.models import ApiKey
from memhq.services.tenancy import project_create


def test_key_revoke_accepts_the_whole_key(db: None, capsys: pytest.CaptureFixture[str]) -> None:
    _, issued = project_create(name="shop")
    call_command("memhq_project", "key", "revoke", issued.plaintext)
    assert ApiKey.objects.get(pk=issued.api_key.pk).revoked_at is not None
    assert f"revoked mhq_{issued.api_key.prefix}_…" in capsys.readouterr().out


@pytest.mark.parametrize("shape", ["{prefix}", "mhq_{prefix}", "mhq_{prefix}_"])
def test_key_revoke_accepts_the_prefix_with_or_without_the_scheme(db: None, shape: str) -> None:
    _, issued = project_create(name="shop")
    call_command("memhq_project", "key", "revoke", shape.format(prefix=issued.api_key.prefix))
    assert ApiKey.objects.get(pk=issued.api_key.pk).revoked_at is not None


def test_key_revoke_of_an_unknown_key_is_a_command_error(db: None) -> None:
    with pytest.raises(CommandError, match="no API key with prefix 'feedface0000'"):
        call_command("memhq_project", "key", "revoke", "mhq_feedface0000_secret")


def test_key_list_shows_every_key_without_its_secret(db: None, capsys: pytest.CaptureFixture[str]) -> None:
    _, first = project_create(name="shop")
    _, other = project_create(name="blog")
    call_command("memhq_project", "key", "revoke", first.api_key.prefix)
    capsys.readouterr()
    call_command("memhq_project", "key", "list")
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].split() == ["PROJECT", "KEY", "NAME", "CREATED", "(UTC)", "LAST", "USED", "REVOKED"]
    shop = next(line for line in lines if line.startswith("shop"))
    assert f"mhq_{first.api_key.prefix}_…" in shop and shop.split()[-1] != "-"  # revoked: a time
    blog = next(line for line in lines if line.startswith("blog"))
    assert blog.split()[-1] == "-"
    assert first.plaintext not in out and other.plaintext not in out
    call_command("memhq_project", "key", "list", "blog")
    only = capsys.readouterr().out
    assert "blog" in only and "shop" not in only
    with pytest.raises(CommandError, match="no project named 'nope'"):
        call_command("memhq_project", "key", "list", "nope")


@contextmanager
def answering(status: int, headers: dict[str, str], body: bytes) -> Iterator[int]:
    """A loopback HTTP server answering every GET with ``status``; yields its port."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()


@pytest.fixture
def web() -> Iterator[int]:
    with answering(200, {}, b"{}") as port:
        yield port


def test_banner_shows_the_bound_address_key_password_and_where_they_are_saved(
    web: int,
    tmp_path: Path,
    settings: Any,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    settings.BASE_DIR = tmp_path
    (tmp_path / "var").mkdir()
    (tmp_path / "var" / "demo-api-key").write_text("mhq_0123456789ab_secret")
    (tmp_path / "var" / "admin-password").write_text("pw-123")
    monkeypatch.setenv("MEMHQ_BIND", f"0.0.0.0:{web}")
    call_command("memhq_bootstrap", "--banner", "--wait", "10")
    out = capsys.readouterr().out
    assert f"MemHQ is up: http://127.0.0.1:{web}" in out
    assert f"every interface, port {web}" in out
    assert f"mhq_0123456789ab_secret   (saved in {tmp_path / 'var' / 'demo-api-key'})" in out
    assert f"pw-123   (saved in {tmp_path / 'var' / 'admin-password'})" in out
    key_file = tmp_path / "var" / "demo-api-key"
    assert f"export MEMHQ_URL=http://127.0.0.1:{web} MEMHQ_KEY=$(cat {key_file})" in out


def test_banner_says_when_the_web_process_does_not_answer(
    tmp_path: Path, settings: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    settings.BASE_DIR = tmp_path
    monkeypatch.setenv("MEMHQ_BIND", "127.0.0.1:1")
    call_command("memhq_bootstrap", "--banner", "--wait", "0.5")
    out = capsys.readouterr().out
    assert "MemHQ is NOT answering yet: http://127.0.0.1:1" in out
    assert "none saved here" in out


@pytest.fixture
def front_before_a_web_not_up() -> Iterator[int]:
    """Answers /healthz as config/Caddyfile does while gunicorn is not up: 503, marked as the front's."""
    body = b'{"error": {"code": "unavailable", "message": "...", "fields": {}}}'
    with answering(503, {"MemHQ-Error-Source": "front"}, body) as port:
        yield port


def test_banner_waits_while_the_front_answers_for_a_web_process_not_up_yet(
    front_before_a_web_not_up: int,
    tmp_path: Path,
    settings: Any,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    settings.BASE_DIR = tmp_path
    monkeypatch.setenv("MEMHQ_BIND", f"127.0.0.1:{front_before_a_web_not_up}")
    call_command("memhq_bootstrap", "--banner", "--wait", "1")
    assert (
        f"MemHQ is NOT answering yet: http://127.0.0.1:{front_before_a_web_not_up}" in capsys.readouterr().out
    )
