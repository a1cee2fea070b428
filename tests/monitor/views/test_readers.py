"""StoreReader and RemoteReader give equal records for the same data, so every read command prints the
same whether it opens the store or goes through the `sumwatch up` that holds it."""

from contextlib import contextmanager

import pytest
from typer.testing import CliRunner

from sumwatch.monitor.cli import _shared, app
from sumwatch.monitor.cli.issues import issue_table
from sumwatch.monitor.issues.reads import IssueDetail, IssueList, IssueRow, IssueView
from sumwatch.monitor.store.connection import StoreBusyError
from sumwatch.monitor.views.readers import Reader, RemoteReader, StoreReader

runner = CliRunner()


def test_the_server_and_the_store_give_the_same_records(served, store, run_at):
    server, trace_ids = served
    local: Reader = StoreReader(store)
    remote: Reader = RemoteReader(server.endpoint, "s3cret-token")
    assert remote.list_traces(limit=10) == local.list_traces(limit=10) and len(local.list_traces()) == 4
    assert remote.get_trace(trace_ids[0]) == local.get_trace(trace_ids[0])

    here, there = local.issues(), remote.issues()
    assert isinstance(there, IssueList) and there == here and there.to_json() == here.to_json()
    assert there.run.run_id == "run-1" and there.run.finished_at == run_at
    assert [r.issue_id for r in there.issues] == ["SW-1"] and there.issues[0].state.first_seen == run_at
    assert not hasattr(there.issues[0].state, "centroid")  # the centroid stays behind the API
    assert "centroid" not in there.to_json()["issues"][0]
    assert str(issue_table("t", there.issues).columns[0]._cells) == str(issue_table("t", here.issues).columns[0]._cells)

    detail, shown = local.issue("SW-1"), remote.issue("sw-1")
    assert isinstance(shown, IssueDetail) and shown == detail and shown.to_json() == detail.to_json()
    assert shown.representatives[0].trace_id == trace_ids[0] and shown.trace_ids == trace_ids
    assert shown.history == [{"run_id": "run-1", "run_at": run_at.isoformat(), "members": 2, "status": "new"}]
    assert remote.issue("SW-9") is None and local.issue("SW-9") is None


def test_an_issue_reads_as_the_store_serves_it_less_the_centroid(issue_state):
    view = IssueView.of(issue_state)
    assert list(view.to_json().items()) == list(issue_state.to_json().items())  # same keys, order and values
    assert view.share == 0.6667 and IssueView.from_json(view.to_json()) == view
    row = IssueRow.of(issue_state, [1, 2])
    assert row.to_json() == {**issue_state.to_json(), "trend": [1, 2]} and IssueRow.from_json(row.to_json()) == row
    assert IssueList.from_json(IssueList(None, []).to_json()) == IssueList(None, [])


def _held_by(api):
    """open_store as it behaves while `sumwatch up` at ``api`` holds the embedded database."""
    real = _shared.open_store

    @contextmanager
    def open_store(settings, *, busy_to_caller=False, **kw):
        if busy_to_caller:
            raise StoreBusyError("held", api=api)
        with real(settings, busy_to_caller=busy_to_caller, **kw) as store:
            yield store

    return open_store


@pytest.mark.parametrize("args, code", [
    (["traces"], 0), (["traces", "--json", "-n", "3"], 0), (["traces", "show", "{trace}"], 0),
    (["traces", "show", "{trace}", "--json"], 0), (["traces", "show", "ab" * 16], 1),
    (["issues"], 0), (["issues", "--open", "--json"], 0), (["issues", "show", "SW-1"], 0),
    (["issues", "show", "sw-1", "--json"], 0), (["issues", "show", "SW-9"], 1),
])
def test_read_commands_print_the_same_through_the_server(served, cli_env, monkeypatch, args, code):
    server, trace_ids = served
    env = {**cli_env, "SUMWATCH_API_TOKEN": "s3cret-token"}
    args = [a.format(trace=trace_ids[0]) for a in args]
    here = runner.invoke(app, args, env=env, catch_exceptions=False)
    monkeypatch.setattr(_shared, "open_store", _held_by(server.endpoint))
    there = runner.invoke(app, args, env=env, catch_exceptions=False)
    assert here.exit_code == there.exit_code == code
    assert here.stdout == there.stdout and (code == 0) == bool(here.stdout.strip())
    assert "reading through it" in there.stderr and "reading through it" not in here.stderr
    assert there.stderr.replace(f"(the database is held by the sumwatch server at {server.endpoint}; "
                                "reading through it)\n", "") == here.stderr
