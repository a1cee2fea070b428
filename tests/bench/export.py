"""Exporting many issues to trackers that misbehave: tickets per second, retries, and duplicates (goal 0).

    python tests/bench/export.py [--issues 500] [--rate-limited 0.2] [--timeouts 0.05] [--pace 100000]

One clustering run with ``--issues`` issues is written into a fresh embedded database (as the clustering job
writes it, one representative each). Each target (GitHub, Linear, Jira, Slack, the signed webhook, on the
loopback fakes in tests/fakes/trackers.py, and Markdown files) then gets every issue through
``export_issues``. The fakes answer 429 with ``Retry-After: 0.01`` to ``--rate-limited`` of all calls and hold
``--timeouts`` of them past the client's timeout, still applying them (a create the tracker stored though the
client gave up). Ticket targets look such a create up by its marker before creating it again; alerts are sent
at most once, so an alert that timed out counts as failed, not retried. ``--pace`` raises every target's pace
(requests a minute; GitHub's default is 80, which would take 6 minutes for 500 issues). A second pass exports
everything again (updates, no new tickets). The last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import threading
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fakes.trackers import FakeTrackers, Fault  # noqa: E402

from sumwatch.monitor.exports.registry import build_target  # noqa: E402
from sumwatch.monitor.exports.sync import export_issues  # noqa: E402
from sumwatch.monitor.settings import SEVERITIES as _ALL_SEVERITIES  # noqa: E402
from sumwatch.monitor.settings import Settings  # noqa: E402
from sumwatch.monitor.store.connection import Store  # noqa: E402
from sumwatch.monitor.store.issue_members import REPRESENTATIVE, MemberRow, save_members  # noqa: E402
from sumwatch.monitor.store.issues import IssueState, save_states  # noqa: E402
from sumwatch.monitor.store.migrations import migrate  # noqa: E402
from sumwatch.monitor.store.runs import RunRow, save_run  # noqa: E402

TARGETS = ("github", "linear", "jira", "slack", "webhook", "markdown")
SEVERITIES = _ALL_SEVERITIES


def fill(store: Store, n: int) -> None:
    at = datetime.now(timezone.utc)
    states = [IssueState(i, f"SW-{i}", f"Planted failure {i}: numbers changed", "Figures differ from the source. " * 4,
                         "The model rewrites numbers.", "Copy figures verbatim.", SEVERITIES[i % 4], "factuality",
                         "number_mismatch", ["number"], "new", 3 + i % 7, 3 + i % 7, 0.01, 0, at, at,
                         np.ones(4, dtype=np.float32), "m", "KeywordNamer") for i in range(1, n + 1)]
    save_states(store, states, "run-1", at)
    save_members(store, [MemberRow("run-1", s.number, uuid.uuid4().hex, "0" * 16, at, service_name="svc",
                                   rubric="factuality", verdict="numerically_wrong", failure_mode="number_mismatch",
                                   membership=0.9, role=REPRESENTATIVE, evidence='summary: "21%" | source: "12%"',
                                   failure_text="text", run_at=at)
                         for s in states])
    save_run(store, RunRow("run-1", at, at, at, at, failures=n * 5, clustered=n * 5, noise=0, issues=n, new_issues=n,
                           embedded=0, promoted=0, namer="KeywordNamer", embedding_model="m", seconds=1.0))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--issues", type=int, default=500)
    parser.add_argument("--rate-limited", type=float, default=0.2)
    parser.add_argument("--timeouts", type=float, default=0.05)
    parser.add_argument("--timeout-s", type=float, default=0.25, help="the client's timeout")
    parser.add_argument("--pace", type=float, default=100_000, help="requests a minute per target")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--targets", default=",".join(TARGETS))
    args = parser.parse_args()

    rng, lock = random.Random(args.seed), threading.Lock()

    def fault(target: str, op: str) -> Fault | None:
        with lock:
            roll = rng.random()
        if roll < args.rate_limited:
            return Fault(429, retry_after="0.01")
        if roll < args.rate_limited + args.timeouts:
            return Fault(delay=args.timeout_s * 1.6)
        return None

    figures: dict[str, object] = {"bench": "export", "issues": args.issues, "rate_limited": args.rate_limited,
                                  "timeouts": args.timeouts, "pace_per_min": args.pace, "targets": {}}
    with tempfile.TemporaryDirectory() as home, FakeTrackers(fault=fault) as fake:
        settings = Settings.from_env(env={}, home=Path(home), database="bench")
        store = Store.open(settings)
        migrate(store)
        fill(store, args.issues)
        pace = ",".join(f"{t}={args.pace:g}" for t in TARGETS)
        config = fake.config(markdown_dir=home, export_timeout_s=args.timeout_s, export_backoff_s=0.005,
                             export_max_attempts=8, export_pace=pace)
        for name in args.targets.split(","):
            before = len(fake.requests)
            tracker = build_target(name, config)
            started = time.perf_counter()
            results = export_issues(store, config, name, statuses=["new"], tracker=tracker)
            seconds = time.perf_counter() - started
            sent = [r for r in results if r.action in ("created", "alerted")]
            requests, retries = len(fake.requests) - before, tracker.retries
            again = time.perf_counter()
            second = [] if tracker.kind == "alert" else export_issues(store, config, name, statuses=["new"],
                                                                      tracker=tracker)
            resync = time.perf_counter() - again
            tracker.close()
            figures["targets"][name] = {  # type: ignore[index]
                "exported": len(sent), "failed": sum(r.action == "failed" for r in results),
                "tickets_per_s": round(len(sent) / seconds, 1), "seconds": round(seconds, 2),
                "requests": requests, "retries": retries,
                "duplicates": fake.duplicates(name),
                "resync_updated": sum(r.action == "updated" for r in second),
                "resync_per_s": round(len(second) / resync, 1) if second else None,
                "errors": sorted({r.error.split(":")[-1].strip() for r in results if r.error})[:3]}
            print(f"{name}: {figures['targets'][name]}", file=sys.stderr, flush=True)  # type: ignore[index]
        store.close()
    figures["duplicates"] = sum(t["duplicates"] for t in figures["targets"].values())  # type: ignore[attr-defined]
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
