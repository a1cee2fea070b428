"""Whether the demo's issues depend on what the embedder happened to cache, with the topic subtraction off
(the default) and on.

    python tests/bench/cluster_cache_stability.py [--trials 6] [--n 120] [--seed 11]

The demo workload is traced into a fresh embedded database and scored offline, as ``sumwatch demo`` does. Each
trial copies it into a database of its own, empties the shared embedder's cache, and (after the first trial)
encodes a random half of the failure texts plus some unrelated sentences first, as earlier work in the same
process would; then the clustering job runs. int8 activations are scaled per batch, so a text's vector moves
slightly with the texts that share its batch: a stable pipeline makes the same issues every trial. Prints the
issue sizes per trial, and one JSON line.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import uuid
from pathlib import Path
from typing import Any

import sumwatch.clustering.pipeline as pipeline
from sumwatch.monitor.demo.run import run_demo, score_demo
from sumwatch.monitor.issues import job
from sumwatch.monitor.scoring.judges import build_cascade, shared_embedder
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
    args = ap.parse_args()
    home = Path(tempfile.mkdtemp(prefix="sw-stability-"))
    source = Settings.from_env(env={}, home=home, database="source")
    store = Store.open(source)
    migrate(store)
    demo = run_demo(store, n=args.n, seed=args.seed)
    score_demo(store, build_cascade(Settings.from_env(env={}, home=home), mode="off"), demo.run_id)
    embedder = shared_embedder(source)
    encoded: list[str] = []  # what the clustering job embeds, recorded on the first trial
    plain_encode = type(embedder).encode

    def recording(self: Any, texts: list[str], *more: Any, **named: Any) -> Any:
        encoded.extend(texts)
        return plain_encode(self, texts, *more, **named)

    type(embedder).encode = recording  # type: ignore[method-assign]
    plain_init = pipeline.FailureClusterer.__init__
    report: dict[str, Any] = {"bench": "cluster_cache_stability", "n": args.n, "seed": args.seed}
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
                copy.command(f"INSERT INTO `{database}`.`{table}` SELECT * FROM `source`.`{table}`")
            embedder._cache.clear()
            if trial:
                texts = sorted(set(encoded))
                rng = random.Random(trial)
                others = [f"an unrelated line {trial} {i}" for i in range(20)]
                embedder.encode(rng.sample(texts, len(texts) // 2) + others)
            run = job.run_clustering(copy, settings)
            sizes.append(sorted(issue.members for issue in run.issues))
            copy.command(f"DROP DATABASE `{database}`")
        stable = all(s == sizes[0] for s in sizes)
        print(f"topic_weight={weight}: issues per trial {[len(s) for s in sizes]}, sizes {sizes}, "
              f"{'stable' if stable else 'UNSTABLE'}", flush=True)
        report[f"topic_weight_{weight:g}"] = {"issues": [len(s) for s in sizes], "sizes": sizes, "stable": stable}
    pipeline.FailureClusterer.__init__ = plain_init  # type: ignore[method-assign]
    print(json.dumps(report), flush=True)


if __name__ == "__main__":
    main()
