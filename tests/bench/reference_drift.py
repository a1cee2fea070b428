"""The drift gate's cut (ref_drift), chosen on half of SummEval and measured on the other half.

    python tests/bench/reference_drift.py --data ../shared/data [--limit-docs 20]

SummEval: 100 CNN/DailyMail articles, each with one reference summary and 16 system summaries that three experts
rated 1..5 for relevance (did the summary pick the article's important content). A summary the experts rated
relevance < 3 on average (below the scale's midpoint) counts as drifted. The gate's cosine is
``reference_gates.drift``: all-MiniLM-L6-v2 sentence vectors, the candidate's centroid against the reference's.

Articles are numbered in file order. The cut is chosen on the even-numbered articles only: the cosine (on a 0.01
grid) whose "cosine < cut" flag has the best F0.5 for drifted summaries there (precision weighted over recall: a
gate fails summaries, so a false alarm costs more than a miss; the F1-best cut, 0.76, flags 429 of the 800
summaries there, where 128 are drifted), ties to the higher precision. The odd-numbered articles, never used to
choose, give the reported precision, recall, F1 and AUC, at the chosen cut and at the product's
``DRIFT_THRESHOLD`` (which should be the same). The format gate runs on every system summary
too: SummEval's systems never chat, so each flag there is a false alarm. The last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

DRIFTED_BELOW = 3.0  # mean expert relevance under this: the summary has drifted from what matters


def _auc(scores: list[float], labels: list[bool]) -> float:
    """Probability that a random positive scores above a random negative (ties count half)."""
    order = sorted(range(len(scores)), key=lambda i: scores[i])
    ranks = [0.0] * len(scores)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and scores[order[j + 1]] == scores[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    pos = sum(labels)
    neg = len(labels) - pos
    if not pos or not neg:
        return float("nan")  # one class only (a small --limit-docs): printed as null
    return (sum(r for r, y in zip(ranks, labels) if y) - pos * (pos + 1) / 2) / (pos * neg)


def _rounded(value: float) -> float | None:
    return None if math.isnan(value) else round(value, 4)


def _flags(cosines: list[float], drifted: list[bool], cut: float) -> dict[str, float]:
    flagged = [c < cut for c in cosines]
    tp = sum(f and d for f, d in zip(flagged, drifted))
    fp = sum(f and not d for f, d in zip(flagged, drifted))
    fn = sum(d and not f for f, d in zip(flagged, drifted))
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    f05 = 1.25 * precision * recall / (0.25 * precision + recall) if precision + recall else 0.0
    return {"precision": round(precision, 4), "recall": round(recall, 4), "f1": round(f1, 4), "f0.5": round(f05, 4),
            "flagged": sum(flagged), "drifted": sum(drifted), "rows": len(cosines)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=Path("../shared/data"))
    ap.add_argument("--limit-docs", type=int, default=0, help="only the first N articles (a quick look)")
    args = ap.parse_args()
    path = args.data / "summeval" / "summeval.jsonl"
    if not path.is_file():
        sys.exit(f"no SummEval file at {path}")

    from sumwatch.clustering.sentence_model.embedder import Embedder
    from sumwatch.monitor.rubrics.embeddings import split_for_embedding
    from sumwatch.monitor.rubrics.reference_gates import DRIFT_THRESHOLD, drift, format_issues

    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    docs: dict[str, int] = {}
    for row in rows:
        docs.setdefault(row["doc_id"], len(docs))
    if args.limit_docs:
        rows = [r for r in rows if docs[r["doc_id"]] < args.limit_docs]

    embedder = Embedder()
    started = time.perf_counter()
    # every sentence embedded in one call first; drift() then reads them from the embedder's cache
    embedder.encode(list(dict.fromkeys(s for r in rows for t in (r["system_output"], r["reference"])
                                       for s in split_for_embedding(t))))
    cosines = [drift(r["system_output"], r["reference"], embedder).cosine for r in rows]
    seconds = time.perf_counter() - started
    drifted = [r["scores"]["relevance"] < DRIFTED_BELOW for r in rows]
    half = [docs[r["doc_id"]] % 2 for r in rows]

    def part(h: int) -> tuple[list[float], list[bool]]:
        return [c for c, x in zip(cosines, half) if x == h], [d for d, x in zip(drifted, half) if x == h]

    choose_c, choose_d = part(0)
    report_c, report_d = part(1)
    grid = [round(0.01 * k, 2) for k in range(1, 100)]
    best = max(grid, key=lambda t: (_flags(choose_c, choose_d, t)["f0.5"], _flags(choose_c, choose_d, t)["precision"]))
    chosen = {"cut": best, **_flags(choose_c, choose_d, best),
              "auc": _rounded(_auc([-c for c in choose_c], choose_d))}
    reported = {"cut": best, **_flags(report_c, report_d, best),
                "auc": _rounded(_auc([-c for c in report_c], report_d))}
    product = {"cut": DRIFT_THRESHOLD, **_flags(report_c, report_d, DRIFT_THRESHOLD)}
    chatty = [r for r in rows if format_issues(r["system_output"], r["reference"], r["source"])]

    print(f"SummEval: {len(rows)} summaries of {len({r['doc_id'] for r in rows})} articles; drifted = relevance < "
          f"{DRIFTED_BELOW:g} ({sum(drifted)} rows); cosines in {seconds:.1f} s")
    for name, figures in (("chosen on even articles:", chosen), ("held-out odd articles:  ", reported)):
        print(f"  {name} cut {best:.2f}  P {figures['precision']:.3f}  R {figures['recall']:.3f}  "
              f"F1 {figures['f1']:.3f}  F0.5 {figures['f0.5']:.3f}  AUC {figures['auc']}  "
              f"({figures['flagged']} flagged of {figures['rows']})")
    print(f"  product's DRIFT_THRESHOLD {DRIFT_THRESHOLD:.2f} on odd articles: P {product['precision']:.3f}  "
          f"R {product['recall']:.3f}  F1 {product['f1']:.3f}" + ("" if best == DRIFT_THRESHOLD else
                                                                "  (differs from the chosen cut)"))
    print(f"  format gate on SummEval's system summaries: {len(chatty)} flagged of {len(rows)} (each a false alarm)")
    print(json.dumps({"benchmark": "reference_drift", "label": f"relevance < {DRIFTED_BELOW:g}",
                      "split": "articles in file order: even choose, odd report", "chosen_on_even": chosen,
                      "held_out_odd": reported, "product_threshold": DRIFT_THRESHOLD,
                      "product_on_odd": product, "format_false_alarms": len(chatty), "rows": len(rows),
                      "model": getattr(embedder, "version", embedder.name)}))


if __name__ == "__main__":
    main()
