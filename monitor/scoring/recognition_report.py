"""Why a span is (not) scored: the recent spans per service and instrumentation, recognised or not, with the
reasons.

    report = recognition_report(store, SpanSelector.from_settings(settings), window_s=3600)
    for row in report.rows:
        print(row.service, row.instrumentation, row.spans, row.recognised, row.reasons[:3])

The same decision the sampler's recognition step makes (the first configured selector that matches, then the
built-in rules), made again on a bounded sample of the newest candidate spans, so a user sees which spans are
read and why the others are not. sumwatch's own tagged spans and spans no instrumentation claims are counted
in SQL. An instrumentation is named by the span's scope (:mod:`.instrumentation_names`); a refusal that blames
content capture on a span that carries text says where the text is (:mod:`.uncaptured`).
"""

from __future__ import annotations

import time
from collections import Counter

from sumwatch.tracer import semconv
from sumwatch.tracer.otel_traces import TRACES_TABLE

from ..contract.scores import InstrumentationCounts, ReasonCount, RecognitionReport
from ..store.connection import Store
from ..store.genai_events import genai_events
from .recognise import Recognised
from .sampler import SpanSelector
from .uncaptured import content_elsewhere

SUMWATCH_TAG = "sumwatch"  # the row of sumwatch's own tagged spans
OTHER = "other"  # spans no instrumentation claims and no selector matches
MAX_SAMPLE = 5000
_TOP_REASONS = 5


def recognition_report(store: Store, selector: SpanSelector, *, window_s: int = 3600, sample: int = 1000,
                       now_ns: int | None = None) -> RecognitionReport:
    """The spans of the last ``window_s`` seconds per instrumentation; at most ``sample`` candidates are read."""
    sample = max(1, min(sample, MAX_SAMPLE))
    since = (time.time_ns() if now_ns is None else now_ns) - window_s * 10**9
    params: dict[str, object] = {"since": since, "n": sample, "tag": semconv.TASK_SUMMARIZATION}
    candidates = selector.candidates(params) or "0"
    recent = "Timestamp > fromUnixTimestamp64Nano({since:Int64})"
    tagged = f"SpanAttributes['{semconv.TASK}'] = {{tag:String}}"
    counted = store.query_rows(
        f"SELECT ServiceName, uniqExactIf((TraceId, SpanId), {tagged}), uniqExactIf((TraceId, SpanId), {candidates}), "
        f"uniqExactIf((TraceId, SpanId), NOT ({tagged}) AND NOT ({candidates}) "
        f"AND SpanName != '{semconv.EVALUATION_SPAN_NAME}') FROM {TRACES_TABLE} WHERE {recent} "
        f"GROUP BY ServiceName ORDER BY ServiceName", params)
    claimed = sum(int(c) for _, _, c, _ in counted)
    rows = store.query_rows(
        f"SELECT TraceId, SpanId, ServiceName, SpanName, SpanAttributes, Events.Name, Events.Attributes, ScopeName "
        f"FROM {TRACES_TABLE} WHERE {recent} AND {candidates} "
        f"ORDER BY Timestamp DESC LIMIT 1 BY TraceId, SpanId LIMIT {{n:UInt64}}", params) if claimed else []
    logged = genai_events(store, [(r[0], r[1]) for r in rows])
    spans: Counter[tuple[str, str]] = Counter()
    found: Counter[tuple[str, str]] = Counter()
    reasons: dict[tuple[str, str], Counter[str]] = {}
    for tid, sid, service, name, attrs, event_names, event_attrs, scope in rows:
        events = [{**a, "event.name": n} for n, a in zip(event_names, event_attrs)] + logged.get((tid, sid), [])
        result = selector.selectors.recognise(name, service, attrs, events, scope) if selector.recognised else \
            next((s.read(attrs) for s in selector.selectors.entries if s.matches(name, service, attrs)), None)
        if result is None:
            continue
        key = (service, result.instrumentation or OTHER)
        spans[key] += 1
        if isinstance(result, Recognised):
            found[key] += 1
        else:
            reasons.setdefault(key, Counter())[content_elsewhere(result.reason, attrs)] += 1
    # one section per service (service.name), sumwatch's own spans first and the unclaimed ones last in each
    out = []
    for service, own, _, other in counted or [("", 0, 0, 0)]:
        out.append(InstrumentationCounts(SUMWATCH_TAG, int(own), int(own), 0, service=service))
        for key in sorted((k for k in spans if k[0] == service), key=lambda k: (-spans[k], k[1])):
            top = [ReasonCount(r, n) for r, n in reasons.get(key, Counter()).most_common(_TOP_REASONS)]
            out.append(InstrumentationCounts(key[1], spans[key], found[key], spans[key] - found[key], top,
                                             service=service))
        if other:
            out.append(InstrumentationCounts(OTHER, int(other), 0, int(other),
                                             [ReasonCount("no GenAI instrumentation's attributes and no selector "
                                                          "matches: stored and left alone", int(other))],
                                             service=service))
    return RecognitionReport(window_s, claimed, len(rows), out)
