"""Ingest throughput into embedded chDB: raw batched INSERT (the ceiling), the direct ClickHouse
exporter, and the OTLP/HTTP receiver, all with 2 KB of source text per span, in one run.

    python tests/bench/ingest.py [--spans 40960] [--batch 8192] [--request-spans 512] [--clients 8] [--rounds 5]
    python tests/bench/ingest.py --commit-wait-ms 0,5,20,50     # the receiver once per group-commit wait, per round

The OTLP client runs in its own process (as an app would) and posts pre-encoded protobuf bodies,
so the figure is the receiver's: decode, convert, group-commit INSERT, acknowledge. Beside spans/s it
reports the acknowledgement latency each exporter saw (p50, p99) and the CPU time per span of the process
holding the store (the receiver's threads and the engine's), and both as ratios to the direct exporter of the
same round: on shared cores wall time mostly measures the neighbours, a ratio from one round much less, and the
median over rounds (direct, then each receiver setting, repeated) less again.
Targets on a 2-core machine: direct >= 20,000 spans/s, OTLP >= 10,000 spans/s and >= 0.6 of the direct exporter.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider

from sumwatch.monitor.ingest.receiver import ReceiverServer
from sumwatch.monitor.settings import Settings
from sumwatch.monitor.store.connection import Store
from sumwatch.monitor.store.migrations import migrate
from sumwatch.tracer import ClickHouseSpanExporter, summarization
from sumwatch.tracer.otel_traces import COLUMNS, INSERT_FORMAT, TRACES_TABLE, encode_rows, spans_to_rows

WORDS = ["revenue", "margin", "quarter", "guidance", "board", "approved", "shipments", "hospital", "patients",
         "trial", "dosage", "council", "budget", "meeting", "action", "owner", "deadline", "outage", "latency",
         "rollback", "customers"]

CLIENT = r"""
import http.client, json, sys, threading, time, urllib.parse
url, path, clients = sys.argv[1], sys.argv[2], int(sys.argv[3])
bodies = json.load(open(path, "r", encoding="latin-1"))
bodies = [b.encode("latin-1") for b in bodies]
parts = urllib.parse.urlsplit(url)
statuses, latencies, lock = [], [], threading.Lock()
def worker(chunk):
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=120)
    for body in chunk:
        sent = time.perf_counter()
        conn.request("POST", "/v1/traces", body, {"Content-Type": "application/x-protobuf"})
        resp = conn.getresponse(); resp.read()
        with lock: statuses.append(resp.status); latencies.append(time.perf_counter() - sent)
chunks = [bodies[i::clients] for i in range(clients)]
threads = [threading.Thread(target=worker, args=(c,)) for c in chunks]
t0, started = time.perf_counter(), time.time()
for t in threads: t.start()
for t in threads: t.join()
print(json.dumps({"seconds": time.perf_counter() - t0, "started": started, "ok": statuses.count(200),
                  "requests": len(statuses), "latencies": latencies}))
"""


class _Keep(SpanProcessor):
    def __init__(self) -> None:
        self.spans: list[ReadableSpan] = []

    def on_end(self, span: ReadableSpan) -> None:
        self.spans.append(span)


def source_text(i: int, size: int = 2048) -> str:
    """A distinct ~2 KB text per span (a shuffled word stream; content does not matter here)."""
    words, n, length = [str(i)], i, 0
    while length < size:
        word = WORDS[n % len(WORDS)]
        words.append(word)
        length += len(word) + 1
        n = (n * 7 + 3) % 10007
    return " ".join(words)[:size]


def make_spans(n: int) -> list[ReadableSpan]:
    keep = _Keep()
    provider = TracerProvider(resource=Resource.create({"service.name": "bench"}))
    provider.add_span_processor(keep)

    @summarization(band="tldr", domain="bench", tracer_provider=provider)
    def summarize(text: str) -> str:
        return "A short summary of the document with a few key facts in it."

    for i in range(n):
        summarize(source_text(i))
    return keep.spans


def count(store: Store) -> int:
    return store.query_rows(f"SELECT count() FROM {TRACES_TABLE}")[0][0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--spans", type=int, default=40_960)
    ap.add_argument("--batch", type=int, default=8192, help="spans per direct-exporter export() call")
    ap.add_argument("--request-spans", type=int, default=512, help="spans per OTLP request (SDK default 512)")
    ap.add_argument("--clients", type=int, default=8,
                    help="concurrent OTLP exporters (app processes), each waiting for its acknowledgement")
    ap.add_argument("--commit-wait-ms", default="",
                    help="comma-separated group-commit waits to run the receiver with (default: the setting's)")
    ap.add_argument("--rounds", type=int, default=5,
                    help="rounds of direct exporter then receiver(s); ratios are per round, figures medians")
    ap.add_argument("--receiver-log", default="",
                    help="comma-separated on/off: the receiver with and without its write-ahead log "
                         "(default: the setting's)")
    args = ap.parse_args()

    home = Path(tempfile.mkdtemp(prefix="sumwatch-bench-"))
    settings = Settings.from_env(env={}, home=home, database=f"bench_{uuid.uuid4().hex[:8]}", port=0)
    store = Store.open(settings)
    migrate(store)
    print(f"building {args.spans} spans with 2 KB sources ...", file=sys.stderr)
    spans = make_spans(args.spans)
    # A live exporter holds one batch, not the whole run: keep the setup's objects out of the
    # garbage collector's way so every path is timed on its own work.
    gc.collect()
    gc.freeze()
    batches = [spans[i:i + args.batch] for i in range(0, len(spans), args.batch)]
    results = {}

    # 1. ceiling: blocks already encoded, one INSERT each (the engine's own speed on this table)
    rows = [spans_to_rows(b) for b in batches]
    blocks = [encode_rows(chunk) for chunk in rows]
    t0 = time.perf_counter()
    for block in blocks:
        store.insert_encoded(TRACES_TABLE, COLUMNS, block, INSERT_FORMAT)
    results["raw_insert_spans_per_s"] = args.spans / (time.perf_counter() - t0)
    assert count(store) == args.spans
    store.command(f"TRUNCATE TABLE {TRACES_TABLE}")
    del blocks

    # 1b. rows already built: encode + INSERT, no overlap
    t0 = time.perf_counter()
    for chunk in rows:
        store.insert_spans(chunk)
    results["encode_insert_spans_per_s"] = args.spans / (time.perf_counter() - t0)
    assert count(store) == args.spans
    store.command(f"TRUNCATE TABLE {TRACES_TABLE}")

    # 2 and 3, in rounds: the direct exporter (ReadableSpan -> row -> INSERT), then the OTLP/HTTP receiver (client
    # in another process) once per setting. Each receiver run is compared with the direct run of its own round, so
    # a neighbour's load that comes and goes moves both sides; the medians over rounds are reported.
    bodies = [encode_spans(spans[i:i + args.request_spans]).SerializeToString()
              for i in range(0, len(spans), args.request_spans)]
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False, encoding="latin-1") as fh:
        json.dump([b.decode("latin-1") for b in bodies], fh)
    waits = [int(w) for w in args.commit_wait_ms.split(",")] if args.commit_wait_ms else \
        [settings.receiver.insert_batch_wait_ms]
    logs = [w == "on" for w in args.receiver_log.split(",")] if args.receiver_log else \
        [settings.receiver.receiver_log]
    configs = [(w, g) for g in logs for w in waits]
    rounds: list[dict[str, Any]] = []
    try:
        for number in range(args.rounds):
            print(f"round {number + 1} of {args.rounds} ...", file=sys.stderr)
            direct = direct_run(store, settings, batches, args.spans)
            runs = []
            for wait, log in configs:
                run = receiver_run(settings.with_(insert_batch_wait_ms=wait, receiver_log=log), store, fh.name,
                                   len(bodies), args)
                runs.append({"commit_wait_ms": wait, "receiver_log": log, **asdict(run),
                             "vs_direct": round(run.spans_per_s / direct["spans_per_s"], 3),
                             "cpu_vs_direct": round(run.cpu_us_per_span / direct["cpu_us_per_span"], 3)})
                store.command(f"TRUNCATE TABLE {TRACES_TABLE}")
            rounds.append({"direct": direct, "receiver": runs})
    finally:
        os.unlink(fh.name)
    results["direct_exporter_spans_per_s"] = median([r["direct"]["spans_per_s"] for r in rounds])
    results["direct_cpu_us_per_span"] = median([r["direct"]["cpu_us_per_span"] for r in rounds])
    runs = [{key: (median([r["receiver"][i][key] for r in rounds])
                   if key not in ("commit_wait_ms", "receiver_log") else value)
             for key, value in rounds[0]["receiver"][i].items()} for i in range(len(configs))]
    for i, run in enumerate(runs):
        run["vs_direct_by_round"] = [r["receiver"][i]["vs_direct"] for r in rounds]
    results["otlp_receiver_spans_per_s"] = runs[0]["spans_per_s"]
    results["otlp_inserts"] = runs[0]["inserts"]
    results["otlp_requests"] = len(bodies)

    store.command(f"DROP DATABASE IF EXISTS `{settings.store.database}`")
    store.close()

    ceiling = results["raw_insert_spans_per_s"]
    print(f"{args.spans} spans of 2 KB source; direct batches of {args.batch}; OTLP requests of "
          f"{args.request_spans} spans from {args.clients} concurrent exporters ({results['otlp_inserts']} INSERTs)")
    print(f"{'path':<24}{'spans/s':>12}{'of ceiling':>16}{'target':>10}")
    for name, key, target in (("engine INSERT (ceiling)", "raw_insert_spans_per_s", None),
                              ("encode + INSERT", "encode_insert_spans_per_s", None),
                              ("direct exporter", "direct_exporter_spans_per_s", 20_000),
                              ("OTLP/HTTP receiver", "otlp_receiver_spans_per_s", 10_000)):
        print(f"{name:<24}{results[key]:>12,.0f}{results[key] / ceiling:>16.2f}{(target or 0):>10,}")
    print(f"\n{'log':<5}{'commit wait':<14}{'spans/s':>10}{'of direct':>11}{'CPU us/span':>13}{'of direct':>11}"
          f"{'ack p50 ms':>12}{'ack p99 ms':>12}{'INSERTs':>9}  of direct by round")
    for run in runs:
        print(f"{'on' if run['receiver_log'] else 'off':<5}{str(run['commit_wait_ms']) + ' ms':<14}"
              f"{run['spans_per_s']:>10,.0f}{run['vs_direct']:>11.2f}"
              f"{run['cpu_us_per_span']:>13.1f}{run['cpu_vs_direct']:>11.2f}{run['ack_p50_ms']:>12.1f}"
              f"{run['ack_p99_ms']:>12.1f}{run['inserts']:>9}  {run['vs_direct_by_round']}")
    summary = {
        "bench": "ingest", "spans": args.spans, "source_bytes": 2048, "clients": args.clients,
        **{k: round(v, 1) if isinstance(v, float) else v for k, v in results.items()},
        "direct_vs_raw": round(results["direct_exporter_spans_per_s"] / ceiling, 3),
        "otlp_vs_raw": round(results["otlp_receiver_spans_per_s"] / ceiling, 3),
        "rounds": args.rounds, "otlp_vs_direct": runs[0]["vs_direct"], "otlp_ack_p99_ms": runs[0]["ack_p99_ms"],
        "receiver_runs": runs,
        "target_direct": 20_000, "target_otlp": 10_000, "target_otlp_vs_direct": 0.6,
        "pass": results["direct_exporter_spans_per_s"] >= 20_000 and results["otlp_receiver_spans_per_s"] >= 10_000
        and runs[0]["vs_direct"] >= 0.6,
    }
    print(json.dumps(summary))


def median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def direct_run(store: Store, settings: Settings, batches: list[list[ReadableSpan]], spans: int) -> dict[str, float]:
    """The direct exporter's spans/s and CPU per span (this process: exporter and engine threads)."""
    exporter = ClickHouseSpanExporter(store.client, database=settings.store.database)
    t0, c0 = time.perf_counter(), time.process_time()
    for batch in batches:
        exporter.export(batch)
    exporter.force_flush()
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    assert count(store) == spans
    store.command(f"TRUNCATE TABLE {TRACES_TABLE}")
    return {"spans_per_s": round(spans / seconds, 1), "cpu_us_per_span": round(cpu / spans * 1e6, 1)}


@dataclass(frozen=True)
class ReceiverRun:
    """One pass of the OTLP client against a fresh receiver."""

    spans_per_s: float
    cpu_us_per_span: float  # this process's CPU (receiver, writer and engine threads) per stored span
    ack_p50_ms: float
    ack_p99_ms: float
    inserts: int


def percentile(values: list[float], share: float) -> float:
    """The nearest-rank percentile: the smallest value at least ``share`` of ``values`` do not exceed."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def receiver_run(settings: Settings, store: Store, bodies_path: str, requests: int,
                 args: argparse.Namespace) -> ReceiverRun:
    """The bodies in ``bodies_path`` posted by ``args.clients`` exporters to a receiver on ``settings``."""
    server = ReceiverServer(settings, store).start()
    c0 = time.process_time()
    try:
        out = subprocess.run([sys.executable, "-c", CLIENT, server.endpoint, bodies_path, str(args.clients)],
                             capture_output=True, text=True, check=True)
        client = json.loads(out.stdout)
        while server.writer.rows_written < args.spans:  # with the log, acknowledged rows may still be on their way
            time.sleep(0.002)
        stored_at, cpu = time.time(), time.process_time() - c0
    finally:
        server.stop()
    assert client["ok"] == requests, client
    assert count(store) == args.spans
    latencies = client["latencies"]
    # spans/s up to the last span stored, not acknowledged: the same for both, since the log acknowledges earlier
    return ReceiverRun(spans_per_s=round(args.spans / (stored_at - client["started"]), 1),
                       cpu_us_per_span=round(cpu / args.spans * 1e6, 1),
                       ack_p50_ms=round(percentile(latencies, 0.5) * 1000, 1),
                       ack_p99_ms=round(percentile(latencies, 0.99) * 1000, 1), inserts=server.writer.inserts)

if __name__ == "__main__":
    main()
