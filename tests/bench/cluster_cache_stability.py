"""Whether the issues depend on what the embedder happened to cache, with the document subtraction off and on
(the default).

    python tests/bench/cluster_cache_stability.py [--trials 6] [--n 120] [--seed 11] [--workload demo,few]

Two workloads, each in a fresh embedded database: the demo (``--n`` spans traced and scored offline, as ``sumwatch
demo`` does; every span has a document of its own) and a few long documents each failing four ways 6 times
(``tests/few_documents.py``; the subtraction's case). Each trial copies the workload into a database of its own,
empties the shared embedder's cache, and (after the first trial)
encodes a random half of the failure texts plus some unrelated sentences first, as earlier work in the same
process would; then the clustering job runs. int8 activations are scaled per batch, so a text's vector moves
slightly with the texts that share its batch: a stable pipeline makes the same issues every trial. Prints the
issue sizes per trial, and one JSON line.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests folder: its workload module

import sumwatch.clustering.pipeline as pipeline
from sumwatch.monitor.demo.run import run_demo, score_demo
from sumwatch.monitor.issues import job
from sumwatch.monitor.scoring.judges import build_cascade, build_embedder
from sumwatch.monitor.settings import Settings
from sumwatch.monitor.store.connection import Store
from sumwatch.monitor.store.migrations import migrate
from sumwatch.monitor.store.scores import SCORES_TABLE
from sumwatch.tracer.otel_traces import TRACES_TABLE


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--trials", type=int, default=6)
    ap.add_argument("--n", type=int, default=120)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--workload", default="demo,few", help="demo, few (documents) or both, comma-separated")
    args = ap.parse_args()
    report: dict[str, Any] = {"bench": "cluster_cache_stability", "n": args.n, "seed": args.seed}
    home = Path(tempfile.mkdtemp(prefix="sw-stability-"))  # one embedded engine per process: one home
    for workload in args.workload.split(","):
        report[workload] = _trials(workload.strip(), args, home)
    print(json.dumps(report), flush=True)


def _trials(workload: str, args: argparse.Namespace, home: Path) -> dict[str, Any]:
    from few_documents import store_few_documents  # noqa: PLC0415

    source = Settings.from_env(env={}, home=home, database=f"source_{workload}")
    store = Store.open(source)
    migrate(store)
    now = None
    if workload == "demo":
        demo = run_demo(store, n=args.n, seed=args.seed)
        score_demo(store, build_cascade(Settings.from_env(env={}, home=home), mode="off"), demo.run_id)
    elif workload == "few":
        ns = 1_700_000_000_000_000_000
        store_few_documents(store, 3, 6, ns)
        now = datetime.fromtimestamp(ns / 1e9 + 60, tz=timezone.utc)
    else:
        raise SystemExit(f"--workload: {workload!r} is not demo or few")
    embedder = build_embedder(source)  # every trial's clustering run encodes with this one
    encoded: list[str] = []  # what the clustering job embeds, recorded on the first trial
    plain_encode = type(embedder).encode

    def recording(self: Any, texts: list[str], *more: Any, **named: Any) -> Any:
        encoded.extend(texts)
        return plain_encode(self, texts, *more, **named)

    type(embedder).encode = recording  # type: ignore[method-assign]
    plain_init = pipeline.FailureClusterer.__init__
    report: dict[str, Any] = {}
    for weight in (0.0, 1.0):
        def with_weight(self: Any, *more: Any, _weight: float = weight, **named: Any) -> None:
            named.setdefault("topic_weight", _weight)
            plain_init(self, *more, **named)

        pipeline.FailureClusterer.__init__ = with_weight  # type: ignore[method-assign]
        sizes = []
        for trial in range(args.trials):
            database = f"trial_{uuid.uuid4().hex[:8]}"
            settings = Settings.from_env(env={}, home=home, database=database)
            copy = Store.open(settings)
            migrate(copy)
            for table in (TRACES_TABLE, SCORES_TABLE):
                copy.command(f"INSERT INTO `{database}`.`{table}` SELECT * FROM `{source.store.database}`.`{table}`")
            embedder._cache.clear()
            if trial:
                texts = sorted(set(encoded))
                rng = random.Random(trial)
                others = [f"an unrelated line {trial} {i}" for i in range(20)]
                embedder.encode(rng.sample(texts, len(texts) // 2) + others)
            run = job.run_clustering(copy, settings, now=now, embedder=embedder)
            sizes.append(sorted(issue.members for issue in run.issues))
            copy.command(f"DROP DATABASE `{database}`")
        stable = all(s == sizes[0] for s in sizes)
        print(f"{workload}: topic_weight={weight}: issues per trial {[len(s) for s in sizes]}, sizes {sizes}, "
              f"{'stable' if stable else 'UNSTABLE'}", flush=True)
        report[f"topic_weight_{weight:g}"] = {"issues": [len(s) for s in sizes], "sizes": sizes, "stable": stable}
    pipeline.FailureClusterer.__init__ = plain_init  # type: ignore[method-assign]
    type(embedder).encode = plain_encode  # type: ignore[method-assign]
    return report


if __name__ == "__main__":
    main()
