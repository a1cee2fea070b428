"""What every model call through litellm needs, whoever makes it (the cluster namer, the LLM judge).

    connection = LLMConnection("openai/gpt-4o-mini", api_key=key)   # model, endpoint, retries, concurrency
    litellm = litellm_module()                    # imported once, kept off the network
    retryable(exc), retry_after_s(exc)            # should we try again, and did the provider say when
    scrub(describe_error(exc), api_key)           # a short reason safe to log
    connection.retry_delay(attempt, exc)          # how long to wait before trying again
    obj, problems = json_object(reply_text)       # a JSON object, fences allowed, or what is wrong

This lives in ``clustering`` because ``monitor`` may import ``clustering`` but not the other way round.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import os
import random
import re
import time
from dataclasses import KW_ONLY, dataclass, field
from typing import Any

_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.S | re.I)
_KEY_SHAPES = re.compile(r"(?i)(bearer\s+|\bsk-|\bapi[_-]?key[\"'=:\s]+)[A-Za-z0-9._\-]{6,}")
_TRANSIENT = ("RateLimitError", "Timeout", "APIConnectionError", "InternalServerError", "ServiceUnavailableError",
              "BadGatewayError")

_litellm: Any = None


@dataclass(frozen=True)
class LLMConnection:
    """Which model, where, and how hard to try: one value for every caller of the model (the LLM judge and
    the cluster namer), built from settings in one place, so both reach a provider the same way.

        LLMConnection("openai/gpt-4o-mini", api_key=key)
        LLMConnection("ollama/llama3.1", "http://127.0.0.1:11434", concurrency=4)
        connection.retry_delay(attempt, exc)      # seconds to wait before the next try

    The defaults are the judge's, which the namer used to undercut (2 retries, backoff capped at 10 s, 8 in
    flight). The judge is the heavy user: the sampler sends it every scored span, and each transient error
    it gives up on becomes an error verdict to redo later. The namer makes one request per new issue per
    scheduled run, so 16 in flight instead of 8 costs it nothing, and a run that waits up to 30 s for a rate
    limit to clear is better than one that falls back to keyword names. Three retries from half a second,
    doubling with jitter, cover short 429 and 5xx bursts; the 30 s ceiling (Retry-After included) keeps a
    provider that asks for minutes from stalling a run. ``timeout_s`` and ``concurrency`` match the
    settings' defaults (``SUMWATCH_LLM_TIMEOUT_S``, ``SUMWATCH_LLM_CONCURRENCY``).
    """

    model: str
    api_base: str | None = None
    api_key: str | None = field(default=None, repr=False)
    _: KW_ONLY
    timeout_s: float = 30.0  # per request
    max_retries: int = 3  # for 429, 5xx, timeouts and connection errors
    backoff_s: float = 0.5  # the first retry waits about this long, doubling each time (with jitter)
    max_backoff_s: float = 30.0  # ceiling on any wait, Retry-After included
    concurrency: int = 16  # requests in flight at once, per judge or namer

    def __post_init__(self) -> None:
        if not self.model:
            raise ValueError("an LLM connection needs a model, e.g. 'openai/gpt-4o-mini'")
        if self.concurrency < 1 or self.max_retries < 0 or self.timeout_s <= 0:
            raise ValueError("LLM connection: concurrency >= 1, max_retries >= 0 and timeout_s > 0")

    def retry_delay(self, attempt: int, exc: BaseException) -> float:
        """Seconds to wait after failed attempt ``attempt`` (0 for the first): what the provider asked for
        (Retry-After), else ``backoff_s`` doubling per attempt with jitter; never above ``max_backoff_s``."""
        asked = retry_after_s(exc)
        if asked is None:
            return min(self.max_backoff_s, self.backoff_s * 2.0 ** attempt * random.uniform(0.5, 1.0))
        return min(self.max_backoff_s, asked)


def litellm_module() -> Any:
    """litellm, imported on first use (it takes seconds) and kept from reaching the network on import."""
    global _litellm
    if _litellm is None:
        # Without this, importing litellm downloads its price table from GitHub; the copy it ships is
        # enough, and a monitor must not call out anywhere but its configured model endpoint.
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        import litellm

        litellm.suppress_debug_info = True  # no help banner printed to stdout on every provider error
        _litellm = litellm
    return _litellm


def clip(text: str, limit: int) -> str:
    """Whitespace collapsed, cut to ``limit`` characters with an ellipsis."""
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def retryable(exc: BaseException) -> bool:
    """Rate limits, timeouts, connection errors and 5xx: worth another try."""
    litellm = litellm_module()
    transient = tuple(t for t in (getattr(litellm, name, None) for name in _TRANSIENT) if isinstance(t, type))
    if isinstance(exc, (*transient, asyncio.TimeoutError, ConnectionError)):
        return True
    status = getattr(exc, "status_code", None)
    return isinstance(status, int) and (status in (408, 409, 429) or status >= 500)


def retry_after_s(exc: BaseException) -> float | None:
    """Seconds the provider asked us to wait (retry-after-ms, or Retry-After in seconds or as a date)."""
    for headers in (getattr(exc, "litellm_response_headers", None), getattr(exc, "headers", None),
                    getattr(getattr(exc, "response", None), "headers", None)):
        if not headers:
            continue
        try:
            millis = headers.get("retry-after-ms")
            if millis is not None:
                return max(0.0, float(millis) / 1000)
            value = headers.get("retry-after")
        except (AttributeError, TypeError, ValueError):
            continue
        if value is None:
            continue
        try:
            return max(0.0, float(value))
        except ValueError:
            try:
                return max(0.0, email.utils.parsedate_to_datetime(value).timestamp() - time.time())
            except (TypeError, ValueError, IndexError):
                continue
    return None


def describe_error(exc: BaseException) -> str:
    status = getattr(exc, "status_code", None)
    return f"{type(exc).__name__}{f' ({status})' if status else ''}: {str(exc).removeprefix('litellm.')}"


def scrub(text: str, secret: str | None, limit: int = 300) -> str:
    """``text`` without the key, or anything shaped like one, and short enough for a log line."""
    if secret and len(secret) >= 4:
        text = text.replace(secret, "***")
    return clip(_KEY_SHAPES.sub(lambda m: m.group(1) + "***", text), limit)


def json_object(content: str | None) -> tuple[dict[str, Any] | None, list[str]]:
    """The reply as a JSON object (inside a ```json fence or not), or what is wrong with it, phrased for a
    correction request."""
    if not content or not content.strip():
        return None, ["the reply was empty"]
    fenced = _FENCE.match(content)
    try:
        obj = json.loads(fenced.group(1) if fenced else content)
    except json.JSONDecodeError as exc:
        return None, [f"the reply is not valid JSON ({exc.msg} at character {exc.pos})"]
    if not isinstance(obj, dict):
        return None, ["the reply is not a JSON object"]
    return obj, []


@dataclass(frozen=True)
class PingResult:
    """One small call to the configured model: what answered, how fast, at what cost, or why it failed."""

    model: str
    ok: bool
    latency_ms: float
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    reply: str = ""
    error: str = ""


_CONNECTION_FAILURES = ("APIConnectionError", "ConnectError", "ConnectTimeout", "ConnectionRefusedError")


def connection_failure(exc: BaseException) -> str | None:
    """The underlying reason when ``exc`` means the model's endpoint could not be reached at all (litellm
    reports a refused connection as a 500 "Connection error"), else None."""
    seen: BaseException | None = exc
    for _ in range(10):  # the cause chain: litellm -> openai -> httpx -> OSError
        if seen is None:
            break
        if isinstance(seen, ConnectionError) or type(seen).__name__ in _CONNECTION_FAILURES:
            inner = seen
            while inner.__cause__ is not None or inner.__context__ is not None:
                inner = inner.__cause__ or inner.__context__  # type: ignore[assignment]
            return f"{type(inner).__name__}: {inner}" if str(inner) else type(inner).__name__
        seen = seen.__cause__ or seen.__context__
    return "Connection error" if "connection error" in str(exc).lower() else None


def ping(connection: LLMConnection) -> PingResult:
    """Ask the model for one word, once (no retries), and say plainly what happened.

        ping(LLMConnection("openai/gpt-4o-mini", api_key=key))   # PingResult(ok=True, latency_ms=412.0, ...)
    """
    litellm = litellm_module()
    started = time.perf_counter()
    try:
        response = litellm.completion(
            model=connection.model, messages=[{"role": "user", "content": "Reply with the single word OK."}],
            api_base=connection.api_base, api_key=connection.api_key, timeout=connection.timeout_s,
            max_tokens=5, temperature=0, max_retries=0, num_retries=0, drop_params=True)
    except Exception as exc:  # whatever the provider or the network did: one clear line, no traceback
        latency = (time.perf_counter() - started) * 1000
        unreachable = connection_failure(exc)
        text = (f"cannot connect to {connection.api_base or 'the provider'} (connection refused or unreachable): "
                f"{unreachable}" if unreachable else describe_error(exc))
        return PingResult(connection.model, False, round(latency, 1), error=scrub(text, connection.api_key))
    latency = (time.perf_counter() - started) * 1000
    usage = getattr(response, "usage", None)
    try:
        cost = float(litellm.completion_cost(completion_response=response) or 0.0)
    except Exception:  # a model litellm has no price for costs what it costs: unknown, shown as 0
        cost = 0.0
    reply = (response.choices[0].message.content if response.choices else "") or ""
    return PingResult(connection.model, True, round(latency, 1), int(getattr(usage, "prompt_tokens", 0) or 0),
                      int(getattr(usage, "completion_tokens", 0) or 0), cost, clip(reply, 80))
