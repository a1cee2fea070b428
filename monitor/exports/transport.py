"""HTTP to trackers: paced, retried by the shared RetryPolicy (Retry-After wins), secrets scrubbed from every
error and from httpx's log lines.

    http = Http("github", config, headers={"authorization": "Bearer ..."})
    answer = http.request("POST", url, json=body, creates=True)   # paced; a timeout raises Uncertain
    answer = http.request("PATCH", url, json=body)                # idempotent: a timeout is retried

429, 5xx, refused connections and (for idempotent requests) timeouts are retried up to
``SUMWATCH_EXPORT_MAX_ATTEMPTS``, and so is GitHub's rate-limit 403. Other 400, 401, 403, 404 and 422 answers
are permanent (:class:`PermanentError`): retrying cannot help. A request that creates something and timed out
may have been stored by the tracker, so it is never simply sent again: :class:`Uncertain` tells the caller to
look for it first.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

import httpx

from ..remote.retry import GaveUp, RetryPolicy, Transient, retry_after_s
from ..remote.scrub import Scrubber
from .config import ExportConfig, reveal

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


def scrubber(config: ExportConfig) -> Scrubber:
    """Takes the configured secrets out of text, in every form a tracker may echo them (Jira's and Langfuse's Basic
    credentials in base64, a webhook URL's path) along with anything shaped like a secret."""
    return Scrubber(config.secrets(), basic=[(config.jira_email or "", reveal(config.jira_token)),
                                             (config.langfuse_public_key, reveal(config.langfuse_secret_key))])


class _ScrubLogs(logging.Filter):
    """Takes secrets out of httpx's own log lines (it logs each request's URL, and a webhook URL is a secret)."""

    def __init__(self) -> None:
        super().__init__()
        self.scrub = Scrubber()

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage()
        clean = self.scrub(text)
        if clean != text:
            record.msg, record.args = clean, ()
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
        _log_scrubber.scrub.add(*config.secrets())
        self._policy = RetryPolicy(attempts=config.export_max_attempts, backoff_s=config.export_backoff_s,
                                   max_wait_s=config.export_max_wait_s, setting="SUMWATCH_EXPORT_MAX_WAIT_S")
        self.requests = 0
        self.retries = 0

    def close(self) -> None:
        self._client.close()

    def request(self, method: str, url: str, *, creates: bool = False, ok: tuple[int, ...] = (),
                **kw: Any) -> httpx.Response:
        """The tracker's answer (2xx, or a status in ``ok``); raises PermanentError, TransientError or Uncertain."""
        what = f"{self.target} {method} {self._path(url)}"

        def attempt() -> httpx.Response:
            if creates:
                self._pacer.wait()
            self.requests += 1
            try:
                answer = self._client.request(method, url, **kw)
            except (httpx.ConnectError, httpx.ConnectTimeout) as exc:  # nothing reached the tracker: retry
                raise Transient(f"{what}: {self._scrub(type(exc).__name__ + ': ' + str(exc))}") from None
            except (httpx.TimeoutException, httpx.TransportError) as exc:
                # sent, and the answer lost: a create may have been stored, so it is looked up, not resent
                if creates:
                    raise Uncertain(f"{what}: no answer within {self.config.export_timeout_s:g}s"
                                    if isinstance(exc, httpx.TimeoutException) else
                                    f"{what}: the connection dropped before the answer") from None
                raise Transient(f"{what}: {self._scrub(type(exc).__name__ + ': ' + str(exc)) or 'timed out'}") from None
            if answer.is_success or answer.status_code in ok:
                return answer
            status = answer.status_code
            problem = f"{what}: {status} {self._reason(answer)}".rstrip()
            asked = retry_after_s(answer.headers)
            # GitHub answers a hit rate limit with 403 and says when it resets: a wait, not a refusal
            if status in PERMANENT and not (status == 403 and asked is not None):
                raise PermanentError(problem, status)
            raise Transient(problem, asked)

        try:
            return self._policy.call(attempt, what="export", on_retry=self._count_retry)
        except GaveUp as exc:
            raise TransientError(str(exc)) from None

    def _count_retry(self, problem: Transient, wait_s: float) -> None:
        self.retries += 1

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
