"""What taking every span and score out costs: the paged exports (JSON lines, Parquet) against one unbounded
SELECT of the same rows into Python, timed and measured in the same run.

    python tests/bench/bulk_export.py [--spans 100000] [--scores 100000] [--source-bytes 1024] [--page-size N]

Spans go in as the receiver stores them (1% of them twice, as retried batches), scores as the sampler
writes them. Each export walks the listing's cursor, reads a page of whole spans (or score records) and
writes it to a file under the bench's folder; the baseline is the one query a page-less export would make,
its rows only read, not written. Rows/s are the median of ``--repeats`` runs; memory is measured in runs of
its own: the peak of Python's heap (tracemalloc, which slows the run, hence apart) and the peak growth of
the process's resident memory (sampled every 5 ms; it includes the embedded engine's buffers and Arrow's).
Prints one JSON line.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import threading
import time
import tracemalloc
import uuid
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from sumwatch.monitor.settings import Settings
from sumwatch.monitor.store.bulk_export import SCORE_PAGE, SPAN_PAGE_BYTES, export_scores, export_spans
from sumwatch.monitor.store.connection import Store
from sumwatch.monitor.store.migrations import migrate
from sumwatch.monitor.store.scores import SCORE_COLUMNS, SCORES_TABLE
from sumwatch.monitor.store.traces import ONE_PER_SPAN
from sumwatch.tracer import semconv
from sumwatch.tracer.otel_traces import TRACES_TABLE

CHUNK = 20_000
STEP_NS = 40_000_000  # 25 spans a second
RUBRICS = ("groundedness", "completeness", "factuality", "conciseness")
_PAGE = os.sysconf("SC_PAGE_SIZE")


def span_rows(first: int, count: int, base_ns: int, words: list[str], source_bytes: int,
              rng: random.Random) -> list[tuple]:
    rows = []
    for i in range(first, first + count):
        source = " ".join(rng.choices(words, k=max(1, source_bytes // 7)))[:source_bytes]
        service = f"svc-{i % 4}"
        rows.append((
            base_ns + i * STEP_NS, rng.getrandbits(128).to_bytes(16, "big").hex(),
            rng.getrandbits(64).to_bytes(8, "big").hex(), "", "", semconv.SPAN_NAME, "Internal", service,
            {"service.name": service}, semconv.INSTRUMENTATION_NAME, "0.1",
            {semconv.TASK: semconv.TASK_SUMMARIZATION, semconv.INPUT_VALUE: source,
             semconv.OUTPUT_VALUE: " ".join(rng.choices(words, k=24)), semconv.SUMMARIZATION_BAND: "tldr",
             semconv.DOCUMENT_ID: f"doc-{i}"},
            1_500_000_000, "Unset", "", (), (), (), (), (), (), (),
        ))
    return rows


def score_rows(first: int, count: int, at0: datetime, rng: random.Random) -> list[tuple]:
    rows = []
    for i in range(first, first + count):
        at = at0 + timedelta(milliseconds=i * 10)
        passed = rng.random() < 0.8
        values = {"TraceId": rng.getrandbits(128).to_bytes(16, "big").hex(),
                  "SpanId": rng.getrandbits(64).to_bytes(8, "big").hex(), "Rubric": RUBRICS[i % 4],
                  "JudgeVersion": "cascade-1", "SpanTimestamp": at, "ScoredAt": at, "ServiceName": f"svc-{i % 4}",
                  "Verdict": "supported" if passed else "contradicted", "Score": rng.random(), "Passed": int(passed),
                  "FailureMode": "" if passed else "contradicted", "Tier": "rules", "Evidence": "a quoted sentence",
                  "Explanation": "the summary states what the source states", "Model": "", "InputTokens": 0,
                  "OutputTokens": 0, "CostUsd": 0.0, "LatencyMs": 1.5, "Error": "", "Details": "[]"}
        rows.append(tuple(values[c] for c in SCORE_COLUMNS))
    return rows


def rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * _PAGE


def rss_growth(run: Callable[[], Any]) -> int:
    """Peak resident memory above the start while ``run`` runs, sampled every 5 ms."""
    start, peak, done = rss(), [0], threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], rss())
            time.sleep(0.005)

    watcher = threading.Thread(target=sample, daemon=True)
    watcher.start()
    try:
        run()
    finally:
        done.set()
        watcher.join()
    return max(0, max(peak[0], rss()) - start)


def heap_peak(run: Callable[[], Any]) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        run()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def median_seconds(run: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(repeats):
        gc.collect()
        t0 = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--spans", type=int, default=100_000)
    ap.add_argument("--scores", type=int, default=100_000)
    ap.add_argument("--source-bytes", type=int, default=1024, help="source text per span")
    ap.add_argument("--page-size", type=int, default=None,
                    help=f"spans per page (default: pages of about {SPAN_PAGE_BYTES // 2**20} MB of attributes)")
    ap.add_argument("--score-page-size", type=int, default=SCORE_PAGE, help="scores per page")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    rng = random.Random(args.seed)
    words = ["".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=rng.randint(3, 10))) for _ in range(4000)]
    home = Path(tempfile.mkdtemp(prefix="sumwatch-bench-"))
    settings = Settings.from_env(env={}, home=home, database=f"bench_{uuid.uuid4().hex[:8]}", port=0)
    store = Store.open(settings)
    out = home / "out"
    out.mkdir()
    try:
        migrate(store)
        print(f"storing {args.spans:,} spans and {args.scores:,} scores ...", file=sys.stderr)
        t0 = time.perf_counter()
        base_ns = time.time_ns() - args.spans * STEP_NS - 60 * 10**9
        for first in range(0, args.spans, CHUNK):
            rows = span_rows(first, min(CHUNK, args.spans - first), base_ns, words, args.source_bytes, rng)
            store.insert_spans(rows)
            if first % (5 * CHUNK) == 0:
                store.insert_spans(rows[:CHUNK // 20])  # a retried batch: 1% of the spans stored twice
        at0 = datetime.now(timezone.utc) - timedelta(days=30)
        for first in range(0, args.scores, CHUNK):
            store.insert(SCORES_TABLE, score_rows(first, min(CHUNK, args.scores - first), at0, rng), SCORE_COLUMNS)
        stored = store.query_rows(f"SELECT count() FROM {TRACES_TABLE}")[0][0]
        build_s = time.perf_counter() - t0

        a = "SpanAttributes"
        select_spans = (
            f"SELECT Timestamp, TraceId, SpanId, ParentSpanId, TraceState, SpanName, SpanKind, ServiceName, "
            f"ResourceAttributes, ScopeName, ScopeVersion, SpanAttributes, Duration, StatusCode, StatusMessage, "
            f"Events.Timestamp, Events.Name, Events.Attributes, Links.TraceId, Links.SpanId, Links.TraceState, "
            f"Links.Attributes FROM {TRACES_TABLE} WHERE {a}['{semconv.TASK}'] = '{semconv.TASK_SUMMARIZATION}' "
            f"ORDER BY Timestamp DESC, TraceId DESC, SpanId DESC {ONE_PER_SPAN}")
        select_scores = (
            f"SELECT TraceId, SpanId, Rubric, JudgeVersion, Verdict, Score, Passed, FailureMode, Tier, Evidence, "
            f"Explanation, Model, CostUsd, LatencyMs, Error, ServiceName, ScoredAt FROM {SCORES_TABLE} FINAL "
            f"ORDER BY ScoredAt DESC, TraceId, Rubric, SpanId, JudgeVersion")
        page, score_page = args.page_size, args.score_page_size
        runs: dict[str, Callable[[], int]] = {
            "spans_select": lambda: len(store.query_rows(select_spans)),
            "spans_jsonl": lambda: export_spans(store, out / "spans.jsonl", "jsonl", page_size=page),
            "spans_parquet": lambda: export_spans(store, out / "spans.parquet", "parquet", page_size=page),
            "scores_select": lambda: len(store.query_rows(select_scores)),
            "scores_jsonl": lambda: export_scores(store, out / "scores.jsonl", "jsonl", page_size=score_page),
            "scores_parquet": lambda: export_scores(store, out / "scores.parquet", "parquet", page_size=score_page),
        }
        figures: dict[str, dict[str, Any]] = {}
        # exports first, the unbounded reads last: resident memory seldom shrinks, so a read's growth would
        # hide the exports' after it
        for name in ("spans_jsonl", "spans_parquet", "scores_jsonl", "scores_parquet", "spans_select",
                     "scores_select"):
            print(f"{name} ...", file=sys.stderr)
            run = runs[name]
            rss_mb = rss_growth(run) / 2**20
            seconds, rows = median_seconds(run, args.repeats)
            heap_mb = heap_peak(run) / 2**20
            figures[name] = {"rows": rows, "seconds": round(seconds, 2), "rows_per_s": round(rows / seconds),
                             "heap_peak_mb": round(heap_mb, 1), "rss_growth_mb": round(rss_mb, 1)}
            if not name.endswith("select"):
                figures[name]["file_mb"] = round((out / name.replace("_", ".", 1)).stat().st_size / 2**20, 1)
        for kind in ("spans", "scores"):
            base = figures[f"{kind}_select"]
            for fmt in ("jsonl", "parquet"):
                f = figures[f"{kind}_{fmt}"]
                f["rows_per_s_vs_select"] = round(f["rows_per_s"] / base["rows_per_s"], 3)
                f["heap_peak_vs_select"] = round(f["heap_peak_mb"] / base["heap_peak_mb"], 3)
    finally:
        store.command(f"DROP DATABASE IF EXISTS `{settings.store.database}`")
        store.close()
        shutil.rmtree(home, ignore_errors=True)

    print(json.dumps({
        "bench": "bulk_export", "spans": args.spans, "stored_span_rows": stored, "scores": args.scores,
        "source_bytes": args.source_bytes, "page_size": args.page_size, "score_page_size": args.score_page_size,
        "repeats": args.repeats, "build_s": round(build_s, 1), "cpus": os.cpu_count(), **figures,
        "each_row_once": all(figures[f"{k}_{f}"]["rows"] == figures[f"{k}_select"]["rows"]
                             for k in ("spans", "scores") for f in ("jsonl", "parquet")),
    }))


if __name__ == "__main__":
    main()
