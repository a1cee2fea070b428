"""The one LLM client: the judge, the cluster namer and ``sumwatch doctor`` reach the model through it.

    connection = LLMConnection("openai/gpt-4o-mini", api_key=key)      # model, endpoint, retries, concurrency
    model = LitellmModel(connection, max_spend_usd=5.0)
    answer = await model.ask_json(messages, read=parse, correction="... {problems} ...")
    model.calls, model.spent_usd
    ping(connection)                                                    # one small call, no retries

``LitellmModel`` is the :class:`sumwatch.clustering.json_model.JsonModel` that ``clustering`` declares:
at most ``connection.concurrency`` questions in flight, retries through :class:`RetryPolicy` (Retry-After
honoured), one repair turn for an unusable reply, a spend cap, and error texts that say what happened
("connection refused" is not "500") with the key scrubbed.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import time
import weakref
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass, field, replace
from typing import Any, TypeVar
from urllib.parse import urlsplit

from sumwatch.clustering.json_model import JsonAnswer, Message
from sumwatch.clustering.name import clip

from .retry import GaveUp, RetryPolicy, Transient, retry_after_s
from .scrub import Scrubber

T = TypeVar("T")

_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.S | re.I)
_TRANSIENT = ("RateLimitError", "Timeout", "APIConnectionError", "InternalServerError", "ServiceUnavailableError",
              "BadGatewayError")
_CONNECTION_FAILURES = ("APIConnectionError", "ConnectError", "ConnectTimeout", "ConnectionRefusedError")

_litellm: Any = None
# how an answer refused by the spend cap begins its error: the judge cascade tells it from a failed request
SPEND_CAP_REACHED = "spend cap reached"


@dataclass(frozen=True)
class LLMConnection:
    """Which model, where, and how hard to try: one value for every caller of the model, built from settings
    in one place (``scoring.judges.llm_connection``), so the judge and the namer reach a provider the same way.

        LLMConnection("openai/gpt-4o-mini", api_key=key)
        LLMConnection("ollama/llama3.1", "http://127.0.0.1:11434", concurrency=4)
        connection.retry_policy                    # how the client retries (see RetryPolicy)

    The judge is the heavy user: the sampler sends it every scored span, and each transient error it gives up
    on becomes an error verdict to redo later. Three retries from half a second, doubling with jitter, cover
    short 429 and 5xx bursts; a provider asking for more than ``max_backoff_s`` (Retry-After) is not waited
    for, so it cannot stall a run. ``timeout_s`` and ``concurrency`` match the settings' defaults
    (``SUMWATCH_LLM_TIMEOUT_S``, ``SUMWATCH_LLM_CONCURRENCY``).
    """

    model: str
    api_base: str | None = None
    api_key: str | None = field(default=None, repr=False)
    _: KW_ONLY
    timeout_s: float = 30.0  # per request
    max_retries: int = 3  # for 429, 5xx, timeouts and connection errors
    backoff_s: float = 0.5  # the first retry waits about this long, doubling each time (with jitter)
    max_backoff_s: float = 30.0  # ceiling on any wait; a longer Retry-After ends the retries
    concurrency: int = 16  # requests in flight at once, per client

    def __post_init__(self) -> None:
        if not self.model:
            raise ValueError("an LLM connection needs a model, e.g. 'openai/gpt-4o-mini'")
        if self.concurrency < 1 or self.max_retries < 0 or self.timeout_s <= 0:
            raise ValueError("LLM connection: concurrency >= 1, max_retries >= 0 and timeout_s > 0")

    @property
    def retry_policy(self) -> RetryPolicy:
        return RetryPolicy(attempts=self.max_retries + 1, backoff_s=self.backoff_s, max_wait_s=self.max_backoff_s)


def litellm_module() -> Any:
    """litellm, imported on first use (it takes seconds) and kept from reaching the network on import."""
    global _litellm
    if _litellm is None:
        # Without this, importing litellm downloads its price table from GitHub; the copy it ships is
        # enough, and a monitor must not call out anywhere but its configured model endpoint.
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        import litellm  # noqa: PLC0415 - heavy: loaded on first use

        litellm.suppress_debug_info = True  # no help banner printed to stdout on every provider error
        _litellm = litellm
    return _litellm


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


# -- what went wrong ----------------------------------------------------------------------------------------

def retryable(exc: BaseException) -> bool:
    """Rate limits, timeouts, connection errors and 5xx: worth another try."""
    litellm = litellm_module()
    transient = tuple(t for t in (getattr(litellm, name, None) for name in _TRANSIENT) if isinstance(t, type))
    if isinstance(exc, (*transient, asyncio.TimeoutError, ConnectionError)):
        return True
    status = getattr(exc, "status_code", None)
    return isinstance(status, int) and (status in (408, 409, 429) or status >= 500)


def _provider_wait(exc: BaseException) -> float | None:
    for headers in (getattr(exc, "litellm_response_headers", None), getattr(exc, "headers", None),
                    getattr(getattr(exc, "response", None), "headers", None)):
        wait = retry_after_s(headers)
        if wait is not None:
            return wait
    return None


def _unreachable(exc: BaseException) -> BaseException | None:
    """The innermost cause when ``exc`` means the endpoint could not be reached at all (litellm reports a
    refused connection as a 500 "Connection error"), else None."""
    seen: BaseException | None = exc
    for _ in range(10):  # the cause chain: litellm -> openai -> httpx -> OSError
        if seen is None:
            return None
        if isinstance(seen, ConnectionError) or type(seen).__name__ in _CONNECTION_FAILURES:
            inner = seen
            while (below := inner.__cause__ or inner.__context__) is not None:
                inner = below
            return inner
        seen = seen.__cause__ or seen.__context__
    return None


def describe_error(exc: BaseException, api_base: str | None = None) -> str:
    """One line saying what happened: a refused or unreachable endpoint as such, else the error's kind,
    its HTTP status when the provider answered, and its message.

        describe_error(exc, "http://127.0.0.1:9/v1")   # 'connection refused by 127.0.0.1:9 (APIConnectionError)'
    """
    where = _endpoint(api_base)
    inner = _unreachable(exc)
    if inner is not None:
        if isinstance(inner, ConnectionRefusedError) or "refused" in str(inner).lower():
            return f"connection refused by {where} ({type(exc).__name__})"
        reason = str(inner) or type(inner).__name__
        return f"cannot connect to {where}: {reason} ({type(exc).__name__})"
    if isinstance(exc, (asyncio.TimeoutError, TimeoutError)) and not str(exc):
        return f"Timeout: no answer from {where}"
    status = getattr(exc, "status_code", None)
    return f"{type(exc).__name__}{f' ({status})' if status else ''}: {str(exc).removeprefix('litellm.')}"


def _endpoint(api_base: str | None) -> str:
    if not api_base:
        return "the provider"
    parts = urlsplit(api_base)
    return parts.netloc.rpartition("@")[2] or api_base


# -- the client ---------------------------------------------------------------------------------------------

class LitellmModel:
    """The model behind a connection, through litellm; see the module docstring. Counters run over the
    client's life: ``calls`` (requests sent), ``input_tokens``, ``output_tokens``, ``spent_usd``.

    Costs come from litellm's price table unless ``input_cost_per_mtok`` / ``output_cost_per_mtok`` (USD per
    million tokens) are given; a model litellm does not know costs 0. Once ``max_spend_usd`` is reached no
    request is sent."""

    def __init__(self, connection: LLMConnection, *, name: str = "LLM", temperature: float = 0.0,
                 max_spend_usd: float | None = None, input_cost_per_mtok: float | None = None,
                 output_cost_per_mtok: float | None = None) -> None:
        self.connection = connection
        self.name = name  # who asks, in log lines: "LLM judge", "LLM namer"
        self.temperature = temperature
        self.max_spend_usd = max_spend_usd
        self.calls = 0
        self.input_tokens = 0
        self.output_tokens = 0
        self.spent_usd = 0.0
        self.scrub = Scrubber([connection.api_key])
        self._semaphores: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
            weakref.WeakKeyDictionary())
        self._prices = self._own_prices(input_cost_per_mtok, output_cost_per_mtok)

    @property
    def model(self) -> str:
        return self.connection.model

    async def ask_json(self, messages: list[Message], read: Callable[[dict[str, Any]], tuple[T | None, list[str]]],
                       correction: str, *, what: str = "") -> JsonAnswer[T]:
        """``messages`` sent until a reply's JSON object passes ``read``: transient errors retried, one repair
        turn (``correction`` with ``{problems}`` filled in), then an answer with ``error`` set."""
        tally = _Tally()
        async with self._semaphore():
            conversation, repaired = messages, False
            while True:
                try:
                    content = await self._complete_with_retries(conversation, tally, what)
                except _Stop as stop:
                    return tally.answer(None, error=stop.reason)
                obj, problems = json_object(content)
                value: T | None = None
                if obj is not None:
                    value, problems = read(obj)
                if value is not None and not problems:
                    return tally.answer(value, content=content)
                if repaired:
                    return tally.answer(None, error=clip("malformed reply after a correction: "
                                                         + "; ".join(problems[:3]), 300))
                repaired = True
                conversation = [*messages, {"role": "assistant", "content": content},
                                {"role": "user", "content": correction.replace("{problems}",
                                                                               "; ".join(problems[:5]))}]

    async def complete(self, messages: list[Message], *, max_tokens: int | None = None, what: str = "") -> str:
        """The reply's text, retried like :meth:`ask_json`; raises :class:`RuntimeError` with the reason."""
        tally = _Tally()
        async with self._semaphore():
            try:
                return await self._complete_with_retries(messages, tally, what, json_reply=False,
                                                         max_tokens=max_tokens)
            except _Stop as stop:
                raise RuntimeError(stop.reason) from None

    # -- internals

    def _semaphore(self) -> asyncio.Semaphore:
        # one per event loop: a sync wrapper and the cascade each run a loop of their own
        loop = asyncio.get_running_loop()
        semaphore = self._semaphores.get(loop)
        if semaphore is None:
            semaphore = self._semaphores[loop] = asyncio.Semaphore(self.connection.concurrency)
        return semaphore

    async def _complete_with_retries(self, messages: list[Message], tally: _Tally, what: str, *,
                                     json_reply: bool = True, max_tokens: int | None = None) -> str:
        async def attempt() -> str:
            if self.max_spend_usd is not None and self.spent_usd >= self.max_spend_usd:
                raise _Stop(f"{SPEND_CAP_REACHED} (spent ${self.spent_usd:.4f} of ${self.max_spend_usd:.4f})")
            self.calls += 1
            tally.calls += 1
            try:
                return await self._complete(messages, tally, json_reply, max_tokens)
            except Exception as exc:  # whatever the provider or the network did: classified, one line
                reason = clip(self.scrub(describe_error(exc, self.connection.api_base)), 300)
                if retryable(exc):
                    raise Transient(reason, _provider_wait(exc)) from exc
                raise _Stop(reason) from exc

        try:
            return await self.connection.retry_policy.acall(attempt, what=f"{what or self.name} ({self.model})")
        except GaveUp as gave_up:
            raise _Stop(str(gave_up)) from gave_up

    async def _complete(self, messages: list[Message], tally: _Tally, json_reply: bool,
                        max_tokens: int | None) -> str:
        c = self.connection
        options: dict[str, Any] = {"response_format": {"type": "json_object"}} if json_reply else {}
        if max_tokens is not None:
            options["max_tokens"] = max_tokens
        # Retries are the policy's, so litellm's and the OpenAI client's own are off. Prices are not passed to
        # litellm: it would write them into its process-wide price table, where other clients would find them.
        call = litellm_module().acompletion(
            model=c.model, messages=messages, temperature=self.temperature, api_base=c.api_base, api_key=c.api_key,
            timeout=c.timeout_s, max_retries=0, num_retries=0, drop_params=True, **options)
        # litellm enforces the timeout; this outer one only guards against a client that hangs anyway
        response = await asyncio.wait_for(call, timeout=c.timeout_s + 5)
        usage = getattr(response, "usage", None)
        input_tokens = int(getattr(usage, "prompt_tokens", 0) or 0)
        output_tokens = int(getattr(usage, "completion_tokens", 0) or 0)
        cost = self._cost(response, input_tokens, output_tokens)
        tally.input_tokens += input_tokens
        tally.output_tokens += output_tokens
        tally.cost_usd += cost
        self.input_tokens += input_tokens
        self.output_tokens += output_tokens
        self.spent_usd += cost
        content = response.choices[0].message.content if response.choices else None
        return content or ""

    def _own_prices(self, input_per_mtok: float | None, output_per_mtok: float | None) -> tuple[float, float] | None:
        """Per-token prices from the options, (0, 0) for a model litellm cannot price, or None to let litellm's
        table price each reply (it knows tiers that flat prices would miss)."""
        if input_per_mtok is not None or output_per_mtok is not None:
            return (input_per_mtok or 0.0) / 1e6, (output_per_mtok or 0.0) / 1e6
        try:  # importing here also keeps litellm's import time out of the first request's latency
            litellm_module().cost_per_token(model=self.model, prompt_tokens=1, completion_tokens=1)
            return None
        except Exception:  # litellm raises for models missing from its table
            return 0.0, 0.0

    def _cost(self, response: Any, input_tokens: int, output_tokens: int) -> float:
        if self._prices is not None:
            return input_tokens * self._prices[0] + output_tokens * self._prices[1]
        try:
            computed = response._hidden_params.get("response_cost")
        except Exception:  # the reply's private metadata changed shape: price it ourselves
            computed = None
        if isinstance(computed, (int, float)):
            return float(computed)  # litellm priced the reply already
        try:
            prompt_cost, completion_cost = litellm_module().cost_per_token(
                model=self.model, prompt_tokens=input_tokens, completion_tokens=output_tokens)
            return float(prompt_cost) + float(completion_cost)
        except Exception:
            return 0.0

    def __repr__(self) -> str:
        c = self.connection
        return (f"LitellmModel(name={self.name!r}, model={c.model!r}, api_base={c.api_base!r}, "
                f"concurrency={c.concurrency})")


class _Stop(Exception):
    """No reply this time: not retryable, retries spent, or the spend cap; ``reason`` is one line."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class _Tally:
    """What one question has used so far."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0

    def answer(self, value: T | None, *, content: str = "", error: str = "") -> JsonAnswer[T]:
        return JsonAnswer(value, content, error, self.calls, self.input_tokens, self.output_tokens,
                          round(self.cost_usd, 8))


# -- doctor's first check -----------------------------------------------------------------------------------

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


def ping(connection: LLMConnection) -> PingResult:
    """Ask the model for one word, once (no retries), and say plainly what happened.

        ping(LLMConnection("openai/gpt-4o-mini", api_key=key))   # PingResult(ok=True, latency_ms=412.0, ...)
    """
    once = LitellmModel(_no_retries(connection), name="doctor")
    started = time.perf_counter()
    try:
        reply = asyncio.run(once.complete([{"role": "user", "content": "Reply with the single word OK."}],
                                          max_tokens=5))
    except RuntimeError as exc:
        return PingResult(connection.model, False, _since(started), error=str(exc))
    return PingResult(connection.model, True, _since(started), once.input_tokens, once.output_tokens,
                      once.spent_usd, clip(reply, 80))


def _no_retries(connection: LLMConnection) -> LLMConnection:
    return replace(connection, max_retries=0, concurrency=1)


def _since(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 1)
