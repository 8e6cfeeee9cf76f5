"""Browser tests: Debian's headless chromium, driven by selenium through the system chromedriver (no driver
download), against a real gunicorn serving config.wsgi on the test database, as the Procfile runs it.

Skipped — loudly, in the summary — when chromium or chromedriver is missing (``.ci/ensure-browser``, which
``make test`` runs, installs them with apt-get).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

from tests.browser.helpers import Screenshot
from tests.support.worker import ROOT, stop, worker_env

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
MISSING = "chromium / chromedriver not installed (run .ci/ensure-browser): BROWSER TESTS SKIPPED"
SERVER_READY_TIMEOUT_S = 30.0
SCREENSHOTS = Path(os.environ.get("MEMHQ_SCREENSHOTS", str(ROOT / "var" / "screenshots")))
_skipped: list[str] = []


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if CHROMIUM and CHROMEDRIVER:
        return
    for item in items:
        if "tests/browser/" in str(item.path):
            item.add_marker(pytest.mark.skip(reason=MISSING))
            _skipped.append(item.nodeid)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if _skipped:
        terminalreporter.section("BROWSER TESTS SKIPPED", sep="!", red=True, bold=True)
        terminalreporter.write_line(f"{len(_skipped)} browser test(s) did not run: {MISSING}", red=True)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="session")
def gunicorn_url(django_db_setup: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The Procfile's gunicorn (one worker) on a free port, reading the test database, for the session."""
    port = free_port()
    log = tmp_path_factory.mktemp("gunicorn") / "gunicorn.log"
    args = [
        "-c",
        "config/gunicorn.conf.py",
        "config.wsgi:application",
        "--bind",
        f"127.0.0.1:{port}",
        "--workers",
        "1",
    ]
    args += ["--worker-class", "gthread", "--threads", "4", "--no-control-socket", "--graceful-timeout", "1"]
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", *args],
            cwd=ROOT,
            env=worker_env(),
            stdout=out,
            stderr=out,
            start_new_session=True,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + SERVER_READY_TIMEOUT_S
        while True:
            try:
                # Any answer: the web is up (503 only says no worker consumes, which these pages do not need).
                if httpx.get(f"{url}/healthz", timeout=2).status_code in (200, 503):
                    break
            except httpx.HTTPError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"gunicorn did not start:\n{log.read_text(errors='replace')[-4000:]}")
            time.sleep(0.1)
        yield url
    finally:
        stop(process)


@pytest.fixture
def live_url(transactional_db: None, gunicorn_url: str) -> str:
    """The live server, with this test's rows committed where gunicorn sees them (flushed afterwards)."""
    return gunicorn_url


@pytest.fixture(scope="session")
def browser() -> Iterator[webdriver.Chrome]:
    assert CHROMIUM and CHROMEDRIVER, MISSING
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900"):
        options.add_argument(flag)
    os.environ.setdefault("SE_OFFLINE", "true")  # selenium manager never downloads a driver
    driver = webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))
    driver.implicitly_wait(0)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def screenshot(browser: webdriver.Chrome) -> Iterator[Screenshot]:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def take(name: str) -> Path:
        path = SCREENSHOTS / f"{name}.png"
        browser.save_screenshot(str(path))
        return path

    browser.delete_all_cookies()
    yield take
