"""Ingest throughput into embedded chDB: raw batched INSERT (the ceiling), the direct ClickHouse
exporter, and the OTLP/HTTP receiver, all with 2 KB of source text per span, in one run.

    python tests/bench/ingest.py [--spans 40000] [--batch 2048] [--request-spans 512] [--clients 4]

The OTLP client runs in its own process (as an app would) and posts pre-encoded protobuf bodies,
so the figure is the receiver's: decode, convert, group-commit INSERT, acknowledge.
Targets on a 2-core machine: direct >= 20,000 spans/s, OTLP >= 10,000 spans/s.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

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
statuses, lock = [], threading.Lock()
def worker(chunk):
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=120)
    for body in chunk:
        conn.request("POST", "/v1/traces", body, {"Content-Type": "application/x-protobuf"})
        resp = conn.getresponse(); resp.read()
        with lock: statuses.append(resp.status)
chunks = [bodies[i::clients] for i in range(clients)]
threads = [threading.Thread(target=worker, args=(c,)) for c in chunks]
t0 = time.perf_counter()
for t in threads: t.start()
for t in threads: t.join()
print(json.dumps({"seconds": time.perf_counter() - t0, "ok": statuses.count(200), "requests": len(statuses)}))
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

    # 2. direct exporter: ReadableSpan -> row -> INSERT
    exporter = ClickHouseSpanExporter(store.client, database=settings.store.database)
    t0 = time.perf_counter()
    for batch in batches:
        exporter.export(batch)
    exporter.force_flush()
    results["direct_exporter_spans_per_s"] = args.spans / (time.perf_counter() - t0)
    assert count(store) == args.spans
    store.command(f"TRUNCATE TABLE {TRACES_TABLE}")

    # 3. OTLP/HTTP receiver, client in another process
    bodies = [encode_spans(spans[i:i + args.request_spans]).SerializeToString()
              for i in range(0, len(spans), args.request_spans)]
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False, encoding="latin-1") as fh:
        json.dump([b.decode("latin-1") for b in bodies], fh)
    server = ReceiverServer(settings, store).start()
    try:
        out = subprocess.run([sys.executable, "-c", CLIENT, server.endpoint, fh.name, str(args.clients)],
                             capture_output=True, text=True, check=True)
        client = json.loads(out.stdout)
    finally:
        server.stop()
        os.unlink(fh.name)
    assert client["ok"] == len(bodies), client
    assert count(store) == args.spans
    results["otlp_receiver_spans_per_s"] = args.spans / client["seconds"]
    results["otlp_inserts"] = server.writer.inserts
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
    summary = {
        "bench": "ingest", "spans": args.spans, "source_bytes": 2048, "clients": args.clients,
        **{k: round(v, 1) if isinstance(v, float) else v for k, v in results.items()},
        "direct_vs_raw": round(results["direct_exporter_spans_per_s"] / ceiling, 3),
        "otlp_vs_raw": round(results["otlp_receiver_spans_per_s"] / ceiling, 3),
        "target_direct": 20_000, "target_otlp": 10_000,
        "pass": results["direct_exporter_spans_per_s"] >= 20_000 and results["otlp_receiver_spans_per_s"] >= 10_000,
    }
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
