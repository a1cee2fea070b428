"""Experiments as the API serves them: starting (or resuming) one, the calls it made, its report, and the
comparison of two.

    started = client.start_experiment(StartExperiment(dataset="sw3", name="prompt-v4", task="app:summarize"))
    client.experiment_items(started.experiment.experiment_id, [ItemOutcome(item_id="a1", spans=..., ...)])
    report = client.score_experiment("prompt-v4")        # ExperimentReport: pass rate per rubric, cost, latency
    diff = client.compare_experiments("prompt-v3", "prompt-v4")   # Comparison: per rubric, paired on items

An experiment's calls are ordinary summarization spans carrying :data:`EXPERIMENT_ATTR` and :data:`ITEM_ATTR`,
sent as OTLP protobuf (base64 in :attr:`ItemOutcome.spans`), so the judges, evidence pages and the trace view read
them as any span. :mod:`sumwatch.monitor.experiments` makes the reports; the runner that calls a team's task is
:mod:`sumwatch.monitor.views.experiment_runner`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

EXPERIMENT_ATTR = "sumwatch.experiment.id"  # on every span an experiment's call makes
ITEM_ATTR = "sumwatch.experiment.item"
EXPERIMENT_SERVICE = "sumwatch-experiment"  # the service name of an experiment's spans, unless the task's own
NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$"


class StartExperiment(BaseModel):
    """Start an experiment on a dataset's version (the latest when not given), or resume the one of that name."""

    model_config = ConfigDict(extra="forbid")
    dataset: str = Field(max_length=200)
    version: int | None = Field(None, ge=1, description="the dataset version to pin (default: the latest)")
    name: str | None = Field(None, pattern=NAME_PATTERN,
                             description="a name to find it by; running the same name again resumes it")
    task: str = Field(max_length=500, description="what runs on each item, as the runner names it")


@dataclass
class ExperimentInfo:
    experiment_id: str
    name: str
    dataset: str
    dataset_version: int
    task: str
    items: int  # in the dataset version
    status: str  # running | finished
    created_at: datetime
    done: int = 0  # items whose call finished (a summary or the task's error)
    errors: int = 0  # items whose call raised


@dataclass
class StartAnswer:
    experiment: ExperimentInfo
    resumed: bool
    done: list[str] = field(default_factory=list)  # item ids already finished: a resumed run skips them


class ItemOutcome(BaseModel):
    """One item's call: the spans it made (base64 OTLP protobuf), the summarization span among them, or the
    error the task raised."""

    model_config = ConfigDict(extra="forbid")
    item_id: str = Field(max_length=200)
    trace_id: str = Field("", max_length=32)
    span_id: str = Field("", max_length=16)
    summary: str = ""
    error: str = Field("", max_length=2000)
    latency_ms: float = Field(0.0, ge=0)
    spans: str = Field("", description="ExportTraceServiceRequest, protobuf, base64")


class ItemsAnswer(BaseModel):
    recorded: int
    spans: int


@dataclass
class RubricRate:
    rubric: str
    judged: int
    passed: int
    unjudged: int  # items with a summary no judge of this rubric could settle (no reference, no LLM, ...)
    judge_versions: list[str] = field(default_factory=list)

    @property
    def rate(self) -> float | None:
        return self.passed / self.judged if self.judged else None


@dataclass
class ExperimentReport:
    experiment: ExperimentInfo
    rates: list[RubricRate]
    judged_now: int = 0  # item and rubric verdicts written by this call
    llm_requests: int = 0
    judge_cost_usd: float = 0.0
    task_input_tokens: int = 0  # what the task's own calls reported (record_usage), over every item
    task_output_tokens: int = 0
    latency_ms_p50: float | None = None  # the task's call per item
    latency_ms_p95: float | None = None
    tri_gate: float | None = None  # the mean Tri-Gate composite over items with a reference


@dataclass
class ItemVerdictView:
    verdict: str
    passed: bool
    evidence: str = ""
    failure_mode: str = ""


@dataclass
class ItemDiff:
    """One item on one rubric, both sides: the summaries and the evidence, for a regressed or fixed item."""

    item_id: str
    rubric: str
    change: str  # regressed | fixed
    source: str
    base_summary: str
    candidate_summary: str
    base: ItemVerdictView
    candidate: ItemVerdictView
    base_trace_id: str = ""
    candidate_trace_id: str = ""


@dataclass
class RubricComparison:
    rubric: str
    paired: int
    base_rate: float | None
    candidate_rate: float | None
    delta: float
    low: float
    high: float
    p_value: float
    regression: bool
    improvement: bool
    regressed: list[str] = field(default_factory=list)
    fixed: list[str] = field(default_factory=list)
    unpaired: int = 0


@dataclass
class SideFigures:
    """Cost, tokens and latency of one experiment's own calls (the task), and of judging it."""

    task_input_tokens: int = 0
    task_output_tokens: int = 0
    latency_ms_p50: float | None = None
    judge_cost_usd: float = 0.0
    errors: int = 0


@dataclass
class Comparison:
    base: ExperimentInfo
    candidate: ExperimentInfo
    rubrics: list[RubricComparison]
    diffs: list[ItemDiff]
    base_figures: SideFigures
    candidate_figures: SideFigures
    method: str = ("paired on items both judged; 95% interval by paired bootstrap; McNemar exact test; a "
                   "regression needs the interval below zero and p < 0.05")

    @property
    def regression(self) -> bool:
        return any(r.regression for r in self.rubrics)


@dataclass
class LiveRubric:
    """One rubric of a candidate against production's spans of the prompt version it replaces (other items: the
    comparison is of two independent rates, with Newcombe's interval of their difference)."""

    rubric: str
    live_passed: int
    live_judged: int
    candidate_passed: int
    candidate_judged: int
    delta: float  # candidate rate - live rate
    low: float
    high: float
    regression: bool  # the whole 95% interval below zero

    @property
    def live_rate(self) -> float | None:
        return self.live_passed / self.live_judged if self.live_judged else None

    @property
    def candidate_rate(self) -> float | None:
        return self.candidate_passed / self.candidate_judged if self.candidate_judged else None


@dataclass
class LiveComparison:
    candidate: ExperimentInfo
    prompt_version: str
    service: str  # "" any
    since: str
    rubrics: list[LiveRubric]
    method: str = ("independent rates (production's items are not the dataset's): Newcombe's 95% interval of the "
                   "difference; a regression needs the interval below zero")

    @property
    def regression(self) -> bool:
        return any(r.regression for r in self.rubrics)
