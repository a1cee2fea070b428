"""Calibration corpora and the gate on judge changes.

    import_jsonl(store, Path("factuality.jsonl"))             # items with human verdicts
    report = calibrate(store, cascade, "factuality")          # Cohen's kappa, overall and per bucket
    report.gate.passed                                        # False: kappa fell vs the baseline

A corpus item is (rubric, source, summary or claim, human verdict, failure-mode bucket, origin,
status). Only ``labelled`` items count; promoted examples wait as ``needs_label`` until a person labels
them. Each calibration run is compared with the stored baseline of the rubric (the latest recorded,
any judge version) and fails when overall kappa drops by more than 0.05 or a bucket's by more than
0.10; a passing run becomes the new baseline for its judge version.

Per-bucket kappa: a bucket (e.g. ``negation_flip``) holds items of mostly one human verdict, where
kappa on its own is undefined, so a bucket's kappa is computed on its items together with the
corpus's passing items, on the pass/fail decision: how well the judge tells that failure from good
summaries.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Optional

from .rubrics.verdicts import PASSING, RUBRICS, VERDICTS, SummaryCase
from .store.connection import Store, equals_filter
from .store.schema import BASELINES_TABLE, CORPUS_TABLE

LABELLED, NEEDS_LABEL, REJECTED = "labelled", "needs_label", "rejected"
STATUSES = (LABELLED, NEEDS_LABEL, REJECTED)
PASS_BUCKET = "pass"
OVERALL_DROP, BUCKET_DROP = 0.05, 0.10
CORPUS_COLUMNS = ("ItemId", "Rubric", "Source", "Summary", "Claim", "HumanVerdict", "ProposedVerdict", "Bucket",
                  "Origin", "Status", "Band", "ExpectedFacts", "TraceId", "Note", "UpdatedAt")
STARTER_DIR = Path(__file__).parent / "corpora"


@dataclass(frozen=True)
class CorpusItem:
    rubric: str
    source: str
    summary: str
    human_verdict: str = ""  # empty until labelled
    bucket: str = PASS_BUCKET
    origin: str = "manual"
    status: str = LABELLED
    claim: str = ""
    proposed_verdict: str = ""
    band: str = ""
    expected_facts: tuple[str, ...] = ()
    trace_id: str = ""
    note: str = ""
    item_id: str = ""

    def __post_init__(self) -> None:
        if self.rubric not in RUBRICS:
            raise ValueError(f"unknown rubric {self.rubric!r} (one of {', '.join(RUBRICS)})")
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {', '.join(STATUSES)}, got {self.status!r}")
        for name, verdict in (("human_verdict", self.human_verdict), ("proposed_verdict", self.proposed_verdict)):
            if verdict and verdict not in VERDICTS[self.rubric]:
                raise ValueError(f"{name} {verdict!r} is not a {self.rubric} verdict "
                                 f"(one of {', '.join(VERDICTS[self.rubric])})")
        if self.status == LABELLED and not self.human_verdict:
            raise ValueError("a labelled item needs a human_verdict")
        if not self.source.strip() or not (self.summary.strip() or self.claim.strip()):
            raise ValueError("an item needs a source and a summary (or claim)")
        if not self.item_id:
            key = "\x1f".join((self.rubric, self.source, self.summary, self.claim))
            object.__setattr__(self, "item_id", hashlib.sha256(key.encode()).hexdigest()[:20])

    @property
    def text(self) -> str:
        return self.claim or self.summary

    def case(self) -> SummaryCase:
        return SummaryCase(self.source, self.text, self.band or None, self.expected_facts)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["expected_facts"] = list(self.expected_facts)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "CorpusItem":
        if not isinstance(data, dict):
            raise ValueError(f"expected a JSON object, got {type(data).__name__}")
        known = {f for f in cls.__dataclass_fields__}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown field(s) {', '.join(unknown)} (known: {', '.join(sorted(known))})")
        for required in ("rubric", "source"):
            if not isinstance(data.get(required), str):
                raise ValueError(f"missing or non-text field {required!r}")
        facts = data.get("expected_facts") or ()
        if not isinstance(facts, (list, tuple)) or not all(isinstance(f, str) for f in facts):
            raise ValueError("expected_facts must be a list of strings")
        values = {k: v for k, v in data.items() if k != "expected_facts"}
        for key, value in values.items():
            if not isinstance(value, str):
                raise ValueError(f"field {key!r} must be text, got {type(value).__name__}")
        return cls(**values, expected_facts=tuple(facts))


# -- storage ------------------------------------------------------------------------------------
def _row(item: CorpusItem, at: datetime) -> tuple:
    return (item.item_id, item.rubric, item.source, item.summary, item.claim, item.human_verdict,
            item.proposed_verdict, item.bucket, item.origin, item.status, item.band, list(item.expected_facts),
            item.trace_id, item.note, at)


def save_items(store: Store, items: Sequence[CorpusItem]) -> int:
    at = datetime.now(timezone.utc)
    store.insert(CORPUS_TABLE, [_row(i, at) for i in items], CORPUS_COLUMNS)
    return len(items)


def load_items(store: Store, rubric: Optional[str] = None, status: Optional[str] = None,
               item_id: Optional[str] = None) -> list[CorpusItem]:
    params: dict[str, Any] = {}
    where = equals_filter(params, Rubric=rubric, Status=status, ItemId=item_id)
    rows = store.query_rows(
        f"SELECT {', '.join(CORPUS_COLUMNS[:-1])} FROM {CORPUS_TABLE} FINAL WHERE {where} "
        f"ORDER BY Rubric, Bucket, ItemId", params)
    return [CorpusItem(rubric=r, source=src, summary=summ, claim=claim, human_verdict=hv, proposed_verdict=pv,
                       bucket=bucket, origin=origin, status=status_, band=band, expected_facts=tuple(facts),
                       trace_id=tid, note=note, item_id=iid)
            for iid, r, src, summ, claim, hv, pv, bucket, origin, status_, band, facts, tid, note in rows]


def existing_ids(store: Store, ids: Iterable[str]) -> set[str]:
    ids = list(ids)
    if not ids:
        return set()
    rows = store.query_rows(f"SELECT DISTINCT ItemId FROM {CORPUS_TABLE} WHERE ItemId IN {{ids:Array(String)}}",
                            {"ids": ids})
    return {r[0] for r in rows}


@dataclass
class ImportReport:
    added: int = 0
    updated: int = 0
    bad: list[tuple[int, str]] = field(default_factory=list)


def import_jsonl(store: Store, path: Path, *, origin: Optional[str] = None) -> ImportReport:
    """Add or update items from JSONL; a bad line is reported with its number and skipped."""
    report = ImportReport()
    items: list[CorpusItem] = []
    with path.open("rb") as fh:
        for line_no, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            try:
                data = json.loads(raw.decode("utf-8"))
                if origin and isinstance(data, dict) and not data.get("origin"):
                    data["origin"] = origin
                items.append(CorpusItem.from_json(data))
            except (ValueError, TypeError, UnicodeDecodeError) as exc:
                report.bad.append((line_no, str(exc)))
    known = existing_ids(store, (i.item_id for i in items))
    save_items(store, items)
    report.updated = sum(1 for i in items if i.item_id in known)
    report.added = len(items) - report.updated
    return report


def export_jsonl(items: Sequence[CorpusItem]) -> str:
    return "".join(json.dumps(i.to_json(), ensure_ascii=False) + "\n" for i in items)


def seed_starter_corpora(store: Store, rubrics: Sequence[str] = RUBRICS) -> dict[str, int]:
    """Load the corpora shipped with sumwatch (idempotent: items already present are left as they are)."""
    added = {}
    for rubric in rubrics:
        path = STARTER_DIR / f"{rubric}.jsonl"
        if not path.is_file():
            added[rubric] = 0
            continue
        items = [CorpusItem.from_json(json.loads(line)) for line in path.read_text().splitlines() if line.strip()]
        known = existing_ids(store, (i.item_id for i in items))
        fresh = [i for i in items if i.item_id not in known]
        save_items(store, fresh)
        added[rubric] = len(fresh)
    return added


def label_item(store: Store, item_id: str, verdict: str, *, bucket: Optional[str] = None,
               note: Optional[str] = None) -> CorpusItem:
    """A person's verdict on a promoted item: it becomes ``labelled`` and counts in calibration."""
    found = load_items(store, item_id=item_id)
    if not found:
        raise KeyError(f"no corpus item {item_id!r}")
    item = found[0]
    status = REJECTED if verdict == REJECTED else LABELLED
    labelled = CorpusItem(**{**item.to_json(), "expected_facts": item.expected_facts,
                             "human_verdict": item.human_verdict if status == REJECTED else verdict,
                             "status": status, "bucket": bucket or item.bucket, "note": note or item.note})
    save_items(store, [labelled])
    return labelled


# -- agreement ------------------------------------------------------------------------------------
def cohen_kappa(human: Sequence[str], judge: Sequence[str]) -> Optional[float]:
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


@dataclass
class BucketAgreement:
    bucket: str
    items: int
    kappa: Optional[float]
    judge_pass_rate: float


@dataclass
class GateResult:
    passed: bool
    baseline_version: Optional[str]
    baseline_kappa: Optional[float]
    reasons: list[str] = field(default_factory=list)


@dataclass
class CalibrationReport:
    rubric: str
    judge_version: str
    items: int
    kappa: Optional[float]
    accuracy: float
    buckets: list[BucketAgreement]
    confusion: dict[str, dict[str, int]]
    gate: Optional[GateResult] = None
    recorded: bool = False

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def agreement(rubric: str, items: Sequence[CorpusItem], verdicts: Sequence[str], judge_version: str) -> CalibrationReport:
    human = [i.human_verdict for i in items]
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
        buckets.append(BucketAgreement(bucket, len(idx), _round(cohen_kappa(h_bin, j_bin)),
                                       round(sum(verdicts[k] in passing for k in idx) / len(idx), 3)))
    accuracy = sum(1 for h, j in zip(human, verdicts) if h == j) / max(len(items), 1)
    return CalibrationReport(rubric, judge_version, len(items), _round(cohen_kappa(human, verdicts)),
                             round(accuracy, 4), buckets, confusion)


def _round(value: Optional[float]) -> Optional[float]:
    return None if value is None else round(value, 4)


def corpus_hash(items: Sequence[CorpusItem]) -> str:
    digest = hashlib.sha256()
    for item in sorted(items, key=lambda i: i.item_id):
        digest.update(f"{item.item_id}:{item.human_verdict}:{item.bucket}\n".encode())
    return digest.hexdigest()[:16]


def latest_baseline(store: Store, rubric: str) -> Optional[tuple[str, float, dict[str, float]]]:
    rows = store.query_rows(
        f"SELECT JudgeVersion, Kappa, BucketKappas FROM {BASELINES_TABLE} FINAL WHERE Rubric = {{r:String}} "
        f"ORDER BY RecordedAt DESC LIMIT 1", {"r": rubric})
    return (rows[0][0], float(rows[0][1]), dict(rows[0][2])) if rows else None


def gate(report: CalibrationReport, baseline: Optional[tuple[str, float, dict[str, float]]]) -> GateResult:
    if baseline is None:
        return GateResult(True, None, None, ["no baseline yet: this run becomes the baseline"])
    version, kappa, bucket_kappas = baseline
    reasons = []
    current = report.kappa if report.kappa is not None else 0.0
    if current < kappa - OVERALL_DROP:
        reasons.append(f"overall kappa {current:.3f} is {kappa - current:.3f} below the baseline {kappa:.3f} "
                       f"({version}); the limit is {OVERALL_DROP}")
    for b in report.buckets:
        before = bucket_kappas.get(b.bucket)
        now = b.kappa if b.kappa is not None else 0.0
        if before is not None and now < before - BUCKET_DROP:
            reasons.append(f"bucket {b.bucket}: kappa {now:.3f} is {before - now:.3f} below the baseline "
                           f"{before:.3f}; the limit is {BUCKET_DROP}")
    return GateResult(not reasons, version, kappa, reasons)


def record_baseline(store: Store, report: CalibrationReport, items: Sequence[CorpusItem]) -> None:
    store.insert(BASELINES_TABLE, [(
        report.rubric, report.judge_version, report.kappa if report.kappa is not None else 0.0,
        {b.bucket: b.kappa for b in report.buckets if b.kappa is not None}, report.items, corpus_hash(items),
        datetime.now(timezone.utc))], ["Rubric", "JudgeVersion", "Kappa", "BucketKappas", "Items", "CorpusHash",
                                      "RecordedAt"])


def calibrate(store: Store, cascade: Any, rubric: str, *, judge_version: Optional[str] = None,
              record: bool = True) -> CalibrationReport:
    """Run the judge over the rubric's labelled corpus, compare with the baseline, record if it holds."""
    if rubric not in RUBRICS:
        raise ValueError(f"unknown rubric {rubric!r} (one of {', '.join(RUBRICS)})")
    items = load_items(store, rubric=rubric, status=LABELLED)
    if not items:
        raise ValueError(f"the {rubric} corpus has no labelled items: run `sumwatch corpus seed` or import some")
    results = cascade.score_batch([i.case() for i in items], rubrics=[rubric])
    verdicts = [r[rubric].verdict for r in results]
    report = agreement(rubric, items, verdicts, judge_version or cascade.version)
    report.gate = gate(report, latest_baseline(store, rubric))
    if record and report.gate.passed:
        record_baseline(store, report, items)
        report.recorded = True
    return report
