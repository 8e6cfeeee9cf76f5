"""One structured (JSON-schema) chat call to any OpenAI-compatible server, with errors sorted for retrying.

Pure Python (no Django): the caller builds an ``LLMConfig`` from settings and passes it in.

Choices:
- The SDK's own retries are off (``max_retries=0`` by default): the Celery tasks retry with backoff and
  jitter, and a phase that already succeeded is never redone, so retrying in two layers would only multiply
  the wait and the cost.
- One client per config per process (``make_client`` is an LRU cache keyed by the frozen config), so the HTTP
  connection pool is reused across calls. After a fork, call ``make_client.cache_clear()`` if a client was
  built in the parent (Celery builds them lazily inside tasks, so that does not happen in practice).
- ``base_url`` selects the server (OpenAI, vLLM, Ollama, llama.cpp). ``None`` leaves the choice to the SDK
  (``OPENAI_BASE_URL`` or api.openai.com). Local servers ignore the API key but the SDK requires one, so an
  empty key with a ``base_url`` becomes a placeholder.
- The schema sent is strict (``additionalProperties: false`` and every property required on every object,
  no ``default``s, ``$ref`` without siblings) but the answer is validated leniently (extra keys ignored,
  plain strings where the schema has enums) so one odd value can be dropped by the caller instead of
  failing the whole answer.
- Error mapping: timeouts, connection errors, 408/409/429, 5xx, a body or answer that is not JSON, an answer
  that does not match the schema, an empty answer → ``TransientAIError`` (429 as ``RateLimitedAIError`` with
  the server's Retry-After). Every other 4xx (400, 401, 403, 404, 422), a refusal by the model and SDK
  configuration errors → ``PermanentAIError``. A ``json`` answer wrapped in a Markdown code fence (servers
  that ignore ``response_format``) is unwrapped before parsing.
- ``stream=True`` (the service's default, OPENAI_STREAM) reads the answer as it is generated: the timeout
  then bounds the wait for the first token and between tokens, not the whole answer, so a slow CPU server
  that keeps producing tokens is never cut off mid-answer; ``max_call_s`` still bounds the whole call.
- Sampling parameters (temperature, max tokens) are not sent: reasoning models reject some of them and each
  server has its own defaults; add them per operation if a prompt needs them.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from functools import lru_cache
from typing import Any, Generic, TypeVar, cast

import openai
import pydantic

from memhq.ai.errors import PermanentAIError, TransientAIError
from memhq.ops import metrics

#: How many distinct configs keep a live client per process (one per model/server is the norm).
CLIENT_CACHE_SIZE = 8
#: Sent as the API key to a self-hosted server (``base_url`` set) when no key is configured.
LOCAL_SERVER_API_KEY = "not-needed"
#: 4xx statuses that are worth retrying (the SDK's own retry list): request timeout, conflict, rate limit.
TRANSIENT_CLIENT_STATUSES = frozenset({408, 409, 429})
#: Statuses from this one up are server errors, worth retrying.
FIRST_SERVER_ERROR_STATUS = 500
#: Keywords removed from the schema sent: strict mode does not accept them.
STRICT_DROPPED_KEYWORDS = frozenset({"default"})
#: How much of a bad answer is quoted in an error message.
ERROR_EXCERPT_CHARS = 200

_CODE_FENCE_RE = re.compile(r"^\s*```[a-zA-Z]*\s*\n(?P<body>.*?)\n?\s*```\s*$", re.DOTALL)

ModelT = TypeVar("ModelT", bound=pydantic.BaseModel)


@dataclass(frozen=True)
class LLMConfig:
    base_url: str | None  # e.g. "http://localhost:11434/v1"; None → OPENAI_BASE_URL or api.openai.com
    api_key: str = field(repr=False)
    model: str
    timeout_s: float  # per read: the whole answer without streaming, the gap between tokens with it
    max_retries: int = 0  # SDK-level retries; keep 0, the Celery task retries
    stream: bool = False  # read the answer as it is generated (see the module docstring)
    max_call_s: float | None = None  # with stream: the longest a whole call may take


class RateLimitedAIError(TransientAIError):
    """HTTP 429; ``retry_after_s`` is what the server asked for (None when it did not say)."""

    def __init__(self, message: str, *, retry_after_s: float | None = None) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


@dataclass(frozen=True)
class StructuredResult(Generic[ModelT]):
    parsed: ModelT
    prompt_tokens: int
    completion_tokens: int


@lru_cache(maxsize=CLIENT_CACHE_SIZE)
def make_client(config: LLMConfig) -> openai.OpenAI:
    """The process-wide client for ``config`` (built once, then reused)."""
    api_key = config.api_key or (LOCAL_SERVER_API_KEY if config.base_url else None)
    try:
        return openai.OpenAI(
            api_key=api_key,
            base_url=config.base_url,
            timeout=config.timeout_s,
            max_retries=config.max_retries,
        )
    except openai.OpenAIError as exc:  # e.g. no API key anywhere
        raise PermanentAIError(f"cannot configure the OpenAI client: {exc}") from exc


def translate_error(
    exc: Exception, *, operation: str, timeout_s: float | None = None
) -> TransientAIError | PermanentAIError:
    """Sort an SDK (or response-decoding) error into retryable or not, with a message saying which."""
    if isinstance(exc, openai.APITimeoutError):
        after = f" after {timeout_s:g} s" if timeout_s is not None else ""
        return TransientAIError(
            f"{operation}: timed out{after} (OPENAI_TIMEOUT_S; raise it for a slow model server)"
        )
    if isinstance(exc, openai.APIConnectionError):
        return TransientAIError(f"{operation}: connection error: {exc}")
    if isinstance(exc, openai.RateLimitError):
        return RateLimitedAIError(
            f"{operation}: rate limited (HTTP 429): {exc.message}", retry_after_s=_retry_after_s(exc)
        )
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        if status >= FIRST_SERVER_ERROR_STATUS or status in TRANSIENT_CLIENT_STATUSES:
            return TransientAIError(f"{operation}: server error (HTTP {status}): {exc.message}")
        return PermanentAIError(f"{operation}: rejected (HTTP {status} {type(exc).__name__}): {exc.message}")
    if isinstance(exc, openai.APIResponseValidationError | json.JSONDecodeError):
        return TransientAIError(f"{operation}: the server's response body is not valid: {exc}")
    return PermanentAIError(f"{operation}: {type(exc).__name__}: {exc}")


@contextmanager
def ai_errors(operation: str, *, timeout_s: float | None = None) -> Iterator[None]:
    """Re-raise SDK errors inside the block as ``TransientAIError`` / ``PermanentAIError``."""
    try:
        yield
    except (openai.OpenAIError, json.JSONDecodeError) as exc:
        raise translate_error(exc, operation=operation, timeout_s=timeout_s) from exc


def client_timeout_s(client: openai.OpenAI) -> float | None:
    """The client's overall timeout in seconds, when it is a plain number (it is: ``make_client``)."""
    return float(client.timeout) if isinstance(client.timeout, int | float) else None


def strict_json_schema(response_model: type[pydantic.BaseModel]) -> dict[str, Any]:
    """The model's JSON schema made acceptable to ``"strict": true`` structured outputs."""
    return cast(dict[str, Any], _strictify(response_model.model_json_schema()))


def structured_call(
    client: openai.OpenAI,
    *,
    model: str,
    messages: Sequence[Mapping[str, Any]],
    response_model: type[ModelT],
    schema_name: str,
    stream: bool = False,
    max_call_s: float | None = None,
) -> StructuredResult[ModelT]:
    """Send ONE chat completion constrained to ``response_model``'s schema and return it validated."""
    operation = f"{schema_name} call to {model}"
    response_format = {
        "type": "json_schema",
        "json_schema": {"name": schema_name, "schema": strict_json_schema(response_model), "strict": True},
    }
    request: dict[str, Any] = {
        "model": model,
        "messages": [dict(message) for message in messages],
        "response_format": response_format,
    }
    with ai_errors(operation, timeout_s=client_timeout_s(client)):
        if stream:
            answer = _streamed(client, request, operation, max_call_s)
        else:
            answer = _whole(client.chat.completions.create(**request), operation)
    if answer.refusal:
        raise PermanentAIError(f"{operation}: the model refused: {answer.refusal[:ERROR_EXCERPT_CHARS]}")
    answer_operation = f"{operation} (finish_reason={answer.finish_reason})"
    parsed = parse_answer(answer.content, response_model, operation=answer_operation)
    metrics.observe_llm(schema_name, answer.prompt_tokens, answer.completion_tokens)
    return StructuredResult(
        parsed=parsed, prompt_tokens=answer.prompt_tokens, completion_tokens=answer.completion_tokens
    )


@dataclass
class _Answer:
    content: str | None = None
    refusal: str | None = None
    finish_reason: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0


def _whole(completion: Any, operation: str) -> _Answer:
    usage = completion.usage
    if not completion.choices:
        raise TransientAIError(f"{operation}: the answer has no choices")
    choice = completion.choices[0]
    return _Answer(
        content=choice.message.content,
        refusal=choice.message.refusal,
        finish_reason=choice.finish_reason,
        prompt_tokens=usage.prompt_tokens if usage is not None else 0,
        completion_tokens=usage.completion_tokens if usage is not None else 0,
    )


def _streamed(
    client: openai.OpenAI, request: dict[str, Any], operation: str, max_call_s: float | None
) -> _Answer:
    """Read a streamed answer chunk by chunk (the client's timeout applies to each read)."""
    deadline = time.monotonic() + max_call_s if max_call_s else None
    answer, content, refusal, chunks = _Answer(), [], [], 0
    with client.chat.completions.create(
        **request, stream=True, stream_options={"include_usage": True}
    ) as events:
        for chunk in events:
            chunks += 1
            if deadline is not None and time.monotonic() > deadline:
                raise TransientAIError(
                    f"{operation}: still answering after {max_call_s:g} s (OPENAI_MAX_CALL_S; raise it for "
                    "a slow model server)"
                )
            if chunk.usage is not None:
                answer.prompt_tokens = chunk.usage.prompt_tokens
                answer.completion_tokens = chunk.usage.completion_tokens
            for choice in chunk.choices[:1]:
                content.append(choice.delta.content or "")
                refusal.append(getattr(choice.delta, "refusal", None) or "")
                answer.finish_reason = choice.finish_reason or answer.finish_reason
    if not chunks:
        raise TransientAIError(f"{operation}: the stream ended without an answer")
    answer.content, answer.refusal = "".join(content), "".join(refusal) or None
    return answer


def parse_answer(content: str | None, response_model: type[ModelT], *, operation: str) -> ModelT:
    """Validate a model's JSON answer; anything unusable is a ``TransientAIError`` saying why."""
    text = (content or "").strip()
    if not text:
        raise TransientAIError(f"{operation}: empty answer")
    fenced = _CODE_FENCE_RE.match(text)
    if fenced:
        text = fenced.group("body")
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise TransientAIError(
            f"{operation}: answer is not valid JSON ({exc}): {text[:ERROR_EXCERPT_CHARS]!r}"
        ) from exc
    try:
        return response_model.model_validate(data)
    except pydantic.ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise TransientAIError(
            f"{operation}: answer does not match the schema ({exc.error_count()} errors; first at "
            f"{where or '<root>'}: {first['msg']})"
        ) from exc


def _strictify(node: Any) -> Any:
    if isinstance(node, list):
        return [_strictify(item) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:  # strict mode rejects keywords next to $ref (pydantic puts descriptions there)
        return {"$ref": node["$ref"]}
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in STRICT_DROPPED_KEYWORDS:
            continue
        if key in ("properties", "$defs") and isinstance(value, dict):
            out[key] = {name: _strictify(sub) for name, sub in value.items()}
        else:
            out[key] = _strictify(value)
    if out.get("type") == "object" or "properties" in out:
        out["additionalProperties"] = False
        out["required"] = list(out.get("properties", {}))
    return out


def _retry_after_s(exc: openai.APIStatusError) -> float | None:
    """Seconds the server asked us to wait: ``retry-after-ms``, ``Retry-After`` seconds or HTTP date."""
    headers = exc.response.headers
    try:
        if (millis := headers.get("retry-after-ms")) is not None:
            return max(float(millis) / 1000.0, 0.0)
        value = headers.get("retry-after")
        if value is None:
            return None
        try:
            return max(float(value), 0.0)
        except ValueError:
            when = parsedate_to_datetime(value)
            return max((when - datetime.now(UTC)).total_seconds(), 0.0)
    except (TypeError, ValueError):
        return None
