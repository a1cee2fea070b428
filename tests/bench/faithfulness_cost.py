"""CPU cost of the learned faithfulness model next to today's offline cascade, on the same rows, in one run.

    python tests/bench/faithfulness_cost.py --data ../shared/data [--rows 120]

CPU-seconds per span (time.process_time, since the machines are shared): the offline cascade
(build_cascade(mode="off"): rules + embeddings) and FaithfulnessModel.score over the same SummaC rows; both
are warmed up (models loaded) outside the timing, and neither has seen the timed rows before (cold caches).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from sumwatch.monitor.rubrics.learned.data import SUMMAC_SUBSETS, load_summac  # noqa: E402
from sumwatch.monitor.rubrics.learned.model import FaithfulnessModel  # noqa: E402
from sumwatch.monitor.rubrics.verdicts import SummaryCase  # noqa: E402
from sumwatch.monitor.scoring.judges import build_cascade  # noqa: E402
from sumwatch.monitor.settings import Settings  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--rows", type=int, default=120, help="rows per SummaC subset")
    args = ap.parse_args()
    rows = [r for s in SUMMAC_SUBSETS for r in load_summac(args.data, s)[:args.rows + 2]]
    warm = [rows[i] for i in range(0, len(rows), args.rows + 2)][:4]
    timed = [r for r in rows if r not in warm]
    cases = [SummaryCase(r.source, r.summary) for r in timed]

    cascade = build_cascade(Settings.from_env(env={}), mode="off")
    cascade.score_batch([SummaryCase(r.source, r.summary) for r in warm])
    start = time.process_time()
    cascade.score_batch(cases)
    cascade_cpu = (time.process_time() - start) / len(cases)

    model = FaithfulnessModel()
    model.score_many([(r.source, r.summary) for r in warm])
    start = time.process_time()
    for r in timed:
        model.score(r.source, r.summary)
    model_cpu = (time.process_time() - start) / len(timed)

    print(f"{'measure':<52}{'CPU-s/span':>12}")
    print(f"{'offline cascade today (rules + embeddings)':<52}{cascade_cpu:>12.4f}")
    print(f"{'learned faithfulness model, one summary at a time':<52}{model_cpu:>12.4f}")
    print(f"{'ratio model / cascade':<52}{model_cpu / cascade_cpu:>12.2f}")
    print(json.dumps({"bench": "faithfulness_cost", "spans": len(timed),
                      "cascade_cpu_s_per_span": round(cascade_cpu, 4),
                      "model_cpu_s_per_span": round(model_cpu, 4), "ratio": round(model_cpu / cascade_cpu, 2)}))


if __name__ == "__main__":
    main()
