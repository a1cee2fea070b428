"""What reading each span once costs: the `traces` listing and the sampler's fetch over a large otel_traces,
without and with copies of spans stored (exporter retries), each read timed with and without the dedup
in the same run.

    python tests/bench/dedup_reads.py [--spans 1000000] [--source-bytes 1024] [--dup-share 0.01]

Rows go in through the receiver's encoding (JSONCompactColumns blocks), summarization spans from four
services with distinct texts. Three forms of each read run on the same data: the query as it was (no
dedup), the shipped one (one row per span: a slightly longer prefix of the same order, first row of each
span kept), and a plain ``LIMIT 1 BY TraceId, SpanId`` for comparison. Copies are whole retried batches of
512 spans, including the newest batch (what the listing shows) and the oldest (the sampler's first batch).
The scores table is empty, so the sampler's own anti-join costs nothing and the dedup's share is at its
largest. Target: the shipped reads within 1.25x of the old query's time.
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
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sumwatch.monitor.scoring import sampler as sampler_module
from sumwatch.monitor.scoring.sampler import Sampler
from sumwatch.monitor.settings import Settings
from sumwatch.monitor.store import traces as traces_module
from sumwatch.monitor.store.connection import Store
from sumwatch.monitor.store.listing import list_traces
from sumwatch.monitor.store.migrations import migrate
from sumwatch.monitor.store.traces import ONE_PER_SPAN, first_spans
from sumwatch.tracer import semconv
from sumwatch.tracer.otel_traces import COLUMNS, INSERT_FORMAT, TRACES_TABLE, encode_rows

CHUNK = 50_000
RETRY_BATCH = 512  # the SDK's BatchSpanProcessor exports 512 spans per request
STEP_NS = 40_000_000  # 25 spans a second: 1M spans cover about 11.5 hours
SERVICES = ("checkout-digest", "support-recap", "news-brief", "meeting-notes")
TARGET = 1.25


def vocabulary(rng: random.Random, size: int = 4000) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    return ["".join(rng.choices(letters, k=rng.randint(3, 10))) for _ in range(size)]


def make_rows(first: int, count: int, base_ns: int, words: list[str], source_bytes: int,
              rng: random.Random) -> list[tuple[Any, ...]]:
    """Summarization spans ``first`` .. ``first + count - 1`` in otel_traces column order."""
    per_source = max(1, source_bytes // 7)
    rows = []
    for i in range(first, first + count):
        source = " ".join(rng.choices(words, k=per_source))[:source_bytes]
        summary = " ".join(rng.choices(words, k=24))
        service = SERVICES[i % len(SERVICES)]
        rows.append((
            base_ns + i * STEP_NS, rng.getrandbits(128).to_bytes(16, "big").hex(),
            rng.getrandbits(64).to_bytes(8, "big").hex(), "", "", semconv.SPAN_NAME, "Internal", service,
            {"service.name": service}, semconv.INSTRUMENTATION_NAME, "0.1",
            {semconv.TASK: semconv.TASK_SUMMARIZATION, semconv.INPUT_VALUE: source, semconv.OUTPUT_VALUE: summary,
             semconv.SUMMARIZATION_BAND: "tldr", semconv.DOMAIN: "bench", semconv.DOCUMENT_ID: f"doc-{i}",
             semconv.SOURCE_WORDS: str(per_source), semconv.SUMMARY_WORDS: "24"},
            1_500_000_000, "Unset", "", (), (), (), (), (), (), (),
        ))
    return rows


class _NoJudge:
    """The sampler's fetch needs a judge version only."""

    version = "bench-1"


def _old(store: Store, sql: str, params: dict[str, Any], limit: int, **_: Any) -> list[tuple]:
    """The read as it was: the same query with the limit itself, every stored row."""
    return store.query_rows(sql, {**params, "prefix": limit})


def _limit_by(store: Store, sql: str, params: dict[str, Any], limit: int, **_: Any) -> list[tuple]:
    """One row per span in SQL alone: LIMIT 1 BY before the limit (the engine sorts every match)."""
    return store.query_rows(sql.replace("LIMIT {prefix:UInt64}", f"{ONE_PER_SPAN} LIMIT {{prefix:UInt64}}"),
                            {**params, "prefix": limit})


FORMS: dict[str, Callable[..., list[tuple]]] = {"old": _old, "dedup": first_spans, "limit_by": _limit_by}


def timed(read: Callable[[], Any], form: Callable[..., list[tuple]]) -> tuple[float, Any]:
    traces_module.first_spans = form  # type: ignore[attr-defined]
    sampler_module.first_spans = form  # type: ignore[attr-defined]
    try:
        t0 = time.perf_counter()
        result = read()
        return time.perf_counter() - t0, result
    finally:
        traces_module.first_spans = first_spans  # type: ignore[attr-defined]
        sampler_module.first_spans = first_spans  # type: ignore[attr-defined]


def measure(reads: dict[str, Callable[[], list[Any]]], repeats: int) -> dict[str, dict[str, Any]]:
    """Median milliseconds of each read in each form (forms interleaved), and what each form returned."""
    out: dict[str, dict[str, Any]] = {}
    for name, read in reads.items():
        times: dict[str, list[float]] = {form: [] for form in FORMS}
        results: dict[str, list[Any]] = {}
        for form in FORMS.values():  # warm the page cache and the engine's caches
            timed(read, form)
        for _ in range(repeats):
            for form_name, form in FORMS.items():
                seconds, results[form_name] = timed(read, form)
                times[form_name].append(seconds)
        ms = {form: statistics.median(t) * 1000 for form, t in times.items()}
        out[name] = {
            "old_ms": round(ms["old"], 1), "dedup_ms": round(ms["dedup"], 1), "limit_by_ms": round(ms["limit_by"], 1),
            "dedup_vs_old": round(ms["dedup"] / ms["old"], 3), "limit_by_vs_old": round(ms["limit_by"] / ms["old"], 3),
            "rows": len(results["dedup"]),
            "old_rows_seen_twice": len(results["old"]) - len({_key(r) for r in results["old"]}),
            "dedup_rows_seen_twice": len(results["dedup"]) - len({_key(r) for r in results["dedup"]}),
        }
    return out


def _key(item: Any) -> tuple[str, str]:
    ref = getattr(item, "ref", item)  # a sampler _Pending or a TraceRow
    return ref.trace_id, ref.span_id


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--spans", type=int, default=1_000_000)
    ap.add_argument("--source-bytes", type=int, default=1024, help="source text per span")
    ap.add_argument("--dup-share", type=float, default=0.01, help="share of spans stored a second time")
    ap.add_argument("--limit", type=int, default=20, help="rows the listing asks for (`sumwatch traces`)")
    ap.add_argument("--batch", type=int, default=64, help="spans per sampler fetch (SUMWATCH_SAMPLE_BATCH)")
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if args.spans < 2 * RETRY_BATCH:
        ap.error(f"--spans must be at least {2 * RETRY_BATCH}")

    rng = random.Random(args.seed)
    words = vocabulary(rng)
    home = Path(tempfile.mkdtemp(prefix="sumwatch-bench-"))
    settings = Settings.from_env(env={}, home=home, database=f"bench_{uuid.uuid4().hex[:8]}", port=0)
    store = Store.open(settings)
    try:
        migrate(store)
        base_ns = time.time_ns() - args.spans * STEP_NS - 60 * 10**9
        print(f"storing {args.spans:,} spans with {args.source_bytes} B sources ...", file=sys.stderr)
        t0 = time.perf_counter()
        for first in range(0, args.spans, CHUNK):
            store.insert_encoded(TRACES_TABLE, COLUMNS, encode_rows(
                make_rows(first, min(CHUNK, args.spans - first), base_ns, words, args.source_bytes, rng)),
                INSERT_FORMAT)
        store.command(f"OPTIMIZE TABLE {TRACES_TABLE} FINAL")  # settled parts, as a table hours old has
        build_s = time.perf_counter() - t0
        gc.collect()

        sampler = Sampler(store, _NoJudge(), batch=args.batch)  # type: ignore[arg-type]
        newest_ns = base_ns + (args.spans - 1) * STEP_NS
        steady_since = newest_ns - sampler.lookback_ns  # a pass that keeps up reads the last look-back
        reads: dict[str, Callable[[], list[Any]]] = {
            "listing": lambda: list_traces(store, limit=args.limit),
            "sampler_backlog": lambda: sampler._fetch(0, (0, ""), args.batch),
            "sampler_steady": lambda: sampler._fetch(steady_since, (0, ""), args.batch),
        }
        clean = measure(reads, args.repeats)

        # copies: whole retried batches, the newest and the oldest among them
        batches = args.spans // RETRY_BATCH
        wanted = max(2, round(args.spans * args.dup_share / RETRY_BATCH))
        starts = {0, args.spans - RETRY_BATCH} | {b * RETRY_BATCH for b in rng.sample(range(1, batches - 1),
                                                                                  min(wanted - 2, batches - 2))}
        columns = ", ".join(f"`{c}`" for c in COLUMNS)
        for first in sorted(starts):  # each batch as one INSERT of the rows already stored, as a retry stores them
            start_ns = base_ns + first * STEP_NS
            store.command(
                f"INSERT INTO {TRACES_TABLE} ({columns}) SELECT {columns} FROM {TRACES_TABLE} "
                f"WHERE Timestamp >= fromUnixTimestamp64Nano({start_ns}) "
                f"AND Timestamp < fromUnixTimestamp64Nano({start_ns + RETRY_BATCH * STEP_NS})")
        copies = len(starts) * RETRY_BATCH
        stored_rows = store.query_rows(f"SELECT count() FROM {TRACES_TABLE}")[0][0]
        assert stored_rows == args.spans + copies, (stored_rows, args.spans, copies)
        dup = measure(reads, args.repeats)
    finally:
        store.command(f"DROP DATABASE IF EXISTS `{settings.store.database}`")
        store.close()
        shutil.rmtree(home, ignore_errors=True)

    print(f"{args.spans:,} spans ({args.source_bytes} B sources) stored in {build_s:.0f}s; then {copies:,} copies "
          f"({copies / args.spans:.1%}) in {len(starts)} retried batches of {RETRY_BATCH}; "
          f"median of {args.repeats}, forms interleaved")
    print(f"{'read':<18}{'copies':>8}{'old ms':>9}{'dedup ms':>10}{'ratio':>7}{'LIMIT 1 BY ms':>15}{'ratio':>7}"
          f"{'old shows twice':>17}")
    for state, figures in (("none", clean), (f"{copies / args.spans:.1%}", dup)):
        for name, f in figures.items():
            print(f"{name:<18}{state:>8}{f['old_ms']:>9.1f}{f['dedup_ms']:>10.1f}{f['dedup_vs_old']:>7.2f}"
                  f"{f['limit_by_ms']:>15.1f}{f['limit_by_vs_old']:>7.2f}{f['old_rows_seen_twice']:>17}")
    worst = max(f["dedup_vs_old"] for figures in (clean, dup) for f in figures.values())
    correct = all(f["dedup_rows_seen_twice"] == 0 for figures in (clean, dup) for f in figures.values())
    summary = {
        "bench": "dedup_reads", "spans": args.spans, "source_bytes": args.source_bytes, "copies": copies,
        "copy_share": round(copies / args.spans, 4), "repeats": args.repeats, "build_s": round(build_s, 1),
        "cpus": os.cpu_count(), "without_copies": clean, "with_copies": dup,
        "worst_dedup_vs_old": worst, "target": TARGET, "each_span_once": correct,
        "pass": correct and worst <= TARGET,
    }
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
