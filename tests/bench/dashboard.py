"""The dashboard under load: server time of every page and API list call, the cluster map's first render in
headless Chromium, and the server's memory, with 1M spans, 200k failing scores and 300 issues in chDB; also
the trace explorer's listing with a text search and two filters, a trace of 50 spans, and the listing with
and without its arm for recognised spans.

    python tests/bench/dashboard.py [--spans 1000000] [--failing 200000] [--issues 300] [--points 20000]

The store is filled in bulk by ClickHouse itself (INSERT ... SELECT over ``numbers()``, in a child process
that exits, so the server's memory is its own): spans with 1 KB sources over 7 days from four services,
three models and four prompt versions; every other span scored on the four rubrics (some by the LLM tier,
with tokens and cost) with ``--failing`` failing; ``--runs`` clustering runs with every issue's snapshot,
the last run's members, and a ``--points`` cluster map. Then the real server (``ReceiverServer`` with the
routes ``sumwatch up`` serves) listens on 127.0.0.1, and every GET route it has is timed from a local
client (parameters filled with real ids; routes that need an id this bench cannot find are listed as
skipped; the bulk exports, which stream every row, are timed by ``bulk_export.py`` instead). Goals: p95
under 300 ms per route, the map drawn within 2 s.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from sumwatch.monitor.rubrics.verdicts import RUBRICS
from sumwatch.monitor.settings import Settings, reveal
from sumwatch.monitor.store.connection import Store
from sumwatch.monitor.store.issue_members import ISSUE_MEMBERS_TABLE
from sumwatch.monitor.store.issues import ISSUES_TABLE
from sumwatch.monitor.store.migrations import migrate
from sumwatch.monitor.store.projections import PROJECTIONS_TABLE
from sumwatch.monitor.store.runs import CLUSTER_RUNS_TABLE
from sumwatch.monitor.store.scores import SCORES_TABLE
from sumwatch.monitor.views.dashboard import routes as page_routes
from sumwatch.tracer import semconv
from sumwatch.tracer.otel_traces import TRACES_TABLE

GOAL_P95_MS = 300.0
GOAL_MAP_S = 2.0
SERVICES = ("checkout-digest", "support-recap", "news-brief", "meeting-notes")
MODELS = ("gpt-4o-mini", "gpt-4.1", "claude-haiku")
PROMPTS = ("v1", "v2", "v3", "v4")
DAYS = 7
CHROMIUM = "/usr/bin/chromium"
BIG_TRACE = "b1" * 16  # the trace of TRACE_SPANS spans the trace view is timed on
TRACE_SPANS = 50
UNSURE = 2000  # unsure results (suspicions no LLM confirmed) on unscored spans
# the Traces page and its API call with a text search (a source word in about 3% of spans) and two filters
SEARCH = {"q": "w1234", "service": SERVICES[0], "model": MODELS[0]}


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _array(values: tuple[str, ...]) -> str:
    return "[" + ", ".join(f"'{v}'" for v in values) + "]"


# -- filling the store ------------------------------------------------------------------------------

def fill(settings: Settings, spans: int, failing: int, issues: int, runs: int, points: int) -> None:
    """Everything the dashboard reads, written by the engine from ``numbers()``."""
    store = Store.open(settings)
    migrate(store)
    end = int(time.time())
    start = end - DAYS * 86400
    a = semconv
    t = time.monotonic()
    log(f"spans: {spans:,} ...")
    # a trace id and a span id from the span number, so scores and members can name the same spans
    tid = "lower(hex(MD5(toString(n))))"
    sid = "substring(lower(hex(MD5(concat('s', toString(n))))), 1, 16)"
    step = 100_000
    for first in range(0, spans, step):
        count = min(step, spans - first)
        store.command(f"""INSERT INTO {TRACES_TABLE} (Timestamp, TraceId, SpanId, SpanName, SpanKind, ServiceName,
            ResourceAttributes, ScopeName, SpanAttributes, Duration, StatusCode)
        SELECT fromUnixTimestamp64Nano(toInt64({start}) * 1000000000 + intDiv(toInt64(n) * {DAYS * 86400}, {spans})
                   * 1000000000 + toInt64(n % 1000) * 1000), {tid}, {sid}, '{a.SPAN_NAME}', 'Internal',
               {_array(SERVICES)}[n % 4 + 1], map('service.name', {_array(SERVICES)}[n % 4 + 1]),
               '{a.INSTRUMENTATION_NAME}',
               map('{a.TASK}', '{a.TASK_SUMMARIZATION}',
                   '{a.INPUT_VALUE}', arrayStringConcat(arrayMap(i -> concat('w', toString(cityHash64(n, i) % 5000)),
                                                                 range(170)), ' '),
                   '{a.OUTPUT_VALUE}', concat('Revenue rose ', toString(n % 97), '% in May, the company said.'),
                   '{a.GEN_AI_REQUEST_MODEL}', {_array(MODELS)}[intDiv(n, 7) % 3 + 1],
                   '{a.PROMPT_VERSION}', {_array(PROMPTS)}[intDiv(n * 4, {spans}) + 1],
                   '{a.SUMMARIZATION_BAND}', 'tldr', '{a.DOCUMENT_ID}', concat('doc-', toString(n))),
               1500000000, 'Unset'
        FROM (SELECT number + {first} AS n FROM numbers({count}))""")
    log(f"  {time.monotonic() - t:.0f} s; scores ...")
    # every other span scored on each rubric; the failing ones evenly spread, by one number's hash
    scored = spans // 2
    rows = scored * len(RUBRICS)
    fail_every = max(1, rows // max(failing, 1))
    verdicts = {"groundedness": ("supported", "contradicted"), "completeness": ("present", "absent"),
                "factuality": ("correct", "numerically_wrong"), "conciseness": ("concise", "padded")}
    rubrics = _array(RUBRICS)
    ok = _array(tuple(verdicts[r][0] for r in RUBRICS))
    bad = _array(tuple(verdicts[r][1] for r in RUBRICS))
    modes = _array(("unsupported_claim", "missing_fact", "number_mismatch", "filler_phrase"))
    t = time.monotonic()
    for first in range(0, rows, 4 * step):
        count = min(4 * step, rows - first)
        store.command(f"""INSERT INTO {SCORES_TABLE} (TraceId, SpanId, Rubric, JudgeVersion, SpanTimestamp, ScoredAt,
            ServiceName, Verdict, Score, Passed, FailureMode, Tier, Evidence, Explanation, Model, InputTokens,
            OutputTokens, CostUsd, LatencyMs)
        SELECT {tid}, {sid}, {rubrics}[r + 1], 'cascade-3',
               fromUnixTimestamp64Nano(toInt64({start}) * 1000000000 + intDiv(toInt64(n) * {DAYS * 86400}, {spans})
                   * 1000000000 + toInt64(n % 1000) * 1000), now64(6), {_array(SERVICES)}[n % 4 + 1],
               if(f, {bad}[r + 1], {ok}[r + 1]), if(f, 0.2, 1.0), NOT f, if(f, {modes}[r + 1], ''),
               if(k % 20 = 0, 'llm', 'rules'), if(f, concat('summary "', toString(n % 97), '%" vs source'), ''),
               if(f, 'The summary states a figure the source does not.', ''),
               if(k % 20 = 0, 'gpt-4o-mini', ''), if(k % 20 = 0, 900, 0), if(k % 20 = 0, 60, 0),
               if(k % 20 = 0, 0.00017, 0), 3.0
        FROM (SELECT number + {first} AS k, intDiv(k, 4) * 2 AS n, k % 4 AS r, k % {fail_every} = 0 AS f
              FROM numbers({count}))""")
    # one trace of TRACE_SPANS spans an hour ago: a summarization span and the calls under it, for the trace view
    store.command(f"""INSERT INTO {TRACES_TABLE} (Timestamp, TraceId, SpanId, ParentSpanId, SpanName, SpanKind,
            ServiceName, ResourceAttributes, ScopeName, SpanAttributes, Duration, StatusCode)
        SELECT fromUnixTimestamp64Nano(toInt64({end - 3600}) * 1000000000 + toInt64(number) * 20000000),
               '{BIG_TRACE}', substring(lower(hex(MD5(concat('{BIG_TRACE}', toString(number))))), 1, 16),
               -- in groups of 7, each group under the last span of the one before: a tree 8 deep
               if(number = 0, '', substring(lower(hex(MD5(concat('{BIG_TRACE}',
                                                                 toString(intDiv(number - 1, 7) * 7))))), 1, 16)),
               if(number = 0, '{a.SPAN_NAME}', concat('chat gpt-4o-mini ', toString(number))), 'Internal',
               '{SERVICES[0]}', map('service.name', '{SERVICES[0]}'), '{a.INSTRUMENTATION_NAME}',
               if(number = 0, map('{a.TASK}', '{a.TASK_SUMMARIZATION}', '{a.INPUT_VALUE}', 'A long source document.',
                                  '{a.OUTPUT_VALUE}', 'A summary.', '{a.GEN_AI_REQUEST_MODEL}', 'gpt-4o-mini'),
                  map('{a.GEN_AI_REQUEST_MODEL}', 'gpt-4o-mini', 'gen_ai.usage.input_tokens', toString(400 + number),
                      'gen_ai.usage.output_tokens', '60', 'gen_ai.operation.name', 'chat')),
               if(number = 0, {TRACE_SPANS} * 20000000, 15000000), 'Unset'
        FROM numbers({TRACE_SPANS})""")
    # suspicions no LLM confirmed, on spans the judges left alone: what the Unsure page lists
    kinds = _array(("number_mismatch", "entity_swap", "negation_flip", "filler_phrase"))
    store.command(f"""INSERT INTO {SCORES_TABLE} (TraceId, SpanId, Rubric, JudgeVersion, SpanTimestamp, ScoredAt,
            ServiceName, Verdict, Score, Passed, FailureMode, Tier, Evidence, Explanation, Details)
        SELECT {tid}, {sid}, 'factuality', 'cascade-3',
               fromUnixTimestamp64Nano(toInt64({start}) * 1000000000 + intDiv(toInt64(n) * {DAYS * 86400}, {spans})
                   * 1000000000 + toInt64(n % 1000) * 1000), now64(6), {_array(SERVICES)}[n % 4 + 1],
               'correct', 1.0, 1, '', 'rules', concat('"', toString(n % 97), '%"'),
               'Unsure: the rules tier suspects a mismatch and no LLM is configured to confirm it.',
               concat('[{{"suspicion": "', {kinds}[n % 4 + 1], '", "verdict": "numerically_wrong", "evidence": ""}}]')
        FROM (SELECT number * {max(2, spans // UNSURE)} + 1 AS n FROM numbers({min(UNSURE, spans // 2)}))""")
    log(f"  {time.monotonic() - t:.0f} s; issues, runs, members, map ...")
    t = time.monotonic()
    last = f"run-{runs:03d}"
    store.command(f"""INSERT INTO {CLUSTER_RUNS_TABLE} SELECT concat('run-', leftPad(toString(number + 1), 3, '0')),
        fromUnixTimestamp({end} - ({runs} - number) * 1800), fromUnixTimestamp({end} - ({runs} - number) * 1800 + 60),
        fromUnixTimestamp({end} - 86400), fromUnixTimestamp({end}), {points}, {points - points // 10},
        {points // 10}, {issues}, 0, 0, 0, 'keywords', 'all-MiniLM-L6-v2', 60 FROM numbers({runs})""")
    store.command(f"""INSERT INTO {ISSUES_TABLE} SELECT i + 1, concat('run-', leftPad(toString(r + 1), 3, '0')),
        fromUnixTimestamp({end} - ({runs} - r) * 1800), concat('SW-', toString(i + 1)),
        concat('Numbers changed in summaries of kind ', toString(i + 1)), 'The summary states a different figure.',
        'The prompt lets the model round and restate figures.', 'Quote figures verbatim.',
        ['low', 'medium', 'high'][i % 3 + 1], {rubrics}[i % 4 + 1], {modes}[i % 4 + 1], ['figure', 'number'],
        if(r = 0, 'new', 'ongoing'), 10 + (i * 7 + r * 3) % 90, 10 + (i * 7 + r * 3) % 90, 0.003, 0,
        fromUnixTimestamp({end} - {runs} * 1800), fromUnixTimestamp({end} - ({runs} - r) * 1800),
        arrayMap(d -> toFloat32(sin(i + d)), range(384)), 'all-MiniLM-L6-v2', 'keywords'
        FROM (SELECT number % {issues} AS i, intDiv(number, {issues}) AS r FROM numbers({issues * runs}))""")
    # the last run's members: the failing spans on the map that are not noise, 3 representatives and
    # 2 boundary cases per issue
    store.command(f"""INSERT INTO {ISSUE_MEMBERS_TABLE} SELECT '{last}', p % {issues} + 1, {tid}, {sid},
        now64(9), 'checkout-digest', {rubrics}[p % 4 + 1], {bad}[p % 4 + 1], {modes}[p % 4 + 1],
        0.5 + (p % 50) / 100, multiIf(intDiv(p, {issues}) < 3, 'representative', intDiv(p, {issues}) < 5,
        'boundary', 'member'), concat('summary "', toString(n % 97), '%" vs source'),
        'factuality numerically wrong: The summary states a figure the source does not.', now64(6)
        FROM (SELECT number AS p, intDiv(number * {fail_every}, 4) * 2 AS n FROM numbers({points}))
        WHERE p % 10 != 9""")
    store.command(f"""INSERT INTO {PROJECTIONS_TABLE} SELECT '{last}', p, {tid}, {sid}, {rubrics}[p % 4 + 1],
        toFloat32(10 * cos(p % {issues}) + (cityHash64(p) % 1000) / 400),
        toFloat32(10 * sin(p % {issues}) + (cityHash64(p, 1) % 1000) / 400),
        if(p % 10 = 9, '', concat('SW-', toString(p % {issues} + 1))),
        'factuality numerically wrong: The summary states a figure the source does not.', now64(6)
        FROM (SELECT number AS p, intDiv(number * {fail_every}, 4) * 2 AS n FROM numbers({points}))""")
    log(f"  {time.monotonic() - t:.0f} s")
    store.close()


# -- the server and its routes ----------------------------------------------------------------------

def server_app(store: Store, settings: Settings) -> Any:
    """The app ``sumwatch up`` serves: receiver, API and dashboard, from the one composition root."""
    from sumwatch.monitor.exports.config import ExportConfig
    from sumwatch.monitor.runtime import Runtime
    from sumwatch.monitor.views.app import create_app

    return create_app(Runtime.build(settings, store, exports=ExportConfig()))


def real_ids(store: Store) -> dict[str, str]:
    """Values for path parameters, from the store."""
    from sumwatch.monitor.store.corpus import CORPUS_TABLE

    rows = store.query_rows(f"SELECT TraceId, SpanId FROM {SCORES_TABLE} WHERE Passed = 0 LIMIT 1")
    trace_id, span_id = rows[0] if rows else ("", "")
    run = store.query_rows(f"SELECT max(RunId) FROM {CLUSTER_RUNS_TABLE}")[0][0]
    ids = {"trace_id": trace_id, "span_id": span_id, "issue_id": "SW-1", "number": "1", "id": "SW-1",
           "run_id": run, "rubric": "factuality"}
    items = store.query_rows(f"SELECT ItemId FROM {CORPUS_TABLE} LIMIT 1")
    if items:
        ids["item_id"] = items[0][0]
    return ids


def get_paths(routes: list[Any], ids: dict[str, str]) -> tuple[dict[str, str], list[str]]:
    """Each GET route's path with its parameters filled in; those it could not fill, skipped."""
    paths: dict[str, str] = {}
    skipped = []
    for route in routes:
        path = getattr(route, "path", None)
        methods = getattr(route, "methods", None) or set()
        if not path or (methods and "GET" not in methods) or path in ("/v1/traces",):
            continue
        if path.startswith("/static") or "{path" in path or path.endswith((".js", ".css")):
            continue  # assets: not a page or a list call
        if path.endswith("/export"):
            continue  # bulk downloads stream every row (a minute at 1M): tests/bench/bulk_export.py times them
        names = re.findall(r"{(\w+)(?::\w+)?}", path)
        if any(n not in ids for n in names):
            skipped.append(path)
            continue
        paths[path] = re.sub(r"{(\w+)(?::\w+)?}", lambda m: ids[m.group(1)], path)
    return paths, skipped


def explorer_paths() -> dict[str, str]:
    """The trace explorer's calls that a route's bare path does not time: a search with two filters, and
    the trace view of a trace with ``TRACE_SPANS`` spans."""
    from urllib.parse import urlencode

    query = urlencode(SEARCH)
    return {"/traces (search + service + model)": f"/traces?{query}",
            "/api/traces (search + service + model)": f"/api/traces?{query}&limit=50",
            f"/traces/{{trace_id}} ({TRACE_SPANS} spans)": f"/traces/{BIG_TRACE}",
            f"/api/traces/{{trace_id}} ({TRACE_SPANS} spans)": f"/api/traces/{BIG_TRACE}"}


def recognised_arm(store: Store, repeats: int) -> dict[str, Any]:
    """The listing with its recognised arm left out (no recognised span stored) and read (one recognised in
    the listing's window), in turns: the table emptied, then the one row written, before each pair of calls."""
    from sumwatch.monitor.contract.listing import TraceFilters
    from sumwatch.monitor.contract.traces import RecognisedSpan
    from sumwatch.monitor.store.listing import list_traces
    from sumwatch.monitor.store.recognised import RECOGNISED_TABLE, write_recognised

    calls = {"list_traces(50)": lambda: list_traces(store, limit=50),
             "list_traces(50, search + 2 filters)": lambda: list_traces(store, limit=50, filters=TraceFilters(
                 q=SEARCH["q"], service=SEARCH["service"], model=SEARCH["model"]))}
    newest = store.query_rows(f"SELECT TraceId, SpanId, toUnixTimestamp64Nano(Timestamp) FROM {TRACES_TABLE} "
                              "ORDER BY Timestamp DESC LIMIT 1")[0]
    row = RecognisedSpan(int(newest[2]), newest[0], newest[1], SERVICES[0], "chat", "openinference", "A document.",
                         "An answer.")
    times: dict[str, list[float]] = {}
    for turn in range(repeats + 1):
        for phase in ("arm left out", "arm read"):
            if phase == "arm read":
                write_recognised(store, [row])
            else:
                store.command(f"TRUNCATE TABLE {RECOGNISED_TABLE}")
            for name, call in calls.items():
                t = time.perf_counter()
                call()
                if turn:  # the first turn warms up
                    times.setdefault(f"{name}, {phase}", []).append((time.perf_counter() - t) * 1000)
    out: dict[str, Any] = {}
    for key, values in times.items():
        values.sort()
        out[key] = {"p50_ms": round(statistics.median(values), 1),
                    "p95_ms": round(values[min(len(values) - 1, round(0.95 * (len(values) - 1)))], 1)}
        log(f"  {key}: {out[key]}")
    for name in calls:
        out[f"{name}: read / left out"] = round(out[f"{name}, arm read"]["p50_ms"]
                                                / out[f"{name}, arm left out"]["p50_ms"], 2)
        log(f"  {name}: read / left out {out[f'{name}: read / left out']}")
    return out


def time_readers(store: Store, repeats: int) -> dict[str, Any]:
    """The dashboard's store readers called directly (what its pages and API wrap), unfiltered and with
    a model and prompt-version filter over the last 3 days."""
    from datetime import datetime, timedelta, timezone

    from sumwatch.monitor.store import stats
    from sumwatch.monitor.store.projections import load_projection

    everything = stats.Filters()
    narrow = stats.Filters(start=datetime.now(timezone.utc) - timedelta(days=3), model=MODELS[0],
                           prompt_version=PROMPTS[-1])
    ids = [f"SW-{i}" for i in range(1, 301)]
    calls = {
        "filter_options": lambda: stats.filter_options(store),
        "volume_series": lambda: stats.volume_series(store, everything, 3600),
        "volume_series(filtered)": lambda: stats.volume_series(store, narrow, 3600),
        "pass_rate_series": lambda: stats.pass_rate_series(store, everything, 3600),
        "pass_rate_series(filtered)": lambda: stats.pass_rate_series(store, narrow, 3600),
        "judge_cost": lambda: stats.judge_cost(store, everything),
        "judge_cost(filtered)": lambda: stats.judge_cost(store, narrow),
        "compare(prompt_version)": lambda: stats.compare(store, everything, "prompt_version"),
        "compare(model, filtered)": lambda: stats.compare(store, narrow, "model"),
        "issue_sparklines(300)": lambda: stats.issue_sparklines(store, ids),
        "load_projection": lambda: load_projection(store),
    }
    out = {}
    for name, call in calls.items():
        call()
        times = []
        for _ in range(repeats):
            t = time.perf_counter()
            call()
            times.append((time.perf_counter() - t) * 1000)
        times.sort()
        out[name] = {"p50_ms": round(statistics.median(times), 1),
                     "p95_ms": round(times[min(len(times) - 1, round(0.95 * (len(times) - 1)))], 1)}
        log(f"  {name}: p50 {out[name]['p50_ms']} ms, p95 {out[name]['p95_ms']} ms")
    return out


def rss_mb() -> tuple[float, float]:
    """(current, peak) resident memory of this process in MB."""
    status = Path("/proc/self/status").read_text()
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    return (int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024)


def time_routes(base: str, paths: dict[str, str], repeats: int, headers: dict[str, str]) -> dict[str, Any]:
    import httpx

    out: dict[str, Any] = {}
    with httpx.Client(base_url=base, timeout=120, headers=headers) as client:
        for route, path in sorted(paths.items()):
            try:  # routes are being written while this runs: one that fails is reported, not fatal
                first = client.get(path)
                if first.status_code >= 400:
                    out[route] = {"status": first.status_code}
                    log(f"  {route}: {first.status_code}")
                    continue
                times = []
                for _ in range(repeats):
                    t = time.perf_counter()
                    client.get(path).raise_for_status()
                    times.append((time.perf_counter() - t) * 1000)
            except httpx.HTTPError as exc:
                out[route] = {"error": f"{type(exc).__name__}: {exc}"[:200]}
                log(f"  {route}: {out[route]['error']}")
                continue
            times.sort()
            p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
            out[route] = {"p50_ms": round(statistics.median(times), 1), "p95_ms": round(p95, 1),
                          "bytes": len(first.content),  # as the page is, and as it went over the wire
                          "wire_bytes": int(first.headers.get("content-length", len(first.content)))}
            log(f"  {route}: p50 {out[route]['p50_ms']} ms, p95 {out[route]['p95_ms']} ms")
    return out


# the map is drawn: the page says so (data-rendered), Plotly finished a plot with data, or an SVG chart
# holds many marks
_DRAWN = """() => {
    if (document.querySelector('[data-rendered="true"]')) return true;
    const plot = document.querySelector('.js-plotly-plot');
    if (plot && plot._fullLayout && plot._fullData && plot._fullData.some(t => (t.x || []).length > 0)) return true;
    return document.querySelectorAll('svg path.point, svg circle').length > 100;
}"""


def map_render(base: str, paths: dict[str, str], headers: dict[str, str]) -> dict[str, Any]:
    """Seconds from navigation to the map's points drawn, in headless Chromium; None with the reason when
    there is no map page or no browser."""
    page_path = next((p for r, p in paths.items() if "map" in r and not r.startswith("/api")), None)
    if page_path is None:
        return {"seconds": None, "reason": "no cluster map page among the routes"}
    if not Path(CHROMIUM).exists():
        return {"seconds": None, "reason": f"{CHROMIUM} missing (apt-get install -y chromium)"}
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return {"seconds": None, "reason": "playwright not installed"}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        try:
            context = browser.new_context(extra_http_headers=headers)
            page = context.new_page()
            runs = []
            for _ in range(3):
                t = time.perf_counter()
                page.goto(base + page_path)
                # drawn: a chart canvas or SVG with marks in the page (ECharts, Plotly, Vega, Chart.js ...)
                page.wait_for_function(_DRAWN, timeout=30_000)
                runs.append(time.perf_counter() - t)
            # the first load is cold (the chart library parsed and compiled); reloads hit the browser's cache
            return {"seconds": round(statistics.median(runs), 3), "cold_s": round(runs[0], 3),
                    "runs": [round(r, 3) for r in runs]}
        except Exception as exc:
            return {"seconds": None, "reason": f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}"}
        finally:
            browser.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--spans", type=int, default=1_000_000)
    ap.add_argument("--failing", type=int, default=200_000, help="failing scores (of 4 per scored span)")
    ap.add_argument("--issues", type=int, default=300)
    ap.add_argument("--runs", type=int, default=12, help="clustering runs (issue history and sparklines)")
    ap.add_argument("--points", type=int, default=20_000, help="points on the last run's cluster map")
    ap.add_argument("--repeats", type=int, default=20, help="timed requests per route")
    ap.add_argument("--no-browser", action="store_true", help="skip the cluster map render")
    ap.add_argument("--routes", default="", help="time only the routes this regular expression finds")
    ap.add_argument("--dir", type=Path, default=None, help="chDB folder (default: a temporary one)")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory(prefix="sw-dash-") as tmp:
        folder = args.dir or Path(tmp) / "chdb"
        folder.mkdir(parents=True, exist_ok=True)
        settings = Settings.from_env(env={}, home=Path(tmp), clickhouse_url=f"chdb://{folder}", host="127.0.0.1",
                                     port=0)
        t = time.monotonic()
        child = multiprocessing.get_context("spawn").Process(
            target=fill, args=(settings, args.spans, args.failing, args.issues, args.runs, args.points))
        child.start()
        child.join()
        if child.exitcode:
            raise SystemExit(f"filling the store failed (exit {child.exitcode})")
        fill_s = time.monotonic() - t

        from sumwatch.monitor.ingest.receiver import ReceiverServer

        store = Store.open(settings)
        migrate(store)
        counts = {
            "spans": store.query_rows(f"SELECT count() FROM {TRACES_TABLE}")[0][0],
            "failing_scores": store.query_rows(f"SELECT count() FROM {SCORES_TABLE} WHERE Passed = 0")[0][0],
            "scores": store.query_rows(f"SELECT count() FROM {SCORES_TABLE}")[0][0],
            "issues": store.query_rows(f"SELECT uniqExact(Number) FROM {ISSUES_TABLE}")[0][0],
            "map_points": store.query_rows(f"SELECT count() FROM {PROJECTIONS_TABLE}")[0][0],
        }
        log(f"store filled in {fill_s:.0f} s: {counts}")
        log("store readers:")
        readers = time_readers(store, max(5, args.repeats // 2))
        rss_before, _ = rss_mb()
        server = ReceiverServer(settings, app=server_app(store, settings)).start()
        try:
            base = server.endpoint
            from sumwatch.monitor.views.app import served_routes

            app_routes = list(served_routes(server.app.routes))
            paths, skipped = get_paths(app_routes, real_ids(store))
            paths.update(explorer_paths())
            paths = {r: p for r, p in paths.items() if re.search(args.routes, r)}
            token = reveal(settings.receiver.ingest_token)
            headers = {"Authorization": f"Bearer {token}"} if token else {}
            log(f"timing {len(paths)} routes on {base} ({len(skipped)} skipped: {skipped})")
            timings = time_routes(base, paths, args.repeats, headers)
            rendered = {"seconds": None, "reason": "--no-browser"} if args.no_browser else map_render(
                base, paths, headers)
            log(f"cluster map: {rendered}")
            # baseline in the same run: the same map sent as it is (pages go gzipped above a size)
            plain: dict[str, Any] = {"seconds": None, "reason": "--no-browser"}
            if not args.no_browser:
                threshold = page_routes.GZIP_PAGE_BYTES
                page_routes.GZIP_PAGE_BYTES = 1 << 62
                try:
                    plain = map_render(base, paths, headers)
                finally:
                    page_routes.GZIP_PAGE_BYTES = threshold
                log(f"cluster map, not gzipped: {plain}")
            rss_after, rss_peak = rss_mb()
            log("the listing's recognised arm:")
            arm = recognised_arm(store, max(5, args.repeats // 2))
        finally:
            server.stop()
            store.close()
    p95s = [v["p95_ms"] for v in timings.values() if "p95_ms" in v]
    summary = {
        "bench": "dashboard", **counts, "fill_s": round(fill_s, 1),
        "readers": readers, "routes": timings, "skipped_routes": skipped, "recognised_arm": arm,
        "worst_p95_ms": max(p95s) if p95s else None,
        "routes_within_goal": sum(p <= GOAL_P95_MS for p in p95s), "routes_timed": len(p95s),
        "goal_p95_ms": GOAL_P95_MS,
        "map_render_s": rendered.get("seconds"), "map_render_cold_s": rendered.get("cold_s"),
        "map_render": rendered, "goal_map_s": GOAL_MAP_S, "map_render_not_gzipped": plain,
        "server_rss_mb": round(rss_after, 1), "server_rss_before_serving_mb": round(rss_before, 1),
        "server_peak_rss_mb": round(rss_peak, 1),
    }
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
