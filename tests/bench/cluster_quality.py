"""How well clustering recovers the demo's planted failure modes, and how stable issues are across runs.

    python tests/bench/cluster_quality.py [--n 600] [--seed 7] [--fresh-seed 8]

The demo workload (five domains, ten planted failure modes plus good summaries) is traced into a fresh
embedded database and scored offline (rules + embeddings), exactly as ``sumwatch demo`` does. Then:

- run 1: the clustering job on the failing spans; ARI and NMI of the issue labels against the planted mode
  (on the clustered failing spans; a good summary the judges flagged counts as its own class "none"), the
  share clustered and the share left as noise;
- run 2 on the same data: ARI between the two runs' labels (the seeds are fixed, so 1.0 is expected);
- run 3 on a fresh sample of the same workload (another seed, traced later, the window covering only it):
  the share of run 1's issues that keep their id (matched, not opened again as new).

Targets: ARI >= 0.80, clustered >= 90%, issues keeping their id >= 95%. The last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import Counter
from datetime import datetime, timedelta, timezone
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score  # noqa: E402

from sumwatch.monitor.demo import PLANTED_MODE_ATTR  # noqa: E402
from sumwatch.monitor.demo.run import run_demo, score_demo  # noqa: E402
from sumwatch.monitor.issues.job import run_clustering  # noqa: E402
from sumwatch.monitor.scoring.judges import build_cascade  # noqa: E402
from sumwatch.monitor.settings import Settings  # noqa: E402
from sumwatch.monitor.store.connection import Store  # noqa: E402
from sumwatch.monitor.store.issue_members import ISSUE_MEMBERS_TABLE  # noqa: E402
from sumwatch.monitor.store.migrations import migrate  # noqa: E402
from sumwatch.tracer.otel_traces import TRACES_TABLE  # noqa: E402

TARGETS = {"ari": 0.80, "clustered_share": 0.90, "kept_id_share": 0.95}


def _say(message: str) -> None:
    print(message, flush=True)


def _members(store: Store, run_id: str) -> dict[tuple[str, str], int]:
    return {(t, s): int(n) for t, s, n in store.query_rows(
        f"SELECT TraceId, SpanId, Number FROM {ISSUE_MEMBERS_TABLE} FINAL WHERE RunId = {{r:String}}", {"r": run_id})}


def _planted(store: Store) -> dict[tuple[str, str], str]:
    return {(t, s): m for t, s, m in store.query_rows(
        f"SELECT TraceId, SpanId, SpanAttributes['{PLANTED_MODE_ATTR}'] FROM {TRACES_TABLE}")}


def _trace_and_score(store: Store, cascade, n: int, seed: int) -> float:
    started = time.perf_counter()
    result = run_demo(store, n=n, seed=seed)
    _say(f"  traced {result.stored} spans (seed {seed}); scoring ...")
    score_demo(store, cascade, result.run_id,
               on_progress=lambda seen, scored: _say(f"    scored {scored}/{n}") if scored % 200 == 0 else None)
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=600, help="spans per sample (default 600)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--fresh-seed", type=int, default=8)
    args = parser.parse_args()

    home = Path(tempfile.mkdtemp(prefix="sumwatch-cluster-quality-"))
    settings = Settings.from_env(env={}, home=home)
    store = Store.open(settings)
    migrate(store)
    cascade = build_cascade(settings, mode="off")
    embedder = cascade.embeddings.embedder  # the scoring's sentence model: one load for the whole run

    _say(f"sample 1: {args.n} demo spans")
    scoring_s = _trace_and_score(store, cascade, args.n, args.seed)
    end_1 = datetime.now(timezone.utc) + timedelta(seconds=1)

    _say("run 1: clustering the failing spans")
    run1 = run_clustering(store, settings, now=end_1, embedder=embedder)
    planted = _planted(store)
    members1 = _members(store, run1.run_id)
    keys = sorted(members1)
    truth = [planted[k] for k in keys]
    labels = [members1[k] for k in keys]
    ari = adjusted_rand_score(truth, labels)
    nmi = normalized_mutual_info_score(truth, labels)

    _say("run 2: the same data again")
    run2 = run_clustering(store, settings, now=end_1, embedder=embedder)
    members2 = _members(store, run2.run_id)
    both = sorted(set(members1) & set(members2))
    rerun_ari = adjusted_rand_score([members1[k] for k in both], [members2[k] for k in both]) if both else 0.0
    rerun_same = len(both) / max(1, len(set(members1) | set(members2)))

    _say(f"sample 2: {args.n} fresh demo spans (seed {args.fresh_seed})")
    time.sleep(1.5)  # the fresh sample's spans start after run 1's window
    scoring_s += _trace_and_score(store, cascade, args.n, args.fresh_seed)
    end_3 = datetime.now(timezone.utc) + timedelta(seconds=1)
    window_3 = f"{(end_3 - end_1).total_seconds():.3f}s"
    _say(f"run 3: clustering only the fresh sample (window {window_3})")
    run3 = run_clustering(store, settings, now=end_3, window=window_3, embedder=embedder)
    first_ids = {i.issue_id for i in run1.issues}
    kept = {i.issue_id for i in run3.issues if i.status != "new"} & first_ids
    kept_share = len(kept) / max(1, len(first_ids))

    # what each issue of run 1 holds, against the planted modes
    by_issue: dict[int, Counter] = {}
    for k in keys:
        by_issue.setdefault(members1[k], Counter())[planted[k]] += 1
    _say("")
    _say(f"{'issue':7} {'traces':>6}  {'planted mode (purity)':34} title")
    for issue in sorted(run1.issues, key=lambda i: i.number):
        mode, count = by_issue[issue.number].most_common(1)[0]
        again = "kept" if issue.issue_id in kept else "LOST"
        _say(f"{issue.issue_id:7} {issue.members:>6}  {mode + f' ({count / issue.members:.0%})':34} "
             f"{issue.title}  [{again}]")
    noise_share = run1.noise / max(1, run1.failures)
    clustered_share = run1.clustered / max(1, run1.failures)
    figures = {
        "n_spans": args.n, "failing_spans": run1.failures, "issues": len(run1.issues),
        "ari": round(ari, 4), "nmi": round(nmi, 4), "clustered_share": round(clustered_share, 4),
        "noise_share": round(noise_share, 4), "rerun_ari": round(rerun_ari, 4), "rerun_overlap": round(rerun_same, 4),
        "fresh_failing_spans": run3.failures, "fresh_issues": len(run3.issues), "fresh_new_issues": run3.new_issues,
        "kept_id_share": round(kept_share, 4), "cluster_seconds_run1": round(run1.seconds, 2),
        "cluster_seconds_run2": round(run2.seconds, 2), "scoring_seconds": round(scoring_s, 1),
    }
    _say("")
    _say(f"{'figure':22} {'value':>8} {'target':>8}")
    for key in ("ari", "nmi", "clustered_share", "noise_share", "rerun_ari", "kept_id_share"):
        target = TARGETS.get(key)
        mark = "" if target is None else (" ok" if figures[key] >= target else " MISSED")
        _say(f"{key:22} {figures[key]:>8.3f} {'' if target is None else f'>= {target:.2f}':>8}{mark}")
    store.close()
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
