"""Clustering runs written as the job writes them, for the triage tests: issues ``SW-n`` with a unit centroid on
axis n, and a finished run ``run-N`` holding them."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np

from sumwatch.monitor.store.issues import IssueState, save_states
from sumwatch.monitor.store.runs import RunRow, save_run

T0 = datetime(2026, 11, 20, 12, 0, tzinfo=timezone.utc)
DIM = 8


def unit(i: int) -> np.ndarray:
    v = np.zeros(DIM, dtype=np.float32)
    v[i] = 1.0
    return v


def issue_state(number: int, status: str = "ongoing", members: int = 5) -> IssueState:
    return IssueState(number, f"SW-{number}", f"Filler padding {number}", "d", "c", "f", "high", "conciseness",
                      "padded", ["filler"], status, members, members, 0.25, 0, T0, T0, unit(number), "m",
                      "KeywordNamer")


def write_run(store, run_no: int, states: list[IssueState]) -> str:
    """Run ``run-N`` at now (after the events the test took before it; later runs a microsecond apart)."""
    run_id, at = f"run-{run_no}", datetime.now(timezone.utc) + timedelta(microseconds=run_no)
    save_states(store, states, run_id, at)
    save_run(store, RunRow(run_id, at, at, at, at, failures=20, clustered=15, noise=5, issues=len(states),
                           new_issues=0, embedded=0, promoted=0, namer="KeywordNamer", embedding_model="m",
                           seconds=1.0))
    return run_id
