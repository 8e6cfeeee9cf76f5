"""A small local fake of an OpenAI-compatible HTTP server, for tests that drive the real ``openai`` SDK.

It binds to 127.0.0.1 on a free port, serves ``POST /v1/chat/completions`` and ``POST /v1/embeddings`` from a
daemon thread, records every request it receives and answers from a scriptable queue of behaviours. Each
scripted behaviour is used by exactly one request (whichever endpoint it hits), in order.

Choices:
- An unscripted chat request answers HTTP 500 with "no scripted behaviour": a test that forgot to script an
  answer fails loudly instead of silently getting ``{}``. An unscripted embeddings request answers normally.
- ``answer(...)`` scripted for an embeddings request is sent as the whole response body, so a test can
  serve a malformed payload (too few vectors, unnormalised or zero vectors).
- Embeddings are a hashed bag of words (sha256 of each lower-cased word picks a coordinate and a sign), L2
  normalised, of the requested ``dimensions``: deterministic, and texts sharing words are closer. Both
  ``encoding_format`` "float" and "base64" (the SDK's default) are served.
- A delayed behaviour sleeps on the server's stop event, so stopping the server never waits for it; the late
  answer to a client that has hung up is dropped quietly.
- A chat request with ``"stream": true`` is answered as server-sent events (``chat.completion.chunk``s, the
  usage in a last chunk, then ``[DONE]``), the content cut into ``pieces`` sent ``gap_s`` apart
  (``stream_slowly``), as a model server writes tokens.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import math
import re
import struct
import threading
import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Literal

from pydantic import BaseModel

HOST = "127.0.0.1"
CHAT_PATH = "/v1/chat/completions"
EMBEDDINGS_PATH = "/v1/embeddings"
DEFAULT_PROMPT_TOKENS = 120
DEFAULT_COMPLETION_TOKENS = 45
DEFAULT_EMBEDDING_DIM = 1536
DEFAULT_RETRY_AFTER_S = 1
POLL_INTERVAL_S = 0.02  # how often serve_forever checks for shutdown (the stdlib's 0.5 s slows every test)
INVALID_JSON_TEXT = '{"candidates": [ {"claim": "unterminated'
WORD_RE = re.compile(r"\w+")

BehaviourKind = Literal["answer", "invalid_json", "status", "delay"]


@dataclass(frozen=True)
class Behaviour:
    """One scripted reaction of the fake server to one request."""

    kind: BehaviourKind
    content: str | None = None  # chat answer content ("answer"); raw text ("invalid_json")
    refusal: str | None = None
    finish_reason: str = "stop"
    status: int = 200  # "status": the HTTP error status to answer
    retry_after_s: int | None = None
    delay_s: float = 0.0  # "delay": how long to wait before answering normally
    prompt_tokens: int = DEFAULT_PROMPT_TOKENS
    completion_tokens: int = DEFAULT_COMPLETION_TOKENS
    pieces: int = 1  # a streamed answer's content is sent in this many chunks ...
    gap_s: float = 0.0  # ... this far apart


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]  # lower-cased names
    body: dict[str, Any] = field(default_factory=dict)


def fake_embedding(text: str, dim: int) -> list[float]:
    """The fake's deterministic embedding: a signed, hashed bag of words, L2 normalised."""
    vector = [0.0] * dim
    words = WORD_RE.findall(text.lower()) or [""]
    for word in words:
        digest = hashlib.sha256(word.encode("utf-8")).digest()
        position = int.from_bytes(digest[:4], "little") % dim
        vector[position] += 1.0 if digest[4] & 1 else -1.0
    norm = math.sqrt(sum(value * value for value in vector)) or 1.0
    return [value / norm for value in vector]


class FakeOpenAIServer:
    """Scriptable fake OpenAI-compatible server; use as a context manager or via ``start()``/``stop()``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._queue: deque[Behaviour] = deque()
        self._requests: list[RecordedRequest] = []
        self._stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> FakeOpenAIServer:
        handler = type("BoundHandler", (_Handler,), {"fake": self})
        self._httpd = ThreadingHTTPServer((HOST, 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, args=(POLL_INTERVAL_S,), name="fake-openai", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join()
        self._httpd = self._thread = None

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        if self._httpd is None:
            raise RuntimeError("the fake OpenAI server is not running")
        return f"http://{HOST}:{self._httpd.server_address[1]}/v1"

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    @property
    def pending(self) -> int:
        """How many scripted behaviours have not been used yet."""
        with self._lock:
            return len(self._queue)

    def script(self, behaviour: Behaviour) -> None:
        with self._lock:
            self._queue.append(behaviour)

    def answer(
        self,
        content: str | Mapping[str, Any] | BaseModel,
        *,
        prompt_tokens: int = DEFAULT_PROMPT_TOKENS,
        completion_tokens: int = DEFAULT_COMPLETION_TOKENS,
        finish_reason: str = "stop",
    ) -> None:
        """Chat: a normal answer with this content. Embeddings: this as the whole response body.

        Mappings and pydantic models are serialised to JSON text.
        """
        if isinstance(content, BaseModel):
            text = content.model_dump_json()
        elif isinstance(content, Mapping):
            text = json.dumps(content)
        else:
            text = content
        self.script(
            Behaviour(
                "answer",
                content=text,
                finish_reason=finish_reason,
                prompt_tokens=prompt_tokens,
                completion_tokens=completion_tokens,
            )
        )

    def refuse(self, refusal: str = "I can't help with that.") -> None:
        self.script(Behaviour("answer", content=None, refusal=refusal))

    def answer_invalid_json(self, text: str = INVALID_JSON_TEXT) -> None:
        """Chat: a 200 answer whose content is not JSON. Embeddings: a 200 whose HTTP body is not JSON."""
        self.script(Behaviour("invalid_json", content=text))

    def fail(self, status: int, *, retry_after_s: int | None = None) -> None:
        self.script(Behaviour("status", status=status, retry_after_s=retry_after_s))

    def rate_limit(self, retry_after_s: int = DEFAULT_RETRY_AFTER_S) -> None:
        self.fail(429, retry_after_s=retry_after_s)

    def server_error(self) -> None:
        self.fail(500)

    def unauthorized(self) -> None:
        self.fail(401)

    def stream_slowly(self, content: str | BaseModel, *, pieces: int, gap_s: float) -> None:
        """Chat (streamed request): the answer in ``pieces`` chunks, ``gap_s`` apart."""
        text = content.model_dump_json() if isinstance(content, BaseModel) else content
        self.script(Behaviour("answer", content=text, pieces=pieces, gap_s=gap_s))

    def proceed(self, content: str = "{}") -> None:
        """Answer the next request normally (to let an earlier batch through before a scripted failure)."""
        self.delay(0.0, content)

    def delay(self, seconds: float, content: str = "{}") -> None:
        """Wait ``seconds`` before answering normally (longer than the client timeout to force a timeout)."""
        self.script(Behaviour("delay", content=content, delay_s=seconds))

    def _record_and_next(self, request: RecordedRequest) -> Behaviour | None:
        with self._lock:
            self._requests.append(request)
            return self._queue.popleft() if self._queue else None


class _Handler(BaseHTTPRequestHandler):
    fake: FakeOpenAIServer  # set on the subclass built in FakeOpenAIServer.start()

    def log_message(self, format: str, *args: Any) -> None:
        """Keep test output quiet."""

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            self._send_error(400, "request body is not JSON", "invalid_request_error")
            return
        headers = {name.lower(): value for name, value in self.headers.items()}
        behaviour = self.fake._record_and_next(RecordedRequest("POST", self.path, headers, body))
        if self.path not in (CHAT_PATH, EMBEDDINGS_PATH):
            self._send_error(404, f"unknown path {self.path}", "invalid_request_error")
            return
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the client gave up (timeout)
            self._respond(behaviour, body)

    def _respond(self, behaviour: Behaviour | None, body: dict[str, Any]) -> None:
        chat = self.path == CHAT_PATH
        if behaviour is None:
            if chat:
                self._send_error(500, "fake server: no scripted behaviour left", "server_error")
            else:
                self._send_embeddings(body)
            return
        if behaviour.kind == "status":
            self._send_status(behaviour)
        elif behaviour.kind == "answer" and not chat:
            self._send_raw(200, (behaviour.content or "").encode("utf-8"))
        elif behaviour.kind == "invalid_json":
            if chat:
                self._send_chat(body, Behaviour("answer", content=behaviour.content))
            else:
                self._send_raw(200, (behaviour.content or "").encode("utf-8"))
        else:
            if behaviour.kind == "delay":
                self.fake._stopping.wait(behaviour.delay_s)
            if chat:
                self._send_chat(body, behaviour)
            else:
                self._send_embeddings(body)

    def _send_chat(self, body: dict[str, Any], behaviour: Behaviour) -> None:
        message = {"role": "assistant", "content": behaviour.content, "refusal": behaviour.refusal}
        usage = {
            "prompt_tokens": behaviour.prompt_tokens,
            "completion_tokens": behaviour.completion_tokens,
            "total_tokens": behaviour.prompt_tokens + behaviour.completion_tokens,
        }
        if body.get("stream"):
            self._stream_chat(body, behaviour, usage)
            return
        self._send_json(
            200,
            {
                "id": "chatcmpl-fake",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body.get("model", ""),
                "choices": [
                    {
                        "index": 0,
                        "message": message,
                        "finish_reason": behaviour.finish_reason,
                        "logprobs": None,
                    }
                ],
                "usage": usage,
            },
        )

    def _stream_chat(self, body: dict[str, Any], behaviour: Behaviour, usage: dict[str, int]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        base = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": int(time.time()),
                "model": body.get("model", "")}  # fmt: skip

        def event(choices: list[dict[str, Any]], **extra: Any) -> None:
            self.wfile.write(f"data: {json.dumps({**base, 'choices': choices, **extra})}\n\n".encode())
            self.wfile.flush()

        text, pieces = behaviour.content or "", max(behaviour.pieces, 1)
        size = -(-len(text) // pieces) if text else 0
        event([{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}])
        if behaviour.refusal:
            event([{"index": 0, "delta": {"refusal": behaviour.refusal}, "finish_reason": None}])
        for number, start in enumerate(range(0, len(text), size or 1)):
            if number and behaviour.gap_s and self.fake._stopping.wait(behaviour.gap_s):
                return
            event([{"index": 0, "delta": {"content": text[start : start + size]}, "finish_reason": None}])
        event([{"index": 0, "delta": {}, "finish_reason": behaviour.finish_reason}])
        if (body.get("stream_options") or {}).get("include_usage"):
            event([], usage=usage)
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()

    def _send_embeddings(self, body: dict[str, Any]) -> None:
        texts = body.get("input", [])
        texts = [texts] if isinstance(texts, str) else list(texts)
        dim = int(body.get("dimensions") or DEFAULT_EMBEDDING_DIM)
        as_base64 = body.get("encoding_format") == "base64"
        data = []
        for index, text in enumerate(texts):
            vector = fake_embedding(str(text), dim)
            encoded: Any = vector
            if as_base64:
                encoded = base64.b64encode(struct.pack(f"<{dim}f", *vector)).decode("ascii")
            data.append({"object": "embedding", "index": index, "embedding": encoded})
        tokens = sum(len(WORD_RE.findall(str(text))) for text in texts)
        self._send_json(
            200,
            {
                "object": "list",
                "data": data,
                "model": body.get("model", ""),
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            },
        )

    def _send_status(self, behaviour: Behaviour) -> None:
        extra = {}
        if behaviour.retry_after_s is not None:
            extra["Retry-After"] = str(behaviour.retry_after_s)
        kinds = {401: "invalid_api_key", 429: "rate_limit_exceeded"}
        message = f"fake server: scripted HTTP {behaviour.status}"
        self._send_error(behaviour.status, message, kinds.get(behaviour.status, "server_error"), extra)

    def _send_error(self, status: int, message: str, code: str, extra: dict[str, str] | None = None) -> None:
        payload = {"error": {"message": message, "type": code, "param": None, "code": code}}
        self._send_json(status, payload, extra)

    def _send_json(self, status: int, payload: Any, extra: dict[str, str] | None = None) -> None:
        self._send_raw(status, json.dumps(payload).encode("utf-8"), extra)

    def _send_raw(self, status: int, data: bytes, extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)
