"""What a span must hold before it may join a group commit: times, ids and text the store can take.

    problem = span_problem(span)          # None, or "startTimeUnixNano: 0 (unset) is before 1973-03-03T09:46:40Z, ..."
    rejected = Rejections()
    rejected.add("resourceSpans[0].scopeSpans[0].spans[3]." + problem)
    rejected.message(total=10)            # "1 of 10 spans rejected: resourceSpans[0]...spans[3].startTimeUnixNano: ..."

One INSERT carries the spans of many requests, and ClickHouse refuses a whole INSERT for one value it
cannot read, so every span is checked here first and a span that fails is dropped with its reason.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

# DateTime64(9) is a signed 64-bit count of nanoseconds: 2^63 - 1 is 2262-04-11T23:47:16.854775807Z.
MAX_TIME_NS = 2**63 - 1
# Times travel to ClickHouse as "seconds.nanos" text (sumwatch.tracer.otel_traces), and ClickHouse reads
# a text with fewer than 9 digits before the dot as a date, not as seconds: 10^8 s (1973-03-03T09:46:40Z)
# is the earliest time that text form stores as sent.
MIN_TIME_NS = 100_000_000 * 1_000_000_000
MIN_TIME_TEXT = "1973-03-03T09:46:40Z"
MAX_TIME_TEXT = "2262-04-11T23:47:16.854775807Z"
TRACE_ID_BYTES, SPAN_ID_BYTES = 16, 8
REASONS_SHOWN = 3  # the first few reasons go into the answer; the count covers every rejected span

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def time_problem(ns: int, name: str) -> str | None:
    """Why ``ns`` (nanoseconds since the epoch) cannot be stored as a span or event time, or None."""
    if ns < MIN_TIME_NS:
        unset = " (unset)" if ns == 0 else ""
        return f"{name}: {ns}{unset} is before {MIN_TIME_TEXT}, the earliest time the store holds"
    if ns > MAX_TIME_NS:
        return f"{name}: {ns} is after {MAX_TIME_TEXT}, the latest time the store holds"
    return None


def id_problem(raw: bytes, size: int, name: str, *, optional: bool = False) -> str | None:
    """Why ``raw`` is not a usable id of ``size`` bytes, or None. An optional id may be empty or all
    zeros (no parent, no link target); a required one may be neither (W3C trace context calls it invalid)."""
    if len(raw) != size:
        if optional and not raw:
            return None
        return f"{name}: must be {size} bytes, got {len(raw)}"
    if not optional and not any(raw):
        return f"{name}: {raw.hex()} is all zeros, which is not a valid id"
    return None


def stored_id(raw: bytes) -> str:
    """An id as ``otel_traces`` holds it: hex, or empty for an absent or all-zero id (as the Collector writes)."""
    return raw.hex() if any(raw) else ""


_ZERO_TRACE_ID, _ZERO_SPAN_ID = bytes(TRACE_ID_BYTES), bytes(SPAN_ID_BYTES)


def plain_span_ok(trace_id: bytes, span_id: bytes, parent_span_id: bytes, start_ns: int) -> bool:
    """Whether a span's ids and start time can be stored, in one expression for the hot path; the same rules as
    :func:`span_problem`, which says why when they cannot (and checks events and links, which this does not).

        plain_span_ok(span.trace_id, span.span_id, span.parent_span_id, span.start_time_unix_nano)
    """
    return (len(trace_id) == TRACE_ID_BYTES and trace_id != _ZERO_TRACE_ID
            and len(span_id) == SPAN_ID_BYTES and span_id != _ZERO_SPAN_ID
            and (not parent_span_id or len(parent_span_id) == SPAN_ID_BYTES)
            and MIN_TIME_NS <= start_ns <= MAX_TIME_NS)


def span_problem(span: Any) -> str | None:
    """The first reason a decoded OTLP ``Span`` cannot be stored, as ``field: reason``, or None."""
    problem = (id_problem(span.trace_id, TRACE_ID_BYTES, "traceId")
               or id_problem(span.span_id, SPAN_ID_BYTES, "spanId")
               or id_problem(span.parent_span_id, SPAN_ID_BYTES, "parentSpanId", optional=True)
               or time_problem(span.start_time_unix_nano, "startTimeUnixNano"))
    if problem:
        return problem
    for j, event in enumerate(span.events):
        problem = time_problem(event.time_unix_nano, f"events[{j}].timeUnixNano")
        if problem:
            return problem
    for j, link in enumerate(span.links):
        problem = (id_problem(link.trace_id, TRACE_ID_BYTES, f"links[{j}].traceId", optional=True)
                   or id_problem(link.span_id, SPAN_ID_BYTES, f"links[{j}].spanId", optional=True))
        if problem:
            return problem
    return None


def text_problem(value: Any) -> str | None:
    """The path (``.a[2].b`` form, relative to ``value``) of the first text in a decoded JSON value that is
    not valid Unicode (a lone UTF-16 surrogate, which ``\\ud800`` escapes produce), or None.
    Iterative, so any nesting depth the JSON parser accepted is walked without recursion."""
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        item, path = stack.pop()
        if isinstance(item, str):
            if _LONE_SURROGATE.search(item):
                return path
        elif isinstance(item, dict):
            for key, child in item.items():
                if _LONE_SURROGATE.search(key):
                    return f"{path} key {ascii(key)[:40]}"
                stack.append((child, f"{path}.{key}"))
        elif isinstance(item, list):
            stack.extend((child, f"{path}[{k}]") for k, child in enumerate(item))
    return None


@dataclass
class Rejections:
    """Spans (or log records) dropped from a request: how many, and the first few reasons with their place."""

    count: int = 0
    reasons: list[str] = field(default_factory=list)
    noun: str = "spans"

    def add(self, reason: str) -> None:
        self.count += 1
        if len(self.reasons) < REASONS_SHOWN:
            self.reasons.append(reason)

    def extend(self, reasons: Iterable[str]) -> None:
        for reason in reasons:
            self.add(reason)

    def message(self, total: int) -> str:
        more = self.count - len(self.reasons)
        listed = "; ".join(self.reasons) + (f"; and {more} more" if more else "")
        return f"{self.count} of {total} {self.noun} rejected: {listed}"
