"""The gate on judge changes: Cohen's kappa against human verdicts, compared with the stored baseline.

    report = calibrate(store, cascade, "factuality")          # Cohen's kappa, overall and per bucket
    report.gate.passed                                        # False: kappa fell vs the baseline

Only ``labelled`` corpus items count (see :mod:`sumwatch.monitor.store.corpus`): an item its labellers
disagree on counts with its resolved label once someone resolved it, and is left out (counted in the
report's ``disputed``) until then. Each calibration run
is compared with the stored baseline of the rubric (the latest recorded, any judge version) and fails
when overall kappa drops by more than 0.05 or a bucket's by more than 0.10; a passing run becomes the
new baseline for its judge version.

Per-bucket kappa: a bucket (e.g. ``negation_flip``) holds items of mostly one human verdict, where
kappa on its own is undefined, so a bucket's kappa is computed on its items together with the
corpus's passing items, on the pass/fail decision: how well the judge tells that failure from good
summaries.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence
from typing import Any

from ..contract.calibration import DISPUTED, LABELLED, BucketAgreement, CalibrationReport, CorpusItem, GateResult
from ..rubrics.definition import BUILTIN
from ..rubrics.verdicts import PASSING
from ..store.baselines import latest_baseline
from ..store.baselines import record_baseline as store_baseline
from ..store.connection import Store
from ..store.corpus import item_case, load_items
from ..store.judges import active_definitions, check_rubric

OVERALL_DROP, BUCKET_DROP = 0.05, 0.10


# -- agreement ------------------------------------------------------------------------------------
def cohen_kappa(human: Sequence[str], judge: Sequence[str]) -> float | None:
    """Cohen's kappa between two labelings; None when undefined (both constant on one label)."""
    if len(human) != len(judge):
        raise ValueError("labelings differ in length")
    n = len(human)
    if n == 0:
        return None
    observed = sum(1 for a, b in zip(human, judge) if a == b) / n
    ch, cj = Counter(human), Counter(judge)
    expected = sum(ch[label] * cj[label] for label in set(ch) | set(cj)) / (n * n)
    if expected >= 1.0:
        return None
    return (observed - expected) / (1.0 - expected)


def agreement(rubric: str, items: Sequence[CorpusItem], verdicts: Sequence[str],
              judge_version: str, *, passing: frozenset[str] | None = None) -> CalibrationReport:
    """Kappa of ``verdicts`` against the items' human verdicts, overall and per bucket; ``passing`` is the
    judge definition's passing set (default: the built-in rubric's)."""
    human = [i.human_verdict for i in items]
    if passing is None:
        if rubric not in PASSING:
            raise ValueError(f"rubric {rubric!r} is not built in: give the passing verdicts of its definition")
        passing = PASSING[rubric]
    confusion: dict[str, dict[str, int]] = {}
    for h, j in zip(human, verdicts):
        confusion.setdefault(h, {}).setdefault(j, 0)
        confusion[h][j] += 1
    buckets = []
    pass_idx = [k for k, i in enumerate(items) if i.human_verdict in passing]
    for bucket in sorted({i.bucket for i in items}):
        idx = [k for k, i in enumerate(items) if i.bucket == bucket]
        pool = sorted(set(idx) | set(pass_idx))
        h_bin = ["pass" if items[k].human_verdict in passing else "fail" for k in pool]
        j_bin = ["pass" if verdicts[k] in passing else "fail" for k in pool]
        pass_rate = round(sum(verdicts[k] in passing for k in idx) / len(idx), 3)
        failing_bucket = any(items[k].human_verdict not in passing for k in idx)
        measurable = not (failing_bucket and pass_rate == 1.0)
        buckets.append(BucketAgreement(bucket, len(idx), _round(cohen_kappa(h_bin, j_bin)), pass_rate, measurable))
    accuracy = sum(1 for h, j in zip(human, verdicts) if h == j) / max(len(items), 1)
    warnings = [f"bucket {b.bucket}: the judge passes all {b.items} items, so there is no disagreement to measure "
                f"(kappa {b.kappa}); it is not stored as a baseline" for b in buckets if not b.measurable]
    return CalibrationReport(rubric, judge_version, len(items), _round(cohen_kappa(human, verdicts)),
                             round(accuracy, 4), buckets, confusion, warnings=warnings)


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def corpus_hash(items: Sequence[CorpusItem]) -> str:
    digest = hashlib.sha256()
    for item in sorted(items, key=lambda i: i.item_id):
        digest.update(f"{item.item_id}:{item.human_verdict}:{item.bucket}\n".encode())
    return digest.hexdigest()[:16]


def gate(report: CalibrationReport, baseline: tuple[str, float | None, dict[str, float]] | None, *,
         against: str = "the baseline") -> GateResult:
    """Refuse ``report`` when its overall kappa is more than OVERALL_DROP below ``baseline``'s, or a bucket's
    more than BUCKET_DROP below that bucket's; ``against`` names the baseline in the reasons."""
    if baseline is None:
        return GateResult(True, None, None, ["no baseline yet: this run becomes the baseline"])
    version, kappa, bucket_kappas = baseline
    reasons = []
    current = report.kappa if report.kappa is not None else 0.0
    if kappa is not None and current < kappa - OVERALL_DROP:
        reasons.append(f"overall kappa {current:.3f} is {kappa - current:.3f} below {against} {kappa:.3f} "
                       f"({version}); the limit is {OVERALL_DROP}")
    for b in report.buckets:
        before = bucket_kappas.get(b.bucket)
        now = b.kappa if b.kappa is not None else 0.0
        if before is not None and now < before - BUCKET_DROP:
            reasons.append(f"bucket {b.bucket}: kappa {now:.3f} is {before - now:.3f} below {against} "
                           f"{before:.3f}; the limit is {BUCKET_DROP}")
    return GateResult(not reasons, version, kappa, reasons)


def gate_against(candidate: CalibrationReport, active: CalibrationReport) -> GateResult:
    """The gate on an edit: ``candidate`` against the ``active`` version run on the same items."""
    buckets = {b.bucket: b.kappa for b in active.buckets if b.kappa is not None}
    return gate(candidate, (active.judge_version, active.kappa, buckets), against="the active version")


def record_baseline(store: Store, report: CalibrationReport, items: Sequence[CorpusItem]) -> None:
    store_baseline(store, report.rubric, report.judge_version,
                   kappa=report.kappa if report.kappa is not None else 0.0,
                   bucket_kappas={b.bucket: b.kappa for b in report.buckets
                                  if b.kappa is not None and b.measurable},
                   items=report.items, corpus_hash=corpus_hash(items))


def calibrate(store: Store, cascade: Any, rubric: str, *, judge_version: str | None = None,
              record: bool = True) -> CalibrationReport:
    """Run the judge over the rubric's labelled corpus, compare with the baseline, record if it holds."""
    check_rubric(store, rubric)
    items = load_items(store, rubric=rubric, status=LABELLED)
    if not items:
        raise ValueError(f"the {rubric} corpus has no labelled items: run `sumwatch corpus seed` or import some")
    definitions = getattr(cascade, "definitions", None) or BUILTIN
    if rubric not in definitions:
        # a team's own rubric, unknown to a cascade built from the settings: judged as its promotion says
        definitions = active_definitions(store)
        if rubric not in definitions:
            raise ValueError(f"no stored {rubric} definition can be read by this version of sumwatch: "
                             f"promote one again")
        cascade = cascade.with_definitions(definitions)
    results = cascade.score_batch([item_case(i) for i in items], rubrics=[rubric])
    verdicts = [r[rubric].verdict for r in results]
    report = agreement(rubric, items, verdicts, judge_version or cascade.version,
                       passing=definitions[rubric].passing)
    report.disputed = len(load_items(store, rubric=rubric, status=DISPUTED))
    if report.disputed:
        report.warnings.append(f"{report.disputed} item(s) left out: their labellers disagree and nobody resolved "
                               f"them (`sumwatch corpus agreement --rubric {rubric}`)")
    report.gate = gate(report, latest_baseline(store, rubric))
    if record and report.gate.passed:
        record_baseline(store, report, items)
        report.recorded = True
    return report
