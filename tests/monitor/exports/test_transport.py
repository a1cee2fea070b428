"""Pacing, Retry-After and text cut to a tracker's limits, without a network."""

import email.utils
import time

import httpx

from sumwatch.monitor.exports.config import ExportConfig
from sumwatch.monitor.exports.payload import clip
from sumwatch.monitor.exports.transport import Pacer
from sumwatch.monitor.remote.retry import retry_after_s


def test_the_pacer_spaces_requests_evenly():
    waits = []
    pacer = Pacer(600)  # one every 0.1 s
    for _ in range(4):
        pacer.wait(sleep=waits.append)
    assert len(waits) == 3 and sum(waits) >= 0.25  # the first goes at once
    Pacer(None).wait(sleep=lambda s: (_ for _ in ()).throw(AssertionError("no pace, no wait")))


def test_github_is_paced_at_80_a_minute_by_default():
    from sumwatch.monitor.exports.github import GitHub

    http = GitHub(ExportConfig(github_token="t" * 10, github_repo="a/b")).http
    assert abs(http._pacer.interval - 60 / 80) < 1e-9
    assert GitHub(ExportConfig(export_pace="github=600")).http._pacer.interval == 0.1


def retry_after(value, now=None):
    return retry_after_s(httpx.Headers({} if value is None else {"Retry-After": value}), now=now)


def test_retry_after_takes_seconds_and_http_dates():
    assert retry_after("2") == 2.0 and retry_after("0.05") == 0.05 and retry_after(None) is None
    now = time.time()
    assert 29 <= retry_after(email.utils.formatdate(now + 30, usegmt=True), now=now) <= 31
    assert retry_after("soon") is None


def test_githubs_rate_limit_reset_is_a_wait_and_milliseconds_are_read():
    now = time.time()
    limited = httpx.Headers({"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(now) + 20)})
    assert 18 <= retry_after_s(limited, now=now) <= 20
    assert retry_after_s(httpx.Headers({"x-ratelimit-remaining": "5", "x-ratelimit-reset": "1"})) is None
    assert retry_after_s({"retry-after-ms": "250"}) == 0.25


def test_clip_keeps_the_limit_and_cuts_at_a_word():
    text = "word " * 100
    assert len(clip(text, 50)) <= 50 and clip(text, 50).endswith("word…") and clip("short", 50) == "short"
