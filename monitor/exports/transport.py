"""HTTP to trackers: paced, retried with backoff (Retry-After wins), secrets scrubbed from every error.

    http = Http("github", config, headers={"authorization": "Bearer ..."})
    answer = http.request("POST", url, json=body, creates=True)   # paced; a timeout raises Uncertain
    answer = http.request("PATCH", url, json=body)                # idempotent: a timeout is retried

429, 5xx, refused connections and (for idempotent requests) timeouts are retried up to
``SUMWATCH_EXPORT_MAX_ATTEMPTS``. 400, 401, 403, 404 and 422 are permanent (:class:`PermanentError`): retrying
cannot help. A request that creates something and timed out may have been stored by the tracker, so it is
never simply sent again: :class:`Uncertain` tells the caller to look for it first.
"""

from __future__ import annotations

import email.utils
import logging
import threading
import time
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

import httpx

from .config import ExportConfig

_log = logging.getLogger("sumwatch.exports")
PERMANENT = frozenset({400, 401, 403, 404, 405, 409, 410, 413, 422})


class ExportError(RuntimeError):
    """A tracker request that did not succeed; the message holds no secret."""


class PermanentError(ExportError):
    """The tracker refused the request (auth, missing project, invalid payload): not retried."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class TransientError(ExportError):
    """Still failing after every attempt (rate limited, unavailable): tried again on the next export."""


class Uncertain(ExportError):
    """A create timed out: the tracker may have stored it."""


def scrubber(config: ExportConfig) -> Callable[[str], str]:
    secrets = config.secrets()

    def scrub(text: str) -> str:
        for secret in secrets:
            text = text.replace(secret, "[secret]")
        return text
    return scrub


def retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds a Retry-After header asks for: a number (fractions allowed) or an HTTP date."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def rate_limit_wait(headers: httpx.Headers, now: float | None = None) -> float | None:
    """Seconds a rate-limited answer asks for: Retry-After, else GitHub's ``x-ratelimit-remaining: 0`` with
    ``x-ratelimit-reset`` (epoch seconds; GitHub answers 403 or 429 so when a limit is hit)."""
    wait = retry_after(headers.get("retry-after"), now)
    if wait is None and headers.get("x-ratelimit-remaining") == "0":
        try:
            wait = max(0.0, float(headers.get("x-ratelimit-reset", "")) - (time.time() if now is None else now))
        except ValueError:
            wait = None
    return wait


class _ScrubLogs(logging.Filter):
    """Takes secrets out of httpx's own log lines (it logs each request's URL, and a webhook URL is a secret)."""

    def __init__(self) -> None:
        super().__init__()
        self.secrets: set[str] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage()
        if any(secret in text for secret in self.secrets):
            for secret in sorted(self.secrets, key=len, reverse=True):
                text = text.replace(secret, "[secret]")
            record.msg, record.args = text, ()
        return True


_log_scrubber = _ScrubLogs()
logging.getLogger("httpx").addFilter(_log_scrubber)


class Pacer:
    """At most ``per_minute`` requests a minute, evenly spaced (None: no limit)."""

    def __init__(self, per_minute: float | None) -> None:
        self.interval = 60.0 / per_minute if per_minute else 0.0
        self._next = 0.0
        self._lock = threading.Lock()

    def wait(self, sleep: Callable[[float], None] = time.sleep) -> None:
        if not self.interval:
            return
        with self._lock:
            now = time.monotonic()
            at = max(now, self._next)
            self._next = at + self.interval
        if at > now:
            sleep(at - now)


class Http:
    """One tracker's HTTP client: auth headers, pacing of content-creating requests, retries, counters."""

    def __init__(self, target: str, config: ExportConfig, *, headers: dict[str, str] | None = None,
                 auth: httpx.Auth | tuple[str, str] | None = None, default_pace: float | None = None) -> None:
        self.target, self.config = target, config
        self._client = httpx.Client(headers={"user-agent": "sumwatch-exports", **(headers or {})}, auth=auth,
                                    timeout=config.export_timeout_s, follow_redirects=False)
        self._pacer = Pacer(config.pace().get(target, default_pace))
        self._scrub = scrubber(config)
        _log_scrubber.secrets.update(config.secrets())
        self.requests = 0
        self.retries = 0

    def close(self) -> None:
        self._client.close()

    def request(self, method: str, url: str, *, creates: bool = False, ok: tuple[int, ...] = (),
                **kw: Any) -> httpx.Response:
        """The tracker's answer (2xx, or a status in ``ok``); raises PermanentError, TransientError or Uncertain."""
        attempts = self.config.export_max_attempts
        what = f"{self.target} {method} {self._path(url)}"
        for attempt in range(1, attempts + 1):
            if creates:
                self._pacer.wait()
            self.requests += 1
            wait: float | None = None
            try:
                answer = self._client.request(method, url, **kw)
            except (httpx.ConnectError, httpx.ConnectTimeout) as exc:  # nothing reached the tracker: retry
                problem = f"{what}: {self._scrub(type(exc).__name__ + ': ' + str(exc))}"
            except (httpx.TimeoutException, httpx.TransportError) as exc:
                # sent, and the answer lost: a create may have been stored, so it is looked up, not resent
                if creates:
                    raise Uncertain(f"{what}: no answer within {self.config.export_timeout_s:g}s"
                                    if isinstance(exc, httpx.TimeoutException) else
                                    f"{what}: the connection dropped before the answer") from None
                problem = f"{what}: {self._scrub(type(exc).__name__ + ': ' + str(exc)) or 'timed out'}"
            else:
                if answer.is_success or answer.status_code in ok:
                    return answer
                status = answer.status_code
                reason = self._reason(answer)
                limited = rate_limit_wait(answer.headers)
                if status in PERMANENT and not (status == 403 and limited is not None):
                    raise PermanentError(f"{what}: {status} {reason}".rstrip(), status)
                problem = f"{what}: {status} {reason}".rstrip()
                wait = limited
                if wait is not None and wait > self.config.export_max_wait_s:
                    raise TransientError(f"{problem} (Retry-After {wait:g}s is beyond SUMWATCH_EXPORT_MAX_WAIT_S)")
            if attempt == attempts:
                raise TransientError(f"{problem} (gave up after {attempts} attempts)")
            backoff = self.config.export_backoff_s * 2 ** (attempt - 1)
            delay = max(backoff, wait or 0.0)
            self.retries += 1
            _log.info("%s; retry %d of %d in %.2fs", problem, attempt, attempts - 1, delay)
            time.sleep(delay)
        raise AssertionError("unreachable")

    def _path(self, url: str) -> str:
        # webhook URLs are secrets; only API paths of configured base URLs are named
        if self._scrub(url) != url:
            return "[webhook]"
        return httpx.URL(url).path

    def _reason(self, answer: httpx.Response) -> str:
        text = " ".join(answer.text.split())[:200]
        return self._scrub(text)


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
