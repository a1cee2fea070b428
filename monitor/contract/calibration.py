"""Calibration as the API serves it: corpus items and their pages, labellers' agreement, a calibration run's
report, a candidate judge definition's test and promotion, and the judge definitions' views.

    page = client.corpus(rubric="factuality", status="needs_label")     # CorpusPage(total=..., items=[CorpusItem])
    report = client.calibrate("factuality")                             # CalibrationReport(kappa=0.81, ...)

The store (:mod:`sumwatch.monitor.store.corpus`), calibration (:mod:`~sumwatch.monitor.calibration.gate`,
:mod:`~sumwatch.monitor.calibration.judges`, :mod:`~sumwatch.monitor.calibration.labels`) and the judge
definitions' routes make them. A corpus item checks its own shape when it is made; whether its rubric exists and
its verdicts are that rubric's is the server's to check (:func:`sumwatch.monitor.store.corpus.check_item`).
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from sumwatch.tracer.vocabulary import Choice

from .actions import SkippedLine
from .values import choice_error


@dataclass
class BucketAgreement:
    bucket: str
    items: int
    kappa: float | None
    judge_pass_rate: float
    measurable: bool = True  # False: the judge passed every item of a failure bucket, so no disagreement


@dataclass
class GateResult:
    passed: bool
    baseline_version: str | None
    baseline_kappa: float | None
    reasons: list[str] = field(default_factory=list)


@dataclass
class CalibrationReport:
    rubric: str
    judge_version: str
    items: int
    kappa: float | None
    accuracy: float
    buckets: list[BucketAgreement]
    confusion: dict[str, dict[str, int]]
    gate: GateResult | None = None
    recorded: bool = False
    warnings: list[str] = field(default_factory=list)
    disputed: int = 0  # items left out because their labellers disagree and nobody resolved it


@dataclass
class ChangedItem:
    """A corpus item the candidate judges differently from the active version."""

    item_id: str
    bucket: str
    human: str
    active: str
    candidate: str


@dataclass
class CandidateReport:
    """What a candidate definition measured against the active one on the same labelled items."""

    rubric: str
    candidate_version: str  # the candidate's judge version (tag and content)
    active_version: str | None  # None: the rubric has no active version yet
    items: int  # labelled items measured
    excluded: list[str]  # items left out because a version shows them as few-shot examples
    candidate: CalibrationReport | None
    active: CalibrationReport | None
    changed: list[ChangedItem]
    gate: GateResult
    llm_calls: int = 0  # spent by the candidate's run
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    notes: list[str] = field(default_factory=list)


@dataclass
class PromotionReport:
    """A promotion, or why there was none (``promoted`` False, the reason in ``refused``)."""

    rubric: str
    version: str
    judge_version: str
    promoted: bool
    test: CandidateReport
    forced: str = ""  # the reason that overrode a failed gate
    again: bool = False  # this version was stored before: promoting it again makes it active (a rollback)
    refused: str = ""


@dataclass(frozen=True)
class PairAgreement:
    """Two labellers over the items both labelled: how many, how many the same, and Cohen's kappa (None when
    undefined: both gave one verdict throughout)."""

    a: str
    b: str
    items: int
    agreed: int
    kappa: float | None


@dataclass(frozen=True)
class Disagreement:
    """An item its labellers disagree on: each labeller's verdict, and the resolution if someone gave one."""

    item_id: str
    rubric: str
    labels: dict[str, str]
    resolved: str = ""
    resolved_by: str = ""


@dataclass(frozen=True)
class LabellerAgreement:
    pairs: list[PairAgreement]
    disagreements: list[Disagreement]  # unresolved first

    @property
    def unresolved(self) -> int:
        return sum(1 for d in self.disagreements if not d.resolved)


class CorpusStatus(Choice):
    """Where a calibration item stands: only labelled items count; promoted ones wait as needs_label."""

    LABELLED = "labelled"
    NEEDS_LABEL = "needs_label"
    REJECTED = "rejected"
    DISPUTED = "disputed"  # labellers disagree and nobody resolved it: left out of calibration


LABELLED, NEEDS_LABEL, REJECTED, DISPUTED = CorpusStatus.values()
STATUSES: tuple[str, ...] = CorpusStatus.values()
PASS_BUCKET = "pass"


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
    span_id: str = ""  # with trace_id: the span an item was labelled from
    note: str = ""
    item_id: str = ""
    example: bool = False  # a labelled hard case offered to the judge as a few-shot example

    def __post_init__(self) -> None:
        # its rubric and verdicts are the server's to check (store.corpus.check_item): the rubrics live there
        if self.status not in STATUSES:
            raise ValueError(choice_error("status", self.status, STATUSES))
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

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["expected_facts"] = list(self.expected_facts)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CorpusItem:
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
        example = data.get("example", False)
        if not isinstance(example, bool):
            raise ValueError("example must be true or false")
        values = {k: v for k, v in data.items() if k not in ("expected_facts", "example")}
        for key, value in values.items():
            if not isinstance(value, str):
                raise ValueError(f"field {key!r} must be text, got {type(value).__name__}")
        return cls(**values, expected_facts=tuple(facts), example=example)


class JudgeSummary(BaseModel):
    rubric: str
    version: str
    judge_version: str
    builtin: bool
    shipped: bool = Field(description="the packaged file, never promoted")
    promoted_at: datetime | None = None
    promoted_by: str = ""
    forced: str = Field("", description="the reason given when a promotion overrode the gate")


class ExampleOffer(BaseModel):
    """A labelled hard case marked as a few-shot example that this version does not show yet."""

    item_id: str
    verdict: str
    bucket: str
    summary: str
    paste: str = Field(description="the lines to add to the definition")


class JudgeDefinitionView(JudgeSummary):
    active: bool
    text: str = Field(description="the definition file as written (TOML)")
    results: dict[str, Any] = Field(default_factory=dict, description="what the promotion's test measured")
    examples_in_use: list[str] = Field(default_factory=list, description="corpus items shown as examples")
    inline_examples: int = 0
    example_offers: list[ExampleOffer] = Field(default_factory=list)


class JudgeHistory(BaseModel):
    rubric: str
    active_version: str | None
    versions: list[JudgeDefinitionView] = Field(description="every promotion, newest first")


class JudgeDiff(BaseModel):
    rubric: str
    a: str
    b: str
    diff: str = Field(description="unified diff of the two files ('' when they are the same)")


class CorpusPage(BaseModel):
    total: int = Field(description="items that match, on every page")
    items: list[CorpusItem]
    next_cursor: str | None = Field(None, description="pass as `cursor` for the next page (also in `X-Next-Cursor`);"
                                                      " null on the last page")


class ImportAnswer(BaseModel):
    added: int
    updated: int
    skipped: list[SkippedLine]
