"""Judgements as the API serves them: stored scores, the cheap tiers' agreement with the LLM, a scoring pass's
report and estimate, and the recognition report (``sumwatch doctor``).

    client.scores(trace_id=..., rubric="factuality")     # [ScoreRecord(...)]
    client.score(ScoreRequest(mode="off"))                # PassReport(...)

The store (:mod:`sumwatch.monitor.store.scores`) and scoring (:mod:`~sumwatch.monitor.scoring.sampler`,
:mod:`~sumwatch.monitor.scoring.estimate`, :mod:`~sumwatch.monitor.scoring.recognition_report`) make them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class ScoreRecord:
    trace_id: str
    span_id: str
    rubric: str
    judge_version: str
    verdict: str
    score: float
    passed: bool
    failure_mode: str
    tier: str
    evidence: str
    explanation: str
    model: str
    cost_usd: float
    latency_ms: float
    error: str
    service: str
    scored_at: str

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Agreement:
    """How the LLM judged the cases the cheap tiers handed it, per rubric, route and cheap finding."""

    rubric: str
    route: str  # suspicion | unsure | audit | always
    cheap_finding: str  # the cheap tiers' failure kind ("" for a pass)
    judged: int  # LLM verdicts
    agreed: int  # of those, how many passed or failed as the cheap tiers had it
    cost_usd: float
    agreement: float | None  # agreed / judged (None before any verdict)


@dataclass
class PassReport:
    judge_version: str
    considered: int = 0
    scored_spans: int = 0
    score_rows: int = 0
    skipped_no_text: int = 0
    errors: int = 0
    failing: int = 0
    llm_requests: int = 0
    spent_usd: float = 0.0
    seconds: float = 0.0
    watermark_ns: int = 0
    recognised: int = 0  # summarization calls found in other instrumentations' spans this pass (all, not sampled)
    workers: int = 1  # processes that ran the sentence model
    kept_stronger: int = 0  # results not stored: the span already had a verdict from a stronger source
    rescore: bool = False  # a rescore: stored spans judged again with the current judges
    unjudged_cap: int = 0  # rubric results the daily spending cap kept from the LLM (cheap verdicts, marked)
    spent_today_usd: float = 0.0  # LLM judging's spend today (UTC), every process on the store, after the pass
    daily_cap_usd: float | None = None


@dataclass(frozen=True)
class PassEstimate:
    """A pass not yet run: the spans and (span, rubric) pairs it would judge, the LLM requests and cost to
    expect, and today's spend against the daily cap."""

    spans: int
    pairs: int  # at most: spans times rubrics (a rescore skips rubrics their current version judged)
    rubrics: list[str]
    judge_version: str
    llm_requests: int
    llm_requests_max: int
    cost_usd: float | None  # None: no LLM request of this store has a known price yet
    basis: str  # how the requests were estimated, in words
    spent_today_usd: float
    daily_cap_usd: float | None

    def sentence(self, what: str) -> str:
        """One line a person reads before saying yes: ``estimate.sentence("rescore")``."""
        if not self.spans:
            return f"{what}: nothing to judge"
        line = (f"{what}: {self.spans} span{'s' if self.spans != 1 else ''} ({', '.join(self.rubrics)}), "
                f"judged with {self.judge_version}")
        if not self.llm_requests_max:
            return line + ": no LLM requests (offline judges)"
        cost = (f", about ${self.cost_usd:.4f}" if self.cost_usd is not None
                else ", cost unknown (no priced request yet)")
        cap = (f"; today ${self.spent_today_usd:.4f} of the ${self.daily_cap_usd:.2f} daily cap is spent"
               if self.daily_cap_usd is not None else "; no daily cap")
        return (f"{line}: about {self.llm_requests} LLM requests (at most {self.llm_requests_max}; {self.basis})"
                f"{cost}{cap}")


@dataclass(frozen=True)
class ReasonCount:
    reason: str
    spans: int


@dataclass(frozen=True)
class InstrumentationCounts:
    """One instrumentation (or selector) of one service in the window: spans read, recognised, and why the
    rest are not."""

    instrumentation: str
    spans: int
    recognised: int
    not_recognised: int
    reasons: list[ReasonCount] = field(default_factory=list)
    service: str = ""  # the spans' service.name


@dataclass(frozen=True)
class RecognitionReport:
    window_s: int
    candidates: int  # untagged spans a rule or selector would read, in the window
    read: int  # of those, the newest ones read for this report (at most the sample size)
    rows: list[InstrumentationCounts] = field(default_factory=list)
