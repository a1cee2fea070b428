"""GenAI log records into embedded chDB, many small requests at once: one INSERT per request (the /v1/logs path
before its group commit) against the receiver's group commit, in one run, and the whole receiver over HTTP.

    python tests/bench/logs_ingest.py [--requests 1200] [--records 3] [--clients 8]

A contrib instrumentation's batch log processor sends a few records per export, from every app process, so the
path is many small requests. Both write paths get the same records from the same threads; the
figure that matters is their ratio on this machine.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path

import httpx

from sumwatch.monitor.ingest.receiver import LOGS_PATH, ReceiverServer, log_writer
from sumwatch.monitor.settings import Settings
from sumwatch.monitor.store.connection import Store
from sumwatch.monitor.store.genai_events import GENAI_EVENTS_TABLE, GenAiEvent, write_genai_events
from sumwatch.monitor.store.migrations import migrate

BODY = json.dumps({"content": "Quarterly revenue rose 12% to $4.2 million while costs fell 3%. " * 12})


def requests_of(n: int, per: int, salt: int) -> list[list[GenAiEvent]]:
    """``n`` requests of ``per`` records, each request one call's records (its own trace and span)."""
    base = 1_767_225_600 * 10**9
    return [[GenAiEvent(base + i * 1000 + j, f"{salt:08x}{i:024x}", f"{i + 1:016x}", "gen_ai.user.message", BODY, j,
                        "bench", {"gen_ai.system": "openai"}) for j in range(per)] for i in range(n)]


def timed(requests: Sequence[list[GenAiEvent]], clients: int, write: Callable[[list[GenAiEvent]], None]) -> float:
    """Seconds for ``clients`` threads to write every request, each waiting for its own to be stored."""
    chunks = [requests[i::clients] for i in range(clients)]
    threads = [threading.Thread(target=lambda c=c: [write(r) for r in c]) for c in chunks]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.perf_counter() - t0


def stored(store: Store) -> tuple[int, int]:
    return store.query_rows(f"SELECT count(), uniqExact(TraceId, SpanId, Position) FROM {GENAI_EVENTS_TABLE}")[0]


def otlp_json(records: list[GenAiEvent]) -> bytes:
    return json.dumps({"resourceLogs": [{"scopeLogs": [{"logRecords": [
        {"eventName": r.name, "timeUnixNano": str(r.timestamp_ns), "traceId": r.trace_id, "spanId": r.span_id,
         "body": {"stringValue": r.body}} for r in records]}]}]}).encode()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--requests", type=int, default=1200)
    ap.add_argument("--records", type=int, default=3, help="GenAI records per request")
    ap.add_argument("--clients", type=int, default=8, help="concurrent senders, each waiting for its answer")
    args = ap.parse_args()
    total = args.requests * args.records

    home = Path(tempfile.mkdtemp(prefix="sumwatch-bench-"))
    settings = Settings.from_env(env={}, home=home, database=f"bench_{uuid.uuid4().hex[:8]}", port=0)
    store = Store.open(settings)
    migrate(store)
    results: dict[str, float | int] = {}

    # before: one INSERT per request, as /v1/logs wrote them
    seconds = timed(requests_of(args.requests, args.records, 1), args.clients,
                    lambda rows: write_genai_events(store, rows))
    assert stored(store) == (total, total)
    results["per_request_records_per_s"] = total / seconds
    results["per_request_inserts"] = args.requests
    store.command(f"TRUNCATE TABLE {GENAI_EVENTS_TABLE}")

    # after: the receiver's group commit, each sender waiting for its future as the route does
    writer = log_writer(settings, store).start()
    seconds = timed(requests_of(args.requests, args.records, 2), args.clients,
                    lambda rows: writer.submit(rows).result())
    writer.stop()
    assert stored(store) == (total, total) and writer.rows_written == total
    results["group_commit_records_per_s"] = total / seconds
    results["group_commit_inserts"] = writer.inserts
    store.command(f"TRUNCATE TABLE {GENAI_EVENTS_TABLE}")

    # the whole receiver: decode, group commit, answer (the HTTP client shares this process)
    bodies = [otlp_json(r) for r in requests_of(args.requests, args.records, 3)]
    server = ReceiverServer(settings, store).start()
    answers: list[str] = []
    try:
        with httpx.Client() as client:
            def post(body: bytes) -> None:
                r = client.post(server.endpoint + LOGS_PATH, content=body,
                                headers={"content-type": "application/json"})
                answers.append(f"{r.status_code} {r.text[:200]}")

            seconds = timed(bodies, args.clients, post)  # type: ignore[arg-type]
    finally:
        server.stop()
    failed = [a for a in answers if not a.startswith("200")]
    assert len(answers) == args.requests and not failed, failed[:3]
    assert stored(store) == (total, total)
    results["receiver_records_per_s"] = total / seconds
    results["receiver_inserts"] = server.log_writer.inserts

    store.command(f"DROP DATABASE IF EXISTS `{settings.store.database}`")
    store.close()
    ratio = results["group_commit_records_per_s"] / results["per_request_records_per_s"]
    print(f"{args.requests} requests of {args.records} GenAI records ({len(BODY)} B bodies) from {args.clients} "
          f"concurrent senders", file=sys.stderr)
    for name, key, inserts in (("one INSERT per request", "per_request_records_per_s", "per_request_inserts"),
                               ("group commit", "group_commit_records_per_s", "group_commit_inserts"),
                               ("receiver over HTTP", "receiver_records_per_s", "receiver_inserts")):
        print(f"{name:<24}{results[key]:>12,.0f} records/s{results[inserts]:>8} INSERTs", file=sys.stderr)
    print(json.dumps({"bench": "logs_ingest", "requests": args.requests, "records": total, "clients": args.clients,
                      **{k: round(v, 1) for k, v in results.items()}, "group_vs_per_request": round(ratio, 2)}))


if __name__ == "__main__":
    main()
