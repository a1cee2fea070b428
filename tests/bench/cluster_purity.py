"""Whether clusters keep failure kinds apart: purity before (text alone) and after (text and kind).

    python tests/bench/cluster_purity.py [--documents 3] [--per-kind 6] [--n 120] [--seed 11]

Purity is the share of clustered failures whose cluster's most common failure kind is their own. Two
workloads, each clustered by the default pipeline with ``kind_weight=0`` (the text vector alone, the
default: "before") and ``kind_weight=1`` (the kind joined in: "after"):

- few documents: ``--documents`` long documents, each failing four ways (changed number, swapped entity,
  filler padding, too short) ``--per-kind`` times, every failure quoting its document;
- the demo: ``--n`` demo spans traced into a fresh embedded database and scored offline, as ``sumwatch demo``
  does; the kind is the primary failure's (rubric, failure mode), what the issue is named by.

The last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests folder: its workload module

from few_documents import few_document_failures, purity  # noqa: E402

from sumwatch.clustering import FailureClusterer  # noqa: E402
from sumwatch.clustering.embedder import Embedder  # noqa: E402
from sumwatch.clustering.pipeline import PointMeta  # noqa: E402


def _purities(texts: list[str], meta: list[PointMeta], embedder: Embedder) -> dict[str, float]:
    vectors = embedder.encode(texts)
    kinds = [f"{m.rubric}/{m.failure_mode}" for m in meta]
    out = {}
    for label, weight in (("before", 0.0), ("after", 1.0)):
        result = FailureClusterer(embedder=embedder, kind_weight=weight).fit(texts=texts, vectors=vectors, meta=meta)
        out[label] = round(purity(result.labels, kinds), 3)
        out[f"{label}_clusters"] = len(result.clusters)
        out[f"{label}_noise"] = len(result.noise)
    return out


def _demo_failures(n: int, seed: int) -> tuple[list[str], list[PointMeta]]:
    from sumwatch.monitor.demo.run import run_demo, score_demo  # noqa: PLC0415
    from sumwatch.monitor.issues.failures import load_failures  # noqa: PLC0415
    from sumwatch.monitor.scoring.judges import build_cascade  # noqa: PLC0415
    from sumwatch.monitor.settings import Settings  # noqa: PLC0415
    from sumwatch.monitor.store.connection import Store  # noqa: PLC0415
    from sumwatch.monitor.store.migrations import migrate  # noqa: PLC0415

    with tempfile.TemporaryDirectory() as home:
        settings = Settings.from_env(env={}, home=Path(home), database="purity")
        store = Store.open(settings)
        try:
            migrate(store)
            result = run_demo(store, n=n, seed=seed)
            score_demo(store, build_cascade(settings, mode="off"), result.run_id)
            failures = load_failures(store, 0, 2**62)
        finally:
            store.close()
    return [f.text for f in failures], [PointMeta(f.rubric, f.failure_mode) for f in failures]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=3)
    parser.add_argument("--per-kind", type=int, default=6)
    parser.add_argument("--n", type=int, default=120, help="demo spans (0 leaves the demo workload out)")
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    embedder = Embedder()
    texts, meta = few_document_failures(args.documents, args.per_kind)
    report: dict[str, object] = {"few_documents": {"failures": len(texts), **_purities(texts, meta, embedder)}}
    if args.n > 0:
        texts, meta = _demo_failures(args.n, args.seed)
        report["demo"] = {"spans": args.n, "failures": len(texts), **_purities(texts, meta, embedder)}
    print(json.dumps(report), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
