"""Retries in one place, for the LLM provider and the trackers alike (tenacity runs the loop).

    policy = RetryPolicy(attempts=3, backoff_s=1.0, max_wait_s=120)
    answer = policy.call(send, what="github POST /repos/o/r/issues")   # send raises Transient to ask again
    reply = await policy.acall(ask, what="LLM judge (groundedness)")

An attempt that may succeed later raises :class:`Transient`, carrying the wait the remote asked for
(Retry-After); anything else it raises ends the call at once. The wait before a retry is the remote's ask
when it gave one, else ``backoff_s`` doubling with jitter. A remote that asks for longer than ``max_wait_s``
is not waited for (a rate limit of minutes would stall a run): the call gives up then, as it does after the
last attempt, with :class:`GaveUp`, whose one-line message says which.
"""

from __future__ import annotations

import email.utils
import logging
import random
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import timezone
from typing import Any, TypeVar

import tenacity

T = TypeVar("T")
_log = logging.getLogger("sumwatch.retry")


class Transient(Exception):
    """An attempt failed in a way another attempt may not: a rate limit, a 5xx, a timeout, a refused
    connection. ``problem`` is one line with no secret in it; ``wait_s`` is what the remote asked for."""

    def __init__(self, problem: str, wait_s: float | None = None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.wait_s = wait_s


class GaveUp(Exception):
    """No further attempt: all were spent, or the remote asked for a wait beyond the ceiling."""

    def __init__(self, message: str, last: Transient, attempts: int) -> None:
        super().__init__(message)
        self.last = last
        self.attempts = attempts


@dataclass(frozen=True)
class RetryPolicy:
    """How hard to try: ``attempts`` in all (1: no retry), the first backoff, the ceiling on any wait.

        RetryPolicy(attempts=4, backoff_s=0.5, max_wait_s=30).wait_s(2, None)   # 0.5..1.0 s
    """

    attempts: int = 4
    backoff_s: float = 0.5
    max_wait_s: float = 30.0
    setting: str = ""  # the variable that sets max_wait_s, named when a remote asks for longer

    def __post_init__(self) -> None:
        if self.attempts < 1 or self.backoff_s < 0 or self.max_wait_s < 0:
            raise ValueError("retry policy: attempts >= 1, backoff_s >= 0 and max_wait_s >= 0")

    def wait_s(self, retry: int, asked: float | None) -> float:
        """Seconds before retry number ``retry`` (1 for the first): the remote's ask, else the backoff
        doubling per retry, jittered down to half so clients that failed together do not retry together."""
        if asked is not None:
            return asked
        return min(self.max_wait_s, self.backoff_s * 2.0 ** (retry - 1) * random.uniform(0.5, 1.0))

    def call(self, attempt: Callable[[], T], *, what: str, sleep: Callable[[float], None] = time.sleep,
             on_retry: Callable[[Transient, float], None] | None = None) -> T:
        """``attempt()`` until it returns, raises something other than :class:`Transient`, or the policy
        gives up (:class:`GaveUp`). ``on_retry(problem, wait_s)`` runs before each wait."""
        tried = [0]

        def counted() -> T:
            tried[0] += 1
            return attempt()

        retrying = tenacity.Retrying(sleep=sleep, **self._tenacity(what, on_retry))
        try:
            return retrying(counted)
        except Transient as last:
            raise self._gave_up(what, last, tried[0]) from last

    async def acall(self, attempt: Callable[[], Awaitable[T]], *, what: str,
                    on_retry: Callable[[Transient, float], None] | None = None) -> T:
        """The async form of :meth:`call` (waits with ``asyncio.sleep``)."""
        tried = [0]

        async def counted() -> T:
            tried[0] += 1
            return await attempt()

        retrying = tenacity.AsyncRetrying(**self._tenacity(what, on_retry))
        try:
            return await retrying(counted)
        except Transient as last:
            raise self._gave_up(what, last, tried[0]) from last

    def _too_long(self, exc: BaseException | None) -> bool:
        return isinstance(exc, Transient) and exc.wait_s is not None and exc.wait_s > self.max_wait_s

    def _tenacity(self, what: str, on_retry: Callable[[Transient, float], None] | None) -> dict[str, Any]:
        def stop(state: tenacity.RetryCallState) -> bool:
            failed = state.outcome.exception() if state.outcome is not None else None
            return state.attempt_number >= self.attempts or self._too_long(failed)

        def wait(state: tenacity.RetryCallState) -> float:
            failed = state.outcome.exception() if state.outcome is not None else None
            return self.wait_s(state.attempt_number, failed.wait_s if isinstance(failed, Transient) else None)

        def before_sleep(state: tenacity.RetryCallState) -> None:
            failed = state.outcome.exception() if state.outcome is not None else None
            delay = state.next_action.sleep if state.next_action is not None else 0.0
            if isinstance(failed, Transient):
                _log.info("%s: %s; retry %d of %d in %.2fs", what, failed.problem, state.attempt_number,
                          self.attempts - 1, delay)
                if on_retry is not None:
                    on_retry(failed, delay)

        return {"stop": stop, "wait": wait, "retry": tenacity.retry_if_exception_type(Transient),
                "before_sleep": before_sleep, "reraise": True}

    def _gave_up(self, what: str, last: Transient, tried: int) -> GaveUp:
        if self._too_long(last):
            limit = f"{self.setting} ({self.max_wait_s:g}s)" if self.setting else f"the {self.max_wait_s:g}s limit"
            message = f"{last.problem} (Retry-After {last.wait_s:g}s is beyond {limit})"
        elif tried > 1:
            message = f"{last.problem} (gave up after {tried} attempts)"
        else:
            message = last.problem
        _log.warning("%s: %s", what, message)
        return GaveUp(message, last, tried)


def retry_after_s(headers: Mapping[str, str] | Any, now: float | None = None) -> float | None:
    """Seconds a remote asked us to wait: ``retry-after-ms``, ``Retry-After`` in seconds (fractions allowed)
    or as an HTTP date, else GitHub's ``x-ratelimit-remaining: 0`` with ``x-ratelimit-reset`` (epoch seconds).
    None when the headers do not say.

        retry_after_s({"retry-after": "2"})      # 2.0
    """
    if not headers:
        return None
    clock = time.time() if now is None else now
    try:
        millis, value = headers.get("retry-after-ms"), headers.get("retry-after")
        remaining, reset = headers.get("x-ratelimit-remaining"), headers.get("x-ratelimit-reset")
    except (AttributeError, TypeError):
        return None
    if millis is not None:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    if value:
        try:
            return max(0.0, float(value))
        except ValueError:
            pass
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            when = None
        if when is not None:
            if when.tzinfo is None:  # HTTP dates are GMT
                when = when.replace(tzinfo=timezone.utc)
            return max(0.0, when.timestamp() - clock)
    if remaining == "0" and reset:
        try:
            return max(0.0, float(reset) - clock)
        except ValueError:
            return None
    return None
