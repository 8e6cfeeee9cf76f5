"""A real HTTP receiver for webhook tests: a threaded http.server on 127.0.0.1 that records what it gets."""

from __future__ import annotations

import contextlib
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Reply:
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b"ok"
    delay_s: float = 0.0  # before the status line
    body_delay_s: float = 0.0  # between the headers and the body


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


class Receiver:
    """``replies`` are used in order, then ``default``. Stop and start it again on the same port."""

    def __init__(self) -> None:
        self.requests: list[Received] = []
        self.replies: deque[Reply] = deque()
        self.default = Reply()
        self.port = 0
        self._server: ThreadingHTTPServer | None = None
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"

    def reply(self, *replies: Reply) -> None:
        self.replies.extend(replies)

    def start(self) -> Receiver:
        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), self._handler())
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def webhook_ids(self) -> list[str]:
        return [request.headers["webhook-id"] for request in self.requests]

    def wait_for(self, count: int, timeout_s: float = 30.0) -> list[Received]:
        deadline = time.monotonic() + timeout_s
        while len(self.requests) < count:
            if time.monotonic() > deadline:
                raise AssertionError(f"the receiver got {len(self.requests)} requests, expected {count}")
            time.sleep(0.05)
        return self.requests

    def _record(self, received: Received) -> Reply:
        with self._lock:
            self.requests.append(received)
            return self.replies.popleft() if self.replies else self.default

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                headers = {name.lower(): value for name, value in self.headers.items()}
                reply = receiver._record(Received(self.path, headers, body))
                time.sleep(reply.delay_s)
                with contextlib.suppress(OSError):  # the sender may have given up (timeout tests)
                    self.send_response(reply.status)
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(reply.body)))
                    self.end_headers()
                    self.wfile.flush()
                    time.sleep(reply.body_delay_s)
                    self.wfile.write(reply.body)

            def log_message(self, format: str, *args: Any) -> None:
                return None

        return Handler
