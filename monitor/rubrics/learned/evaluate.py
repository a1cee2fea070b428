"""Held-out figures and cuts for the faithfulness model, next to the word-overlap baseline.

    cut = precise_fail_cut(choice_scores, choice_labels)     # chosen on the choice rows only
    figures = measure({"choice": rows, "summac/factcc": ...}, scores_by_set, cut)
    print(table(figures))                                     # per set, then the report sets pooled
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .data import LabelledSummary
from .premise import overlap_share

FAIL_PRECISION = 0.95
DOUBT_RECALL = 0.90  # ambiguous mode doubts a pass below the cut that holds this share of the inconsistent rows
MIN_FLAGGED = 10  # a precision measured on fewer flagged rows says little


@dataclass(frozen=True)
class SetFigures:
    name: str
    rows: int
    inconsistent: int
    auc: float
    auc_overlap: float
    balanced_accuracy: float  # of the offline verdict: fail below the fail cut
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


def doubt_cut(scores: Sequence[float], labels: Sequence[int], recall: float = DOUBT_RECALL) -> float:
    """The lowest cut below which at least ``recall`` of the inconsistent rows fall."""
    bad = sorted(s for s, lab in zip(scores, labels) if lab == 0)
    if not bad:
        return 0.0
    k = min(int(round(recall * len(bad))), len(bad) - 1)
    return bad[k]


def figures(name: str, rows: Sequence[LabelledSummary], scores: Sequence[float], fail_below: float) -> SetFigures:
    labels = [r.label for r in rows]
    overlap = [overlap_share(r.source, r.summary) for r in rows]
    flagged = [lab for s, lab in zip(scores, labels) if s < fail_below]
    bad = labels.count(0)
    return SetFigures(
        name, len(rows), bad, auc(scores, labels), auc(overlap, labels),
        balanced_accuracy(scores, labels, fail_below),
        flagged.count(0) / len(flagged) if flagged else None,
        flagged.count(0) / bad if bad else 0.0,
        flagged.count(1) / (len(rows) - bad) if len(rows) > bad else 0.0)


def measure(sets: Mapping[str, Sequence[LabelledSummary]], scores: Mapping[str, Sequence[float]],
            fail_below: float) -> list[SetFigures]:
    """Figures per set, then every set but "choice" pooled (the held-out report rows)."""
    out = [figures(name, rows, scores[name], fail_below) for name, rows in sets.items()]
    report = [name for name in sets if name != "choice"]
    out.append(figures("pooled report sets", [r for n in report for r in sets[n]],
                       [s for n in report for s in scores[n]], fail_below))
    return out


def table(rows: Sequence[SetFigures]) -> str:
    """A markdown table of :func:`measure`'s figures."""
    head = ("| set | rows | inconsistent | AUC | AUC word overlap | bal. acc. | precision of fail | recall of fail "
            "| false alarms |\n|---|---|---|---|---|---|---|---|---|\n")
    lines = []
    for f in rows:
        prec = "-" if f.fail_precision is None else f"{f.fail_precision:.3f}"
        lines.append(f"| {f.name} | {f.rows} | {f.inconsistent} | {f.auc:.3f} | {f.auc_overlap:.3f} | "
                     f"{f.balanced_accuracy:.3f} | {prec} | {f.fail_recall:.3f} | {f.false_alarms:.3f} |")
    return head + "\n".join(lines)
