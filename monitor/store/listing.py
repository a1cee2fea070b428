"""Listing summarization spans: newest first, filtered, searched and paged, each span once.

    page = list_traces(store, limit=50, filters=TraceFilters(service="digest", q="revenue"))
    more = list_traces(store, limit=50, filters=..., cursor=next_traces_cursor(page, 50))
    spans = list_stored_spans(store, limit=2000)       # the same spans, every column (bulk export)

Tagged spans and recognised ones (:mod:`.recognised`) alike. The narrow tables (span facts, score facts) bound
each read to the newest hours that can fill a page, so the filter on the attributes map reads those hours'
granules, not every span's; the ordered read goes through :func:`.traces.first_spans`, which keeps each span once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any, Protocol

from sumwatch.tracer import semconv
from sumwatch.tracer.otel_traces import TRACES_TABLE

from ..contract.listing import FAIL, PASS, UNSURE, TraceFilters
from ..contract.traces import TraceRow
from ..rubrics.verdicts import ERROR
from .connection import Store, quote_ident
from .issue_members import ISSUE_MEMBERS_TABLE
from .paging import TRACES_CURSOR, decode_cursor, encode_cursor
from .recognised import RECOGNISED_TABLE, recognised_facts
from .runs import CLUSTER_RUNS_TABLE
from .score_facts import SCORE_FACTS_TABLE, SPAN_KEY
from .scores import SCORES_TABLE
from .span_facts import SPAN_FACTS_TABLE
from .traces import (
    _A,
    INPUT_TOKEN_KEYS,
    MODEL_KEYS,
    OUTPUT_TOKEN_KEYS,
    SpanEvent,
    SpanLink,
    StoredSpan,
    _first_sql,
    _is_summarization,
    _iso,
    first_spans,
)

UNSURE_PREFIX = "Unsure"  # how the cascade begins the explanation of a result it is not confident of (cascade.unsure)


def list_traces(store: Store, limit: int = 20, service: str | None = None, *, domain: str | None = None,
                band: str | None = None, since: datetime | None = None, cursor: str | None = None,
                filters: TraceFilters | None = None) -> list[TraceRow]:
    """The newest summarization spans (tagged with sumwatch's tag or recognised in another instrumentation's
    span), each once, that ``filters`` (and ``service``, ``domain``, ``band``, ``since``) select, with each
    rubric's latest verdict; with ``cursor`` (from :func:`next_traces_cursor`), the page after the one it came from.

        page = list_traces(store, limit=100, filters=TraceFilters(q="revenue", rubric="factuality", verdict="fail"))
        more = list_traces(store, limit=100, cursor=next_traces_cursor(page, 100))

    Rows go newest first, ties by trace and span id, so a walk of pages gives each span once. A span
    stored after the walk began comes in a later page only if its timestamp is older than the page
    before (a late or backfilled span); new spans sort before the cursor and are not repeated or shown.
    A recognised span's texts, words, model, tokens, band and document come from its recognised row (its
    attributes hold messages, not the document and the answer), read for the page's spans only.
    """
    f = _merged(filters, service, domain, band, since)
    rows = _listing(store, _ROW_COLUMNS, limit, f, cursor, spare=1.0, eager=True)
    found = recognised_facts(store, [(r[0], r[1]) for r in rows if not r[13]])
    verdicts = latest_verdicts(store, [(r[0], r[1]) for r in rows])
    out = []
    for (tid, sid, ts, svc, band_, dom, doc, sw, mw, status, dur, preview, ts_ns, tagged, src, model, i, o,
         prompt) in rows:
        row = TraceRow(_iso(ts), tid, sid, svc, band_, dom, doc, int(sw), int(mw), status, round(dur / 1e6, 3),
                       _squeeze(preview), int(ts_ns), _squeeze(src), model, _int(i), _int(o), prompt_version=prompt,
                       verdicts=verdicts.get((tid, sid), {}))
        r = None if tagged else found.get((tid, sid))
        if r is not None:
            row = replace(row, band=r.band or band_, document_id=r.document_id or doc, source_words=r.source_words,
                          summary_words=r.summary_words, summary_preview=_squeeze(r.summary_preview),
                          source_preview=_squeeze(r.source_preview), model=r.model or model,
                          input_tokens=r.input_tokens if r.input_tokens is not None else row.input_tokens,
                          output_tokens=r.output_tokens if r.output_tokens is not None else row.output_tokens,
                          instrumentation=r.instrumentation, prompt_version=r.prompt_version or prompt)
        out.append(row)
    return out


def _merged(filters: TraceFilters | None, service: str | None, domain: str | None, band: str | None,
            since: datetime | None) -> TraceFilters:
    f = filters or TraceFilters()
    return f.model_copy(update={"service": service or f.service, "domain": domain or f.domain,
                                "band": band or f.band, "since": since or f.since})


def latest_verdicts(store: Store, keys: Sequence[tuple[str, str]]) -> dict[tuple[str, str], dict[str, str]]:
    """Each span's latest judgement per rubric as "pass", "fail" or "unsure" (a pass the cascade was not sure
    of), judge errors left out: ``latest_verdicts(store, [(trace_id, span_id)])[(trace_id, span_id)]["factuality"]``.

    Pass or fail comes from the score facts, keyed by one number per span: a page's spans fall in most
    granules of the scores (ordered by trace id), and reading every trace id and explanation there cost
    200-650 ms over 2M scores, the facts' numbers 25. Only a pass can be unsure, so the scores are read
    only when one passed, and only their unsure rows."""
    if not keys:
        return {}
    wanted = sorted(set(keys))
    params = {"tids": [t for t, _ in wanted], "sids": [s for _, s in wanted]}
    rows = store.query_rows(
        f"""SELECT k.1, k.2, Rubric, passed, at FROM
            (SELECT SpanKey, Rubric, argMax(Passed, ScoredAt) AS passed, max(ScoredAt) AS at
             FROM {quote_ident(SCORE_FACTS_TABLE)} WHERE SpanKey IN (SELECT key FROM keys)
             GROUP BY SpanKey, Rubric) AS f
        INNER JOIN (SELECT key, k FROM keys) AS w ON f.SpanKey = w.key""".replace(
            "FROM keys", "FROM (SELECT arrayJoin(arrayZip({tids:Array(String)}, {sids:Array(String)})) AS k, "
                         "cityHash64(k.1, k.2) AS key)"), params)
    latest = {(tid, sid, rubric): (bool(passed), at) for tid, sid, rubric, passed, at in rows}
    unsure: set[tuple[str, str, str]] = set()
    if any(passed for passed, _ in latest.values()):
        # an unsure pass is the latest judgement when it was made when the latest was
        for tid, sid, rubric, at in store.query_rows(
                f"""SELECT TraceId, SpanId, Rubric, max(ScoredAt) FROM {quote_ident(SCORES_TABLE)}
                WHERE TraceId IN {{tids:Array(String)}} AND Passed = 1 AND startsWith(Explanation, '{UNSURE_PREFIX}')
                      AND Verdict != '{ERROR}'
                GROUP BY TraceId, SpanId, Rubric""", params):
            found = latest.get((tid, sid, rubric))
            if found is not None and found[0] and found[1] == at:
                unsure.add((tid, sid, rubric))
    out: dict[tuple[str, str], dict[str, str]] = {}
    for (tid, sid, rubric), (passed, _) in latest.items():
        out.setdefault((tid, sid), {})[rubric] = (UNSURE if (tid, sid, rubric) in unsure
                                                  else PASS if passed else FAIL)
    return {k: dict(sorted(v.items())) for k, v in out.items()}


def _squeeze(text: str) -> str:
    return " ".join(text.split())


def _int(value: Any) -> int | None:
    return None if value is None else int(value)


def list_stored_spans(store: Store, limit: int = 1000, service: str | None = None, *, domain: str | None = None,
                      band: str | None = None, since: datetime | None = None, cursor: str | None = None,
                      filters: TraceFilters | None = None) -> list[StoredSpan]:
    """The spans :func:`list_traces` lists (the same filters, order and cursors), whole: every column.

        page = list_stored_spans(store, limit=2000, service="digest")
        more = list_stored_spans(store, limit=2000, service="digest", cursor=next_traces_cursor(page, 2000))
    """
    return [StoredSpan(int(ts), tid, sid, parent, state, name, kind, svc, dict(res), scope, scope_v, dict(attrs),
                       int(dur), status, msg,
                       tuple(SpanEvent(int(t), n, dict(a)) for t, n, a in zip(ev_ts, ev_names, ev_attrs)),
                       tuple(SpanLink(t, s, st, dict(a)) for t, s, st, a in zip(l_tids, l_sids, l_states, l_attrs)))
            for (tid, sid, ts, parent, state, name, kind, svc, res, scope, scope_v, attrs, dur, status, msg,
                 ev_ts, ev_names, ev_attrs, l_tids, l_sids, l_states, l_attrs)
            # whole rows cost their decoding: read few beyond the limit (copies are rare; first_spans reads
            # on when they crowd the prefix)
            in _listing(store, _STORED_COLUMNS, limit, _merged(filters, service, domain, band, since), cursor,
                        spare=0.05)]


class _Keyed(Protocol):
    @property
    def timestamp_ns(self) -> int: ...
    @property
    def trace_id(self) -> str: ...
    @property
    def span_id(self) -> str: ...


def next_traces_cursor(page: Sequence[_Keyed], limit: int) -> str | None:
    """The cursor of the page after ``page`` (of :func:`list_traces` or :func:`list_stored_spans`, read with
    ``limit``), or None when it was the last page. A page that came back full may be followed by an empty
    one: the listing reads no row beyond it."""
    if len(page) < limit or not page:
        return None
    last = page[-1]
    return encode_cursor(TRACES_CURSOR, (last.timestamp_ns, last.trace_id, last.span_id))


# what a listing row shows; TraceId and SpanId first, as first_spans needs
_ROW_COLUMNS = f"""TraceId, SpanId, toTimeZone(Timestamp, 'UTC'), ServiceName,
    {_A}['{semconv.SUMMARIZATION_BAND}'], {_A}['{semconv.DOMAIN}'], {_A}['{semconv.DOCUMENT_ID}'],
    toUInt32OrZero({_A}['{semconv.SOURCE_WORDS}']), toUInt32OrZero({_A}['{semconv.SUMMARY_WORDS}']),
    StatusCode, Duration, substring({_A}['{semconv.OUTPUT_VALUE}'], 1, 200), toUnixTimestamp64Nano(Timestamp),
    {_A}['{semconv.TASK}'] = '{semconv.TASK_SUMMARIZATION}', substring({_A}['{semconv.INPUT_VALUE}'], 1, 200),
    {_first_sql(MODEL_KEYS)}, toUInt64OrNull({_first_sql(INPUT_TOKEN_KEYS)}),
    toUInt64OrNull({_first_sql(OUTPUT_TOKEN_KEYS)}), {_A}['{semconv.PROMPT_VERSION}']"""
# every column of a span
_STORED_COLUMNS = """TraceId, SpanId, toUnixTimestamp64Nano(Timestamp), ParentSpanId, TraceState, SpanName, SpanKind,
    ServiceName, ResourceAttributes, ScopeName, ScopeVersion, SpanAttributes, Duration, StatusCode, StatusMessage,
    arrayMap(t -> toUnixTimestamp64Nano(t), Events.Timestamp), Events.Name, Events.Attributes, Links.TraceId,
    Links.SpanId, Links.TraceState, Links.Attributes"""
# the rows after the cursor's in the listing's order (Timestamp, TraceId, SpanId all descending); the
# plain bound on Timestamp lets the engine skip whole partitions and granules
_AFTER_CURSOR = ("Timestamp <= fromUnixTimestamp64Nano({c_ts:Int64}) AND (Timestamp, TraceId, SpanId) < "
                 "(fromUnixTimestamp64Nano({c_ts:Int64}), {c_tid:String}, {c_sid:String})")


# The listing's columns are taken from the attributes map the filters read anyway: read lazily (after the
# sort, for the top rows only) they decompress the same granules of the map a second time. Over 1M spans the
# listing's read took 90-110 ms this way against 130-160 lazily (ClickHouse 25.4 on, as deploy/ pins 25.8).
_EAGER = " SETTINGS query_plan_optimize_lazy_materialization = 0"
_START = "fromUnixTimestamp64Nano({start:Int64})"  # where a listing's read begins (ns, a parameter)
# how many times wider than a page the span facts' window of recent spans is: one page for the filters the
# facts apply; for a filter they cannot (text, verdicts, issue) 32 pages, then 1,024, before every span from
# ``since`` on is read. Starting at one page there cost a read that rarely held a page of matches (over 200k
# spans, a source word in 3% of them: 25-75 ms of 260).
_PAGE = (1,)
_WIDER = (32, 1024)


def _listing(store: Store, columns: str, limit: int, f: TraceFilters, cursor: str | None, *, spare: float,
             eager: bool = False) -> list[tuple[Any, ...]]:
    """``columns`` of the page of summarization spans that the filters and the cursor select.

    The filter on the attributes map is what costs: it reads every span's map in the granules it is given.
    So the read is bounded to a window of recent spans taken from the span facts (narrow, with service,
    model, prompt version and time): the newest ``prefix`` facts the filters match, and for a filter the
    facts cannot apply a window ``_WIDER`` times longer in turn; then, when a window still held too few
    matches, every span from ``since`` on."""
    if limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")
    after = decode_cursor(TRACES_CURSOR, cursor, (int, str, str)) if cursor is not None else None
    # a domain or band is not in the facts: the window cannot bound those
    widths = () if (f.domain or f.band) else _WIDER if f.narrowing else _PAGE
    rows: list[tuple[Any, ...]] = []
    for width in (*widths, None):
        rows = _newest(store, columns, f, after, limit, spare, width, eager)
        if len(rows) >= limit:
            break
    return rows


def _params(f: TraceFilters, after: tuple[Any, ...] | None) -> dict[str, Any]:
    c_ts, c_tid, c_sid = after or (0, "", "")
    return {"service": f.service or "", "domain": f.domain or "", "band": f.band or "", "model": f.model or "",
            "prompt": f.prompt_version or "", "text": f.text or "", "rubric": f.rubric or "",
            "passed": int(bool(f.passed)), "issue": f.issue_number or 0,
            "since": _ns(f.since), "until": _ns(f.until), "c_ts": c_ts, "c_tid": c_tid, "c_sid": c_sid}


def _ns(at: datetime | None) -> int:
    # nanoseconds, held in Int64 (years 1678 to 2262): a time beyond is the nearest end
    return max(-(2**63), min(2**63 - 1, int(at.timestamp() * 1e9))) if at else 0


def _window(store: Store, f: TraceFilters, after: tuple[Any, ...] | None, width: int | None, limit: int
            ) -> tuple[int | None, bool]:
    """Where the listing's read begins (ns; None: at ``since``, or the beginning) and whether any
    recognised span is stored from there on, in one read: a listing of tagged spans only (the common
    case) then leaves out the recognised arm, a set of ids the engine would build and probe per span."""
    start = "toDateTime64(0, 9)"
    if f.since:
        start = "fromUnixTimestamp64Nano({since:Int64})"
    if width is not None:
        facts = ("1" + (" AND ServiceName = {service:String}" if f.service else "")
                 + (" AND Model = {model:String}" if f.model else "")
                 + (" AND PromptVersion = {prompt:String}" if f.prompt_version else "")
                 + (" AND Timestamp >= fromUnixTimestamp64Nano({since:Int64})" if f.since else "")
                 + (" AND Timestamp < fromUnixTimestamp64Nano({until:Int64})" if f.until else "")
                 + (f" AND {_AFTER_CURSOR}" if after else ""))
        start = (f"(SELECT min(Timestamp) FROM "
                 f"(SELECT Timestamp FROM {quote_ident(SPAN_FACTS_TABLE)} WHERE {facts} "
                 # the facts' sort key begins with the hour: read newest hours first and stop at the limit
                 f"ORDER BY toStartOfHour(Timestamp) DESC, Timestamp DESC LIMIT {{prefix:UInt64}} * {width}))")
    got = store.query_rows(
        f"""SELECT toUnixTimestamp64Nano({start}) AS s,
               (SELECT count() FROM (SELECT 1 FROM {quote_ident(RECOGNISED_TABLE)}
                                     WHERE Timestamp >= fromUnixTimestamp64Nano(s) LIMIT 1))""",
        {**_params(f, after), "prefix": 2 * limit + 8})
    begin, recognised = got[0]
    return (int(begin) if width is not None else None), bool(recognised)


def _summarizations(f: TraceFilters, recognised: bool) -> str:
    """The condition a listed span meets: sumwatch's tag (with the filters on its attributes), or, when
    ``recognised``, a row in the recognised spans (with the same filters on its columns) from the read's
    start on. The recognised spans' ids are a set the engine builds per read: bounded in time like the
    spans, it holds the last hours' spans, not every one ever recognised."""
    text = ("positionCaseInsensitiveUTF8({a}, {{text:String}}) > 0 "
            "OR positionCaseInsensitiveUTF8({b}, {{text:String}}) > 0")
    tagged = (_is_summarization()
              + (f" AND {_A}['{semconv.DOMAIN}'] = {{domain:String}}" if f.domain else "")
              + (f" AND {_A}['{semconv.SUMMARIZATION_BAND}'] = {{band:String}}" if f.band else "")
              + (f" AND {_first_sql(MODEL_KEYS)} = {{model:String}}" if f.model else "")
              + (f" AND {_A}['{semconv.PROMPT_VERSION}'] = {{prompt:String}}" if f.prompt_version else "")
              + (" AND (" + text.format(a=f"{_A}['{semconv.INPUT_VALUE}']", b=f"{_A}['{semconv.OUTPUT_VALUE}']") + ")"
                 if f.text else ""))
    if f.domain or not recognised:  # a recognised span has no domain
        return tagged
    arm = (f"SELECT TraceId, SpanId FROM {quote_ident(RECOGNISED_TABLE)} WHERE Timestamp >= {_START}"
           + (" AND ServiceName = {service:String}" if f.service else "")
           + (" AND Band = {band:String}" if f.band else "")
           + (" AND Model = {model:String}" if f.model else "")
           + (" AND PromptVersion = {prompt:String}" if f.prompt_version else "")
           + (" AND (" + text.format(a="Source", b="Summary") + ")" if f.text else ""))
    return f"(({tagged}) OR (TraceId, SpanId) IN ({arm}))"


def _judged(f: TraceFilters) -> str:
    """The conditions on a span's judgements and issue, as SQL (empty when none is asked)."""
    out = ""
    if f.rubric or f.passed is not None:
        facts = ("SELECT SpanKey FROM " + quote_ident(SCORE_FACTS_TABLE) + " FINAL WHERE SpanTimestamp >= "
                 + _START + (" AND Rubric = {rubric:String}" if f.rubric else "")
                 + (" AND Passed = {passed:UInt8}" if f.passed is not None else ""))
        out += f" AND {SPAN_KEY} IN ({facts})"
    if f.unsure is not None:
        unsure = (f"SELECT TraceId, SpanId FROM {quote_ident(SCORES_TABLE)} WHERE SpanTimestamp >= "
                  f"{_START} AND Passed = 1 AND startsWith(Explanation, '{UNSURE_PREFIX}')")
        if f.unsure:
            out += f" AND (TraceId, SpanId) IN ({unsure})"
        else:  # confident: judged, and no judgement unsure
            judged = ("SELECT SpanKey FROM " + quote_ident(SCORE_FACTS_TABLE)
                      + " WHERE SpanTimestamp >= " + _START)
            out += f" AND {SPAN_KEY} IN ({judged}) AND (TraceId, SpanId) NOT IN ({unsure})"
    if f.issue_number is not None:
        out += (f" AND (TraceId, SpanId) IN (SELECT TraceId, SpanId FROM {quote_ident(ISSUE_MEMBERS_TABLE)} "
                f"WHERE Number = {{issue:UInt32}} AND RunId = (SELECT RunId FROM {quote_ident(CLUSTER_RUNS_TABLE)} "
                f"FINAL ORDER BY FinishedAt DESC, RunId DESC LIMIT 1))")
    return out


def _newest(store: Store, columns: str, f: TraceFilters, after: tuple[Any, ...] | None, limit: int,
            spare: float, width: int | None, eager: bool) -> list[tuple[Any, ...]]:
    """The rows of a listing from the start of its window (``width``: the window's length in pages of
    span facts; None: every span from ``since`` on). After a cursor the facts are read after it too, so a
    deep page reads its own hours only."""
    begin, recognised = _window(store, f, after, width, limit)
    where = ((" AND ServiceName = {service:String}" if f.service else "")
             + " AND Timestamp >= " + _START
             + (" AND Timestamp < fromUnixTimestamp64Nano({until:Int64})" if f.until else "")
             + (f" AND {_AFTER_CURSOR}" if after else "")
             + _judged(f))
    start = begin if begin is not None else (_ns(f.since) if f.since else 0)
    return first_spans(
        store,
        f"""SELECT {columns} FROM {TRACES_TABLE} WHERE {_summarizations(f, recognised)}{where}
        ORDER BY Timestamp DESC, TraceId DESC, SpanId DESC LIMIT {{prefix:UInt64}}{_EAGER if eager else ""}""",
        {**_params(f, after), "start": start}, limit, spare=spare)
