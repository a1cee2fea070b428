"""What each page shows, read from the store in this process: one function per page, returning the
template's context. Query strings are checked in :mod:`.query`; records come from the store's readers.

    context = overview(store, filter_choice(params))
    context = issue_page(store, settings, "SW-3")      # None when there is no such issue
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from markupsafe import Markup

from sumwatch.tracer import semconv
from sumwatch.tracer.vocabulary import Severity

from ...contract.issues import Example, IssueRow, trend_label
from ...contract.scores import ScoreRecord
from ...contract.traces import SpanDetail
from ...issues.reads import get_issue, issue_list, list_issues
from ...rubrics.verdicts import RUBRICS
from ...settings import Settings
from ...store.connection import Store
from ...store.issues import issue_states
from ...store.projections import load_projection
from ...store.runs import latest_run
from ...store.scores import daily_spend, list_scores
from ...store.stats import compare_all, filter_options, issue_sparklines, judge_cost, pass_rate_series, volume_series
from ...store.traces import get_trace, span_texts
from . import charts
from .evidence import evidence_phrases, highlight
from .figures import figure_json
from .query import FilterChoice, IssueQuery, coarsen_start, display_bucket

OVERVIEW_ISSUES = 12  # open issues listed (with a sparkline each) on the overview
_SEVERITY_RANK = {s: i for i, s in enumerate(reversed(Severity.values()))}  # most severe first
_STATUS_RANK = {"regressed": 0, "new": 1, "ongoing": 2, "resolved": 3}
_LONG_ATTRIBUTE = 300  # characters of an attribute value shown in the attribute table


# -- overview -------------------------------------------------------------------------------------------

def _coarse_volume(series: Sequence[tuple[datetime, int]], bucket: int) -> list[tuple[datetime, int]]:
    out: dict[datetime, int] = {}
    for b, n in series:
        key = coarsen_start(b, bucket)
        out[key] = out.get(key, 0) + n
    return sorted(out.items())


def _coarse_rates(series: Sequence[tuple[datetime, int, int]], bucket: int) -> list[tuple[datetime, int, int]]:
    out: dict[datetime, tuple[int, int]] = {}
    for b, passed, total in series:
        key = coarsen_start(b, bucket)
        p, t = out.get(key, (0, 0))
        out[key] = (p + passed, t + total)
    return [(b, p, t) for b, (p, t) in sorted(out.items())]


@dataclass(frozen=True)
class RubricTotal:
    rubric: str
    passed: int
    total: int

    @property
    def rate(self) -> float | None:
        return self.passed / self.total if self.total else None


def overview(store: Store, choice: FilterChoice, daily_cap_usd: float | None = None) -> dict[str, Any]:
    """Volume, pass rate per rubric over time, judge cost and today's spend against the daily LLM cap, and the
    open issues with sparklines."""
    f = choice.filters
    now = datetime.now(timezone.utc)  # the time axes end here at the latest
    volume = volume_series(store, f, choice.read_bucket_s)
    rates = pass_rate_series(store, f, choice.read_bucket_s)
    stamps = [b for b, _ in volume] + [b for points in rates.values() for b, _, _ in points]
    bucket = display_bucket(min(stamps), max(stamps), choice.read_bucket_s) if stamps else choice.read_bucket_s
    volume = _coarse_volume(volume, bucket)
    rates = {r: _coarse_rates(points, bucket) for r, points in rates.items()}
    totals = [RubricTotal(r, sum(p for _, p, _ in pts), sum(t for _, _, t in pts)) for r, pts in sorted(rates.items())]
    # the issues with their triage, as the issue list shows them: open ones by size, hidden ones left out and
    # counted; their trend is the sparkline below
    run, rows = list_issues(store, trend_runs=1)
    states = [r for r in rows if r.status != "resolved" and not r.triage.hidden]
    shown = states[:OVERVIEW_ISSUES]
    sparks = issue_sparklines(store, [r.issue_id for r in shown])
    return {"choice": choice, "options": filter_options(store), "bucket_s": bucket,
            "spans": sum(n for _, n in volume), "totals": totals, "cost": judge_cost(store, f),
            "spend": daily_spend(store, daily_cap_usd),
            "volume_fig": charts.volume_figure(volume, bucket, now),
            "rates_fig": charts.pass_rate_figure(rates, bucket, now),
            "run": run, "open_issues": shown, "open_count": len(states),
            "triaged": TriageCounts.of(rows),
            "sparks": {i: charts.sparkline_figure(v) for i, v in sparks.items()}}


@dataclass(frozen=True)
class TriageCounts:
    """What triage did to the last run's issues, for the overview: each count links to the issues it counts."""

    resolved: int = 0
    regressed: int = 0
    ignored: int = 0
    muted: int = 0
    merged: int = 0
    assigned: int = 0

    @classmethod
    def of(cls, rows: Sequence[IssueRow]) -> TriageCounts:
        t = [r.triage for r in rows]
        return cls(sum(r.status == "resolved" for r in rows), sum(r.status == "regressed" for r in rows),
                   sum(x.ignored for x in t), sum(x.muted and not x.ignored for x in t),
                   sum(bool(x.merged_into) for x in t), sum(bool(x.assignee) and not x.hidden for x in t))


# -- issues -----------------------------------------------------------------------------------------

def _delta(row: IssueRow) -> int:
    t = row.trend
    return t[-1] - t[-2] if len(t) >= 2 else (t[-1] if t else 0)


_SORT_KEYS: dict[str, Any] = {
    "id": lambda r: r.number,
    "status": lambda r: (_STATUS_RANK.get(r.status, 9), r.number),
    "severity": lambda r: (-_SEVERITY_RANK.get(r.severity, 9), r.members),
    "rubric": lambda r: (r.rubric, r.number),
    "traces": lambda r: (r.traces, -r.number),
    "share": lambda r: (r.share, -r.number),
    "trend": lambda r: (_delta(r), r.traces),
    "title": lambda r: r.title.lower(),
}


def issues_page(store: Store, q: IssueQuery, rubrics: tuple[str, ...] = RUBRICS, *, hidden: bool = False
                ) -> dict[str, Any]:
    """The issues of the last finished run, filtered and sorted as asked; ``rubrics`` are the filter's
    choices (the database's: ``known_rubrics(store)``); ``hidden`` adds ignored, muted and merged issues."""
    listing = issue_list(store, include_resolved=q.status in ("all", "resolved"), include_hidden=hidden)
    rows = listing.issues
    if q.status not in ("open", "all"):
        rows = [r for r in rows if r.status == q.status]
    if q.severity:
        rows = [r for r in rows if r.severity == q.severity]
    if q.rubric:
        rows = [r for r in rows if r.rubric == q.rubric]
    if q.text:
        needle = q.text.lower()
        rows = [r for r in rows if needle in f"{r.issue_id} {r.title} {' '.join(r.keywords)}".lower()]
    rows = sorted(rows, key=_SORT_KEYS[q.sort], reverse=q.descending)
    return {"q": q, "run": listing.run, "rows": rows, "total": len(listing.issues), "rubrics": rubrics,
            "trend": {r.issue_id: trend_label(r.trend) for r in rows}, "hidden": hidden}


@dataclass
class ExampleView:
    """An issue's example with its texts marked where the judge's evidence occurs (None: not captured)."""

    example: Example
    source: Markup | None
    summary: Markup | None


def _examples(store: Store, settings: Settings, examples: Sequence[Example]) -> list[ExampleView]:
    texts = span_texts(store, [(e.trace_id, e.span_id) for e in examples])
    out = []
    for e in examples:
        found = texts.get((e.trace_id, e.span_id))
        phrases = evidence_phrases(e.evidence)
        out.append(ExampleView(e, highlight(found[0], phrases) if found else None,
                               highlight(found[1], phrases) if found else None))
    return out


def issue_page(store: Store, settings: Settings, issue_id: str) -> dict[str, Any] | None:
    """One issue: what, why, the fix, its history, and its examples side by side (ValueError: a bad id)."""
    detail = get_issue(store, issue_id)
    if detail is None:
        return None
    return {"issue": detail, "detail": detail, "trend": trend_label(detail.trend),
            "history_fig": charts.history_figure(detail.history),
            "representatives": _examples(store, settings, detail.representatives),
            "boundary": _examples(store, settings, detail.boundary)}


# -- cluster map ------------------------------------------------------------------------------------

class MapCache:
    """The latest finished run's map, built once: a finished run's points and issues never change, and its
    20,000 points take most of a page's time budget to read and lay out."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._run: str | None = None
        self._context: dict[str, Any] = {}

    def get(self, run_id: str) -> dict[str, Any] | None:
        with self._lock:
            return self._context if run_id == self._run else None

    def put(self, run_id: str, context: dict[str, Any]) -> None:
        with self._lock:
            self._run, self._context = run_id, context


def map_page(store: Store, run_id: str | None, cache: MapCache | None = None) -> dict[str, Any]:
    """The failures of ``run_id`` (default: the latest finished run) in 2D, with their issues' titles; the
    figure comes serialized (``map_json``)."""
    run = latest_run(store)
    shown = run_id or (run.run_id if run else None)
    finished = run is not None and shown == run.run_id
    if shown and finished and cache is not None and (hit := cache.get(shown)):
        return hit
    points = load_projection(store, shown) if shown else []
    titles = {s.issue_id: s.title for s in issue_states(store, shown)} if shown else {}
    context = {"points": len(points), "noise": sum(1 for p in points if p.issue_id is None),
               "issues": len({p.issue_id for p in points if p.issue_id}), "run_id": shown,
               "map_json": figure_json(charts.map_figure(points, titles)) if points else None}
    if shown and finished and cache is not None:
        cache.put(shown, context)
    return context


# -- trace ------------------------------------------------------------------------------------------

@dataclass
class SpanView:
    span: SpanDetail
    summarization: bool
    source: Markup | None
    summary: Markup | None
    scores: list[ScoreRecord]  # the latest judgement of each rubric
    earlier: list[ScoreRecord]  # judgements by other judge versions, newest first
    attributes: list[tuple[str, str]] = field(default_factory=list)  # every attribute, as the trace tree lists them
    beside: frozenset[str] = frozenset()  # attributes whose text is shown side by side above, not again

    def attr(self, key: str) -> str:
        return self.span.attributes.get(key, "")

    @property
    def judge_cost(self) -> float:
        return sum(s.cost_usd for s in self.scores)


def _short(value: str) -> str:
    return value if len(value) <= _LONG_ATTRIBUTE else value[:_LONG_ATTRIBUTE - 1] + "…"


# attributes a span's line in the trace tree shows, when it has them
_TREE_KEYS = (semconv.GEN_AI_OPERATION_NAME, "openinference.span.kind", semconv.SUMMARIZATION_BAND,
              semconv.PROMPT_VERSION)


@dataclass(frozen=True)
class TreeLine:
    """One span in the trace's tree: indented by depth, with what tells it apart at a glance."""

    span: SpanDetail
    kind: str  # "summarization" (tagged), the instrumentation it was recognised in, or ""
    facts: list[tuple[str, str]]
    start_ms: float = 0.0  # after the trace's first span began
    bar: tuple[float, float] = (0.0, 100.0)  # where the span lies in the trace's time: left and width, in %
    attributes: list[tuple[str, str]] = field(default_factory=list)  # every attribute, long values cut


def _tree_line(span: SpanDetail, begin: datetime, total_ms: float) -> TreeLine:
    kind = span.recognised.instrumentation if span.recognised else ("sumwatch" if span.summarization else "")
    facts = [(k, _short(span.attributes[k])) for k in _TREE_KEYS if span.attributes.get(k)]
    if span.model:
        facts.insert(0, ("model", span.model))
    if span.input_tokens is not None or span.output_tokens is not None:
        facts.insert(1 if span.model else 0, ("tokens", f"{_count(span.input_tokens)} → {_count(span.output_tokens)}"))
    start = (_at(span.timestamp) - begin).total_seconds() * 1000
    scale = 100 / total_ms if total_ms > 0 else 0.0
    bar = (round(start * scale, 2), round(max(span.duration_ms * scale, 0.5), 2)) if scale else (0.0, 100.0)
    return TreeLine(span, kind, facts, round(start, 3), bar, _attributes(span))


def _attributes(span: SpanDetail) -> list[tuple[str, str]]:
    """A span's attributes as the trace page lists (and counts) them, in the tree and in the span's panel."""
    return [(k, _short(v)) for k, v in sorted(span.attributes.items())]


def _at(iso: str) -> datetime:
    return datetime.fromisoformat(iso.replace("Z", "+00:00"))


def _tree(spans: Sequence[SpanDetail]) -> list[TreeLine]:
    """The trace's spans as tree lines, each placed in the trace's time (start, end of the last to end)."""
    begin = min(_at(s.timestamp) for s in spans)
    total = max((_at(s.timestamp) - begin).total_seconds() * 1000 + s.duration_ms for s in spans)
    return [_tree_line(s, begin, total) for s in spans]


def _count(value: int | None) -> str:
    return "–" if value is None else str(value)


def trace_page(store: Store, trace_id: str) -> dict[str, Any] | None:
    """A trace's spans as a tree; for each summarization span (tagged, or recognised in another
    instrumentation's span) its texts with the evidence marked and every rubric's verdict (ValueError: not a
    trace id). A recognised span shows the document and the answer recognition took out, not its messages."""
    spans = get_trace(store, trace_id)
    if not spans:
        return None
    scores = list_scores(store, trace_id=spans[0].trace_id, limit=1000)
    views = []
    for span in spans:
        mine = [s for s in scores if s.span_id == span.span_id]  # newest first
        latest: dict[str, ScoreRecord] = {}
        for s in mine:
            latest.setdefault(s.rubric, s)
        ordered = [latest[r] for r in (*RUBRICS, *sorted(set(latest) - set(RUBRICS))) if r in latest]
        earlier = [s for s in mine if latest.get(s.rubric) is not s]
        r = span.recognised
        source = r.source if r else span.attributes.get(semconv.INPUT_VALUE, "")
        summary = r.summary if r else span.attributes.get(semconv.OUTPUT_VALUE, "")
        phrases = evidence_phrases(*(s.evidence for s in ordered))
        # a tagged span's texts are shown beside each other, not again among its attributes (but counted there, as
        # the tree counts them: one span, one number)
        text_keys = frozenset() if r else frozenset({semconv.INPUT_VALUE, semconv.OUTPUT_VALUE})
        views.append(SpanView(
            span, span.summarization,
            highlight(source, phrases) if source else None, highlight(summary, phrases) if summary else None,
            ordered, earlier, _attributes(span), text_keys))
    return {"trace_id": spans[0].trace_id, "spans": views, "semconv": semconv,
            "tree": _tree(spans)}


# -- compare ----------------------------------------------------------------------------------------

def compare_page(store: Store, choice: FilterChoice) -> dict[str, Any]:
    both = compare_all(store, choice.filters)  # one join of the score facts with the span facts for both
    by_prompt, by_model = both["prompt_version"], both["model"]
    return {"choice": choice, "options": filter_options(store), "by_prompt": by_prompt, "by_model": by_model,
            "prompt_fig": charts.compare_figure(by_prompt) if by_prompt else None,
            "model_fig": charts.compare_figure(by_model) if by_model else None}
