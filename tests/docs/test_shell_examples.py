"""Every shell example of README.md and docs/*.md runs, in order, against a live MemHQ (web + a real worker).

Each file's blocks run in one bash session (so a variable set by one example is there for the next), with
``set -euo pipefail`` and ``curl`` wrapped to fail on an HTTP error status (``--fail-with-body``): an example
that answers 4xx/5xx, or a ``jq`` that finds nothing, fails the test and names the block. Placeholders are
filled: the quickstart's ``http://127.0.0.1:8000`` becomes the live server's address, ``var/demo-api-key``
a key file of the test's project, the example webhook URL a local receiver. MEMHQ_URL and MEMHQ_KEY are also
exported beforehand, as a reader who followed the quickstart has them. Blocks annotated
``<!-- docs-test: skip … -->`` (``make run``, Docker, long benchmarks) are counted, not run.
"""

from __future__ import annotations

import shutil
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from memhq.models import Project
from tests.docs.shell_blocks import Block, shell_blocks
from tests.support.worker import ROOT, celery_process, relay_process, worker_args, worker_env

DOC_FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FILE_TIMEOUT_S = 180
DONE = "::docs-test-block-done"
PRELUDE = """\
set -euo pipefail
curl() { command curl --silent --show-error --fail-with-body "$@"; }
"""


@pytest.fixture
def worker(transactional_db: None, broker: Any, tmp_path: Path) -> Iterator[Any]:
    """A real worker that, like the live server (tests/conftest.py), may deliver webhooks to loopback, and
    the outbox relay that publishes what /add commits."""
    env = worker_env(MEMHQ_WEBHOOKS_ALLOW_PRIVATE="1")
    with (
        celery_process(worker_args(), env, tmp_path / "worker.log", ready="ready.") as process,
        relay_process(env, tmp_path / "relay.log"),
    ):
        yield process


@pytest.fixture
def webhook_receiver() -> Iterator[str]:
    class Receiver(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/memhq-hook"
    server.shutdown()


def script_for(blocks: list[Block], placeholders: dict[str, str]) -> str:
    parts = [PRELUDE]
    for number, block in enumerate(blocks):
        code = block.code
        for placeholder, value in placeholders.items():
            code = code.replace(placeholder, value)
        parts.append(f"{code}\necho '{DONE} {number}'\n")
    return "\n".join(parts)


def failed_block(blocks: list[Block], output: str) -> Block:
    done = [int(line.split()[-1]) for line in output.splitlines() if line.startswith(DONE)]
    return blocks[(max(done) + 1) if done else 0]


def test_every_shell_example_in_the_docs_runs_against_a_live_server(
    live_server: Any,
    worker: Any,
    project: Project,
    webhook_receiver: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    for tool in ("bash", "curl", "jq"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")
    key_file = tmp_path / "demo-api-key"
    key_file.write_text(project.test_key)  # type: ignore[attr-defined]
    placeholders = {
        "http://127.0.0.1:8000": live_server.url,
        "var/demo-api-key": str(key_file),
        "https://example.com/memhq-hook": webhook_receiver,
    }
    env = worker_env(MEMHQ_URL=live_server.url, MEMHQ_KEY=project.test_key)  # type: ignore[attr-defined]
    ran, skipped, files = 0, 0, 0
    for path in DOC_FILES:
        blocks = shell_blocks(path)
        runnable = [block for block in blocks if block.skip is None]
        skipped += len(blocks) - len(runnable)
        if not runnable:
            continue
        result = subprocess.run(
            ["bash", "-c", script_for(runnable, placeholders)],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=FILE_TIMEOUT_S,
        )
        if result.returncode != 0:
            block = failed_block(runnable, result.stdout)
            pytest.fail(
                f"shell example at {block.where} failed (exit {result.returncode}):\n{block.code}\n"
                f"--- stdout (tail) ---\n{result.stdout[-3000:]}\n"
                f"--- stderr (tail) ---\n{result.stderr[-3000:]}"
            )
        ran += len(runnable)
        files += 1
    with capsys.disabled():
        print(f"\ndocs: ran {ran} shell examples from {files} files; {skipped} annotated as skipped")
    assert ran >= 10, "the docs should hold runnable examples"


def test_the_extractor_finds_shell_blocks_in_order_and_honours_the_skip_annotation(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "# T\n\n```sh\necho one\n```\n\n```json\n{}\n```\n\n"
        "<!-- docs-test: skip starts a server -->\n```bash\nmake run\n```\n\n```console\necho two\n```\n"
    )
    blocks = shell_blocks(page)
    assert [(b.line, b.code, b.skip) for b in blocks] == [
        (3, "echo one\n", None),
        (12, "make run\n", "starts a server"),
        (16, "echo two\n", None),
    ]
