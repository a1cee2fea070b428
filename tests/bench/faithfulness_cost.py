"""CPU cost of the offline cascade with the learned faithfulness tier against without it, same rows, one run.

    python tests/bench/faithfulness_cost.py --data ../shared/data [--rows 120] [--rounds 2]

CPU-seconds per span (time.process_time, since the machines are shared) of ``build_cascade(mode="off")`` with
``learned`` on and off, over the same SummaC rows. Each measurement gets a fresh embedder (cold caches: no
sentence is embedded before its timed pass) after the model is loaded on other rows; the two are interleaved
over ``--rounds`` so a neighbour's load hits both alike. Goal: the learned tier costs at most 2x.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from sumwatch.clustering.sentence_model.embedder import Embedder  # noqa: E402
from sumwatch.monitor.rubrics.cascade import Cascade  # noqa: E402
from sumwatch.monitor.rubrics.embeddings import EmbeddingJudge  # noqa: E402
from sumwatch.monitor.rubrics.learned.data import SUMMAC_SUBSETS, load_summac  # noqa: E402
from sumwatch.monitor.rubrics.learned.model import FaithfulnessModel  # noqa: E402
from sumwatch.monitor.rubrics.rules import RulesJudge  # noqa: E402
from sumwatch.monitor.rubrics.verdicts import SummaryCase  # noqa: E402


def cpu_per_span(cases: list[SummaryCase], warm: list[SummaryCase], learned: bool) -> float:
    embedder = Embedder()
    tier = FaithfulnessModel(embedder=embedder) if learned else None
    cascade = Cascade(RulesJudge(), EmbeddingJudge(embedder), learned=tier)
    cascade.score_batch(warm)  # loads the model; these rows are not timed
    start = time.process_time()
    for k in range(0, len(cases), 32):
        cascade.score_batch(cases[k:k + 32])
    return (time.process_time() - start) / len(cases)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--rows", type=int, default=120, help="rows per SummaC subset")
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    rows = [r for s in SUMMAC_SUBSETS for r in load_summac(args.data, s)[:args.rows + 2]]
    warm = [SummaryCase(r.source, r.summary) for r in rows[::args.rows + 2][:4]]
    cases = [SummaryCase(r.source, r.summary) for r in rows if SummaryCase(r.source, r.summary) not in warm]
    without, with_ = [], []
    for _ in range(args.rounds):
        without.append(cpu_per_span(cases, warm, learned=False))
        with_.append(cpu_per_span(cases, warm, learned=True))
    base, learned = min(without), min(with_)
    print(f"{'offline cascade':<44}{'CPU-s/span':>12}")
    print(f"{'rules + embeddings':<44}{base:>12.4f}")
    print(f"{'rules + embeddings + learned tier':<44}{learned:>12.4f}")
    print(f"{'ratio':<44}{learned / base:>12.2f}")
    print(json.dumps({"bench": "faithfulness_cost", "spans": len(cases), "rounds": args.rounds,
                      "cascade_cpu_s_per_span": round(base, 4), "with_learned_cpu_s_per_span": round(learned, 4),
                      "ratio": round(learned / base, 2), "goal_ratio": 2.0}))


if __name__ == "__main__":
    main()
