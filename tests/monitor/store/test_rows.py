"""Typed table rows: a run's and a member's record names the table's columns, in the table's order, and what
the clustering job writes through them reads back field by field."""

from datetime import datetime, timedelta, timezone

import pytest

from sumwatch.monitor.store.issue_members import (
    ISSUE_MEMBERS_TABLE,
    MEMBER_COLUMNS,
    REPRESENTATIVE,
    MemberRow,
    members_of,
    save_members,
)
from sumwatch.monitor.store.runs import CLUSTER_RUNS_TABLE, RUN_COLUMNS, RunRow, latest_run, save_run

NOW = datetime(2026, 3, 2, 12, 0, tzinfo=timezone.utc)


@pytest.mark.parametrize(("table", "columns"), [(ISSUE_MEMBERS_TABLE, MEMBER_COLUMNS),
                                                (CLUSTER_RUNS_TABLE, RUN_COLUMNS)])
def test_a_row_record_names_the_columns_of_its_table_in_their_order(store, table, columns):
    created = store.query_rows("SELECT name FROM system.columns WHERE database = currentDatabase() "
                               "AND table = {t:String} ORDER BY position", {"t": table})
    assert columns == tuple(name for (name,) in created)


def test_a_run_and_its_members_read_back_as_written(store):
    start = NOW - timedelta(days=1)
    member = MemberRow("run-7", 3, "a" * 32, "b" * 16, NOW, service_name="svc", rubric="factuality",
                       verdict="entity_wrong", failure_mode="entity_swap", membership=0.75, role=REPRESENTATIVE,
                       evidence='summary: "Acme" | source: "Apex"', failure_text="factuality entity wrong",
                       run_at=NOW)
    assert member.row()[:4] == ("run-7", 3, "a" * 32, "b" * 16) and len(member.row()) == len(MEMBER_COLUMNS)
    save_members(store, [member])
    save_run(store, RunRow("run-7", NOW, NOW + timedelta(seconds=2), start, int(NOW.timestamp() * 1e9),
                           failures=9, clustered=7, noise=2, issues=1, new_issues=1, embedded=9, promoted=3,
                           namer="KeywordNamer", embedding_model="m", seconds=2.0))

    [example] = members_of(store, "run-7", 3)
    assert (example.trace_id, example.span_id, example.rubric, example.verdict, example.failure_mode,
            example.membership, example.role, example.evidence, example.failure_text) == (
        member.trace_id, member.span_id, member.rubric, member.verdict, member.failure_mode, member.membership,
        member.role, member.evidence, member.failure_text)
    run = latest_run(store)
    assert run is not None and run.run_id == "run-7"
    assert (run.window_start, run.window_end) == (start, NOW)  # a datetime or nanoseconds: the same instant
    assert (run.failures, run.clustered, run.noise, run.issues, run.new_issues, run.promoted, run.namer) == (
        9, 7, 2, 1, 1, 3, "KeywordNamer")
