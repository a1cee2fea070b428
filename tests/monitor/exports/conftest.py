"""A store with demo traces and clustering runs written as the clustering job writes them, the fake trackers and
the fake score targets."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np
import pytest
from fakes.score_targets import FakeScoreTargets
from fakes.trackers import FakeTrackers

from sumwatch.monitor.store.issue_members import REPRESENTATIVE, MemberRow, save_members
from sumwatch.monitor.store.issues import IssueState, save_states
from sumwatch.monitor.store.runs import RunRow, save_run

T0 = datetime(2026, 11, 20, 12, 0, tzinfo=timezone.utc)


@pytest.fixture
def targets():
    """The loopback Langfuse, Phoenix and OTLP endpoints scores are sent to."""
    with FakeScoreTargets() as server:
        yield server


@pytest.fixture
def issue():
    """``issue(3, "regressed", "critical", members=9)``: an IssueState as the clustering job stores it."""
    return state


def state(number: int, status: str = "new", severity: str = "high", members: int = 5) -> IssueState:
    return IssueState(number, f"SW-{number}", f"Numbers changed in summaries {number}",
                      "Figures in the summary differ from the source.", "The model rewrites numbers.",
                      "Copy figures verbatim.", severity, "factuality", "number_mismatch", ["number"], status,
                      members, members, 0.5, 0, T0, T0, np.ones(4, dtype=np.float32) / 2, "m", "KeywordNamer")


def write_run(store, run_no: int, states: list[IssueState], trace_ids: list[str]) -> str:
    """A finished run ``run-N`` holding ``states``; each issue's representatives are the given traces."""
    run_id, at = f"run-{run_no}", T0 + timedelta(hours=run_no)
    save_states(store, states, run_id, at)
    save_members(store, [MemberRow(run_id, s.number, tid, span, at, service_name="svc", rubric="factuality",
                                   verdict="numerically_wrong", failure_mode="number_mismatch",
                                   membership=0.9 - i / 10, role=REPRESENTATIVE,
                                   evidence=f'summary: "21%" | source: "12%" #{i}',
                                   failure_text="factuality numerically wrong", run_at=at)
                         for s in states if s.members for i, (tid, span) in enumerate(trace_ids)])
    save_run(store, RunRow(run_id, at, at, at, at, failures=10, clustered=8, noise=2, issues=len(states),
                           new_issues=1, embedded=8, promoted=0, namer="KeywordNamer", embedding_model="m",
                           seconds=1.0))
    return run_id


@pytest.fixture
def spans(store):
    """(trace id, span id) of three stored summarization spans with source and summary."""
    from sumwatch.monitor.demo.run import run_demo

    demo = run_demo(store, n=3)
    rows = store.query_rows("SELECT TraceId, SpanId FROM otel_traces ORDER BY TraceId LIMIT 3")
    assert len(rows) == 3 and demo.stored >= 3
    return [(t, s) for t, s in rows]


@pytest.fixture
def issues(store, spans):
    """Run 1 found SW-1 (new, high) and SW-2 (ongoing, low)."""
    write_run(store, 1, [state(1), state(2, "ongoing", "low", 3)], spans)
    return store


@pytest.fixture
def fake():
    with FakeTrackers() as server:
        yield server



@pytest.fixture
def runs(store, spans):
    """``runs(2, [state(1, "regressed")])`` writes finished run 2 with those issues."""
    return lambda run_no, states: write_run(store, run_no, states, spans)
